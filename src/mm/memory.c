// SPDX-License-Identifier: GPL-2.0
/*
 * Faults on file mappings and zapping them (mm/memory.c), and the model's
 * MMU: the hardware walk that sets accessed and dirty bits.
 *
 * A read fault finds (or creates) the page-cache folio and maps it the way
 * finish_fault() does since large folios came to the page cache: the whole
 * folio at once when it lies inside the VMA and inside one page table and
 * none of its entries is mapped yet, else the one page.  Each mapped entry
 * takes a folio reference and a mapcount, and counts in the mm's RSS.
 */
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include "internal.h"

struct vm_fault {
	struct vm_area_struct *vma;
	unsigned long address;		/* page aligned */
	pgoff_t pgoff;
	unsigned int flags;
	pmd_t *pmd;
	pte_t *pte;
	spinlock_t *ptl;
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
	struct address_space *mapping = vmf->vma->vm_file->f_mapping;
	struct folio *folio;
	vm_fault_t ret;

	folio = __filemap_get_folio(mapping, vmf->pgoff, FGP_LOCK | FGP_CREAT, GFP_KERNEL);
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
	if (vma_is_anonymous(vma) || (flags & FAULT_FLAG_WRITE))
		return VM_FAULT_SIGBUS;	/* anonymous memory and COW are not modelled */
	if (address < vma->vm_start || address >= vma->vm_end)
		return VM_FAULT_SIGBUS;
	pgd = pgd_offset(mm, address);
	pud = pud_alloc(mm, pgd, address);
	if (!pud)
		return VM_FAULT_OOM;
	vmf.pmd = pmd_alloc(mm, pud, address);
	if (!vmf.pmd)
		return VM_FAULT_OOM;
	return do_read_fault(&vmf);
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

/* Zap one page table's worth of [addr, end); the lock is the table's. */
static void zap_pte_range(struct vm_area_struct *vma, pmd_t *pmd,
			  unsigned long addr, unsigned long end)
{
	struct mm_struct *mm = vma->vm_mm;
	unsigned long start = addr;
	spinlock_t *ptl;
	pte_t *pte = pte_offset_map_lock(mm, pmd, addr, &ptl);
	bool flush = false;

	for (; addr != end; pte++, addr += PAGE_SIZE) {
		pte_t ptent = ptep_get(pte);
		struct folio *folio;
		struct page *page;

		if (pte_none(ptent))
			continue;
		page = pte_page(ptent);
		folio = page_folio(page);
		ptent = ptep_get_and_clear(mm, addr, pte);
		if (pte_dirty(ptent))
			folio_mark_dirty(folio);
		add_mm_counter(mm, mm_counter_file(folio), -1);
		folio_remove_rmap_ptes(folio, page, 1, vma);
		flush = true;
		/*
		 * The kernel gathers the references and drops them after the
		 * flush (mmu_gather); a page-cache folio cannot be freed here
		 * anyway while the cache holds its own references.
		 */
		folio_put(folio);
	}
	pte_unmap_unlock(pte, ptl);
	if (flush)
		flush_tlb_range(vma, start, end);
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
