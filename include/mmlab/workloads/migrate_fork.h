/*
 * migrate-fork (src/workloads/migrate_fork.c): a parent's anonymous buffer,
 * shared at fork with many children that copy (COW) some of it, migrated
 * to another node with mbind(MPOL_MF_MOVE); time of that call.
 */
#ifndef MMLAB_WORKLOADS_MIGRATE_FORK_H
#define MMLAB_WORKLOADS_MIGRATE_FORK_H

#include <stdbool.h>

struct mf_params {
	unsigned long long size;	/* bytes of the parent's buffer */
	int children;			/* forked after the buffer is faulted in */
	double cow;			/* share of the buffer each child writes (copies), from its start */
	unsigned int folio_order;	/* of the anonymous folios */
	bool move_all;			/* MPOL_MF_MOVE_ALL: the pages still shared move too */
	bool thp;			/* the parent's faults map 2 MiB folios where a whole one fits */
	unsigned long offset;		/* the buffer's start past a 2 MiB boundary, page-aligned */
	bool fast_forward;		/* simulated machines: set-up fast-forwarded (machine_fast_forward()) */
	/* Costs the model leaves out unless asked (src/experiments/migrate_fork.c, the ledger) */
	bool target_cold;		/* node 1's frames not touched before the call */
	/*
	 * Cold targets' first touches are modelled: the host beneath the
	 * machine backs a host page at a cold frame's first write.  False on
	 * the host itself (its first touches are real) and on a machine whose
	 * RAM is backed from the start.
	 */
	bool host_backs;
	unsigned int host_page_order;	/* the host's page backing guest RAM: 0 (4 KiB) or 9 (2 MiB) */
	unsigned long first_touch_ns;	/* EPT violation + host fault path per host page, zeroing excluded */
	unsigned long lru_disable_ns;	/* lru_cache_disable(): expedited RCU + drain on every CPU */
	unsigned long memcg_ns;		/* mem_cgroup_migrate() per folio */
	unsigned long tlb_flush_loops;	/* __delay() per TLB flush waited for */
	/*
	 * NULL, or the caller's room for the build's nr_vm_events counters,
	 * where the vm events of the do_mbind() call go.
	 */
	unsigned long *vm_events;
};

struct mf_result {
	double usec;			/* the do_mbind() call */
	long mbind_ret;			/* its return value */
	unsigned long pages_moved;	/* pgmigrate_success */
	unsigned long pages_failed;	/* pgmigrate_fail */
	unsigned long pages_expected;	/* pages that should have moved */
	unsigned long pages_on_target;	/* of the parent's, on node 1 afterwards */
	unsigned long entries_left;	/* migration entries in any page table afterwards */
	unsigned long data_mismatches;	/* pages (of any process) whose bytes differ from what it wrote */
	unsigned long vmas;		/* VMAs mapping the buffer: parent + children */
	unsigned long host_faults;	/* host pages first touched in the timed call (host_backs) */
	int full_children;		/* children whose copies ran in full, not fast-forwarded */
};

#endif
