// SPDX-License-Identifier: GPL-2.0
/*
 * Page-table pages (the kernel's mm/memory.c __p?d_alloc, the x86 pgtable
 * helpers for huge kernel mappings) and the TLB flush model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pgtable.h>
#include <linux/delay.h>

struct mm_struct init_mm = {
	.page_table_lock = __SPIN_LOCK_UNLOCKED(init_mm.page_table_lock),
};

unsigned long tlb_flush_loops;
unsigned long tlbi_loops;
bool tlbi_range;
static struct tlb_flush_stats_pcpu {
	struct tlb_flush_stats s;
} __cacheline_aligned tlb_flush_stats_pcpu[NR_CPUS];

struct tlb_flush_stats tlb_flush_stats_read(void)
{
	struct tlb_flush_stats sum = { 0 };

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct tlb_flush_stats *s = &tlb_flush_stats_pcpu[cpu].s;

		sum.flushes += READ_ONCE(s->flushes);
		sum.pages += READ_ONCE(s->pages);
		sum.syncs += READ_ONCE(s->syncs);
		sum.tlbis += READ_ONCE(s->tlbis);
		sum.shootdowns += READ_ONCE(s->shootdowns);
	}
	return sum;
}

/* this_cpu_add(): a plain add to this CPU's slot, never a locked one. */
static inline void tlb_stat_add(unsigned long *counter, unsigned long n)
{
	WRITE_ONCE(*counter, READ_ONCE(*counter) + n);
}
__thread struct tlbflush_unmap_batch tlb_ubc;
struct tlb_state cpu_tlbstate[NR_CPUS];
enum mmu_arch mmu_arch = MMU_X86_64;

/* --- table pages -------------------------------------------------------------------- */

static void *pagetable_alloc(struct mm_struct *mm)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);

	if (!page)
		return NULL;
	__atomic_store_n(&page->page_type, (unsigned int)PGTY_table << 24, __ATOMIC_RELAXED);
	atomic_long_inc(&mm->nr_pgtable_pages);
	return page_address(page);
}

static void pagetable_free(struct mm_struct *mm, void *table)
{
	struct page *page = virt_to_page(table);

	page->private = 0;	/* a PTE table's split lock lives there */
	VM_WARN_ON_ONCE_PAGE(!PageTable(page), page);
	/* The type overlays _mapcount: "no type" reads as mapcount -1 again. */
	__atomic_store_n(&page->page_type, UINT32_MAX, __ATOMIC_RELAXED);
	atomic_long_sub(1, &mm->nr_pgtable_pages);
	__free_page(page);
}

static inline unsigned long table_pfn(void *table)
{
	return page_to_pfn(virt_to_page(table));
}

/*
 * Populate an empty upper-level entry with a new table.  Another CPU may
 * populate it first; the loser frees its table, as the kernel does.  The
 * set_p?d() is a release store: the zeroed table is visible first (the
 * kernel's smp_wmb() before populating).
 */
int __pud_alloc(struct mm_struct *mm, pgd_t *pgd, unsigned long addr)
{
	pud_t *new = pagetable_alloc(mm);

	(void)addr;
	if (!new)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (pgd_none(pgdp_get(pgd))) {
		set_pgd(pgd, __pgd(((pgdval_t)table_pfn(new) << PAGE_SHIFT) | _KERNPG_TABLE));
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pagetable_free(mm, new);
	return 0;
}

int __pmd_alloc(struct mm_struct *mm, pud_t *pud, unsigned long addr)
{
	pmd_t *new = pagetable_alloc(mm);

	(void)addr;
	if (!new)
		return -ENOMEM;
	spin_lock(&mm->page_table_lock);
	if (pud_none(pudp_get(pud))) {
		set_pud(pud, __pud(((pudval_t)table_pfn(new) << PAGE_SHIFT) | _KERNPG_TABLE));
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pagetable_free(mm, new);
	return 0;
}

/*
 * Install a new PTE table under @pmd, with its split lock unlocked (a
 * kernel table never takes it), as the kernel's pmd_install().
 */
static int pte_table_install(struct mm_struct *mm, pmd_t *pmd, pteval_t table_flags)
{
	pte_t *new = pagetable_alloc(mm);

	if (!new)
		return -ENOMEM;
	spin_lock_init(ptlock_ptr(virt_to_page(new)));
	spin_lock(&mm->page_table_lock);
	if (pmd_none(pmdp_get(pmd))) {
		set_pmd(pmd, __pmd(((pmdval_t)table_pfn(new) << PAGE_SHIFT) | table_flags));
		new = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	if (new)
		pagetable_free(mm, new);
	return 0;
}

int __pte_alloc_kernel(pmd_t *pmd)
{
	return pte_table_install(&init_mm, pmd, _KERNPG_TABLE);
}

int __pte_alloc(struct mm_struct *mm, pmd_t *pmd)
{
	return pte_table_install(mm, pmd, _PAGE_TABLE);
}

int pmd_free_pte_page(pmd_t *pmd, unsigned long addr)
{
	pte_t *table = pmd_page_vaddr(pmdp_get(pmd));

	for (int i = 0; i < PTRS_PER_PTE; i++)
		VM_WARN_ON_ONCE(!pte_none(ptep_get(&table[i])));
	pmd_clear(pmd);
	/* The walk caches may still hold the old PMD: flush them first. */
	flush_tlb_kernel_range(addr, addr + PAGE_SIZE);
	pagetable_free(&init_mm, table);
	return 1;
}

int pmd_set_huge(pmd_t *pmd, unsigned long pfn, pgprot_t prot)
{
	set_pmd(pmd, pmd_mkhuge(pfn_pmd(pfn, prot)));
	return 1;
}

int pgtable_init_mm(struct mm_struct *mm)
{
	spin_lock_init(&mm->page_table_lock);
	atomic_long_set(&mm->nr_pgtable_pages, 0);
	mm->pgd = pagetable_alloc(mm);
	return mm->pgd ? 0 : -ENOMEM;
}

/* --- teardown (model only) --------------------------------------------------------- */

static unsigned long free_pte_table(struct mm_struct *mm, pte_t *pte)
{
	unsigned long mapped = 0;

	for (int i = 0; i < PTRS_PER_PTE; i++)
		mapped += !pte_none(ptep_get(&pte[i]));
	pagetable_free(mm, pte);
	return mapped;
}

static unsigned long free_pmd_table(struct mm_struct *mm, pmd_t *pmd)
{
	unsigned long mapped = 0;

	for (int i = 0; i < PTRS_PER_PMD; i++) {
		pmd_t e = pmdp_get(&pmd[i]);

		if (pmd_none(e))
			continue;
		if (pmd_leaf(e))
			mapped++;
		else
			mapped += free_pte_table(mm, pmd_page_vaddr(e));
	}
	pagetable_free(mm, pmd);
	return mapped;
}

static unsigned long free_pud_table(struct mm_struct *mm, pud_t *pud)
{
	unsigned long mapped = 0;

	for (int i = 0; i < PTRS_PER_PUD; i++) {
		pud_t e = pudp_get(&pud[i]);

		if (pud_none(e))
			continue;
		if (pud_leaf(e))
			mapped++;
		else
			mapped += free_pmd_table(mm, pud_pgtable(e));
	}
	pagetable_free(mm, pud);
	return mapped;
}

unsigned long pgtable_teardown(struct mm_struct *mm)
{
	unsigned long mapped = 0;

	if (!mm->pgd)
		return 0;
	for (int i = 0; i < PTRS_PER_PGD; i++) {
		pgd_t e = pgdp_get(&mm->pgd[i]);

		if (!pgd_none(e))
			mapped += free_pud_table(mm, pgd_pgtable(e));
	}
	pagetable_free(mm, mm->pgd);
	mm->pgd = NULL;
	return mapped;
}

/* --- TLB ---------------------------------------------------------------------------- */

static void tlb_count(unsigned long start, unsigned long end, bool sync)
{
	struct tlb_flush_stats *s = &tlb_flush_stats_pcpu[smp_processor_id()].s;

	tlb_stat_add(&s->flushes, 1);
	tlb_stat_add(&s->pages, (end - start + PAGE_SIZE - 1) >> PAGE_SHIFT);
	if (sync)
		tlb_stat_add(&s->syncs, 1);
}

/*
 * A synchronous flush waits for the TLBIs this CPU issued without waiting
 * too: arm64's DSB ISH completes every earlier TLBI, not only its own.
 */
static void tlb_flush_sync(void)
{
	delay_async_wait();
	__delay(tlb_flush_loops);
}

void flush_tlb_kernel_range(unsigned long start, unsigned long end)
{
	tlb_count(start, end, true);
	tlb_flush_sync();
}

void flush_tlb_range(struct vm_area_struct *vma, unsigned long start, unsigned long end)
{
	(void)vma;
	tlb_count(start, end, true);
	tlb_flush_sync();
}

/*
 * Every entry of the mm (fork, after write-protecting the parent): one
 * synchronous flush, counted as one request covering no particular page.
 */
void flush_tlb_mm(struct mm_struct *mm)
{
	(void)mm;
	tlb_count(0, 0, true);
	tlb_flush_sync();
}

/*
 * The TLBIs arm64's __flush_tlb_range_op() issues for @pages: one per page
 * without FEAT_TLBIRANGE, up to the point (MAX_DVM_OPS, a table's worth)
 * where it invalidates the whole ASID with one instead; one per range with
 * it (the model counts one range op for the ranges reclaim flushes).
 */
static unsigned long arm64_tlbi_ops(unsigned long pages)
{
	if (tlbi_range || pages >= PTRS_PER_PTE)
		return 1;
	return pages;
}

/*
 * Broadcast TLBIs complete one after another, each tlbi_loops, beside the
 * CPU's code: the CPU waits only to issue one while the one before is in
 * flight (a run of them back to back waits for all but the last), and at
 * the next DSB.
 */
static void tlbi_issue(unsigned long ops)
{
	for (unsigned long i = 0; i < ops; i++)
		__delay_async(tlbi_loops);
}

void __flush_tlb_range_nosync(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned long ops = arm64_tlbi_ops((end - start + PAGE_SIZE - 1) >> PAGE_SHIFT);

	(void)mm;
	tlb_count(start, end, false);
	tlb_stat_add(&tlb_flush_stats_pcpu[smp_processor_id()].s.tlbis, ops);
	tlbi_issue(ops);
}

/*
 * arm64 flushes a young entry it ages, without waiting (a stale accessed
 * bit is harmless until the next wait); x86 does not flush at all.
 */
int __ptep_clear_flush_young(struct vm_area_struct *vma, unsigned long addr, pte_t *ptep)
{
	int young = __ptep_test_and_clear_young(vma, addr, ptep);

	if (young && mmu_arch == MMU_ARM64)
		__flush_tlb_range_nosync(vma->vm_mm, addr, addr + PAGE_SIZE);
	return young;
}

/*
 * x86's arch_tlbbatch_add_pending(): a new TLB generation for the mm (a
 * locked increment) and its CPU mask merged into the batch's, a word per
 * 64 possible CPUs.
 */
static void x86_tlbbatch_add_pending(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	unsigned int words = (unsigned int)DIV_ROUND_UP(nr_cpu_ids, BITS_PER_LONG);

	atomic_long_add_return(1, &mm->tlb_gen);
	for (unsigned int i = 0; i < words; i++)
		tlb_ubc.cpumask[i] |= READ_ONCE(mm->cpu_bitmap[i]);
	tlb_ubc.pending_pages += (end - start) >> PAGE_SHIFT;
}

static bool cpumask_test(const unsigned long *mask, int cpu)
{
	return (READ_ONCE(mask[cpu / BITS_PER_LONG]) >> (cpu % BITS_PER_LONG)) & 1;
}

/* cpumask_any_but(@mask, @cpu) < nr_cpu_ids: is any other CPU in @mask? */
static bool cpumask_other_than(const unsigned long *mask, int cpu)
{
	unsigned int words = (unsigned int)DIV_ROUND_UP(nr_cpu_ids, BITS_PER_LONG);

	for (unsigned int i = 0; i < words; i++) {
		unsigned long w = READ_ONCE(mask[i]);

		if (i == (unsigned int)cpu / BITS_PER_LONG)
			w &= ~(1UL << (cpu % BITS_PER_LONG));
		if (i == words - 1 && nr_cpu_ids % BITS_PER_LONG)
			w &= (1UL << (nr_cpu_ids % BITS_PER_LONG)) - 1;	/* no CPU past nr_cpu_ids */
		if (w)
			return true;
	}
	return false;
}

void switch_mm_cpu(int cpu, struct mm_struct *next)
{
	if (next && !cpumask_test(next->cpu_bitmap, cpu))
		__atomic_fetch_or(&next->cpu_bitmap[cpu / BITS_PER_LONG], 1UL << (cpu % BITS_PER_LONG),
				  __ATOMIC_RELAXED);
	WRITE_ONCE(cpu_tlbstate[cpu].loaded_mm, next);
	WRITE_ONCE(cpu_tlbstate[cpu].tlb_gen, next ? atomic_long_read(&next->tlb_gen) : 0);
	WRITE_ONCE(cpu_tlbstate[cpu].is_lazy, false);
}

void enter_lazy_tlb_cpu(int cpu)
{
	if (READ_ONCE(cpu_tlbstate[cpu].loaded_mm))
		WRITE_ONCE(cpu_tlbstate[cpu].is_lazy, true);
}

/*
 * The kernel frees an mm only once no CPU holds it, lazily or not
 * (mmgrab_lazy_tlb()); the model lets it go at its mmput() and moves any
 * CPU still showing it to init_mm.
 */
void tlb_forget_mm(struct mm_struct *mm)
{
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (READ_ONCE(cpu_tlbstate[cpu].loaded_mm) == mm)
			switch_mm_cpu(cpu, NULL);
	}
}

bool arch_tlbbatch_should_defer(struct mm_struct *mm)
{
	if (mmu_arch == MMU_ARM64)
		return true;
	return cpumask_other_than(mm->cpu_bitmap, smp_processor_id());
}

/*
 * x86's arch_tlbbatch_flush() (no INVLPGB on the modelled CPUs): another
 * CPU of the batch's mask gets an IPI unless it is lazy (should_flush_tlb():
 * it catches up at its next switch); the calling CPU flushes its own TLB
 * only if the mm it runs is one whose generation the batch advanced
 * (flush_tlb_func() finds any other up to date).  Either is one full flush
 * waited for, tlb_flush_loops; none at all when every CPU that ran the
 * batch's mms has gone idle since and the caller runs another mm.
 */
static bool x86_tlbbatch_needs_flush(void)
{
	int self = smp_processor_id();
	struct tlb_state *local = &cpu_tlbstate[self];
	struct mm_struct *mm = READ_ONCE(local->loaded_mm);
	bool flush = false;

	if (cpumask_test(tlb_ubc.cpumask, self) && mm && !READ_ONCE(local->is_lazy) &&
	    atomic_long_read(&mm->tlb_gen) != READ_ONCE(local->tlb_gen)) {
		WRITE_ONCE(local->tlb_gen, atomic_long_read(&mm->tlb_gen));
		flush = true;
	}
	for (int cpu = 0; cpu < nr_cpu_ids && !flush; cpu++) {
		if (cpu == self || !cpumask_test(tlb_ubc.cpumask, cpu))
			continue;
		if (!READ_ONCE(cpu_tlbstate[cpu].is_lazy))
			flush = true;
	}
	return flush;
}

/* The kernel's bound on the pending count before it resets the pair. */
#define TLB_FLUSH_BATCH_FLUSHED_SHIFT	16
#define TLB_FLUSH_BATCH_PENDING_MASK	((1 << (TLB_FLUSH_BATCH_FLUSHED_SHIFT - 1)) - 1)
#define TLB_FLUSH_BATCH_PENDING_LARGE	(TLB_FLUSH_BATCH_PENDING_MASK / 2)

#ifdef CONFIG_DEBUG_VM
/*
 * The flush-before-free check (pgtable.h): each page of a deferred run is
 * counted pending until this thread's try_to_unmap_flush().  The counts
 * are plain __atomic builtins, not atomic_t: the interleaving checker must
 * not see a scheduling point the kernel does not have.
 */
static void tlb_ubc_debug_add(pte_t pteval, unsigned long start, unsigned long end)
{
	unsigned long pfn = pte_pfn(pteval), nr = (end - start) >> PAGE_SHIFT;

	if (tlb_ubc.dbg_nr == tlb_ubc.dbg_cap) {
		unsigned int cap = tlb_ubc.dbg_cap ? 2 * tlb_ubc.dbg_cap : 64;
		struct tlb_ubc_pfn_run *runs = realloc(tlb_ubc.dbg_runs, cap * sizeof(*runs));

		if (!runs)
			abort();
		tlb_ubc.dbg_runs = runs;
		tlb_ubc.dbg_cap = cap;
	}
	tlb_ubc.dbg_runs[tlb_ubc.dbg_nr++] = (struct tlb_ubc_pfn_run){ pfn, nr };
	for (unsigned long i = 0; i < nr; i++)
		__atomic_fetch_add(page_ext_tlb_flush_pending(pfn + i), 1, __ATOMIC_RELAXED);
}

static void tlb_ubc_debug_flushed(void)
{
	for (unsigned int r = 0; r < tlb_ubc.dbg_nr; r++) {
		const struct tlb_ubc_pfn_run *run = &tlb_ubc.dbg_runs[r];

		for (unsigned long i = 0; i < run->nr; i++)
			__atomic_fetch_sub(page_ext_tlb_flush_pending(run->pfn + i), 1, __ATOMIC_RELAXED);
	}
	tlb_ubc.dbg_nr = 0;
}

bool page_tlb_flush_pending(const struct page *page)
{
	return __atomic_load_n(page_ext_tlb_flush_pending(page_to_pfn(page)), __ATOMIC_RELAXED) != 0;
}

/* From free_pages_prepare(): one warning per block, naming its first pending page. */
void free_pages_check_tlb_flush(struct page *page, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++) {
		if (VM_WARN_ON_PAGE(page_tlb_flush_pending(page + i), page + i))
			return;
	}
}
#else
static inline void tlb_ubc_debug_add(pte_t pteval, unsigned long start, unsigned long end)
{
	(void)pteval;
	(void)start;
	(void)end;
}

static inline void tlb_ubc_debug_flushed(void)
{
}
#endif

/*
 * Every call pays what the kernel's does: the architecture's bookkeeping
 * and one locked increment of mm->tlb_flush_batched, which tells a racing
 * zap or mprotect that a flush is still owed.  Vanilla calls it per PTE,
 * the batched design once per batch.
 */
void set_tlb_ubc_flush_pending(struct mm_struct *mm, pte_t pteval,
			       unsigned long start, unsigned long end)
{
	int batch;

	tlb_ubc_debug_add(pteval, start, end);
	if (mmu_arch == MMU_ARM64)
		__flush_tlb_range_nosync(mm, start, end);	/* arch_tlbbatch_add_pending() */
	else
		x86_tlbbatch_add_pending(mm, start, end);
	tlb_ubc.flush_required = true;
	barrier();	/* the flag before the count, after the PTE was cleared */
	batch = atomic_read(&mm->tlb_flush_batched);
	while ((batch & TLB_FLUSH_BATCH_PENDING_MASK) > TLB_FLUSH_BATCH_PENDING_LARGE) {
		if (atomic_try_cmpxchg(&mm->tlb_flush_batched, &batch, 1))
			return;
	}
	atomic_inc(&mm->tlb_flush_batched);
}

void try_to_unmap_flush(void)
{
	if (!tlb_ubc.flush_required)
		return;
	if (mmu_arch == MMU_ARM64) {
		/*
		 * arch_tlbbatch_flush(): the DSB alone, after the TLBIs issued
		 * (a synchronous flush less its one TLBI).
		 */
		tlb_stat_add(&tlb_flush_stats_pcpu[smp_processor_id()].s.syncs, 1);
		delay_async_wait();
		__delay(tlb_flush_loops > tlbi_loops ? tlb_flush_loops - tlbi_loops : 0);
	} else {
		bool flush = x86_tlbbatch_needs_flush();

		tlb_count(0, tlb_ubc.pending_pages << PAGE_SHIFT, flush);
		if (flush) {
			tlb_stat_add(&tlb_flush_stats_pcpu[smp_processor_id()].s.shootdowns, 1);
			__delay(tlb_flush_loops);
		}
		memset(tlb_ubc.cpumask, 0, DIV_ROUND_UP(nr_cpu_ids, BITS_PER_LONG) * sizeof(long));
	}
	tlb_ubc.flush_required = false;
	tlb_ubc.pending_pages = 0;
	tlb_ubc_debug_flushed();	/* every CPU's TLB is clean of the batch now */
}
