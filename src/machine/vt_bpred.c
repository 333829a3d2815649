// SPDX-License-Identifier: GPL-2.0
/*
 * core.mispredict: each CPU's branch predictor, over the basic blocks the vt
 * flavour's kernel model runs (docs/design/memory-hierarchy.md, "Branches").
 *
 * The model sees a block when it is entered (trace-pc), and a call and a
 * return (the instrumentation's function entry and exit).  A block's branch
 * is the choice of the block that follows it in the same function: a call's
 * target is a direct jump, always predicted, and a return goes where the
 * return stack says, so neither is scored; after a return the caller's
 * block whose call it was chooses the next.  A block seen to go only one
 * way is predicted by its last successor, as a BTB does; once it has gone
 * two ways, a TAGE predictor (Seznec and Michaud, JILP 2006) chooses:
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
#include <string.h>

#include "vt_int.h"

#define VT_BP_BASE_BITS	12		/* the blocks' own entries: 4096, direct-mapped */
#define VT_BP_BITS	10		/* each tagged table: 1024 entries */
#define VT_BP_TABLES	12
#define VT_BP_HIST	1024		/* history bits kept: more than the longest length */
#define VT_BP_FRAMES	64		/* calls tracked; deeper ones lose their caller */
#define VT_BP_U_RESET	(1u << 18)	/* scored branches between resets of the useful bits */

/* L-TAGE's history lengths (Seznec, CBP-2 2007): a geometric series from 4 to 640. */
static const unsigned short vt_bp_len[VT_BP_TABLES] = {
	4, 6, 10, 16, 25, 40, 64, 101, 160, 254, 403, 640,
};
static const unsigned char vt_bp_tag_bits[VT_BP_TABLES] = {
	7, 7, 8, 8, 9, 10, 11, 12, 12, 13, 14, 15,
};

/*
 * Folded global history (Seznec's circular shift register): the last
 * vt_bp_len[t] bits folded into as many as the index or tag has.
 */
struct vt_fold {
	uint16_t idx, tag;
};

struct vt_bp_base {
	uint32_t block;			/* the block's offset, +1; 0: a free entry */
	uint32_t first;			/* the successor it went to first: the history's 0 */
	uint32_t pred;			/* the successor predicted */
	uint8_t ctr;			/* how sure: 0..3 */
	uint8_t poly;			/* it has gone two ways */
};

struct vt_bp_entry {
	uint32_t target;
	uint16_t tag;
	uint8_t ctr;			/* 0..3 */
	uint8_t useful;
};

struct vt_bp {
	uint32_t prev;			/* the block whose successor is next; 0: none (a call's target) */
	uint32_t frames[VT_BP_FRAMES];	/* each call's caller block */
	unsigned int depth;		/* calls deep, the tracked ones' count capped at VT_BP_FRAMES */
	uint8_t hist[VT_BP_HIST];	/* a ring: hist[head] is the newest bit */
	unsigned int head;
	unsigned int scored;		/* branches since the useful bits' last reset */
	struct vt_fold fold[VT_BP_TABLES];
	struct vt_bp_base base[1u << VT_BP_BASE_BITS];
	struct vt_bp_entry tab[VT_BP_TABLES][1u << VT_BP_BITS];
};

/* The newest bit @in enters a history of @len bits folded into @width; @old leaves it. */
static inline uint16_t vt_fold_push(uint32_t v, unsigned int width, unsigned int len,
				    unsigned int in, unsigned int old)
{
	v = (v << 1) | in;
	v ^= old << (len % width);
	v ^= v >> width;
	return (uint16_t)(v & ((1u << width) - 1));
}

static inline uint32_t vt_bp_hash(uint32_t block)
{
	return (uint32_t)((block * 0x9E3779B97F4A7C15ull) >> 32);
}

static inline unsigned int vt_bp_index(const struct vt_bp *bp, int t, uint32_t h)
{
	return (h ^ (h >> (VT_BP_BITS + t)) ^ bp->fold[t].idx) & ((1u << VT_BP_BITS) - 1);
}

static inline uint16_t vt_bp_tag(const struct vt_bp *bp, int t, uint32_t h)
{
	return (uint16_t)((h >> 7 ^ bp->fold[t].tag ^ ((uint32_t)bp->fold[t].idx << 1)) &
			  ((1u << vt_bp_tag_bits[t]) - 1));
}

static void vt_bp_history(struct vt_bp *bp, unsigned int bit)
{
	bp->head = (bp->head + VT_BP_HIST - 1) % VT_BP_HIST;
	bp->hist[bp->head] = (uint8_t)bit;
	/* unrolled, each table's widths and length are constants */
#pragma GCC unroll 12
	for (int t = 0; t < VT_BP_TABLES; t++) {
		struct vt_fold *f = &bp->fold[t];
		unsigned int old = bp->hist[(bp->head + vt_bp_len[t]) % VT_BP_HIST];

		f->idx = vt_fold_push(f->idx, VT_BP_BITS, vt_bp_len[t], bit, old);
		f->tag = vt_fold_push(f->tag, vt_bp_tag_bits[t], vt_bp_len[t], bit, old);
	}
}

static inline void vt_bp_ctr(uint8_t *ctr, uint32_t *target, uint32_t next)
{
	if (*target == next) {
		if (*ctr < 3)
			(*ctr)++;
	} else if (*ctr) {
		(*ctr)--;
	} else {
		*target = next;
	}
}

/*
 * Block @b, which has gone two ways, went to @next: what the tables
 * predicted, scored, and the tables taught.  True if it was mispredicted.
 */
static bool vt_bp_tage(struct vt_bp *bp, struct vt_bp_base *b, uint32_t next)
{
	uint32_t h = vt_bp_hash(b->block);
	unsigned int ix[VT_BP_TABLES];
	uint16_t tg[VT_BP_TABLES];
	int prov = -1, alt = -1;
	uint32_t pred, alt_pred;
	bool wrong;

#pragma GCC unroll 12
	for (int t = VT_BP_TABLES - 1; t >= 0; t--) {
		ix[t] = vt_bp_index(bp, t, h);
		tg[t] = vt_bp_tag(bp, t, h);
		if (bp->tab[t][ix[t]].tag != tg[t] || !bp->tab[t][ix[t]].target)
			continue;
		if (prov < 0)
			prov = t;
		else if (alt < 0)
			alt = t;
	}
	alt_pred = alt >= 0 ? bp->tab[alt][ix[alt]].target : b->pred;
	pred = prov >= 0 ? bp->tab[prov][ix[prov]].target : b->pred;
	wrong = pred != next;

	if (prov >= 0) {
		struct vt_bp_entry *e = &bp->tab[prov][ix[prov]];

		if (pred != alt_pred)
			e->useful = !wrong;
		vt_bp_ctr(&e->ctr, &e->target, next);
	} else {
		vt_bp_ctr(&b->ctr, &b->pred, next);
	}
	/* A misprediction takes an entry in a longer table: the first not useful, else ages them. */
	if (wrong && prov < VT_BP_TABLES - 1) {
		int t;

		for (t = prov + 1; t < VT_BP_TABLES && bp->tab[t][ix[t]].useful; t++)
			;
		if (t < VT_BP_TABLES)
			bp->tab[t][ix[t]] = (struct vt_bp_entry){ .target = next, .tag = tg[t] };
		else
			for (t = prov + 1; t < VT_BP_TABLES; t++)
				bp->tab[t][ix[t]].useful = 0;
	}
	if (++bp->scored == VT_BP_U_RESET) {
		bp->scored = 0;
		for (int t = 0; t < VT_BP_TABLES; t++)
			for (unsigned int i = 0; i < (1u << VT_BP_BITS); i++)
				bp->tab[t][i].useful = 0;
	}
	return wrong;
}

/* @c entered the block at @block (its offset, +1): score the branch that chose it. */
void vt_bp_block(struct vt_cpu *c, uint32_t block)
{
	struct vt_bp *bp = c->bp;
	uint32_t prev = bp->prev;
	struct vt_bp_base *b;

	bp->prev = block;
	if (!prev)
		return;
	b = &bp->base[vt_bp_hash(prev) >> (32 - VT_BP_BASE_BITS)];
	if (b->block != prev) {
		/* Never seen (or evicted): it falls through as the core guesses, uncounted. */
		*b = (struct vt_bp_base){ .block = prev, .first = block, .pred = block, .ctr = 1 };
		return;
	}
	if (!b->poly) {
		if (b->pred == block)
			return;
		b->poly = 1;
	}
	if (vt_bp_tage(bp, b, block))
		c->mispredicts++;
	vt_bp_history(bp, block != b->first);
}

void vt_bp_call(struct vt_cpu *c)
{
	struct vt_bp *bp = c->bp;

	bp->frames[bp->depth % VT_BP_FRAMES] = bp->prev;
	bp->depth++;
	bp->prev = 0;
}

void vt_bp_return(struct vt_cpu *c)
{
	struct vt_bp *bp = c->bp;

	if (!bp->depth) {		/* a return from a call made outside the run */
		bp->prev = 0;
		return;
	}
	bp->depth--;
	bp->prev = bp->frames[bp->depth % VT_BP_FRAMES];
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
