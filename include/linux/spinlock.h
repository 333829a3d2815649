/* SPDX-License-Identifier: GPL-2.0 */
/*
 * spinlock_t for a userspace model.
 *
 * In the kernel a spinlock holder runs with preemption disabled, so
 * spinning waiters only ever wait for a running CPU.  Here a holder is an
 * ordinary thread the host scheduler may deschedule, and with more threads
 * than processors a pure spinning lock can make no progress at all for a
 * whole time slice (a plain ticket lock was seen stuck for minutes with two
 * threads on one CPU).  So waiters spin a bounded number of times, then
 * sched_yield() between attempts.  The fast path (uncontended acquire and
 * release) is the kernel's: one acquire RMW, one release store.
 */
#ifndef _LINUX_SPINLOCK_H
#define _LINUX_SPINLOCK_H

#include <linux/atomic.h>

typedef struct {
	atomic_t locked;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name)	{ ATOMIC_INIT(0) }
#define DEFINE_SPINLOCK(x)		spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

/* How many polls a waiter makes before it starts yielding the CPU. */
#define SPIN_BEFORE_YIELD	128

static inline void spin_lock_init(spinlock_t *lock)
{
	atomic_set(&lock->locked, 0);
}

#ifdef MMLAB_VT
/*
 * The virtual-time flavour: the kernel's queued spinlock, FIFO with a
 * direct hand-off to the first waiter, run by the machine in virtual time
 * (src/machine/vt_sync.c).
 */
static inline bool spin_trylock(spinlock_t *lock)
{
	return vt_spin_trylock(&lock->locked.counter);
}

static inline void spin_lock(spinlock_t *lock)
{
	vt_spin_lock(&lock->locked.counter);
}

static inline void spin_unlock(spinlock_t *lock)
{
	vt_spin_unlock(&lock->locked.counter);
}
#else
static inline bool spin_trylock(spinlock_t *lock)
{
	int unlocked = 0;

	return atomic_try_cmpxchg_acquire(&lock->locked, &unlocked, 1);
}

void spin_lock_slowpath(spinlock_t *lock);

static inline void spin_lock(spinlock_t *lock)
{
	if (likely(spin_trylock(lock)))
		return;
	spin_lock_slowpath(lock);
}

static inline void spin_unlock(spinlock_t *lock)
{
	atomic_set_release(&lock->locked, 0);
}
#endif

static inline bool spin_is_locked(spinlock_t *lock)
{
	return atomic_read(&lock->locked) != 0;
}

/* No interrupts in the model: the _irq forms are the plain ones. */
#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { (void)(f); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)

#endif
