// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time machine's coherence model (see include/machine/vt.h and
 * docs/design/virtual-time.md): the line table, which CPU owns or
 * shares each 64-byte line, what a transfer of one costs and the order a
 * line serves its requests in; and vt_access(), where every shared-memory
 * event of the kernel model enters the machine.  The memory hierarchy
 * under it is vt_cache.c.
 *
 * vt_access() and everything it calls on a hit or a miss are in this file
 * or inline in vt_int.h: the simulator's hot path is one translation unit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <machine/vt.h>

#include "vt_int.h"

/* --- the coherence model ------------------------------------------------------------ */

static void vt_commit(struct vt_line *l, struct vt_cpu *c, int kind);

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

size_t vt_lines_bytes(unsigned int bits)
{
	return (sizeof(struct vt_line) + sizeof(uintptr_t)) << bits;
}

/* A zeroed table of 1 << @bits slots (its tags after the lines), or NULL. */
struct vt_line *vt_lines_map(unsigned int bits)
{
	void *p = mmap(NULL, vt_lines_bytes(bits), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

uintptr_t *vt_lines_tags(struct vt_line *lines, unsigned int bits)
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
vt_ps vt_transfer(struct vt_cpu *c, const struct vt_cpu *from, struct vt_line *l)
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
		c->l1_misses++;
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
void vt_book(struct vt_line *l, struct vt_cpu *c, vt_ps start, vt_ps lat)
{
	l->owner_until = start + lat * vt.window_permille / 1000;
	l->next_owner = c->id;
	c->clock = start + lat;
}

/* HIT: served from the line @c already holds; DONE: served without waiting otherwise. */
enum vt_req { VT_REQ_HIT, VT_REQ_DONE, VT_REQ_COMMIT, VT_REQ_QUEUE };

static enum vt_req vt_request(struct vt_line *l, struct vt_cpu *c, int kind)
{
	vt_ps lat;

	if (vt_hit(l, c, kind)) {
		if (vt.h)
			vt_hier_hit(c, l, kind != VT_READ);
		return VT_REQ_HIT;
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
void vt_arrive(struct vt_line *l, struct vt_cpu *c, int kind)
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

void vt_unwait(struct vt_cpu *w)
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
/*
 * How long after @c's release write @sleeper runs: the machine's sched.wake
 * (its idle CPU woken, the exit from the idle state, the switch to the
 * task), at least the transfer that shows it the write.  An agent (the
 * block device) is hardware watching its doorbell: the transfer alone.
 */
static vt_ps vt_wake_lat(const struct vt_cpu *c, const struct vt_cpu *sleeper)
{
	vt_ps lat = vt_lat(c, sleeper);

	return !sleeper->agent && vt.wake > lat ? vt.wake : lat;
}

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
		vt_ps lat = vt_wake_lat(c, sleeper);

		vt_unwait(sleeper);
		if (c->clock + lat < sleeper->clock) {
			sleeper->clock = c->clock + lat;
			heap_decrease(sleeper);
		}
	}
}

/*
 * Fast-forwarding (vt_fast_forward(): one CPU, nothing to schedule, no
 * cache): the line's page is numbered and a locked RMW charged its
 * instruction (a marked load or store, like a plain one, nothing: the
 * machine has a hierarchy); the line table, which would be emptied when the
 * fast-forward ends, is left alone, and no CPU can be waiting on a line
 * this one writes.
 */
static void vt_access_ff(struct vt_cpu *c, const volatile void *p, int kind)
{
	vt_hier_ff_touch((uintptr_t)p, 1);
	c->last_line = NULL;
	if ((kind & 3) == VT_RMW) {
		c->clock += vt.cost[VT_C_RMW];
		vt.acc.rmw_ps += vt.cost[VT_C_RMW];
	}
}

static void vt_access_one(struct vt_cpu *c, const volatile void *p, int kind);

void vt_access(const volatile void *p, int kind)
{
	struct vt_cpu *c = vt.cur;
	unsigned long before;

	if (!c)
		return;		/* outside a run: boot and set-up cost nothing */
	if (vt.ff_h) {
		vt_access_ff(c, p, kind);
		return;
	}
	if ((kind & 3) == VT_RMW && vt_prof_on(VT_PROF_RMW))
		vt_prof_hit((uintptr_t)__builtin_return_address(0), vt.window_open);
	if (!vt_prof_accesses(c)) {
		vt_access_one(c, p, kind);
		return;
	}
	before = vt_prof_begin(c);
	vt_access_one(c, p, kind);
	vt_prof_end(c, __builtin_return_address(0), before);
}

static void vt_access_one(struct vt_cpu *c, const volatile void *p, int kind)
{
	struct vt_line *l;
	unsigned int gen;
	enum vt_req r;

	vt_charge_code(c);
	if ((kind & 3) == VT_RMW) {
		vt_rmw_drain(c);	/* one locked RMW at a time */
		vt_sb_drain(c);		/* a locked RMW drains the store buffer */
		if (vt.h && vt.m->rmw_drain)
			vt_hier_serialise(c);
	}
	vt_sched(c);
	vt_check_progress(c);
	vt.acc.st.events++;
	if ((kind & 3) == VT_WRITE && vt.h && vt_hier_store(c, p))
		return;
	if ((kind & 3) == VT_READ && (kind & VT_LOAD) && vt.h && vt_hier_load(c, p, kind))
		return;
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
	/*
	 * The instruction itself, once the line is here.  With the hierarchy a
	 * marked load or store costs what a plain one does: its block and, if
	 * the line was not here, its latency.
	 */
	if ((kind & 3) != VT_RMW) {
		if (!vt.h) {
			c->clock += vt.cost[VT_C_HIT];
			vt.acc.rmw_ps += vt.cost[VT_C_HIT];	/* the coherence model's own hit */
		}
	} else if (r == VT_REQ_HIT && vt.rmw_beside) {
		c->rmw_free = c->clock + vt.cost[VT_C_RMW];
	} else {
		c->clock += vt.cost[VT_C_RMW];
		vt.acc.rmw_ps += vt.cost[VT_C_RMW];
		/* rmw.overlap SHARE: that share of the code up to the next event ran under it. */
		if (r == VT_REQ_HIT && vt.rmw_share > 0)
			c->rmw_shadow = vt.cost[VT_C_RMW];
	}
	if (vt.h && c->pf_pending) {
		gen = vt.lines_gen;
		vt_hier_train(c);
		if (gen != vt.lines_gen)
			l = vt_line_of(p);
	}
	c->last_line = l;
	if ((kind & 3) != VT_READ && l->waiters)
		vt_wake_line(l, c, kind & VT_RELEASE);
}

void vt_cas_result(bool ok)
{
	if (vt.cur && !ok)
		vt.acc.st.cas_fail++;
}
