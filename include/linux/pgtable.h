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
#include <asm/pgtable_types.h>

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
/* User mappings of a file (the x86 protection_map entries used here). */
#define PAGE_READONLY	__pgprot(_PAGE_PRESENT | _PAGE_USER | _PAGE_ACCESSED | _PAGE_NX)
#define PAGE_SHARED	__pgprot(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_ACCESSED | _PAGE_NX)
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
/*
 * An entry's load, for every level.  What it loads becomes the next address
 * by arithmetic (the next table, pfn_to_page()), not as a pointer: the vt
 * flavour is told it is an entry (VT_HK_ENTRY), so that a miss in the frame
 * it names, or on the frame's struct page, waits for it, as a walk's next
 * level does in hardware, while other loads overlap it.
 */
#ifdef MMLAB_VT
/* Tell the vt machine where frames are and how an entry names one (mem_init()). */
static inline void mem_frames_announce(void)
{
	vt_frames(mem_arena, mem_map, max_pfn, PAGE_SIZE, sizeof(struct page),
		  _PAGE_PRESENT, PTE_PFN_MASK, PAGE_SHIFT);
}

static inline u64 pgtable_entry_load(u64 *p, bool acquire)
{
	u64 v;

	vt_access(p, VT_HK_READ | VT_HK_LOAD | VT_HK_ENTRY);
	if (acquire)
		__atomic_load(p, &v, __ATOMIC_ACQUIRE);
	else
		__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}
#else
static inline void mem_frames_announce(void)
{
}

static inline u64 pgtable_entry_load(u64 *p, bool acquire)
{
	return acquire ? __atomic_load_n(p, __ATOMIC_ACQUIRE) : __atomic_load_n(p, __ATOMIC_RELAXED);
}
#endif

static inline pmd_t pmdp_get(pmd_t *pmdp)	{ return __pmd(pgtable_entry_load(&pmdp->pmd, true)); }
static inline pud_t pudp_get(pud_t *pudp)	{ return __pud(pgtable_entry_load(&pudp->pud, true)); }
static inline pgd_t pgdp_get(pgd_t *pgdp)	{ return __pgd(pgtable_entry_load(&pgdp->pgd, true)); }

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

/* --- the walk ------------------------------------------------------------------------ */

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
 * The model has no TLB.  A flush is counted (requests, pages covered, and
 * the waits for completion) and costs a calibrated busy loop:
 *
 *  - a synchronous flush (flush_tlb_kernel_range(), flush_tlb_range(), the
 *    final flush of a deferred batch) costs tlb_flush_loops: an IPI
 *    shootdown on x86, broadcast TLBIs and the DSB that waits for them on
 *    arm64;
 *  - arm64 TLBIs issued without waiting (__flush_tlb_range_nosync(), as
 *    clearing a young bit and a deferred unmap issue them) take tlbi_loops
 *    each: one per page, or one per range with tlbi_range (FEAT_TLBIRANGE).
 *    Broadcast TLBIs complete one after another beside the CPU's code
 *    (__delay_async()): the CPU waits to issue one while the one before is
 *    in flight, and the next DSB (a synchronous flush, or the deferred
 *    batch's final flush, which costs tlb_flush_loops less one TLBI) waits
 *    for the last.
 *
 * The lab sets both from --tlb-flush-ns and --tlbi-ns (docs/design/
 * seed-004-reclaim-large.md, "TLB model", says why the defaults are what
 * they are).
 */
struct tlb_flush_stats {
	unsigned long flushes;		/* invalidation requests, waited for or not */
	unsigned long pages;		/* pages those requests covered */
	unsigned long syncs;		/* waits for completion */
	unsigned long tlbis;		/* arm64 TLBIs issued without waiting */
	unsigned long shootdowns;	/* x86: deferred flushes some CPU's TLB had to do */
};

extern unsigned long tlb_flush_loops;
extern unsigned long tlbi_loops;
extern bool tlbi_range;		/* FEAT_TLBIRANGE: a range is one TLBI, not one per page */

/*
 * The counts are kept per CPU and bumped with plain adds, like the
 * kernel's NR_TLB_* vm events: a locked add per flush call would charge
 * the design that makes more calls for the lab's bookkeeping.  Read them
 * summed over every CPU.
 */
struct tlb_flush_stats tlb_flush_stats_read(void);

void flush_tlb_kernel_range(unsigned long start, unsigned long end);

struct vm_area_struct;

/* Flush a user range and wait (flush_tlb_range). */
void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);
/* Flush every user entry of @mm and wait (flush_tlb_mm). */
void flush_tlb_mm(struct mm_struct *mm);
/* arm64: issue the invalidations of a user range, do not wait. */
void __flush_tlb_range_nosync(struct mm_struct *mm, unsigned long start, unsigned long end);

/*
 * Deferred flushing for reclaim (TTU_BATCH_FLUSH): unmapping records what
 * it cleared, and one flush covers it all before the folios are freed.
 * x86 only remembers which CPUs to interrupt; arm64 issues the TLBIs at
 * once and waits for them all at the end (arch_tlbbatch_*).  One batch per
 * reclaiming thread, as the kernel keeps it in task_struct.
 */
struct tlbflush_unmap_batch {
	bool flush_required;
	unsigned long pending_pages;	/* x86: what the final flush covers */
	unsigned long cpumask[NR_CPUS / BITS_PER_LONG];	/* x86: the CPUs to interrupt */
#ifdef CONFIG_DEBUG_VM
	/* The pages deferred since the last flush: pfn runs (flush-before-free). */
	struct tlb_ubc_pfn_run {
		unsigned long pfn, nr;
	} *dbg_runs;
	unsigned int dbg_nr, dbg_cap;
#endif
};

extern __thread struct tlbflush_unmap_batch tlb_ubc;

/*
 * x86's cpu_tlbstate.loaded_mm and cpu_tlbstate_shared.is_lazy: the mm
 * whose entries a CPU's TLB may hold and whether the CPU only borrows it
 * (an idle or kernel thread after the mm's task went to sleep, which
 * catches up with the mm's flushes at its next switch instead of taking an
 * IPI).  NULL is init_mm.  Only the deferred flush reads them; the
 * workloads say where their processes ran (switch_mm_cpu()).
 */
struct tlb_state {
	struct mm_struct *loaded_mm;
	long tlb_gen;		/* the loaded mm's generation this TLB caught up with */
	bool is_lazy;
} __cacheline_aligned;

extern struct tlb_state cpu_tlbstate[NR_CPUS];

/*
 * switch_mm_irqs_off() on @cpu: it runs @next (or init_mm for NULL), and
 * @next's mm_cpumask() gains @cpu.  The old mm keeps the bit, as x86 has
 * trimmed mm_cpumask() lazily since 6.13.  enter_lazy_tlb_cpu(): the task
 * on @cpu went to sleep and the idle thread borrows its mm.
 */
void switch_mm_cpu(int cpu, struct mm_struct *next);
void enter_lazy_tlb_cpu(int cpu);
void tlb_forget_mm(struct mm_struct *mm);

/*
 * Whether an unmap may defer its flush to try_to_unmap_flush() (the
 * kernel's should_defer_flush() with the architecture's rule): arm64
 * always; x86 only when another CPU may cache the mm's entries, as a local
 * flush is cheaper done at once than remembered.
 */
bool arch_tlbbatch_should_defer(struct mm_struct *mm);

void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval,
			       unsigned long start, unsigned long end);
/* Flush what unmapping deferred (try_to_unmap_flush in mm/rmap.c). */
void try_to_unmap_flush(void);

/*
 * The flush-before-free rule (CONFIG_DEBUG_VM only; the timed builds carry
 * none of it).  An entry cleared with its flush deferred may still be in
 * some CPU's TLB until try_to_unmap_flush(): a page freed before that can
 * be handed out again while another CPU still reads or writes it through
 * the stale translation.  The kernel calls try_to_unmap_flush() before
 * free_unref_folios() in shrink_folio_list() for exactly this reason.
 * set_tlb_ubc_flush_pending() records the pfns in the thread's batch and
 * counts each page pending (page_ext); try_to_unmap_flush() uncounts them;
 * free_pages_prepare() warns (VM_WARN_ON_PAGE) on a page freed while any
 * batch still counts it.  page_tlb_flush_pending(): does any batch?
 */
#ifdef CONFIG_DEBUG_VM
unsigned int *page_ext_tlb_flush_pending(unsigned long pfn);	/* page_ext.c */
bool page_tlb_flush_pending(const struct page *page);
void free_pages_check_tlb_flush(struct page *page, unsigned long nr);
#else
static inline bool page_tlb_flush_pending(const struct page *page)
{
	(void)page;
	return false;
}

static inline void free_pages_check_tlb_flush(struct page *page, unsigned long nr)
{
	(void)page;
	(void)nr;
}
#endif

/* --- the architecture ----------------------------------------------------------------- */

/*
 * Which MMU the user page tables behave as, set outside any measured loop
 * (reclaim-large's --contpte):
 *
 *  MMU_X86_64  no contiguous hint; clearing a young bit needs no flush (a
 *              stale accessed bit in the TLB only ages a page less well:
 *              x86's ptep_clear_flush_young()); deferred flushes only mark
 *              CPUs.
 *  MMU_ARM64   set_ptes() folds naturally aligned runs of CONT_PTES entries
 *              of one folio into contiguous blocks; an operation on one
 *              entry of a block is an operation on the block (ptep_get()
 *              gathers young and dirty over it, clearing young clears it
 *              for the block, clearing an entry first unfolds the block,
 *              with a synchronous flush); clearing young flushes (without
 *              waiting) when the entry was young; deferred flushes issue
 *              TLBIs at once.
 *
 * The kernel decides this at build time; the model reads one global in the
 * arch helpers, in every design alike, so it biases no comparison.
 */
enum mmu_arch {
	MMU_X86_64,
	MMU_ARM64,
};

extern enum mmu_arch mmu_arch;


/* --- user page tables ---------------------------------------------------------------- */

/*
 * The split PTE lock: one spinlock per PTE table, kept in the table page's
 * struct page (the kernel's ptdesc->ptl, when it fits in struct page).
 */
static inline spinlock_t *ptlock_ptr(struct page *table)
{
	return (spinlock_t *)&table->private;
}

static inline spinlock_t *pte_lockptr(struct mm_struct *mm, pmd_t *pmd)
{
	(void)mm;
	return ptlock_ptr(pfn_to_page(pmd_pfn(pmdp_get(pmd))));
}

static inline pte_t *pte_offset_map_lock(struct mm_struct *mm, pmd_t *pmd,
					 unsigned long addr, spinlock_t **ptlp)
{
	spinlock_t *ptl = pte_lockptr(mm, pmd);

	spin_lock(ptl);
	*ptlp = ptl;
	return pte_offset_map(pmd, addr);
}

static inline void pte_unmap_unlock(pte_t *pte, spinlock_t *ptl)
{
	pte_unmap(pte);
	spin_unlock(ptl);
}

int __pte_alloc(struct mm_struct *mm, pmd_t *pmd);

static inline bool pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	return unlikely(pmd_none(pmdp_get(pmd))) && __pte_alloc(mm, pmd);
}

/* The PMD entry covering @addr, or NULL where an upper level is empty. */
static inline pmd_t *mm_find_pmd(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	pud_t *pud;

	if (pgd_none(pgdp_get(pgd)))
		return NULL;
	pud = pud_offset(pgd, addr);
	if (pud_none(pudp_get(pud)) || pud_leaf(pudp_get(pud)))
		return NULL;
	return pmd_offset(pud, addr);
}

/*
 * The entry for @addr, or NULL where no PTE table covers it (the model's
 * shortcut for a lockless walk: the hardware walker, checkers, tests).
 */
static inline pte_t *mm_find_pte(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);

	if (!pmd || pmd_none(pmdp_get(pmd)))
		return NULL;
	return pte_offset_map(pmd, addr);
}

/* --- the arch's PTE operations ------------------------------------------------------- */

/*
 * Every access to a user entry below is one step of the interleaving
 * checker (a no-op elsewhere), as the MMU's own accesses are.
 */
static inline pte_t __ptep_get(pte_t *ptep)
{
	__atomic_step();
	return __pte(pgtable_entry_load(&ptep->pte, false));
}

static inline void __set_pte(pte_t *ptep, pte_t pte)
{
	__atomic_step();
	WRITE_ONCE(ptep->pte, pte_val(pte));
}

static inline pte_t pte_advance_pfn(pte_t pte, unsigned long nr)
{
	return __pte(pte_val(pte) + ((pteval_t)nr << PAGE_SHIFT));
}

/*
 * One entry's accessed bit, tested and cleared atomically: the walker of
 * another CPU may be setting it (or dirty) at the same moment.
 */
/*
 * x86 reads the entry and takes the cache line for writing only when the
 * accessed bit is set (a locked bit clear); arm64 always runs its
 * compare-exchange loop, which also retries when hardware set the
 * dirty bit under it.
 */
static inline int x86_ptep_test_and_clear_young(pte_t *ptep)
{
	if (!pte_young(__ptep_get(ptep)))
		return 0;
	count_debug_vm_event(PTE_RMW);
	__atomic_step();
	return (__atomic_fetch_and(&ptep->pte, ~_PAGE_ACCESSED, __ATOMIC_RELAXED) &
		_PAGE_ACCESSED) != 0;
}

static inline int arm64_ptep_test_and_clear_young(pte_t *ptep)
{
	pteval_t old = pte_val(__ptep_get(ptep));

	do {
		count_debug_vm_event(PTE_RMW);
		__atomic_step();
	} while (!__atomic_compare_exchange_n(&ptep->pte, &old, old & ~_PAGE_ACCESSED, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return (old & _PAGE_ACCESSED) != 0;
}

static inline int __ptep_test_and_clear_young(struct vm_area_struct *vma,
					      unsigned long addr, pte_t *ptep)
{
	(void)vma;
	(void)addr;
	if (mmu_arch == MMU_ARM64)
		return arm64_ptep_test_and_clear_young(ptep);
	return x86_ptep_test_and_clear_young(ptep);
}

static inline pte_t __ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	count_debug_vm_event(PTE_RMW);
	__atomic_step();
	return __pte(__atomic_exchange_n(&ptep->pte, 0, __ATOMIC_RELAXED));
}

/* arm64's contiguous blocks (mm/contpte.c): only MMU_ARM64 sets _PAGE_CONT. */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte);
int contpte_test_and_clear_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				      pte_t *ptep, unsigned int nr);
int contpte_clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
				   pte_t *ptep, unsigned int nr);
void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte);
pte_t contpte_get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, unsigned int nr, int full);
void contpte_wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep, unsigned int nr);
void contpte_set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
		      pte_t pte, unsigned int nr);

static inline pte_t ptep_get(pte_t *ptep)
{
	pte_t pte = __ptep_get(ptep);

	if (likely(!pte_cont(pte)))
		return pte;
	return contpte_ptep_get(ptep, pte);
}

/*
 * Kernel mappings keep their blocks (arm64 never folds or unfolds them:
 * a fault on a kernel address could not be tolerated); user blocks unfold.
 */
static inline void contpte_try_unfold(struct mm_struct *mm, unsigned long addr,
				      pte_t *ptep, pte_t pte)
{
	if (unlikely(pte_cont(pte)) && mm != &init_mm)
		__contpte_try_unfold(mm, addr, ptep, pte);
}

static inline int ptep_test_and_clear_young(struct vm_area_struct *vma,
					    unsigned long addr, pte_t *ptep)
{
	if (likely(!pte_cont(__ptep_get(ptep))))
		return __ptep_test_and_clear_young(vma, addr, ptep);
	/*
	 * One entry, widened to its block by the contpte helper.  (v3 of the
	 * series passed CONT_PTES here, which from a mid-block entry runs into
	 * the next block; later versions pass 1.)
	 */
	return contpte_test_and_clear_young_ptes(vma, addr, ptep, 1);
}

int __ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep);

static inline int ptep_clear_flush_young(struct vm_area_struct *vma,
					 unsigned long addr, pte_t *ptep)
{
	if (likely(!pte_cont(__ptep_get(ptep))))
		return __ptep_clear_flush_young(vma, addr, ptep);
	return contpte_clear_flush_young_ptes(vma, addr, ptep, 1);
}

/*
 * Clear the accessed bits of @nr entries mapping consecutive pages of one
 * folio, in one VMA and one page table, flushing as the arch requires.
 * Returns whether any was young.  (The series' clear_flush_young_ptes():
 * arm64 handles the whole run at once, contiguous blocks at its ends
 * included; elsewhere it is a loop of ptep_clear_flush_young().)
 */
static inline int clear_flush_young_ptes(struct vm_area_struct *vma, unsigned long addr,
					 pte_t *ptep, unsigned int nr)
{
	int young;

	VM_WARN_ON_ONCE(!nr || pte_index(addr) + nr > PTRS_PER_PTE);
	if (mmu_arch == MMU_ARM64) {
		if (likely(nr == 1 && !pte_cont(__ptep_get(ptep))))
			return __ptep_clear_flush_young(vma, addr, ptep);
		return contpte_clear_flush_young_ptes(vma, addr, ptep, nr);
	}
	young = ptep_clear_flush_young(vma, addr, ptep);
	while (--nr) {
		ptep++;
		addr += PAGE_SIZE;
		young |= ptep_clear_flush_young(vma, addr, ptep);
	}
	return young;
}

static inline pte_t ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	contpte_try_unfold(mm, addr, ptep, __ptep_get(ptep));
	return __ptep_get_and_clear(mm, addr, ptep);
}

/*
 * Clear @nr entries mapping consecutive pages of one folio and return the
 * first one's old value with the dirty and young bits of all of them
 * gathered in.  arm64 unfolds only blocks the run covers in part.
 */
static inline pte_t __get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					      pte_t *ptep, unsigned int nr)
{
	pte_t pte = __ptep_get_and_clear(mm, addr, ptep);

	while (--nr) {
		pte_t tmp;

		ptep++;
		addr += PAGE_SIZE;
		tmp = __ptep_get_and_clear(mm, addr, ptep);
		if (pte_dirty(tmp))
			pte = pte_mkdirty(pte);
		if (pte_young(tmp))
			pte = pte_mkyoung(pte);
	}
	return pte;
}

static inline pte_t get_and_clear_full_ptes(struct mm_struct *mm, unsigned long addr,
					    pte_t *ptep, unsigned int nr, int full)
{
	VM_WARN_ON_ONCE(!nr || pte_index(addr) + nr > PTRS_PER_PTE);
	if (likely(nr == 1))
		return ptep_get_and_clear(mm, addr, ptep);
	if (mmu_arch == MMU_ARM64)
		return contpte_get_and_clear_full_ptes(mm, addr, ptep, nr, full);
	return __get_and_clear_full_ptes(mm, addr, ptep, nr);
}

/* Map @nr consecutive pages from @pte's pfn at consecutive entries. */
static inline void set_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			    pte_t pte, unsigned int nr)
{
	if (mmu_arch == MMU_ARM64 && nr > 1) {
		contpte_set_ptes(mm, addr, ptep, pte, nr);
		return;
	}
	for (;;) {
		__set_pte(ptep, pte);
		if (--nr == 0)
			break;
		ptep++;
		pte = pte_advance_pfn(pte, 1);
	}
}

/*
 * How many of the next entries, from @ptep, the arch says are alike: on
 * arm64 the rest of a contiguous block, which a batch may step over at
 * once (pte_batch_hint).
 */
static inline unsigned int pte_batch_hint(pte_t *ptep, pte_t pte)
{
	if (!pte_cont(pte))
		return 1;
	return CONT_PTES - (unsigned int)(((unsigned long)ptep >> 3) & (CONT_PTES - 1));
}

/* --- write protection and access flags (fork, COW) ------------------------------------ */

static inline bool pte_same(pte_t a, pte_t b)	{ return pte_val(a) == pte_val(b); }

/*
 * Clear the write bit of one entry atomically: the MMU of another CPU may
 * be setting accessed or dirty in it (x86's locked clear_bit; arm64's
 * compare-exchange loop comes to the same).
 */
static inline void __ptep_set_wrprotect(struct mm_struct *mm, unsigned long addr, pte_t *ptep)
{
	(void)mm;
	(void)addr;
	count_debug_vm_event(PTE_RMW);
	__atomic_step();
	__atomic_fetch_and(&ptep->pte, ~_PAGE_RW, __ATOMIC_RELAXED);
}

static inline void __wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				    unsigned int nr)
{
	for (; nr; nr--, ptep++, addr += PAGE_SIZE)
		__ptep_set_wrprotect(mm, addr, ptep);
}

/* Write-protect @nr entries mapping consecutive pages of one folio (fork). */
static inline void wrprotect_ptes(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				  unsigned int nr)
{
	if (mmu_arch == MMU_ARM64) {
		contpte_wrprotect_ptes(mm, addr, ptep, nr);
		return;
	}
	__wrprotect_ptes(mm, addr, ptep, nr);
}

/*
 * A fault's update of a present entry's access flags (x86's
 * ptep_set_access_flags(): the entry is written only for a write fault;
 * a read fault on a present entry was spurious).  Returns whether it
 * changed.  The caller holds the page table lock.
 */
static inline int ptep_set_access_flags(struct vm_area_struct *vma, unsigned long address,
					pte_t *ptep, pte_t entry, int dirty)
{
	int changed = !pte_same(__ptep_get(ptep), entry);

	(void)vma;
	(void)address;
	if (changed && dirty)
		__set_pte(ptep, entry);
	return changed;
}

/* Clear an entry and flush it from the TLBs before anything else maps there. */
static inline pte_t ptep_clear_flush(struct vm_area_struct *vma, unsigned long address,
				     pte_t *ptep)
{
	pte_t pte = ptep_get_and_clear(vma->vm_mm, address, ptep);

	if (pte_present(pte))
		flush_tlb_range(vma, address, address + PAGE_SIZE);
	return pte;
}

#endif
