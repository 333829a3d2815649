// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing a folio whose last reference is gone, and adding folios to the
 * LRU (mm/swap.c).  The kernel batches LRU additions per CPU (folio_batch
 * lru_add); the model takes lru_lock per folio: nothing measured adds.
 */
#include <linux/gfp.h>
#include <linux/swap.h>

struct lruvec node_lruvec = {
	.lru_lock = __SPIN_LOCK_UNLOCKED(node_lruvec.lru_lock),
};

/* Swap-backed (anonymous) folios age on the anon lists, the rest on the file lists. */
static inline enum lru_list folio_lru_list(const struct folio *folio)
{
	enum lru_list lru;

	if (folio_test_unevictable(folio))
		return LRU_UNEVICTABLE;
	lru = folio_is_file_lru(folio) ? LRU_INACTIVE_FILE : LRU_INACTIVE_ANON;
	if (folio_test_active(folio))
		lru += LRU_ACTIVE;
	return lru;
}

void lruvec_init(struct lruvec *lruvec)
{
	spin_lock_init(&lruvec->lru_lock);
	for (int lru = 0; lru < NR_LRU_LISTS; lru++) {
		INIT_LIST_HEAD(&lruvec->lists[lru]);
		lruvec->nr_pages[lru] = 0;
	}
}

/* Under lru_lock; reclaim sizes its scans from these without it. */
void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages)
{
	WRITE_ONCE(lruvec->nr_pages[lru], lruvec->nr_pages[lru] + nr_pages);
}

/* lruvec_add_folio(): at the head, where the newest folios go. */
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	list_add(&folio->lru, &lruvec->lists[lru]);
	update_lru_size(lruvec, lru, (long)folio_nr_pages(folio));
}

void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio)
{
	enum lru_list lru = folio_lru_list(folio);

	list_del(&folio->lru);
	update_lru_size(lruvec, lru, -(long)folio_nr_pages(folio));
}

void folio_add_lru(struct folio *folio)
{
	struct lruvec *lruvec = &node_lruvec;

	VM_WARN_ON_ONCE_FOLIO(folio_test_lru(folio), folio);
	spin_lock(&lruvec->lru_lock);
	folio_set_lru(folio);
	lruvec_add_folio(lruvec, folio);
	spin_unlock(&lruvec->lru_lock);
}

/*
 * folio_activate(): move an inactive folio on the LRU to the active list.
 * The kernel batches the move per CPU (lru_activate); it happens once per
 * folio, never in a steady read loop, so the model moves it at once.
 */
static void folio_activate(struct folio *folio)
{
	struct lruvec *lruvec = &node_lruvec;

	spin_lock(&lruvec->lru_lock);
	if (folio_test_lru(folio) && !folio_test_active(folio) && !folio_test_unevictable(folio)) {
		lruvec_del_folio(lruvec, folio);
		folio_set_active(folio);
		lruvec_add_folio(lruvec, folio);
	}
	spin_unlock(&lruvec->lru_lock);
}

/*
 * The classic LRU's two-touch rule: the first access sets PG_referenced,
 * the second activates the folio and clears it.  An active, referenced
 * folio costs only the flag reads.
 */
void folio_mark_accessed(struct folio *folio)
{
	if (!folio_test_referenced(folio)) {
		folio_set_referenced(folio);
	} else if (folio_test_unevictable(folio)) {
		/* Unevictable folios are never activated. */
	} else if (!folio_test_active(folio)) {
		if (folio_test_lru(folio))
			folio_activate(folio);
		folio_clear_referenced(folio);
	}
}

void folio_lru_release(struct folio *folio)
{
	struct lruvec *lruvec = &node_lruvec;

	spin_lock(&lruvec->lru_lock);
	lruvec_del_folio(lruvec, folio);
	__folio_clear_lru(folio);
	__folio_clear_active(folio);
	spin_unlock(&lruvec->lru_lock);
}

void __folio_put(struct folio *folio)
{
	if (unlikely(folio_test_lru(folio)))
		folio_lru_release(folio);
	/*
	 * An anonymous folio still points to its anon_vma; the kernel clears
	 * that in free_pages_prepare() (PageMappingFlags), the model here, off
	 * the allocator's paths that other experiments time.  (PG_swapbacked
	 * goes with the other flags at free.)
	 */
	if (folio_test_anon(folio))
		folio->mapping = NULL;
	VM_WARN_ON_ONCE_FOLIO(folio->mapping != NULL, folio);
	free_frozen_pages(&folio->page, folio_order(folio));
}
