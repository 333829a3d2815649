/*
 * User page tables, faults on file mappings and the reverse map of file
 * folios (seed 004: batched folio_referenced() and try_to_unmap() for
 * large folios), in every design and mutant.
 *
 * Page tables and faults: a fault maps a whole folio when it lies inside
 * the VMA and one page table; arm64 folds aligned runs of 16 entries into
 * contiguous blocks, which age as one and unfold before any other change.
 *
 * rmap: folio_pte_batch() stops at the folio's end, the page table's end
 * and the caller's bound; folio_referenced() clears every young bit of the
 * folio and reports each young VMA once, in every design, at the cost each
 * design claims (PTE read-modify-writes, batches, TLB flushes);
 * try_to_unmap() leaves no entry, mapcount, RSS or reference behind, with
 * the deferred flush accounted per MMU and design; MMU notifiers hear the
 * exact ranges aged.
 *
 * Mutants: rmap-past-pmd is caught by the folio across a page-table
 * boundary (a debug check fires), rmap-past-folio by two physically
 * adjacent folios (A's batch runs into B), rmap-notify-nr by calling the
 * notifier macro where the caller's `nr` differs from its argument.  The
 * scenarios a mutant would corrupt beyond a safe teardown only run their
 * destructive half in builds where the catch did not happen.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <machine/machine.h>

#include "rmap_test.h"

#define ORDER4	16	/* pages in an order-4 (64 KiB) folio */

static const char *arch_name(enum mmu_arch arch)
{
	return arch == MMU_ARM64 ? "arm64" : "x86";
}


/* The entry at @addr with its page table's lock held. */
static pte_t *lock_pte(struct mm_struct *mm, unsigned long addr, spinlock_t **ptl)
{
	pmd_t *pmd = mm_find_pmd(mm, addr);

	if (!pmd || pmd_none(pmdp_get(pmd))) {
		printf("Bail out! no page table maps %#lx\n", addr);
		exit(1);
	}
	return pte_offset_map_lock(mm, pmd, addr, ptl);
}

/* The cached folio at @index, which must exist. */
static struct folio *folio_at(struct rt_file *f, pgoff_t index)
{
	struct folio *folio = rt_folio(f, index);

	if (!folio) {
		printf("Bail out! nothing cached at index %lu\n", index);
		exit(1);
	}
	return folio;
}

/* Pages of @folio whose _mapcount says @want mappings. */
static int pages_mapped(struct folio *folio, int want)
{
	int n = 0;

	for (unsigned long i = 0; i < folio_nr_pages(folio); i++)
		n += page_mapcount(folio_page(folio, i)) == want;
	return n;
}

/*
 * Every scenario ends here: the checkers over what is left, teardown
 * (mmput, truncate, destroy), and the allocator holding nothing.  A
 * scenario that a mutant targets says it may have fired debug checks.
 */
static void finish(const char *what, struct mm_struct **mms, int nr_mms, struct rt_file *f,
		   unsigned long warns, bool may_warn)
{
	ok(rt_check(mms, nr_mms, f) == 0, "%s: rmap, LRU and page cache checkers pass", what);
	if (!may_warn)
		is_int(vm_warn_count - warns, 0, "%s: no debug check fired", what);
	for (int i = 0; i < nr_mms; i++)
		mmput(mms[i]);
	rt_file_destroy(f);
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 0, "%s: NR_FILE_MAPPED back to 0", what);
	is_int(rt_allocated_pages(), 0, "%s: nothing left allocated after teardown", what);
	mmu_arch = MMU_X86_64;
}

/* --- faults and contiguous blocks ------------------------------------------------------ */

/*
 * An order-0 file folio: its one mapping counts in NR_FILE_MAPPED when the
 * page's _mapcount leaves -1, and stops counting when it goes back to -1.
 */
static void test_fault_small_folio(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm;
	struct rt_file f;

	rt_file_init(&f, RT_PAGES(4), 0);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 4, VM_READ, 0);
	is_int(rt_fault(mm, RT_BASE + RT_PAGES(2)), 0, "order 0: read fault");
	is_int(folio_mapcount(folio_at(&f, 2)), 1, "order 0: folio_mapcount is 1");
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 1, "order 0: NR_FILE_MAPPED is 1");
	finish("order-0 fault", &mm, 1, &f, warns, false);
}

/* --- mmap readahead picks the folio sizes ----------------------------------------------- */

/* A run of @count folios of @order from @index, appended to the expected layout. */
struct ra_folio {
	pgoff_t index;
	unsigned int order;
};

static int ra_run(struct ra_folio *want, int n, pgoff_t index, int count, unsigned int order)
{
	for (int i = 0; i < count; i++, index += 1UL << order)
		want[n++] = (struct ra_folio){ index, order };
	return n;
}

/*
 * A file of @pages pages whose largest folio order is @max_order, its
 * readahead window @ra_pages, mapped whole and faulted in order from page
 * 0 (@first_only < 0) or at page @first_only alone; then the page cache
 * is walked and must hold exactly @want, folio by folio.
 */
static void check_ra_layout(const char *what, unsigned long pages, unsigned int ra_pages,
			    unsigned int max_order, long first_only, const struct ra_folio *want,
			    int nr_want)
{
	unsigned long warns = vm_warn_count, cached = 0, index = 0;
	struct mm_struct *mm;
	struct rt_file f;
	int got = 0, bad = -1;

	rt_file_init(&f, RT_PAGES(pages), max_order);
	f.file.f_ra.ra_pages = ra_pages;
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, pages, VM_READ, 0);
	if (first_only < 0)
		is_int(rt_fault_range(mm, RT_BASE, pages), 0, "%s: every fault maps its page", what);
	else
		is_int(rt_fault(mm, RT_BASE + RT_PAGES(first_only)), 0, "%s: the fault at %ld", what,
		       first_only);
	while (index < pages) {
		struct folio *folio = rt_folio(&f, index);

		if (!folio) {
			index++;
			continue;
		}
		if (bad < 0 && (got >= nr_want || folio->index != want[got].index ||
				folio_order(folio) != want[got].order))
			bad = got;
		if (bad == got)
			diag("%s: folio %d at %lu of order %u; expected %lu of order %u", what, got,
			     folio->index, folio_order(folio), got < nr_want ? want[got].index : 0,
			     got < nr_want ? want[got].order : 0);
		got++;
		cached += folio_nr_pages(folio);
		index = folio->index + folio_nr_pages(folio);
	}
	ok(bad < 0, "%s: the folios are where and of the order drawn", what);
	is_int(got, nr_want, "%s: %d folios", what, nr_want);
	is_int(f.mapping.nrpages, cached, "%s: nrpages counts them", what);
	finish(what, &mm, 1, &f, warns, false);
}

/*
 * Faults in order, a window of 32 pages (128 KiB), largest order 9:
 *
 *   pages   0..31  read around the first fault: order 0, mark at 24
 *   pages  32..63  the window started at 24's mark: order 0 + 2 = 2, mark at 32
 *   pages  64..95  started at 32: order 4, mark at 64
 *   pages  96..255 started at 64, 96, ...: order 5 (ilog2 of the window), one a window
 *
 * and the same with the largest order 3 (orders 0, 2, 3, 3), with a window
 * of 16 (0, 2, 4, 4: ilog2(16) = 4), at the end of a 100-page file (the
 * last window shrinks to what is left: order 2 at 96), a first fault at
 * page 100 alone (read around: 84..115 at order 0, nothing else), and
 * readahead off (every folio of the mapping's order, the model's own rule).
 */
static void test_fault_readahead_orders(void)
{
	static const struct {
		const char *what;
		unsigned long pages;
		unsigned int ra_pages, max_order;
		long first_only;
		struct { pgoff_t index; int count; unsigned int order; } runs[5];
	} cases[] = {
		{ "readahead 32, order <= 9", 256, 32, 9, -1,
		  { { 0, 32, 0 }, { 32, 8, 2 }, { 64, 2, 4 }, { 96, 5, 5 } } },
		{ "readahead 32, order <= 3", 128, 32, 3, -1,
		  { { 0, 32, 0 }, { 32, 8, 2 }, { 64, 8, 3 } } },
		{ "readahead 16, order <= 9", 64, 16, 9, -1,
		  { { 0, 16, 0 }, { 16, 4, 2 }, { 32, 2, 4 } } },
		{ "readahead 32, 100-page file", 100, 32, 9, -1,
		  { { 0, 32, 0 }, { 32, 8, 2 }, { 64, 2, 4 }, { 96, 1, 2 } } },
		{ "readahead 32, first fault at 100", 256, 32, 9, 100, { { 84, 32, 0 } } },
		{ "readahead off, order 4", 64, 0, 4, -1, { { 0, 4, 4 } } },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct ra_folio want[256];
		int n = 0;

		for (int r = 0; r < 5 && cases[c].runs[r].count; r++)
			n = ra_run(want, n, cases[c].runs[r].index, cases[c].runs[r].count,
				   cases[c].runs[r].order);
		check_ra_layout(cases[c].what, cases[c].pages, cases[c].ra_pages, cases[c].max_order,
				cases[c].first_only, want, n);
	}
}

/*
 * arm64 without FEAT_TLBIRANGE issues one TLBI per page, until a table's
 * worth (PTRS_PER_PTE pages), where one TLBI for the whole ASID is cheaper.
 */
static void test_tlbi_per_page_limit(void)
{
	struct mm_struct *mm = rt_mm_alloc();
	bool range = tlbi_range;
	unsigned long t0;

	mmu_arch = MMU_ARM64;
	tlbi_range = false;
	t0 = tlb_flush_stats_read().tlbis;
	__flush_tlb_range_nosync(mm, RT_BASE, RT_BASE + RT_PAGES(PTRS_PER_PTE - 1));
	is_int(tlb_flush_stats_read().tlbis - t0, PTRS_PER_PTE - 1, "%d pages: one TLBI each",
	       PTRS_PER_PTE - 1);
	t0 = tlb_flush_stats_read().tlbis;
	__flush_tlb_range_nosync(mm, RT_BASE, RT_BASE + RT_PAGES(PTRS_PER_PTE));
	is_int(tlb_flush_stats_read().tlbis - t0, 1, "%d pages: one TLBI for the whole ASID",
	       PTRS_PER_PTE);
	tlbi_range = range;
	mmput(mm);
	mmu_arch = MMU_X86_64;
}



/*
 * A read fault in the middle of an aligned 64 KiB folio maps the whole
 * folio (finish_fault); on arm64 set_ptes() folds the 16 entries into one
 * contiguous block, x86 has no such thing.  Each page is mapped once, the
 * folio 16 times, and each mapping holds a reference and counts in RSS.
 */
static void test_fault_whole_folio(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned long addr = RT_BASE + RT_PAGES(ORDER4);	/* where folio 1 is mapped */
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_census c;
	struct rt_file f;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(256), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 256, VM_READ, 0);
	is_int(rt_fault(mm, addr + RT_PAGES(5)), 0, "%s: read fault at page 5 of folio 1", a);
	folio = folio_at(&f, 16);
	ok(folio_order(folio) == 4 && folio->index == 16 && IS_ALIGNED(folio_pfn(folio), ORDER4),
	   "%s: an aligned order-4 folio is cached at index 16", a);
	c = rt_census(mm, addr, ORDER4);
	is_int(c.present, 16, "%s: one fault maps all 16 pages of the folio", a);
	ok(c.consecutive && pte_pfn(rt_pte(mm, addr)) == folio_pfn(folio),
	   "%s: the entries map the folio's pages in order", a);
	is_int(c.cont, arch == MMU_ARM64 ? 16 : 0,
	       "%s: %s", a, arch == MMU_ARM64 ? "all 16 carry the contiguous bit" : "no contiguous bit");
	is_int(c.young, 16, "%s: faulted entries start young", a);
	ok(!pte_present(rt_pte(mm, addr - PAGE_SIZE)) && !pte_present(rt_pte(mm, addr + RT_PAGES(16))),
	   "%s: the neighbouring folios are not mapped", a);
	is_int(pages_mapped(folio, 1), 16, "%s: page_mapcount of each page is 1", a);
	is_int(folio_mapcount(folio), 16, "%s: folio_mapcount is 16", a);
	is_int(atomic_read(&folio->_nr_pages_mapped), 16, "%s: _nr_pages_mapped is 16", a);
	is_int(folio_ref_count(folio), 32, "%s: 16 page cache + 16 mapping references", a);
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 16, "%s: MM_FILEPAGES is 16", a);
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 16, "%s: NR_FILE_MAPPED is 16", a);
	is_int(rt_fault(mm, addr), VM_FAULT_NOPAGE, "%s: a second fault on a mapped page maps nothing", a);
	is_int(folio_mapcount(folio), 16, "%s: ... and leaves the mapcount alone", a);
	finish(arch == MMU_ARM64 ? "fault (arm64)" : "fault (x86)", &mm, 1, &f, warns, false);
}

/*
 * An order-5 (128 KiB) folio mapped at an address aligned to 64 KiB but
 * not to 128 KiB: arm64 folds it as two blocks of 16, each aligned in
 * address and pfn, which age independently.
 */
static void test_fault_order5_two_blocks(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long addr = RT_BASE + RT_PAGES(16);
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(32), 5);
	mm = rt_mm_alloc();
	vma = rt_mmap(mm, &f, addr, 32, VM_READ, 0);
	is_int(rt_fault(mm, addr + RT_PAGES(20)), 0, "order-5: fault at page 20");
	folio = folio_at(&f, 0);
	is_int(folio_order(folio), 5, "order-5: the folio is order 5");
	is_int(rt_census(mm, addr, 32).present, 32, "order-5: all 32 pages mapped by one fault");
	is_int(rt_census(mm, addr, 32).cont, 32, "order-5: every entry carries the contiguous bit");
	ok(!IS_ALIGNED(addr, 2 * CONT_PTE_SIZE) && IS_ALIGNED(addr, CONT_PTE_SIZE),
	   "order-5: mapped 64K- but not 128K-aligned");

	ptep = lock_pte(mm, addr, &ptl);
	ok(ptep_test_and_clear_young(vma, addr, ptep) == 1, "order-5: aging the first block reports young");
	pte_unmap_unlock(ptep, ptl);
	is_int(rt_census(mm, addr, 16).young, 0, "order-5: the first block is old");
	is_int(rt_census(mm, addr + CONT_PTE_SIZE, 16).young, 16,
	       "order-5: the second block is untouched: two blocks, not one");
	ok(!pte_young(ptep_get(ptep)) && pte_young(ptep_get(ptep + 16)),
	   "order-5: ptep_get() gathers young per block");
	is_int(pages_mapped(folio, 1), 32, "order-5: each page mapped once");
	is_int(folio_mapcount(folio), 32, "order-5: folio_mapcount is 32");
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 32, "order-5: MM_FILEPAGES is 32");
	finish("order-5", &mm, 1, &f, warns, false);
}

/*
 * A VMA whose start is one page off the file's 64 KiB alignment (vm_pgoff
 * 1), and one shorter than a folio.  No entry may be part of a block.  A
 * fault maps the whole folio only where it lies inside the VMA (and one
 * page table): folio 1 is mapped whole, folio 0 (which starts below the
 * VMA) and the folio longer than the short VMA only at the faulting page.
 */
static void test_fault_unaligned_vma(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long short_vma = RT_BASE + (64UL << 20);
	struct folio *folio0, *folio1, *folio2;
	struct mm_struct *mm;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(256), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 64, VM_READ, 1);		/* RT_BASE maps file page 1 */
	rt_mmap(mm, &f, short_vma, 8, VM_READ, 32);		/* half of folio 2 */

	is_int(rt_fault(mm, RT_BASE), 0, "unaligned VMA: fault at file page 1");
	folio0 = folio_at(&f, 0);
	is_int(rt_census(mm, RT_BASE, 15).present, 1, "folio 0 starts below the VMA: only the faulting page is mapped");
	is_int(page_mapcount(folio_page(folio0, 1)), 1, "page 1 of folio 0 is mapped once");
	is_int(pages_mapped(folio0, 0), 15, "the other 15 are not mapped");
	is_int(folio_mapcount(folio0), 1, "folio 0: mapcount 1");
	is_int(atomic_read(&folio0->_nr_pages_mapped), 1, "folio 0: _nr_pages_mapped 1");

	is_int(rt_fault(mm, RT_BASE + RT_PAGES(20)), 0, "unaligned VMA: fault at file page 21");
	folio1 = folio_at(&f, 16);
	is_int(rt_census(mm, RT_BASE + RT_PAGES(15), 16).present, 16,
	       "folio 1 lies inside the VMA: mapped whole, at a 64K-unaligned address");
	ok(rt_census(mm, RT_BASE + RT_PAGES(15), 16).consecutive &&
	   pte_pfn(rt_pte(mm, RT_BASE + RT_PAGES(15))) == folio_pfn(folio1), "folio 1: its pages in order");
	is_int(folio_mapcount(folio1), 16, "folio 1: mapcount 16");

	is_int(rt_fault(mm, short_vma + RT_PAGES(3)), 0, "short VMA: fault at its page 3");
	folio2 = folio_at(&f, 32);
	is_int(rt_census(mm, short_vma, 8).present, 1, "a folio longer than the VMA: only the faulting page");
	is_int(page_mapcount(folio_page(folio2, 3)), 1, "... page 3 of folio 2");

	is_int(rt_census(mm, RT_BASE, 64).cont + rt_census(mm, short_vma, 8).cont, 0,
	       "no contiguous bit anywhere");
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 18, "MM_FILEPAGES: 1 + 16 + 1");
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 18, "NR_FILE_MAPPED: 18");
	finish("unaligned VMA", &mm, 1, &f, warns, false);
}

/*
 * arm64's view of a block: the hardware sets the access flag in whichever
 * entry it used, ptep_get() ORs young over the block, and testing and
 * clearing young through any one entry does so for all 16.
 */
static void test_contpte_young(void)
{
	unsigned long warns = vm_warn_count;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct rt_counters c0;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	vma = rt_mmap(mm, &f, RT_BASE, 16, VM_READ, 0);
	is_int(rt_fault_range(mm, RT_BASE, 16), 0, "contpte: folio faulted in");
	is_int(rt_census(mm, RT_BASE, 16).cont, 16, "contpte: one block");

	ptep = lock_pte(mm, RT_BASE, &ptl);
	rt_counters_start(&c0);
	ok(ptep_test_and_clear_young(vma, RT_BASE, ptep) == 1, "contpte: the young block tests young through entry 0");
	is_int(rt_counters_delta(&c0).rmw, 16, "contpte: ... testing and clearing all 16 entries");
	pte_unmap_unlock(ptep, ptl);
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "contpte: every entry of the block is old");
	ok(!pte_young(ptep_get(ptep + 9)), "contpte: ptep_get() reports the block old");

	ok(mmu_access(mm, RT_BASE + RT_PAGES(9), false) != NULL, "contpte: a load from page 9");
	is_int(rt_census(mm, RT_BASE, 16).young, 1, "contpte: the walker set young in entry 9 only");
	ok(!pte_young(__ptep_get(ptep)) && pte_young(ptep_get(ptep)) && pte_young(ptep_get(ptep + 15)),
	   "contpte: ptep_get() of any entry of the block reports it young");
	is_int(rt_census(mm, RT_BASE, 16).cont, 16, "contpte: still one block");

	ptep = lock_pte(mm, RT_BASE, &ptl);
	ok(ptep_test_and_clear_young(vma, RT_BASE + RT_PAGES(3), ptep + 3) == 1,
	   "contpte: aging through entry 3 sees entry 9's access");
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "contpte: ... and clears it");
	ok(ptep_test_and_clear_young(vma, RT_BASE + RT_PAGES(12), ptep + 12) == 0,
	   "contpte: aging again finds the block old");
	pte_unmap_unlock(ptep, ptl);
	finish("contpte young", &mm, 1, &f, warns, false);
}

/*
 * Two folios mapped as two adjacent arm64 blocks, A then B, both young.
 * Aging through a mid-block entry of A (ptep_test_and_clear_young() on
 * entry 3) must age A's block and nothing else; aging B through its entry
 * 3 must flush B's block and nothing else.
 *
 * The regression: v3 of the series made ptep_test_and_clear_young() and
 * ptep_clear_flush_young() hand contpte_*_young_ptes() a run of CONT_PTES
 * entries from the caller's (possibly mid-block) entry, which ends up to
 * 15 entries into the next block and ages it too.  No rmap path reaches it
 * (folio_referenced() goes through clear_flush_young_ptes()).
 */
static void test_contpte_young_mid_block(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long addr_b = RT_BASE + RT_PAGES(16);
	struct rt_counters cnt, d;
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;
	int young;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(32), 4);
	mm = rt_mm_alloc();
	vma = rt_mmap(mm, &f, RT_BASE, 32, VM_READ, 0);
	rt_fault_range(mm, RT_BASE, 32);
	ok(rt_census(mm, RT_BASE, 32).cont == 32 && rt_census(mm, RT_BASE, 32).young == 32,
	   "mid-block: two young blocks side by side");

	ptep = lock_pte(mm, RT_BASE, &ptl);
	rt_counters_start(&cnt);
	young = ptep_test_and_clear_young(vma, RT_BASE + RT_PAGES(3), ptep + 3);
	d = rt_counters_delta(&cnt);
	pte_unmap_unlock(ptep, ptl);
	ok(young, "mid-block: aging through A's entry 3 reports A young");
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "mid-block: A's block is old");
	ok(rt_census(mm, addr_b, 16).young == 16,
		"mid-block: B's block is left young (B has %d young entries)", rt_census(mm, addr_b, 16).young);
	ok(d.rmw == 16, "mid-block: 16 entries tested (%lu)", d.rmw);

	mmu_access(mm, addr_b + RT_PAGES(7), false);
	ptep = lock_pte(mm, addr_b, &ptl);
	rt_counters_start(&cnt);
	young = ptep_clear_flush_young(vma, addr_b + RT_PAGES(3), ptep + 3);
	d = rt_counters_delta(&cnt);
	pte_unmap_unlock(ptep, ptl);
	ok(young, "mid-block: aging through B's entry 3 sees B's access");
	is_int(rt_census(mm, addr_b, 16).young, 0, "mid-block: B's block is old");
	is_int(d.tlb.flushes, 1, "mid-block: one TLBI");
	ok(d.tlb.pages == 16, "mid-block: over B's block only (%lu pages)", d.tlb.pages);
	finish("contpte mid-block", &mm, 1, &f, warns, false);
}

/*
 * Clearing one entry of a block unfolds the block first: ptep_get_and_clear()
 * of entry 5 rewrites the other 15 without the hint, keeping their pfns and
 * the block's gathered young bit, after one synchronous flush of the block.
 * The test then drops entry 5's mapping as zap does; a fault there finds the
 * rest of the folio mapped and maps just that page again.
 */
/*
 * A clear that covers one block whole and ends inside the next unfolds
 * that second block first (contpte_try_unfold_partial()'s end test): its
 * entries left mapped must not keep the hint of a block that no longer is.
 */
static void test_contpte_clear_ends_mid_block(void)
{
	unsigned long warns = vm_warn_count;
	struct folio *f0, *f1;
	struct mm_struct *mm;
	struct rt_census c;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;

	mm = rt_map_file(&f, MMU_ARM64, 32, 4);
	f0 = folio_at(&f, 0);
	f1 = folio_at(&f, 16);
	ptep = lock_pte(mm, RT_BASE, &ptl);
	get_and_clear_full_ptes(mm, RT_BASE, ptep, 24, 0);
	c = rt_census(mm, RT_BASE + RT_PAGES(24), 8);
	is_int(c.present, 8, "clear 24 of 32: the last 8 entries are still mapped");
	is_int(c.cont, 0, "clear 24 of 32: the second block was unfolded, no entry keeps the hint");
	/* What zap_pte_range() does with the entries it cleared. */
	add_mm_counter(mm, MM_FILEPAGES, -24);
	folio_remove_rmap_ptes(f0, folio_page(f0, 0), 16, vma_lookup(mm, RT_BASE));
	folio_remove_rmap_ptes(f1, folio_page(f1, 0), 8, vma_lookup(mm, RT_BASE));
	folio_put_refs(f0, 16);
	folio_put_refs(f1, 8);
	pte_unmap_unlock(ptep, ptl);
	finish("contpte clear ending mid-block", &mm, 1, &f, warns, false);
}

static void test_contpte_unfold(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long addr5 = RT_BASE + RT_PAGES(5);
	struct rt_counters cnt, d;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_census c;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep, old;

	mm = rt_map_file(&f, MMU_ARM64, 16, 4);
	folio = folio_at(&f, 0);

	/* Only entry 2 young: the unfold must spread it over the block. */
	ptep = lock_pte(mm, RT_BASE, &ptl);
	ptep_test_and_clear_young(vma_lookup(mm, RT_BASE), RT_BASE, ptep);
	pte_unmap_unlock(ptep, ptl);
	mmu_access(mm, RT_BASE + RT_PAGES(2), false);

	ptep = lock_pte(mm, RT_BASE, &ptl);
	rt_counters_start(&cnt);
	old = ptep_get_and_clear(mm, addr5, ptep + 5);
	d = rt_counters_delta(&cnt);
	ok(pte_present(old) && pte_pfn(old) == folio_pfn(folio) + 5 && !pte_cont(old),
	   "unfold: entry 5 comes back with its pfn, without the hint");
	ok(pte_young(old), "unfold: ... carrying the block's young bit");
	ok(pte_none(__ptep_get(ptep + 5)), "unfold: entry 5 is cleared");
	c = rt_census(mm, RT_BASE, 16);
	is_int(c.present, 15, "unfold: the other 15 entries are still mapped");
	ok(c.consecutive, "unfold: ... with their pfns");
	is_int(c.cont, 0, "unfold: none of them carries the hint any more");
	is_int(c.young, 15, "unfold: the block's young bit went to all of them");
	is_int(d.tlb.syncs, 1, "unfold: one synchronous flush");
	is_int(d.tlb.flushes, 1, "unfold: one flush request");
	is_int(d.tlb.pages, 16, "unfold: covering the block");
	/* What zap_pte_range() does with the entry it cleared. */
	add_mm_counter(mm, MM_FILEPAGES, -1);
	folio_remove_rmap_ptes(folio, folio_page(folio, 5), 1, vma_lookup(mm, RT_BASE));
	folio_put(folio);
	pte_unmap_unlock(ptep, ptl);
	ok(rt_check(&mm, 1, &f) == 0, "unfold: 15 pages mapped, the counts agree");
	is_int(folio_mapcount(folio), 15, "unfold: mapcount 15");

	is_int(rt_fault(mm, addr5), 0, "unfold: fault at page 5");
	c = rt_census(mm, RT_BASE, 16);
	ok(c.present == 16 && c.consecutive && c.cont == 0, "unfold: page 5 mapped again alone, no block");
	is_int(folio_mapcount(folio), 16, "unfold: mapcount 16");
	is_int(folio_ref_count(folio), 32, "unfold: references 16 + 16");
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 16, "unfold: MM_FILEPAGES 16");
	finish("contpte unfold", &mm, 1, &f, warns, false);
}

/* --- folio_pte_batch ---------------------------------------------------------------------- */

/*
 * A folio mapped whole in one page table: the batch from its first entry
 * is the folio, from page 3 the rest of it, and never more than the
 * caller allows; young (and on x86 a mix of young and old) does not break
 * a batch.
 */
static void test_pte_batch_whole_folio(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned int max = PTRS_PER_PTE - (unsigned int)pte_index(RT_BASE);
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	vma = rt_mmap(mm, &f, RT_BASE, 16, VM_READ, 0);
	rt_fault_range(mm, RT_BASE, 16);
	folio = folio_at(&f, 0);

	ptep = lock_pte(mm, RT_BASE, &ptl);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), max), 16,
	       "%s: the batch from the first entry is the whole folio", a);
	is_int(folio_pte_batch(folio, ptep + 3, ptep_get(ptep + 3), max - 3), 13,
	       "%s: from page 3, the rest of the folio", a);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), 5), 5, "%s: bounded by the caller's max_nr", a);
	ptep_test_and_clear_young(vma, RT_BASE + RT_PAGES(7), ptep + 7);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), max), 16,
	       "%s: young and old entries batch together", a);
	pte_unmap_unlock(ptep, ptl);
	finish(arch == MMU_ARM64 ? "batch whole folio (arm64)" : "batch whole folio (x86)",
	       &mm, 1, &f, warns, false);
}

/*
 * A 64 KiB folio whose mapping straddles a 2 MiB boundary (the VMA starts
 * 8 pages below it): two page tables, 8 entries in each, mapped a page per
 * fault.  A batch never crosses a page table: from the first entry it is
 * 8 long, and folio_referenced() and try_to_unmap() take the folio as two
 * batches.  rmap-past-pmd bounds its batches by the VMA alone: the debug
 * check on batches that overrun their page table fires.
 */
static void test_pmd_boundary(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned long start = RT_BASE + PMD_SIZE - RT_PAGES(8);
	unsigned long warns_unmap;
	struct rt_counters cnt, d;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;
	int ret;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, start, 16, VM_READ, 0);
	is_int(rt_fault_range(mm, start, 16), 0, "%s PMD boundary: every page faulted in", a);
	folio = folio_at(&f, 0);
	is_int(rt_census(mm, start, 16).present, 16, "%s PMD boundary: 16 entries in two page tables", a);
	ok(rt_census(mm, start, 16).consecutive, "%s PMD boundary: mapping the folio in order", a);
	is_int(rt_census(mm, start, 16).cont, 0, "%s PMD boundary: no block (mapped a page at a time)", a);
	ok(mm_find_pmd(mm, start) != mm_find_pmd(mm, start + RT_PAGES(8)), "%s PMD boundary: two PMDs", a);

	ptep = lock_pte(mm, start, &ptl);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), 8), 8,
	       "%s PMD boundary: the batch from the first entry stops at the table's end", a);
	pte_unmap_unlock(ptep, ptl);
	ptep = lock_pte(mm, start + RT_PAGES(8), &ptl);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), 8), 8,
	       "%s PMD boundary: the second table holds the other 8", a);
	pte_unmap_unlock(ptep, ptl);

	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	ret = folio_referenced(folio, 1, NULL, &vm_flags);
	d = rt_counters_delta(&cnt);
#ifdef CONFIG_RMAP_MUTANT_PAST_PMD
	(void)ret;
	(void)d;
	ok(vm_warn_count > warns, "mutant %s: folio_referenced() overruns the page table (caught: %lu debug checks)",
	   MM_KERNEL_NAME, vm_warn_count - warns);
#else
	is_int(ret, 1, "%s PMD boundary: folio_referenced() reports the VMA young", a);
	is_int(rt_census(mm, start, 16).young, 0, "%s PMD boundary: both halves aged", a);
	is_int(d.batches, RT_BATCH_REFERENCED ? 2 : 16, "%s PMD boundary: %s", a,
	       RT_BATCH_REFERENCED ? "two batches, one per page table" : "one step per entry");
	is_int(d.rmw, 16, "%s PMD boundary: 16 entries tested and cleared", a);
	is_int(d.tlb.flushes, arch == MMU_X86_64 ? 0 : RT_BATCH_REFERENCED ? 2 : 16,
	       "%s PMD boundary: TLBIs for aging", a);
	is_int(d.tlb.syncs, 0, "%s PMD boundary: aging never waits", a);
#endif

	warns_unmap = vm_warn_count;
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	ok(!folio_mapped(folio), "%s PMD boundary: try_to_unmap() unmaps the folio", a);
	is_int(rt_census(mm, start, 16).present, 0, "%s PMD boundary: no entry left in either table", a);
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 0, "%s PMD boundary: MM_FILEPAGES back to 0", a);
	is_int(pages_mapped(folio, 0), 16, "%s PMD boundary: every page unmapped", a);
	is_int(folio_ref_count(folio), 17, "%s PMD boundary: cache + caller references left", a);
#ifdef CONFIG_RMAP_MUTANT_PAST_PMD
	ok(vm_warn_count > warns_unmap, "mutant %s: try_to_unmap() overruns the page table (caught: %lu debug checks)",
	   MM_KERNEL_NAME, vm_warn_count - warns_unmap);
#else
	(void)warns_unmap;
	is_int(d.batches, RT_BATCH_UNMAP ? 2 : 16, "%s PMD boundary: unmapped in %s", a,
	       RT_BATCH_UNMAP ? "two batches" : "16 steps");
	if (arch == MMU_ARM64) {
		is_int(d.tlb.flushes, RT_BATCH_UNMAP ? 2 : 16, "arm64 PMD boundary: a TLBI per batch");
		is_int(d.tlb.syncs, 1, "arm64 PMD boundary: one wait, at the end");
	} else {
		is_int(d.tlb.flushes, 1, "x86 PMD boundary: one deferred flush");
		is_int(d.tlb.pages, 16, "x86 PMD boundary: covering the 16 pages");
	}
#endif
	rt_folio_unlock_put(folio);
	finish(arch == MMU_ARM64 ? "PMD boundary (arm64)" : "PMD boundary (x86)", &mm, 1, &f, warns,
	       RT_PAST_PMD);
}

/*
 * One folio, half of it mapped by each of two adjacent VMAs of one mm
 * (pages 0-7 and 8-15), so its 16 entries are consecutive in one page
 * table: folio_pte_batch() alone would take all 16, but rmap bounds a
 * batch by its VMA: two batches, and the folio counts young in two VMAs.
 * Then the partly mapped folio: a VMA over pages 4-11 only.
 */
static void test_partial_vmas(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned long mid = RT_BASE + (64UL << 20);
	struct rt_counters cnt, d;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 8, VM_READ, 0);
	rt_mmap(mm, &f, RT_BASE + RT_PAGES(8), 8, VM_READ, 8);
	is_int(rt_fault_range(mm, RT_BASE, 16), 0, "%s split VMAs: faulted in", a);
	ok(rt_census(mm, RT_BASE, 16).present == 16 && rt_census(mm, RT_BASE, 16).consecutive,
	   "%s split VMAs: 16 consecutive entries", a);
	folio = folio_at(&f, 0);
	ptep = lock_pte(mm, RT_BASE, &ptl);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), 16), 16,
	       "%s split VMAs: unbounded, the batch would span both VMAs", a);
	is_int(folio_pte_batch(folio, ptep, ptep_get(ptep), 8), 8, "%s split VMAs: bounded by the VMA: 8", a);
	pte_unmap_unlock(ptep, ptl);

	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 2, "%s split VMAs: young in two VMAs", a);
	d = rt_counters_delta(&cnt);
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "%s split VMAs: every entry aged", a);
	is_int(d.batches, RT_BATCH_REFERENCED ? 2 : 16, "%s split VMAs: aged in %s", a,
	       RT_BATCH_REFERENCED ? "one batch per VMA" : "16 steps");
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	ok(!folio_mapped(folio) && rt_census(mm, RT_BASE, 16).present == 0, "%s split VMAs: unmapped", a);
	is_int(d.batches, RT_BATCH_UNMAP ? 2 : 16, "%s split VMAs: unmapped in %s", a,
	       RT_BATCH_UNMAP ? "one batch per VMA" : "16 steps");
	is_int(folio_ref_count(folio), 17, "%s split VMAs: cache + caller references left", a);

	/* The same folio, mapped only at pages 4..11 by a third VMA. */
	rt_mmap(mm, &f, mid + RT_PAGES(4), 8, VM_READ, 4);
	rt_folio_unlock_put(folio);
	is_int(rt_fault_range(mm, mid + RT_PAGES(4), 8), 0, "%s partial: pages 4-11 faulted in", a);
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_mapcount(folio), 8, "%s partial: mapcount 8", a);
	is_int(atomic_read(&folio->_nr_pages_mapped), 8, "%s partial: _nr_pages_mapped 8", a);
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "%s partial: young", a);
	d = rt_counters_delta(&cnt);
	is_int(d.batches, RT_BATCH_REFERENCED ? 1 : 8, "%s partial: aged in %s", a,
	       RT_BATCH_REFERENCED ? "one batch" : "8 steps");
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	d = rt_counters_delta(&cnt);
	if (arch == MMU_ARM64)
		is_int(d.tlb.flushes, RT_BATCH_UNMAP ? 1 : 8, "arm64 partial: a TLBI per batch");
	else
		is_int(tlb_ubc.pending_pages, 8, "x86 partial: 8 pages pending");
	try_to_unmap_flush();
	ok(!folio_mapped(folio) && rt_census(mm, mid, 16).present == 0, "%s partial: unmapped", a);
	is_int(d.batches, RT_BATCH_UNMAP ? 1 : 8, "%s partial: unmapped in %s", a,
	       RT_BATCH_UNMAP ? "one batch" : "8 steps");
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 0, "%s partial: MM_FILEPAGES back to 0", a);
	rt_folio_unlock_put(folio);
	finish(arch == MMU_ARM64 ? "partial VMAs (arm64)" : "partial VMAs (x86)", &mm, 1, &f, warns, false);
}

/*
 * Two order-4 folios carved from one order-5 block, so B's pfns follow A's,
 * cached at indices 0 and 16 and mapped at consecutive addresses: after A's
 * last entry comes one that looks like "A's next page".  Batching from A
 * must stop at A's end; folio_referenced(A) must not age B, and
 * try_to_unmap(A) must leave B mapped.  rmap-past-folio runs into B.
 */
static void test_adjacent_folios(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	unsigned long addr_b = RT_BASE + RT_PAGES(16);
	struct folio *A, *B;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct rt_file f;
	unsigned int nr;
	spinlock_t *ptl;
	bool caught;
	pte_t *ptep;
	int ret;

	mmu_arch = arch;
	rt_file_init(&f, RT_PAGES(32), 4);
	rt_cache_adjacent_pair(&f, &A, &B);
	is_int(folio_pfn(B), folio_pfn(A) + 16, "%s adjacent: B's pfns follow A's", a);
	ok(folio_nr_pages(A) == 16 && folio_nr_pages(B) == 16, "%s adjacent: two order-4 folios", a);

	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 32, VM_READ, 0);
	is_int(rt_fault(mm, RT_BASE) | rt_fault(mm, addr_b), 0, "%s adjacent: both faulted in", a);
	ok(rt_census(mm, RT_BASE, 32).present == 32 && rt_census(mm, RT_BASE, 32).consecutive,
	   "%s adjacent: 32 entries mapping 32 consecutive pfns", a);
	is_int(rt_census(mm, RT_BASE, 32).cont, arch == MMU_ARM64 ? 32 : 0,
	       "%s adjacent: %s", a, arch == MMU_ARM64 ? "two blocks" : "no blocks");

	ptep = lock_pte(mm, RT_BASE, &ptl);
	nr = folio_pte_batch(A, ptep, ptep_get(ptep), PTRS_PER_PTE - (unsigned int)pte_index(RT_BASE));
	pte_unmap_unlock(ptep, ptl);
	A = rt_folio_get_lock(&f, 0);
	ret = folio_referenced(A, 1, NULL, &vm_flags);
	caught = nr != 16 || rt_census(mm, addr_b, 16).young != 16;
#ifdef CONFIG_RMAP_MUTANT_PAST_FOLIO
	(void)ret;
	ok(caught, "mutant %s: the batch from A runs into B (batch %u, B's young entries %d): caught",
	   MM_KERNEL_NAME, nr, rt_census(mm, addr_b, 16).young);
#else
	is_int(nr, 16, "%s adjacent: the batch from A stops at A's end", a);
	is_int(ret, 1, "%s adjacent: A is young", a);
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "%s adjacent: A's entries aged", a);
	is_int(rt_census(mm, addr_b, 16).young, 16, "%s adjacent: B's entries left young", a);
#endif
	if (!caught) {
		try_to_unmap(A, TTU_BATCH_FLUSH);
		try_to_unmap_flush();
		ok(!folio_mapped(A) && rt_census(mm, RT_BASE, 16).present == 0, "%s adjacent: A unmapped", a);
		is_int(rt_census(mm, addr_b, 16).present, 16, "%s adjacent: B still mapped", a);
		is_int(rt_census(mm, addr_b, 16).cont, arch == MMU_ARM64 ? 16 : 0,
		       "%s adjacent: B's block intact", a);
		is_int(folio_mapcount(B), 16, "%s adjacent: B's mapcount 16", a);
		is_int(folio_ref_count(B), 32, "%s adjacent: B's references intact", a);
		is_int(folio_ref_count(A), 17, "%s adjacent: A: cache + caller references", a);
		is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 16, "%s adjacent: MM_FILEPAGES 16 (B)", a);
	}
	rt_folio_unlock_put(A);
	finish(arch == MMU_ARM64 ? "adjacent folios (arm64)" : "adjacent folios (x86)", &mm, 1, &f, warns,
	       false);
}

/* --- folio_referenced --------------------------------------------------------------------- */

/*
 * folio_referenced() on a whole 64 KiB folio: it reports the VMA young
 * once and leaves every entry old, in every design; a second call finds it
 * old; a touch makes it young again.  The cost differs: vanilla steps
 * entry by entry (on arm64 each step tests and clears the whole block: 16
 * x 16 read-modify-writes), the batched designs take the folio as one run.
 * Aging a young block costs arm64 one TLBI without a wait, in every design
 * (vanilla's later steps find the block old); x86 does not flush to age.
 */
static void test_referenced(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	bool arm = arch == MMU_ARM64;
	unsigned long rmw = arm && !RT_BATCH_REFERENCED ? 256 : 16;
	unsigned long steps = RT_BATCH_REFERENCED ? 1 : 16;
	struct rt_counters cnt, d;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mm = rt_map_file(&f, arch, 16, 4);
	folio = rt_folio_get_lock(&f, 0);

	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "%s referenced: young: 1 VMA", a);
	d = rt_counters_delta(&cnt);
	ok((vm_flags & VM_READ) && !(vm_flags & VM_LOCKED), "%s referenced: *vm_flags has the VMA's flags", a);
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "%s referenced: every young bit cleared", a);
	is_int(rt_census(mm, RT_BASE, 16).cont, arm ? 16 : 0, "%s referenced: aging keeps the block", a);
	is_int(d.rmw, rmw, "%s referenced: %lu PTE read-modify-writes", a, rmw);
	is_int(d.batches, steps, "%s referenced: %lu batch(es)", a, steps);
	is_int(d.pvmw_hits, steps, "%s referenced: the walk stopped %lu time(s)", a, steps);
	is_int(d.tlb.flushes, arm ? 1 : 0, "%s referenced: %s", a, arm ? "one TLBI for the block" : "no flush");
	is_int(d.tlb.pages, arm ? 16 : 0, "%s referenced: flushed pages", a);
	is_int(d.tlb.syncs, 0, "%s referenced: no wait", a);

	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 0, "%s referenced: not touched since: 0", a);
	d = rt_counters_delta(&cnt);
	/* x86 reads an old entry and leaves it; arm64 compare-exchanges it all the same. */
	is_int(d.rmw, arm ? rmw : 0, "%s referenced: %s", a,
	       arm ? "the same read-modify-writes on old entries" : "no read-modify-write of an old entry");
	is_int(d.tlb.flushes, 0, "%s referenced: an old block is not flushed", a);

	ok(mmu_access(mm, RT_BASE + RT_PAGES(11), false) != NULL, "%s referenced: touch page 11", a);
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "%s referenced: touched again: young", a);
	d = rt_counters_delta(&cnt);
	is_int(rt_census(mm, RT_BASE, 16).young, 0, "%s referenced: and aged again", a);
	is_int(d.tlb.flushes, arm ? 1 : 0, "%s referenced: flushes for the touch", a);
	is_int(folio_mapcount(folio), 16, "%s referenced: aging leaves the mapcount alone", a);
	rt_folio_unlock_put(folio);
	finish(arm ? "referenced (arm64)" : "referenced (x86)", &mm, 1, &f, warns, false);
}

/*
 * The same on arm64 without a block: the folio mapped whole but 8 pages
 * off 64K alignment.  Vanilla flushes each young entry on its own (16
 * TLBIs), the batched designs the run at once (one TLBI over 16 pages).
 */
static void test_referenced_arm64_unaligned(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long addr = RT_BASE + RT_PAGES(8);
	struct rt_counters cnt, d;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, addr, 16, VM_READ, 0);
	is_int(rt_fault(mm, addr), 0, "arm64 unaligned: fault");
	ok(rt_census(mm, addr, 16).present == 16 && rt_census(mm, addr, 16).cont == 0,
	   "arm64 unaligned: mapped whole, no block");
	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "arm64 unaligned: young");
	d = rt_counters_delta(&cnt);
	is_int(rt_census(mm, addr, 16).young, 0, "arm64 unaligned: aged");
	is_int(d.rmw, 16, "arm64 unaligned: 16 read-modify-writes");
	is_int(d.tlb.flushes, RT_BATCH_REFERENCED ? 1 : 16, "arm64 unaligned: %s",
	       RT_BATCH_REFERENCED ? "one TLBI for the run" : "a TLBI per young entry");
	is_int(d.tlb.pages, 16, "arm64 unaligned: covering 16 pages");
	is_int(d.tlb.syncs, 0, "arm64 unaligned: no wait");
	rt_folio_unlock_put(folio);
	finish("referenced (arm64 unaligned)", &mm, 1, &f, warns, false);
}

/*
 * Two processes map the file: folio_referenced() counts one per young VMA
 * (2 when both are young, 1 when only the second touched it again) and
 * ages both mappings.
 */
static void test_referenced_two_processes(void)
{
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	struct mm_struct *mms[2];
	unsigned long vm_flags;
	struct folio *folio;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16), 4);
	for (int i = 0; i < 2; i++) {
		mms[i] = rt_mm_alloc();
		rt_mmap(mms[i], &f, RT_BASE, 16, VM_READ, 0);
		rt_fault_range(mms[i], RT_BASE, 16);
	}
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_mapcount(folio), 32, "two processes: mapcount 32");
	is_int(pages_mapped(folio, 2), 16, "two processes: each page mapped twice");
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 16, "two processes: NR_FILE_MAPPED counts pages once");
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 2, "two processes: both young: 2");
	d = rt_counters_delta(&cnt);
	is_int(rt_census(mms[0], RT_BASE, 16).young + rt_census(mms[1], RT_BASE, 16).young, 0,
	       "two processes: both aged");
	is_int(d.batches, RT_BATCH_REFERENCED ? 2 : 32, "two processes: batches");
	is_int(d.tlb.flushes, 2, "two processes: one TLBI per young block");
	mmu_access(mms[1], RT_BASE + RT_PAGES(15), false);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "two processes: only the second touched: 1");
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 0, "two processes: neither: 0");
	rt_folio_unlock_put(folio);
	finish("two processes", mms, 2, &f, warns, false);
}

/*
 * A VM_LOCKED mapping: folio_referenced() reports VM_LOCKED in *vm_flags
 * (reclaim must keep the folio) and stops there.
 */
static void test_referenced_mlocked(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, RT_BASE, 16, VM_READ | VM_LOCKED, 0);
	rt_fault_range(mm, RT_BASE, 16);
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 0, "mlocked: no young VMA counted");
	ok(vm_flags & VM_LOCKED, "mlocked: *vm_flags has VM_LOCKED");
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	try_to_unmap_flush();
	ok(folio_mapped(folio) && rt_census(mm, RT_BASE, 16).present == 16,
	   "mlocked: try_to_unmap() leaves an mlocked mapping alone");
	try_to_unmap(folio, TTU_BATCH_FLUSH | TTU_IGNORE_MLOCK);
	try_to_unmap_flush();
	ok(!folio_mapped(folio) && rt_census(mm, RT_BASE, 16).present == 0,
	   "mlocked: ... unless told to ignore mlock");
	rt_folio_unlock_put(folio);
	finish("mlocked", &mm, 1, &f, warns, false);
}

/* --- try_to_unmap ----------------------------------------------------------------------------- */

/*
 * try_to_unmap(TTU_BATCH_FLUSH) then try_to_unmap_flush() on a whole
 * 64 KiB folio (an aligned block on arm64), as reclaim does: the folio
 * ends unmapped with every entry, mapcount, RSS count and mapping reference
 * gone.  The flushes: arm64 vanilla clears the first entry of the block
 * (unfolding it: one waited flush) and issues a TLBI per entry; the
 * batched unmap clears the block at once with one TLBI; either waits once
 * at the end.  x86 flushes nothing until try_to_unmap_flush(), which
 * counts one flush of the 16 pages.
 */
static void test_unmap(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	bool arm = arch == MMU_ARM64;
	struct rt_counters cnt, d;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mm = rt_map_file(&f, arch, 16, 4);
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_ref_count(folio), 33, "%s unmap: 16 cache + 16 mapping + 1 caller references", a);

	int batched = atomic_read(&mm->tlb_flush_batched);
	long gen = atomic_long_read(&mm->tlb_gen);

	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	d = rt_counters_delta(&cnt);
	ok(tlb_ubc.flush_required, "%s unmap: a flush is pending", a);
	/* set_tlb_ubc_flush_pending() per call, as the kernel's: per PTE, or per batch. */
	is_int(atomic_read(&mm->tlb_flush_batched) - batched, RT_BATCH_UNMAP ? 1 : 16,
	       "%s unmap: mm->tlb_flush_batched counted once per deferral", a);
	is_int(atomic_long_read(&mm->tlb_gen) - gen, arm ? 0 : (RT_BATCH_UNMAP ? 1 : 16),
	       "%s unmap: %s", a, arm ? "no x86 TLB generation" : "a TLB generation per deferral");
	if (arm) {
		is_int(d.tlb.flushes, RT_BATCH_UNMAP ? 1 : 17, "arm64 unmap: %s", RT_BATCH_UNMAP ?
		       "one TLBI for the block" : "one unfold + 16 TLBIs");
		is_int(d.tlb.syncs, RT_BATCH_UNMAP ? 0 : 1, "arm64 unmap: %s",
		       RT_BATCH_UNMAP ? "no wait yet" : "the unfold waited");
		is_int(d.tlb.pages, RT_BATCH_UNMAP ? 16 : 32, "arm64 unmap: pages flushed");
		is_int(d.rmw, RT_BATCH_UNMAP ? 16 : 32, "arm64 unmap: PTE read-modify-writes");
		/* Without range TLBI a 16-page range is 16 TLBIs, however many calls. */
		is_int(d.tlb.tlbis, 16, "arm64 unmap: 16 TLBIs, one per page");
	} else {
		is_int(d.tlb.flushes, 0, "x86 unmap: nothing flushed yet");
		is_int(tlb_ubc.pending_pages, 16, "x86 unmap: 16 pages pending");
		is_int(d.rmw, 16, "x86 unmap: 16 PTE read-modify-writes");
	}
	is_int(d.batches, RT_BATCH_UNMAP ? 1 : 16, "%s unmap: %s", a,
	       RT_BATCH_UNMAP ? "one batch" : "16 steps");
	rt_counters_start(&cnt);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	ok(!tlb_ubc.flush_required && tlb_ubc.pending_pages == 0, "%s unmap: nothing pending after the flush", a);
	is_int(d.tlb.syncs, arm ? 1 : 0, "%s unmap: %s", a,
	       arm ? "one wait" : "no wait: the process sleeps on CPU 1 (lazy TLB)");
	is_int(d.tlb.flushes, arm ? 0 : 1, "%s unmap: final flush requests", a);
	is_int(d.tlb.pages, arm ? 0 : 16, "%s unmap: pages of the final flush", a);

	ok(!folio_mapped(folio), "%s unmap: the folio is not mapped", a);
	is_int(rt_census(mm, RT_BASE, 16).present, 0, "%s unmap: every entry is none", a);
	is_int(pages_mapped(folio, 0), 16, "%s unmap: every page's mapcount 0", a);
	is_int(folio_large_mapcount(folio), 0, "%s unmap: large mapcount 0", a);
	is_int(atomic_read(&folio->_nr_pages_mapped), 0, "%s unmap: _nr_pages_mapped 0", a);
	is_int(get_mm_counter_sum(mm, MM_FILEPAGES), 0, "%s unmap: MM_FILEPAGES 0", a);
	is_int(node_page_state_snapshot(&contig_node, NR_FILE_MAPPED), 0, "%s unmap: NR_FILE_MAPPED 0", a);
	is_int(folio_ref_count(folio), 17, "%s unmap: the cache's 16 + the caller's reference left", a);
	ok(rt_check(&mm, 1, &f) == 0, "%s unmap: rmap checker passes with the caller's reference", a);
	rt_folio_unlock_put(folio);
	finish(arm ? "unmap (arm64)" : "unmap (x86)", &mm, 1, &f, warns, false);
}

/*
 * With range TLBI (FEAT_TLBIRANGE) each deferred call is one TLBI however
 * many pages it covers: the batched unmap issues 1 for the block, vanilla
 * still one per entry.
 */
static void test_unmap_tlbi_range(void)
{
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mm = rt_map_file(&f, MMU_ARM64, 16, 4);
	folio = rt_folio_get_lock(&f, 0);
	tlbi_range = true;
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	d = rt_counters_delta(&cnt);
	tlbi_range = false;
	is_int(d.tlb.tlbis, RT_BATCH_UNMAP ? 1 : 16, "range TLBI: %s",
	       RT_BATCH_UNMAP ? "one TLBI for the block" : "one per entry, as vanilla calls per entry");
	try_to_unmap_flush();
	ok(!folio_mapped(folio), "range TLBI: the folio is unmapped");
	rt_folio_unlock_put(folio);
	finish("unmap (arm64, range TLBI)", &mm, 1, &f, warns, false);
}

/*
 * Unmapping an order-5 folio mapped as two arm64 blocks: vanilla unfolds
 * each block as it clears its first entry (two waits before the final
 * one); the batched unmap covers both blocks whole and unfolds nothing.
 */
static void test_unmap_two_blocks(void)
{
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mm = rt_map_file(&f, MMU_ARM64, 32, 5);
	is_int(rt_census(mm, RT_BASE, 32).cont, 32, "two blocks: mapped as two blocks");
	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	ok(!folio_mapped(folio) && rt_census(mm, RT_BASE, 32).present == 0, "two blocks: unmapped");
	is_int(d.tlb.syncs, RT_BATCH_UNMAP ? 1 : 3, "two blocks: %s",
	       RT_BATCH_UNMAP ? "only the final wait" : "two unfolds + the final wait");
	is_int(d.tlb.flushes, RT_BATCH_UNMAP ? 1 : 34, "two blocks: %s",
	       RT_BATCH_UNMAP ? "one TLBI for the run" : "two unfolds + 32 TLBIs");
	is_int(d.tlb.pages, RT_BATCH_UNMAP ? 32 : 64, "two blocks: pages flushed");
	is_int(folio_ref_count(folio), 33, "two blocks: 32 cache + 1 caller references left");
	rt_folio_unlock_put(folio);
	finish("unmap two blocks", &mm, 1, &f, warns, false);
}

/*
 * Without TTU_BATCH_FLUSH each batch is flushed, and waited for, as it is
 * cleared: vanilla once per entry (arm64 plus the unfold), the batched
 * unmap once per folio.
 */
static void test_unmap_sync(enum mmu_arch arch)
{
	const char *a = arch_name(arch);
	unsigned long warns = vm_warn_count;
	bool arm = arch == MMU_ARM64;
	struct rt_counters cnt, d;
	struct mm_struct *mm;
	struct folio *folio;
	struct rt_file f;

	mm = rt_map_file(&f, arch, 16, 4);
	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	try_to_unmap(folio, 0);
	d = rt_counters_delta(&cnt);
	ok(!folio_mapped(folio) && !tlb_ubc.flush_required, "%s sync unmap: unmapped, nothing deferred", a);
	is_int(d.tlb.syncs, RT_BATCH_UNMAP ? 1 : arm ? 17 : 16, "%s sync unmap: waited flushes", a);
	is_int(d.tlb.pages, RT_BATCH_UNMAP ? 16 : arm ? 32 : 16, "%s sync unmap: pages flushed", a);
	rt_folio_unlock_put(folio);
	finish(arm ? "sync unmap (arm64)" : "sync unmap (x86)", &mm, 1, &f, warns, false);
}

/*
 * Where the process ran decides an x86 unmap's flush (should_defer_flush(),
 * arch_tlbbatch_flush()).  The test is CPU 0; one 16-page folio each time:
 *
 *   case        CPU 0 runs    CPU 1 runs        mm_cpumask  deferred  at try_to_unmap_flush()
 *   sleeping    init_mm       the mm, lazy      {1}         yes       nothing waited for
 *   running     init_mm       the mm            {1}         yes       one shootdown
 *   left-here   init_mm       -                 {0}         no        -  (each batch at once)
 *   local       the mm        the mm, lazy      {0,1}       yes       one flush (CPU 0's own)
 *   other-mm    another mm    the mm, lazy      {0,1}       yes       nothing waited for
 *
 * arm64 defers whatever the mask says.
 */
enum rt_place { RT_SLEEPING, RT_RUNNING, RT_LEFT_HERE, RT_LOCAL, RT_OTHER_MM };

static void test_x86_flush_rule(enum rt_place place, const char *name)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm, *other = NULL;
	struct rt_counters cnt, d;
	struct folio *folio;
	struct rt_file f;
	bool deferred = place != RT_LEFT_HERE;
	int waits = place == RT_RUNNING || place == RT_LOCAL;

	mm = rt_map_file(&f, MMU_X86_64, 16, 4);	/* {1}, CPU 1 lazy */
	switch (place) {
	case RT_SLEEPING:
		break;
	case RT_RUNNING:
		switch_mm_cpu(1, mm);
		break;
	case RT_LEFT_HERE:
		mm->cpu_bitmap[0] = 1UL << 0;
		switch_mm_cpu(1, NULL);
		break;
	case RT_LOCAL:
		switch_mm_cpu(0, mm);
		break;
	case RT_OTHER_MM:
		other = mm_alloc();
		switch_mm_cpu(0, mm);
		switch_mm_cpu(0, other);
		break;
	}
	ok(arch_tlbbatch_should_defer(mm) == deferred, "x86 %s: %s", name,
	   deferred ? "another CPU may cache the entries: defer" : "only this CPU ran it: flush at once");
	folio = rt_folio_get_lock(&f, 0);
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	d = rt_counters_delta(&cnt);
	ok(tlb_ubc.flush_required == deferred, "x86 %s: a flush %s pending", name, deferred ? "is" : "is not");
	is_int(d.tlb.syncs, deferred ? 0 : (RT_BATCH_UNMAP ? 1 : 16), "x86 %s: %s", name,
	       deferred ? "nothing waited for while unmapping" : "each batch flushed and waited for");
	rt_counters_start(&cnt);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	is_int(d.tlb.syncs, deferred ? waits : 0, "x86 %s: waits at the final flush", name);
	is_int(d.tlb.shootdowns, deferred ? waits : 0, "x86 %s: CPUs that had to flush", name);
	is_int(d.tlb.flushes, deferred ? 1 : 0, "x86 %s: final flush requests", name);
	ok(!folio_mapped(folio), "x86 %s: the folio is unmapped", name);
	rt_folio_unlock_put(folio);
	switch_mm_cpu(0, NULL);
	if (other)
		mmput(other);
	finish(name, &mm, 1, &f, warns, false);
	ok(!cpu_tlbstate[1].loaded_mm && !cpu_tlbstate[0].loaded_mm,
	   "x86 %s: no CPU shows the freed mm", name);
}

/*
 * The mask is read a word per 64 CPUs: another CPU at either side of a
 * word's edge is found, this CPU alone is not, and arm64 does not look.
 */
static void test_defer_mask_words(void)
{
	struct mm_struct *mm = mm_alloc();
	int saved = nr_cpu_ids;
	static const int others[] = { 1, 63, 64, 65, 127, 128, 129 };

	nr_cpu_ids = 130;
	mmu_arch = MMU_X86_64;
	ok(!arch_tlbbatch_should_defer(mm), "mask words: an mm no CPU ran: no deferral");
	mm->cpu_bitmap[0] = 1UL;
	ok(!arch_tlbbatch_should_defer(mm), "mask words: only this CPU (0): no deferral");
	for (unsigned int i = 0; i < ARRAY_SIZE(others); i++) {
		int cpu = others[i];

		memset(mm->cpu_bitmap, 0, sizeof(mm->cpu_bitmap));
		mm->cpu_bitmap[cpu / BITS_PER_LONG] = 1UL << (cpu % BITS_PER_LONG);
		ok(arch_tlbbatch_should_defer(mm), "mask words: CPU %d alone: deferred", cpu);
		mm->cpu_bitmap[0] |= 1UL;
		ok(arch_tlbbatch_should_defer(mm), "mask words: CPUs 0 and %d: deferred", cpu);
	}
	memset(mm->cpu_bitmap, 0, sizeof(mm->cpu_bitmap));
	mm->cpu_bitmap[130 / BITS_PER_LONG] = 1UL << (130 % BITS_PER_LONG);
	ok(!arch_tlbbatch_should_defer(mm), "mask words: a bit at nr_cpu_ids is no CPU");
	memset(mm->cpu_bitmap, 0, sizeof(mm->cpu_bitmap));
	mmu_arch = MMU_ARM64;
	ok(arch_tlbbatch_should_defer(mm), "mask words: arm64 defers with an empty mask");
	mmu_arch = MMU_X86_64;
	nr_cpu_ids = saved;
	mmput(mm);
}

/*
 * Small (order-0) folios take the one-entry path in every design: a fault
 * maps one page, folio_referenced() and try_to_unmap() one entry each.
 */
static void test_small_folios(void)
{
	unsigned long warns = vm_warn_count;
	struct rt_counters cnt, d;
	unsigned long vm_flags;
	struct mm_struct *mms[2];
	struct folio *folio;
	struct rt_file f;

	mmu_arch = MMU_ARM64;
	rt_file_init(&f, RT_PAGES(16), 0);
	for (int i = 0; i < 2; i++) {
		mms[i] = rt_mm_alloc();
		rt_mmap(mms[i], &f, RT_BASE, 16, VM_READ, 0);
		is_int(rt_fault(mms[i], RT_BASE + RT_PAGES(3)), 0, "small: fault in process %d", i);
	}
	is_int(rt_census(mms[0], RT_BASE, 16).present, 1, "small: one page mapped per fault");
	is_int(rt_census(mms[0], RT_BASE, 16).cont, 0, "small: no block");
	folio = rt_folio_get_lock(&f, 3);
	ok(!folio_test_large(folio) && folio_mapcount(folio) == 2, "small: an order-0 folio, mapped twice");
	rt_counters_start(&cnt);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 2, "small: young in both processes");
	d = rt_counters_delta(&cnt);
	is_int(d.batches, 2, "small: one step each");
	is_int(d.rmw, 2, "small: one read-modify-write each");
	rt_counters_start(&cnt);
	try_to_unmap(folio, TTU_BATCH_FLUSH);
	try_to_unmap_flush();
	d = rt_counters_delta(&cnt);
	ok(!folio_mapped(folio), "small: unmapped");
	is_int(d.batches, 2, "small: one step each");
	is_int(folio_ref_count(folio), 2, "small: cache + caller references left");
	rt_folio_unlock_put(folio);
	finish("small folios", mms, 2, &f, warns, false);
}

/* --- MMU notifiers --------------------------------------------------------------------------- */

#define MAX_RANGES	64

/* A secondary MMU that records what it is asked to age. */
struct recorder {
	struct mmu_notifier sub;
	int nr;
	struct { unsigned long start, end; } r[MAX_RANGES];
};

static int record_clear_flush_young(struct mmu_notifier *sub, struct mm_struct *mm,
				    unsigned long start, unsigned long end)
{
	struct recorder *rec = container_of(sub, struct recorder, sub);

	(void)mm;
	if (rec->nr < MAX_RANGES) {
		rec->r[rec->nr].start = start;
		rec->r[rec->nr].end = end;
	}
	rec->nr++;
	return 0;
}

static const struct mmu_notifier_ops recorder_ops = {
	.clear_flush_young = record_clear_flush_young,
};

static void recorder_register(struct recorder *rec, struct mm_struct *mm)
{
	memset(rec, 0, sizeof(*rec));
	rec->sub.ops = &recorder_ops;
	if (mmu_notifier_register(&rec->sub, mm)) {
		printf("Bail out! mmu_notifier_register failed\n");
		exit(1);
	}
}

/* Do the recorded ranges tile [start, end) exactly, in address order? */
static bool ranges_tile(const struct recorder *rec, unsigned long start, unsigned long end)
{
	unsigned long at = start;

	for (int i = 0; i < rec->nr && i < MAX_RANGES; i++) {
		if (rec->r[i].start != at || rec->r[i].end <= at)
			return false;
		at = rec->r[i].end;
	}
	return at == end;
}

/*
 * The v3 bug (Liam Howlett's catch): ptep_clear_flush_young_notify() as a
 * macro ended the notifier range at the caller's `nr`, not at its own
 * argument.  Call it where a local `nr` differs from the argument: the
 * secondary MMU must hear exactly the four entries aged.
 */
static void test_notify_macro_nr(void)
{
	unsigned long warns = vm_warn_count;
	struct vm_area_struct *vma;
	struct recorder rec;
	struct mm_struct *mm;
	unsigned int nr = 1;
	struct rt_file f;
	spinlock_t *ptl;
	pte_t *ptep;
	int young;

	mmu_arch = MMU_X86_64;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	vma = rt_mmap(mm, &f, RT_BASE, 16, VM_READ, 0);
	rt_fault_range(mm, RT_BASE, 16);
	recorder_register(&rec, mm);

	ptep = lock_pte(mm, RT_BASE, &ptl);
	young = ptep_clear_flush_young_notify(vma, RT_BASE, ptep, nr + 3);
	pte_unmap_unlock(ptep, ptl);
	ok(young, "notify nr: the entries were young");
	is_int(rt_census(mm, RT_BASE, 4).young, 0, "notify nr: the 4 entries asked for are aged");
	is_int(rt_census(mm, RT_BASE + RT_PAGES(4), 12).young, 12, "notify nr: the others are not");
	is_int(rec.nr, 1, "notify nr: the secondary MMU is told once");
	is_int(rec.r[0].start, RT_BASE, "notify nr: from the first entry");
#ifdef CONFIG_RMAP_MUTANT_NOTIFY_NR
	ok(rec.r[0].end != RT_BASE + RT_PAGES(4),
	   "mutant %s: the notifier hears [start, start + %lu pages) for 4 entries: caught",
	   MM_KERNEL_NAME, (rec.r[0].end - rec.r[0].start) >> PAGE_SHIFT);
#else
	is_int(rec.r[0].end, RT_BASE + RT_PAGES(4), "notify nr: to the fourth: exactly [addr, addr + 4 pages)");
#endif
	mmu_notifier_unregister(&rec.sub, mm);
	finish("notify nr", &mm, 1, &f, warns, false);
}

/*
 * Through folio_referenced(): the secondary MMU hears one range per batch,
 * and together they cover exactly the pages mapped, in order.  A whole
 * folio on arm64: vanilla 16 single pages, batched one range of 16.  The
 * folio across a page-table boundary (x86): 16 single pages, or two
 * ranges of 8.
 */
static void test_notify_referenced(void)
{
	unsigned long warns = vm_warn_count;
	unsigned long start = RT_BASE + (64UL << 20) + PMD_SIZE - RT_PAGES(8);
	unsigned long vm_flags;
	struct mm_struct *mm;
	struct folio *folio;
	struct recorder rec;
	struct rt_file f;

	mm = rt_map_file(&f, MMU_ARM64, 16, 4);
	recorder_register(&rec, mm);
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "notify referenced: young");
	is_int(rec.nr, RT_BATCH_REFERENCED ? 1 : 16, "notify referenced: one range per batch");
	ok(ranges_tile(&rec, RT_BASE, RT_BASE + RT_PAGES(16)),
	   "notify referenced: the ranges cover exactly the folio's 16 pages");
	rt_folio_unlock_put(folio);
	mmu_notifier_unregister(&rec.sub, mm);
	finish("notify referenced", &mm, 1, &f, warns, false);

	warns = vm_warn_count;
	mmu_arch = MMU_X86_64;
	rt_file_init(&f, RT_PAGES(16), 4);
	mm = rt_mm_alloc();
	rt_mmap(mm, &f, start, 16, VM_READ, 0);
	rt_fault_range(mm, start, 16);
	recorder_register(&rec, mm);
	folio = rt_folio_get_lock(&f, 0);
	is_int(folio_referenced(folio, 1, NULL, &vm_flags), 1, "notify across tables: young");
#ifdef CONFIG_RMAP_MUTANT_PAST_PMD
	ok(vm_warn_count > warns, "mutant %s: a batch overran its page table (caught)", MM_KERNEL_NAME);
#else
	is_int(rec.nr, RT_BATCH_REFERENCED ? 2 : 16, "notify across tables: one range per batch");
	ok(ranges_tile(&rec, start, start + RT_PAGES(16)),
	   "notify across tables: the ranges cover exactly the 16 pages");
#endif
	rt_folio_unlock_put(folio);
	mmu_notifier_unregister(&rec.sub, mm);
	finish("notify across tables", &mm, 1, &f, warns, RT_PAST_PMD);
}

int main(void)
{
	plan_no_plan();
	/* Mutants fire debug checks on purpose: count them, do not print them. */
	vm_warn_quiet = RT_MUTANT;
	rt_boot(64ULL << 20);
	is_int(rt_allocated_pages(), 0, "booted: nothing allocated");

	test_fault_whole_folio(MMU_ARM64);
	test_fault_whole_folio(MMU_X86_64);
	test_fault_small_folio();
	test_fault_readahead_orders();
	test_tlbi_per_page_limit();
	test_fault_order5_two_blocks();
	test_fault_unaligned_vma();
	test_contpte_young();
	test_contpte_young_mid_block();
	test_contpte_unfold();
	test_contpte_clear_ends_mid_block();

	test_pte_batch_whole_folio(MMU_ARM64);
	test_pte_batch_whole_folio(MMU_X86_64);
	test_pmd_boundary(MMU_ARM64);
	test_pmd_boundary(MMU_X86_64);
	test_partial_vmas(MMU_ARM64);
	test_partial_vmas(MMU_X86_64);
	test_adjacent_folios(MMU_ARM64);
	test_adjacent_folios(MMU_X86_64);

	test_referenced(MMU_ARM64);
	test_referenced(MMU_X86_64);
	test_referenced_arm64_unaligned();
	test_referenced_two_processes();
	test_referenced_mlocked();

	test_unmap(MMU_ARM64);
	test_unmap(MMU_X86_64);
	test_unmap_tlbi_range();
	test_unmap_two_blocks();
	test_unmap_sync(MMU_ARM64);
	test_unmap_sync(MMU_X86_64);
	test_x86_flush_rule(RT_SLEEPING, "sleeping");
	test_x86_flush_rule(RT_RUNNING, "running");
	test_x86_flush_rule(RT_LEFT_HERE, "left-here");
	test_x86_flush_rule(RT_LOCAL, "local");
	test_x86_flush_rule(RT_OTHER_MM, "other-mm");
	test_defer_mask_words();
	test_small_folios();

	test_notify_macro_nr();
	test_notify_referenced();

	mem_exit();
	return done_testing();
}
