/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel threads: agents of the model that are not its CPUs (the block
 * device's completion side).  A kthread has no smp_processor_id(): it must
 * not touch per-CPU state (vm events, pcp lists, LRU batches).
 */
#ifndef _LINUX_KTHREAD_H
#define _LINUX_KTHREAD_H

struct task_struct;

#include <machine/machine.h>

#ifdef MMLAB_VT

/* Virtual time: the thread is an agent of the next run (machine/machine.h). */
static inline struct task_struct *kthread_run(int (*threadfn)(void *data), void *data,
					      const char *name)
{
	(void)name;
	return vt_kthread_run(threadfn, data);
}

static inline int kthread_stop(struct task_struct *k)
{
	return vt_kthread_stop(k);
}
#else
/* Start @threadfn(@data) on a thread of its own; NULL if it cannot start. */
struct task_struct *kthread_run(int (*threadfn)(void *data), void *data, const char *name);

/* Wait for the thread to return (it must be told to by its own means); its value. */
int kthread_stop(struct task_struct *k);
#endif

#endif
