/*
 * A calibrated busy loop: the model's stand-in for work outside the code
 * under study (for example the rest of a system call around the page-cache
 * part of pread(2)).  The same inline loop is used to calibrate and to
 * spend, so loops-per-nanosecond measured by the lab holds inside a
 * kernel build.
 */
#ifndef MMLAB_SPIN_H
#define MMLAB_SPIN_H

static inline void spin_loops(unsigned long loops)
{
	for (unsigned long i = 0; i < loops; i++)
		__asm__ __volatile__("" : : "r"(i) : "memory");
}

/* Loops of spin_loops() per nanosecond on this host (src/lab/cpu.c). */
double spin_loops_per_ns(void);

#endif
