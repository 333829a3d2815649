/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_PROCESSOR_H
#define _ASM_PROCESSOR_H

#include <linux/compiler.h>
#include <machine/machine.h>

/*
 * One iteration of a polling loop.  Under the checker, a poll is a step
 * that waits for another thread to move.
 */
static inline void cpu_relax(void)
{
#if defined(MMLAB_CHECKER) || defined(MMLAB_VT)
	machine_wait();
#elif defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	barrier();
#endif
}

#endif
