/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <machine/machine.h>
#include <mmlab/kernel.h>	/* enum preempt_model */

/*
 * schedule(): give the processor away until another CPU's write lets this
 * one go on.  The model's sleeping waits end up here (folio_lock()'s
 * io_schedule(), a full blk-mq tag queue, a contended host spinlock that
 * has polled long enough): CPUs may outnumber host processors, and the
 * holder may be waiting for this one.
 */
#ifdef MMLAB_VT
/*
 * The virtual-time flavour: a sleeping wait, woken by the next unlock
 * (release write) of the line it waited on, one sleeper at a time.
 */
static inline void schedule(void)
{
	vt_sleep();
}

#else
static inline void schedule(void)
{
	machine_wait();
}
#endif

static inline void io_schedule(void)
{
	schedule();
}

/* Set by the lab before mem_init(), like a boot parameter; voluntary unless told. */
extern int preempt_model;

int __cond_resched(void);

/*
 * A voluntary preemption point on a long kernel loop (vfree()'s page loop,
 * each VMA of an rmap walk, each folio of shrink_folio_list()).  Nothing
 * else runs on a lab CPU, so it never schedules: it costs its checks.
 */
static inline int cond_resched(void)
{
	return __cond_resched();
}

#endif
