/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's CPU count.  nr_cpu_ids is the machine's (src/machine/):
 * set before the kernel model boots, so per-CPU sizing sees the final
 * value.
 */
#ifndef _LINUX_CPUMASK_H
#define _LINUX_CPUMASK_H

#ifdef MMLAB_VT
/* Simulated machines are larger than hosts: machine/vt.h's VT_MAX_CPUS. */
#define NR_CPUS	512
#else
#define NR_CPUS	256
#endif

extern int nr_cpu_ids;

#endif
