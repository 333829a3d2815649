// SPDX-License-Identifier: GPL-2.0
/*
 * Page reclaim of file folios (mm/vmscan.c), classic LRU: isolate a batch
 * from the tail of the inactive list, decide per folio from its references
 * (folio_check_references), unmap and drop the clean ones from the page
 * cache, flush the TLB once for the batch, free, and put the rest back.
 *
 * A mapped folio found young the first time is kept, with PG_referenced
 * set; found old the next time, it is reclaimed; found young again, it is
 * activated.  memory_reclaim() drives passes of falling priority, as a
 * write to memory.reclaim does.  Writeback, swap, MGLRU and memcg are not
 * modelled: a dirty folio is kept.
 */
#include <stdio.h>

#include <linux/math.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/migrate.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

enum folio_references {
	FOLIOREF_RECLAIM,
	FOLIOREF_RECLAIM_CLEAN,
	FOLIOREF_KEEP,
	FOLIOREF_ACTIVATE,
};

static inline struct folio *lru_to_folio(struct list_head *head)
{
	return list_entry(head->prev, struct folio, lru);
}

static enum folio_references folio_check_references(struct folio *folio,
						    struct scan_control *sc)
{
	unsigned long vm_flags;
	int referenced_ptes = folio_referenced(folio, 1, NULL, &vm_flags);
	bool referenced_folio = folio_test_clear_referenced(folio);

	sc->stat->nr_referenced_calls++;
	if (vm_flags & VM_LOCKED)
		return FOLIOREF_ACTIVATE;
	/* The rmap lock was contended: try again on the next trip. */
	if (referenced_ptes == -1)
		return FOLIOREF_KEEP;
	if (referenced_ptes) {
		/*
		 * Every mapped folio starts with the references of the fault
		 * that mapped it: keep it once, and activate it only if it
		 * is used again (or was also read, or is mapped young in
		 * more than one VMA, or is executable).
		 */
		folio_set_referenced(folio);
		if (referenced_folio || referenced_ptes > 1)
			return FOLIOREF_ACTIVATE;
		if (vm_flags & VM_EXEC)
			return FOLIOREF_ACTIVATE;
		return FOLIOREF_KEEP;
	}
	if (referenced_folio)
		return FOLIOREF_RECLAIM_CLEAN;
	return FOLIOREF_RECLAIM;
}

/* Free folios taken out of the page cache; their counts are frozen at 0. */
static void free_unref_folios(struct folio_batch *fbatch)
{
	for (unsigned int i = 0; i < fbatch->nr; i++) {
		struct folio *folio = fbatch->folios[i];

		free_frozen_pages(&folio->page, folio_order(folio));
	}
	folio_batch_init(fbatch);
}

static unsigned long shrink_folio_list(struct list_head *folio_list, struct list_head *ret,
				       struct scan_control *sc, bool ignore_references)
{
	struct folio_batch free_folios;
	unsigned long nr_reclaimed = 0, t0;

	folio_batch_init(&free_folios);
	while (!list_empty(folio_list)) {
		struct folio *folio = lru_to_folio(folio_list);
		unsigned long nr_pages = folio_nr_pages(folio);
		struct address_space *mapping;
		bool removed;

		cond_resched();
		list_del(&folio->lru);
		if (!folio_trylock(folio))
			goto keep;
		sc->stat->nr_scanned += nr_pages;
		switch (ignore_references ? FOLIOREF_RECLAIM : folio_check_references(folio, sc)) {
		case FOLIOREF_ACTIVATE:
			goto activate_locked;
		case FOLIOREF_KEEP:
			goto keep_locked;
		case FOLIOREF_RECLAIM:
		case FOLIOREF_RECLAIM_CLEAN:
			break;
		}
		if (folio_mapped(folio)) {
			sc->stat->nr_unmap_calls++;
			try_to_unmap(folio, TTU_BATCH_FLUSH);
			if (folio_mapped(folio)) {
				sc->stat->nr_unmap_fail += nr_pages;
				goto activate_locked;
			}
		}
		if (folio_test_dirty(folio))
			goto keep_locked;
		mapping = folio->mapping;
		if (!mapping)
			goto keep_locked;
		t0 = rmap_time_start();
		removed = __remove_mapping(mapping, folio);
		rmap_time_add(RECLAIM_REMOVE_NS, t0);
		if (!removed)
			goto keep_locked;
		/* Frozen and out of the cache: nobody else can see the lock. */
		__folio_clear_locked(folio);
		nr_reclaimed += nr_pages;
		/*
		 * Entries were cleared without a flush: another CPU may still
		 * reach these pages through its TLB, so flush before the batch
		 * goes back to the allocator (the debug builds check it there).
		 */
		if (folio_batch_add(&free_folios, folio) == 0) {
			t0 = rmap_time_start();
			mem_cgroup_uncharge_folios(&free_folios);
			try_to_unmap_flush();
			free_unref_folios(&free_folios);
			rmap_time_add(RECLAIM_FREE_NS, t0);
		}
		continue;
activate_locked:
		folio_set_active(folio);
		folio_unlock(folio);
		sc->stat->nr_activate += nr_pages;
		goto putback;
keep_locked:
		folio_unlock(folio);
keep:
		sc->stat->nr_keep += nr_pages;
putback:
		list_add(&folio->lru, ret);
	}
	t0 = rmap_time_start();
	mem_cgroup_uncharge_folios(&free_folios);
	try_to_unmap_flush();
	free_unref_folios(&free_folios);
	rmap_time_add(RECLAIM_FREE_NS, t0);
	return nr_reclaimed;
}

/*
 * Take up to @nr_to_scan pages' worth of folios off the tail of @lru, each
 * with a reference and PG_lru cleared (so nobody else isolates it).  The
 * pages taken are returned, the pages looked at in *@nr_scanned.
 */
static unsigned long isolate_lru_folios(unsigned long nr_to_scan, struct lruvec *lruvec,
					struct list_head *dst, unsigned long *nr_scanned,
					enum lru_list lru)
{
	struct list_head *src = &lruvec->lists[lru];
	unsigned long scan = 0, nr_taken = 0;

	spin_lock(&lruvec->lru_lock);
	while (scan < nr_to_scan && !list_empty(src)) {
		struct folio *folio = lru_to_folio(src);
		unsigned long nr_pages = folio_nr_pages(folio);

		scan += nr_pages;
		/* Being freed, or isolated by someone else: rotate past it. */
		if (!folio_try_get(folio)) {
			list_move(&folio->lru, src);
			continue;
		}
		if (!folio_test_clear_lru(folio)) {
			folio_put(folio);
			list_move(&folio->lru, src);
			continue;
		}
		list_move(&folio->lru, dst);
		nr_taken += nr_pages;
	}
	update_lru_size(lruvec, lru, -(long)nr_taken);
	spin_unlock(&lruvec->lru_lock);
	*nr_scanned = scan;
	return nr_taken;
}

/* Put isolated folios back (by their PG_active) and drop the isolation references. */
static void move_folios_to_lru(struct lruvec *lruvec, struct list_head *list)
{
	while (!list_empty(list)) {
		struct folio *folio = lru_to_folio(list);

		list_del(&folio->lru);
		spin_lock(&lruvec->lru_lock);
		folio_set_lru(folio);
		lruvec_add_folio(lruvec, folio);
		spin_unlock(&lruvec->lru_lock);
		folio_put(folio);	/* the last one takes it off again (__folio_put) */
	}
}

static unsigned long shrink_inactive_list(unsigned long nr_to_scan, struct lruvec *lruvec,
					  struct scan_control *sc)
{
	LIST_HEAD(folio_list);
	LIST_HEAD(ret);
	unsigned long nr_scanned, nr_taken, nr_reclaimed, t0;

	/* This CPU's batched additions join the lists first. */
	lru_add_drain();
	t0 = rmap_time_start();
	nr_taken = isolate_lru_folios(nr_to_scan, lruvec, &folio_list, &nr_scanned,
				      LRU_INACTIVE_FILE);
	rmap_time_add(RECLAIM_ISOLATE_NS, t0);
	/*
	 * memory.reclaim is cgroup reclaim: the kernel leaves pgscan_direct
	 * and pgsteal_direct to the memcg's counters, and counts only these.
	 */
	count_vm_events(PGSCAN_FILE, nr_scanned);
	if (!nr_taken)
		return 0;
	t0 = rmap_time_start();
	nr_reclaimed = shrink_folio_list(&folio_list, &ret, sc, false);
	rmap_time_add(RECLAIM_LIST_NS, t0);
	t0 = rmap_time_start();
	move_folios_to_lru(lruvec, &ret);
	rmap_time_add(RECLAIM_PUTBACK_NS, t0);
	count_vm_events(PGSTEAL_FILE, nr_reclaimed);
	return nr_reclaimed;
}

/*
 * Deactivate from the tail of the active list; a mapped executable folio
 * in use stays active (the kernel's one exception for file folios).
 */
static void shrink_active_list(unsigned long nr_to_scan, struct lruvec *lruvec,
			       struct scan_control *sc)
{
	LIST_HEAD(l_hold);
	LIST_HEAD(l_active);
	LIST_HEAD(l_inactive);
	unsigned long nr_scanned;

	lru_add_drain();
	isolate_lru_folios(nr_to_scan, lruvec, &l_hold, &nr_scanned, LRU_ACTIVE_FILE);
	while (!list_empty(&l_hold)) {
		struct folio *folio = lru_to_folio(&l_hold);
		unsigned long vm_flags;

		list_del(&folio->lru);
		if (folio_mapped(folio) && folio_trylock(folio)) {
			int referenced = folio_referenced(folio, 1, NULL, &vm_flags);

			sc->stat->nr_referenced_calls++;
			folio_unlock(folio);
			if (referenced > 0 && (vm_flags & VM_EXEC)) {
				list_add(&folio->lru, &l_active);
				continue;
			}
		}
		folio_clear_active(folio);
		list_add(&folio->lru, &l_inactive);
	}
	move_folios_to_lru(lruvec, &l_active);
	move_folios_to_lru(lruvec, &l_inactive);
}

/* Too little inactive for the list sizes: the kernel's inactive_is_low(). */
static bool inactive_is_low(struct lruvec *lruvec)
{
	unsigned long inactive = READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_FILE]);
	unsigned long active = READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_FILE]);
	unsigned long gb = (inactive + active) >> (30 - PAGE_SHIFT);
	unsigned long ratio = gb ? int_sqrt(10 * gb) : 1;

	return inactive * ratio < active;
}

static void shrink_lruvec(struct lruvec *lruvec, struct scan_control *sc)
{
	unsigned long nr_inactive = READ_ONCE(lruvec->nr_pages[LRU_INACTIVE_FILE]) >> sc->priority;
	unsigned long nr_active = READ_ONCE(lruvec->nr_pages[LRU_ACTIVE_FILE]) >> sc->priority;

	while (nr_inactive || nr_active) {
		unsigned long nr;

		if (nr_inactive) {
			nr = min(nr_inactive, SWAP_CLUSTER_MAX);
			nr_inactive -= nr;
			sc->nr_reclaimed += shrink_inactive_list(nr, lruvec, sc);
		}
		if (nr_active) {
			nr = min(nr_active, SWAP_CLUSTER_MAX);
			nr_active -= nr;
			if (inactive_is_low(lruvec))
				shrink_active_list(nr, lruvec, sc);
		}
		if (sc->nr_reclaimed >= sc->nr_to_reclaim)
			break;
	}
	if (inactive_is_low(lruvec))
		shrink_active_list(SWAP_CLUSTER_MAX, lruvec, sc);
}

static unsigned long try_to_free_pages(unsigned long nr_pages, struct reclaim_stat *stat)
{
	struct scan_control sc = {
		.nr_to_reclaim = max(nr_pages, SWAP_CLUSTER_MAX),
		.priority = DEF_PRIORITY,
		.stat = stat,
	};

	do {
		shrink_lruvec(&node_lruvec, &sc);
		if (sc.nr_reclaimed >= sc.nr_to_reclaim)
			break;
	} while (--sc.priority >= 0);
	return sc.nr_reclaimed;
}

unsigned long memory_reclaim(unsigned long nr_to_reclaim, struct reclaim_stat *stat)
{
	unsigned long nr_reclaimed = 0;
	int nr_retries = MAX_RECLAIM_RETRIES;

	*stat = (struct reclaim_stat){ 0 };
	while (nr_reclaimed < nr_to_reclaim) {
		/* Converges on zero; reclaim itself enforces a minimum batch. */
		unsigned long batch = (nr_to_reclaim - nr_reclaimed) / 4;
		unsigned long reclaimed = try_to_free_pages(batch, stat);

		if (!reclaimed && !nr_retries--)
			break;
		nr_reclaimed += reclaimed;
	}
	stat->nr_reclaimed = nr_reclaimed;
	return nr_reclaimed;
}

/*
 * Reclaim the folios a caller isolated (MADV_PAGEOUT, DAMON): one
 * shrink_folio_list() over the whole list (the model has one node), then
 * the rest back on the LRU.  With @ignore_references, young entries and
 * PG_referenced do not save a folio.  Returns the pages reclaimed.
 */
unsigned long reclaim_pages(struct list_head *folio_list, bool ignore_references)
{
	struct reclaim_stat stat = { 0 };
	struct scan_control sc = {
		.nr_to_reclaim = SWAP_CLUSTER_MAX,
		.priority = DEF_PRIORITY,
		.stat = &stat,
	};
	LIST_HEAD(node_folio_list);
	LIST_HEAD(ret);
	unsigned long nr_reclaimed;
	struct folio *folio, *next;

	list_for_each_entry_safe(folio, next, folio_list, lru) {
		folio_clear_active(folio);
		list_move_tail(&folio->lru, &node_folio_list);
	}
	nr_reclaimed = shrink_folio_list(&node_folio_list, &ret, &sc, ignore_references);
	move_folios_to_lru(&node_lruvec, &ret);
	return nr_reclaimed;
}

int lruvec_check(struct lruvec *lruvec, char *msg, size_t len)
{
	int ret = 0;

	spin_lock(&lruvec->lru_lock);
	for (int lru = 0; lru < NR_LRU_LISTS && !ret; lru++) {
		unsigned long pages = 0;
		struct folio *folio;

		list_for_each_entry(folio, &lruvec->lists[lru], lru) {
			bool active = folio_test_active(folio);

			if (!folio_test_lru(folio) || folio_ref_count(folio) <= 0) {
				snprintf(msg, len, "LRU list %d: pfn %lu without PG_lru or a reference",
					 lru, folio_pfn(folio));
				ret = -1;
				break;
			}
			if (lru != LRU_UNEVICTABLE &&
			    active != (lru == LRU_ACTIVE_FILE || lru == LRU_ACTIVE_ANON)) {
				snprintf(msg, len, "LRU list %d: pfn %lu has PG_active %d",
					 lru, folio_pfn(folio), active);
				ret = -1;
				break;
			}
			if (lru != LRU_UNEVICTABLE &&
			    folio_is_file_lru(folio) != (lru >= LRU_INACTIVE_FILE)) {
				snprintf(msg, len, "LRU list %d: pfn %lu is %s", lru, folio_pfn(folio),
					 folio_is_file_lru(folio) ? "a file folio" : "swap-backed");
				ret = -1;
				break;
			}
			pages += folio_nr_pages(folio);
		}
		if (!ret && pages != lruvec->nr_pages[lru]) {
			snprintf(msg, len, "LRU list %d holds %lu pages, its count says %lu",
				 lru, pages, lruvec->nr_pages[lru]);
			ret = -1;
		}
	}
	spin_unlock(&lruvec->lru_lock);
	return ret;
}

bool folio_isolate_lru(struct folio *folio)
{
	struct lruvec *lruvec = &node_lruvec;

	VM_WARN_ON_ONCE_FOLIO(!folio_ref_count(folio), folio);
	if (!folio_test_clear_lru(folio))
		return false;
	folio_get(folio);
	spin_lock(&lruvec->lru_lock);
	lruvec_del_folio(lruvec, folio);
	spin_unlock(&lruvec->lru_lock);
	return true;
}
