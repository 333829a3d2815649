// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time machine: see include/machine/vt.h and
 * docs/design/virtual-time.md.
 *
 * Virtual CPUs are coroutines on the thread that calls vt_run(), switched
 * by a few instructions of assembly (x86-64) or swapcontext() elsewhere.
 * The scheduler keeps the CPUs that can run in a binary heap by (clock,
 * id); the running CPU goes on until its clock passes the heap's top,
 * which is then switched to.  Clocks are integer picoseconds, so a run is
 * the same on every host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/smp.h>
#include <machine/vt.h>

#include "vt_int.h"

struct vt_state vt;

const char *const vt_dist_names[VT_NR_DIST] = {
	[VT_D_SMT] = "smt", [VT_D_L3] = "l3", [VT_D_SOCKET] = "socket", [VT_D_REMOTE] = "remote",
};
const char *const vt_order_names[VT_NR_ORDER] = {
	[VT_ORDER_FIFO] = "fifo", [VT_ORDER_FAR_FIRST] = "far-first", [VT_ORDER_NEAR_FIRST] = "near-first",
};
const char *const vt_cost_names[VT_NR_COST] = {
	[VT_C_HIT] = "hit", [VT_C_RMW] = "rmw", [VT_C_MEM] = "mem", [VT_C_BLOCK] = "block",
	[VT_C_PAUSE] = "pause",
};

/* --- topology ------------------------------------------------------------------ */

/*
 * CPU numbering as Linux numbers a two-socket x86 machine: first every
 * core's first hardware thread, socket by socket, L3 by L3 (will-it-scale
 * pins thread i to CPU i, so N threads fill socket 0 first, and CCX by CCX
 * on AMD), then the second hardware threads in the same order.
 */
static void vt_place(const struct vt_machine *m, int id, int *socket, int *l3, int *core)
{
	int cores = m->sockets * m->l3_per_socket * m->cores_per_l3;
	int c = id % cores;

	*core = c;
	*l3 = c / m->cores_per_l3;
	*socket = c / (m->l3_per_socket * m->cores_per_l3);
}

enum vt_dist vt_distance(const struct vt_machine *m, int a, int b)
{
	int sa, la, ca, sb, lb, cb;

	vt_place(m, a, &sa, &la, &ca);
	vt_place(m, b, &sb, &lb, &cb);
	if (ca == cb)
		return VT_D_SMT;
	if (la == lb)
		return VT_D_L3;
	if (sa == sb)
		return VT_D_SOCKET;
	return VT_D_REMOTE;
}

static vt_ps vt_lat(const struct vt_cpu *a, const struct vt_cpu *b)
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

static bool vt_before(const struct vt_cpu *a, const struct vt_cpu *b)
{
	return a->clock < b->clock || (a->clock == b->clock && a->id < b->id);
}

static void heap_set(int i, struct vt_cpu *c)
{
	vt.heap[i] = c;
	c->heap_pos = i;
}

static void heap_sift_up(int i, struct vt_cpu *c)
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

static void heap_push(struct vt_cpu *c)
{
	heap_sift_up(vt.nheap++, c);
}

/* @c, in the heap, has an earlier clock now. */
static void heap_decrease(struct vt_cpu *c)
{
	heap_sift_up(c->heap_pos, c);
}

static struct vt_cpu *heap_pop(void)
{
	struct vt_cpu *top = vt.heap[0], *last = vt.heap[--vt.nheap];
	int i = 0;

	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;
		struct vt_cpu *best = last;

		if (l < vt.nheap && vt_before(vt.heap[l], best)) {
			m = l;
			best = vt.heap[l];
		}
		if (r < vt.nheap && vt_before(vt.heap[r], best))
			m = r;
		if (m == i)
			break;
		heap_set(i, vt.heap[m]);
		i = m;
	}
	if (vt.nheap)
		heap_set(i, last);
	top->heap_pos = -1;
	return top;
}

/* --- coroutines -------------------------------------------------------------------- */

#if defined(__x86_64__)
void vt_ctx_switch(void **save_sp, void *load_sp);
__asm__(".text\n"
	".globl vt_ctx_switch\n"
	".type vt_ctx_switch,@function\n"
	"vt_ctx_switch:\n"
	"\tpushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n"
	"\tret\n"
	".size vt_ctx_switch, .-vt_ctx_switch\n");
#endif

/*
 * What an agent does is not the machine's CPUs' time: the run's counts are
 * saved when an agent starts running and put back when it stops.
 */
static struct vt_counts agent_saved;

static void vt_switch(struct vt_cpu *from, struct vt_cpu *to)
{
	if (from && from->agent)
		vt.acc = agent_saved;
	if (to && to->agent)
		agent_saved = vt.acc;
	vt.cur = to;
	/* A kthread has no CPU id (linux/kthread.h). */
	cpu_number = to ? (to->agent ? -1 : to->id) : vt.saved_cpu_number;
#if defined(__x86_64__)
	vt_ctx_switch(from ? &from->sp : &vt.main_sp, to ? to->sp : vt.main_sp);
#else
	swapcontext(from ? &from->uc : &vt.main_uc, to ? &to->uc : &vt.main_uc);
#endif
}

/* --- plain code: basic blocks ------------------------------------------------------ */

/*
 * The vt flavour compiles the kernel model with -fsanitize-coverage=trace-pc:
 * every basic block it enters calls this.  The machine itself is not
 * compiled so.  Outside a run (boot, set-up) blocks cost nothing.
 */
void __sanitizer_cov_trace_pc(void)
{
	struct vt_cpu *c = vt.cur;

	if (c)
		c->blocks++;
}

/*
 * The plain code @c ran since its clock last moved: cost.block a block, more
 * while its SMT sibling shares the core (vt_hier_code_ps()).
 */
void vt_charge_code(struct vt_cpu *c)
{
	vt_ps t = vt.h ? vt_hier_code_ps(c, c->blocks) : (vt_ps)c->blocks * vt.cost[VT_C_BLOCK];

	vt.acc.st.blocks += c->blocks;
	c->blocks_run += c->blocks;
	c->blocks = 0;
	c->clock += t;
	vt.acc.code_ps += t;
}

/* The running CPU gives way to the next one, or to vt_run() when none is left. */
static void vt_yield_to_next(struct vt_cpu *c)
{
	/* Once the machine's CPUs are done, so is the run: agents are left where they wait. */
	struct vt_cpu *next = vt.live && vt.nheap ? heap_pop() : NULL;

	if (next != c)
		vt_switch(c, next);
}

static void vt_cpu_body(void)
{
	struct vt_cpu *c = vt.cur;

	c->fn(c->arg);
	vt_charge_code(c);
	c->done = true;
	if (!c->agent) {
		vt.live--;
		vt.acc.st.cpu_ns += c->clock / 1000.0;
		if (c->clock > ns_to_ps(vt.acc.st.end_ns))
			vt.acc.st.end_ns = c->clock / 1000.0;
	}
	vt_yield_to_next(c);
	abort();	/* a finished CPU is never switched to */
}

#if defined(__x86_64__)
static void vt_trampoline(void)
{
	vt_cpu_body();
}

static void vt_cpu_init_ctx(struct vt_cpu *c)
{
	uintptr_t top = ((uintptr_t)c->stack + VT_STACK) & ~(uintptr_t)15;
	void **sp = (void **)top;

	*--sp = NULL;			/* the trampoline's return address: never used */
	*--sp = (void *)vt_trampoline;	/* vt_ctx_switch's ret */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;		/* rbp rbx r12 r13 r14 r15 */
	c->sp = sp;
}
#else
static void vt_cpu_init_ctx(struct vt_cpu *c)
{
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = c->stack;
	c->uc.uc_stack.ss_size = VT_STACK;
	c->uc.uc_link = NULL;
	makecontext(&c->uc, vt_cpu_body, 0);
}
#endif

/* --- scheduling ------------------------------------------------------------------ */

static void vt_check_stop(struct vt_cpu *c)
{
	if (vt.stop && !*vt.stop && c->clock >= vt.stop_at) {
		/* c is the earliest: every CPU has passed the end. */
		*vt.stop = 1;
		vt.stop_ps = c->clock;
	}
}

/* Let every CPU whose clock is earlier than the caller's run first. */
static void vt_sched(struct vt_cpu *c)
{
	if (vt.nheap && vt_before(vt.heap[0], c)) {
		struct vt_cpu *next = heap_pop();

		heap_push(c);
		vt_switch(c, next);
	}
	vt_check_stop(c);
}

/* --- the coherence model ------------------------------------------------------------ */

static void vt_commit(struct vt_line *l, struct vt_cpu *c, int kind);
static void vt_agent_main(void *arg);

static unsigned int vt_line_hash(uintptr_t tag, unsigned int bits)
{
	return (unsigned int)((tag * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

/*
 * The line table: 1 << bits slots of struct vt_line, and beside them their
 * tags alone, which a lookup probes (eight to a host cache line).
 */
static struct vt_line *vt_line_slot(struct vt_line *lines, const uintptr_t *tags, unsigned int bits,
				    uintptr_t tag)
{
	unsigned int h = vt_line_hash(tag, bits);

	while (tags[h] && tags[h] != tag)
		h = (h + 1) & ((1u << bits) - 1);
	return &lines[h];
}

static size_t vt_lines_bytes(unsigned int bits)
{
	return (sizeof(struct vt_line) + sizeof(uintptr_t)) << bits;
}

/* A zeroed table of 1 << @bits slots (its tags after the lines), or NULL. */
static struct vt_line *vt_lines_map(unsigned int bits)
{
	void *p = mmap(NULL, vt_lines_bytes(bits), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uintptr_t *vt_lines_tags(struct vt_line *lines, unsigned int bits)
{
	return (uintptr_t *)(lines + (1u << bits));
}

/*
 * Rehash the line table into 1 << @bits slots, leaving out the lines no
 * cache holds any more.  Lines move: the CPUs' pointers to theirs are
 * redone here, and a caller holding one across a switch looks it up again
 * when lines_gen has changed.
 */
static void vt_lines_rehash(unsigned int bits)
{
	struct vt_line *old = vt.lines, *lines;
	uintptr_t *tags;

	if (bits > VT_LINES_BITS_MAX || !(lines = vt_lines_map(bits))) {
		fprintf(stderr, "mmlab: vt: more than %u cache lines held at once in one run\n",
			(1u << VT_LINES_BITS_MAX) / 2);
		abort();
	}
	tags = vt_lines_tags(lines, bits);
	for (unsigned int i = 0; i < 1u << vt.lines_bits; i++) {
		if (old[i].tag && old[i].tag != VT_TAG_GONE) {
			struct vt_line *l = vt_line_slot(lines, tags, bits, old[i].tag);

			*l = old[i];
			tags[l - lines] = l->tag;
		}
	}
	for (int i = 0; i < vt.n; i++) {
		struct vt_cpu *c = &vt.cpus[i];

		if (c->last_line)
			c->last_line = c->last_line->tag == VT_TAG_GONE ? NULL :
				       vt_line_slot(lines, tags, bits, c->last_line->tag);
		if (c->waiting_on)
			c->waiting_on = vt_line_slot(lines, tags, bits, c->waiting_on->tag);
	}
	munmap(old, vt_lines_bytes(vt.lines_bits));
	vt.lines = lines;
	vt.tags = tags;
	vt.nr_lines -= vt.nr_gone;
	vt.nr_gone = 0;
	vt.lines_bits = bits;
	vt.lines_gen++;
}

struct vt_line *vt_line_find(uintptr_t tag)
{
	struct vt_line *l = vt_line_slot(vt.lines, vt.tags, vt.lines_bits, tag);

	return l->tag ? l : NULL;
}

/*
 * The line of @p, made if new (in a slot a forgotten line left, if one is
 * on the way).  The table is rehashed when half its slots are taken: to
 * twice the size, or to the same size when most of those are forgotten.
 */
struct vt_line *vt_line_of(const volatile void *p)
{
	uintptr_t tag = ((uintptr_t)p >> VT_LINE_SHIFT) + 1;
	unsigned int mask = (1u << vt.lines_bits) - 1, h = vt_line_hash(tag, vt.lines_bits);
	const uintptr_t *tags = vt.tags;
	struct vt_line *l;
	long gone = -1;

	for (; tags[h]; h = (h + 1) & mask) {
		if (tags[h] == tag)
			return &vt.lines[h];
		if (tags[h] == VT_TAG_GONE && gone < 0)
			gone = h;
	}
	if (gone >= 0) {
		h = (unsigned int)gone;
		vt.nr_gone--;
	} else {
		if (vt.nr_lines + 1 > (1u << vt.lines_bits) / 2) {
			bool shrink = vt.nr_lines - vt.nr_gone < (1u << vt.lines_bits) / 4;

			vt_lines_rehash(vt.lines_bits + !shrink);
			return vt_line_of(p);
		}
		vt.nr_lines++;
	}
	l = &vt.lines[h];
	memset(l, 0, sizeof(*l));
	l->tag = vt.tags[h] = tag;
	l->owner = -1;
	l->next_owner = -1;
	l->home = vt.cur ? vt.cur->socket : 0;
	return l;
}

/* No cache holds @l any more, nothing waits on it: its slot may be taken. */
void vt_line_forget(struct vt_line *l)
{
	memset(l, 0, sizeof(*l));
	l->tag = vt.tags[l - vt.lines] = VT_TAG_GONE;
	vt.nr_gone++;
}

bool is_sharer(const struct vt_line *l, int id)
{
	return (l->sharers[id / 64] >> (id % 64)) & 1;
}

void add_sharer(struct vt_line *l, int id)
{
	if (!is_sharer(l, id)) {
		l->sharers[id / 64] |= 1ull << (id % 64);
		l->nr_sharers++;
	}
}

void only_sharer(struct vt_line *l, int id)
{
	memset(l->sharers, 0, sizeof(l->sharers));
	l->sharers[id / 64] = 1ull << (id % 64);
	l->nr_sharers = 1;
}

/*
 * The nearest (read) or farthest (invalidation: every copy must answer)
 * sharer other than @c; NULL if none.
 */
static const struct vt_cpu *sharer_for(const struct vt_line *l, const struct vt_cpu *c, bool farthest)
{
	const struct vt_cpu *best = NULL;
	vt_ps best_lat = 0;

	for (int w = 0; w < VT_MASK_WORDS; w++) {
		uint64_t bits = l->sharers[w];

		while (bits) {
			int id = w * 64 + __builtin_ctzll(bits);
			vt_ps lat;

			bits &= bits - 1;
			if (id == c->id || id >= vt.n)
				continue;
			lat = vt_lat(c, &vt.cpus[id]);
			if (!best || (farthest ? lat > best_lat : lat < best_lat)) {
				best = &vt.cpus[id];
				best_lat = lat;
			}
		}
	}
	return best;
}

/*
 * An access of @c to @l at c->clock.  vt_request() decides at issue time
 * whether it hits; if not, and no transfer of the line is in flight, it
 * books one: the latency from the line's owner, or for an ownership
 * request the farthest sharer, or memory.  The requester waits in virtual
 * time for the data, and vt_commit() changes the line's state when it
 * arrives; the memory operation itself runs then, in global time order.
 * Meanwhile the current holder keeps using its copy until the request's
 * snoop reaches it (line.window of the transfer latency after the transfer
 * starts, vt_book()): a core that has just got a line makes its next few
 * accesses to it before the line can leave, as on real hardware.  A read
 * served by a shared copy does not queue (the L3 or a sharer answers in
 * parallel).
 *
 * A line serves one transfer at a time: a request that finds one in flight
 * joins the line's queue and stops; when the data arrives, the new holder
 * grants the line to the next request (vt_grant()), in the order the
 * machine file's line.order says (vt_pick()).
 */

/* @l as it stands serves @c's access without a transfer. */
static bool vt_hit(struct vt_line *l, const struct vt_cpu *c, int kind)
{
	bool holds = l->next_owner < 0 || c->clock < l->owner_until;

	if (!holds)
		return false;
	if (kind == VT_READ)
		return l->owner == c->id || is_sharer(l, c->id);
	if (l->owner == c->id)
		return true;
	if (l->next_owner < 0 && l->owner < 0 && l->nr_sharers == 1 && is_sharer(l, c->id)) {
		l->owner = c->id;	/* the only copy is ours: a silent upgrade */
		return true;
	}
	return false;
}

/*
 * Where @c's access gets @l from as it stands, no transfer in flight: the
 * owner, or a sharer (for a write, the farthest: every copy must answer);
 * NULL for memory.
 */
static const struct vt_cpu *vt_source(const struct vt_line *l, const struct vt_cpu *c, int kind)
{
	if (l->owner >= 0 && l->owner != c->id)
		return &vt.cpus[l->owner];
	if (l->nr_sharers && !(l->nr_sharers == 1 && is_sharer(l, c->id)))
		return sharer_for(l, c, kind != VT_READ);
	return NULL;
}

/*
 * A transfer of @l to @c from @from (NULL: from memory, or with a memory
 * hierarchy, from wherever @c's caches have it): its latency, counted.
 */
static vt_ps vt_transfer(struct vt_cpu *c, const struct vt_cpu *from, struct vt_line *l)
{
	vt_ps lat;

	if (!from && vt.h)
		lat = vt_hier_fetch(c, l);
	else
		lat = from ? vt_lat(c, from) : vt.cost[VT_C_MEM];
	if (!lat)
		return 0;
	vt.acc.st.transfers++;
	if (from && from->socket != c->socket)
		vt.acc.st.remote_transfers++;
	if (from && vt.h && from->core != c->core) {
		vt.acc.st.l1_miss++;
		vt.acc.st.l2_miss++;
		if (from->l3 != c->l3) {
			vt.acc.st.l3_miss++;
			vt.acc.st.xdomain++;
		}
	}
	vt.acc.transfer_ps += lat;
	return lat;
}

/*
 * @c's transfer of @l starts at @start: the holders lose the line when its
 * snoop reaches them, line.window of the way (half-way in every preset).
 */
static void vt_book(struct vt_line *l, struct vt_cpu *c, vt_ps start, vt_ps lat)
{
	l->owner_until = start + lat * vt.window_permille / 1000;
	l->next_owner = c->id;
	c->clock = start + lat;
}

enum vt_req { VT_REQ_DONE, VT_REQ_COMMIT, VT_REQ_QUEUE };

static enum vt_req vt_request(struct vt_line *l, struct vt_cpu *c, int kind)
{
	vt_ps lat;

	if (vt_hit(l, c, kind)) {
		if (vt.h)
			vt_hier_hit(c, l, kind != VT_READ);
		return VT_REQ_DONE;
	}
	if (l->next_owner >= 0)
		return VT_REQ_QUEUE;
	lat = vt_transfer(c, vt_source(l, c, kind), l);
	if (kind == VT_READ && l->owner < 0 && l->nr_sharers) {
		/* a shared copy answers at once, without queueing */
		if (vt.h)
			vt_hier_commit(c, l, false);
		add_sharer(l, c->id);
		c->clock += lat;
		return VT_REQ_DONE;
	}
	if (!lat) {
		vt_commit(l, c, kind);	/* nothing to wait for (a free first touch) */
		return VT_REQ_DONE;
	}
	vt_book(l, c, c->clock, lat);
	return VT_REQ_COMMIT;
}

/* @c's transfer of @l has arrived: the line's new state. */
static void vt_commit(struct vt_line *l, struct vt_cpu *c, int kind)
{
	if (vt.h)
		vt_hier_commit(c, l, kind != VT_READ);
	if (kind == VT_READ) {
		if (l->owner >= 0 && l->owner != c->id) {
			add_sharer(l, l->owner);
			l->owner = -1;
		}
		add_sharer(l, c->id);
	} else {
		l->owner = c->id;
		only_sharer(l, c->id);
	}
	l->next_owner = -1;
}

/*
 * Which queued request of @l gets the line after @holder (line.order):
 * fifo, the oldest; far-first, the oldest from another L3 than the
 * holder's, else the oldest; near-first, the oldest from the holder's L3,
 * else the oldest.  No public source says in what order an interconnect
 * serves many requests for one line, so the order is the machine file's:
 * far-first is a home agent whose probe reaches the owning core as soon
 * as its access completes, ahead of the requests queued inside the L3;
 * near-first is an L3 that serves its own cores before answering the
 * probe.  @prev: the request before the one picked, NULL if it is the
 * first.
 */
static struct vt_cpu **vt_pick(struct vt_line *l, const struct vt_cpu *holder, struct vt_cpu **prev)
{
	bool far = vt.m->line_order == VT_ORDER_FAR_FIRST;
	struct vt_cpu **pp, *p = NULL;

	*prev = NULL;
	if (vt.m->line_order == VT_ORDER_FIFO)
		return &l->queue;
	for (pp = &l->queue; *pp; p = *pp, pp = &(*pp)->next_queued)
		if (((*pp)->l3 != holder->l3) == far) {
			*prev = p;
			return pp;
		}
	return &l->queue;
}

/*
 * @c holds @l now: hand it to the next queued request.  One that needs no
 * transfer any more (a reader still sharing the line) goes on at once, and
 * the next one is granted too.
 */
static void vt_grant(struct vt_line *l, struct vt_cpu *c)
{
	while (l->queue && l->next_owner < 0) {
		struct vt_cpu *prev, **pp = vt_pick(l, c, &prev), *w = *pp;

		*pp = w->next_queued;
		if (l->queue_tail == w)
			l->queue_tail = prev;
		w->queued_until = c->clock;
		w->clock = c->clock;
		w->queued_commit = !vt_hit(l, w, w->queued_kind);
		if (w->queued_commit)
			vt_book(l, w, c->clock, vt_transfer(w, vt_source(l, w, w->queued_kind), l));
		w->blocked = false;
		heap_push(w);
	}
}

/* @c's transfer of @l (access @kind) has arrived: commit it, then serve the queue. */
static void vt_arrive(struct vt_line *l, struct vt_cpu *c, int kind)
{
	vt_commit(l, c, kind);
	if (l->queue)
		vt_grant(l, c);
}

/* @c waits in @l's queue until vt_grant(); true if a transfer was booked for it. */
static bool vt_queue(struct vt_line *l, struct vt_cpu *c, int kind)
{
	vt_ps t0 = c->clock;

	c->queued_kind = kind;
	c->next_queued = NULL;
	if (l->queue_tail)
		l->queue_tail->next_queued = c;
	else
		l->queue = c;
	l->queue_tail = c;
	c->blocked = true;
	vt_switch(c, heap_pop());	/* the CPU the line is in flight to is runnable */
	vt.acc.queued_ps += c->queued_until - t0;
	return c->queued_commit;
}

/* --- the kernel model's side ------------------------------------------------------- */

/*
 * A CPU whose clock has not moved in VT_STUCK_EVENTS events spins in
 * virtual time (a machine whose costs are 0 where the code loops): stop
 * with the reason rather than hang.
 */
#define VT_STUCK_EVENTS	100000000ul

static void vt_check_progress(struct vt_cpu *c)
{
	if (c->clock != c->stuck_clock) {
		c->stuck_clock = c->clock;
		c->stuck_events = 0;
	} else if (++c->stuck_events == VT_STUCK_EVENTS) {
		fprintf(stderr, "mmlab: vt: CPU %d made %lu accesses without its clock moving on %s; "
			"a machine file whose costs are 0 cannot end a run (cost.block, cost.hit > 0)\n",
			c->id, VT_STUCK_EVENTS, vt.m->name);
		exit(2);
	}
}

static void vt_unwait(struct vt_cpu *w)
{
	struct vt_cpu **pp = &w->waiting_on->waiters;

	while (*pp != w)
		pp = &(*pp)->next_line_waiter;
	*pp = w->next_line_waiter;
	w->waiting_on = NULL;
}

/*
 * @c wrote @l: the spinners waiting on it see the change one transfer later
 * (the invalidation, then their re-read), unless their wait ended sooner;
 * a release write (an unlock) also wakes the longest sleeper, as the
 * kernel's exclusive wake-up of a lock's wait queue does.
 */
static void vt_wake_line(struct vt_line *l, struct vt_cpu *c, bool release)
{
	struct vt_cpu **pp = &l->waiters, *w, *sleeper = NULL;

	while ((w = *pp)) {
		if (w->sleeping) {
			if (release)
				sleeper = w;	/* the list is newest first: keep the oldest */
			pp = &w->next_line_waiter;
			continue;
		}
		*pp = w->next_line_waiter;
		w->waiting_on = NULL;
		if (c->clock + vt_lat(c, w) < w->clock) {
			w->clock = c->clock + vt_lat(c, w);
			heap_decrease(w);
		}
	}
	if (sleeper) {
		vt_unwait(sleeper);
		if (c->clock + vt_lat(c, sleeper) < sleeper->clock) {
			sleeper->clock = c->clock + vt_lat(c, sleeper);
			heap_decrease(sleeper);
		}
	}
}

void vt_access(const volatile void *p, int kind)
{
	struct vt_cpu *c = vt.cur;
	struct vt_line *l;
	unsigned int gen;
	enum vt_req r;

	if (!c)
		return;		/* outside a run: boot and set-up cost nothing */
	vt_charge_code(c);
	if (vt.h && (kind & 3) == VT_RMW)
		vt_hier_serialise(c);
	vt_sched(c);
	vt_check_progress(c);
	vt.acc.st.events++;
	l = vt_line_of(p);
	r = vt_request(l, c, kind & 3);
	gen = vt.lines_gen;
	if (r == VT_REQ_QUEUE)
		r = vt_queue(l, c, kind & 3) ? VT_REQ_COMMIT : VT_REQ_DONE;
	if (r == VT_REQ_COMMIT)
		vt_sched(c);	/* everyone earlier runs first; the data arrives now */
	if (gen != vt.lines_gen)	/* the table grew while others ran */
		l = vt_line_of(p);
	if (r == VT_REQ_COMMIT)
		vt_arrive(l, c, kind & 3);
	/* the instruction itself, once the line is here */
	c->clock += (kind & 3) == VT_RMW ? vt.cost[VT_C_RMW] : vt.cost[VT_C_HIT];
	c->last_line = l;
	if ((kind & 3) != VT_READ && l->waiters)
		vt_wake_line(l, c, kind & VT_RELEASE);
}

void vt_cas_result(bool ok)
{
	if (vt.cur && !ok)
		vt.acc.st.cas_fail++;
}

/*
 * A poll that found nothing to do (cpu_relax(), cond_resched()).  What a
 * polling loop waits for is a write to the line it just looked at: the
 * waiter sits on its cached copy, making no traffic, until another CPU
 * writes that line (as MONITOR/MWAIT, or a sleeper woken by the writer),
 * and sees the write one transfer later.  A wait whose line stays quiet
 * ends after VT_WAIT_MAX_PS anyway (what it waits for may be elsewhere).
 */
static void vt_wait_on_line(bool sleep)
{
	struct vt_cpu *c = vt.cur, *next;
	struct vt_line *l;
	vt_ps t0;

	if (!c)
		return;
	vt_charge_code(c);
	t0 = c->clock;
	c->clock += vt.cost[VT_C_PAUSE];
	l = c->last_line;
	if (l && l->tag != VT_TAG_GONE) {
		c->clock += sleep ? VT_SLEEP_MAX_PS : VT_WAIT_MAX_PS;
		c->sleeping = sleep;
		c->waiting_on = l;
		c->next_line_waiter = l->waiters;
		l->waiters = c;
	}
	heap_push(c);
	next = heap_pop();
	if (next != c)
		vt_switch(c, next);
	if (c->waiting_on)
		vt_unwait(c);
	vt.acc.poll_ps += c->clock - t0;
	vt_check_stop(c);
}

void vt_wait(void)
{
	vt_wait_on_line(false);
}

/*
 * A sleeping wait (cond_resched(): folio_lock()'s io_schedule()): no
 * polling at all; woken by the next release write of its line, the oldest
 * sleeper first, or after VT_SLEEP_MAX_PS.
 */
void vt_sleep(void)
{
	vt_wait_on_line(true);
}

void vt_delay_ns(unsigned long ns)
{
	struct vt_cpu *c = vt.cur;

	if (!c)
		return;
	vt_charge_code(c);
	c->clock += (vt_ps)ns * 1000;
	vt.acc.delay_ps += (vt_ps)ns * 1000;	/* an agent's is put back when it stops running */
}

/* A clock read sees the code run before it. */
uint64_t vt_now_ns(void)
{
	if (!vt.cur)
		return 0;
	vt_charge_code(vt.cur);
	return vt.cur->clock / 1000;
}

double vt_clock_ns(void)
{
	if (!vt.cur)
		return 0;
	vt_charge_code(vt.cur);
	return vt.cur->clock / 1000.0;
}

/*
 * Spinlocks are the kernel's queued spinlock in virtual time: one RMW on
 * the lock word takes a free lock; a CPU that finds it held joins the
 * lock's FIFO and stops running; unlock hands the lock to the first waiter
 * directly (the lock word stays locked), which resumes one line transfer
 * after the unlock, as an MCS hand-off does.
 */
static struct vt_lockq *vt_lockq_find(int *lock, bool create)
{
	struct vt_lockq *free_q = NULL;

	for (int i = 0; i < VT_MAX_LOCKQ; i++) {
		if (vt.lockq[i].lock == lock)
			return &vt.lockq[i];
		if (!vt.lockq[i].lock && !free_q)
			free_q = &vt.lockq[i];
	}
	if (!create)
		return NULL;
	if (!free_q) {
		fprintf(stderr, "mmlab: vt: more than %d contended spinlocks at once\n", VT_MAX_LOCKQ);
		abort();
	}
	free_q->lock = lock;
	return free_q;
}

bool vt_spin_trylock(int *lock)
{
	if (!vt.cur) {
		if (*lock)
			return false;
		*lock = 1;
		return true;
	}
	vt_access(lock, VT_RMW);
	if (*lock) {
		vt.acc.st.cas_fail++;
		return false;
	}
	*lock = 1;
	vt.acc.st.lock_acquires++;
	return true;
}

void vt_spin_lock(int *lock)
{
	struct vt_cpu *c = vt.cur;
	struct vt_lockq *q;
	vt_ps t0;

	if (!c) {
		*lock = 1;
		return;
	}
	vt_access(lock, VT_RMW);
	vt.acc.st.lock_acquires++;
	if (!*lock) {
		*lock = 1;
		return;
	}
	q = vt_lockq_find(lock, true);
	c->next_waiter = NULL;
	if (q->tail)
		q->tail->next_waiter = c;
	else
		q->head = c;
	q->tail = c;
	c->blocked = true;
	t0 = c->clock;
	if (!vt.nheap) {
		fprintf(stderr, "mmlab: vt: CPU %d waits for a spinlock no running CPU holds\n", c->id);
		abort();
	}
	vt_switch(c, heap_pop());
	/* Handed over by vt_spin_unlock(): the lock is ours, the clock set. */
	vt.acc.lock_wait_ps += c->clock - t0;
	if (c->queued_commit)
		vt_arrive(vt_line_of(lock), c, VT_RMW);
}

void vt_spin_unlock(int *lock)
{
	struct vt_cpu *c = vt.cur, *w;
	vt_ps t;
	struct vt_lockq *q;
	struct vt_line *l;

	if (!c) {
		*lock = 0;
		return;
	}
	vt_access(lock, VT_WRITE);
	q = vt_lockq_find(lock, false);
	if (!q || !q->head) {
		*lock = 0;
		return;
	}
	w = q->head;
	q->head = w->next_waiter;
	if (!q->head) {
		q->tail = NULL;
		q->lock = NULL;
	}
	/*
	 * The queue's head spins reading the lock word: it sees the unlock one
	 * line transfer later (its read served by the unlocker), then sets the
	 * locked byte (qspinlock's set_locked(), or the cmpxchg of the last
	 * waiter), a write to a line the unlocker still shares: a second
	 * transfer, of ownership, on its critical path.  It owns the line then
	 * (vt_spin_lock() commits it), unless another request of the line is
	 * already in flight: that one takes it from the lock's owner.
	 */
	l = vt_line_of(lock);
	t = vt_transfer(w, c, l);
	t += vt_transfer(w, c, l);
	w->queued_commit = l->next_owner < 0;
	if (w->queued_commit)
		vt_book(l, w, c->clock, t);
	else
		w->clock = c->clock + t;
	vt.acc.st.lock_handoffs++;
	w->blocked = false;
	heap_push(w);
}

/*
 * RCU: a read-side section is a nesting count per virtual CPU.  A grace
 * period waits (polling, in virtual time) until every CPU that was inside
 * a section when it started has left it once.
 */
void vt_rcu_read_lock(void)
{
	if (vt.cur)
		vt.cur->rcu_nesting++;
}

void vt_rcu_read_unlock(void)
{
	if (vt.cur && !--vt.cur->rcu_nesting)
		vt.cur->rcu_exits++;
}

void vt_synchronize_rcu(void)
{
	if (!vt.cur)
		return;
	for (int i = 0; i < vt.n; i++) {
		struct vt_cpu *o = &vt.cpus[i];
		unsigned long exits = o->rcu_exits;

		if (o == vt.cur)
			continue;
		while (o->rcu_nesting && o->rcu_exits == exits && !o->done)
			vt_wait();
	}
}

int vt_set_nr_cpus(int nr_cpus)
{
	if (nr_cpus < 1 || nr_cpus > VT_MAX_CPUS)
		return -1;
	nr_cpu_ids = nr_cpus;
	vt_alloc_reset();
	return 0;
}

/* --- a run ------------------------------------------------------------------------ */

/* The two hardware threads of each core of @m among the run's first @n CPUs. */
static void vt_pair_siblings(const struct vt_machine *m, int n)
{
	int cores = m->sockets * m->l3_per_socket * m->cores_per_l3;

	for (int i = cores; i < n; i++) {
		vt.cpus[i].sibling = &vt.cpus[i - cores];
		vt.cpus[i - cores].sibling = &vt.cpus[i];
	}
}

int vt_run(const struct vt_machine *m, int n, vt_thread_fn fn, void *const *args,
	   int *stop, double stop_ns, struct vt_stats *stats)
{
	int ret = 0;

	if (n < 1 || n > m->nr_cpus || n + vt.nr_agents > VT_MAX_CPUS) {
		fprintf(stderr, "mmlab: vt: %d CPUs asked of %s, which has %d\n", n, m->name, m->nr_cpus);
		return -1;
	}
	if (vt.cur) {
		fprintf(stderr, "mmlab: vt: vt_run() inside a run\n");
		return -1;
	}
	memset(&vt.acc, 0, sizeof(vt.acc));
	memset(&vt.windows, 0, sizeof(vt.windows));
	vt.nr_windows = 0;
	vt.window_open = false;
	vt.windows_ps = 0;
	memset(vt.span_ps, 0, sizeof(vt.span_ps));
	memset(vt.window_span_ps, 0, sizeof(vt.window_span_ps));
	vt.m = m;
	for (int d = 0; d < VT_NR_DIST; d++)
		vt.lat[d] = ns_to_ps(m->lat_ns[d]);
	for (int k = 0; k < VT_NR_COST; k++)
		vt.cost[k] = ns_to_ps(m->cost_ns[k]);
	vt.window_permille = (vt_ps)llround(m->line_window * 1000);
	vt.n = n + vt.nr_agents;
	vt.cpus = calloc(vt.n, sizeof(*vt.cpus));
	vt.heap = calloc(vt.n, sizeof(*vt.heap));
	/* Every run starts with a small table of fresh zero pages: no memset of a grown one. */
	if (vt.lines)
		munmap(vt.lines, vt_lines_bytes(vt.lines_bits));
	vt.lines_bits = VT_LINES_BITS_MIN;
	vt.lines = vt_lines_map(vt.lines_bits);
	vt.tags = vt.lines ? vt_lines_tags(vt.lines, vt.lines_bits) : NULL;
	if (!vt.cpus || !vt.heap || !vt.lines) {
		fprintf(stderr, "mmlab: vt: out of memory\n");
		free(vt.cpus);
		free(vt.heap);
		return -1;
	}
	memset(vt.lockq, 0, sizeof(vt.lockq));
	vt.nr_lines = 0;
	vt.nr_gone = 0;
	vt.nheap = 0;
	vt.stop = stop;
	vt.stop_at = ns_to_ps(stop_ns);
	vt.stop_ps = 0;
	for (int i = 0; i < vt.n; i++) {
		struct vt_cpu *c = &vt.cpus[i];

		c->id = i;
		if (i < n) {
			c->fn = fn;
			c->arg = args[i];
		} else {
			c->agent = true;
			c->fn = vt_agent_main;
			c->arg = &vt.agents[i - n];
		}
		/* An agent sits where its interrupts would land: the machine's last CPU. */
		vt_place(m, i < n ? i : m->nr_cpus - 1, &c->socket, &c->l3, &c->core);
		c->stack = mmap(NULL, VT_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (c->stack == MAP_FAILED) {
			fprintf(stderr, "mmlab: vt: cannot map a stack: %s\n", strerror(errno));
			c->stack = NULL;
			ret = -1;
			goto out;
		}
		vt_cpu_init_ctx(c);
		if (i)
			heap_push(c);
	}
	vt_pair_siblings(m, n);
	if (vt_hier_start(m)) {
		fprintf(stderr, "mmlab: vt: out of memory for %s's caches\n", m->name);
		ret = -1;
		goto out;
	}
	vt.live = n;
	vt.saved_cpu_number = cpu_number;
	vt_switch(NULL, &vt.cpus[0]);
	/* Back here when every CPU has finished. */
	if (vt.live) {
		fprintf(stderr, "mmlab: vt: %d CPUs could not finish\n", vt.live);
		ret = -1;
	}
	if (vt.nr_windows) {
		/* The code marked what it times: report that alone. */
		vt.windows.st.stop_ns = 0;
		vt.windows.st.end_ns = vt.windows.st.cpu_ns = vt.windows_ps / 1000.0;
		vt.acc = vt.windows;
	}
	vt.acc.st.stop_ns = vt.stop_ps / 1000.0;
	vt.acc.st.transfer_ns = vt.acc.transfer_ps / 1000.0;
	vt.acc.st.queued_ns = vt.acc.queued_ps / 1000.0;
	vt.acc.st.lock_wait_ns = vt.acc.lock_wait_ps / 1000.0;
	vt.acc.st.poll_ns = vt.acc.poll_ps / 1000.0;
	vt.acc.st.delay_ns = vt.acc.delay_ps / 1000.0;
	vt.acc.st.code_ns = vt.acc.code_ps / 1000.0;
	vt.acc.st.mem_ns = vt.acc.mem_ps / 1000.0;
	vt.acc.st.hier = m->hier;
	for (int k = 0; k < VT_NR_SPANS; k++)
		vt.acc.st.span_ns[k] = (vt.nr_windows ? vt.window_span_ps[k] : vt.span_ps[k]) / 1000.0;
	if (stats)
		*stats = vt.acc.st;
out:
	vt_hier_stop();
	for (int i = 0; i < vt.n; i++)
		if (vt.cpus[i].stack)
			munmap(vt.cpus[i].stack, VT_STACK);
	/* An agent still waiting is abandoned with its stack; its kthread_stop() returns 0. */
	for (int i = 0; i < vt.nr_agents; i++)
		vt.agents[i].ran = true;
	free(vt.cpus);
	free(vt.heap);
	vt.cpus = NULL;
	vt.heap = NULL;
	vt.cur = NULL;
	cpu_number = vt.saved_cpu_number;
	return ret;
}

/* --- timed windows ---------------------------------------------------------------------- */

/* @sum += @now - @then, count by count. */
static void vt_counts_add_delta(struct vt_counts *sum, const struct vt_counts *now,
				const struct vt_counts *then)
{
#define ADD(f)	(sum->f += now->f - then->f)
	ADD(st.events); ADD(st.blocks); ADD(st.transfers); ADD(st.remote_transfers);
	ADD(st.cas_fail); ADD(st.lock_acquires); ADD(st.lock_handoffs);
	ADD(transfer_ps); ADD(queued_ps); ADD(lock_wait_ps); ADD(poll_ps); ADD(delay_ps); ADD(code_ps);
	ADD(st.l1_miss); ADD(st.l2_miss); ADD(st.l3_miss); ADD(st.xdomain); ADD(st.mem_local);
	ADD(st.mem_remote); ADD(st.prefetches); ADD(mem_ps);
#undef ADD
}

void vt_window_begin(void)
{
	struct vt_cpu *c = vt.cur;

	if (!c || vt.window_open)
		return;
	vt_charge_code(c);
	vt.window_open = true;
	vt.window_start = vt.acc;
	vt.window_clock = c->clock;
}

void vt_window_end(void)
{
	struct vt_cpu *c = vt.cur;

	if (!c || !vt.window_open)
		return;
	vt_charge_code(c);
	vt.window_open = false;
	vt_counts_add_delta(&vt.windows, &vt.acc, &vt.window_start);
	vt.windows_ps += c->clock - vt.window_clock;
	vt.nr_windows++;
}

/* --- kthreads: agents of the next run ---------------------------------------------------- */

static void vt_agent_main(void *arg)
{
	struct vt_agent *a = arg;

	a->ret = a->fn(a->data);
}

struct task_struct *vt_kthread_run(int (*fn)(void *data), void *data)
{
	struct vt_agent *a;

	if (vt.cur || vt.nr_agents == VT_MAX_AGENTS)
		return NULL;
	a = &vt.agents[vt.nr_agents++];
	*a = (struct vt_agent){ .fn = fn, .data = data };
	return (struct task_struct *)a;
}

int vt_kthread_stop(struct task_struct *k)
{
	struct vt_agent *a = (struct vt_agent *)k;
	bool all = true;

	a->stopped = true;
	for (int i = 0; i < vt.nr_agents; i++)
		all &= vt.agents[i].stopped;
	if (all)
		vt.nr_agents = 0;
	return a->ret;
}

/* wait_var_value() in a run: sleep on @var's line until its value is not @seq. */
void vt_wait_var_value(unsigned int *var, unsigned int seq)
{
	while (vt.cur) {
		vt_access(var, VT_READ);
		if (__atomic_load_n(var, __ATOMIC_ACQUIRE) != seq)
			return;
		vt_sleep();
	}
}
