// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the vm event counters (include/linux/vmstat.h,
 * src/mm/vmstat.c): the names table, per-CPU counting and summing,
 * resetting, and a kernel event counted where the kernel counts it.
 */
#include <ctype.h>
#include <stdint.h>

#include <machine/machine.h>

#include "rmap_test.h"

_Static_assert(sizeof(struct vm_event_state) % SMP_CACHE_BYTES == 0,
	       "each CPU's counters fill whole cache lines");

static void test_names(void)
{
	int bad = 0, dup = 0;

	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++) {
		const char *name = vmstat_text[i];

		if (!name || !*name) {
			diag("item %d has no name", i);
			bad++;
			continue;
		}
		for (const char *c = name; *c; c++)
			if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
				bad++;
		for (int j = 0; j < i; j++)
			if (vmstat_text[j] && !strcmp(vmstat_text[j], name)) {
				diag("items %d and %d are both \"%s\"", j, i, name);
				dup++;
			}
	}
	/* Both come from include/linux/vm_event_list.h: a slip there shows here. */
	is_int(bad, 0, "every item of %d has a non-empty lower-case /proc/vmstat-style name",
	       NR_VM_EVENT_ITEMS);
	is_int(dup, 0, "no two items share a name");
	ok(!strcmp(vmstat_text[PGFAULT], "pgfault"), "PGFAULT is \"pgfault\"");
#ifdef CONFIG_DEBUG_VM_EVENTS
	ok(!strcmp(vmstat_text[PGREF_CAS_RETRY], "pgref_cas_retry"), "PGREF_CAS_RETRY is \"pgref_cas_retry\"");
	ok(!strcmp(vmstat_text[PTE_RMW], "pte_rmw"), "PTE_RMW is \"pte_rmw\"");
#endif
}

static void test_layout(void)
{
	ok((uintptr_t)&vm_event_states[0] % SMP_CACHE_BYTES == 0 &&
	   (uintptr_t)&vm_event_states[1] % SMP_CACHE_BYTES == 0,
	   "each CPU's counters start a cache line");
}

/* --- counting on several CPUs ------------------------------------------------------ */

#define NR_TEST_CPUS	3

static void count_on_cpu(void *arg)
{
	long n = (long)(intptr_t)arg;

	/* CPU i counts i + 1 faults in ones and 10 * n more at once. */
	for (int i = 0; i <= smp_processor_id(); i++)
		count_vm_event(PGFAULT);
	__count_vm_events(PGFAULT, 10 * n);
}

static void test_per_cpu_sum(void)
{
	void *args[NR_TEST_CPUS];
	struct machine_threads *t;
	unsigned long events[NR_VM_EVENT_ITEMS];

	reset_vm_events();
	is_int(vm_event(PGFAULT), 0, "reset_vm_events: nothing counted");
	for (int i = 0; i < NR_TEST_CPUS; i++)
		args[i] = (void *)(intptr_t)(i + 1);
	t = machine_threads_start(NR_TEST_CPUS, count_on_cpu, args);
	ok(t != NULL, "start %d CPUs", NR_TEST_CPUS);
	if (t)
		machine_threads_join(t);
	/* 1 + 2 + 3 singles, 10 + 20 + 30 in bulk */
	is_int(vm_event(PGFAULT), 66, "all_vm_events sums every CPU's counts");
	is_int(vm_event_states[1].event[PGFAULT], 2 + 20, "CPU 1 counted into its own slot");
	is_int(vm_event_states[NR_TEST_CPUS].event[PGFAULT], 0, "an idle CPU's slot stays 0");

	count_vm_events(PGFAULT, 4);
	all_vm_events(events);
	is_int(events[PGFAULT], 70, "count_vm_events adds its delta on this CPU");
	reset_vm_events();
	all_vm_events(events);
	is_int(events[PGFAULT], 0, "reset_vm_events zeroes every CPU");
}

static void test_debug_events(void)
{
#ifdef CONFIG_DEBUG_VM_EVENTS
	reset_vm_events();
	count_debug_vm_event(RMAP_WALKS);
	count_debug_vm_events(RMAP_UNMAP_NS, 250);
	is_int(vm_event(RMAP_WALKS), 1, "count_debug_vm_event counts in a debug build");
	is_int(vm_event(RMAP_UNMAP_NS), 250, "count_debug_vm_events adds its delta");
	is_int(vm_event(PGFAULT), 0, "... and nothing else");
#else
	unsigned long before = vm_event(PGFAULT);

	count_debug_vm_event(NO_SUCH_ITEM);	/* expands to nothing: the name is never seen */
	is_int(vm_event(PGFAULT), before, "count_debug_vm_event is no code without the config");
#endif
}

/* handle_mm_fault() counts PGFAULT, as the kernel's does. */
static void test_pgfault(void)
{
	struct mm_struct *mm;
	struct rt_file f;

	rt_file_init(&f, RT_PAGES(8), 0);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 8, VM_READ, 0);
	reset_vm_events();
	ok(!(rt_fault(mm, RT_BASE) & VM_FAULT_ERROR), "a read fault of page 0");
	ok(!(rt_fault(mm, RT_BASE + RT_PAGES(5)) & VM_FAULT_ERROR), "a read fault of page 5");
	is_int(vm_event(PGFAULT), 2, "two faults: pgfault counts 2");
	mmput(mm);
	rt_file_destroy(&f);
}

int main(void)
{
	plan_no_plan();
	rt_boot(16ULL << 20);
	is_int(vm_event(PGFAULT), 0, "a fresh machine has counted nothing");
	test_names();
	test_layout();
	test_per_cpu_sum();
	test_debug_events();
	test_pgfault();
	mem_exit();
	return done_testing();
}
