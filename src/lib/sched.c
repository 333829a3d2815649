// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/sched/core.c's __cond_resched() and kernel/rcu/tree_plugin.h's
 * rcu_all_qs(), as a kernel without PREEMPT_RCU runs them at every
 * cond_resched(): is a reschedule due (the per-CPU preempt count, with
 * x86's inverted need-resched bit folded in), and does RCU urgently want a
 * quiescent state from this CPU?  No lab CPU runs anything else and no
 * grace period here waits on the tick, so both answers are always no and
 * the call costs exactly its two loads, its branches and its returns.
 */
#include <stdbool.h>

#include <linux/compiler.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/cpumask.h>

#define PREEMPT_NEED_RESCHED	0x80000000u	/* set: no reschedule due */

int preempt_model = PREEMPT_MODEL_VOLUNTARY;

/*
 * Per-CPU, each CPU's on its own line as DEFINE_PER_CPU data is.  The
 * preempt count is kept XORed with PREEMPT_NEED_RESCHED so that the zeroed
 * array is the state every CPU boots in: count 0, no reschedule due.
 */
static struct {
	unsigned int preempt_count_xor;
	bool rcu_urgent_qs;
} __attribute__((aligned(64))) sched_pcpu[NR_CPUS];

static bool should_resched(unsigned int preempt_offset)
{
	unsigned int pc = sched_pcpu[smp_processor_id()].preempt_count_xor ^ PREEMPT_NEED_RESCHED;

	return pc == preempt_offset;
}

static noinline void rcu_all_qs(void)
{
	if (!sched_pcpu[smp_processor_id()].rcu_urgent_qs)
		return;
	/* Never reached in the lab: nothing sets rcu_urgent_qs. */
	sched_pcpu[smp_processor_id()].rcu_urgent_qs = false;
}

int __cond_resched(void)
{
	/* The static call or key that preempt=full points elsewhere. */
	if (preempt_model == PREEMPT_MODEL_FULL)
		return 0;
	if (should_resched(0)) {
		/* preempt_schedule_common(): there is nothing to switch to. */
		sched_pcpu[smp_processor_id()].preempt_count_xor = 0;
		return 1;
	}
	rcu_all_qs();
	return 0;
}
