/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Busy waits: the model's stand-in for work it does not simulate (the rest
 * of a system call around its page-cache part, a TLB flush's IPIs, a
 * device's latency).  __delay() spins a number of loops; ndelay() converts
 * nanoseconds with the machine's calibration (delay_loops_per_ns(), made
 * with this same loop, so a calibration holds inside any build).
 */
#ifndef _LINUX_DELAY_H
#define _LINUX_DELAY_H

#include <machine/machine.h>

#ifdef MMLAB_VT
/*
 * The virtual-time flavour: a busy wait is virtual time, one loop one
 * nanosecond (the runner passes nanoseconds as loops there).
 */
static inline void __delay(unsigned long loops)
{
	vt_delay_ns(loops);
}

static inline void ndelay(unsigned long nsecs)
{
	vt_delay_ns(nsecs);
}

/*
 * Work the CPU hands off and does not wait for (an arm64 broadcast TLBI):
 * the items complete one after another beside the CPU's code, which waits
 * only to hand off the next while one is in flight, and in
 * delay_async_wait() (the DSB).
 */
static inline void __delay_async(unsigned long loops)
{
	vt_async_ns(loops);
}

static inline void delay_async_wait(void)
{
	vt_async_wait();
}
#else
static inline void __delay(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		__asm__ __volatile__("" : : "r"(i) : "memory");
}

void ndelay(unsigned long nsecs);

/* On the host the work is this CPU's: it spins for it at once. */
static inline void __delay_async(unsigned long loops)
{
	__delay(loops);
}

static inline void delay_async_wait(void)
{
}
#endif

static inline void udelay(unsigned long usecs)
{
	ndelay(usecs * 1000);
}

#endif
