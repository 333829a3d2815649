// SPDX-License-Identifier: GPL-2.0
/*
 * page_vma_mapped_walk() (mm/page_vma_mapped.c) for PTE-mapped folios:
 * visit, in address order, each present entry of one VMA that maps a page
 * of the folio (with PVMW_MIGRATION: each migration entry naming one),
 * holding that page table's lock.  Every table the VMA's range of the
 * folio has is locked and looked at, matching or not (the model takes the
 * lock before looking, as PVMW_SYNC does).  (PMD mappings and device
 * entries are not modelled.)
 */
#include <linux/rmap.h>
#include <linux/swapops.h>

/* Does the current entry map a page of the folio (or name one, with PVMW_MIGRATION)? */
static bool check_pte(struct page_vma_mapped_walk *pvmw)
{
	pte_t pte = ptep_get(pvmw->pte);
	unsigned long pfn;

	if (pvmw->flags & PVMW_MIGRATION) {
		swp_entry_t entry;

		if (!is_swap_pte(pte))
			return false;
		entry = pte_to_swp_entry(pte);
		if (!is_migration_entry(entry))
			return false;
		pfn = swp_offset_pfn(entry);
	} else {
		if (!pte_present(pte))
			return false;
		pfn = pte_pfn(pte);
	}
	return pfn >= pvmw->pfn && pfn - pvmw->pfn < pvmw->nr_pages;
}

static bool not_found(struct page_vma_mapped_walk *pvmw)
{
	page_vma_mapped_walk_done(pvmw);
	pvmw->pte = NULL;
	pvmw->ptl = NULL;
	return false;
}

bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw)
{
	struct mm_struct *mm = pvmw->vma->vm_mm;
	unsigned long end = vma_address_end(pvmw);

	if (pvmw->pte)
		goto next_pte;
	count_debug_vm_event(PVMW_WALKS);
restart:
	while (pvmw->address < end) {
		pmd_t *pmd = mm_find_pmd(mm, pvmw->address);

		if (!pmd || pmd_none(pmdp_get(pmd)) || pmd_leaf(pmdp_get(pmd))) {
			pvmw->address = ALIGN_DOWN(pvmw->address, PMD_SIZE) + PMD_SIZE;
			continue;
		}
		pvmw->pmd = pmd;
		pvmw->pte = pte_offset_map_lock(mm, pmd, pvmw->address, &pvmw->ptl);
		count_debug_vm_event(PVMW_PTL);
		for (;;) {
			if (check_pte(pvmw)) {
				count_debug_vm_event(RMAP_PVMW_HITS);
				return true;
			}
next_pte:
			do {
				pvmw->address += PAGE_SIZE;
				if (pvmw->address >= end)
					return not_found(pvmw);
				/* Into the next page table: look it up afresh. */
				if ((pvmw->address & (PMD_SIZE - PAGE_SIZE)) == 0) {
					not_found(pvmw);
					goto restart;
				}
				pvmw->pte++;
			} while (pte_none(ptep_get(pvmw->pte)));
		}
	}
	return false;
}
