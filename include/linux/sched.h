/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_H
#define _LINUX_SCHED_H

#include <machine/machine.h>

/*
 * Give the processor to another runnable thread.  The model's sleeping
 * waits (folio_lock's io_schedule, a contended spinlock that has polled
 * long enough) end up here: CPUs may outnumber host processors, and the
 * holder may be waiting for this one.
 */
#ifdef MMLAB_VT
/*
 * The virtual-time flavour: a sleeping wait, woken by the next unlock
 * (release write) of the line it waited on, one sleeper at a time.
 */
static inline void cond_resched(void)
{
	vt_sleep();
}

#else
static inline void cond_resched(void)
{
	machine_wait();
}
#endif

#endif
