/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm event counters (include/linux/vmstat.h), as /proc/vmstat shows
 * them.  Items the kernel counts on a path the model runs are counted in
 * every build, as the kernel does with CONFIG_VM_EVENT_COUNTERS.
 *
 * Items under CONFIG_DEBUG_VM_EVENTS are the model's own instrumentation:
 * loop iterations, lost races and timings that explain a result.  Like the
 * kernel's NR_TLB_* items under CONFIG_DEBUG_TLBFLUSH they exist only in
 * the builds that ask for them (the "ev" and debug flavours, see Makefile);
 * in the timed build the item does not exist and counting it is no code.
 */
#ifndef _LINUX_VM_EVENT_ITEM_H
#define _LINUX_VM_EVENT_ITEM_H

enum vm_event_item {
	PGALLOC_NORMAL,		/* the model's one zone is ZONE_NORMAL */
	PGFREE,
	PGFAULT,
	PGSCAN_FILE,		/* file pages reclaim looked at on the inactive list */
	PGSTEAL_FILE,		/* ... and reclaimed */
	PGREUSE,		/* write faults that reused an anonymous page instead of copying it */
	PGMIGRATE_SUCCESS,	/* pages migrated */
	PGMIGRATE_FAIL,		/* pages that could not be migrated */
#ifdef CONFIG_DEBUG_VM_EVENTS
	/* include/linux/page_ref.h */
	PGREF_TRYGET,		/* calls of page_ref_add_unless_frozen */
	PGREF_TRYGET_FAIL,	/* ... that found the page frozen */
	PGREF_CAS_RETRY,	/* failed compare-exchanges in try-get loops */
	PGREF_UNDO_LOOP,	/* frozen-bit: undo iterations of a grown counter */
	PGREF_PUT_RACE,		/* frozen-bit: 0 -> frozen exchange lost */
	/* mm/filemap.c, mm/readahead.c */
	FILEMAP_FAST_READ,	/* seqcount-read: reads served without a refcount */
	FILEMAP_FAST_FALLBACK,	/* ... that fell back to the refcounted path */
	FILEMAP_GET_RETRY,	/* lookups retried after a failed get or recheck */
	FILEMAP_XA_LOCK_ADD,	/* xa_lock acquisitions to insert folios */
	FILEMAP_XA_LOCK_NS,	/* ... and nanoseconds it was held */
	FILEMAP_FOLIOS_ADDED,	/* folios inserted */
	FILEMAP_READ_REQUESTS,	/* read requests to the backing store */
	FILEMAP_RA_FALLBACK,	/* batched readahead fell back to one folio at a time */
	/* mm/rmap.c, mm/page_vma_mapped.c, include/linux/pgtable.h */
	RMAP_WALKS,		/* rmap_walk() calls */
	RMAP_VMAS,		/* VMAs visited */
	RMAP_PVMW_HITS,		/* entries page_vma_mapped_walk() stopped at */
	RMAP_BATCHES,		/* young-bit or unmap operations on a run of entries */
	RMAP_REFERENCED_NS,	/* nanoseconds in folio_referenced() */
	RMAP_UNMAP_NS,		/* nanoseconds in try_to_unmap() */
	PTE_RMW,		/* PTEs the young-bit and unmap primitives read-modify-write */
	PVMW_WALKS,		/* page_vma_mapped_walk() walks started (one per VMA looked at) */
	PVMW_PTL,		/* page table locks page_vma_mapped_walk() took */
	/* mm/migrate.c, mm/memory.c (seed 003) */
	MIGRATE_UNMAP_VMAS,	/* VMAs try_to_migrate() visited */
	MIGRATE_RESTORE_VMAS,	/* VMAs remove_migration_ptes() visited */
	MIGRATE_ENTRIES_MADE,	/* migration entries written by try_to_migrate_one() */
	MIGRATE_ENTRIES_REMOVED,	/* ... and replaced by remove_migration_pte() */
	MIGRATE_RESTORE_NS,	/* nanoseconds in remove_migration_ptes() */
	MIGRATE_MOVE_NS,	/* nanoseconds in move_to_new_folio() */
#endif
	NR_VM_EVENT_ITEMS
};

#endif /* _LINUX_VM_EVENT_ITEM_H */
