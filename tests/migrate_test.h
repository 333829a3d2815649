/*
 * Helpers shared by the migration tests (test_migrate, stress_migrate,
 * check_migrate): which counting design and which mutant the build is,
 * the design's count, and a CPU's access to a byte of a process.
 */
#ifndef MMLAB_MIGRATE_TEST_H
#define MMLAB_MIGRATE_TEST_H

#include <stdio.h>

#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "mm_test.h"

#if defined(CONFIG_MGT_COUNTER)
#define MGT_COUNTER	1
#define MGT_ENTRY	0
#elif defined(CONFIG_MGT_ENTRY)
#define MGT_COUNTER	0
#define MGT_ENTRY	1
#else
#define MGT_COUNTER	0
#define MGT_ENTRY	0
#endif

/* The mutants of the count (Makefile: mgt-*-fork-uncounted, mgt-counter-zap-uncounted). */
#if defined(CONFIG_MIGRATE_MUTANT_FORK_UNCOUNTED)
#define MT_FORK_UNCOUNTED	1
#else
#define MT_FORK_UNCOUNTED	0
#endif
#if defined(CONFIG_MIGRATE_MUTANT_ZAP_UNCOUNTED)
#define MT_ZAP_UNCOUNTED	1
#else
#define MT_ZAP_UNCOUNTED	0
#endif

/*
 * The designs' count of the entries naming @folio: -1 where none is kept
 * (vanilla; mgt-entry while the folio has no PGTY_mgt_entry type).
 */
static inline int mgt_counted(struct folio *folio)
{
#if defined(CONFIG_MGT_COUNTER)
	return atomic_read(folio_migration_entries(folio));
#elif defined(CONFIG_MGT_ENTRY)
	if (!PageMgtEntry(&folio->page))
		return -1;
	return (int)(folio->page.page_type & PAGE_TYPE_VALUE_MASK);
#else
	(void)folio;
	return -1;
#endif
}

/*
 * The byte at @addr of @mm as a CPU reaches it: through the MMU, faulting
 * (and waiting on a migration entry) until it maps, at most @tries times;
 * NULL if it never does.  @drain: put each fault's new folio on the LRU
 * rather than leave it in this CPU's lru_add batch.
 */
static inline unsigned char *mt_access(struct mm_struct *mm, unsigned long addr, bool write,
				       int tries, bool drain)
{
	for (int i = 0; i < tries; i++) {
		unsigned char *b = mmu_access(mm, addr, write);
		struct vm_area_struct *vma;

		if (b)
			return b;
		mmap_read_lock(mm);
		vma = vma_lookup(mm, addr);
		if (vma)
			handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0);
		mmap_read_unlock(mm);
		if (drain)
			lru_add_drain();
	}
	return NULL;
}

/*
 * Every CPU's LRU batches drained, each node's pcp lists emptied and every
 * CPU's vm statistics folded: what the checker scenarios do before they
 * count the pages still allocated, on every node.
 */
static inline void drain_nodes(void)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		lru_add_drain_cpu(cpu);
	for (int nid = 0; nid < nr_online_nodes; nid++)
		zone_pcp_retune(&NODE_DATA(nid)->node_zones[ZONE_NORMAL]);
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		cpu_vm_stats_fold(cpu);
}

static inline long allocated_pages(void)
{
	drain_nodes();
	return mm_allocated_pages();
}

/*
 * A scenario's last check, after its teardown: every page it allocated is
 * free again and no VM_WARN fired since its setup counted @allocated0 and
 * @warns0; false with the reason in @why otherwise.
 */
static inline bool nothing_left(long allocated0, unsigned long warns0, char *why, size_t len)
{
	long got = allocated_pages();

	if (got != allocated0) {
		snprintf(why, len, "%ld pages allocated after every process exited, %ld before", got,
			 allocated0);
		return false;
	}
	if (vm_warn_count != warns0) {
		snprintf(why, len, "%lu VM_WARN fired", vm_warn_count - warns0);
		return false;
	}
	return true;
}

#endif
