/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sleeping on a variable: the model's wait_var_event()/wake_up_var() pair,
 * reduced to a word that changes on every wake-up (a host futex).
 *
 *	seq = READ_ONCE(*var);		 waker: publish the work,
 *	(recheck the condition)		 smp_mb(), bump *var,
 *	wait_var_value(var, seq);	 wake_up_var(var)
 *
 * wait_var_value() returns at once if *var no longer holds @seq, so a wake
 * between the sample and the sleep is not lost.  It may also return early.
 */
#ifndef _LINUX_WAIT_BIT_H
#define _LINUX_WAIT_BIT_H

#include <machine/machine.h>

#ifdef MMLAB_VT

/* Virtual time: a sleep on the variable's line, which the waker's bump (a write) wakes. */
static inline void wait_var_value(unsigned int *var, unsigned int seq)
{
	vt_wait_var_value(var, seq);
}

static inline void wake_up_var(unsigned int *var)
{
	(void)var;
}
#else
void wait_var_value(unsigned int *var, unsigned int seq);
void wake_up_var(unsigned int *var);
#endif

#endif
