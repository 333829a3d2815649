// SPDX-License-Identifier: GPL-2.0
/*
 * The memory hierarchy and the core of the virtual-time machine: what a
 * machine file with caches (the l1d.*, l2.*, l3.*, mem.remote, core.*,
 * pf.* and smt.* settings) adds to the coherence model (vt_coherence.c).
 *
 * The vt flavour compiles the kernel model with GCC's ThreadSanitizer
 * instrumentation and links it against this file instead of the TSan
 * runtime, as the kernel's KCSAN does: every plain load and store calls
 * __tsan_readN()/__tsan_writeN() below, and memcpy/memset/memmove are
 * renamed to vt_memcpy() and friends in the vt objects (Makefile), so a
 * newly ported patch gets its cache behaviour without a hook by hand.
 *
 * Each core has an L1d and an L2 (shared by its SMT siblings), each L3
 * domain (a CCX, a socket's ring or mesh) an L3, and each socket its
 * memory.  The caches are set-associative with LRU replacement; a fill goes
 * into every level (L1 and L2 are inclusive; a line the L2 drops goes to
 * the L3, which never drops the levels above).  vt_coherence.c's line
 * table is the directory: a CPU is a line's sharer or owner while its
 * core's L2 holds the line, so the coherence model stays the authority on
 * lines other cores hold, and an access that needs another core's copy (or
 * that must invalidate copies) is one of its events (vt_access()).
 * Everything else is served here: an L1 hit costs nothing beyond the
 * basic block it is in, a miss the latency of the level that has the line.
 *
 * The core hides part of that latency (vt_stall()): a miss issued while an
 * older one is outstanding, within the reorder buffer's reach and the fill
 * buffers' count, overlaps it, unless its address comes from a pointer an
 * outstanding miss is loading (an interval model, as in Sniper, after
 * Karkhanis and Smith, "A first-order superscalar processor model", ISCA
 * 2004).  An L2 stream prefetcher per core (Intel's "streamer"; AMD and Arm
 * cores have the like) follows ascending or descending runs of lines
 * within a 4 KiB page (and on into the next pages, up to pf.span, where the
 * machine's prefetchers cross pages) and keeps pf.degree lines ahead, as
 * many in flight as core.l2mshr allows.  A store that misses waits in the
 * store buffer (core.sb).  Two busy SMT siblings each run their plain code at
 * smt.share of the core's single-thread speed.
 *
 * Not modelled (docs/design/memory-hierarchy.md): instruction fetch,
 * TLBs and page walks, DRAM bandwidth and banks, a clean line served by
 * another domain's L3 (it comes from memory here), L1 prefetchers.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_int.h"

const struct vt_hier_key vt_hier_keys[VT_NR_HIER] = {
	[VT_H_L1D_SIZE]	  = { "l1d.size",    1, 4096,    true,  "KiB of L1 data cache a core" },
	[VT_H_L1D_WAYS]	  = { "l1d.ways",    1, 64,      true,  "ways of the L1d" },
	[VT_H_L2_SIZE]	  = { "l2.size",     16, 65536,  true,  "KiB of L2 a core" },
	[VT_H_L2_WAYS]	  = { "l2.ways",     1, 64,      true,  "ways of the L2" },
	[VT_H_L2_LAT]	  = { "l2.lat",      0.1, 1000,  false, "ns from an L2 hit to its use" },
	[VT_H_L3_SIZE]	  = { "l3.size",     64, 1048576, true, "KiB of L3 a domain" },
	[VT_H_L3_WAYS]	  = { "l3.ways",     1, 64,      true,  "ways of the L3" },
	[VT_H_L3_LAT]	  = { "l3.lat",      0.1, 1000,  false, "ns from an L3 hit to its use" },
	[VT_H_MEM_REMOTE] = { "mem.remote",  1, 10000,   false, "ns from another socket's memory" },
	[VT_H_ROB]	  = { "core.rob",    1, 4096,    true,  "instructions in flight" },
	[VT_H_MSHR]	  = { "core.mshr",   1, 256,     true,  "L1d misses outstanding" },
	[VT_H_L2MSHR]	  = { "core.l2mshr", 1, 256,     true,  "L2 misses outstanding, prefetches included" },
	[VT_H_PF_DEGREE]  = { "pf.degree",   0, 256,     true,  "lines the stream prefetcher runs ahead" },
	[VT_H_SMT_SHARE]  = { "smt.share",   0.05, 1,    false, "of a core's speed each of two busy siblings gets" },
};

/*
 * Instructions per basic block of the kernel model's code, to turn
 * core.rob into basic blocks: integer code branches about every five
 * instructions (Hennessy and Patterson, Computer Architecture, 5th ed.,
 * figure A.27: branches 12-20% of SPECint instructions).
 */
#define VT_INSNS_PER_BLOCK	5
/*
 * Bytes a core copies or sets a cycle once the lines are in its L1: one
 * 32-byte store a cycle (Haswell to Ice Lake and Zen 2-4; Intel 64 and
 * IA-32 Optimization Reference Manual, "L1 data cache" of each core).
 */
#define VT_COPY_BYTES_PER_CYCLE	32
#define VT_STREAMS		16	/* Intel's streamer follows 32 streams, 16 a direction */
#define VT_PAGE_LINES		64	/* a 4 KiB page: frames, and a stream's page (pf.span) */
#define VT_DEP_SPAN		256	/* a miss this far past a loaded pointer uses it */

struct vt_cache {
	unsigned int sets, ways;
	uint64_t set_mask;	/* sets - 1 where sets is a power of two, else 0 */
	unsigned int hint;	/* the slot last found or filled: tried first */
	uint64_t absent;	/* the tag last found missing, until the next fill */
	uint32_t tick;
	uint64_t *tag;		/* line number + 1 (vt_line's tag); 0: empty */
	uint32_t *used;		/* LRU stamp */
	uint8_t *excl;		/* the core may write it without asking (L1, L2) */
	vt_ps *ready;		/* when a prefetched line arrives (L2) */
	uint8_t *tracked;	/* the line table has the line (L2) */
};

struct vt_stream {
	uint64_t page;		/* 4 KiB page number + 1; 0: free */
	int last, dir, conf, ahead;
	int pages;		/* pages it has run through (pf.span) */
	uint32_t used;
};

/* pf.stride: a load instruction's last address and stride, once seen. */
#define VT_IP_SETS	64
#define VT_IP_WAYS	4
struct vt_ip {
	uintptr_t ip;		/* the load's place in the executable + 1; 0: free */
	uintptr_t last;		/* its last address */
	intptr_t stride;
	uintptr_t ahead;	/* the furthest address fetched ahead on this stride */
	uint32_t used;
};

struct vt_core {
	struct vt_cache l1, l2;
	struct vt_stream pf[VT_STREAMS];
	struct vt_ip ips[VT_IP_SETS * VT_IP_WAYS];
	uint32_t ip_tick;
	uint32_t pf_tick;
	vt_ps pf_next;		/* when its next prefetch may issue */
};

struct vt_hier {
	int nr_cores, nr_l3;		/* the machine's cores and L3 domains */
	struct vt_core *core;
	struct vt_cache *l3;
	vt_ps l2_ps, l3_ps, mem_ps, remote_ps;
	unsigned long rob_blocks;
	int mshr, l2mshr, degree;
	vt_ps share_permille;
	vt_ps l1_ps;		/* l1d.lat: 0, no load-to-use on hits */
	unsigned int sb;	/* core.sb: the core's store-buffer entries (0: none) */
	int pf_pages;		/* pf.span: 4 KiB pages a prefetch stream may run through */
	long stride_max;	/* pf.stride: the largest stride followed (0: no stride prefetcher) */
	int stride_ahead;	/* pf.ahead */
	bool solo;		/* one CPU, no agents: no other core can hold a line */
};

static int cache_init(struct vt_cache *k, double kib, double ways, bool core)
{
	k->ways = (unsigned int)ways;
	k->sets = (unsigned int)(kib * 1024 / 64 / ways);
	k->set_mask = k->sets > 1 && !(k->sets & (k->sets - 1)) ? k->sets - 1 : 0;
	k->hint = 0;
	k->tag = calloc((size_t)k->sets * k->ways, sizeof(*k->tag));
	k->used = calloc((size_t)k->sets * k->ways, sizeof(*k->used));
	k->excl = core ? calloc((size_t)k->sets * k->ways, 1) : NULL;
	k->ready = core ? calloc((size_t)k->sets * k->ways, sizeof(*k->ready)) : NULL;
	k->tracked = core ? calloc((size_t)k->sets * k->ways, 1) : NULL;
	return k->tag && k->used && (!core || (k->excl && k->ready && k->tracked)) ? 0 : -1;
}

static void cache_free(struct vt_cache *k)
{
	free(k->tag);
	free(k->used);
	free(k->excl);
	free(k->ready);
	free(k->tracked);
}

/*
 * Caches are indexed by a physical address, as L2s and L3s are: the host
 * addresses of the model's memory differ from run to run (ASLR, mmap), so
 * each 4 KiB page touched in a run gets the next frame number when it is
 * first seen, and a line's set is its frame's line number modulo the sets.
 * Runs are deterministic again, and a walk over a virtually contiguous
 * array sees contiguous frames, as the kernel's memmap does.
 */
/*
 * The frames of the host pages a run touched, in a table of two levels: a
 * chunk of 1 GiB of host addresses (VT_CHUNK_PAGES pages) is one flat array
 * of frame numbers + 1 (0: not seen yet), found by its number in a small
 * open-addressed table.  Neighbouring pages share the host's cache lines, as
 * the walks the model makes over the kernel model's memory mostly touch.
 */
#define VT_CHUNK_SHIFT	18
#define VT_CHUNK_PAGES	(1u << VT_CHUNK_SHIFT)

struct vt_frames {
	unsigned int bits, nr_chunks;	/* the chunk table has 1 << bits slots */
	uint32_t nr;			/* frames numbered */
	uint64_t *chunk;		/* chunk number + 1; 0: free slot */
	uint32_t **frame;		/* the chunk's frames + 1 */
	uint64_t last_chunk;		/* the chunk last asked + 1 ... */
	uint32_t *last_frame;		/* ... and its frames */
};

static struct vt_frames frames;

/*
 * The physical line number of the last line asked (phys_line()): one access
 * asks it of every level.
 */
static struct {
	uint64_t t, pline;
} phys_memo;

static int frames_alloc(unsigned int bits)
{
	frames.chunk = calloc((size_t)1 << bits, sizeof(*frames.chunk));
	frames.frame = calloc((size_t)1 << bits, sizeof(*frames.frame));
	frames.bits = bits;
	return frames.chunk && frames.frame ? 0 : -1;
}

static void frames_free(void)
{
	phys_memo.t = 0;
	for (unsigned int i = 0; frames.frame && i < (1u << frames.bits); i++)
		free(frames.frame[i]);
	free(frames.chunk);
	free(frames.frame);
	memset(&frames, 0, sizeof(frames));
}

static unsigned int chunk_slot(uint64_t key)
{
	unsigned int mask = (1u << frames.bits) - 1;
	unsigned int h = (unsigned int)((key * 0x9E3779B97F4A7C15ull) >> (64 - frames.bits));

	while (frames.chunk[h] && frames.chunk[h] != key)
		h = (h + 1) & mask;
	return h;
}

static void frames_oom(void)
{
	fprintf(stderr, "mmlab: vt: out of memory numbering %u pages\n", frames.nr);
	abort();
}

static void frames_grow(void)
{
	uint64_t *chunk = frames.chunk;
	uint32_t **frame = frames.frame;
	unsigned int n = 1u << frames.bits;

	if (frames_alloc(frames.bits + 1))
		frames_oom();
	for (unsigned int i = 0; i < n; i++)
		if (chunk[i]) {
			unsigned int h = chunk_slot(chunk[i]);

			frames.chunk[h] = chunk[i];
			frames.frame[h] = frame[i];
		}
	free(chunk);
	free(frame);
}

/* The frames of the chunk of host page @page, made on first use. */
static uint32_t *chunk_frames(uint64_t page)
{
	uint64_t key = (page >> VT_CHUNK_SHIFT) + 1;
	unsigned int h;

	if (frames.last_chunk == key)
		return frames.last_frame;
	if (frames.nr_chunks + 1 > (1u << frames.bits) / 2)
		frames_grow();
	h = chunk_slot(key);
	if (!frames.chunk[h]) {
		frames.frame[h] = calloc(VT_CHUNK_PAGES, sizeof(uint32_t));
		if (!frames.frame[h])
			frames_oom();
		frames.chunk[h] = key;
		frames.nr_chunks++;
	}
	frames.last_chunk = key;
	frames.last_frame = frames.frame[h];
	return frames.last_frame;
}

/* The frame of host page @page: numbered in the order pages are first seen. */
static uint32_t vt_frame(uint64_t page)
{
	uint32_t *f = &chunk_frames(page)[page & (VT_CHUNK_PAGES - 1)];

	if (!*f)
		*f = ++frames.nr;
	return *f - 1;
}

/* The physical line number of line @t (tag). */
static uint64_t phys_line(uint64_t t)
{
	if (phys_memo.t != t) {
		uint64_t line = t - 1;

		phys_memo.pline = (uint64_t)vt_frame(line / VT_PAGE_LINES) * VT_PAGE_LINES +
				  line % VT_PAGE_LINES;
		phys_memo.t = t;
	}
	return phys_memo.pline;
}

/* The first way of line @t's set in @k. */
static unsigned int cache_base(const struct vt_cache *k, uint64_t t)
{
	uint64_t pline = phys_line(t);

	return (unsigned int)(k->set_mask ? pline & k->set_mask : pline % k->sets) * k->ways;
}

/*
 * The slot of @t in @k, or -1.  A line is in one slot at most, so the slot
 * last used holding @t is that slot: consecutive accesses to one line end
 * there without computing the set.
 */
static int cache_find(struct vt_cache *k, uint64_t t)
{
	unsigned int base;

	if (k->tag[k->hint] == t)
		return (int)k->hint;
	if (k->absent == t)
		return -1;
	base = cache_base(k, t);
	for (unsigned int w = 0; w < k->ways; w++)
		if (k->tag[base + w] == t) {
			k->hint = base + w;
			return (int)(base + w);
		}
	k->absent = t;
	return -1;
}

static void cache_touch(struct vt_cache *k, int i)
{
	if (!++k->tick) {	/* the stamps wrapped: start them again, order kept roughly */
		memset(k->used, 0, (size_t)k->sets * k->ways * sizeof(*k->used));
		k->tick = 1;
	}
	k->used[i] = k->tick;
}

/*
 * Put @t, not in @k, into its set's empty or least recently used way: *@old
 * the tag evicted, and (an L2's) whether the line table had it in *@tracked.
 */
static int cache_insert(struct vt_cache *k, uint64_t t, uint64_t *old, bool *tracked)
{
	unsigned int base = cache_base(k, t), v = base;

	/* The first empty way, else the first least recently used one. */
	for (unsigned int w = 0; w < k->ways; w++) {
		if (!k->tag[base + w]) {
			v = base + w;
			break;
		}
		if (k->used[base + w] < k->used[v])
			v = base + w;
	}
	k->hint = v;
	k->absent = 0;
	*old = k->tag[v];
	if (tracked)
		*tracked = *old && k->tracked[v];
	k->tag[v] = t;
	if (k->excl)
		k->excl[v] = 0;
	if (k->ready)
		k->ready[v] = 0;
	if (k->tracked)
		k->tracked[v] = 0;
	cache_touch(k, (int)v);
	return (int)v;
}

static void cache_drop(struct vt_cache *k, uint64_t t)
{
	int i = cache_find(k, t);

	if (i >= 0)
		k->tag[i] = 0;
}

static void cache_empty(struct vt_cache *k)
{
	size_t n = (size_t)k->sets * k->ways;

	memset(k->tag, 0, n * sizeof(*k->tag));
	memset(k->used, 0, n * sizeof(*k->used));
	if (k->excl) {
		memset(k->excl, 0, n);
		memset(k->ready, 0, n * sizeof(*k->ready));
		memset(k->tracked, 0, n);
	}
	k->hint = 0;
	k->absent = 0;
}

/* --- a run ------------------------------------------------------------------- */

int vt_hier_start(const struct vt_machine *m)
{
	const double *v = m->hier_val;
	struct vt_hier *h;

	if (!m->hier)
		return 0;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	vt.h = h;		/* vt_hier_stop() frees what was allocated */
	if (frames_alloc(4))
		return -1;
	h->nr_cores = m->sockets * m->l3_per_socket * m->cores_per_l3;
	h->nr_l3 = m->sockets * m->l3_per_socket;
	h->core = calloc(h->nr_cores, sizeof(*h->core));
	h->l3 = calloc(h->nr_l3, sizeof(*h->l3));
	if (!h->core || !h->l3)
		return -1;
	/* Only the cores and domains the run uses get their arrays. */
	for (int i = 0; i < vt.n; i++) {
		struct vt_core *k = &h->core[vt.cpus[i].core];
		struct vt_cache *l3 = &h->l3[vt.cpus[i].l3];

		if (!k->l1.tag && (cache_init(&k->l1, v[VT_H_L1D_SIZE], v[VT_H_L1D_WAYS], true) ||
				   cache_init(&k->l2, v[VT_H_L2_SIZE], v[VT_H_L2_WAYS], true)))
			return -1;
		if (!l3->tag && cache_init(l3, v[VT_H_L3_SIZE], v[VT_H_L3_WAYS], false))
			return -1;
	}
	h->l2_ps = ns_to_ps(v[VT_H_L2_LAT]);
	h->l1_ps = ns_to_ps(m->l1_lat_ns);
	h->l3_ps = ns_to_ps(v[VT_H_L3_LAT]);
	h->mem_ps = ns_to_ps(m->cost_ns[VT_C_MEM]);
	h->remote_ps = ns_to_ps(v[VT_H_MEM_REMOTE]);
	h->rob_blocks = (unsigned long)v[VT_H_ROB] / VT_INSNS_PER_BLOCK;
	h->mshr = (int)v[VT_H_MSHR];
	h->l2mshr = (int)v[VT_H_L2MSHR];
	h->degree = (int)v[VT_H_PF_DEGREE];
	h->share_permille = (vt_ps)llround(v[VT_H_SMT_SHARE] * 1000);
	h->solo = vt.n == 1;
	h->pf_pages = m->pf_span_kib > 0 ? m->pf_span_kib / 4 : 1;
	h->stride_max = m->pf_stride;
	h->stride_ahead = m->pf_ahead > 0 ? m->pf_ahead : 1;
	if (m->sb_entries > 0) {
		h->sb = (unsigned int)m->sb_entries;
		for (int i = 0; i < vt.n; i++)
			if (!(vt.cpus[i].sb = calloc(h->sb, sizeof(vt_ps))) ||
			    !(vt.cpus[i].sb_mem = calloc(h->mshr, sizeof(vt_ps))))
				return -1;
	}
	return 0;
}

void vt_hier_stop(void)
{
	struct vt_hier *h;

	if (vt.ff_h) {		/* a run that ended fast-forwarding */
		vt.h = vt.ff_h;
		vt.ff_h = NULL;
	}
	h = vt.h;
	if (!h)
		return;
	for (int i = 0; i < vt.n; i++) {
		free(vt.cpus[i].sb);
		free(vt.cpus[i].sb_mem);
		vt.cpus[i].sb = vt.cpus[i].sb_mem = NULL;
	}
	for (int i = 0; h->core && i < h->nr_cores; i++) {
		cache_free(&h->core[i].l1);
		cache_free(&h->core[i].l2);
	}
	for (int i = 0; h->l3 && i < h->nr_l3; i++)
		cache_free(&h->l3[i]);
	free(h->core);
	free(h->l3);
	free(h);
	frames_free();
	vt.h = NULL;
}

/* --- fast-forward ---------------------------------------------------------------- */

/*
 * Fast-forwarding, @size bytes at @addr were touched: number their pages
 * as a full run's first touch of them would (vt_frame()), so that after
 * the fast-forward every line has the set it would have had.
 */
void vt_hier_ff_touch(uintptr_t addr, unsigned long size)
{
	uint64_t page = addr / (VT_PAGE_LINES << VT_LINE_SHIFT);
	uint64_t last = (addr + size - 1) / (VT_PAGE_LINES << VT_LINE_SHIFT);

	for (; page <= last; page++)
		vt_frame(page);
}

/*
 * After a fast-forward: no cache holds a line, no prefetch stream or miss
 * is in flight, and the line table, which lists what the caches hold,
 * lists no holder (a run of one CPU: no line is queued for or waited on).
 */
static void vt_hier_empty(void)
{
	struct vt_hier *h = vt.h;

	for (int i = 0; i < h->nr_cores; i++) {
		struct vt_core *k = &h->core[i];

		if (!k->l1.tag)
			continue;
		cache_empty(&k->l1);
		cache_empty(&k->l2);
		memset(k->pf, 0, sizeof(k->pf));
		k->pf_tick = 0;
		k->pf_next = 0;
	}
	for (int i = 0; i < h->nr_l3; i++)
		if (h->l3[i].tag)
			cache_empty(&h->l3[i]);
	for (int i = 0; i < vt.n; i++) {
		memset(&vt.cpus[i].mlp, 0, sizeof(vt.cpus[i].mlp));
		vt.cpus[i].pf_pending = 0;
		vt.cpus[i].last_line = NULL;
	}
	for (unsigned int i = 0; i < 1u << vt.lines_bits; i++) {
		struct vt_line *l = &vt.lines[i];

		if (vt.tags[i] && vt.tags[i] != VT_TAG_GONE && l->next_owner < 0 &&
		    !l->queue && !l->waiters)
			vt_line_forget(l);
	}
}

bool vt_fast_forward(bool on)
{
	struct vt_cpu *c = vt.cur;

	if (!c)
		return false;
	if (on) {
		if (!vt.h || vt.n != 1 || vt.window_open)
			return false;
		vt_charge_code(c);
		vt.ff_h = vt.h;
		vt.h = NULL;
		return true;
	}
	if (!vt.ff_h)
		return false;
	vt_charge_code(c);
	vt.h = vt.ff_h;
	vt.ff_h = NULL;
	vt_hier_empty();
	return true;
}

unsigned long vt_cache_bytes(void)
{
	const struct vt_hier *h = vt.h ? vt.h : vt.ff_h;
	unsigned long lines = 0;

	if (!h)
		return 0;
	for (int i = 0; i < h->nr_cores; i++)
		if (h->core[i].l1.tag)
			lines += (unsigned long)h->core[i].l1.sets * h->core[i].l1.ways +
				 (unsigned long)h->core[i].l2.sets * h->core[i].l2.ways;
	for (int i = 0; i < h->nr_l3; i++)
		if (h->l3[i].tag)
			lines += (unsigned long)h->l3[i].sets * h->l3[i].ways;
	return lines << VT_LINE_SHIFT;
}

/* --- the core ------------------------------------------------------------------ */

/* A sibling that is running code, not waiting or queued, takes its share of the core. */
static bool vt_busy(const struct vt_cpu *s)
{
	return !s->done && !s->blocked && !s->waiting_on;
}

vt_ps vt_hier_code_ps(const struct vt_cpu *c, unsigned long blocks, int64_t insn_ps)
{
	vt_ps t = (vt_ps)((int64_t)(blocks * vt.cost[VT_C_BLOCK]) + insn_ps);

	if (c->sibling && vt_busy(c->sibling))
		t = t * 1000 / vt.h->share_permille;
	return t;
}

/* A locked instruction drains what is in flight: nothing later overlaps what came before. */
void vt_hier_serialise(struct vt_cpu *c)
{
	c->mlp.n = 0;
}

/*
 * core.rob's blocks @c may have in flight: half while its SMT sibling runs
 * code, as the reorder buffer is split between the two hardware threads
 * (Intel's Hyper-Threading partitions it; AMD's Zen statically partitions
 * its retire queue, as it does the store queue: core.sb).
 */
static unsigned long vt_rob_blocks(const struct vt_cpu *c)
{
	if (c->sibling && vt_busy(c->sibling))
		return vt.h->rob_blocks / 2;
	return vt.h->rob_blocks;
}

/*
 * When the data of the latest missed load whose pointer @addr follows (lies
 * up to its span past: VT_DEP_SPAN bytes, or an entry's frame) arrives; 0 if none.
 */
static vt_ps vt_dep(const struct vt_mlp *m, uintptr_t addr)
{
	vt_ps done = 0;

	for (int i = 0; i < VT_MLP_DEPS; i++)
		if (addr - m->dep[i].val < m->dep[i].span && m->dep[i].done > done)
			done = m->dep[i].done;
	return done;
}

/* When a load's address is known: a missed load's or a recent hit's pointer it follows; 0 if neither. */
static vt_ps vt_addr_known(const struct vt_mlp *m, uintptr_t addr)
{
	vt_ps known = vt_dep(m, addr);

	return m->addr_ready > known ? m->addr_ready : known;
}

/*
 * The earliest a load at basic block @pos could issue in the shadow of the
 * misses in flight (the caller has checked it is within core.rob of them):
 * the first miss's issue, or the latest that waited for another's data if
 * only that one is within reach, plus the blocks run since.
 */
static vt_ps vt_shadow_issue(const struct vt_cpu *c, const struct vt_mlp *m, unsigned long pos)
{
	if (pos - m->pos < vt_rob_blocks(c))
		return m->issue + (pos - m->pos) * vt.cost[VT_C_BLOCK];
	return m->dep_issue + (pos - m->dep_pos) * vt.cost[VT_C_BLOCK];
}

/*
 * @c waits for data @lat away: an interval model.  The first miss of an
 * interval stalls the core for its whole latency (the reorder buffer fills
 * behind it); a miss issued while it is outstanding (fewer than
 * core.rob instructions later, fewer than core.mshr misses in flight)
 * started back then, in its shadow, and costs only what it adds past the
 * clock.  A miss on an address a missed load is bringing in cannot start
 * before that load's data arrives; such a miss begins an interval of its
 * own (Karkhanis and Smith), so the misses up to core.rob instructions after
 * it start in its shadow too: the next step of a walk overlaps the tail of
 * the last one.  Returns when the data is there.
 */
static vt_ps vt_stall(struct vt_cpu *c, uintptr_t addr, vt_ps lat)
{
	struct vt_mlp *m = &c->mlp;
	unsigned long pos;
	vt_ps dep, done;

	vt_charge_code(c);
	pos = c->blocks_run;
	dep = vt_addr_known(m, addr);
	/* dep_pos is never before pos: within reach of the first miss is within reach of it */
	if (m->n && m->n < vt.h->mshr && pos - m->dep_pos < vt_rob_blocks(c)) {
		vt_ps issue = vt_shadow_issue(c, m, pos);

		m->n++;
		if (dep > issue) {
			issue = dep;
			m->dep_issue = dep;
			m->dep_pos = pos;
			m->n = 1;	/* what it waited for has arrived */
		}
		done = issue + lat;
	} else {
		m->issue = m->dep_issue = c->clock;
		m->pos = m->dep_pos = pos;
		m->n = 1;
		done = c->clock + lat;
	}
	if (done > c->clock) {
		vt_mem_stall(c, done - c->clock);
		c->clock = done;
	}
	return done;
}

/*
 * core.sb: @c's store missed, its line @lat away.  The store retires into
 * the store buffer and the core goes on (Sniper's interval model likewise
 * keeps stores off the critical path; the buffer is what bounds them).  The
 * buffer writes its stores to the L1 in order, each once its line is there;
 * a line fetched from memory is asked for once a fill buffer is free: once
 * the line of the store core.mshr such fetches back has arrived (a line
 * from the caches, or one the prefetcher is already bringing, holds one
 * only briefly, and one in flight arrives when it arrives).  The core stalls only when the buffer is full: until
 * the store a buffer's length back has been written.  While the core's
 * other hardware thread is busy each has half the buffer, as Intel's
 * Hyper-Threading partitions it.  Only stores that missed take entries
 * here: the hits between them, which wait in the buffer behind them in the
 * core, are not counted.
 */
static void vt_store_miss(struct vt_cpu *c, vt_ps lat)
{
	unsigned int n = vt.h->sb, mshr = (unsigned int)vt.h->mshr, mine = n;
	vt_ps start, done, full, *fill;

	vt_charge_code(c);
	if (c->sibling && vt_busy(c->sibling) && n > 1)
		mine = n / 2;
	full = c->sb[(c->sb_head + n - mine) % n];
	if (full > c->clock) {
		vt_mem_stall(c, full - c->clock);
		c->clock = full;
	}
	start = c->clock;
	if (lat == vt.h->mem_ps || lat == vt.h->remote_ps) {	/* vt_fetch(): from memory */
		fill = &c->sb_mem[c->sb_mem_head];
		if (*fill > start)
			start = *fill;
		*fill = start + lat;
		c->sb_mem_head = (c->sb_mem_head + 1) % mshr;
	}
	done = start + lat > c->sb_last ? start + lat : c->sb_last;
	c->sb[c->sb_head] = done;
	c->sb_last = done;
	c->sb_head = (c->sb_head + 1) % n;
}

/*
 * @c's access to the line of @addr missed its L1, the line @lat away: a
 * store waits in the store buffer (core.sb), anything else stalls the
 * core.  When the data is there; 0 for a buffered store.
 */
static vt_ps vt_line_miss(struct vt_cpu *c, uintptr_t addr, vt_ps lat, bool write)
{
	struct vt_mlp *m = &c->mlp;
	vt_ps done;

	if (write && vt.h->sb) {
		vt_store_miss(c, lat);
		return 0;
	}
	done = vt_stall(c, addr, lat);
	m->fill[m->next_fill].line = addr >> VT_LINE_SHIFT;
	m->fill[m->next_fill].done = done;
	m->next_fill = (m->next_fill + 1) % VT_MLP_DEPS;
	return done;
}

/* @c's load miss brought the pointer @val to @span bytes, there at @done. */
static void vt_note_pointer(struct vt_cpu *c, uintptr_t val, unsigned long span, vt_ps done)
{
	struct vt_mlp *m = &c->mlp;

	m->dep[m->next_dep].val = val;
	m->dep[m->next_dep].done = done;
	m->dep[m->next_dep].span = span;
	m->next_dep = (m->next_dep + 1) % VT_MLP_DEPS;
}

/* --- the caches and the directory ---------------------------------------------------- */

static struct vt_core *core_of(const struct vt_cpu *c)
{
	return &vt.h->core[c->core];
}

/* Whether CPU @id runs on core @core. */
static bool on_core(int id, int core)
{
	return id >= 0 && id < vt.n && vt.cpus[id].core == core;
}

/* How many of @l's sharers are on @c's core. */
static int own_sharers(const struct vt_line *l, const struct vt_cpu *c)
{
	return is_sharer(l, c->id) + (c->sibling && is_sharer(l, c->sibling->id));
}

static void drop_cpu(struct vt_line *l, int id)
{
	if (l->owner == id)
		l->owner = -1;
	if (is_sharer(l, id)) {
		l->sharers[id / 64] &= ~(1ull << (id % 64));
		l->nr_sharers--;
	}
}

/*
 * Line @t into @c's domain's L3, or its place there made the newest: an L3
 * hit that fills the L2 and a victim the L2 writes back are both uses, as
 * in every replacement policy (the L3 of an inclusive design sees the hit,
 * a victim L3 receives the L2's victims as its newest lines).
 */
static void l3_fill(struct vt_cpu *c, uint64_t t)
{
	struct vt_cache *l3 = &vt.h->l3[c->l3];
	uint64_t old;
	int i = cache_find(l3, t);

	if (i < 0)
		cache_insert(l3, t, &old, NULL);
	else
		cache_touch(l3, i);
}

/*
 * @core's L2 let line @t go: out of its L1 too, into its L3, and its CPUs
 * are no longer the line's holders, unless the line is in the middle of a
 * transfer or watched (the coherence model then keeps its view).
 */
static void core_evicted(struct vt_cpu *c, uint64_t t, bool tracked)
{
	struct vt_line *l = tracked ? vt_line_find(t) : NULL;

	cache_drop(&core_of(c)->l1, t);
	if (l && l->next_owner < 0 && !l->queue && !l->waiters) {
		drop_cpu(l, c->id);
		if (c->sibling)
			drop_cpu(l, c->sibling->id);
		if (l->owner < 0 && !l->nr_sharers)
			vt_line_forget(l);	/* the table holds what caches hold */
	}
	l3_fill(c, t);
}

/*
 * Line @t into @c's L2 (if it has it not), writable if @excl, ready at
 * @ready; @tracked: the line table has it now (a run of one CPU keeps only
 * the lines of atomics there).
 */
static void l2_fill(struct vt_cpu *c, uint64_t t, bool excl, vt_ps ready, bool tracked)
{
	struct vt_core *k = core_of(c);
	uint64_t old;
	int i;

	i = cache_find(&k->l2, t);
	if (i < 0) {
		bool was_tracked;

		i = cache_insert(&k->l2, t, &old, &was_tracked);
		if (old)
			core_evicted(c, old, was_tracked);
		k->l2.ready[i] = ready;
	} else {
		cache_touch(&k->l2, i);
	}
	k->l2.excl[i] = excl;
	k->l2.tracked[i] |= tracked;
	l3_fill(c, t);
}

/* @c's core gets line @t into its L2 and its L1: as l2_fill(). */
static void core_fill(struct vt_cpu *c, uint64_t t, bool excl, vt_ps ready, bool tracked)
{
	struct vt_core *k = core_of(c);
	uint64_t old;
	int i;

	l2_fill(c, t, excl, ready, tracked);
	i = cache_find(&k->l1, t);
	if (i < 0)
		i = cache_insert(&k->l1, t, &old, NULL);	/* L1 victims stay in the L2 */
	else
		cache_touch(&k->l1, i);
	k->l1.excl[i] = excl;
}

/*
 * Where @c gets @l from when no other core has it to give: its L2, its
 * domain's L3 or memory (the line's home socket's); the latency, counted.
 */
static vt_ps vt_fetch(struct vt_cpu *c, uint64_t t, int home, bool count)
{
	struct vt_hier *h = vt.h;
	int i = cache_find(&core_of(c)->l2, t);

	if (count) {
		vt.acc.st.l1_miss++;
		c->l1_misses++;
	}
	if (i >= 0) {
		vt_ps ready = core_of(c)->l2.ready[i];

		return h->l2_ps + (ready > c->clock ? ready - c->clock : 0);
	}
	if (count)
		vt.acc.st.l2_miss++;
	if (cache_find(&h->l3[c->l3], t) >= 0)
		return h->l3_ps;
	if (count) {
		vt.acc.st.l3_miss++;
		if (home == c->socket)
			vt.acc.st.mem_local++;
		else
			vt.acc.st.mem_remote++;
	}
	return home == c->socket ? h->mem_ps : h->remote_ps;
}

vt_ps vt_hier_fetch(struct vt_cpu *c, struct vt_line *l)
{
	return vt_fetch(c, l->tag, l->home, true);
}

/* A coherence hit of @c on @l: in its L1, or brought up from its L2. */
void vt_hier_hit(struct vt_cpu *c, struct vt_line *l, bool write)
{
	struct vt_core *k = core_of(c);
	int i = cache_find(&k->l1, l->tag);
	vt_ps lat;

	if (i >= 0) {
		cache_touch(&k->l1, i);
		if (write)
			k->l1.excl[i] = 1;
		return;
	}
	lat = vt_fetch(c, l->tag, l->home, true);
	vt_mem_stall(c, lat);
	c->clock += lat;
	core_fill(c, l->tag, write || l->owner == c->id, 0, true);
	c->pf_pending = l->tag;
}

/*
 * @c's transfer of @l has arrived (vt_commit(), before the line's
 * new state): a write takes the line out of every other core's caches, a
 * read leaves the owner's copy shared; @c's core gets it.
 */
void vt_hier_commit(struct vt_cpu *c, struct vt_line *l, bool write)
{
	if (write) {
		for (int w = 0; w < VT_MASK_WORDS; w++) {
			uint64_t bits = l->sharers[w];

			while (bits) {
				int id = w * 64 + __builtin_ctzll(bits);

				bits &= bits - 1;
				if (id < vt.n && !on_core(id, c->core)) {
					cache_drop(&vt.h->core[vt.cpus[id].core].l1, l->tag);
					cache_drop(&vt.h->core[vt.cpus[id].core].l2, l->tag);
				}
			}
		}
		if (l->owner >= 0 && !on_core(l->owner, c->core)) {
			cache_drop(&vt.h->core[vt.cpus[l->owner].core].l1, l->tag);
			cache_drop(&vt.h->core[vt.cpus[l->owner].core].l2, l->tag);
		}
	} else if (l->owner >= 0 && !on_core(l->owner, c->core)) {
		struct vt_core *o = &vt.h->core[vt.cpus[l->owner].core];
		int i;

		if ((i = cache_find(&o->l1, l->tag)) >= 0)
			o->l1.excl[i] = 0;
		if ((i = cache_find(&o->l2, l->tag)) >= 0)
			o->l2.excl[i] = 0;
	}
	if (cache_find(&core_of(c)->l1, l->tag) < 0)
		c->pf_pending = l->tag;
	core_fill(c, l->tag, write, 0, true);
}

/* --- the stream prefetcher ------------------------------------------------------------- */

/* Bring line @t into @c's L2 ahead of use, unless it is there or another core holds it. */
static void vt_prefetch(struct vt_cpu *c, uint64_t t)
{
	struct vt_core *k = core_of(c);
	struct vt_line *l;
	vt_ps issue, lat;

	if (cache_find(&k->l2, t) >= 0)
		return;
	if (vt.h->solo) {
		lat = vt_fetch(c, t, c->socket, false);
	} else {
		l = vt_line_of((const void *)((t - 1) << VT_LINE_SHIFT));
		if (l->next_owner >= 0 || l->queue || (l->owner >= 0 && !on_core(l->owner, c->core)))
			return;
		lat = vt_fetch(c, t, l->home, false);
		add_sharer(l, c->id);
	}
	issue = k->pf_next > c->clock ? k->pf_next : c->clock;
	k->pf_next = issue + lat / vt.h->l2mshr;
	l2_fill(c, t, false, issue + lat, !vt.h->solo);	/* the streamer fills the L2 alone */
	vt.acc.st.prefetches++;
}

/*
 * The stream of the page before or after @page (by @off, its first or last
 * two lines) that may run on into it (pf.span): moved to @page, its
 * offsets with it; NULL if none.
 */
static struct vt_stream *vt_pf_run_on(struct vt_core *k, uint64_t page, int off)
{
	for (int i = 0; i < VT_STREAMS; i++) {
		struct vt_stream *s = &k->pf[i];
		int dir = s->page + 1 == page ? 1 : s->page == page + 1 ? -1 : 0;

		if (!dir || s->dir != dir || s->conf < 2 || s->pages >= vt.h->pf_pages)
			continue;
		if (dir == 1 ? s->last < VT_PAGE_LINES - 2 || off > 1 : s->last > 1 || off < VT_PAGE_LINES - 2)
			continue;
		s->page = page;
		s->last -= dir * VT_PAGE_LINES;
		s->ahead -= dir * VT_PAGE_LINES;
		s->pages++;
		return s;
	}
	return NULL;
}

/*
 * @c's demand access to line @t reached its L2: train the stream of its
 * 4 KiB page, which may have run on from the page before (pf.span).
 */
static void vt_pf_train(struct vt_cpu *c, uint64_t t)
{
	struct vt_core *k = core_of(c);
	uint64_t line = t - 1, page = line / VT_PAGE_LINES + 1;
	int off = (int)(line % VT_PAGE_LINES), d, end, lo = 0, hi = VT_PAGE_LINES - 1;
	struct vt_stream *s = NULL, *lru = &k->pf[0];

	if (!vt.h->degree)
		return;
	for (int i = 0; i < VT_STREAMS; i++) {
		if (k->pf[i].page == page)
			s = &k->pf[i];
		if (k->pf[i].used < lru->used)
			lru = &k->pf[i];
	}
	if (!s && vt.h->pf_pages > 1)
		s = vt_pf_run_on(k, page, off);
	if (!s) {
		*lru = (struct vt_stream){ .page = page, .last = off, .ahead = off, .pages = 1,
					   .used = ++k->pf_tick };
		return;
	}
	s->used = ++k->pf_tick;
	d = off - s->last;
	if (!d)
		return;
	if ((d == 1 || d == 2) && s->dir == 1)
		s->conf++;
	else if ((d == -1 || d == -2) && s->dir == -1)
		s->conf++;
	else {
		s->dir = d > 0 ? 1 : -1;
		s->conf = d >= -2 && d <= 2;
		s->ahead = off;
	}
	s->last = off;
	if (s->conf < 2)
		return;
	if (s->pages < vt.h->pf_pages) {	/* it may run on into the next pages */
		int more = (vt.h->degree + VT_PAGE_LINES - 1) / VT_PAGE_LINES;

		more = more < vt.h->pf_pages - s->pages ? more : vt.h->pf_pages - s->pages;
		lo = -more * VT_PAGE_LINES;
		hi = (more + 1) * VT_PAGE_LINES - 1;
	}
	end = off + s->dir * vt.h->degree;
	end = end < lo ? lo : end > hi ? hi : end;
	if ((s->ahead - off) * s->dir < 0)
		s->ahead = off;
	for (int x = s->ahead + s->dir; (end - x) * s->dir >= 0; x += s->dir)
		vt_prefetch(c, (page - 1) * VT_PAGE_LINES + x + 1);
	s->ahead = end;
}

/*
 * An atomic or a marked access that missed the L1 is a request to the L2
 * like any other, and trains the streamer as loads and stores do (Intel's
 * optimization manual: the streamer watches the L1D's read requests, those
 * of stores included).  Trained when the event is over: a prefetch may grow
 * the line table, which the event's caller still uses.
 */
void vt_hier_train(struct vt_cpu *c)
{
	uint64_t t = c->pf_pending;

	c->pf_pending = 0;
	if (t)
		vt_pf_train(c, t);
}

/* --- plain loads and stores ------------------------------------------------------------ */

/*
 * Whether @c's access to @l needs the coherence model: a transfer is in
 * flight or queued; another core owns it; a write finds copies on other
 * cores; a read that its core and domain do not have finds one.
 */
static bool vt_needs_coherence(const struct vt_line *l, const struct vt_cpu *c, bool write)
{
	bool others;

	if (l->next_owner >= 0 || l->queue)
		return true;
	if (l->owner >= 0 && !on_core(l->owner, c->core))
		return true;
	others = l->nr_sharers > own_sharers(l, c);
	if (write)
		return others;
	return others && !own_sharers(l, c) && cache_find(&vt.h->l3[c->l3], l->tag) < 0;
}

/*
 * @c's plain access to line @t is served by its own core: its L2 has a
 * copy it may use (the line table lists the core among the holders of every
 * line its L2 has, so other cores' writes have taken away what it may
 * not), or the run has no other CPU to hold any line.
 */
static vt_ps vt_line_own(struct vt_cpu *c, uintptr_t addr, uint64_t t, bool write, bool in_l1)
{
	vt_ps done = 0;

	if (!in_l1)
		done = vt_line_miss(c, addr, vt_fetch(c, t, c->socket, true), write);
	core_fill(c, t, write || vt.h->solo, 0, false);
	if (!in_l1)
		vt_pf_train(c, t);
	return done;
}

/* @c's plain access to the line of @addr missed its L1 (or is a write to a shared copy). */
static vt_ps vt_line_slow(struct vt_cpu *c, uintptr_t addr, bool write, bool in_l1)
{
	struct vt_cache *l2 = &core_of(c)->l2;
	uint64_t t = (addr >> VT_LINE_SHIFT) + 1;
	struct vt_line *l;
	vt_ps done = 0;
	int i;

	if (vt.h->solo)
		return vt_line_own(c, addr, t, write, in_l1);
	i = cache_find(l2, t);
	if (i >= 0 && (!write || l2->excl[i]))
		return vt_line_own(c, addr, t, write, in_l1);
	l = vt_line_of((const void *)addr);

	if (vt_needs_coherence(l, c, write)) {
		vt_access((const void *)addr, write ? VT_WRITE : VT_READ);
		return 0;
	}
	if (!in_l1)
		done = vt_line_miss(c, addr, vt_fetch(c, t, l->home, true), write);
	if (write || !l->nr_sharers) {
		l->owner = c->id;	/* a read no one else shares: exclusive */
		only_sharer(l, c->id);
	} else {
		add_sharer(l, c->id);
	}
	core_fill(c, t, write || l->owner == c->id, 0, true);
	if (!in_l1)
		vt_pf_train(c, t);	/* may grow the line table: @l is not used after */
	return done;
}

/*
 * l1d.lat: a load whose address lies up to VT_DEP_SPAN bytes past a pointer
 * a recent load brought from the L1 cannot issue before that load's data
 * is there, its load-to-use latency after it issued: a chase through lines
 * the L1 holds runs at one hit latency a step, as on every core, where
 * independent hits overlap and cost only their blocks.  If the load misses,
 * it issues no earlier either: it does not start in the shadow of the miss
 * that brought the line the pointer was in (vt_stall()).  A hit that waits
 * holds up only what depends on it (its own data is ready that much later,
 * vt_note_hit_pointer()): the core dispatches the code after it meanwhile,
 * and stalls only once its reorder buffer is full behind it, core.rob's
 * worth of code later, as the interval model of an out-of-order core has it
 * (Eyerman, Eeckhout, Karkhanis and Smith, "A mechanistic performance model
 * for superscalar out-of-order processors", ACM TOCS 27(2), 2009: a latency
 * shorter than the time to fill the window costs only through the chains
 * it is on).
 */
static void vt_l1_wait(struct vt_cpu *c, uintptr_t addr)
{
	struct vt_mlp *m = &c->mlp;
	vt_ps ready = 0, rob;

	for (int i = 0; i < VT_MLP_DEPS; i++)
		if (addr - m->hit[i].val < m->hit[i].span && m->hit[i].ready > ready)
			ready = m->hit[i].ready;
	m->addr_ready = ready;
	if (!ready)
		return;
	rob = vt_hier_code_ps(c, vt_rob_blocks(c), 0);
	if (ready <= vt_now(c) + rob)
		return;
	vt_charge_code(c);
	vt_mem_stall(c, ready - rob - c->clock);
	c->clock = ready - rob;
}

/*
 * When @c's load at @addr, which hit the L1, issued: once its address was
 * known (a missed load's or a hit's pointer it follows) and no earlier than
 * its line arrived (the model fills the L1 at a miss, but the line a recent
 * miss fetched is there only when that miss's data is), and otherwise as early as a miss issued
 * there would have (vt_stall()): in the shadow of the misses in flight,
 * since the clock stands at the end of their stall.
 */
static vt_ps vt_hit_issue(const struct vt_cpu *c, uintptr_t addr)
{
	const struct vt_mlp *m = &c->mlp;
	unsigned long pos = c->blocks_run + c->blocks;
	vt_ps at = vt_now(c), known = vt_addr_known(m, addr);

	for (int i = 0; i < VT_MLP_DEPS; i++)	/* its line is still on its way */
		if (m->fill[i].line == addr >> VT_LINE_SHIFT && m->fill[i].done > known)
			known = m->fill[i].done;
	if (m->n && pos - m->dep_pos < vt_rob_blocks(c)) {
		vt_ps early = vt_shadow_issue(c, m, pos);

		if (early < at)
			at = early;
	}
	return known > at ? known : at;
}

/* l1d.lat: @c's 8-byte load at @addr hit and brought @val (to @span bytes), usable one hit latency after it issued. */
static void vt_note_hit_pointer(struct vt_cpu *c, uintptr_t addr, uintptr_t val, unsigned long span)
{
	struct vt_mlp *m = &c->mlp;

	m->hit[m->next_hit].val = val;
	m->hit[m->next_hit].ready = vt_hit_issue(c, addr) + vt.h->l1_ps;
	m->hit[m->next_hit].span = span;
	m->next_hit = (m->next_hit + 1) % VT_MLP_DEPS;
}

/* @c's plain access to the line of @addr; when a miss's data is there, 0 for a hit. */
static inline vt_ps vt_line_access(struct vt_cpu *c, uintptr_t addr, bool write)
{
	struct vt_cache *l1 = &core_of(c)->l1;
	int i;

	if (vt.h->l1_ps)
		vt_l1_wait(c, addr);	/* sets mlp.addr_ready, which its miss (vt_stall()) reads */
	i = cache_find(l1, (addr >> VT_LINE_SHIFT) + 1);

	if (i >= 0 && (!write || l1->excl[i])) {
		cache_touch(l1, i);
		return 0;
	}
	return vt_line_slow(c, addr, write, i >= 0);
}

/*
 * core.sb: a marked store (WRITE_ONCE()) to a line no other CPU holds or
 * waits on is the plain store the compiler makes of it, and goes through
 * the store buffer as one.  False: the coherence model serves it.
 */
bool vt_hier_store(struct vt_cpu *c, const volatile void *p)
{
	struct vt_line *l;

	if (!vt.h->sb)
		return false;
	l = vt_line_of(p);
	if (l->waiters || vt_needs_coherence(l, c, true))
		return false;
	vt_line_access(c, (uintptr_t)p, true);
	c->last_line = vt_line_of(p);	/* the prefetcher may have grown the table */
	return true;
}

/* @c's load of the 8 bytes at @a, whose value may be a pointer the next miss follows. */
static void vt_load_word(struct vt_cpu *c, uintptr_t a)
{
	vt_ps done = vt_line_access(c, a, false);

	if (done)
		vt_note_pointer(c, *(const uintptr_t *)a, VT_DEP_SPAN, done);
	else if (vt.h->l1_ps)
		vt_note_hit_pointer(c, a, *(const uintptr_t *)a, VT_DEP_SPAN);
}

/* vt_frames(): where pfn N's frame and struct page are, and how an entry names N. */
static struct {
	uintptr_t arena, memmap;
	unsigned long nr, page_size, page_struct;
	uint64_t present, pfn_mask;
	unsigned int pfn_shift;
} vt_frame_map;

void vt_frames(const void *arena, const void *memmap, unsigned long nr,
	       unsigned long page_size, unsigned long page_struct,
	       uint64_t present, uint64_t pfn_mask, unsigned int pfn_shift)
{
	vt_frame_map.arena = (uintptr_t)arena;
	vt_frame_map.memmap = (uintptr_t)memmap;
	vt_frame_map.nr = nr;
	vt_frame_map.page_size = page_size;
	vt_frame_map.page_struct = page_struct;
	vt_frame_map.present = present;
	vt_frame_map.pfn_mask = pfn_mask;
	vt_frame_map.pfn_shift = pfn_shift;
}

/*
 * @c's load of the page-table entry at @a: a present entry's frame (the
 * next level's table, or the mapped page) and the frame's struct page are
 * addresses made from what it loads, so a load there waits for it.
 */
static void vt_load_entry(struct vt_cpu *c, uintptr_t a)
{
	vt_ps done = vt_line_access(c, a, false);
	uint64_t v = *(const uint64_t *)a;
	unsigned long pfn = (v & vt_frame_map.pfn_mask) >> vt_frame_map.pfn_shift;
	uintptr_t frame, page;

	if (!(v & vt_frame_map.present) || pfn >= vt_frame_map.nr)
		return;
	frame = vt_frame_map.arena + pfn * vt_frame_map.page_size;
	page = vt_frame_map.memmap + pfn * vt_frame_map.page_struct;
	if (done) {
		vt_note_pointer(c, frame, vt_frame_map.page_size, done);
		vt_note_pointer(c, page, vt_frame_map.page_struct, done);
	} else if (vt.h->l1_ps) {
		vt_note_hit_pointer(c, a, frame, vt_frame_map.page_size);
		vt_note_hit_pointer(c, a, page, vt_frame_map.page_struct);
	}
}

/*
 * A marked load (READ_ONCE(), atomic_read()) of a line no other core's
 * copy must serve is the plain load the compiler makes of it: its miss
 * overlaps older ones and the prefetcher may have brought it.  False: the
 * coherence model serves it.  @kind's VT_WORD: 8 bytes, perhaps a pointer;
 * VT_ENTRY: a page-table entry.
 */
bool vt_hier_load(struct vt_cpu *c, const volatile void *p, int kind)
{
	uintptr_t a = (uintptr_t)p;

	if (vt_needs_coherence(vt_line_of(p), c, false))
		return false;
	if ((kind & VT_ENTRY) && !(a & 7))
		vt_load_entry(c, a);
	else if ((kind & VT_WORD) && (a & 63) <= 56)
		vt_load_word(c, a);
	else
		vt_line_access(c, a, false);
	c->last_line = vt_line_of(p);	/* the prefetcher may have grown the table */
	return true;
}

static void vt_mem(const volatile void *p, unsigned long size, bool write)
{
	struct vt_cpu *c = vt.cur;
	uintptr_t a = (uintptr_t)p, end;

	if (!c || !size)
		return;
	if (!vt.h) {
		if (vt.ff_h)
			vt_hier_ff_touch(a, size);
		return;
	}
	end = a + size - 1;
	for (a &= ~(uintptr_t)63; a <= end; a += 64)
		vt_line_access(c, a, write);
}

/*
 * A plain access to @size bytes at @p by the instruction that returns to
 * @ret (a memcpy()'s: its call), counted at that site by the profile.
 */
static inline void vt_mem_at(const void *p, unsigned long size, bool write, void *ret)
{
	if (vt_prof_accesses(vt.cur)) {
		unsigned long before = vt_prof_begin(vt.cur);

		vt_mem(p, size, write);
		vt_prof_end(vt.cur, ret, before);
	} else {
		vt_mem(p, size, write);
	}
}

/* Copying or setting @n bytes: the core's side, once the lines are in its L1. */
static void vt_charge_copy(unsigned long n)
{
	if (vt.cur && vt.h)
		vt.cur->blocks += n / VT_COPY_BYTES_PER_CYCLE;
}

void *vt_memcpy(void *d, const void *s, size_t n)
{
	vt_mem_at(s, n, false, __builtin_return_address(0));
	vt_mem_at(d, n, true, __builtin_return_address(0));
	vt_charge_copy(n);
	return memcpy(d, s, n);
}

void *vt_memmove(void *d, const void *s, size_t n)
{
	vt_mem_at(s, n, false, __builtin_return_address(0));
	vt_mem_at(d, n, true, __builtin_return_address(0));
	vt_charge_copy(n);
	return memmove(d, s, n);
}

void *vt_memset(void *d, int v, size_t n)
{
	vt_mem_at(d, n, true, __builtin_return_address(0));
	vt_charge_copy(n);
	return memset(d, v, n);
}

/*
 * The instrumentation's entry points.  Only the vt flavour's kernel
 * objects call them; the TSan flavour links the real runtime, so they are
 * not defined where this file is itself built with -fsanitize=thread.
 */
#if !defined(__SANITIZE_THREAD__)
void __tsan_init(void)
{
}

void __tsan_func_entry(void *pc)
{
}

void __tsan_func_exit(void)
{
}

/*
 * pf.stride: a per-instruction stride prefetcher (Intel's IP-based stride
 * prefetcher into the L1, AMD's L1 stride prefetcher).  Each core keeps a
 * small table of load instructions (VT_IP_SETS x VT_IP_WAYS, least recently
 * used out: the kernel's hot loops fit).  A load whose address is the same
 * stride past its last one as that was past the one before, a stride of
 * more than two lines (shorter ones are the streamer's) and at most
 * pf.stride bytes, has the lines up to pf.ahead strides further on fetched
 * into the L2 (the streamer's fill path: a real L1 prefetcher fills the L1,
 * so an L2 hit is charged that it would not pay), across page boundaries.
 * @ip is the load's return address less the entry point's, the same from
 * run to run whatever the executable's load address.
 */
/* Does @x lie past @y in the direction of stride @d? */
static inline bool vt_stride_past(uintptr_t x, uintptr_t y, intptr_t d)
{
	return d > 0 ? (intptr_t)(x - y) > 0 : (intptr_t)(x - y) < 0;
}

static void vt_stride_train(struct vt_cpu *c, uintptr_t ip, uintptr_t a)
{
	struct vt_core *k = core_of(c);
	struct vt_ip *set = &k->ips[(((ip >> 2) * 0x9E3779B97F4A7C15ull) >> 58) * VT_IP_WAYS];
	struct vt_ip *e = NULL, *lru = set;
	intptr_t d;

	for (int w = 0; w < VT_IP_WAYS; w++) {
		if (set[w].ip == ip + 1)
			e = &set[w];
		if (set[w].used < lru->used)
			lru = &set[w];
	}
	if (!e) {
		*lru = (struct vt_ip){ .ip = ip + 1, .last = a, .used = ++k->ip_tick };
		return;
	}
	e->used = ++k->ip_tick;
	d = (intptr_t)(a - e->last);
	e->last = a;
	if (!d)
		return;
	if (d != e->stride) {
		e->stride = d;
		e->ahead = a;
		return;
	}
	if (d > -128 && d < 128)
		return;
	if (d > vt.h->stride_max || d < -vt.h->stride_max)
		return;
	/* @ahead and @a lie a whole number of strides apart: ask only for what lies past it. */
	if (!vt_stride_past(e->ahead, a, d))
		e->ahead = a;
	for (int n = 1; n <= vt.h->stride_ahead; n++) {
		uintptr_t x = a + (uintptr_t)(d * n);

		if (!vt_stride_past(x, e->ahead, d))
			continue;
		vt_prefetch(c, (x >> VT_LINE_SHIFT) + 1);
		e->ahead = x;
	}
}

/*
 * The load at @a by the instruction that returns to @ret trains the stride
 * prefetcher (pf.stride), which knows a load by its place relative to this
 * file's code.
 */
static inline void vt_stride_note(void *ret, uintptr_t a)
{
	if (vt.h && vt.h->stride_max && vt.cur)
		vt_stride_train(vt.cur, (uintptr_t)ret - (uintptr_t)&vt_mem, a);
}

/* A plain load of @size bytes at @p by the instruction that returns to @ret. */
static inline void vt_read(void *p, unsigned long size, void *ret)
{
	vt_mem_at(p, size, false, ret);
	vt_stride_note(ret, (uintptr_t)p);
}

/* A plain store of @size bytes at @p by the instruction that returns to @ret. */
static inline void vt_write(void *p, unsigned long size, void *ret)
{
	vt_mem_at(p, size, true, ret);
}

void __tsan_read1(void *p) { vt_read(p, 1, __builtin_return_address(0)); }
void __tsan_read2(void *p) { vt_read(p, 2, __builtin_return_address(0)); }
void __tsan_read4(void *p) { vt_read(p, 4, __builtin_return_address(0)); }
void __tsan_read16(void *p) { vt_read(p, 16, __builtin_return_address(0)); }
void __tsan_write1(void *p) { vt_write(p, 1, __builtin_return_address(0)); }
void __tsan_write2(void *p) { vt_write(p, 2, __builtin_return_address(0)); }
void __tsan_write4(void *p) { vt_write(p, 4, __builtin_return_address(0)); }
void __tsan_write8(void *p) { vt_write(p, 8, __builtin_return_address(0)); }
void __tsan_write16(void *p) { vt_write(p, 16, __builtin_return_address(0)); }
void __tsan_unaligned_read2(void *p) { vt_read(p, 2, __builtin_return_address(0)); }
void __tsan_unaligned_read4(void *p) { vt_read(p, 4, __builtin_return_address(0)); }
void __tsan_unaligned_read8(void *p) { vt_read(p, 8, __builtin_return_address(0)); }
void __tsan_unaligned_read16(void *p) { vt_read(p, 16, __builtin_return_address(0)); }
void __tsan_unaligned_write2(void *p) { vt_write(p, 2, __builtin_return_address(0)); }
void __tsan_unaligned_write4(void *p) { vt_write(p, 4, __builtin_return_address(0)); }
void __tsan_unaligned_write8(void *p) { vt_write(p, 8, __builtin_return_address(0)); }
void __tsan_unaligned_write16(void *p) { vt_write(p, 16, __builtin_return_address(0)); }
void __tsan_read_range(void *p, unsigned long n) { vt_mem_at(p, n, false, __builtin_return_address(0)); }
void __tsan_write_range(void *p, unsigned long n) { vt_mem_at(p, n, true, __builtin_return_address(0)); }

/* An 8-byte load: what it loads may be a pointer the next miss follows. */
void __tsan_read8(void *p)
{
	struct vt_cpu *c = vt.cur;
	uintptr_t a = (uintptr_t)p;

	if (!c)
		return;
	if (!vt.h || (a & 63) > 56) {
		vt_read(p, 8, __builtin_return_address(0));
		return;
	}
	if (vt_prof_accesses(c)) {
		unsigned long before = vt_prof_begin(c);

		vt_load_word(c, a);
		vt_prof_end(c, __builtin_return_address(0), before);
	} else {
		vt_load_word(c, a);
	}
	vt_stride_note(__builtin_return_address(0), a);
}

/*
 * The atomics: vt_hooks.h has already reported each to the coherence
 * model (vt_access()); here the operation is only done.  Virtual CPUs run
 * one at a time on one host thread, so every order is sequential.
 */
#define VT_TSAN_ATOMICS(bits, type)							\
type __tsan_atomic##bits##_load(const volatile type *a, int mo)				\
{ return __atomic_load_n(a, __ATOMIC_SEQ_CST); }					\
void __tsan_atomic##bits##_store(volatile type *a, type v, int mo)			\
{ __atomic_store_n(a, v, __ATOMIC_SEQ_CST); }						\
type __tsan_atomic##bits##_exchange(volatile type *a, type v, int mo)			\
{ return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_add(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_sub(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_and(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_or(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_xor(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }					\
type __tsan_atomic##bits##_fetch_nand(volatile type *a, type v, int mo)			\
{ return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); }					\
int __tsan_atomic##bits##_compare_exchange_strong(volatile type *a, type *e, type v,	\
						  int mo, int fmo)			\
{ return __atomic_compare_exchange_n(a, e, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); } \
int __tsan_atomic##bits##_compare_exchange_weak(volatile type *a, type *e, type v,	\
						int mo, int fmo)			\
{ return __tsan_atomic##bits##_compare_exchange_strong(a, e, v, mo, fmo); }		\
type __tsan_atomic##bits##_compare_exchange_val(volatile type *a, type e, type v,	\
						int mo, int fmo)			\
{ __atomic_compare_exchange_n(a, &e, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); return e; }

VT_TSAN_ATOMICS(8, unsigned char)
VT_TSAN_ATOMICS(16, unsigned short)
VT_TSAN_ATOMICS(32, unsigned int)
VT_TSAN_ATOMICS(64, unsigned long long)

void __tsan_atomic_thread_fence(int mo)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void __tsan_atomic_signal_fence(int mo)
{
}
#endif /* !__SANITIZE_THREAD__ */
