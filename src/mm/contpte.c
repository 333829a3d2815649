// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's contiguous PTE blocks for user mappings (arch/arm64/mm/contpte.c),
 * as the model runs them when mmu_arch is MMU_ARM64.
 *
 * A block is CONT_PTES naturally aligned entries mapping naturally aligned
 * consecutive pages of one folio with the same attributes, each carrying
 * the contiguous hint, so the TLB may cache the block as one entry.  The
 * hardware sets the accessed and dirty bits in whichever entry it used, so
 * a block's young or dirty state is the OR over its entries; changing
 * anything but those bits in one entry means unfolding the whole block
 * first: clear it, flush it (waiting: no CPU may hold the block's TLB entry
 * while the entries disagree), and write it back without the hint.
 */
#include <linux/pgtable.h>

static inline pte_t *contpte_align_down(pte_t *ptep)
{
	return (pte_t *)ALIGN_DOWN((unsigned long)ptep, sizeof(*ptep) * CONT_PTES);
}

/*
 * Widen [*start, *end) and its first entry to whole blocks where the run's
 * first or last entry is part of one (the series' contpte_align_addr_ptep()).
 */
static pte_t *contpte_align_run(unsigned long *start, unsigned long *end,
				pte_t *ptep, unsigned int nr)
{
	if (pte_cont(__ptep_get(ptep + nr - 1)))
		*end = ALIGN(*end, CONT_PTE_SIZE);
	if (pte_cont(__ptep_get(ptep))) {
		*start = ALIGN_DOWN(*start, CONT_PTE_SIZE);
		ptep = contpte_align_down(ptep);
	}
	return ptep;
}

pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	ptep = contpte_align_down(ptep);
	for (int i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t pte = __ptep_get(ptep);

		if (pte_dirty(pte))
			orig_pte = pte_mkdirty(orig_pte);
		if (pte_young(pte))
			orig_pte = pte_mkyoung(orig_pte);
	}
	return orig_pte;
}

int contpte_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				      pte_t *ptep, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;
	int young = 0;

	/*
	 * Clearing young for a whole block when asked for part of it is
	 * fine: the block maps one folio, and aging is per folio.
	 */
	ptep = contpte_align_run(&addr, &end, ptep, nr);
	for (; addr != end; ptep++, addr += PAGE_SIZE)
		young |= __ptep_test_and_clear_young(vma, addr, ptep);
	return young;
}

int contpte_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				   pte_t *ptep, unsigned int nr)
{
	int young = contpte_test_and_clear_young_ptes(vma, addr, ptep, nr);

	if (young) {
		unsigned long end = addr + nr * PAGE_SIZE;

		contpte_align_run(&addr, &end, ptep, nr);
		__flush_tlb_range_nosync(vma->vm_mm, addr, end);
	}
	return young;
}

/* Rewrite the block around @ptep without the hint, keeping its young and dirty state. */
static void contpte_convert(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	unsigned long start = ALIGN_DOWN(addr, CONT_PTE_SIZE);
	pte_t *start_ptep = contpte_align_down(ptep);

	pte = pfn_pte(ALIGN_DOWN(pte_pfn(pte), CONT_PTES),
		      __pgprot(pte_val(pte) & ~PTE_PFN_MASK));
	ptep = start_ptep;
	for (int i = 0; i < CONT_PTES; i++, ptep++) {
		pte_t ptent = __ptep_get_and_clear(mm, start + i * PAGE_SIZE, ptep);

		if (pte_dirty(ptent))
			pte = pte_mkdirty(pte);
		if (pte_young(ptent))
			pte = pte_mkyoung(pte);
	}
	/* Break before make: nobody may still use the block's TLB entry. */
	flush_tlb_range(NULL, start, start + CONT_PTE_SIZE);
	ptep = start_ptep;
	for (int i = 0; i < CONT_PTES; i++, ptep++) {
		__set_pte(ptep, pte);
		pte = pte_advance_pfn(pte, 1);
	}
}

void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	contpte_convert(mm, addr, ptep, pte_mknoncont(pte));
}

/* Unfold the blocks the run [ptep, ptep + nr) covers only in part. */
static void contpte_try_unfold_partial(struct mm_struct *mm, unsigned long addr,
				       pte_t *ptep, unsigned int nr)
{
	pte_t *last = ptep + nr - 1;

	if (ptep != contpte_align_down(ptep) || nr < CONT_PTES)
		contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	if (ptep + nr != contpte_align_down(ptep + nr))
		contpte_try_unfold(mm, addr + (nr - 1) * PAGE_SIZE, last, __ptep_get(last));
}

pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr, int full)
{
	(void)full;
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	return pte_mknoncont(__get_and_clear_full_ptes(mm, addr, ptep, nr));
}

/* Write-protect a run: whole blocks stay folded (every entry loses write alike). */
void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, unsigned int nr)
{
	contpte_try_unfold_partial(mm, addr, ptep, nr);
	__wrprotect_ptes(mm, addr, ptep, nr);
}

void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr)
{
	unsigned long end = addr + nr * PAGE_SIZE;

	(void)mm;
	do {
		unsigned long next = ALIGN(addr + 1, CONT_PTE_SIZE);
		unsigned long pfn = pte_pfn(pte);

		if (next > end)
			next = end;
		nr = (unsigned int)((next - addr) >> PAGE_SHIFT);
		/* A whole, aligned block of aligned pages: fold it. */
		if (((addr | next | (pfn << PAGE_SHIFT)) & ~CONT_PTE_MASK) == 0)
			pte = pte_mkcont(pte);
		else
			pte = pte_mknoncont(pte);
		for (unsigned int i = 0; i < nr; i++, ptep++) {
			__set_pte(ptep, pte);
			pte = pte_advance_pfn(pte, 1);
		}
		addr = next;
	} while (addr != end);
}
