/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two points where the kernel model hands control to the machine.
 *
 *  machine_step()   before every shared-memory event the shims make (an
 *                   atomic, a lock operation): the interleaving checker
 *                   chooses there which CPU runs next.
 *  machine_wait()   the CPU cannot make progress until another one takes
 *                   a step (it polls a lock, a bit, a flag): the host
 *                   yields its processor, the checker parks the thread
 *                   until another thread has run.
 *
 * The kernel model calls these only through the kernel-named wrappers
 * (atomic.h, cpu_relax(), schedule()).
 */
#ifndef MACHINE_YIELD_H
#define MACHINE_YIELD_H

#include <stdbool.h>

#ifdef MMLAB_CHECKER

void checker_sched_point(void);
void checker_spin_wait(void);

/*
 * The shims' memory operations (size 4 or 8, values sign-extended, orders
 * as __ATOMIC_*).  Outside the checker's weak-memory mode they are the
 * plain builtins; inside it they go through its model of views, so that a
 * load may read an older value unless an ordering forbids it.
 */
enum { MACHINE_RMW_ADD, MACHINE_RMW_XCHG, MACHINE_RMW_OR, MACHINE_RMW_AND, MACHINE_RMW_XOR };
long long checker_wm_load(const void *p, int size, int order);
void checker_wm_store(void *p, int size, long long v, int order);
long long checker_wm_rmw(void *p, int size, int op, long long arg, int order);
bool checker_wm_cmpxchg(void *p, int size, long long *expected, long long v,
			int order, int fail_order);
void checker_wm_fence(int order);

static inline void machine_step(void)
{
	checker_sched_point();
}

static inline void machine_wait(void)
{
	checker_spin_wait();
}

#elif defined(MMLAB_VT)

/*
 * The virtual-time machine: the events themselves are charged where the
 * shims touch memory (machine/vt_hooks.h), so a step is nothing more; a
 * wait lets the other virtual CPUs run first.
 */
void vt_wait(void);

static inline void machine_step(void)
{
}

static inline void machine_wait(void)
{
	vt_wait();
}

#else

#include <sched.h>

static inline void machine_step(void)
{
}

static inline void machine_wait(void)
{
	sched_yield();
}

#endif

#endif
