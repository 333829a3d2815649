/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reverse mapping: from a folio to the page-table entries that map it.
 * File folios are found through their mapping's i_mmap tree of VMAs; in
 * each VMA, page_vma_mapped_walk() visits the entries that map the folio.
 * (Anonymous rmap is not modelled yet.)
 */
#ifndef _LINUX_RMAP_H
#define _LINUX_RMAP_H

#include <errno.h>

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>

/* --- mapcounts (mm/rmap.c) ----------------------------------------------------------- */

/* @nr pages from @page of @folio are now mapped by PTEs of @vma. */
void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma);
void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma);

/*
 * The node's NR_FILE_MAPPED (pages of file folios mapped at least once) is
 * a node statistic (linux/vmstat.h), changed per CPU by the rmap functions.
 */

/* --- the walk of one VMA (mm/page_vma_mapped.c) ---------------------------------------- */

struct page_vma_mapped_walk {
	unsigned long pfn;		/* the folio's first pfn */
	unsigned long nr_pages;
	pgoff_t pgoff;			/* the folio's first file page */
	struct vm_area_struct *vma;
	unsigned long address;		/* where the current entry maps */
	pmd_t *pmd;
	pte_t *pte;			/* the current entry, ptl held */
	spinlock_t *ptl;
	unsigned int flags;
};

#define DEFINE_FOLIO_VMA_WALK(name, _folio, _vma, _address, _flags)	\
	struct page_vma_mapped_walk name = {				\
		.pfn = folio_pfn(_folio),				\
		.nr_pages = folio_nr_pages(_folio),			\
		.pgoff = folio_index(_folio),				\
		.vma = _vma,						\
		.address = _address,					\
		.flags = _flags,					\
	}

/*
 * Step to the next present entry of the VMA that maps a page of the folio,
 * from pvmw->address (the first call) or past the current entry.  Returns
 * true with pvmw->pte pointing at it and its table's lock held, false when
 * there are no more (every lock dropped).
 */
bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw);

static inline void page_vma_mapped_walk_done(struct page_vma_mapped_walk *pvmw)
{
	if (pvmw->pte)
		pte_unmap(pvmw->pte);
	if (pvmw->ptl)
		spin_unlock(pvmw->ptl);
}

/* The user address where @vma maps file page @pgoff (which it must cover). */
static inline unsigned long vma_address(const struct vm_area_struct *vma, pgoff_t pgoff,
					unsigned long nr_pages)
{
	unsigned long address;

	if (pgoff >= vma->vm_pgoff) {
		address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		/* A wrapped address, or one past the VMA: not mapped here. */
		if (address < vma->vm_start || address >= vma->vm_end)
			address = (unsigned long)-EFAULT;
	} else if (pgoff + nr_pages - 1 >= vma->vm_pgoff) {
		/* The folio starts below the VMA: its first mapped page is at vm_start. */
		address = vma->vm_start;
	} else {
		address = (unsigned long)-EFAULT;
	}
	return address;
}

/* Where the folio's mapping in the walk's VMA ends. */
static inline unsigned long vma_address_end(const struct page_vma_mapped_walk *pvmw)
{
	const struct vm_area_struct *vma = pvmw->vma;
	pgoff_t pgoff = pvmw->pgoff + pvmw->nr_pages;
	unsigned long address;

	if (pvmw->nr_pages == 1)
		return pvmw->address + PAGE_SIZE;
	address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	if (address < vma->vm_start || address > vma->vm_end)
		address = vma->vm_end;
	return address;
}

/* --- rmap walks (mm/rmap.c) ------------------------------------------------------------- */

struct rmap_walk_control {
	void *arg;
	bool try_lock;		/* give up (contended) rather than wait for i_mmap_rwsem */
	bool contended;
	/* Visit one VMA; false stops the walk. */
	bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long addr, void *arg);
	/* After each VMA: true when there is nothing left to do. */
	bool (*done)(struct folio *folio);
	bool (*invalid_vma)(struct vm_area_struct *vma, void *arg);
};

/* The folio must be locked. */
void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc);

/*
 * Test and clear the accessed bits of every entry mapping @folio (locked).
 * Returns how many VMAs had a young entry, or -1 if the rmap lock was
 * contended; *@vm_flags collects those VMAs' flags (VM_LOCKED if the folio
 * is mlocked in one).
 */
int folio_referenced(struct folio *folio, int is_locked, void *memcg, unsigned long *vm_flags);

enum ttu_flags {
	TTU_IGNORE_MLOCK	= 0x8,
	TTU_BATCH_FLUSH		= 0x40,	/* defer the TLB flush: try_to_unmap_flush() */
};

/* Unmap every entry mapping @folio (locked); afterwards check folio_mapped(). */
void try_to_unmap(struct folio *folio, enum ttu_flags flags);

/*
 * How many entries from pvmw->pte one batch may cover for @folio: the run
 * of present entries mapping its consecutive pages, within the VMA and the
 * page table (mm/internal.h's folio_pte_batch()).
 */
unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte, unsigned int max_nr);

/*
 * The model's checker of address spaces against folios (mm/rmap_check.c),
 * everything quiescent: every present PTE of @mms maps a page of a folio
 * cached in its VMA's file at the index the VMA maps there; contiguous
 * blocks are aligned, whole and map consecutive pages of one folio; each
 * page's _mapcount, each folio's _large_mapcount and _nr_pages_mapped, each
 * mm's MM_FILEPAGES and the node's NR_FILE_MAPPED equal what the page tables say;
 * each cached folio of @mappings holds at least its cache and PTE
 * references.  0, or -1 and the first violation in @msg.
 */
int rmap_check(struct mm_struct *const *mms, int nr_mms,
	       struct address_space *const *mappings, int nr_mappings, char *msg, size_t len);

/* --- where reclaim's time goes (CONFIG_DEBUG_VM_EVENTS) --------------------------------- */

#ifdef CONFIG_DEBUG_VM_EVENTS
unsigned long rmap_clock_ns(void);
static inline unsigned long rmap_time_start(void)
{
	return rmap_clock_ns();
}
#define rmap_time_add(item, start)	count_vm_events(item, rmap_clock_ns() - (start))
#else
static inline unsigned long rmap_time_start(void)
{
	return 0;
}
#define rmap_time_add(item, start)	do { (void)(start); } while (0)
#endif

#endif
