/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual-time machine's insides, shared by its parts: the scheduler
 * (vt_sched.c), the coherence model (vt_coherence.c), synchronisation
 * (vt_sync.c), runs (vt_run.c) and the memory hierarchy (vt_cache.c).  Not
 * for the kernel model or the runner: they see include/machine/vt.h.
 */
#ifndef MACHINE_VT_INT_H
#define MACHINE_VT_INT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <machine/vt.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

typedef uint64_t vt_ps;

#define VT_STACK	(256 << 10)
#define VT_LINE_SHIFT	6
#define VT_MASK_WORDS	(VT_MAX_CPUS / 64)
#define VT_LINES_BITS_MIN	16	/* the line table's first size; it doubles when half full */
#define VT_LINES_BITS_MAX	24	/* 8.4M lines (512 MiB of memory touched) a run at most */
#define VT_MAX_LOCKQ	256
#define VT_TAG_GONE	UINTPTR_MAX	/* a line table slot whose line was forgotten */
#define VT_WAIT_MAX_PS	1000000ull	/* a spinner looks again after 1 us even if its line is quiet */
#define VT_SLEEP_MAX_PS	50000000ull	/* a sleeper after 50 us: a wake-up the model missed */


/*
 * The misses a CPU has in flight under its oldest one (vt_cache.c,
 * vt_stall()): when that one was issued, at which basic block, how many
 * there are; the same for the latest miss that had to wait for another's
 * data; and the pointers its last 8-byte load misses brought in, so a
 * miss on what one points to waits for it.
 */
#define VT_MLP_DEPS	4

struct vt_mlp {
	vt_ps issue;
	unsigned long pos;
	/* the latest miss that waited for another's data: an interval of its own */
	vt_ps dep_issue;
	unsigned long dep_pos;
	int n;
	int next_dep;
	struct { uintptr_t val; vt_ps done; unsigned long span; } dep[VT_MLP_DEPS];
	/* l1d.lat: pointers the latest 8-byte loads that hit brought, usable from @ready */
	struct { uintptr_t val; vt_ps ready; unsigned long span; } hit[VT_MLP_DEPS];
	int next_hit;
	/* when the address of the access in progress was known, if a hit's pointer gave it */
	vt_ps addr_ready;
	/* the lines the latest misses fetch and when each arrives: a hit there waits for it */
	struct { uintptr_t line; vt_ps done; } fill[VT_MLP_DEPS];
	int next_fill;
};

/* A block's entry in vt_block_table (tools/gen-block-insns.py). */
struct vt_block_slot {
	uint8_t ops;		/* its ops, a fused compare and branch one */
	uint8_t fall;		/* the block it falls through to is this many slots on; 0: none */
};

struct vt_cpu {
	int id;
	vt_ps clock;
	bool done;
	bool blocked;			/* queued on a spinlock or a line */
	int rcu_nesting;
	unsigned long rcu_exits;	/* outermost rcu_read_unlock()s */
	struct vt_cpu *next_waiter;
	int heap_pos;			/* index in the heap while in it */
	struct vt_line *last_line;	/* the line of its last event */
	struct vt_line *waiting_on;	/* in vt_wait()/vt_sleep(): woken by a write to this line */
	bool sleeping;			/* vt_sleep(): only a release write wakes it, one at a time */
	unsigned long blocks;		/* basic blocks run since the CPU's clock last moved */
	unsigned long mispredicts;	/* ... and branches mispredicted (core.mispredict) */
	unsigned long insns;		/* ... their ops (core.insn) */
	unsigned long taken;		/* ... those of them a branch was taken to */
	int64_t insn_ps;		/* ... and what those cost beyond cost.block each (core.fall: less where fallen into) */
	uintptr_t fall_slot;		/* the slot of the block the last one falls through to (core.insn) */
	struct vt_bp *bp;		/* its branch predictor (vt_bpred.c); NULL: none */
	vt_ps rmw_free;			/* rmw.overlap: when its last locked RMW completes */
	vt_ps rmw_shadow;		/* rmw.overlap SHARE: what the code after it may hide */
	vt_ps async_free;		/* when the work it handed off last (vt_async_ns()) completes */
	bool agent;			/* a kthread (the device): not a CPU of the machine, never waited for */
	struct vt_cpu *next_line_waiter;
	/* queued for a line (vt_queue()) */
	struct vt_cpu *next_queued;
	int queued_kind;
	vt_ps queued_until;		/* when vt_grant() served it */
	bool queued_commit;		/* ... with a transfer to commit */
	vt_thread_fn fn;
	void *arg;
	void *stack;
#if defined(__x86_64__)
	void *sp;
#else
	ucontext_t uc;
#endif
	/* topology, precomputed */
	int socket, l3, core;
	struct vt_cpu *sibling;		/* the other hardware thread of its core in the run */
	/* the core model (vt_cache.c) */
	unsigned long blocks_run;	/* basic blocks charged so far: where it is in its code */
	unsigned long l1_misses;	/* its L1 misses so far (MMLAB_VT_BLOCKPROF_EVENTS=miss) */
	vt_ps stalled;			/* its stalls on the memory system so far (=stall) */
	bool prof_busy;			/* inside a profiled access: one site counts it */
	vt_ps stuck_clock;		/* its clock, and events made since it last moved */
	unsigned long stuck_events;
	struct vt_mlp mlp;
	/*
	 * core.sb: when each of its last stores that missed is written to the
	 * L1 (a ring of the hardware thread's share of the buffer), and when the
	 * youngest is.
	 */
	vt_ps *sb;
	unsigned int sb_head;
	vt_ps sb_last;
	vt_ps *sb_mem;			/* ... and when the last core.mshr of them from memory arrive */
	unsigned int sb_mem_head;
	/*
	 * The line (tag) of its last event that missed its L1, not yet shown to
	 * its core's stream prefetcher (vt_hier_train(), at the event's end).
	 */
	uint64_t pf_pending;
};

struct vt_line {
	uintptr_t tag;			/* line number + 1; 0: free slot */
	int owner;			/* modified/exclusive holder, -1 none */
	int next_owner;			/* the CPU a transfer in flight is for, -1 none */
	vt_ps owner_until;		/* with a transfer in flight: the holders lose it then */
	int nr_sharers;
	int home;			/* the socket whose memory holds it: its first toucher's */
	struct vt_cpu *queue, *queue_tail;	/* requests waiting for the transfer in flight */
	struct vt_cpu *waiters;		/* CPUs in vt_wait() on this line */
	uint64_t sharers[VT_MASK_WORDS];
};

/*
 * A kthread (linux/kthread.h) of a virtual-time kernel: the block device.
 * Started before a run, it runs in the run as one more virtual CPU, an
 * agent, placed on the machine's last CPU; the run ends when the machine's
 * CPUs have, wherever the agents are waiting.
 */
#define VT_MAX_AGENTS	4

struct vt_agent {
	int (*fn)(void *data);
	void *data;
	int ret;
	bool ran;		/* its run is over */
	bool stopped;		/* kthread_stop() was called */
};

/* The counts of a run (vt_stats' sums, in picoseconds where they are times). */
struct vt_counts {
	struct vt_stats st;
	vt_ps transfer_ps, queued_ps, lock_wait_ps, poll_ps, delay_ps, code_ps, mem_ps, rmw_ps;
	vt_ps branch_ps;		/* mispredictions' refills */
};

struct vt_hier;

struct vt_lockq {
	int *lock;
	struct vt_cpu *head, *tail;
};

struct vt_state {
	const struct vt_machine *m;
	vt_ps lat[VT_NR_DIST];
	vt_ps cost[VT_NR_COST];
	vt_ps wake;			/* sched.wake (0: one transfer) */
	bool rmw_beside;		/* rmw.overlap yes: a locked RMW that hits runs beside the code */
	double rmw_share;		/* rmw.overlap SHARE: of the code after one, the share hidden */
	vt_ps window_permille;		/* line.window, in thousandths */
	vt_ps mispredict_ps;		/* core.mispredict (0: no branch predictor) */
	/*
	 * core.insn: the block whose hook returns to address A has slot
	 * (A - insn_base) / 4 of vt_block_table, for A - insn_base under
	 * 4 * insn_n (0: no core.insn, or no table): its ops and where the
	 * block it falls through to lies.  What a block of n ops costs beyond
	 * cost.block is insn_extra[0][n] where the last block fell into it,
	 * insn_extra[1][n] where a branch was taken to it.
	 */
	uintptr_t insn_base, insn_n;
	const struct vt_block_slot *insns;
	int64_t insn_extra[2][256];
	int n;
	struct vt_cpu *cpus;
	struct vt_cpu **heap;		/* runnable CPUs other than the running one */
	int nheap;
	struct vt_cpu *cur;
	int live;
	struct vt_line *lines;
	uintptr_t *tags;		/* the lines' tags alone, for lookups */
	unsigned int nr_lines;		/* slots taken, forgotten lines' included */
	unsigned int nr_gone;		/* slots of forgotten lines (vt_line_forget()) */
	unsigned int lines_bits;	/* the table has 1 << lines_bits slots */
	unsigned int lines_gen;		/* bumped when the table grows: line pointers move */
	struct vt_lockq lockq[VT_MAX_LOCKQ];
	int nr_lockq;			/* lockq[] slots in use: 0, no CPU waits on a spinlock */
	int *stop;
	vt_ps stop_at;
	struct vt_counts acc;		/* what the run's CPUs did */
	/* Timed windows (vt_window_begin/end): what the run did inside them. */
	int nr_windows;
	bool window_open;
	struct vt_counts window_start, windows;
	vt_ps window_clock, windows_ps;
	/* vt_span_add(): each span's time, all of it and inside timed windows */
	vt_ps span_ps[VT_NR_SPANS], window_span_ps[VT_NR_SPANS];
	vt_ps stop_ps;
	bool failed;
#if defined(__x86_64__)
	void *main_sp;
#else
	ucontext_t main_uc;
#endif
	int saved_cpu_number;
	struct vt_agent agents[VT_MAX_AGENTS];	/* kthreads of the next or last run */
	int nr_agents;
	struct vt_hier *h;		/* the machine's caches and cores; NULL: a file without them */
	struct vt_hier *ff_h;		/* set aside while fast-forwarding (vt_fast_forward()) */
};

extern struct vt_state vt;

static inline vt_ps ns_to_ps(double ns)
{
	return (vt_ps)llround(ns * 1000.0);
}

/* vt_sched.c: where the CPUs sit, when each runs */
void vt_place(const struct vt_machine *m, int id, int *socket, int *l3, int *core);
struct vt_cpu *heap_pop(void);
void vt_switch(struct vt_cpu *from, struct vt_cpu *to);
void vt_cpu_init_ctx(struct vt_cpu *c);

/* vt_coherence.c: the line table and the coherence model */
size_t vt_lines_bytes(unsigned int bits);
struct vt_line *vt_lines_map(unsigned int bits);
uintptr_t *vt_lines_tags(struct vt_line *lines, unsigned int bits);
struct vt_line *vt_line_of(const volatile void *p);
struct vt_line *vt_line_find(uintptr_t tag);
void vt_line_forget(struct vt_line *l);
bool is_sharer(const struct vt_line *l, int id);
void add_sharer(struct vt_line *l, int id);
void only_sharer(struct vt_line *l, int id);
vt_ps vt_transfer(struct vt_cpu *c, const struct vt_cpu *from, struct vt_line *l);
void vt_book(struct vt_line *l, struct vt_cpu *c, vt_ps start, vt_ps lat);
void vt_arrive(struct vt_line *l, struct vt_cpu *c, int kind);
void vt_unwait(struct vt_cpu *w);

/* vt_bpred.c: the branch predictors */
int vt_bp_start(const struct vt_machine *m);
void vt_bp_stop(void);
void vt_bp_block(struct vt_cpu *c, uint32_t block, uintptr_t sp);

/* vt_cache.c: the hierarchy's side of a run and of the coherence model */
int vt_hier_start(const struct vt_machine *m);
void vt_hier_stop(void);
vt_ps vt_hier_fetch(struct vt_cpu *c, struct vt_line *l);
void vt_hier_hit(struct vt_cpu *c, struct vt_line *l, bool write);
void vt_hier_commit(struct vt_cpu *c, struct vt_line *l, bool write);
void vt_hier_serialise(struct vt_cpu *c);
void vt_hier_train(struct vt_cpu *c);
bool vt_hier_store(struct vt_cpu *c, const volatile void *p);
bool vt_hier_load(struct vt_cpu *c, const volatile void *p, int kind);
void vt_insn_start(const struct vt_machine *m);
vt_ps vt_hier_code_ps(const struct vt_cpu *c, unsigned long blocks, int64_t insn_ps);
void vt_hier_ff_touch(uintptr_t addr, unsigned long size);

/*
 * The scheduler's steps that every access takes (vt_access(), in
 * vt_coherence.c), inline so that the simulator's hot path stays one
 * translation unit.
 */

static inline vt_ps vt_lat(const struct vt_cpu *a, const struct vt_cpu *b)
{
	if (a->core == b->core)
		return a == b ? 0 : vt.lat[VT_D_SMT];
	if (a->l3 == b->l3)
		return vt.lat[VT_D_L3];
	if (a->socket == b->socket)
		return vt.lat[VT_D_SOCKET];
	return vt.lat[VT_D_REMOTE];
}

/* --- the heap of runnable CPUs, by (clock, id) ----------------------------------- */

static inline bool vt_before(const struct vt_cpu *a, const struct vt_cpu *b)
{
	return a->clock < b->clock || (a->clock == b->clock && a->id < b->id);
}

static inline void heap_set(int i, struct vt_cpu *c)
{
	vt.heap[i] = c;
	c->heap_pos = i;
}

static inline void heap_sift_up(int i, struct vt_cpu *c)
{
	while (i > 0) {
		int p = (i - 1) / 2;

		if (!vt_before(c, vt.heap[p]))
			break;
		heap_set(i, vt.heap[p]);
		i = p;
	}
	heap_set(i, c);
}

static inline void heap_push(struct vt_cpu *c)
{
	heap_sift_up(vt.nheap++, c);
}

/* @c, in the heap, has an earlier clock now. */
static inline void heap_decrease(struct vt_cpu *c)
{
	heap_sift_up(c->heap_pos, c);
}

/*
 * The refills of the branches @c mispredicted since its clock last moved
 * (core.mispredict): the core's latency, whoever shares it.
 */
static inline vt_ps vt_refill_pending_ps(const struct vt_cpu *c)
{
	return (vt_ps)c->mispredicts * vt.mispredict_ps;
}

/*
 * The plain code @c ran since its clock last moved: cost.block a block (with
 * core.insn, its ops at the core's width if more; with core.fall too, a
 * block fallen into its ops alone), more while its SMT sibling shares the
 * core (vt_hier_code_ps()), and its refills.
 */
static inline vt_ps vt_code_pending_ps(const struct vt_cpu *c)
{
	vt_ps t = vt.h ? vt_hier_code_ps(c, c->blocks, c->insn_ps) :
		  (vt_ps)((int64_t)(c->blocks * vt.cost[VT_C_BLOCK]) + c->insn_ps);

	/* Code right after a locked RMW (rmw.overlap SHARE): its share ran under the RMW. */
	if (c->rmw_shadow) {
		vt_ps hid = (vt_ps)((double)t * vt.rmw_share);

		t -= hid < c->rmw_shadow ? hid : c->rmw_shadow;
	}
	return t + vt_refill_pending_ps(c);
}

/*
 * @c's clock with the code it ran since the clock last moved, read without
 * charging it: charging early would move when the hierarchy sees the time
 * pass, and a sample must not depend on whether it was looked at.
 */
static inline vt_ps vt_now(const struct vt_cpu *c)
{
	return c->clock + vt_code_pending_ps(c);
}

static inline void vt_charge_code(struct vt_cpu *c)
{
	vt_ps t = vt_code_pending_ps(c), refill = vt_refill_pending_ps(c);

	vt.acc.st.blocks += c->blocks;
	vt.acc.st.mispredicts += c->mispredicts;
	vt.acc.st.insns += c->insns;
	vt.acc.st.taken += c->taken;
	c->blocks_run += c->blocks;
	c->blocks = 0;
	c->insns = 0;
	c->taken = 0;
	c->insn_ps = 0;
	c->mispredicts = 0;
	c->rmw_shadow = 0;	/* the next event: whatever follows waited for the RMW */
	c->clock += t;
	vt.acc.code_ps += t - refill;
	vt.acc.branch_ps += refill;
}

/*
 * rmw.overlap: a locked RMW on a line the CPU holds completes beside the
 * code after it (vt_access() sets rmw_free); what must see it complete
 * (the next locked RMW, a clock read, a window's edge, a wait, a delay, the
 * CPU's end) waits for it here.
 */
static inline void vt_rmw_drain(struct vt_cpu *c)
{
	if (c->rmw_free > c->clock) {
		vt.acc.rmw_ps += c->rmw_free - c->clock;
		c->clock = c->rmw_free;
	}
}

/*
 * Work handed off (vt_async_ns(): an arm64 broadcast TLBI) completes one
 * item at a time beside the CPU's code; what must see it complete (the
 * next hand-off, vt_async_wait(), a window's edge, the CPU's end) waits
 * for it here.  The wait is the handed-off work's time: delay_ps.
 */
static inline void vt_async_drain(struct vt_cpu *c)
{
	if (c->async_free > c->clock) {
		vt.acc.delay_ps += c->async_free - c->clock;
		c->clock = c->async_free;
	}
}

/* @c stalls @ps on the memory system: share_mem_pct's time. */
static inline void vt_mem_stall(struct vt_cpu *c, vt_ps ps)
{
	vt.acc.mem_ps += ps;
	c->stalled += ps;
}

/*
 * core.sb: what must see this CPU's buffered stores written (a locked RMW,
 * a window's edge, the CPU's end) waits until the youngest is.
 */
static inline void vt_sb_drain(struct vt_cpu *c)
{
	if (c->sb_last > c->clock) {
		vt_mem_stall(c, c->sb_last - c->clock);
		c->clock = c->sb_last;
	}
}

/* A window's edge and a CPU's end wait for all that completes beside the code. */
static inline void vt_drain_all(struct vt_cpu *c)
{
	vt_rmw_drain(c);
	vt_async_drain(c);
	vt_sb_drain(c);
}

/* --- scheduling ------------------------------------------------------------------ */

static inline void vt_check_stop(struct vt_cpu *c)
{
	if (vt.stop && !*vt.stop && c->clock >= vt.stop_at) {
		/* c is the earliest: every CPU has passed the end. */
		*vt.stop = 1;
		vt.stop_ps = c->clock;
	}
}

/* Let every CPU whose clock is earlier than the caller's run first. */
static inline void vt_sched(struct vt_cpu *c)
{
	if (vt.nheap && vt_before(vt.heap[0], c)) {
		struct vt_cpu *next = heap_pop();

		heap_push(c);
		vt_switch(c, next);
	}
	vt_check_stop(c);
}

/*
 * MMLAB_VT_BLOCKPROF (vt_blockprof.c): blocks counted by call site; NULL when
 * off.  MMLAB_VT_BLOCKPROF_EVENTS says what is counted (vt_prof_ev): the
 * blocks, the locked RMWs, the L1 misses of each access, or the time (ps)
 * each access stalled on the memory system.
 */
enum vt_prof_event { VT_PROF_BLOCKS, VT_PROF_RMW, VT_PROF_MISS, VT_PROF_STALL };

struct vt_prof_slot {
	uintptr_t pc;
	unsigned long n, windowed;
};
extern struct vt_prof_slot *vt_prof;
extern enum vt_prof_event vt_prof_ev;
void vt_prof_add(uintptr_t pc, unsigned long n, bool windowed);

static inline void vt_prof_hit(uintptr_t pc, bool windowed)
{
	vt_prof_add(pc, 1, windowed);
}

/* Is the profile counting @ev? */
static inline bool vt_prof_on(enum vt_prof_event ev)
{
	return __builtin_expect(vt_prof != NULL, 0) && vt_prof_ev == ev;
}

/*
 * Is the profile counting something each access of @c adds to (=miss,
 * =stall), and is @c not inside an access it counts already (the machine's
 * own calls, such as a plain access the coherence model serves)?
 */
static inline bool vt_prof_accesses(const struct vt_cpu *c)
{
	return __builtin_expect(vt_prof != NULL, 0) && vt_prof_ev >= VT_PROF_MISS && c &&
	       !c->prof_busy;
}

/* What the access profile counts of @c so far: its L1 misses, or its stalls in ps. */
static inline unsigned long vt_prof_measure(const struct vt_cpu *c)
{
	return vt_prof_ev == VT_PROF_MISS ? c->l1_misses : (unsigned long)c->stalled;
}

/* @c starts an access the profile counts: what it has counted so far. */
static inline unsigned long vt_prof_begin(struct vt_cpu *c)
{
	c->prof_busy = true;
	return vt_prof_measure(c);
}

/* Into the profile, for the access at @ret: what @c added since vt_prof_begin() said @before. */
static inline void vt_prof_end(struct vt_cpu *c, void *ret, unsigned long before)
{
	unsigned long now = vt_prof_measure(c);

	c->prof_busy = false;
	if (now != before)
		vt_prof_add((uintptr_t)ret, now - before, vt.window_open);
}

#endif
