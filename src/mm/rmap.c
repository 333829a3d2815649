// SPDX-License-Identifier: GPL-2.0
/*
 * Reverse mapping (mm/rmap.c): mapcounts of file and anonymous folios, the
 * i_mmap and anon_vma walks, folio_referenced() and try_to_unmap() (of
 * file folios).  The anon_vmas themselves are in anon_vma.c.
 *
 * Designs (see Makefile):
 *  vanilla                      folio_referenced_one() and try_to_unmap_one()
 *                               act on one PTE per step of the walk
 *  CONFIG_RMAP_BATCHED_REFERENCED the series' patches 1-4: folio_referenced_one()
 *                               takes the run of PTEs mapping the folio in one
 *                               page table (folio_pte_batch) and ages it with
 *                               one clear_flush_young_ptes(); it stops once
 *                               the whole folio is accounted for
 *  CONFIG_RMAP_BATCHED      patch 5: try_to_unmap_one() clears such a run
 *                               of a file folio at once and adjusts the
 *                               counters by its length
 * Mutants, for the tests: CONFIG_RMAP_MUTANT_PAST_PMD (a batch bounded by the
 * VMA but not the page table), CONFIG_RMAP_MUTANT_PAST_FOLIO (folio_pte_batch
 * not bounded by the folio's end), CONFIG_RMAP_MUTANT_NOTIFY_NR (the v3
 * notifier macro, linux/mmu_notifier.h).
 */
#include <time.h>

#include <linux/ktime.h>
#include <linux/migrate.h>
#include <linux/mmu_notifier.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/swapops.h>

#ifdef CONFIG_DEBUG_VM_EVENTS
unsigned long rmap_clock_ns(void)
{
	return ktime_get_ns();
}
#endif

/* --- mapcounts -------------------------------------------------------------------------- */

/*
 * Count @nr more PTE mappings of the pages from @page; returns how many of
 * them went from unmapped to mapped (the kernel's __folio_add_rmap()).
 */
static __always_inline int __folio_add_rmap(struct folio *folio, struct page *page, int nr)
{
	int first = 0;

	if (!folio_test_large(folio)) {
		VM_WARN_ON_ONCE_FOLIO(nr != 1, folio);
		first = atomic_inc_and_test(&page->_mapcount);
	} else {
		for (int i = 0; i < nr; i++)
			first += atomic_inc_and_test(&page[i]._mapcount);
		if (first)	/* the kernel's RMW only when a page became mapped */
			atomic_add(first, &folio->_nr_pages_mapped);
		atomic_add(nr, &folio->_large_mapcount);
	}
	return first;
}

/* NR_ANON_MAPPED or NR_FILE_MAPPED, by what the folio is (__folio_mod_stat). */
static __always_inline void __folio_mod_stat(struct folio *folio, int nr)
{
	if (nr)
		__lruvec_stat_mod_folio(folio, folio_test_anon(folio) ? NR_ANON_MAPPED : NR_FILE_MAPPED,
					nr);
}

void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma)
{
	(void)vma;
	__folio_mod_stat(folio, __folio_add_rmap(folio, page, nr));
}

void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma)
{
	int last = 0;

	(void)vma;
	if (!folio_test_large(folio)) {
		VM_WARN_ON_ONCE_FOLIO(nr != 1, folio);
		last = atomic_add_negative(-1, &page->_mapcount);
	} else {
		atomic_sub(nr, &folio->_large_mapcount);
		for (int i = 0; i < nr; i++)
			last += atomic_add_negative(-1, &page[i]._mapcount);
		if (last)	/* only when a page's last mapping went, as the kernel */
			atomic_sub(last, &folio->_nr_pages_mapped);
	}
	VM_WARN_ON_ONCE_FOLIO(folio_mapcount(folio) < 0, folio);
	__folio_mod_stat(folio, -last);
}

/* --- the anon rmap's mapcounts -------------------------------------------------------------- */

/*
 * Point a new anonymous folio at @vma's anon_vma.  A folio that may be
 * shared (not exclusive) must point at the oldest anon_vma that can reach
 * every VMA mapping it: the root.  One store, so that a lockless reader of
 * folio->mapping never sees the type bit without the anon_vma.
 */
static void __folio_set_anon(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address, bool exclusive)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	VM_BUG_ON(!anon_vma);
	if (!exclusive)
		anon_vma = anon_vma->root;
	WRITE_ONCE(folio->mapping,
		   (struct address_space *)((unsigned long)anon_vma | FOLIO_MAPPING_ANON));
	folio->index = linear_page_index(vma, address);
}

void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address, rmap_t flags)
{
	const bool exclusive = flags & RMAP_EXCLUSIVE;
	int nr = 1;

	VM_WARN_ON_ONCE(address < vma->vm_start || address + folio_size(folio) > vma->vm_end);
	if (!folio_test_swapbacked(folio))
		__folio_set_swapbacked(folio);
	__folio_set_anon(folio, vma, address, exclusive);
	if (likely(!folio_test_large(folio))) {
		/* Nobody else sees the folio yet: plain stores. */
		atomic_set(&folio->_mapcount, 0);
		if (exclusive)
			SetPageAnonExclusive(&folio->page);
	} else {
		nr = (int)folio_nr_pages(folio);
		for (int i = 0; i < nr; i++) {
			struct page *page = folio_page(folio, i);

			atomic_set(&page->_mapcount, 0);
			if (exclusive)
				SetPageAnonExclusive(page);
		}
		atomic_set(&folio->_large_mapcount, nr - 1);
		atomic_set(&folio->_nr_pages_mapped, nr);
	}
	__folio_mod_stat(folio, nr);
}

/* The folio must be reachable from @vma: same family, and mapped where its index says. */
static void __page_check_anon_rmap(struct folio *folio, struct page *page,
				   struct vm_area_struct *vma, unsigned long address)
{
	VM_WARN_ON_ONCE_FOLIO(folio_anon_vma(folio)->root != vma->anon_vma->root, folio);
	VM_WARN_ON_ONCE_FOLIO(folio->index + (unsigned long)(page - &folio->page) !=
			      linear_page_index(vma, address), folio);
}

void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma, unsigned long address, rmap_t flags)
{
	int first = __folio_add_rmap(folio, page, nr);

	__page_check_anon_rmap(folio, page, vma, address);
	for (int i = 0; i < nr; i++) {
		if (flags & RMAP_EXCLUSIVE)
			SetPageAnonExclusive(page + i);
		/* An exclusive page is mapped once. */
		VM_WARN_ON_ONCE_FOLIO(page_mapcount(page + i) > 1 && PageAnonExclusive(page + i),
				      folio);
	}
	__folio_mod_stat(folio, first);
}

int folio_try_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
				 struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	(void)dst_vma;
	(void)src_vma;
	VM_WARN_ON_ONCE_FOLIO(!folio_test_anon(folio), folio);
	/*
	 * The kernel refuses (-EBUSY) when a page may be pinned for DMA
	 * (folio_needs_cow_for_dma()), and fork copies it at once; the model
	 * has no pins.  Otherwise the pages become shared: not exclusive.
	 */
	for (int i = 0; i < nr; i++)
		if (PageAnonExclusive(page + i))
			ClearPageAnonExclusive(page + i);
	if (!folio_test_large(folio)) {
		VM_WARN_ON_ONCE_FOLIO(nr != 1, folio);
		atomic_inc(&page->_mapcount);
	} else {
		for (int i = 0; i < nr; i++)
			atomic_inc(&page[i]._mapcount);
		atomic_add(nr, &folio->_large_mapcount);
	}
	return 0;
}

void folio_move_anon_rmap(struct folio *folio, struct vm_area_struct *vma)
{
	struct anon_vma *anon_vma = vma->anon_vma;

	VM_WARN_ON_ONCE_FOLIO(!folio_test_locked(folio), folio);
	VM_BUG_ON(!anon_vma);
	/* One store: the anon_vma and the type bit together. */
	WRITE_ONCE(folio->mapping,
		   (struct address_space *)((unsigned long)anon_vma | FOLIO_MAPPING_ANON));
}

/* --- batches ------------------------------------------------------------------------------- */

/* The bits two entries of one batch may differ in: young, dirty, write. */
static inline pte_t pte_batch_clear_ignored(pte_t pte)
{
	return pte_mkold(pte_wrprotect(pte_mkclean(pte)));
}

/* A batch from @pte stops at @max_nr entries and at the end of @folio. */
#ifndef CONFIG_RMAP_MUTANT_PAST_FOLIO
static inline unsigned int folio_pte_batch_limit(struct folio *folio, pte_t pte,
						 unsigned int max_nr)
{
	return (unsigned int)min((unsigned long)max_nr,
				 folio_pfn(folio) + folio_nr_pages(folio) - pte_pfn(pte));
}
#else
/* The mutant: not bounded by the folio's end. */
static inline unsigned int folio_pte_batch_limit(struct folio *folio, pte_t pte,
						 unsigned int max_nr)
{
	return max_nr;
}
#endif

unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte, unsigned int max_nr)
{
	pte_t expected, *end_ptep;
	unsigned int nr;

	VM_WARN_ON_ONCE_FOLIO(!folio_test_large(folio) || max_nr < 1, folio);
	max_nr = folio_pte_batch_limit(folio, pte, max_nr);
	/* The caller's bound keeps the run inside this page table. */
	VM_WARN_ON_ONCE(((unsigned long)ptep & ~PAGE_MASK) / sizeof(pte_t) + max_nr > PTRS_PER_PTE);

	nr = pte_batch_hint(ptep, pte);
	expected = pte_advance_pfn(pte_batch_clear_ignored(pte), nr);
	end_ptep = ptep + max_nr;
	ptep += nr;
	while (ptep < end_ptep) {
		unsigned int step;

		pte = pte_batch_clear_ignored(ptep_get(ptep));
		if (pte_val(pte) != pte_val(expected))
			break;
		step = pte_batch_hint(ptep, pte);
		expected = pte_advance_pfn(expected, step);
		ptep += step;
		nr += step;
	}
	return min(nr, max_nr);
}

/* How far a batch from @address may reach: this page table and this VMA. */
#ifndef CONFIG_RMAP_MUTANT_PAST_PMD
static inline unsigned int batch_max_nr(struct vm_area_struct *vma, unsigned long address)
{
	return (unsigned int)((pmd_addr_end(address, vma->vm_end) - address) >> PAGE_SHIFT);
}
#else
/* The mutant: bounded by the VMA only, so a batch may run past its page table. */
static inline unsigned int batch_max_nr(struct vm_area_struct *vma, unsigned long address)
{
	return (unsigned int)((vma->vm_end - address) >> PAGE_SHIFT);
}
#endif

/* --- rmap_walk ------------------------------------------------------------------------------ */

static void rmap_walk_file(struct folio *folio, struct rmap_walk_control *rwc, bool locked)
{
	struct address_space *mapping = folio->mapping;
	pgoff_t pgoff_start = folio_index(folio);
	pgoff_t pgoff_end = pgoff_start + folio_nr_pages(folio) - 1;
	struct vm_area_struct *vma;

	/* A locked folio cannot leave its mapping under us. */
	VM_WARN_ON_ONCE_FOLIO(!folio_test_locked(folio), folio);
	if (!mapping)
		return;
	count_debug_vm_event(RMAP_WALKS);
	if (locked) {
		/* The caller holds i_mmap_rwsem. */
	} else if (rwc->try_lock) {
		if (!i_mmap_trylock_read(mapping)) {
			rwc->contended = true;
			return;
		}
	} else {
		i_mmap_lock_read(mapping);
	}
	vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff_start, pgoff_end) {
		unsigned long address = vma_address(vma, pgoff_start, folio_nr_pages(folio));

		VM_WARN_ON_ONCE(address == (unsigned long)-EFAULT);
		count_debug_vm_event(RMAP_VMAS);
		cond_resched();
		if (rwc->invalid_vma && rwc->invalid_vma(vma, rwc->arg))
			continue;
		if (!rwc->rmap_one(folio, vma, address, rwc->arg))
			break;
		if (rwc->done && rwc->done(folio))
			break;
	}
	if (rwc->exit)
		rwc->exit(folio, rwc->arg);
	if (!locked)
		i_mmap_unlock_read(mapping);
}

struct anon_vma *folio_lock_anon_vma_read(const struct folio *folio,
					  struct rmap_walk_control *rwc)
{
	struct anon_vma *anon_vma = NULL, *root_anon_vma;
	unsigned long anon_mapping;

	rcu_read_lock();
	anon_mapping = (unsigned long)READ_ONCE(folio->mapping);
	if ((anon_mapping & FOLIO_MAPPING_FLAGS) != FOLIO_MAPPING_ANON)
		goto out;
	if (!folio_mapped(folio))
		goto out;

	anon_vma = (struct anon_vma *)(anon_mapping - FOLIO_MAPPING_ANON);
	root_anon_vma = READ_ONCE(anon_vma->root);
	if (down_read_trylock(&root_anon_vma->rwsem)) {
		/*
		 * Still mapped: then this is still the folio's anon_vma, and
		 * the rwsem keeps it from being freed.
		 */
		if (!folio_mapped(folio)) {
			up_read(&root_anon_vma->rwsem);
			anon_vma = NULL;
		}
		goto out;
	}
	if (rwc && rwc->try_lock) {
		anon_vma = NULL;
		rwc->contended = true;
		goto out;
	}
	/* The trylock failed: pin the anon_vma, then sleep on the rwsem. */
	if (!atomic_add_unless(&anon_vma->refcount, 1, 0)) {
		anon_vma = NULL;
		goto out;
	}
	if (!folio_mapped(folio)) {
		rcu_read_unlock();
		put_anon_vma(anon_vma);
		return NULL;
	}
	/* Pinned: safe to sleep outside the RCU section. */
	rcu_read_unlock();
	anon_vma_lock_read(anon_vma);
	if (atomic_dec_and_test(&anon_vma->refcount)) {
		/*
		 * We held the last reference: put_anon_vma() would take the
		 * rwsem for writing under our read hold.  Release, then free.
		 */
		anon_vma_unlock_read(anon_vma);
		__put_anon_vma(anon_vma);
		anon_vma = NULL;
	}
	return anon_vma;
out:
	rcu_read_unlock();
	return anon_vma;
}

/*
 * The folio is locked, so its anon_vma cannot go away under us (migration
 * holds a reference on it besides); lock it, or give up with try_lock.
 */
static struct anon_vma *rmap_walk_anon_lock(const struct folio *folio,
					    struct rmap_walk_control *rwc)
{
	struct anon_vma *anon_vma;

	if (rwc->anon_lock)
		return rwc->anon_lock(folio, rwc);
	anon_vma = folio_anon_vma(folio);
	if (!anon_vma)
		return NULL;
	if (anon_vma_trylock_read(anon_vma))
		return anon_vma;
	if (rwc->try_lock) {
		rwc->contended = true;
		return NULL;
	}
	anon_vma_lock_read(anon_vma);
	return anon_vma;
}

/*
 * Every VMA of the folio's anon_vma tree whose range covers the folio's
 * offset, in the tree's order: equal offsets in the order their chains
 * were linked, so after a fork the parent first, then each child.
 */
static void rmap_walk_anon(struct folio *folio, struct rmap_walk_control *rwc, bool locked)
{
	pgoff_t pgoff_start = folio_index(folio);
	pgoff_t pgoff_end = pgoff_start + folio_nr_pages(folio) - 1;
	struct anon_vma_chain *avc;
	struct anon_vma *anon_vma;

	if (locked) {
		anon_vma = folio_anon_vma(folio);
		VM_BUG_ON_FOLIO(!anon_vma, folio);
	} else {
		anon_vma = rmap_walk_anon_lock(folio, rwc);
	}
	if (!anon_vma)
		return;
	count_debug_vm_event(RMAP_WALKS);
	anon_vma_interval_tree_foreach(avc, &anon_vma->rb_root, pgoff_start, pgoff_end) {
		struct vm_area_struct *vma = avc->vma;
		unsigned long address = vma_address(vma, pgoff_start, folio_nr_pages(folio));

		VM_WARN_ON_ONCE(address == (unsigned long)-EFAULT);
		count_debug_vm_event(RMAP_VMAS);
		cond_resched();
		if (rwc->invalid_vma && rwc->invalid_vma(vma, rwc->arg))
			continue;
		if (!rwc->rmap_one(folio, vma, address, rwc->arg))
			break;
		if (rwc->done && rwc->done(folio))
			break;
	}
	if (rwc->exit)
		rwc->exit(folio, rwc->arg);
	if (!locked)
		anon_vma_unlock_read(anon_vma);
}

void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc)
{
	if (folio_test_anon(folio))
		rmap_walk_anon(folio, rwc, false);
	else
		rmap_walk_file(folio, rwc, false);
}

void rmap_walk_locked(struct folio *folio, struct rmap_walk_control *rwc)
{
	if (folio_test_anon(folio))
		rmap_walk_anon(folio, rwc, true);
	else
		rmap_walk_file(folio, rwc, true);
}

/* --- folio_referenced ------------------------------------------------------------------------- */

struct folio_referenced_arg {
	int mapcount;
	int referenced;
	unsigned long vm_flags;
};

#ifdef CONFIG_RMAP_BATCHED_REFERENCED
/* How many entries from @ptep one aging step takes: the run mapping the folio. */
static inline unsigned int folio_referenced_pte_batch(struct folio *folio,
						      struct vm_area_struct *vma,
						      unsigned long address, pte_t *ptep)
{
	if (!folio_test_large(folio))
		return 1;
	return folio_pte_batch(folio, ptep, ptep_get(ptep), batch_max_nr(vma, address));
}

/* The whole folio in runs already: no other entry of this VMA can map it. */
static inline bool folio_referenced_all_ptes(struct page_vma_mapped_walk *pvmw,
					     unsigned long ptes)
{
	return ptes == pvmw->nr_pages;
}
#else
static inline unsigned int folio_referenced_pte_batch(struct folio *folio,
						      struct vm_area_struct *vma,
						      unsigned long address, pte_t *ptep)
{
	return 1;
}

static inline bool folio_referenced_all_ptes(struct page_vma_mapped_walk *pvmw,
					     unsigned long ptes)
{
	return false;
}
#endif

static bool folio_referenced_one(struct folio *folio, struct vm_area_struct *vma,
				 unsigned long address, void *arg)
{
	struct folio_referenced_arg *pra = arg;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, address, 0);
	int referenced = 0;
	unsigned long ptes = 0;
	unsigned int nr;

	while (page_vma_mapped_walk(&pvmw)) {
		address = pvmw.address;

		if (vma->vm_flags & VM_LOCKED) {
			/* mlock is not modelled: report it, and reclaim will keep the folio. */
			page_vma_mapped_walk_done(&pvmw);
			pra->vm_flags |= VM_LOCKED;
			return false;
		}
		nr = folio_referenced_pte_batch(folio, vma, address, pvmw.pte);
		ptes += nr;
		count_debug_vm_event(RMAP_BATCHES);
		if (ptep_clear_flush_young_notify(vma, address, pvmw.pte, nr))
			referenced++;
		/* Step over the rest of the run: the walk moves one further. */
		pvmw.pte += nr - 1;
		pvmw.address += (nr - 1) * PAGE_SIZE;
		pra->mapcount -= (int)nr;
		if (folio_referenced_all_ptes(&pvmw, ptes)) {
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
	}
	if (referenced) {
		pra->referenced++;
		pra->vm_flags |= vma->vm_flags & ~VM_LOCKED;
	}
	/* Every mapping seen: stop the rmap walk. */
	return pra->mapcount > 0;
}

int folio_referenced(struct folio *folio, int is_locked, void *memcg, unsigned long *vm_flags)
{
	struct folio_referenced_arg pra = {
		.mapcount = folio_mapcount(folio),
	};
	struct rmap_walk_control rwc = {
		.rmap_one = folio_referenced_one,
		.arg = &pra,
		.anon_lock = folio_lock_anon_vma_read,
		.try_lock = true,
	};

	unsigned long t0;

	(void)memcg;
	/* File folios: the caller locks; anonymous ones need not be locked. */
	VM_WARN_ON_ONCE_FOLIO(!is_locked && !folio_test_anon(folio), folio);
	*vm_flags = 0;
	if (!pra.mapcount || !folio->mapping)
		return 0;
	t0 = rmap_time_start();
	rmap_walk(folio, &rwc);
	rmap_time_add(RMAP_REFERENCED_NS, t0);
	*vm_flags = pra.vm_flags;
	return rwc.contended ? -1 : pra.referenced;
}

/* --- try_to_unmap --------------------------------------------------------------------------- */

/* How many entries from pvmw->pte one unmap step clears. */
#ifdef CONFIG_RMAP_BATCHED
static inline unsigned int folio_unmap_pte_batch(struct folio *folio,
						 struct page_vma_mapped_walk *pvmw,
						 enum ttu_flags flags, pte_t pte)
{
	if (!folio_test_large(folio))
		return 1;
	/* Swap-backed anonymous folios need a swap entry per page. */
	if (folio_test_swapbacked(folio))
		return 1;
	return folio_pte_batch(folio, pvmw->pte, pte, batch_max_nr(pvmw->vma, pvmw->address));
}
#else
static inline unsigned int folio_unmap_pte_batch(struct folio *folio,
						 struct page_vma_mapped_walk *pvmw,
						 enum ttu_flags flags, pte_t pte)
{
	return 1;
}
#endif

/* Clear now and flush later, with the rest of the batch? */
static bool should_defer_flush(struct mm_struct *mm, enum ttu_flags flags)
{
	return (flags & TTU_BATCH_FLUSH) && arch_tlbbatch_should_defer(mm);
}

static bool try_to_unmap_one(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address, void *arg)
{
	struct mm_struct *mm = vma->vm_mm;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, address, 0);
	enum ttu_flags flags = (enum ttu_flags)(unsigned long)arg;
	struct mmu_notifier_range range;
	bool ret = true;

	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, address, vma_address_end(&pvmw));
	mmu_notifier_invalidate_range_start(&range);
	while (page_vma_mapped_walk(&pvmw)) {
		pte_t pteval = ptep_get(pvmw.pte);
		struct page *subpage;
		unsigned int nr_pages;
		unsigned long end_addr;

		if ((vma->vm_flags & VM_LOCKED) && !(flags & TTU_IGNORE_MLOCK)) {
			page_vma_mapped_walk_done(&pvmw);
			ret = false;
			break;
		}
		address = pvmw.address;
		subpage = folio_page(folio, pte_pfn(pteval) - folio_pfn(folio));
		nr_pages = folio_unmap_pte_batch(folio, &pvmw, flags, pteval);
		end_addr = address + nr_pages * PAGE_SIZE;
		count_debug_vm_event(RMAP_BATCHES);

		pteval = get_and_clear_full_ptes(mm, address, pvmw.pte, nr_pages, 0);
		/*
		 * Not flushed yet: another CPU may still reach the folio
		 * through its TLB.  Reclaim flushes once before freeing.
		 */
		if (should_defer_flush(mm, flags))
			set_tlb_ubc_flush_pending(mm, pteval, address, end_addr);
		else
			flush_tlb_range(vma, address, end_addr);
		if (pte_dirty(pteval))
			folio_mark_dirty(folio);

		update_hiwater_rss(mm);
		add_mm_counter(mm, mm_counter_file(folio), -(long)nr_pages);
		folio_remove_rmap_ptes(folio, subpage, (int)nr_pages, vma);
		folio_put_refs(folio, (int)nr_pages);
		/* The whole folio in one run: nothing else here maps it. */
		if (nr_pages == folio_nr_pages(folio)) {
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
	}
	mmu_notifier_invalidate_range_end(&range);
	return ret;
}

static bool folio_not_mapped(struct folio *folio)
{
	return !folio_mapped(folio);
}

void try_to_unmap(struct folio *folio, enum ttu_flags flags)
{
	struct rmap_walk_control rwc = {
		.rmap_one = try_to_unmap_one,
		.arg = (void *)(unsigned long)flags,
		.done = folio_not_mapped,
	};
	unsigned long t0 = rmap_time_start();

	rmap_walk(folio, &rwc);
	rmap_time_add(RMAP_UNMAP_NS, t0);
}

/* --- try_to_migrate ----------------------------------------------------------------------- */

/* The migration entry that replaces @pteval for @subpage. */
static pte_t make_migration_pte(pte_t pteval, struct page *subpage, bool anon_exclusive)
{
	unsigned long pfn = page_to_pfn(subpage);
	swp_entry_t entry;

	if (pte_write(pteval))
		entry = make_writable_migration_entry(pfn);
	else if (anon_exclusive)
		entry = make_readable_exclusive_migration_entry(pfn);
	else
		entry = make_readable_migration_entry(pfn);
	if (pte_young(pteval))
		entry = make_migration_entry_young(entry);
	if (pte_dirty(pteval))
		entry = make_migration_entry_dirty(entry);
	return swp_entry_to_pte(entry);
}

static bool try_to_migrate_one(struct folio *folio, struct vm_area_struct *vma,
			       unsigned long address, void *arg)
{
	struct mm_struct *mm = vma->vm_mm;
	DEFINE_FOLIO_VMA_WALK(pvmw, folio, vma, address, 0);
	struct try_to_migrate_arg *ttm = arg;
	enum ttu_flags flags = (enum ttu_flags)ttm->flags;
	struct mmu_notifier_range range;
	bool ret = true;

	count_debug_vm_event(MIGRATE_UNMAP_VMAS);
	mmu_notifier_range_init(&range, MMU_NOTIFY_MIGRATE, 0, mm, address, vma_address_end(&pvmw));
	mmu_notifier_invalidate_range_start(&range);
	while (page_vma_mapped_walk(&pvmw)) {
		pte_t pteval = ptep_get(pvmw.pte);
		struct page *subpage = folio_page(folio, pte_pfn(pteval) - folio_pfn(folio));
		bool anon_exclusive;

		address = pvmw.address;
		anon_exclusive = folio_test_anon(folio) && PageAnonExclusive(subpage);
		/* Nuke the entry: another CPU's TLB may still write through it until flushed. */
		if (should_defer_flush(mm, flags)) {
			pteval = ptep_get_and_clear(mm, address, pvmw.pte);
			set_tlb_ubc_flush_pending(mm, pteval, address, address + PAGE_SIZE);
		} else {
			pteval = ptep_clear_flush(vma, address, pvmw.pte);
		}
		if (pte_dirty(pteval))
			folio_mark_dirty(folio);
		update_hiwater_rss(mm);
		/* Clear the entry first, then the exclusivity (folio_try_share_anon_rmap_pte()). */
		if (anon_exclusive && folio_try_share_anon_rmap_pte(folio, subpage)) {
			set_pte_at(mm, address, pvmw.pte, pteval);
			ret = false;
			page_vma_mapped_walk_done(&pvmw);
			break;
		}
		/*
		 * A fault on the entry waits until migration removes it; the
		 * entry keeps counting in RSS.
		 */
		set_pte_at(mm, address, pvmw.pte, make_migration_pte(pteval, subpage, anon_exclusive));
		count_debug_vm_event(MIGRATE_ENTRIES_MADE);
		try_to_migrate_entry_made(folio, &ttm->nr_entries);
		folio_remove_rmap_pte(folio, subpage, vma);
		folio_put(folio);
	}
	mmu_notifier_invalidate_range_end(&range);
	return ret;
}

void try_to_migrate(struct folio *folio, enum ttu_flags flags)
{
	struct try_to_migrate_arg ttm = { .flags = flags };
	struct rmap_walk_control rwc = {
		.rmap_one = try_to_migrate_one,
		.arg = &ttm,
		.done = folio_not_mapped,
		.exit = try_to_migrate_exit,
		.anon_lock = folio_lock_anon_vma_read,
	};

	VM_WARN_ON_ONCE(flags & ~(TTU_RMAP_LOCKED | TTU_BATCH_FLUSH));
	if (flags & TTU_RMAP_LOCKED)
		rmap_walk_locked(folio, &rwc);
	else
		rmap_walk(folio, &rwc);
}
