/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm event counters, one line each: VM_EVENT(ITEM, "name") gives the
 * item of enum vm_event_item (include/linux/vm_event_item.h) and the name
 * /proc/vmstat shows for it (vmstat_text, src/mm/vmstat.c).  No include
 * guard: each of those two files defines VM_EVENT, includes this list and
 * undefines VM_EVENT again.  A new counter is one line here.
 *
 * Items the kernel counts on a path the model runs are counted in every
 * build, as the kernel does with CONFIG_VM_EVENT_COUNTERS; their names are
 * the kernel's.  Items under CONFIG_DEBUG_VM_EVENTS are the model's own
 * instrumentation, named after the function or object they count in.
 */
VM_EVENT(PGALLOC_NORMAL, "pgalloc_normal")	/* the model's one zone is ZONE_NORMAL */
VM_EVENT(PGFREE, "pgfree")
VM_EVENT(PGFAULT, "pgfault")
VM_EVENT(PGSCAN_FILE, "pgscan_file")		/* file pages reclaim looked at on the inactive list */
VM_EVENT(PGSTEAL_FILE, "pgsteal_file")		/* ... and reclaimed */
VM_EVENT(PGREUSE, "pgreuse")			/* write faults that reused an anonymous page instead of copying it */
VM_EVENT(PGMIGRATE_SUCCESS, "pgmigrate_success")	/* pages migrated */
VM_EVENT(PGMIGRATE_FAIL, "pgmigrate_fail")	/* pages that could not be migrated */
#ifdef CONFIG_DEBUG_VM_EVENTS
/* include/linux/page_ref.h */
VM_EVENT(PGREF_TRYGET, "pgref_tryget")		/* calls of page_ref_add_unless_frozen */
VM_EVENT(PGREF_TRYGET_FAIL, "pgref_tryget_fail")	/* ... that found the page frozen */
VM_EVENT(PGREF_CAS_RETRY, "pgref_cas_retry")	/* failed compare-exchanges in try-get loops */
VM_EVENT(PGREF_UNDO_LOOP, "pgref_undo_loop")	/* frozen-bit: undo iterations of a grown counter */
VM_EVENT(PGREF_PUT_RACE, "pgref_put_race")	/* frozen-bit: 0 -> frozen exchange lost */
/* mm/page_alloc.c */
VM_EVENT(PCP_DRAIN_BATCHES, "pcp_drain_batches")	/* free_pcppages_bulk() calls of drain_pages_zone(): lock holds */
/* mm/filemap.c, mm/readahead.c */
VM_EVENT(FILEMAP_FAST_READ, "filemap_fast_read")	/* seqcount-read: reads served without a refcount */
VM_EVENT(FILEMAP_FAST_FALLBACK, "filemap_fast_fallback")	/* ... that fell back to the refcounted path */
VM_EVENT(FILEMAP_GET_RETRY, "filemap_get_retry")	/* lookups retried after a failed get or recheck */
VM_EVENT(FILEMAP_XA_LOCK_ADD, "filemap_xa_lock_add")	/* xa_lock acquisitions to insert folios */
VM_EVENT(FILEMAP_XA_LOCK_NS, "filemap_xa_lock_ns")	/* ... and nanoseconds it was held */
VM_EVENT(FILEMAP_FOLIOS_ADDED, "filemap_folios_added")	/* folios inserted */
VM_EVENT(FILEMAP_READ_REQUESTS, "filemap_read_requests")	/* read requests to the backing store */
VM_EVENT(FILEMAP_RA_FALLBACK, "filemap_ra_fallback")	/* batched readahead fell back to one folio at a time */
/* mm/rmap.c, mm/page_vma_mapped.c, include/linux/pgtable.h */
VM_EVENT(RMAP_WALKS, "rmap_walks")		/* rmap_walk() calls */
VM_EVENT(RMAP_VMAS, "rmap_vmas")		/* VMAs visited */
VM_EVENT(RMAP_PVMW_HITS, "rmap_pvmw_hits")	/* entries page_vma_mapped_walk() stopped at */
VM_EVENT(RMAP_BATCHES, "rmap_batches")		/* young-bit or unmap operations on a run of entries */
VM_EVENT(PTE_RMW, "pte_rmw")			/* PTEs the young-bit and unmap primitives read-modify-write */
VM_EVENT(PVMW_WALKS, "pvmw_walks")		/* page_vma_mapped_walk() walks started (one per VMA looked at) */
VM_EVENT(PVMW_PTL, "pvmw_ptl")			/* page table locks page_vma_mapped_walk() took */
/* mm/migrate.c, mm/memory.c (seed 003) */
VM_EVENT(MIGRATE_UNMAP_VMAS, "migrate_unmap_vmas")	/* VMAs try_to_migrate() visited */
VM_EVENT(MIGRATE_RESTORE_VMAS, "migrate_restore_vmas")	/* VMAs remove_migration_ptes() visited */
VM_EVENT(MIGRATE_ENTRIES_MADE, "migrate_entries_made")	/* migration entries written by try_to_migrate_one() */
VM_EVENT(MIGRATE_ENTRIES_REMOVED, "migrate_entries_removed")	/* ... and replaced by remove_migration_pte() */
/* The timed spans (include/linux/vm_time_list.h): nanoseconds in a function */
#define VM_TIME(item, name)	VM_EVENT(item, name)
#include <linux/vm_time_list.h>
#undef VM_TIME
#endif
