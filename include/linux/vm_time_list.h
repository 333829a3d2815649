/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timed spans of the model's own instrumentation, one line each:
 * VM_TIME(ITEM, "name") for the time spent in a function (rmap_time_add(),
 * linux/rmap.h).  In the event build each is a vm event counting host
 * nanoseconds (linux/vm_event_list.h includes this list); in the vt flavour
 * each is a key of the machine's span clock (enum vm_time_item,
 * linux/vm_event_item.h), its virtual nanoseconds read by the same name.
 * No include guard, as vm_event_list.h.
 */
VM_TIME(RMAP_REFERENCED_NS, "rmap_referenced_ns")	/* nanoseconds in folio_referenced() */
VM_TIME(RMAP_UNMAP_NS, "rmap_unmap_ns")	/* nanoseconds in try_to_unmap() */
VM_TIME(RECLAIM_ISOLATE_NS, "reclaim_isolate_ns")	/* nanoseconds in isolate_lru_folios() */
VM_TIME(RECLAIM_REMOVE_NS, "reclaim_remove_ns")	/* nanoseconds in __remove_mapping() */
VM_TIME(RECLAIM_FREE_NS, "reclaim_free_ns")	/* uncharging, flushing and freeing a batch */
VM_TIME(RECLAIM_PUTBACK_NS, "reclaim_putback_ns")	/* nanoseconds in move_folios_to_lru() */
VM_TIME(RECLAIM_LIST_NS, "reclaim_list_ns")	/* nanoseconds in shrink_folio_list() */
VM_TIME(MIGRATE_RESTORE_NS, "migrate_restore_ns")	/* nanoseconds in remove_migration_ptes() */
VM_TIME(MIGRATE_MOVE_NS, "migrate_move_ns")	/* nanoseconds in move_to_new_folio() */
