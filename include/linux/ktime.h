/* SPDX-License-Identifier: GPL-2.0 */
/* The machine's monotonic clock, in nanoseconds. */
#ifndef _LINUX_KTIME_H
#define _LINUX_KTIME_H

#include <time.h>

#include <linux/compiler.h>

#ifdef MMLAB_VT
/* The virtual-time flavour: the running virtual CPU's clock. */
static inline u64 ktime_get_ns(void)
{
	return vt_now_ns();
}
#else
static inline u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
#endif

#endif
