/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "CPUs" of the model are worker threads, each pinned to a host processor
 * when there are enough.  smp_processor_id() is the worker's CPU id, set by
 * the lab's thread launcher (src/lab/cpu.c).
 */
#ifndef _LINUX_SMP_H
#define _LINUX_SMP_H

#define NR_CPUS	256

extern __thread int mmlab_cpu_id;
extern int nr_cpu_ids;

static inline int smp_processor_id(void)
{
	return mmlab_cpu_id;
}

#endif
