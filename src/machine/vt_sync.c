// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time machine's synchronisation (see include/machine/vt.h and
 * docs/design/virtual-time.md): polling and sleeping waits on a line,
 * spinlocks as queued spinlocks, RCU's read-side sections and grace
 * periods, and wait_var_value() in a run.
 */
#include <stdio.h>
#include <stdlib.h>

#include <machine/vt.h>

#include "vt_int.h"

/* --- waits ------------------------------------------------------------------------- */

/*
 * A poll that found nothing to do (cpu_relax(), schedule()).  What a
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
	vt_rmw_drain(c);
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
 * A sleeping wait (schedule(): folio_lock()'s io_schedule()): no
 * polling at all; woken by the next release write of its line, the oldest
 * sleeper first, or after VT_SLEEP_MAX_PS.
 */
void vt_sleep(void)
{
	vt_wait_on_line(true);
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
	vt.nr_lockq++;
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
	q = vt.nr_lockq ? vt_lockq_find(lock, false) : NULL;
	if (!q || !q->head) {
		*lock = 0;
		return;
	}
	w = q->head;
	q->head = w->next_waiter;
	if (!q->head) {
		q->tail = NULL;
		q->lock = NULL;
		vt.nr_lockq--;
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

void vt_wait_var_value(unsigned int *var, unsigned int seq)
{
	while (vt.cur) {
		vt_access(var, VT_READ);
		if (__atomic_load_n(var, __ATOMIC_ACQUIRE) != seq)
			return;
		vt_sleep();
	}
}
