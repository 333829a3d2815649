/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page tables in the x86-64 4-level shape: PGD -> PUD -> PMD -> PTE, 512
 * eight-byte entries per level, each table one page from the model's page
 * allocator (so it lives in the arena and its struct page is typed
 * PGTY_table).  The P4D level is folded, as on x86-64 without LA57.
 *
 * An entry holds the pfn of the next table or of the mapped page in bits
 * 12..51, and flag bits at x86-64's positions: present, write, user,
 * accessed ("young"), dirty, PSE (a PMD or PUD that maps a page instead of
 * a table: "leaf" / huge), global, NX.  _PAGE_CONT (bit 52, one of the
 * bits x86 leaves to software) models arm64's contiguous hint: a naturally
 * aligned run of CONT_PTES entries mapping consecutive pfns, cached as one
 * TLB entry.  The pfns are the model's (indices into mem_map); a table's
 * address is page_address() of its pfn, as the kernel's __va() is.
 *
 * The kernel's page table of the kernel half, init_mm.pgd, is set up by
 * pgtable_init_mm() (vmalloc_init() calls it).  Kernel tables are never
 * freed while the machine runs, as in the kernel; pgtable_teardown() frees
 * them all at the end of a run so that the allocator's checker sees every
 * page back (the model's departure: the kernel never tears down init_mm).
 */
#ifndef _LINUX_PGTABLE_H
#define _LINUX_PGTABLE_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/spinlock.h>

#define PGDIR_SHIFT	39
#define PUD_SHIFT	30
#define PMD_SHIFT	21
#define PTRS_PER_PGD	512
#define PTRS_PER_PUD	512
#define PTRS_PER_PMD	512
#define PTRS_PER_PTE	512

#define PGDIR_SIZE	(1UL << PGDIR_SHIFT)
#define PGDIR_MASK	(~(PGDIR_SIZE - 1))
#define PUD_SIZE	(1UL << PUD_SHIFT)
#define PUD_MASK	(~(PUD_SIZE - 1))
#define PMD_SIZE	(1UL << PMD_SHIFT)
#define PMD_MASK	(~(PMD_SIZE - 1))

/* arm64's contiguous PTEs with 4 KiB pages: 16 entries, 64 KiB. */
#define CONT_PTE_SHIFT	(4 + PAGE_SHIFT)
#define CONT_PTES	(1 << (CONT_PTE_SHIFT - PAGE_SHIFT))
#define CONT_PTE_SIZE	(1UL << CONT_PTE_SHIFT)
#define CONT_PTE_MASK	(~(CONT_PTE_SIZE - 1))

#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

/* --- entries ------------------------------------------------------------------ */

typedef u64 pteval_t, pmdval_t, pudval_t, pgdval_t, pgprotval_t;

typedef struct { pteval_t pte; } pte_t;
typedef struct { pmdval_t pmd; } pmd_t;
typedef struct { pudval_t pud; } pud_t;
typedef struct { pgdval_t pgd; } pgd_t;
typedef struct { pgprotval_t pgprot; } pgprot_t;

#define pte_val(x)	((x).pte)
#define pmd_val(x)	((x).pmd)
#define pud_val(x)	((x).pud)
#define pgd_val(x)	((x).pgd)
#define pgprot_val(x)	((x).pgprot)
#define __pte(x)	((pte_t) { (x) })
#define __pmd(x)	((pmd_t) { (x) })
#define __pud(x)	((pud_t) { (x) })
#define __pgd(x)	((pgd_t) { (x) })
#define __pgprot(x)	((pgprot_t) { (x) })

#define _PAGE_BIT_PRESENT	0
#define _PAGE_BIT_RW		1
#define _PAGE_BIT_USER		2
#define _PAGE_BIT_ACCESSED	5
#define _PAGE_BIT_DIRTY		6
#define _PAGE_BIT_PSE		7	/* PMD/PUD: maps a page (leaf), not a table */
#define _PAGE_BIT_GLOBAL	8
#define _PAGE_BIT_CONT		52	/* model: arm64's contiguous hint */
#define _PAGE_BIT_NX		63

#define _PAGE_PRESENT	BIT_ULL(_PAGE_BIT_PRESENT)
#define _PAGE_RW	BIT_ULL(_PAGE_BIT_RW)
#define _PAGE_USER	BIT_ULL(_PAGE_BIT_USER)
#define _PAGE_ACCESSED	BIT_ULL(_PAGE_BIT_ACCESSED)
#define _PAGE_DIRTY	BIT_ULL(_PAGE_BIT_DIRTY)
#define _PAGE_PSE	BIT_ULL(_PAGE_BIT_PSE)
#define _PAGE_GLOBAL	BIT_ULL(_PAGE_BIT_GLOBAL)
#define _PAGE_CONT	BIT_ULL(_PAGE_BIT_CONT)
#define _PAGE_NX	BIT_ULL(_PAGE_BIT_NX)

/* Bits 12..51: the pfn. */
#define PTE_PFN_MASK	(((1ULL << 52) - 1) & ~((1ULL << PAGE_SHIFT) - 1))

/* What an upper-level entry pointing to a table carries. */
#define _KERNPG_TABLE	(_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | _PAGE_DIRTY)
#define _PAGE_TABLE	(_KERNPG_TABLE | _PAGE_USER)

#define PAGE_KERNEL	__pgprot(_PAGE_PRESENT | _PAGE_RW | _PAGE_ACCESSED | \
				 _PAGE_DIRTY | _PAGE_GLOBAL | _PAGE_NX)
#define PAGE_KERNEL_RO	__pgprot(_PAGE_PRESENT | _PAGE_ACCESSED | _PAGE_GLOBAL | _PAGE_NX)

/* --- PTEs --------------------------------------------------------------------- */

static inline unsigned long pte_pfn(pte_t pte)
{
	return (unsigned long)((pte_val(pte) & PTE_PFN_MASK) >> PAGE_SHIFT);
}

static inline pte_t pfn_pte(unsigned long pfn, pgprot_t prot)
{
	return __pte(((pteval_t)pfn << PAGE_SHIFT) | pgprot_val(prot));
}

#define mk_pte(page, prot)	pfn_pte(page_to_pfn(page), (prot))
#define pte_page(pte)		pfn_to_page(pte_pfn(pte))

static inline bool pte_none(pte_t pte)		{ return !pte_val(pte); }
static inline bool pte_present(pte_t pte)	{ return pte_val(pte) & _PAGE_PRESENT; }
static inline bool pte_write(pte_t pte)		{ return pte_val(pte) & _PAGE_RW; }
static inline bool pte_young(pte_t pte)		{ return pte_val(pte) & _PAGE_ACCESSED; }
static inline bool pte_dirty(pte_t pte)		{ return pte_val(pte) & _PAGE_DIRTY; }
static inline bool pte_cont(pte_t pte)		{ return pte_val(pte) & _PAGE_CONT; }

static inline pte_t pte_set_flags(pte_t pte, pteval_t set)	{ return __pte(pte_val(pte) | set); }
static inline pte_t pte_clear_flags(pte_t pte, pteval_t clr)	{ return __pte(pte_val(pte) & ~clr); }
static inline pte_t pte_mkyoung(pte_t pte)	{ return pte_set_flags(pte, _PAGE_ACCESSED); }
static inline pte_t pte_mkold(pte_t pte)	{ return pte_clear_flags(pte, _PAGE_ACCESSED); }
static inline pte_t pte_mkdirty(pte_t pte)	{ return pte_set_flags(pte, _PAGE_DIRTY); }
static inline pte_t pte_mkclean(pte_t pte)	{ return pte_clear_flags(pte, _PAGE_DIRTY); }
static inline pte_t pte_mkwrite(pte_t pte)	{ return pte_set_flags(pte, _PAGE_RW); }
static inline pte_t pte_wrprotect(pte_t pte)	{ return pte_clear_flags(pte, _PAGE_RW); }
static inline pte_t pte_mkcont(pte_t pte)	{ return pte_set_flags(pte, _PAGE_CONT); }
static inline pte_t pte_mknoncont(pte_t pte)	{ return pte_clear_flags(pte, _PAGE_CONT); }

/* --- PMDs, PUDs, PGDs ----------------------------------------------------------- */

static inline unsigned long pmd_pfn(pmd_t pmd)
{
	return (unsigned long)((pmd_val(pmd) & PTE_PFN_MASK) >> PAGE_SHIFT);
}

static inline pmd_t pfn_pmd(unsigned long pfn, pgprot_t prot)
{
	return __pmd(((pmdval_t)pfn << PAGE_SHIFT) | pgprot_val(prot));
}

#define pmd_page(pmd)		pfn_to_page(pmd_pfn(pmd))

static inline bool pmd_none(pmd_t pmd)		{ return !pmd_val(pmd); }
static inline bool pmd_present(pmd_t pmd)	{ return pmd_val(pmd) & _PAGE_PRESENT; }
/* A PMD that maps a 2 MiB page rather than pointing to a PTE table. */
static inline bool pmd_leaf(pmd_t pmd)		{ return pmd_present(pmd) && (pmd_val(pmd) & _PAGE_PSE); }
static inline pmd_t pmd_mkhuge(pmd_t pmd)	{ return __pmd(pmd_val(pmd) | _PAGE_PSE); }
static inline bool pmd_young(pmd_t pmd)		{ return pmd_val(pmd) & _PAGE_ACCESSED; }
static inline bool pmd_dirty(pmd_t pmd)		{ return pmd_val(pmd) & _PAGE_DIRTY; }

static inline unsigned long pud_pfn(pud_t pud)
{
	return (unsigned long)((pud_val(pud) & PTE_PFN_MASK) >> PAGE_SHIFT);
}

static inline bool pud_none(pud_t pud)		{ return !pud_val(pud); }
static inline bool pud_present(pud_t pud)	{ return pud_val(pud) & _PAGE_PRESENT; }
static inline bool pud_leaf(pud_t pud)		{ return pud_present(pud) && (pud_val(pud) & _PAGE_PSE); }

static inline unsigned long pgd_pfn(pgd_t pgd)
{
	return (unsigned long)((pgd_val(pgd) & PTE_PFN_MASK) >> PAGE_SHIFT);
}

static inline bool pgd_none(pgd_t pgd)		{ return !pgd_val(pgd); }
static inline bool pgd_present(pgd_t pgd)	{ return pgd_val(pgd) & _PAGE_PRESENT; }

/* The table an upper-level entry points to, at its direct-map address. */
static inline pte_t *pmd_page_vaddr(pmd_t pmd)	{ return page_address(pfn_to_page(pmd_pfn(pmd))); }
static inline pmd_t *pud_pgtable(pud_t pud)	{ return page_address(pfn_to_page(pud_pfn(pud))); }
static inline pud_t *pgd_pgtable(pgd_t pgd)	{ return page_address(pfn_to_page(pgd_pfn(pgd))); }

/*
 * Loads and stores: single-copy atomic, as the MMU reads them.  An upper
 * level entry publishes a freshly zeroed table: the kernel orders the
 * zeroing before the store with smp_wmb() and walkers rely on the address
 * dependency of READ_ONCE().  C11 (and ThreadSanitizer) see that ordering
 * only as release/acquire, so the upper levels use those; on x86-64 they
 * are the same plain moves.
 */
static inline pte_t ptep_get(pte_t *ptep)	{ return __pte(READ_ONCE(ptep->pte)); }
static inline pmd_t pmdp_get(pmd_t *pmdp)	{ return __pmd(__atomic_load_n(&pmdp->pmd, __ATOMIC_ACQUIRE)); }
static inline pud_t pudp_get(pud_t *pudp)	{ return __pud(__atomic_load_n(&pudp->pud, __ATOMIC_ACQUIRE)); }
static inline pgd_t pgdp_get(pgd_t *pgdp)	{ return __pgd(__atomic_load_n(&pgdp->pgd, __ATOMIC_ACQUIRE)); }

static inline void set_pte(pte_t *ptep, pte_t pte)	{ WRITE_ONCE(ptep->pte, pte_val(pte)); }
static inline void set_pmd(pmd_t *pmdp, pmd_t pmd)	{ __atomic_store_n(&pmdp->pmd, pmd_val(pmd), __ATOMIC_RELEASE); }
static inline void set_pud(pud_t *pudp, pud_t pud)	{ __atomic_store_n(&pudp->pud, pud_val(pud), __ATOMIC_RELEASE); }
static inline void set_pgd(pgd_t *pgdp, pgd_t pgd)	{ __atomic_store_n(&pgdp->pgd, pgd_val(pgd), __ATOMIC_RELEASE); }
static inline void pmd_clear(pmd_t *pmdp)		{ set_pmd(pmdp, __pmd(0)); }
static inline void pud_clear(pud_t *pudp)		{ set_pud(pudp, __pud(0)); }
static inline void pgd_clear(pgd_t *pgdp)		{ set_pgd(pgdp, __pgd(0)); }

struct mm_struct;

static inline void set_pte_at(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte)
{
	(void)mm;
	(void)addr;
	set_pte(ptep, pte);
}

static inline void pte_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	set_pte(ptep, __pte(0));
}

/* x86-64 SMP: an exchange, so a concurrent hardware A/D update is not lost. */
static inline pte_t ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	return __pte(__atomic_exchange_n(&ptep->pte, 0, __ATOMIC_RELAXED));
}

/* --- the walk ------------------------------------------------------------------------ */

/*
 * The part of struct mm_struct the page tables need.  (When mm_types.h
 * grows the whole struct, this moves there.)
 */
struct mm_struct {
	pgd_t *pgd;
	spinlock_t page_table_lock;	/* populating upper levels */
	atomic_long_t nr_pgtable_pages;	/* model: tables allocated, pgd included */
};

extern struct mm_struct init_mm;

static inline unsigned long pgd_index(unsigned long addr) { return (addr >> PGDIR_SHIFT) & (PTRS_PER_PGD - 1); }
static inline unsigned long pud_index(unsigned long addr) { return (addr >> PUD_SHIFT) & (PTRS_PER_PUD - 1); }
static inline unsigned long pmd_index(unsigned long addr) { return (addr >> PMD_SHIFT) & (PTRS_PER_PMD - 1); }
static inline unsigned long pte_index(unsigned long addr) { return (addr >> PAGE_SHIFT) & (PTRS_PER_PTE - 1); }

static inline pgd_t *pgd_offset_pgd(pgd_t *pgd, unsigned long addr)
{
	return pgd + pgd_index(addr);
}

#define pgd_offset(mm, addr)	pgd_offset_pgd((mm)->pgd, (addr))
#define pgd_offset_k(addr)	pgd_offset(&init_mm, (addr))

static inline pud_t *pud_offset(pgd_t *pgd, unsigned long addr)
{
	return pgd_pgtable(pgdp_get(pgd)) + pud_index(addr);
}

static inline pmd_t *pmd_offset(pud_t *pud, unsigned long addr)
{
	return pud_pgtable(pudp_get(pud)) + pmd_index(addr);
}

static inline pte_t *pte_offset_kernel(pmd_t *pmd, unsigned long addr)
{
	return pmd_page_vaddr(pmdp_get(pmd)) + pte_index(addr);
}

/* No highmem, no RCU-freed user tables yet: mapping a PTE table is free. */
#define pte_offset_map(pmd, addr)	pte_offset_kernel((pmd), (addr))
#define pte_unmap(pte)			((void)(pte))

/* The end of the range [addr, end) covered by addr's entry at each level. */
#define __pgtable_addr_end(addr, end, size)					\
({	unsigned long __boundary = ((addr) + (size)) & ~((size) - 1);		\
	(__boundary - 1 < (end) - 1) ? __boundary : (end);			\
})
#define pgd_addr_end(addr, end)	__pgtable_addr_end(addr, end, PGDIR_SIZE)
#define pud_addr_end(addr, end)	__pgtable_addr_end(addr, end, PUD_SIZE)
#define pmd_addr_end(addr, end)	__pgtable_addr_end(addr, end, PMD_SIZE)

/* --- allocating and freeing tables (mm/pgtable.c) --------------------------------- */

/* Page-table pages carry PGTY_table (the kernel's PageTable / ptdesc). */
static inline bool PageTable(const struct page *page)
{
	return (__atomic_load_n(&page->page_type, __ATOMIC_RELAXED) >> 24) == PGTY_table;
}

int __pud_alloc(struct mm_struct *mm, pgd_t *pgd, unsigned long addr);
int __pmd_alloc(struct mm_struct *mm, pud_t *pud, unsigned long addr);
int __pte_alloc_kernel(pmd_t *pmd);

static inline pud_t *pud_alloc(struct mm_struct *mm, pgd_t *pgd, unsigned long addr)
{
	return (unlikely(pgd_none(pgdp_get(pgd))) && __pud_alloc(mm, pgd, addr)) ?
		NULL : pud_offset(pgd, addr);
}

static inline pmd_t *pmd_alloc(struct mm_struct *mm, pud_t *pud, unsigned long addr)
{
	return (unlikely(pud_none(pudp_get(pud))) && __pmd_alloc(mm, pud, addr)) ?
		NULL : pmd_offset(pud, addr);
}

static inline pte_t *pte_alloc_kernel(pmd_t *pmd, unsigned long addr)
{
	return (unlikely(pmd_none(pmdp_get(pmd))) && __pte_alloc_kernel(pmd)) ?
		NULL : pte_offset_kernel(pmd, addr);
}

/*
 * Replace the PTE table under @pmd by nothing, so a huge mapping can take
 * its place: clear the PMD, flush the walk caches, free the table (x86's
 * pmd_free_pte_page()).  The range must be unmapped.  Returns 1.
 */
int pmd_free_pte_page(pmd_t *pmd, unsigned long addr);

/* Map a 2 MiB page at @pmd (x86's pmd_set_huge()); returns 1. */
int pmd_set_huge(pmd_t *pmd, unsigned long pfn, pgprot_t prot);

/* Give @mm a zeroed PGD; 0 or -ENOMEM. */
int pgtable_init_mm(struct mm_struct *mm);

/*
 * Free every table of @mm and its PGD (model only: see the top of this
 * file).  Returns the number of leaf entries still mapping something,
 * which should be 0.
 */
unsigned long pgtable_teardown(struct mm_struct *mm);

/* --- TLB ------------------------------------------------------------------------------- */

/*
 * The model has no TLB; a flush is counted and costs a calibrated busy
 * loop of tlb_flush_loops iterations (set by the lab from --tlb-flush-ns:
 * an IPI to every CPU, or a broadcast TLBI, and the wait for it).
 */
struct tlb_flush_stats {
	unsigned long flushes;		/* flush_tlb_kernel_range() calls */
	unsigned long pages;		/* pages those ranges covered */
};

extern unsigned long tlb_flush_loops;
extern struct tlb_flush_stats tlb_flush_stats;

void flush_tlb_kernel_range(unsigned long start, unsigned long end);

#endif
