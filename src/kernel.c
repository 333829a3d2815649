// SPDX-License-Identifier: GPL-2.0
/*
 * This build's descriptor: the only symbol a kernel build exports to the
 * lab (see Makefile: everything else is made local).
 */
#include <stdio.h>

#include <linux/mmzone.h>
#include <linux/swap.h>
#include <linux/sched.h>
#include <linux/vmstat.h>
#include <mmlab/kernel.h>
#include "workloads/workloads.h"

/* Every src/workloads/<name>.c, listed by the Makefile: WORKLOAD(name). */
#define WORKLOAD(ident) extern const struct mm_workload ident##_workload;
#include "mm_workloads.h"
#undef WORKLOAD

static const struct mm_workload *const kernel_workloads[] = {
#define WORKLOAD(ident) &ident##_workload,
#include "mm_workloads.h"
#undef WORKLOAD
	NULL
};

/* Every page is free or deliberately leaked, and the allocator is sound. */
static int kernel_mem_check(char *msg, size_t len)
{
	struct page_alloc_report r;

	/* The run's CPUs are gone: their LRU batches give back what they hold. */
	lru_add_drain_all();
	if (page_alloc_check(&r, msg, len))
		return -1;
	if (r.allocated) {
		snprintf(msg, len, "%lu pages still allocated at the end of the run (leaked)",
			 r.allocated);
		return -1;
	}
	if (r.leaked)
		fprintf(stderr, "mmlab: %lu bad pages were leaked deliberately\n", r.leaked);
	return 0;
}

__attribute__((visibility("default")))
const struct mm_kernel MM_KERNEL_SYM = {
	.name = MM_KERNEL_NAME,
#ifdef CONFIG_DEBUG_VM_EVENTS
	.events = true,
#endif
	.vm_event_names = vmstat_text,
	.nr_vm_events = NR_VM_EVENT_ITEMS,
	.all_vm_events = all_vm_events,
	.reset_vm_events = reset_vm_events,
#ifdef MMLAB_VT
	.vt_span_names = vmtime_text,
	.nr_vt_spans = NR_VM_TIME_ITEMS,
#endif
	.mem_init = mem_init,
	.mem_exit = mem_exit,
	.mem_check = kernel_mem_check,
	.workloads = kernel_workloads,
	.nr_online_nodes = &nr_online_nodes,
	.preempt_model = &preempt_model,
};
