/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smp_processor_id(): the model's CPUs are the machine's threads, each with
 * its id in cpu_number (set by the machine's thread launcher).
 */
#ifndef _LINUX_SMP_H
#define _LINUX_SMP_H

#include <linux/cpumask.h>

extern __thread int cpu_number;

static inline int smp_processor_id(void)
{
	return cpu_number;
}

#endif
