/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smp_processor_id(): the model's CPUs are the machine's threads, each with
 * its id in cpu_number (set by the machine's thread launcher).
 */
#ifndef _LINUX_SMP_H
#define _LINUX_SMP_H

#include <stdbool.h>

#include <linux/cpumask.h>

extern __thread int cpu_number;

static inline int smp_processor_id(void)
{
	return cpu_number;
}

/*
 * Is a machine thread running as @cpu now?  Where the kernel would run work
 * on another CPU (schedule_work_on()), the model does it from the caller,
 * and only for a CPU that is not running (src/machine/host.c).
 */
bool machine_cpu_running(int cpu);

#endif
