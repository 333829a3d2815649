// SPDX-License-Identifier: GPL-2.0
/*
 * Faults, fork's copy of the page tables, zapping (mm/memory.c), and the
 * model's MMU: the hardware walk that sets accessed and dirty bits.
 *
 * File VMAs: a read fault finds (or creates) the page-cache folio and maps
 * it the way finish_fault() does since large folios came to the page
 * cache: the whole folio at once when it lies inside the VMA and inside one
 * page table and none of its entries is mapped yet, else the one page.
 * Each mapped entry takes a folio reference and a mapcount, and counts in
 * the mm's RSS.  Writes to file mappings are not modelled (SIGBUS).
 *
 * Anonymous VMAs: the kernel's handle_pte_fault(): do_anonymous_page() on
 * an empty entry, do_wp_page() (reuse or copy) on a write to a
 * write-protected one.  The model has no shared zero page, as if
 * mm_forbids_zeropage(): a read fault allocates and maps a zeroed folio
 * exactly as a write fault does.
 *
 * Fork (copy_page_range) shares anonymous folios with the child and
 * write-protects both sides of a COW mapping; migration entries are copied
 * (writable ones made readable on both sides).
 */
#include <string.h>

#include <linux/guest_touch.h>
#include <linux/migrate.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include "internal.h"

static inline bool is_cow_mapping(unsigned long flags)
{
	return (flags & (VM_SHARED | VM_MAYWRITE)) == VM_MAYWRITE;
}

/* Deliberately broken fork, for the tests (Makefile: anon-no-wrprotect). */
#ifndef CONFIG_ANON_MUTANT_NO_WRPROTECT
/* A COW mapping's writable entries become read-only in the parent too. */
static inline void cow_wrprotect_src_ptes(struct mm_struct *src_mm, unsigned long addr,
					  pte_t *src_pte, unsigned int nr)
{
	wrprotect_ptes(src_mm, addr, src_pte, nr);
}
#else
/* The mutant: the parent keeps writing to the pages it now shares. */
static inline void cow_wrprotect_src_ptes(struct mm_struct *src_mm, unsigned long addr,
					  pte_t *src_pte, unsigned int nr)
{
}
#endif

/* Deliberately broken fork, for the tests (Makefile: anon-fork-keep-write). */
#ifndef CONFIG_ANON_MUTANT_FORK_KEEP_WRITE
/* A writable or exclusive migration entry of a COW mapping is shared after fork. */
static inline bool migration_entry_needs_downgrade(swp_entry_t entry,
						   struct vm_area_struct *src_vma)
{
	return !is_readable_migration_entry(entry) && is_cow_mapping(src_vma->vm_flags);
}
#else
/* The mutant: both sides keep an entry that restores writable (or exclusive). */
static inline bool migration_entry_needs_downgrade(swp_entry_t entry,
						   struct vm_area_struct *src_vma)
{
	return false;
}
#endif

/*
 * Deliberately broken counts, for the tests (Makefile: mgt-*-fork-uncounted,
 * mgt-counter-zap-uncounted): fork or zap forgets the designs' count.
 */
#ifndef CONFIG_MIGRATE_MUTANT_FORK_UNCOUNTED
static inline void copy_migration_entry_count(struct folio *folio)
{
	folio_migration_entries_add(folio, 1);
}
#else
static inline void copy_migration_entry_count(struct folio *folio)
{
}
#endif

#ifndef CONFIG_MIGRATE_MUTANT_ZAP_UNCOUNTED
static inline void zap_migration_entry_count(struct folio *folio)
{
	folio_migration_entries_add(folio, -1);
}
#else
static inline void zap_migration_entry_count(struct folio *folio)
{
}
#endif

unsigned int anon_folio_order;

struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;		/* page aligned */
	pgoff_t pgoff;
	unsigned int flags;
	pmd_t *pmd;
	pte_t *pte;
	spinlock_t *ptl;
	pte_t orig_pte;			/* the entry when the fault looked at it */
	struct page *page;		/* do_wp_page(): the page orig_pte maps */
};

static bool pte_range_none(pte_t *pte, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		if (!pte_none(ptep_get(pte + i)))
			return false;
	return true;
}

/* Map @nr pages of @folio from @page at @addr: the references are the caller's. */
static void set_pte_range(struct vm_fault *vmf, struct folio *folio, struct page *page,
			  unsigned int nr, unsigned long addr, pte_t *pte)
{
	struct vm_area_struct *vma = vmf->vma;
	pte_t entry = mk_pte(page, vma->vm_page_prot);

	/* The protection carries the accessed bit: a faulted entry starts young. */
	folio_add_file_rmap_ptes(folio, page, (int)nr, vma);
	add_mm_counter(vma->vm_mm, mm_counter_file(folio), nr);
	set_ptes(vma->vm_mm, addr, pte, entry, nr);
}

/* Map the folio, or its one page, at the fault; takes the mapping's references. */
static vm_fault_t finish_fault(struct vm_fault *vmf, struct folio *folio)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long nr_pages = folio_nr_pages(folio);
	long idx = (long)(vmf->pgoff - folio->index);
	struct page *page = folio_page(folio, idx);
	unsigned long addr = vmf->address;
	long pte_off = (long)pte_index(vmf->address);
	unsigned int nr = 1;
	pte_t *pte;

	if (folio_test_large(folio)) {
		unsigned long vma_off = (vmf->address - vma->vm_start) >> PAGE_SHIFT;

		/* The whole folio: inside the VMA and inside this page table. */
		if (!(vma_off < (unsigned long)idx || pte_off < idx ||
		      (unsigned long)(pte_off - idx) + nr_pages > PTRS_PER_PTE ||
		      vma_off + (nr_pages - (unsigned long)idx) > vma_pages(vma))) {
			nr = (unsigned int)nr_pages;
			page = folio_page(folio, 0);
			addr -= (unsigned long)idx << PAGE_SHIFT;
		}
	}
	if (pte_alloc(vma->vm_mm, vmf->pmd))
		return VM_FAULT_OOM;
	pte = pte_offset_map_lock(vma->vm_mm, vmf->pmd, addr, &vmf->ptl);
	if (nr > 1 && !pte_range_none(pte, nr)) {
		/* Some of it is mapped already: map only the faulting page. */
		pte += idx;
		nr = 1;
		page = folio_page(folio, idx);
		addr = vmf->address;
	}
	if (!pte_none(ptep_get(pte))) {
		pte_unmap_unlock(pte, vmf->ptl);
		return VM_FAULT_NOPAGE;	/* raced with another fault */
	}
	folio_ref_add(folio, (int)nr);
	set_pte_range(vmf, folio, page, nr, addr, pte);
	pte_unmap_unlock(pte, vmf->ptl);
	return 0;
}

static vm_fault_t do_read_fault(struct vm_fault *vmf)
{
	struct folio *folio;
	vm_fault_t ret;

	folio = filemap_fault_folio(vmf->vma->vm_file, vmf->pgoff);
	if (!folio)
		return VM_FAULT_SIGBUS;
	if (!folio_test_uptodate(folio)) {
		ret = VM_FAULT_SIGBUS;
	} else {
		ret = finish_fault(vmf, folio);
	}
	folio_unlock(folio);
	folio_put(folio);
	return ret;
}

/* --- anonymous faults ----------------------------------------------------------------- */

static inline pte_t maybe_mkwrite(pte_t pte, struct vm_area_struct *vma)
{
	if (likely(vma->vm_flags & VM_WRITE))
		pte = pte_mkwrite(pte);
	return pte;
}

/*
 * The folio for an anonymous fault: of anon_folio_order (the model's one
 * enabled mTHP size) when its naturally aligned range lies inside the VMA
 * and none of its entries is mapped, else order 0.  Zeroed.
 */
static struct folio *alloc_anon_folio(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned int order = anon_folio_order;

	if (order) {
		unsigned long nr = 1UL << order;
		unsigned long addr = ALIGN_DOWN(vmf->address, nr * PAGE_SIZE);
		pte_t *pte;

		if (order > pageblock_order || addr < vma->vm_start ||
		    addr + nr * PAGE_SIZE > vma->vm_end) {
			order = 0;
		} else {
			pte = pte_offset_map(vmf->pmd, addr);
			if (!pte_range_none(pte, (unsigned int)nr))
				order = 0;
			pte_unmap(pte);
		}
	}
	if (order) {
		struct folio *folio = folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_ZERO, order);

		if (folio)
			return folio;
	}
	return folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_ZERO, 0);
}

static vm_fault_t do_anonymous_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long addr = vmf->address;
	unsigned int nr_pages;
	struct folio *folio;
	pte_t entry;

	if (vma->vm_flags & VM_SHARED)
		return VM_FAULT_SIGBUS;		/* shared anonymous memory is shmem: not modelled */
	if (pte_alloc(vma->vm_mm, vmf->pmd))
		return VM_FAULT_OOM;
	if (unlikely(anon_vma_prepare(vma)))
		return VM_FAULT_OOM;
	folio = alloc_anon_folio(vmf);
	if (!folio)
		return VM_FAULT_OOM;
	nr_pages = (unsigned int)folio_nr_pages(folio);
	addr = ALIGN_DOWN(vmf->address, nr_pages * PAGE_SIZE);
	folio_mark_uptodate(folio);	/* the zeroing is visible before the entry */

	entry = mk_pte(&folio->page, vma->vm_page_prot);
	if (vma->vm_flags & VM_WRITE)
		entry = pte_mkwrite(pte_mkdirty(entry));

	vmf->pte = pte_offset_map_lock(vma->vm_mm, vmf->pmd, addr, &vmf->ptl);
	if (!pte_range_none(vmf->pte, nr_pages)) {
		/* Another thread mapped something here meanwhile. */
		pte_unmap_unlock(vmf->pte, vmf->ptl);
		folio_put(folio);
		return 0;
	}
	folio_ref_add(folio, (int)nr_pages - 1);	/* a reference per entry */
	add_mm_counter(vma->vm_mm, MM_ANONPAGES, nr_pages);
	folio_add_new_anon_rmap(folio, vma, addr, RMAP_EXCLUSIVE);
	folio_add_lru_vma(folio, vma);
	set_ptes(vma->vm_mm, addr, vmf->pte, entry, nr_pages);
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	return 0;
}

/* --- write faults on write-protected entries (COW) ----------------------------------- */

/*
 * The entry stays; only its permission and flags change.  Called with the
 * page table lock held, which it drops.
 */
static void wp_page_reuse(struct vm_fault *vmf, struct folio *folio)
{
	struct vm_area_struct *vma = vmf->vma;
	pte_t entry;

	VM_WARN_ON_ONCE(!(vmf->flags & FAULT_FLAG_WRITE));
	VM_WARN_ON_ONCE_FOLIO(folio && folio_test_anon(folio) && !PageAnonExclusive(vmf->page),
			      folio);
	/* arm64 changes a block entry's permission only after unfolding it. */
	contpte_try_unfold(vma->vm_mm, vmf->address, vmf->pte, __ptep_get(vmf->pte));
	entry = pte_mkyoung(vmf->orig_pte);
	entry = maybe_mkwrite(pte_mkdirty(entry), vma);
	ptep_set_access_flags(vma, vmf->address, vmf->pte, entry, 1);
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	count_vm_event(PGREUSE);
}

/*
 * Copy the page into a new exclusive folio and map that instead.  The page
 * table lock is not held; the caller took a reference on the old folio.
 */
static vm_fault_t wp_page_copy(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct mm_struct *mm = vma->vm_mm;
	struct folio *old_folio = NULL, *new_folio;
	struct mmu_notifier_range range;
	pte_t entry;

	if (vmf->page)
		old_folio = page_folio(vmf->page);
	if (unlikely(anon_vma_prepare(vma)))
		goto oom;
	new_folio = folio_alloc(GFP_HIGHUSER_MOVABLE, 0);
	if (!new_folio)
		goto oom;
	/* copy_user_highpage() */
	guest_touch_write(&new_folio->page, 0);
	memcpy(folio_address(new_folio), page_address(vmf->page), PAGE_SIZE);
	folio_mark_uptodate(new_folio);

	mmu_notifier_range_init(&range, MMU_NOTIFY_CLEAR, 0, mm, vmf->address,
				vmf->address + PAGE_SIZE);
	mmu_notifier_invalidate_range_start(&range);
	/* Re-check the entry: the lock was dropped. */
	vmf->pte = pte_offset_map_lock(mm, vmf->pmd, vmf->address, &vmf->ptl);
	if (likely(pte_same(ptep_get(vmf->pte), vmf->orig_pte))) {
		if (!folio_test_anon(old_folio)) {
			dec_mm_counter(mm, mm_counter_file(old_folio));
			inc_mm_counter(mm, MM_ANONPAGES);
		}
		entry = mk_pte(&new_folio->page, vma->vm_page_prot);
		entry = maybe_mkwrite(pte_mkdirty(entry), vma);
		/*
		 * Clear and flush the old entry before the new one goes in,
		 * so no TLB holds the old page while another holds the new.
		 */
		ptep_clear_flush(vma, vmf->address, vmf->pte);
		folio_add_new_anon_rmap(new_folio, vma, vmf->address, RMAP_EXCLUSIVE);
		folio_add_lru_vma(new_folio, vma);
		set_pte_at(mm, vmf->address, vmf->pte, entry);
		/*
		 * Only now drop the old page's mapcount: a process that saw
		 * it fall to one earlier could reuse the page while this
		 * entry still pointed at it.
		 */
		folio_remove_rmap_pte(old_folio, vmf->page, vma);
		/* The old folio loses the entry's reference below. */
		new_folio = old_folio;
	}
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	mmu_notifier_invalidate_range_end(&range);
	folio_put(new_folio);	/* unused new folio, or the old one's entry reference */
	if (old_folio)
		folio_put(old_folio);	/* do_wp_page()'s reference */
	return 0;
oom:
	if (old_folio)
		folio_put(old_folio);
	return VM_FAULT_OOM;
}

/*
 * Can an anonymous small folio mapped read-only here be made exclusive and
 * writable in place?  Only when this mapping holds its one reference.
 * Large folios are always copied (the kernel reuses them only with
 * CONFIG_TRANSPARENT_HUGEPAGE's per-mm mapcount tracking).
 */
static bool wp_can_reuse_anon_folio(struct folio *folio, struct vm_area_struct *vma)
{
	if (folio_test_large(folio))
		return false;
	/* Cheap checks before locking the folio. */
	if (folio_ref_count(folio) > 3)
		return false;
	/*
	 * An extra reference may be this CPU's LRU batch's (a folio not yet
	 * on the LRU): drain it.  Other CPUs' batches are not looked at.
	 */
	if (!folio_test_lru(folio))
		lru_add_drain();
	if (folio_ref_count(folio) > 1)
		return false;		/* no swap cache in the model */
	if (!folio_trylock(folio))
		return false;
	if (folio_ref_count(folio) != 1) {
		folio_unlock(folio);
		return false;
	}
	/* Ours alone: move it to our own anon_vma, so rmap walks get shorter. */
	folio_move_anon_rmap(folio, vma);
	folio_unlock(folio);
	return true;
}

/* A write to a write-protected entry; called with the page table lock held. */
static vm_fault_t do_wp_page(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct folio *folio;

	vmf->page = pte_page(vmf->orig_pte);	/* vm_normal_page(): no special entries */
	folio = page_folio(vmf->page);
	VM_WARN_ON_ONCE(vma->vm_flags & (VM_SHARED | VM_MAYSHARE));

	/* An exclusive page is reused without further checks. */
	if (folio_test_anon(folio) &&
	    (PageAnonExclusive(vmf->page) || wp_can_reuse_anon_folio(folio, vma))) {
		if (!PageAnonExclusive(vmf->page))
			SetPageAnonExclusive(vmf->page);
		wp_page_reuse(vmf, folio);
		return 0;
	}
	/* We need to copy. */
	folio_get(folio);
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	return wp_page_copy(vmf);
}

/*
 * A fault on a non-present, non-none entry.  The model has no swap; the
 * only such entries are migration entries: wait for the migration to
 * finish, then let the access retry.
 */
static vm_fault_t do_swap_page(struct vm_fault *vmf)
{
	swp_entry_t entry = pte_to_swp_entry(vmf->orig_pte);

	if (is_migration_entry(entry)) {
		migration_entry_wait(vmf->vma->vm_mm, vmf->pmd, vmf->address);
		return 0;
	}
	return VM_FAULT_SIGBUS;
}

/* A fault on an anonymous VMA (handle_pte_fault()); mmap_lock held for read. */
static vm_fault_t handle_pte_fault(struct vm_fault *vmf)
{
	pte_t entry;

	vmf->pte = NULL;
	if (!pmd_none(pmdp_get(vmf->pmd))) {
		vmf->pte = pte_offset_map(vmf->pmd, vmf->address);
		vmf->orig_pte = ptep_get(vmf->pte);
		if (pte_none(vmf->orig_pte)) {
			pte_unmap(vmf->pte);
			vmf->pte = NULL;
		}
	}
	if (!vmf->pte)
		return do_anonymous_page(vmf);
	if (!pte_present(vmf->orig_pte))
		return do_swap_page(vmf);

	vmf->ptl = pte_lockptr(vmf->vma->vm_mm, vmf->pmd);
	spin_lock(vmf->ptl);
	entry = vmf->orig_pte;
	if (unlikely(!pte_same(ptep_get(vmf->pte), entry)))
		goto unlock;		/* changed meanwhile: let the access retry */
	if (vmf->flags & FAULT_FLAG_WRITE) {
		if (!pte_write(entry))
			return do_wp_page(vmf);
		entry = pte_mkdirty(entry);
	}
	entry = pte_mkyoung(entry);
	ptep_set_access_flags(vmf->vma, vmf->address, vmf->pte, entry,
			      vmf->flags & FAULT_FLAG_WRITE);
unlock:
	pte_unmap_unlock(vmf->pte, vmf->ptl);
	return 0;
}

vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags)
{
	struct mm_struct *mm = vma->vm_mm;
	struct vm_fault vmf = {
		.vma = vma,
		.address = address & PAGE_MASK,
		.pgoff = linear_page_index(vma, address & PAGE_MASK),
		.flags = flags,
	};
	pgd_t *pgd;
	pud_t *pud;

	count_vm_event(PGFAULT);
	if (address < vma->vm_start || address >= vma->vm_end)
		return VM_FAULT_SIGBUS;
	/* Writes to file mappings (shared, or COW of a private one) are not modelled. */
	if (!vma_is_anonymous(vma) && (flags & FAULT_FLAG_WRITE))
		return VM_FAULT_SIGBUS;
	/* The arch's access_error(): a store to a VMA without VM_WRITE never gets here. */
	if ((flags & FAULT_FLAG_WRITE) && !(vma->vm_flags & VM_WRITE))
		return VM_FAULT_SIGBUS;
	pgd = pgd_offset(mm, address);
	pud = pud_alloc(mm, pgd, address);
	if (!pud)
		return VM_FAULT_OOM;
	vmf.pmd = pmd_alloc(mm, pud, address);
	if (!vmf.pmd)
		return VM_FAULT_OOM;
	/*
	 * File VMAs: every fault goes to do_read_fault(), present entry or
	 * not (the model's shortcut: a mapped entry comes back
	 * VM_FAULT_NOPAGE from finish_fault()).
	 */
	if (!vma_is_anonymous(vma))
		return do_read_fault(&vmf);
	return handle_pte_fault(&vmf);
}

void *mmu_access(struct mm_struct *mm, unsigned long address, bool write)
{
	pteval_t bits = _PAGE_ACCESSED | (write ? _PAGE_DIRTY : 0);
	pte_t *ptep = mm_find_pte(mm, address), pte;

	if (!ptep)
		return NULL;
	pte = __ptep_get(ptep);
	/*
	 * The walker's locked update of the entry it used (x86's A/D
	 * assist, arm64's hardware access flag, inside a block too): it
	 * only ever sets bits in a present entry, so an entry cleared under
	 * it faults instead.
	 */
	do {
		if (!pte_present(pte) || (write && !pte_write(pte)))
			return NULL;
		if ((pte_val(pte) & bits) == bits)
			break;
		__atomic_step();
	} while (!__atomic_compare_exchange_n(&ptep->pte, &pte.pte, pte_val(pte) | bits, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return (char *)page_address(pte_page(pte)) + (address & ~PAGE_MASK);
}

/* --- zap ------------------------------------------------------------------------------ */

/*
 * The folios whose entries one zap_pte_range() cleared: their references
 * are dropped after the TLB flush, as the kernel's mmu_gather frees pages
 * only once no TLB can reach them.  One page table's worth at most.
 */
struct zap_batch {
	unsigned int nr;
	struct folio *folios[PTRS_PER_PTE];
};

/* The counter an entry mapping @folio counts in (mm_counter()). */
static inline int mm_counter(struct folio *folio)
{
	if (folio_test_anon(folio))
		return MM_ANONPAGES;
	return mm_counter_file(folio);
}

/*
 * One present entry (the model does not batch zaps of large folios): clear
 * it, drop the mapping and the RSS, and queue the reference.
 */
static void zap_present_ptes(struct vm_area_struct *vma, pte_t *pte, pte_t ptent,
			     unsigned long addr, struct zap_batch *batch)
{
	struct mm_struct *mm = vma->vm_mm;
	struct page *page = pte_page(ptent);
	struct folio *folio = page_folio(page);

	ptent = ptep_get_and_clear(mm, addr, pte);
	/* An anonymous folio needs no up-to-date accessed and dirty bits. */
	if (!folio_test_anon(folio) && pte_dirty(ptent))
		folio_mark_dirty(folio);
	add_mm_counter(mm, mm_counter(folio), -1);
	folio_remove_rmap_pte(folio, page, vma);
	batch->folios[batch->nr++] = folio;
}

/*
 * One non-present entry: a migration entry holds no reference and no
 * mapcount, only the RSS it counts in.
 */
static void zap_nonpresent_ptes(struct vm_area_struct *vma, pte_t *pte, pte_t ptent,
				unsigned long addr)
{
	struct mm_struct *mm = vma->vm_mm;
	swp_entry_t entry = pte_to_swp_entry(ptent);

	if (is_migration_entry(entry)) {
		struct folio *folio = pfn_swap_entry_folio(entry);

		add_mm_counter(mm, mm_counter(folio), -1);
		zap_migration_entry_count(folio);
	} else
		VM_WARN_ON_ONCE(1);	/* no swap in the model */
	pte_clear(mm, addr, pte);
}

/* Zap one page table's worth of [addr, end); the lock is the table's. */
static void zap_pte_range(struct vm_area_struct *vma, pmd_t *pmd,
			  unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long start = addr;
	struct zap_batch batch;
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(mm, pmd, addr, &ptl);

	batch.nr = 0;
	for (; addr != end; pte++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(pte);

		if (pte_none(ptent))
			continue;
		if (pte_present(ptent))
			zap_present_ptes(vma, pte, ptent, addr, &batch);
		else
			zap_nonpresent_ptes(vma, pte, ptent, addr);
	}
	pte_unmap_unlock(pte, ptl);
	if (batch.nr)
		flush_tlb_range(vma, start, end);
	for (unsigned int i = 0; i < batch.nr; i++)
		folio_put(batch.folios[i]);
}

void unmap_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	struct mmu_notifier_range range;
	unsigned long addr, next;

	mmu_notifier_range_init(&range, MMU_NOTIFY_UNMAP, 0, vma->vm_mm, start, end);
	mmu_notifier_invalidate_range_start(&range);
	for (addr = start; addr != end; addr = next) {
		pmd_t *pmd = mm_find_pmd(vma->vm_mm, addr);

		next = pmd_addr_end(addr, end);
		if (!pmd || pmd_none(pmdp_get(pmd)))
			continue;
		zap_pte_range(vma, pmd, addr, next);
	}
	mmu_notifier_invalidate_range_end(&range);
}

/* --- fork: copying the page tables ---------------------------------------------------- */

/*
 * A non-present entry: copy it.  A writable migration entry of a COW
 * mapping becomes readable on both sides first: the page is shared now,
 * so neither side may map it writable when migration restores it.
 * Migration entries hold no reference and no mapcount; only RSS counts.
 */
static void copy_nonpresent_pte(struct mm_struct *dst_mm, struct mm_struct *src_mm,
				pte_t *dst_pte, pte_t *src_pte, struct vm_area_struct *dst_vma,
				struct vm_area_struct *src_vma, unsigned long addr, long *rss)
{
	pte_t orig_pte = ptep_get(src_pte), pte = orig_pte;
	swp_entry_t entry = pte_to_swp_entry(orig_pte);

	(void)dst_vma;
	if (is_migration_entry(entry)) {
		struct folio *folio = pfn_swap_entry_folio(entry);

		rss[mm_counter(folio)]++;
		copy_migration_entry_count(folio);
		if (migration_entry_needs_downgrade(entry, src_vma)) {
			/* Writable or exclusive before: shared now. */
			swp_entry_t readable = make_readable_migration_entry(swp_offset(entry));

			pte = swp_entry_to_pte(readable);
			set_pte_at(src_mm, addr, src_pte, pte);
		}
	} else {
		VM_WARN_ON_ONCE(1);	/* no swap in the model */
	}
	set_pte_at(dst_mm, addr, dst_pte, pte);
}

/*
 * Map in the child what @pte maps in the parent, @nr entries: in a COW
 * mapping both sides lose write permission, and the child's entries start
 * old (and clean, in a shared mapping).
 */
static void __copy_present_ptes(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
				pte_t *dst_pte, pte_t *src_pte, pte_t pte, unsigned long addr,
				unsigned int nr)
{
	struct mm_struct *src_mm = src_vma->vm_mm;

	if (is_cow_mapping(src_vma->vm_flags) && pte_write(pte)) {
		cow_wrprotect_src_ptes(src_mm, addr, src_pte, nr);
		pte = pte_wrprotect(pte);
	}
	if (src_vma->vm_flags & VM_SHARED)
		pte = pte_mkclean(pte);
	pte = pte_mkold(pte);
	set_ptes(dst_vma->vm_mm, addr, dst_pte, pte_mknoncont(pte), nr);
}

/*
 * Copy the present entry at @src_pte and, for a large folio, the run of
 * entries after it that map the folio's following pages (up to @max_nr):
 * the child takes a reference and a mapping per entry.  Returns how many
 * entries were copied.
 */
static int copy_present_ptes(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
			     pte_t *dst_pte, pte_t *src_pte, pte_t pte, unsigned long addr,
			     int max_nr, long *rss)
{
	struct page *page = pte_page(pte);	/* vm_normal_page(): no special entries */
	struct folio *folio = page_folio(page);
	unsigned int nr = 1;

	if (folio_test_large(folio) && max_nr != 1) {
		/* folio_pte_batch() ignores the write bit: any writable entry makes the run writable. */
		nr = folio_pte_batch(folio, src_pte, pte, (unsigned int)max_nr);
		for (unsigned int i = 1; i < nr; i++)
			if (pte_write(ptep_get(src_pte + i)))
				pte = pte_mkwrite(pte);
	}
	folio_ref_add(folio, (int)nr);
	if (folio_test_anon(folio)) {
		/* Never -EBUSY in the model: no page is pinned, so none is copied at fork. */
		folio_try_dup_anon_rmap_ptes(folio, page, (int)nr, dst_vma, src_vma);
		rss[MM_ANONPAGES] += nr;
	} else {
		folio_add_file_rmap_ptes(folio, page, (int)nr, dst_vma);
		rss[mm_counter_file(folio)] += nr;
	}
	__copy_present_ptes(dst_vma, src_vma, dst_pte, src_pte, pte, addr, nr);
	return (int)nr;
}

/* One page table's worth: both tables' locks held, the child's first. */
static int copy_pte_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma,
			  pmd_t *dst_pmd, pmd_t *src_pmd, unsigned long addr, unsigned long end)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	long rss[NR_MM_COUNTERS] = { 0 };
	spinlock_t *src_ptl, *dst_ptl;
	pte_t *src_pte, *dst_pte;
	int nr;

	if (pte_alloc(dst_mm, dst_pmd))
		return -ENOMEM;
	dst_pte = pte_offset_map_lock(dst_mm, dst_pmd, addr, &dst_ptl);
	src_pte = pte_offset_map(src_pmd, addr);
	src_ptl = pte_lockptr(src_mm, src_pmd);
	spin_lock(src_ptl);	/* spin_lock_nested(SINGLE_DEPTH_NESTING) */
	do {
		pte_t ptent = ptep_get(src_pte);

		nr = 1;
		if (pte_none(ptent))
			continue;
		if (unlikely(!pte_present(ptent))) {
			copy_nonpresent_pte(dst_mm, src_mm, dst_pte, src_pte, dst_vma, src_vma,
					    addr, rss);
			continue;
		}
		nr = copy_present_ptes(dst_vma, src_vma, dst_pte, src_pte, ptent, addr,
				       (int)((end - addr) / PAGE_SIZE), rss);
	} while (dst_pte += nr, src_pte += nr, addr += PAGE_SIZE * (unsigned long)nr, addr != end);
	spin_unlock(src_ptl);
	pte_unmap_unlock(dst_pte, dst_ptl);
	for (int i = 0; i < NR_MM_COUNTERS; i++)
		if (rss[i])
			add_mm_counter(dst_mm, i, rss[i]);
	return 0;
}

/* Does fork copy this VMA's entries, or let the child fault them in? */
static bool vma_needs_copy(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	(void)dst_vma;
	/* Anonymous folios (or migration entries) may be mapped: they cannot be refaulted. */
	return src_vma->anon_vma != NULL;
}

int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma)
{
	struct mm_struct *dst_mm = dst_vma->vm_mm, *src_mm = src_vma->vm_mm;
	unsigned long addr = src_vma->vm_start, end = src_vma->vm_end, next;
	struct mmu_notifier_range range;
	bool is_cow;
	int ret = 0;

	if (!vma_needs_copy(dst_vma, src_vma))
		return 0;
	is_cow = is_cow_mapping(src_vma->vm_flags);
	if (is_cow) {
		/* The parent's entries lose write permission: secondary MMUs must hear. */
		mmu_notifier_range_init(&range, MMU_NOTIFY_PROTECTION_PAGE, 0, src_mm, addr, end);
		mmu_notifier_invalidate_range_start(&range);
	}
	for (; addr != end; addr = next) {
		pmd_t *src_pmd = mm_find_pmd(src_mm, addr), *dst_pmd;
		pud_t *dst_pud;

		next = pmd_addr_end(addr, end);
		if (!src_pmd || pmd_none(pmdp_get(src_pmd)))
			continue;
		dst_pud = pud_alloc(dst_mm, pgd_offset(dst_mm, addr), addr);
		dst_pmd = dst_pud ? pmd_alloc(dst_mm, dst_pud, addr) : NULL;
		if (!dst_pmd || copy_pte_range(dst_vma, src_vma, dst_pmd, src_pmd, addr, next)) {
			ret = -ENOMEM;
			break;
		}
	}
	if (is_cow)
		mmu_notifier_invalidate_range_end(&range);
	return ret;
}
