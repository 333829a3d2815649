// SPDX-License-Identifier: GPL-2.0
/*
 * vm event counters (mm/vmstat.c): the per-CPU arrays and their names.
 */
#include <string.h>

#include <linux/minmax.h>
#include <linux/vmstat.h>

struct vm_event_state vm_event_states[NR_CPUS];

/*
 * The event part of the kernel's vmstat_text, in enum vm_event_item order.
 * The model's own items are named after the function or object they count
 * in, lower case like the kernel's.
 */
const char *const vmstat_text[NR_VM_EVENT_ITEMS] = {
	[PGALLOC_NORMAL]	= "pgalloc_normal",
	[PGFREE]		= "pgfree",
	[PGFAULT]		= "pgfault",
	[PGSCAN_FILE]		= "pgscan_file",
	[PGSTEAL_FILE]		= "pgsteal_file",
#ifdef CONFIG_DEBUG_VM_EVENTS
	[PGREF_TRYGET]		= "pgref_tryget",
	[PGREF_TRYGET_FAIL]	= "pgref_tryget_fail",
	[PGREF_CAS_RETRY]	= "pgref_cas_retry",
	[PGREF_UNDO_LOOP]	= "pgref_undo_loop",
	[PGREF_PUT_RACE]	= "pgref_put_race",
	[FILEMAP_FAST_READ]	= "filemap_fast_read",
	[FILEMAP_FAST_FALLBACK]	= "filemap_fast_fallback",
	[FILEMAP_GET_RETRY]	= "filemap_get_retry",
	[FILEMAP_XA_LOCK_ADD]	= "filemap_xa_lock_add",
	[FILEMAP_XA_LOCK_NS]	= "filemap_xa_lock_ns",
	[FILEMAP_FOLIOS_ADDED]	= "filemap_folios_added",
	[FILEMAP_READ_REQUESTS]	= "filemap_read_requests",
	[FILEMAP_RA_FALLBACK]	= "filemap_ra_fallback",
	[RMAP_WALKS]		= "rmap_walks",
	[RMAP_VMAS]		= "rmap_vmas",
	[RMAP_PVMW_HITS]	= "rmap_pvmw_hits",
	[RMAP_BATCHES]		= "rmap_batches",
	[RMAP_REFERENCED_NS]	= "rmap_referenced_ns",
	[RMAP_UNMAP_NS]		= "rmap_unmap_ns",
	[PTE_RMW]		= "pte_rmw",
#endif
};

/* The model's possible CPUs: every id the lab has handed out. */
static int nr_possible_cpus(void)
{
	return min(nr_cpu_ids, NR_CPUS);
}

void all_vm_events(unsigned long *ret)
{
	memset(ret, 0, NR_VM_EVENT_ITEMS * sizeof(unsigned long));
	for (int cpu = 0; cpu < nr_possible_cpus(); cpu++) {
		const struct vm_event_state *this = &vm_event_states[cpu];

		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
			ret[i] += READ_ONCE(this->event[i]);
	}
}

void reset_vm_events(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
			WRITE_ONCE(vm_event_states[cpu].event[i], 0);
}
