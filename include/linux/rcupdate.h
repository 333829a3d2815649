/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RCU for the model, on liburcu's "memb" flavour (read-side critical
 * sections are a thread-local nesting count with compiler barriers; grace
 * periods use membarrier(2)).  Every thread that enters a read-side
 * critical section must be registered: the lab's thread launcher does it.
 *
 * ThreadSanitizer does not see that synchronize_rcu() waits for earlier
 * readers, so it would report the (correct) reuse of memory a reader
 * looked at before the grace period.  Under TSan, each rcu_read_unlock()
 * releases and each grace-period end acquires one shared sync object:
 * exactly the happens-before edge a grace period provides, and no more (a
 * reader still inside its section when the grace period ends has not yet
 * released, so a real race with it is still reported).
 */
#ifndef _LINUX_RCUPDATE_H
#define _LINUX_RCUPDATE_H

#if !defined(__SANITIZE_THREAD__) && !defined(MMLAB_CHECKER) && !defined(MMLAB_VT)
#define _LGPL_SOURCE		/* inline read-side fast paths */
#endif
#include <urcu/urcu-memb.h>
#include <urcu/call-rcu.h>

#include <linux/compiler.h>
#include <stdint.h>
#include <machine/machine.h>

#ifdef __SANITIZE_THREAD__
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
extern char rcu_tsan_grace_period;
#define rcu_tsan_release()	__tsan_release(&rcu_tsan_grace_period)
#define rcu_tsan_acquire()	__tsan_acquire(&rcu_tsan_grace_period)
#else
#define rcu_tsan_release()	do { } while (0)
#define rcu_tsan_acquire()	do { } while (0)
#endif

/*
 * struct rcu_head is liburcu's (urcu/call-rcu.h), which has the kernel's
 * shape: a list link and the callback.
 */

#ifdef MMLAB_VT
/*
 * The virtual-time flavour: every CPU runs on one host thread, so RCU is
 * the machine's (a nesting count per virtual CPU; a grace period waits in
 * virtual time for the CPUs inside a section to leave it), and call_rcu()
 * is a grace period followed by the callback.
 */
static inline void rcu_read_lock(void)
{
	vt_rcu_read_lock();
}

static inline void rcu_read_unlock(void)
{
	vt_rcu_read_unlock();
}

static inline void synchronize_rcu(void)
{
	vt_synchronize_rcu();
}

static inline void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	vt_synchronize_rcu();
	func(head);
}
#else
static inline void rcu_read_lock(void)
{
	urcu_memb_read_lock();
}

static inline void rcu_read_unlock(void)
{
	rcu_tsan_release();
	urcu_memb_read_unlock();
}

static inline void synchronize_rcu(void)
{
	urcu_memb_synchronize_rcu();
	rcu_tsan_acquire();
}

/*
 * call_rcu: liburcu's, which runs @func on its own thread after a grace
 * period.  Under TSan it is a synchronous grace period followed by the
 * callback, so the happens-before edge above covers the callback too.
 * Never call it inside a read-side critical section.
 */
static inline void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
#ifdef __SANITIZE_THREAD__
	synchronize_rcu();
	func(head);
#else
	urcu_memb_call_rcu(head, func);
#endif
}
#endif /* MMLAB_VT */

static inline void rcu_barrier(void)
{
	urcu_memb_barrier();
}

/* liburcu has its own spellings of these two; the kernel's are used here. */
#undef rcu_dereference
#undef rcu_assign_pointer
#ifndef MMLAB_CHECKER
#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_CONSUME)
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#else
/*
 * Under the interleaving checker a lockless reader's load of a published
 * pointer, and the writer's store a reader may see, are steps of their own:
 * the page cache's lookup and removal race on exactly these (check_filemap).
 * The updater's loads under its lock (rcu_dereference_protected) are not.
 * In the checker's weak-memory mode they go through its model (a dependent
 * load, consume, is modelled as acquire).
 */
#define rcu_dereference(p)		\
	({ machine_step(); (__typeof__(p))(intptr_t)checker_wm_load(&(p), sizeof(p), __ATOMIC_ACQUIRE); })
#define rcu_assign_pointer(p, v)	\
	do { machine_step(); checker_wm_store(&(p), sizeof(p), (long long)(intptr_t)(v), __ATOMIC_RELEASE); } while (0)
#define RCU_INIT_POINTER(p, v)		\
	do { machine_step(); checker_wm_store(&(p), sizeof(p), (long long)(intptr_t)(v), __ATOMIC_RELAXED); } while (0)
#endif
#define rcu_dereference_protected(p, c)	READ_ONCE(p)

/* Register / unregister the calling thread as an RCU reader. */
static inline void rcu_register_thread(void)
{
	urcu_memb_register_thread();
}

static inline void rcu_unregister_thread(void)
{
	urcu_memb_unregister_thread();
}

#endif
