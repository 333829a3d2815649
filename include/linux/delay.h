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

static inline void __delay(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		__asm__ __volatile__("" : : "r"(i) : "memory");
}

void ndelay(unsigned long nsecs);

static inline void udelay(unsigned long usecs)
{
	ndelay(usecs * 1000);
}

#endif
