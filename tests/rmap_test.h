/*
 * Helpers shared by the tests of user page tables, rmap and reclaim
 * (test_rmap, test_vmscan): a file with its page cache, address spaces
 * mapping it, faults, a raw look at the entries, and the checkers.
 */
#ifndef MMLAB_RMAP_TEST_H
#define MMLAB_RMAP_TEST_H

#include <string.h>

#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <machine/machine.h>

#include "mm_test.h"

/* Where the tests map files: 1 GiB aligned, so page tables line up with the file. */
#define RT_BASE		0x7f0000000000UL
#define RT_PAGES(n)	((unsigned long)(n) << PAGE_SHIFT)

#if defined(CONFIG_RMAP_MUTANT_PAST_PMD) || defined(CONFIG_RMAP_MUTANT_PAST_FOLIO) || \
	defined(CONFIG_RMAP_MUTANT_NOTIFY_NR)
#define RT_MUTANT	1
#else
#define RT_MUTANT	0
#endif

/* The mutant whose batches overrun their page table: debug checks fire on purpose. */
#ifdef CONFIG_RMAP_MUTANT_PAST_PMD
#define RT_PAST_PMD	1
#else
#define RT_PAST_PMD	0
#endif

#ifdef CONFIG_RMAP_BATCHED_REFERENCED
#define RT_BATCH_REFERENCED	1
#else
#define RT_BATCH_REFERENCED	0
#endif

#ifdef CONFIG_RMAP_BATCHED
#define RT_BATCH_UNMAP		1
#else
#define RT_BATCH_UNMAP		0
#endif

static char rt_msg[256];

/* A file: its page cache and the struct file the mappings hold. */
struct rt_file {
	struct address_space mapping;
	struct file file;
};

/* A file of @size bytes whose faults create folios of @order (no backing store). */
static inline void rt_file_init(struct rt_file *f, unsigned long size, unsigned int order)
{
	memset(f, 0, sizeof(*f));
	address_space_init(&f->mapping);
	f->mapping.i_size = (loff_t)size;
	f->mapping.folio_order = order;
	f->file.f_mapping = &f->mapping;
	file_ra_state_init(&f->file.f_ra);
	f->file.f_ra.ra_pages = 0;	/* no readahead: every fault's folio is of @order */
}

static inline void rt_file_destroy(struct rt_file *f)
{
	truncate_inode_pages(&f->mapping);
	address_space_destroy(&f->mapping);
}

/*
 * The process of @mm runs on CPU 1 and sleeps there (lazy TLB) while the
 * test acts on CPU 0, as reclaim-large's mappers do by default: an x86
 * unmap defers its flush (another CPU may cache the entries) and the
 * deferred flush interrupts no one.  The tests boot two CPUs for it
 * (rt_boot()).
 */
static inline void rt_ran_elsewhere(struct mm_struct *mm)
{
	if (nr_cpu_ids < 2) {
		printf("Bail out! rt_ran_elsewhere() needs a second CPU (rt_boot())\n");
		exit(1);
	}
	switch_mm_cpu(1, mm);
	enter_lazy_tlb_cpu(1);
}

/*
 * Boot the test's machine: two CPUs (rt_ran_elsewhere() puts the processes
 * on the second) and @bytes of memory; bails out if the model refuses.
 */
static inline void rt_boot(unsigned long long bytes)
{
	machine_init();
	machine_set_nr_cpus(2);
	if (mem_init(bytes)) {
		printf("Bail out! mem_init failed\n");
		exit(1);
	}
}

static inline struct mm_struct *rt_mm_alloc(void)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm) {
		printf("Bail out! mm_alloc failed\n");
		exit(1);
	}
	rt_ran_elsewhere(mm);
	return mm;
}

/* Map @nr_pages of @f from file page @pgoff at @addr; bails out if the model refuses. */
static inline struct vm_area_struct *rt_mmap(struct mm_struct *mm, struct rt_file *f,
					     unsigned long addr, unsigned long nr_pages,
					     unsigned long vm_flags, pgoff_t pgoff)
{
	unsigned long ret = do_mmap(mm, &f->file, addr, RT_PAGES(nr_pages), vm_flags, pgoff);

	if (ret != addr) {
		printf("Bail out! do_mmap at %#lx failed (%ld)\n", addr, (long)ret);
		exit(1);
	}
	return vma_lookup(mm, addr);
}

/* A read fault at @addr, as the first touch of a page does. */
static inline vm_fault_t rt_fault(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	vm_fault_t ret;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	ret = vma ? handle_mm_fault(vma, addr, 0) : VM_FAULT_SIGBUS;
	mmap_read_unlock(mm);
	/* An order-0 folio waits in this CPU's lru_add batch: put it on the LRU. */
	lru_add_drain();
	return ret;
}

/* The entry for @addr as stored (no gathering over a block); none if no table. */
static inline pte_t rt_pte(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = mm_find_pte(mm, addr);

	return ptep ? __ptep_get(ptep) : __pte(0);
}

/* Fault in every page of [addr, addr + nr pages) not mapped yet; the faults that failed. */
static inline int rt_fault_range(struct mm_struct *mm, unsigned long addr, unsigned long nr)
{
	int failed = 0;

	for (unsigned long i = 0; i < nr; i++) {
		unsigned long a = addr + RT_PAGES(i);

		if (pte_present(rt_pte(mm, a)))
			continue;
		if (rt_fault(mm, a) & VM_FAULT_ERROR || !pte_present(rt_pte(mm, a)))
			failed++;
	}
	return failed;
}

/*
 * The common start of a scenario: a file of @nr_pages pages in folios of
 * @order, mapped whole at RT_BASE read-only by a new mm under @arch, and
 * faulted in.
 */
static inline struct mm_struct *rt_map_file(struct rt_file *f, enum mmu_arch arch,
					    unsigned long nr_pages, unsigned int order)
{
	struct mm_struct *mm;

	mmu_arch = arch;
	rt_file_init(f, RT_PAGES(nr_pages), order);
	mm = rt_mm_alloc();
	rt_mmap(mm, f, RT_BASE, nr_pages, VM_READ, 0);
	rt_fault_range(mm, RT_BASE, nr_pages);
	return mm;
}

/* How many of @nr entries from @addr are present, young, cont, dirty (as stored). */
struct rt_census {
	int present, young, cont, dirty;
	bool consecutive;	/* the present ones map consecutive pfns from the first */
};

static inline struct rt_census rt_census(struct mm_struct *mm, unsigned long addr,
					 unsigned long nr)
{
	struct rt_census c = { .consecutive = true };
	unsigned long pfn0 = pte_pfn(rt_pte(mm, addr));

	for (unsigned long i = 0; i < nr; i++) {
		pte_t pte = rt_pte(mm, addr + RT_PAGES(i));

		if (!pte_present(pte))
			continue;
		c.present++;
		c.young += pte_young(pte);
		c.cont += pte_cont(pte);
		c.dirty += pte_dirty(pte);
		if (pte_pfn(pte) != pfn0 + i)
			c.consecutive = false;
	}
	return c;
}

/* The folio cached at @index (no reference taken: the tests are single-threaded). */
static inline struct folio *rt_folio(struct rt_file *f, pgoff_t index)
{
	struct folio *folio = xa_load(&f->mapping.i_pages, index);

	return folio && !xa_is_value(folio) ? folio : NULL;
}

/* The folio at @index, referenced and locked, as reclaim holds it for rmap. */
static inline struct folio *rt_folio_get_lock(struct rt_file *f, pgoff_t index)
{
	struct folio *folio = filemap_get_folio(&f->mapping, index);

	if (!folio) {
		printf("Bail out! no folio cached at index %lu\n", index);
		exit(1);
	}
	folio_lock(folio);
	return folio;
}

static inline void rt_folio_unlock_put(struct folio *folio)
{
	folio_unlock(folio);
	folio_put(folio);
}

/*
 * Cache an order-4 folio made of the 16 pages from @page (the first one
 * holding one reference) at @index, uptodate and on the LRU, as a fault
 * would have left it; the page cache holds it alone afterwards.
 */
static inline struct folio *rt_cache_folio(struct rt_file *f, struct page *page, pgoff_t index)
{
	struct folio *folio = (struct folio *)page;

	page->private = 0;
	INIT_LIST_HEAD(&page->lru);
	prep_compound_page(page, 4);
	if (filemap_add_folio(&f->mapping, folio, index, GFP_KERNEL)) {
		printf("Bail out! filemap_add_folio at %lu failed\n", index);
		exit(1);
	}
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);		/* the allocation's reference */
	lru_add_drain();		/* a large folio: moved to the LRU at once anyway */
	return folio;
}

/*
 * Two order-4 folios carved from one order-5 block, so that B's pfns
 * follow A's, cached at indices 0 (A, on the LRU first: the older) and 16
 * (B).  Each is freed on its own by truncation; the buddy merges them.
 */
static inline void rt_cache_adjacent_pair(struct rt_file *f, struct folio **a, struct folio **b)
{
	struct page *page = alloc_pages(GFP_KERNEL, 5);

	if (!page) {
		printf("Bail out! no order-5 block\n");
		exit(1);
	}
	init_page_count(page + 16);	/* the second half's own allocation reference */
	*a = rt_cache_folio(f, page, 0);
	*b = rt_cache_folio(f, page + 16, 16);
}

/*
 * rmap, LRU and page cache checkers over @mms and @f (NULL: anonymous
 * memory only, no page cache); 0, or -1 with a diagnostic.
 */
static inline int rt_check(struct mm_struct *const *mms, int nr_mms, struct rt_file *f)
{
	struct address_space *mappings[1] = { f ? &f->mapping : NULL };

	if (rmap_check(mms, nr_mms, mappings, f ? 1 : 0, rt_msg, sizeof(rt_msg))) {
		diag("rmap checker: %s", rt_msg);
		return -1;
	}
	if (lruvec_check(&node_lruvec, rt_msg, sizeof(rt_msg))) {
		diag("LRU checker: %s", rt_msg);
		return -1;
	}
	if (f && filemap_check(&f->mapping, rt_msg, sizeof(rt_msg))) {
		diag("page cache checker: %s", rt_msg);
		return -1;
	}
	return 0;
}

/* Pages allocated and not free, per the allocator's checker (-1 if it fails). */
static inline long rt_allocated_pages(void)
{
	lru_add_drain_all();
	drain_all_pages(&contig_zone);
	return mm_allocated_pages();
}

/* --- counters ---------------------------------------------------------------------- */

struct rt_counters {
	struct tlb_flush_stats tlb;
	unsigned long rmw;
	unsigned long batches;
	unsigned long pvmw_hits;
	unsigned long pgscan, pgsteal;	/* pgscan_file, pgsteal_file */
};

static inline void rt_counters_start(struct rt_counters *c)
{
	reset_vm_events();
	c->tlb = tlb_flush_stats_read();
}

/* What happened since rt_counters_start(): TLB deltas, PTE RMWs, rmap batches. */
static inline struct rt_counters rt_counters_delta(const struct rt_counters *start)
{
	struct rt_counters d = {
		.tlb = {
			.flushes = tlb_flush_stats_read().flushes - start->tlb.flushes,
			.pages = tlb_flush_stats_read().pages - start->tlb.pages,
			.syncs = tlb_flush_stats_read().syncs - start->tlb.syncs,
			.tlbis = tlb_flush_stats_read().tlbis - start->tlb.tlbis,
			.shootdowns = tlb_flush_stats_read().shootdowns - start->tlb.shootdowns,
		},
		.rmw = vm_event(PTE_RMW),
		.batches = vm_event(RMAP_BATCHES),
		.pvmw_hits = vm_event(RMAP_PVMW_HITS),
		.pgscan = vm_event(PGSCAN_FILE),
		.pgsteal = vm_event(PGSTEAL_FILE),
	};
	return d;
}

#endif
