// SPDX-License-Identifier: GPL-2.0
/*
 * Page migration (mm/migrate.c), for anonymous folios, in the kernel's
 * structure:
 *
 *  migrate_pages()          batches of at most NR_MAX_BATCHED_MIGRATION
 *                           pages; in MIGRATE_SYNC mode first a batched
 *                           MIGRATE_ASYNC pass, then what is left one folio
 *                           at a time, synchronously (migrate_pages_sync())
 *  migrate_pages_batch()    unmap every folio of the batch
 *                           (migrate_folio_unmap()), one TLB flush for all
 *                           the entries the asynchronous unmap deferred,
 *                           then move every unmapped folio
 *                           (migrate_folio_move()); retried passes; what
 *                           is left is undone
 *  migrate_folio_unmap()    a target folio, the source locked (trylock,
 *                           then sleep unless ASYNC), its anon_vma pinned
 *                           (folio_get_anon_vma()), the target locked,
 *                           try_to_migrate()
 *  migrate_folio_move()     move_to_new_folio() (the refcount must be the
 *                           expected one; data, mapping, index and flags
 *                           move), the target onto the LRU,
 *                           remove_migration_ptes(), unlock both, free the
 *                           source
 *
 * and on failure the undo path: the migration entries are restored to the
 * source (remove_migration_ptes(src, src)), the target freed, the source
 * left for putback.
 *
 * Designs (seed 003, see linux/migrate.h): vanilla never stops a restore
 * walk early; mgt-entry (CONFIG_MGT_ENTRY) and mgt-counter
 * (CONFIG_MGT_COUNTER) count the migration entries naming the
 * source and end remove_migration_ptes()' walk once none is left.
 *
 * Departures: anonymous folios only (no page cache replacement, no
 * movable_ops pages, no hugetlb, no split of large folios that fail); no
 * NR_ISOLATED_* statistics; no GUP pins, so try_to_migrate() never fails
 * on an exclusive page.
 */
#include <string.h>

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/guest_touch.h>
#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/swapops.h>

/* What migrate_folio_unmap() leaves for migrate_folio_move(), in dst->private. */
#define PAGE_WAS_MAPPED		BIT(0)
#define PAGE_WAS_MLOCKED	BIT(1)
#define PAGE_OLD_STATES		(PAGE_WAS_MAPPED | PAGE_WAS_MLOCKED)

static void __migrate_folio_record(struct folio *dst, int old_page_state,
				   struct anon_vma *anon_vma)
{
	dst->private = (void *)((unsigned long)anon_vma | (unsigned long)old_page_state);
}

static void __migrate_folio_extract(struct folio *dst, int *old_page_state,
				    struct anon_vma **anon_vmap)
{
	unsigned long private = (unsigned long)dst->private;

	*anon_vmap = (struct anon_vma *)(private & ~PAGE_OLD_STATES);
	*old_page_state = (int)(private & PAGE_OLD_STATES);
	dst->private = NULL;
}

/* --- the LRU side --------------------------------------------------------------------- */

void folio_putback_lru(struct folio *folio)
{
	folio_add_lru(folio);
	folio_put(folio);		/* the isolation reference */
}

void putback_movable_pages(struct list_head *l)
{
	struct folio *folio, *folio2;

	list_for_each_entry_safe(folio, folio2, l, lru) {
		list_del(&folio->lru);
		folio_putback_lru(folio);
	}
}

/* --- moving one folio ------------------------------------------------------------------- */

/*
 * References an unmapped anonymous folio is expected to hold besides the
 * caller's: none (no swap cache in the model), plus one per mapping.
 */
static int folio_expected_ref_count(const struct folio *folio)
{
	return folio_mapped(folio) ? folio_mapcount(folio) : 0;
}

/* The new folio takes the old one's place: index, anon_vma, swapbacked. */
static int __folio_migrate_mapping(struct folio *newfolio, struct folio *folio,
				   int expected_count)
{
	/* A large folio is frozen while it leaves any deferred-split queue. */
	if (folio_test_large(folio)) {
		if (!folio_ref_freeze(folio, expected_count))
			return -EAGAIN;
		folio_ref_unfreeze(folio, expected_count);
	}
	/* No turning back from here. */
	newfolio->index = folio->index;
	WRITE_ONCE(newfolio->mapping, folio->mapping);
	if (folio_test_swapbacked(folio))
		__folio_set_swapbacked(newfolio);
	return MIGRATEPAGE_SUCCESS;
}

/*
 * mem_cgroup_migrate(), which folio_migrate_flags() ends with in the kernel
 * (the charge moves to the new folio; the old one is uncharged when freed):
 * migrate-fork runs with no cgroup (linux/memcontrol.h), so its cost is
 * this delay per folio, 0 unless a workload sets it (migrate-fork
 * --memcg-ns).
 */
unsigned long migrate_memcg_ns;

static void folio_migrate_flags(struct folio *newfolio, struct folio *folio)
{
	if (folio_test_referenced(folio))
		folio_set_referenced(newfolio);
	if (folio_test_uptodate(folio))
		folio_mark_uptodate(newfolio);
	if (folio_test_clear_active(folio))
		folio_set_active(newfolio);
	else if (folio_test_clear_unevictable(folio))
		folio_set_unevictable(newfolio);
	if (folio_test_workingset(folio))
		folio_set_workingset(newfolio);
	if (folio_test_dirty(folio))
		folio_set_dirty(newfolio);
	folio_clear_private(folio);
	folio->private = NULL;
	if (migrate_memcg_ns)
		ndelay(migrate_memcg_ns);	/* mem_cgroup_migrate() */
}

/* migrate_folio() for a folio without a mapping (anonymous): copy, then move. */
static int migrate_folio(struct folio *dst, struct folio *src, enum migrate_mode mode)
{
	int expected_count = folio_expected_ref_count(src) + 1;
	int rc;

	(void)mode;
	/* Extra references (a pin, a racing lookup): try again later. */
	if (folio_ref_count(src) != expected_count)
		return -EAGAIN;
	/* The copy is the target's first write: a guest frame the host never backed faults. */
	guest_touch_write(&dst->page, folio_order(dst));
	memcpy(folio_address(dst), folio_address(src), folio_size(src));	/* folio_mc_copy() */
	rc = __folio_migrate_mapping(dst, src, expected_count);
	if (rc != MIGRATEPAGE_SUCCESS)
		return rc;
	folio_migrate_flags(dst, src);
	return MIGRATEPAGE_SUCCESS;
}

static int move_to_new_folio(struct folio *dst, struct folio *src, enum migrate_mode mode)
{
	unsigned long t0 = rmap_time_start();
	int rc;

	VM_WARN_ON_ONCE_FOLIO(!folio_test_locked(src), src);
	VM_WARN_ON_ONCE_FOLIO(!folio_test_locked(dst), dst);
	/* An anonymous source stays anonymous until it is freed. */
	rc = migrate_folio(dst, src, mode);
	rmap_time_add(MIGRATE_MOVE_NS, t0);
	return rc;
}

static void migrate_folio_done(struct folio *src, enum migrate_reason reason)
{
	(void)reason;
	folio_put(src);			/* the isolation reference: the last one */
}

/* The source back as it was: its entries restored, unlocked, onto @ret for putback. */
static void migrate_folio_undo_src(struct folio *src, int page_was_mapped,
				   struct anon_vma *anon_vma, bool locked, struct list_head *ret)
{
	if (page_was_mapped)
		remove_migration_ptes(src, src, 0);
	if (anon_vma)
		put_anon_vma(anon_vma);
	if (locked)
		folio_unlock(src);
	if (ret)
		list_move_tail(&src->lru, ret);
}

static void migrate_folio_undo_dst(struct folio *dst, bool locked, free_folio_t put_new_folio,
				   unsigned long private)
{
	if (locked)
		folio_unlock(dst);
	if (put_new_folio)
		put_new_folio(dst, private);
	else
		folio_put(dst);
}

/*
 * Get a target for @src and unmap @src: MIGRATEPAGE_UNMAP with the target
 * in *@dstp (its record in dst->private), MIGRATEPAGE_SUCCESS if the
 * source was freed meanwhile, -EAGAIN to retry, another error to give up.
 */
static int migrate_folio_unmap(new_folio_t get_new_folio, free_folio_t put_new_folio,
			       unsigned long private, struct folio *src, struct folio **dstp,
			       enum migrate_mode mode, enum migrate_reason reason,
			       struct list_head *ret)
{
	struct anon_vma *anon_vma = NULL;
	bool locked = false, dst_locked = false;
	int old_page_state = 0;
	struct folio *dst;
	int rc = -EAGAIN;

	if (folio_ref_count(src) == 1) {
		/* Freed from under us: the isolation reference is the last. */
		folio_clear_active(src);
		folio_clear_unevictable(src);
		list_del(&src->lru);
		migrate_folio_done(src, reason);
		return MIGRATEPAGE_SUCCESS;
	}
	dst = get_new_folio(src, private);
	if (!dst)
		return -ENOMEM;
	*dstp = dst;
	dst->private = NULL;

	if (!folio_trylock(src)) {
		if (mode == MIGRATE_ASYNC)
			goto out;
		folio_lock(src);
	}
	locked = true;
	if (folio_test_mlocked(src))
		old_page_state |= PAGE_WAS_MLOCKED;
	/*
	 * try_to_migrate() takes the mapcount to 0, after which nothing
	 * keeps the anon_vma alive: pin it until the migration is over.
	 */
	if (folio_test_anon(src))
		anon_vma = folio_get_anon_vma(src);
	/* Nobody may reach the new folio before its entries exist. */
	if (unlikely(!folio_trylock(dst)))
		goto out;
	dst_locked = true;
	if (folio_mapped(src)) {
		VM_WARN_ON_ONCE_FOLIO(folio_test_anon(src) && !anon_vma, src);
		try_to_migrate(src, mode == MIGRATE_ASYNC ? TTU_BATCH_FLUSH : 0);
		old_page_state |= PAGE_WAS_MAPPED;
	}
	if (!folio_mapped(src)) {
		__migrate_folio_record(dst, old_page_state, anon_vma);
		return MIGRATEPAGE_UNMAP;
	}
out:
	/* Not unmapped: back to the right list (a retry keeps it on the batch). */
	if (rc == -EAGAIN)
		ret = NULL;
	migrate_folio_undo_src(src, old_page_state & PAGE_WAS_MAPPED, anon_vma, locked, ret);
	migrate_folio_undo_dst(dst, dst_locked, put_new_folio, private);
	return rc;
}

/* Move an unmapped source into its target and map the target where the source was. */
static int migrate_folio_move(free_folio_t put_new_folio, unsigned long private,
			      struct folio *src, struct folio *dst, enum migrate_mode mode,
			      enum migrate_reason reason, struct list_head *ret)
{
	struct anon_vma *anon_vma = NULL;
	int old_page_state = 0;
	struct list_head *prev;
	int rc;

	__migrate_folio_extract(dst, &old_page_state, &anon_vma);
	prev = dst->lru.prev;
	list_del(&dst->lru);

	rc = move_to_new_folio(dst, src, mode);
	if (rc)
		goto out;
	folio_add_lru(dst);
	if (old_page_state & PAGE_WAS_MAPPED)
		remove_migration_ptes(src, dst, 0);
	folio_unlock(dst);
	/* The mappings hold the target now: drop the allocation's reference. */
	folio_put(dst);
	list_del(&src->lru);
	if (anon_vma)
		put_anon_vma(anon_vma);
	folio_unlock(src);
	migrate_folio_done(src, reason);
	return rc;
out:
	/* Keep the pair for another pass, or undo both. */
	if (rc == -EAGAIN) {
		list_add(&dst->lru, prev);
		__migrate_folio_record(dst, old_page_state, anon_vma);
		return rc;
	}
	migrate_folio_undo_src(src, old_page_state & PAGE_WAS_MAPPED, anon_vma, true, ret);
	migrate_folio_undo_dst(dst, true, put_new_folio, private);
	return rc;
}

/* --- batches ------------------------------------------------------------------------------ */

struct migrate_pages_stats {
	int nr_succeeded;	/* pages */
	int nr_failed_pages;
};

static int migrate_pages_batch(struct list_head *from, new_folio_t get_new_folio,
			       free_folio_t put_new_folio, unsigned long private,
			       enum migrate_mode mode, int reason, struct list_head *ret_folios,
			       struct migrate_pages_stats *stats, int nr_pass)
{
	LIST_HEAD(unmap_folios);
	LIST_HEAD(dst_folios);
	struct folio *folio, *folio2, *dst = NULL, *dst2;
	int retry = 1, nr_failed = 0, rc, rc_saved = 0;
	int nr_retry_pages = 0;

	for (int pass = 0; pass < nr_pass && retry; pass++) {
		retry = 0;
		nr_retry_pages = 0;
		list_for_each_entry_safe(folio, folio2, from, lru) {
			int nr_pages = (int)folio_nr_pages(folio);

			cond_resched();
			rc = migrate_folio_unmap(get_new_folio, put_new_folio, private, folio, &dst,
						 mode, reason, ret_folios);
			switch (rc) {
			case -ENOMEM:
				/*
				 * No target: move what was unmapped and stop;
				 * the rest stays on @from for the caller.
				 */
				nr_failed++;
				stats->nr_failed_pages += nr_pages + nr_retry_pages;
				rc_saved = rc;
				goto move;
			case -EAGAIN:
				retry++;
				nr_retry_pages += nr_pages;
				break;
			case MIGRATEPAGE_SUCCESS:
				stats->nr_succeeded += nr_pages;
				break;
			case MIGRATEPAGE_UNMAP:
				list_move_tail(&folio->lru, &unmap_folios);
				list_add_tail(&dst->lru, &dst_folios);
				break;
			default:
				/* Permanent failure: the folio went back to ret_folios. */
				nr_failed++;
				stats->nr_failed_pages += nr_pages;
				break;
			}
		}
	}
	nr_failed += retry;
	stats->nr_failed_pages += nr_retry_pages;
move:
	/* One flush for every entry the asynchronous unmaps deferred. */
	try_to_unmap_flush();

	retry = 1;
	for (int pass = 0; pass < nr_pass && retry; pass++) {
		retry = 0;
		nr_retry_pages = 0;
		dst = list_first_entry(&dst_folios, struct folio, lru);
		dst2 = list_next_entry(dst, lru);
		list_for_each_entry_safe(folio, folio2, &unmap_folios, lru) {
			int nr_pages = (int)folio_nr_pages(folio);

			cond_resched();
			rc = migrate_folio_move(put_new_folio, private, folio, dst, mode, reason,
						ret_folios);
			switch (rc) {
			case -EAGAIN:
				retry++;
				nr_retry_pages += nr_pages;
				break;
			case MIGRATEPAGE_SUCCESS:
				stats->nr_succeeded += nr_pages;
				break;
			default:
				nr_failed++;
				stats->nr_failed_pages += nr_pages;
				break;
			}
			dst = dst2;
			dst2 = list_next_entry(dst, lru);
		}
	}
	nr_failed += retry;
	stats->nr_failed_pages += nr_retry_pages;
	rc = rc_saved ? rc_saved : nr_failed;

	/* What is still unmapped after the passes: undo. */
	dst = list_first_entry(&dst_folios, struct folio, lru);
	dst2 = list_next_entry(dst, lru);
	list_for_each_entry_safe(folio, folio2, &unmap_folios, lru) {
		struct anon_vma *anon_vma = NULL;
		int old_page_state = 0;

		__migrate_folio_extract(dst, &old_page_state, &anon_vma);
		migrate_folio_undo_src(folio, old_page_state & PAGE_WAS_MAPPED, anon_vma, true,
				       ret_folios);
		list_del(&dst->lru);
		migrate_folio_undo_dst(dst, true, put_new_folio, private);
		dst = dst2;
		dst2 = list_next_entry(dst, lru);
	}
	return rc;
}

/*
 * MIGRATE_SYNC: the batch asynchronously first (cheap: one TLB flush for
 * all), then whatever is left one folio at a time, synchronously.
 */
static int migrate_pages_sync(struct list_head *from, new_folio_t get_new_folio,
			      free_folio_t put_new_folio, unsigned long private,
			      enum migrate_mode mode, int reason, struct list_head *ret_folios,
			      struct migrate_pages_stats *stats)
{
	struct migrate_pages_stats astats = { 0 };
	LIST_HEAD(folios);
	int rc, nr_failed = 0;

	rc = migrate_pages_batch(from, get_new_folio, put_new_folio, private, MIGRATE_ASYNC,
				 reason, &folios, &astats, NR_MAX_MIGRATE_ASYNC_RETRY);
	stats->nr_succeeded += astats.nr_succeeded;
	if (rc < 0) {
		stats->nr_failed_pages += astats.nr_failed_pages;
		list_splice_tail_init(&folios, ret_folios);
		return rc;
	}
	/*
	 * Every folio the asynchronous pass left gets the synchronous
	 * retries, one at a time; its failures there are what count.
	 */
	list_splice_tail_init(&folios, from);
	while (!list_empty(from)) {
		list_move(from->next, &folios);
		rc = migrate_pages_batch(&folios, get_new_folio, put_new_folio, private, mode,
					 reason, ret_folios, stats, NR_MAX_MIGRATE_SYNC_RETRY);
		list_splice_tail_init(&folios, ret_folios);
		if (rc < 0)
			return rc;
		nr_failed += rc;
	}
	return nr_failed;
}

int migrate_pages(struct list_head *from, new_folio_t get_new_folio, free_folio_t put_new_folio,
		  unsigned long private, enum migrate_mode mode, int reason,
		  unsigned int *ret_succeeded)
{
	struct migrate_pages_stats stats = { 0 };
	LIST_HEAD(ret_folios);
	LIST_HEAD(folios);
	int rc, rc_gather = 0;

	while (!list_empty(from)) {
		struct folio *folio, *folio2;
		int nr_pages = 0;

		/* The next batch: up to NR_MAX_BATCHED_MIGRATION pages. */
		list_for_each_entry_safe(folio, folio2, from, lru) {
			nr_pages += (int)folio_nr_pages(folio);
			list_move_tail(&folio->lru, &folios);
			if (nr_pages >= NR_MAX_BATCHED_MIGRATION)
				break;
		}
		if (mode == MIGRATE_ASYNC)
			rc = migrate_pages_batch(&folios, get_new_folio, put_new_folio, private,
						 mode, reason, &ret_folios, &stats,
						 NR_MAX_MIGRATE_PAGES_RETRY);
		else
			rc = migrate_pages_sync(&folios, get_new_folio, put_new_folio, private,
						mode, reason, &ret_folios, &stats);
		list_splice_tail_init(&folios, &ret_folios);
		if (rc < 0) {
			rc_gather = rc;
			list_splice_tail_init(from, &ret_folios);
			break;
		}
		rc_gather += rc;
	}
	/* What failed goes back to the caller, for putback. */
	list_splice(&ret_folios, from);
	if (stats.nr_succeeded)
		count_vm_events(PGMIGRATE_SUCCESS, (unsigned long)stats.nr_succeeded);
	if (stats.nr_failed_pages)
		count_vm_events(PGMIGRATE_FAIL, (unsigned long)stats.nr_failed_pages);
	if (ret_succeeded)
		*ret_succeeded = (unsigned int)stats.nr_succeeded;
	return rc_gather;
}

/* --- restoring the entries -------------------------------------------------------------- */

/* Deliberately broken restore, for the tests (Makefile: migrate-stop-restore). */
#ifndef CONFIG_MIGRATE_MUTANT_STOP_RESTORE
/* Upstream: no done callback, every VMA of the rmap is visited. */
#define remove_migration_done	NULL
#else
/* The mutant: stop once the new folio is mapped anywhere at all. */
static bool remove_migration_done(struct folio *folio)
{
	return folio_mapped(folio);
}
#endif

/*
 * David Hildenbrand's other idea, for the tests (Makefile:
 * migrate-stop-exclusive): stop the walk after restoring an exclusive
 * entry.  Unsound for a large folio mapped by several VMAs (docs/design/
 * seed-003-migrate-fork.md, test_migrate's split VMA).
 */
#ifndef CONFIG_MIGRATE_MUTANT_STOP_EXCLUSIVE
static inline bool restored_exclusive_ends_walk(rmap_t rmap_flags)
{
	(void)rmap_flags;
	return false;
}
#else
static inline bool restored_exclusive_ends_walk(rmap_t rmap_flags)
{
	return rmap_flags & RMAP_EXCLUSIVE;
}
#endif

struct rmap_walk_arg {
	struct folio *folio;	/* the folio the migration entries name */
};

/* Every migration entry for the source in this VMA becomes an entry for @folio. */
static bool remove_migration_pte(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long addr, void *arg)
{
	struct rmap_walk_arg *rmap_walk_arg = arg;
	DEFINE_FOLIO_VMA_WALK(pvmw, rmap_walk_arg->folio, vma, addr, PVMW_SYNC | PVMW_MIGRATION);
	bool exclusive = false;

	count_debug_vm_event(MIGRATE_RESTORE_VMAS);
	while (page_vma_mapped_walk(&pvmw)) {
		rmap_t rmap_flags = RMAP_NONE;
		unsigned long idx = 0;
		pte_t old_pte, pte;
		swp_entry_t entry;
		struct page *new;

		if (folio_test_large(folio))
			idx = linear_page_index(vma, pvmw.address) - pvmw.pgoff;
		new = folio_page(folio, idx);
		folio_get(folio);
		pte = mk_pte(new, vma->vm_page_prot);
		old_pte = ptep_get(pvmw.pte);
		entry = pte_to_swp_entry(old_pte);
		if (!is_migration_entry_young(entry))
			pte = pte_mkold(pte);
		if (folio_test_dirty(folio) && is_migration_entry_dirty(entry))
			pte = pte_mkdirty(pte);
		if (is_writable_migration_entry(entry))
			pte = pte_mkwrite(pte);
		if (folio_test_anon(folio) && !is_readable_migration_entry(entry))
			rmap_flags |= RMAP_EXCLUSIVE;
		folio_add_anon_rmap_pte(folio, new, vma, pvmw.address, rmap_flags);
		set_pte_at(vma->vm_mm, pvmw.address, pvmw.pte, pte);
		/* No flush: the entry was not present. */
		count_debug_vm_event(MIGRATE_ENTRIES_REMOVED);
		folio_migration_entries_add(rmap_walk_arg->folio, -1);
		exclusive |= restored_exclusive_ends_walk(rmap_flags);
	}
	/* Go on while entries naming the source may be left (vanilla: always). */
	return !exclusive && folio_migration_entries_remain(rmap_walk_arg->folio);
}

void remove_migration_ptes(struct folio *src, struct folio *dst, int flags)
{
	struct rmap_walk_arg rmap_walk_arg = { .folio = src };
	struct rmap_walk_control rwc = {
		.rmap_one = remove_migration_pte,
		.done = remove_migration_done,
		.arg = &rmap_walk_arg,
	};

	unsigned long t0 = rmap_time_start();

	/* The undo path maps the source again: its mapcount must be one. */
	if (src == dst)
		folio_migration_entries_forget(src);
	if (flags & RMP_LOCKED)
		rmap_walk_locked(dst, &rwc);
	else
		rmap_walk(dst, &rwc);
	folio_migration_entries_forget(src);
	rmap_time_add(MIGRATE_RESTORE_NS, t0);
}

/* --- faults on migration entries --------------------------------------------------------- */

void migration_entry_wait(struct mm_struct *mm, pmd_t *pmd, unsigned long address)
{
	swp_entry_t entry;
	spinlock_t *ptl;
	pte_t *ptep, pte;

	ptep = pte_offset_map_lock(mm, pmd, address, &ptl);
	pte = ptep_get(ptep);
	if (!is_swap_pte(pte))
		goto out;
	entry = pte_to_swp_entry(pte);
	if (!is_migration_entry(entry))
		goto out;
	/*
	 * migration_entry_wait_on_locked(): the kernel queues on the folio's
	 * wait queue under the page table lock and sleeps until the
	 * migration unlocks the folio, after its entries are restored, never
	 * touching the folio again (it may be freed by then).  The model
	 * waits, without the lock, for this entry to be replaced, which the
	 * migration does before that unlock; the page table stays, since the
	 * faulting thread holds the mmap_lock.
	 */
	spin_unlock(ptl);
	while (pte_same(ptep_get(ptep), pte))
		io_schedule();
	pte_unmap(ptep);
	return;
out:
	pte_unmap_unlock(ptep, ptl);
}

/* --- targets and entry points ----------------------------------------------------------- */

struct folio *alloc_migration_target(struct folio *src, unsigned long private)
{
	int nid = (int)private;

	return __folio_alloc_node(GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NOWARN,
				  folio_order(src), nid);
}

/*
 * Could another process map this folio?  Small: more than one mapping.
 * Large: any page mapped more than once (the kernel tracks the mms
 * mapping a large folio; the model cannot see two mms mapping different
 * pages of one).
 */
static bool folio_maybe_mapped_shared(struct folio *folio)
{
	if (!folio_test_large(folio))
		return folio_mapcount(folio) > 1;
	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		if (page_mapcount(folio_page(folio, i)) > 1)
			return true;
	return false;
}

/* Isolate @folio onto @list if it may move (migrate_folio_add()). */
static bool migrate_folio_add(struct folio *folio, struct list_head *list, unsigned int flags)
{
	if (folio_maybe_mapped_shared(folio) && !(flags & MPOL_MF_MOVE_ALL))
		return false;
	if (!folio_isolate_lru(folio))
		return false;		/* isolated already (another entry of it), or not on the LRU */
	list_add_tail(&folio->lru, list);
	return true;
}

/*
 * queue_pages_range(): every anonymous folio mapped in [start, end) of
 * @mm, not already on @nid (MPOL_MF_INVERT), onto @list.  Page table lock
 * per table.
 */
static void queue_pages_range(struct mm_struct *mm, unsigned long start, unsigned long end,
			      int nid, unsigned int flags, struct list_head *list)
{
	unsigned long addr = start, next;

	for (; addr < end; addr = next) {
		struct vm_area_struct *vma = find_vma(mm, addr);
		pte_t *start_pte, *pte;
		spinlock_t *ptl;
		pmd_t *pmd;

		if (!vma || vma->vm_start >= end)
			break;
		if (addr < vma->vm_start)
			addr = vma->vm_start;
		next = min(pmd_addr_end(addr, end), vma->vm_end);
		pmd = mm_find_pmd(mm, addr);
		if (!pmd || pmd_none(pmdp_get(pmd)) || !vma_is_anonymous(vma))
			continue;
		start_pte = pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
		for (unsigned long a = addr; a < next; a += PAGE_SIZE, pte++) {
			pte_t ptent = ptep_get(pte);
			struct folio *folio;

			if (!pte_present(ptent))
				continue;
			folio = page_folio(pte_page(ptent));
			if (!folio_test_anon(folio) || folio_nid(folio) == nid)
				continue;
			migrate_folio_add(folio, list, flags);
		}
		pte_unmap_unlock(start_pte, ptl);
	}
}

long do_mbind(struct mm_struct *mm, unsigned long start, unsigned long len, int nid,
	      unsigned int flags)
{
	LIST_HEAD(pagelist);
	long nr_failed = 0;

	if ((start | len) & ~PAGE_MASK || !len || nid < 0 || nid >= nr_online_nodes ||
	    !(flags & (MPOL_MF_MOVE | MPOL_MF_MOVE_ALL)))
		return -EINVAL;
	lru_cache_disable();
	mmap_write_lock(mm);
	queue_pages_range(mm, start, start + len, nid, flags, &pagelist);
	if (!list_empty(&pagelist)) {
		nr_failed = migrate_pages(&pagelist, alloc_migration_target, NULL,
					  (unsigned long)nid, MIGRATE_SYNC, MR_MEMPOLICY_MBIND, NULL);
		if (nr_failed)
			putback_movable_pages(&pagelist);
	}
	mmap_write_unlock(mm);
	lru_cache_enable();
	return nr_failed ? -EIO : 0;
}

/* The folio mapped at @addr, isolated for a move to @node (add_folio_for_migration()). */
static int add_folio_for_migration(struct mm_struct *mm, unsigned long addr, int node,
				   struct list_head *pagelist, bool migrate_all)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	pmd_t *pmd = mm_find_pmd(mm, addr);
	struct folio *folio;
	spinlock_t *ptl;
	pte_t *pte, ptent;
	int err = -EFAULT;

	if (!vma || !vma_is_anonymous(vma) || !pmd || pmd_none(pmdp_get(pmd)))
		return -EFAULT;
	pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	ptent = ptep_get(pte);
	if (!pte_present(ptent))
		goto out;
	folio = page_folio(pte_page(ptent));
	err = 0;
	if (folio_nid(folio) == node)
		goto out;		/* already there */
	err = -EACCES;
	if (folio_maybe_mapped_shared(folio) && !migrate_all)
		goto out;
	err = 1;
	if (!folio_isolate_lru(folio))
		err = 0;		/* isolated already: moves with the first address */
	else
		list_add_tail(&folio->lru, pagelist);
out:
	pte_unmap_unlock(pte, ptl);
	return err;
}

/* The node of the folio at each address, or the error (do_pages_stat_array()). */
static void do_pages_stat(struct mm_struct *mm, unsigned long nr, const unsigned long *pages,
			  int *status)
{
	for (unsigned long i = 0; i < nr; i++) {
		pte_t *ptep = mm_find_pte(mm, pages[i]);
		pte_t pte = ptep ? ptep_get(ptep) : __pte(0);

		if (status[i] < 0)
			continue;
		status[i] = pte_present(pte) ? page_to_nid(pte_page(pte)) : -EFAULT;
	}
}

long do_pages_move(struct mm_struct *mm, unsigned long nr, const unsigned long *pages,
		   const int *nodes, int *status, unsigned int flags)
{
	long ret = 0;

	lru_cache_disable();
	mmap_read_lock(mm);
	for (unsigned long start = 0; start < nr && ret >= 0; ) {
		int node = nodes[start];
		LIST_HEAD(pagelist);
		unsigned long i = start;

		if (node < 0 || node >= nr_online_nodes) {
			ret = -ENODEV;
			break;
		}
		/* One node at a time: the run of addresses going to it. */
		for (; i < nr && nodes[i] == node; i++) {
			int err = add_folio_for_migration(mm, pages[i] & PAGE_MASK, node, &pagelist,
							  flags & MPOL_MF_MOVE_ALL);

			status[i] = err < 0 ? err : node;
		}
		if (!list_empty(&pagelist) &&
		    migrate_pages(&pagelist, alloc_migration_target, NULL, (unsigned long)node,
				  MIGRATE_SYNC, MR_SYSCALL, NULL))
			putback_movable_pages(&pagelist);
		start = i;
	}
	do_pages_stat(mm, nr, pages, status);
	mmap_read_unlock(mm);
	lru_cache_enable();
	return ret;
}
