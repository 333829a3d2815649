// SPDX-License-Identifier: GPL-2.0
/*
 * core.mispredict: each CPU's branch predictor, over the basic blocks the vt
 * flavour's kernel model runs (docs/design/memory-hierarchy.md, "Branches").
 *
 * The model sees a block when it is entered (trace-pc), with the stack
 * pointer of the function it is in: a lower one than the last block's is a
 * call, a higher one a return to the frame that had it.  A block's branch
 * is the choice of the block that follows it in the same frame: a call's
 * target is a direct jump, always predicted, and a return goes where the
 * return stack says, so neither is scored; after a return the caller's
 * block whose call it was chooses the next.  (Function entry and exit
 * instrumentation would say the same, but it makes empty functions
 * blocks of their own, which changes the code the model counts.)  A block
 * seen to go only one way is predicted by its last successor, as a BTB
 * does; once it has gone two ways, a TAGE predictor (Seznec and Michaud,
 * JILP 2006) chooses:
 * tagged tables indexed by the block and a geometric series of global
 * history lengths, the longest that matches providing the prediction, one
 * entry allocated in a longer table on each misprediction.  Each prediction
 * is a successor, not a direction, as in Seznec's ITTAGE (JWAC-2, 2011), so
 * a switch's jump table is a branch like any other.  The global history
 * holds one bit a scored branch: whether it went the way it went first.
 *
 * What a misprediction costs is core.mispredict of the core's time, charged
 * with the code (vt_code_pending_ps()).  The tables' sizes and the history
 * lengths are L-TAGE's (CBP-2, 2007), the same for every machine: no core's
 * own predictor is published in that detail.
 */
#include <stdint.h>
#include <stdlib.h>

#include "vt_int.h"

#define VT_BP_BASE_BITS	12		/* the blocks' own entries: 4096, direct-mapped */
#define VT_BP_BITS	10		/* each tagged table: 1024 entries */
#define VT_BP_TABLES	12
#define VT_BP_HIST	1024		/* history bits kept: more than the longest length */
#define VT_BP_FRAMES	64		/* calls tracked; deeper ones lose their caller */
#define VT_BP_U_RESET	(1u << 18)	/* scored branches between resets of the useful bits */
#define VT_BP_POLY	0x8000u		/* in a base entry's first: it has gone two ways */
#define VT_BP_SUCC	0x3fffu		/* a successor as the tables keep it: 14 bits of its hash */
#define VT_BP_USEFUL	0x8000u		/* in a tagged entry's tag */

/* L-TAGE's history lengths (Seznec, CBP-2 2007): a geometric series from 4 to 640. */
static const unsigned short vt_bp_len[VT_BP_TABLES] = {
	4, 6, 10, 16, 25, 40, 64, 101, 160, 254, 403, 640,
};
static const unsigned char vt_bp_tag_bits[VT_BP_TABLES] = {
	7, 7, 8, 8, 9, 10, 11, 12, 12, 13, 14, 15,
};

/*
 * A block's own entry: its offset (+1), the successor it went to first
 * (the history's 0; VT_BP_POLY once it has gone two ways) and the one
 * predicted with a 2-bit counter above it.  Successors are 14-bit hashes,
 * as a predictor keeps partial targets: two of one block's alike are
 * one in 16,384.
 */
struct vt_bp_base {
	uint32_t block;
	uint16_t first;			/* successor | VT_BP_POLY */
	uint16_t pred;			/* successor | counter << 14 */
};

struct vt_bp_entry {
	uint16_t pred;			/* successor | counter << 14; 0: free */
	uint16_t tag;			/* tag | VT_BP_USEFUL */
};

struct vt_bp {
	uint32_t prev;			/* the block whose successor is next */
	uintptr_t sp;			/* ... and its frame's stack pointer */
	/* the callers' frames: their stack pointers and blocks, the innermost last */
	struct { uintptr_t sp; uint32_t prev; } frames[VT_BP_FRAMES];
	unsigned int depth;
	unsigned int head;
	unsigned int scored;		/* branches since the useful bits' last reset */
	/*
	 * Each table's history folded into 64 bits (Seznec's circular shift
	 * register, 64 wide): exact up to 64 bits, folded beyond.
	 */
	uint64_t fold[VT_BP_TABLES];
	uint8_t hist[VT_BP_HIST];	/* a ring: hist[head] is the newest bit */
	struct vt_bp_base base[1u << VT_BP_BASE_BITS];
	struct vt_bp_entry tab[VT_BP_TABLES][1u << VT_BP_BITS];
};

static inline uint64_t vt_rotl(uint64_t v, unsigned int n)
{
	return n ? v << n | v >> (64 - n) : v;
}

static inline uint32_t vt_bp_hash(uint32_t block)
{
	return (uint32_t)((block * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline uint16_t vt_bp_succ(uint32_t block)
{
	uint16_t s = (uint16_t)(vt_bp_hash(block) >> 18) & VT_BP_SUCC;

	return s ? s : 1;
}

/* Table @t's index and tag for the block hashed to @h under the history. */
static inline uint64_t vt_bp_key(const struct vt_bp *bp, int t, uint32_t h)
{
	return (bp->fold[t] ^ ((uint64_t)h << 20) ^ (uint64_t)t << 60) * 0xD6E8FEB86659FD93ull;
}

static void vt_bp_history(struct vt_bp *bp, unsigned int bit)
{
	bp->head = (bp->head - 1) & (VT_BP_HIST - 1);
	bp->hist[bp->head] = (uint8_t)bit;
	/* unrolled: each table's length is a constant */
#pragma GCC unroll 12
	for (int t = 0; t < VT_BP_TABLES; t++) {
		unsigned int old = bp->hist[(bp->head + vt_bp_len[t]) & (VT_BP_HIST - 1)];

		bp->fold[t] = vt_rotl(bp->fold[t], 1) ^ bit ^ vt_rotl(old, vt_bp_len[t] % 64);
	}
}

/* A 2-bit counter over a successor: up when right, down when wrong, replaced at 0. */
static inline void vt_bp_ctr(uint16_t *pred, uint16_t next)
{
	uint16_t ctr = *pred >> 14;

	if ((*pred & VT_BP_SUCC) == next)
		*pred = next | (uint16_t)((ctr < 3 ? ctr + 1 : 3) << 14);
	else if (ctr)
		*pred = (*pred & VT_BP_SUCC) | (uint16_t)((ctr - 1) << 14);
	else
		*pred = next;
}

/*
 * Block @b, which has gone two ways, went to @next: what the tables
 * predicted, scored, and the tables taught.  True if it was mispredicted.
 */
static bool vt_bp_tage(struct vt_bp *bp, struct vt_bp_base *b, uint16_t next)
{
	uint32_t h = vt_bp_hash(b->block);
	unsigned int ix[VT_BP_TABLES];
	uint16_t tg[VT_BP_TABLES];
	int prov = -1, alt = -1;
	uint16_t pred, alt_pred;
	bool wrong;

#pragma GCC unroll 12
	for (int t = VT_BP_TABLES - 1; t >= 0; t--) {
		uint64_t k = vt_bp_key(bp, t, h);
		const struct vt_bp_entry *e;

		ix[t] = (unsigned int)(k >> (64 - VT_BP_BITS));
		tg[t] = (uint16_t)(k >> 20) & ((1u << vt_bp_tag_bits[t]) - 1);
		e = &bp->tab[t][ix[t]];
		if ((e->tag & ~VT_BP_USEFUL) != tg[t] || !e->pred)
			continue;
		if (prov < 0) {
			prov = t;
		} else {
			alt = t;
			break;	/* the tables below the alternate are not used */
		}
	}
	alt_pred = (alt >= 0 ? bp->tab[alt][ix[alt]].pred : b->pred) & VT_BP_SUCC;
	pred = (prov >= 0 ? bp->tab[prov][ix[prov]].pred : b->pred) & VT_BP_SUCC;
	wrong = pred != next;

	if (prov >= 0) {
		struct vt_bp_entry *e = &bp->tab[prov][ix[prov]];

		if (pred != alt_pred)
			e->tag = wrong ? e->tag & ~VT_BP_USEFUL : e->tag | VT_BP_USEFUL;
		vt_bp_ctr(&e->pred, next);
	} else {
		vt_bp_ctr(&b->pred, next);
	}
	/* A misprediction takes an entry in a longer table: the first not useful, else ages them. */
	if (wrong && prov < VT_BP_TABLES - 1) {
		int t;

		for (t = prov + 1; t < VT_BP_TABLES && (bp->tab[t][ix[t]].tag & VT_BP_USEFUL); t++)
			;
		if (t < VT_BP_TABLES)
			bp->tab[t][ix[t]] = (struct vt_bp_entry){ .pred = next, .tag = tg[t] };
		else
			for (t = prov + 1; t < VT_BP_TABLES; t++)
				bp->tab[t][ix[t]].tag &= ~VT_BP_USEFUL;
	}
	if (++bp->scored == VT_BP_U_RESET) {
		bp->scored = 0;
		for (int t = 0; t < VT_BP_TABLES; t++)
			for (unsigned int i = 0; i < (1u << VT_BP_BITS); i++)
				bp->tab[t][i].tag &= ~VT_BP_USEFUL;
	}
	return wrong;
}

/*
 * The frame of a block at stack pointer @sp: true if it is the last
 * block's, or a caller's that it returned to (whose block is bp->prev
 * then); false for a call, or a frame not seen (a caller entered before
 * the run, a path before the prologue), whose first block is not scored.
 */
static bool vt_bp_frame(struct vt_bp *bp, uintptr_t sp)
{
	if (sp == bp->sp)
		return true;
	if (sp < bp->sp) {		/* a call: the caller waits for its return */
		if (bp->depth < VT_BP_FRAMES) {
			bp->frames[bp->depth].sp = bp->sp;
			bp->frames[bp->depth].prev = bp->prev;
			bp->depth++;
		}
		bp->sp = sp;
		return false;
	}
	while (bp->depth && bp->frames[bp->depth - 1].sp < sp)
		bp->depth--;
	bp->sp = sp;
	if (!bp->depth || bp->frames[bp->depth - 1].sp != sp)
		return false;
	bp->depth--;
	bp->prev = bp->frames[bp->depth].prev;
	return true;
}

/*
 * Block @b, which has gone two ways, went to @next: score it and push its
 * way onto the history.  Out of line: every block takes vt_bp_block()'s
 * path without it, which then saves no registers.
 */
static __attribute__((noinline)) void vt_bp_poly(struct vt_cpu *c, struct vt_bp_base *b, uint16_t next)
{
	if (vt_bp_tage(c->bp, b, next))
		c->mispredicts++;
	vt_bp_history(c->bp, next != (b->first & VT_BP_SUCC));
}

/* @c entered the block at @block (its offset, +1) in the frame at @sp: score the branch that chose it. */
void vt_bp_block(struct vt_cpu *c, uint32_t block, uintptr_t sp)
{
	struct vt_bp *bp = c->bp;
	uint32_t prev;
	struct vt_bp_base *b;
	uint16_t next;

	if (!vt_bp_frame(bp, sp)) {
		bp->prev = block;
		return;
	}
	prev = bp->prev;
	bp->prev = block;
	b = &bp->base[vt_bp_hash(prev) >> (32 - VT_BP_BASE_BITS)];
	next = vt_bp_succ(block);
	if (b->block != prev) {
		/* Never seen (or evicted): it falls through as the core guesses, uncounted. */
		*b = (struct vt_bp_base){ .block = prev, .first = next, .pred = next | 1u << 14 };
		return;
	}
	if (!(b->first & VT_BP_POLY)) {
		if ((b->pred & VT_BP_SUCC) == next)
			return;
		b->first |= VT_BP_POLY;
	}
	vt_bp_poly(c, b, next);
}

int vt_bp_start(const struct vt_machine *m)
{
	vt.mispredict_ps = ns_to_ps(m->mispredict_ns);
	if (!vt.mispredict_ps)
		return 0;
	for (int i = 0; i < vt.n; i++) {
		vt.cpus[i].bp = calloc(1, sizeof(struct vt_bp));
		if (!vt.cpus[i].bp)
			return -1;
	}
	return 0;
}

void vt_bp_stop(void)
{
	for (int i = 0; vt.cpus && i < vt.n; i++) {
		free(vt.cpus[i].bp);
		vt.cpus[i].bp = NULL;
	}
	vt.mispredict_ps = 0;
}
