/*
 * vmalloc (src/mm/vmalloc.c) and the kernel page table (src/mm/pgtable.c),
 * against each design's vfree(): areas of many sizes map every page where
 * its vm_struct says, data written through the page tables reads back
 * from the pages, huge areas use PMD entries (or contiguous PTEs),
 * alignments hold, freed addresses come back only after a purge, a purge
 * flushes the TLB once and is counted, exhaustion fails cleanly, and at
 * the end every page is back.  The vmalloc checker catches corrupted
 * mappings (mutants).
 */
#include <string.h>
#include <time.h>

#include <linux/vmalloc.h>

#include "mm_test.h"

#define MEM	(32ULL << 20)	/* 8192 pages */

static char msg[256];
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static unsigned long rnd(unsigned long n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned long)(rnd_state % n);
}

static bool vcheck(void)
{
	if (vmalloc_check(msg, sizeof(msg))) {
		diag("vmalloc_check: %s", msg);
		return false;
	}
	return true;
}

/* Every page free, allocated to a page table, or in a vmalloc area. */
static unsigned long pages_accounted(void)
{
	return free_pages_all() + (unsigned long)atomic_long_read(&init_mm.nr_pgtable_pages) +
	       vmalloc_nr_pages();
}

static void boot(void)
{
	ok(mem_init(MEM) == 0 && vmalloc_init() == 0, "boot %llu MiB and vmalloc", MEM >> 20);
}

static void shutdown(void)
{
	struct page_alloc_report r;

	ok(vmalloc_exit(msg, sizeof(msg)) == 0, "vmalloc_exit: nothing left allocated");
	drain_all_pages(&contig_zone);
	ok(page_alloc_check(&r, msg, sizeof(msg)) == 0 && r.allocated == 0 && r.free == max_pfn,
	   "after vmalloc_exit and a drain every page is back in the buddy (%lu of %lu)",
	   r.free, max_pfn);
}

/* The PMD entry that maps @addr, or NULL if the walk stops above it. */
static pmd_t *walk_pmd(unsigned long addr)
{
	pgd_t *pgd = pgd_offset_k(addr);
	pud_t *pud;

	if (pgd_none(pgdp_get(pgd)))
		return NULL;
	pud = pud_offset(pgd, addr);
	if (pud_none(pudp_get(pud)))
		return NULL;
	return pmd_offset(pud, addr);
}

static pte_t *walk_pte(unsigned long addr)
{
	pmd_t *pmd = walk_pmd(addr);

	if (!pmd || pmd_none(pmdp_get(pmd)) || pmd_leaf(pmdp_get(pmd)))
		return NULL;
	return pte_offset_kernel(pmd, addr);
}

/* --- basics --------------------------------------------------------------------- */

static void test_boot(void)
{
	boot();
	is_int(atomic_long_read(&init_mm.nr_pgtable_pages), 1, "vmalloc_init allocated the PGD");
	ok(PageTable(virt_to_page(init_mm.pgd)), "the PGD's page is typed as a page table");
	is_int(pages_accounted(), max_pfn, "every page accounted for after boot");
	ok(vcheck(), "checker passes on an empty address space");
	vm_warn_quiet = true;
	ok(vmalloc(0) == NULL, "vmalloc(0) is NULL");
	vm_warn_quiet = false;
	vfree(NULL);
	ok(vcheck(), "vfree(NULL) does nothing");
}

/* Fill each page of an area through the page tables; read back from its pages. */
static bool fill_and_verify(void *p, unsigned int nr_pages, uint64_t tag)
{
	struct vm_struct *vm = find_vm_area(p);

	if (!vm || vm->nr_pages != nr_pages)
		return false;
	for (unsigned int i = 0; i < nr_pages; i++) {
		char *addr = (char *)p + ((unsigned long)i << PAGE_SHIFT);
		uint64_t v = tag ^ i;

		memcpy(vmalloc_access(addr + 8 * (i % 500)), &v, sizeof(v));
	}
	for (unsigned int i = 0; i < nr_pages; i++) {
		uint64_t v;

		memcpy(&v, (char *)page_address(vm->pages[i]) + 8 * (i % 500), sizeof(v));
		if (v != (tag ^ i))
			return false;
	}
	return true;
}

static bool pages_distinct(struct vm_struct *vm)
{
	unsigned char *seen = calloc(max_pfn, 1);
	bool distinct = true;

	for (unsigned int i = 0; i < vm->nr_pages && distinct; i++) {
		unsigned long pfn = page_to_pfn(vm->pages[i]);

		distinct = !seen[pfn];
		seen[pfn] = 1;
	}
	free(seen);
	return distinct;
}

static void test_sizes(void)
{
	static const unsigned int sizes[] = { 1, 2, 3, 4, 7, 16, 100, 511, 512, 513, 1000, 2048 };

	for (size_t s = 0; s < ARRAY_SIZE(sizes); s++) {
		unsigned int n = sizes[s];
		void *p = vmalloc((unsigned long)n * PAGE_SIZE);
		struct vm_struct *vm = find_vm_area(p);

		ok(p && is_vmalloc_addr(p) && !offset_in_page(p) && vm && vm->nr_pages == n &&
		   vm->size == ((unsigned long)n + 1) * PAGE_SIZE && vm->page_order == 0,
		   "vmalloc(%u pages): an area of %u pages plus a guard page", n, n);
		is_int(vmalloc_nr_pages(), n, "vmalloc_nr_pages() counts them");
		ok(vm && pages_distinct(vm), "%u distinct pages", n);
		ok(fill_and_verify(p, n, 0x1234567800000000ULL + n),
		   "data written through the page tables reads back from the pages");
		ok(vcheck(), "checker passes with the area allocated");
		vfree(p);
		is_int(vmalloc_nr_pages(), 0, "vfree gave the pages back to the count");
		is_int(pages_accounted(), max_pfn, "every page is free or a page table again");
		ok(vcheck(), "checker passes after vfree");
	}
	{
		void *p = vmalloc(5000);

		ok(p && find_vm_area(p)->nr_pages == 2, "vmalloc(5000 bytes) rounds up to 2 pages");
		vfree(p);
	}
}

static void test_large_orders(void)
{
	void *p;
	struct vm_struct *vm;
	unsigned int runs = 1;

	vm_unmap_aliases();
	drain_all_pages(&contig_zone);
	p = vmalloc(512 * PAGE_SIZE);
	vm = find_vm_area(p);
	for (unsigned int i = 1; vm && i < vm->nr_pages; i++)
		runs += page_to_pfn(vm->pages[i]) != page_to_pfn(vm->pages[i - 1]) + 1;
	is_int(runs, 1, "512 pages on a quiet machine come as one order-9 block, split");
	for (unsigned int i = 0; vm && i < vm->nr_pages; i++)
		if (page_count(vm->pages[i]) != 1 || PageCompound(vm->pages[i]))
			runs = 0;
	ok(runs == 1, "and every page has its own reference, none compound");
	vfree(p);
	p = vmalloc(100 * PAGE_SIZE);
	vm = find_vm_area(p);
	runs = 1;
	for (unsigned int i = 1; vm && i < vm->nr_pages; i++)
		runs += page_to_pfn(vm->pages[i]) != page_to_pfn(vm->pages[i - 1]) + 1;
	ok(vm && runs <= 3, "100 pages come as blocks of 64 + 32 + 4 (%u runs of pfns)", runs);
	vfree(p);
}

/* --- huge mappings ------------------------------------------------------------------- */

static void test_huge(void)
{
	void *p = vmalloc_huge(2 * PMD_SIZE, GFP_KERNEL);
	struct vm_struct *vm = find_vm_area(p);
	pmd_t *pmd = p ? walk_pmd((unsigned long)p) : NULL;
	bool ok_pages = true;

	ok(p && IS_ALIGNED((unsigned long)p, PMD_SIZE), "vmalloc_huge(4 MiB) is PMD-aligned");
	ok(vm && vm->page_order == pageblock_order && vm->nr_pages == 1024,
	   "its pages are order-9 blocks: page_order %u", vm ? vm->page_order : 0);
	ok(pmd && pmd_leaf(pmdp_get(pmd)) && pmd_leaf(pmdp_get(pmd + 1)),
	   "both 2 MiB halves are mapped by leaf PMD entries");
	ok(pmd && pmd_page(pmdp_get(pmd)) == vm->pages[0] && pmd_page(pmdp_get(pmd + 1)) == vm->pages[512],
	   "each PMD maps its block's first page");
	for (unsigned int i = 0; vm && i < vm->nr_pages; i++)
		if (vmalloc_to_page((char *)p + ((unsigned long)i << PAGE_SHIFT)) != vm->pages[i])
			ok_pages = false;
	ok(ok_pages, "vmalloc_to_page finds every page inside the huge mappings");
	ok(fill_and_verify(p, 1024, 0xabcdef), "data written through a PMD mapping reads back");
	ok(vcheck(), "checker passes with a huge area");
	vfree(p);
	ok(pmd && pmd_none(pmdp_get(pmd)) && pmd_none(pmdp_get(pmd + 1)), "vfree cleared both PMDs");
	is_int(pages_accounted(), max_pfn, "every page back after the huge vfree");

	/* Below PMD_SIZE, x86-64 maps page by page. */
	vmap_cont_pte_supported = false;
	p = vmalloc_huge(16 * PAGE_SIZE, GFP_KERNEL);
	vm = find_vm_area(p);
	ok(vm && vm->page_order == 0 && !pte_cont(ptep_get(walk_pte((unsigned long)p))),
	   "x86-64: vmalloc_huge(64 KiB) uses order-0 pages and plain PTEs");
	vfree(p);

	/*
	 * arm64 maps 64 KiB blocks with contiguous PTEs; the pages come as
	 * large a block as fits, split, and are mapped as order-4 chunks.  A
	 * lone free order-4 block (b1, its buddy b2 held) would serve an
	 * order-4 request first; the order-6 request passes it by:
	 *
	 *   [b1 free 16][b2 held 16] ...      [order-6 block: the area's 64 pages]
	 */
	vmap_cont_pte_supported = true;
	vm_unmap_aliases();
	drain_all_pages(&contig_zone);
	{
		struct page *b1 = alloc_pages(GFP_KERNEL, 4), *b2 = alloc_pages(GFP_KERNEL, 4);
		unsigned int runs = 1;
		bool uses_b1 = false;

		if (b1)
			__free_pages(b1, 4);
		p = vmalloc_huge(64 * PAGE_SIZE, GFP_KERNEL);
		vm = find_vm_area(p);
		for (unsigned int i = 0; vm && i < vm->nr_pages; i++) {
			runs += i && page_to_pfn(vm->pages[i]) != page_to_pfn(vm->pages[i - 1]) + 1;
			uses_b1 |= vm->pages[i] == b1;
		}
		ok(b1 && b2 && runs == 1 && !uses_b1,
		   "arm64: vmalloc_huge(256 KiB) takes one order-6 block, not the lone order-4 one (%u runs)", runs);
		if (b2)
			__free_pages(b2, 4);
	}
	ok_pages = vm && vm->page_order == 4 && IS_ALIGNED((unsigned long)p, CONT_PTE_SIZE);
	for (unsigned int i = 0; ok_pages && i < 64; i++) {
		pte_t pte = ptep_get(walk_pte((unsigned long)p + ((unsigned long)i << PAGE_SHIFT)));

		ok_pages = pte_cont(pte) && pte_page(pte) == vm->pages[i];
	}
	ok(ok_pages, "arm64: vmalloc_huge(256 KiB) maps order-4 blocks with 64 contiguous PTEs");
	ok(vcheck(), "checker passes with a contiguous-PTE area");
	ok(vm && vmalloc_mmu_page(p) == vm->pages[0] && vmalloc_mmu_page((char *)p + 63 * PAGE_SIZE) == vm->pages[63],
	   "the MMU's walk reaches the first and last page through the contiguous entries");
	{
		/* vfree clears each block as a whole (huge_ptep_get_and_clear()): all 64 entries. */
		pte_t *first = vm ? walk_pte((unsigned long)p) : NULL;
		bool cleared = first != NULL;

		vfree(p);
		for (unsigned int i = 0; cleared && i < 64; i++)
			cleared = pte_none(__ptep_get(first + i));
		ok(cleared, "vfree of the contiguous-PTE area leaves all 64 entries none");
	}
	vmap_cont_pte_supported = false;
	is_int(pages_accounted(), max_pfn, "every page back after the contiguous-PTE vfree");
}

/* With no free block of order 9, vmalloc_huge falls back to small pages. */
static void test_huge_fallback(void)
{
	unsigned long n = 0, fallbacks = vmap_stats.huge_fallbacks;
	struct page **pages = calloc(max_pfn, sizeof(*pages));
	struct vm_struct *vm;
	void *p;

	while (n < max_pfn && (pages[n] = alloc_page(GFP_KERNEL)))
		n++;
	/* Free every other page: plenty free, but nothing above order 0. */
	for (unsigned long i = 0; i < n; i++)
		if (page_to_pfn(pages[i]) % 2 == 0) {
			__free_page(pages[i]);
			pages[i] = NULL;
		}
	p = vmalloc_huge(PMD_SIZE, GFP_KERNEL);
	vm = find_vm_area(p);
	ok(vm && vm->page_order == 0 && vm->nr_pages == 512,
	   "fragmented memory: vmalloc_huge(2 MiB) falls back to order-0 pages");
	is_int(vmap_stats.huge_fallbacks - fallbacks, 1, "the fallback is counted");
	ok(p && !pmd_leaf(pmdp_get(walk_pmd((unsigned long)p))), "and is mapped with PTEs");
	ok(vcheck(), "checker passes");
	vfree(p);
	for (unsigned long i = 0; i < n; i++)
		if (pages[i])
			__free_page(pages[i]);
	free(pages);
	is_int(pages_accounted(), max_pfn, "every page back after the fallback test");
}

/* --- alignment ------------------------------------------------------------------------ */

static bool area_bytes_are(void *p, unsigned int nr_pages, unsigned char c)
{
	struct vm_struct *vm = find_vm_area(p);

	for (unsigned int i = 0; vm && i < nr_pages; i++) {
		const unsigned char *b = page_address(vm->pages[i]);

		for (size_t j = 0; j < PAGE_SIZE; j++)
			if (b[j] != c)
				return false;
	}
	return vm != NULL;
}

/* Poison every free page: allocate all of memory, free it with poisoning on. */
static void poison_free_memory(void)
{
	struct page **pages = calloc(max_pfn, sizeof(*pages));
	unsigned long n = 0;

	page_poisoning_on = true;
	while (n < max_pfn && (pages[n] = alloc_page(GFP_KERNEL)))
		n++;
	while (n--)
		__free_page(pages[n]);
	free(pages);
}

static void test_align(void)
{
	void *p;
	int bad = 0;

	poison_free_memory();
	p = vmalloc(5 * PAGE_SIZE);
	ok(area_bytes_are(p, 5, PAGE_POISON), "without __GFP_ZERO the freed pages' poison shows");
	vfree(p);
	p = __vmalloc_node(5 * PAGE_SIZE, 32 << 10, GFP_KERNEL | __GFP_ZERO, NUMA_NO_NODE, NULL);
	ok(p && IS_ALIGNED((unsigned long)p, 32 << 10), "5 pages at 32 KiB alignment (fix_align_alloc_test)");
	ok(area_bytes_are(p, 5, 0), "with __GFP_ZERO every byte is zero");
	vfree(p);
	page_poisoning_on = false;

	for (int shift = 0; shift <= 22; shift++) {
		unsigned long align = 1UL << shift;

		p = __vmalloc_node((1 + rnd(10)) * PAGE_SIZE, align, GFP_KERNEL, NUMA_NO_NODE, NULL);
		if (!p || !IS_ALIGNED((unsigned long)p, max(align, PAGE_SIZE)))
			bad++;
		vfree(p);
	}
	is_int(bad, 0, "alignments 1 B .. 4 MiB are honoured");

	/* align_shift_alloc_test: beyond the address space, a clean failure. */
	p = __vmalloc_node(PAGE_SIZE, 1UL << 50, GFP_KERNEL, NUMA_NO_NODE, NULL);
	ok(p == NULL, "an alignment of 2^50 cannot be met in 32 TiB: NULL");
	p = __vmalloc_node(PAGE_SIZE, 1UL << 63, GFP_KERNEL, NUMA_NO_NODE, NULL);
	ok(p == NULL, "nor 2^63");
	is_int(pages_accounted(), max_pfn, "the failures leaked nothing");
	ok(vcheck(), "checker passes after failed alignments");
}

/* --- lazy freeing, purge and the TLB ----------------------------------------------------- */

static void test_lazy_reuse(void)
{
	unsigned long flushes, purges;
	void *p1, *p2, *p3;

	vm_unmap_aliases();
	flushes = tlb_flush_stats_read().flushes;
	purges = vmap_stats.purges;
	p1 = vmalloc(PAGE_SIZE);
	vfree(p1);
	p2 = vmalloc(PAGE_SIZE);
	ok(p2 && p2 != p1, "a freed address is not reused before a purge (%p, then %p)", p1, p2);
	is_int(tlb_flush_stats_read().flushes - flushes, 0, "vfree did not flush the TLB");
	vfree(p2);
	vm_unmap_aliases();
	is_int(tlb_flush_stats_read().flushes - flushes, 1, "the purge flushed once for both areas");
	is_int(vmap_stats.purges - purges, 1, "and is counted as one purge");
	ok(tlb_flush_stats_read().pages >= 4, "the flush covered both areas and their guard pages");
	p3 = vmalloc(PAGE_SIZE);
	ok(p3 == p1, "after the purge the lowest address is reused (%p)", p3);
	vfree(p3);
	vm_unmap_aliases();
	ok(vcheck(), "checker passes after purges: the free areas merged back");
}

/*
 * A free hole of exactly the size asked for fits (is_within_this_va()): the
 * lowest fit is the hole between two live areas, not the space after them.
 */
static void test_exact_fit(void)
{
	void *a, *b, *c, *d;

	vm_unmap_aliases();
	a = vmalloc(2 * PAGE_SIZE);
	b = vmalloc(2 * PAGE_SIZE);
	c = vmalloc(2 * PAGE_SIZE);
	ok(a && b && c && a < b && b < c, "three areas in address order");
	vfree(b);
	vm_unmap_aliases();
	d = vmalloc(2 * PAGE_SIZE);
	ok(d == b, "the hole between them, exactly the size, is reused (%p, hole %p)", d, b);
	vfree(a);
	vfree(c);
	vfree(d);
	vm_unmap_aliases();
	ok(vcheck(), "checker passes after the exact fit");
}

static void test_lazy_threshold(void)
{
	/* One CPU: lazy_max_pages() is 32 MiB; each area is 1 page + guard. */
	unsigned long limit = (unsigned long)fls((unsigned int)num_online_cpus()) * 8192;
	unsigned long flushes, areas, i;

	vm_unmap_aliases();
	flushes = tlb_flush_stats_read().flushes;
	areas = vmap_stats.purged_areas;
	for (i = 0; i < limit / 2; i++)
		vfree(vmalloc(PAGE_SIZE));
	is_int(tlb_flush_stats_read().flushes - flushes, 0,
	       "%lu lazily freed pages (at the limit) did not purge yet", limit);
	vfree(vmalloc(PAGE_SIZE));
	is_int(tlb_flush_stats_read().flushes - flushes, 1, "one more area past lazy_max_pages purges: one flush");
	is_int(vmap_stats.purged_areas - areas, limit / 2 + 1, "all %lu lazy areas were purged", limit / 2 + 1);
	ok(vcheck(), "checker passes after the automatic purge");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_flush_cost(void)
{
	double t0, t1;

	vfree(vmalloc(PAGE_SIZE));
	tlb_flush_loops = 20000000;	/* about 10-20 ms of busy loop */
	t0 = now();
	vm_unmap_aliases();
	t1 = now();
	tlb_flush_loops = 0;
	ok(t1 - t0 > 0.002, "a flush costs its configured busy loop (%.1f ms for 2e7 loops)",
	   (t1 - t0) * 1e3);
}

/* --- exhaustion ------------------------------------------------------------------------ */

static void test_exhaustion(void)
{
	unsigned long before;
	void **areas = calloc(max_pfn, sizeof(void *));
	int n = 0;

	vm_unmap_aliases();
	drain_all_pages(&contig_zone);
	before = free_pages_all();
	ok(vmalloc((max_pfn + 1) * PAGE_SIZE) == NULL, "more pages than the machine has: NULL");
	ok(vmalloc(1UL << 50) == NULL, "a petabyte: NULL");
	ok(vmalloc((before + 64) * PAGE_SIZE) == NULL, "64 pages more than are free: NULL");
	drain_all_pages(&contig_zone);
	is_int(free_pages_all(), before, "the failed vmalloc gave back every page it got");
	is_int(vmalloc_nr_pages(), 0, "and counts none");
	ok(vcheck(), "checker passes after the failure");

	while ((areas[n] = vmalloc(64 * PAGE_SIZE)))
		n++;
	ok(n > 0 && (unsigned long)n * 64 <= before, "%d areas of 64 pages before memory ran out", n);
	ok(vcheck(), "checker passes with memory exhausted");
	while (n--)
		vfree(areas[n]);
	free(areas);
	drain_all_pages(&contig_zone);
	is_int(pages_accounted(), max_pfn, "every page back after exhaustion");
	ok(vcheck(), "checker passes after freeing everything");
}

/* --- vm_map_ram -------------------------------------------------------------------------- */

static void test_vm_map_ram(void)
{
	struct page *pages[8] = { NULL };
	unsigned char *v;
	bool good = true;

	ok(alloc_pages_bulk(GFP_KERNEL, 8, pages) == 8, "8 pages in bulk");
	v = vm_map_ram(pages, 8, NUMA_NO_NODE);
	ok(v && is_vmalloc_addr(v), "vm_map_ram maps them");
	for (int i = 0; v && i < 8; i++) {
		*(unsigned char *)vmalloc_access(v + i * PAGE_SIZE + i) = (unsigned char)(0x40 + i);
		good &= ((unsigned char *)page_address(pages[i]))[i] == 0x40 + i;
	}
	ok(good, "writes through the mapping land in the pages");
	ok(find_vm_area(v) == NULL, "a vm_map_ram area has no vm_struct");
	ok(vcheck(), "checker passes with a vm_map_ram area");
	vm_unmap_ram(v, 8);
	ok(vmalloc_to_page(v) == NULL, "vm_unmap_ram unmapped it");
	for (int i = 0; i < 8; i++)
		__free_page(pages[i]);
	ok(vcheck(), "checker passes after vm_unmap_ram");
}

/* --- random mix ------------------------------------------------------------------------- */

struct live {
	void *p;
	unsigned int nr;
	uint64_t tag;
};

static bool verify_live(struct live *l)
{
	struct vm_struct *vm = find_vm_area(l->p);

	if (!vm)
		return false;
	for (unsigned int i = 0; i < l->nr; i += 1 + i / 8) {
		uint64_t v;

		memcpy(&v, vmalloc_access((char *)l->p + ((unsigned long)i << PAGE_SHIFT) + 64), sizeof(v));
		if (v != (l->tag ^ i))
			return false;
	}
	return true;
}

static void test_random_mix(void)
{
	struct live live[64] = { { 0 } };
	int bad_data = 0, bad_check = 0, nulls = 0;

	vmap_cont_pte_supported = true;
	for (int op = 0; op < 3000; op++) {
		struct live *l = &live[rnd(64)];

		if (l->p) {
			bad_data += !verify_live(l);
			vfree(l->p);
			l->p = NULL;
			continue;
		}
		l->nr = 1 + (unsigned int)rnd(rnd(8) ? 40 : 600);
		l->tag = rnd_state;
		if (rnd(5) == 0)
			l->p = vmalloc_huge((unsigned long)l->nr * PAGE_SIZE, GFP_KERNEL);
		else
			l->p = __vmalloc_node((unsigned long)l->nr * PAGE_SIZE, 1UL << rnd(20),
					      GFP_KERNEL, NUMA_NO_NODE, NULL);
		if (!l->p) {
			nulls++;
			continue;
		}
		l->nr = find_vm_area(l->p)->nr_pages;
		for (unsigned int i = 0; i < l->nr; i += 1 + i / 8) {
			uint64_t v = l->tag ^ i;

			memcpy(vmalloc_access((char *)l->p + ((unsigned long)i << PAGE_SHIFT) + 64), &v, sizeof(v));
		}
		if (op % 100 == 0 && !vcheck())
			bad_check++;
	}
	for (int i = 0; i < 64; i++) {
		if (live[i].p) {
			bad_data += !verify_live(&live[i]);
			vfree(live[i].p);
		}
	}
	vmap_cont_pte_supported = false;
	diag("random mix: %d allocations failed for lack of memory", nulls);
	is_int(bad_data, 0, "3000 random vmalloc/vmalloc_huge/vfree: every area kept its data");
	is_int(bad_check, 0, "the checker passed every 100 operations");
	is_int(pages_accounted(), max_pfn, "every page back after the random mix");
}

/* --- vmap nodes and their pools ---------------------------------------------------------- */

/*
 * Free two areas of @pages pages, purge, and ask for one more of the same
 * size: a pool gives back the last one it took, b, where the free tree
 * gives the lowest, a.
 *
 *   a [pages + guard] b [pages + guard]      freed, purged in address order
 *   pool of their size: b -> a               (each purged area pushed first)
 *   free tree:          lowest fit is a
 */
static void *pool_or_tree(unsigned long pages, void **a, void **b)
{
	void *c;

	vm_unmap_aliases();
	*a = vmalloc(pages << PAGE_SHIFT);
	*b = vmalloc(pages << PAGE_SHIFT);
	vfree(*a);
	vfree(*b);
	vm_unmap_aliases();
	c = vmalloc(pages << PAGE_SHIFT);
	vfree(c);
	vm_unmap_aliases();
	return c;
}

static void test_vmap_nodes(void)
{
	void *a, *b, *c, *v[8];
	int cpus = nr_cpu_ids;

	/* One CPU: one node, no pools. */
	nr_cpu_ids = 1;
	boot();
	c = pool_or_tree(1, &a, &b);
	ok(a && b && a < b && c == a, "1 CPU: after a purge the free tree gives the lowest area (a)");
	shutdown();

	/* Two CPUs: two nodes, so pools; the allocating CPU 0's pool serves. */
	nr_cpu_ids = 2;
	boot();
	c = pool_or_tree(1, &a, &b);
	ok(a && b && a < b && c == b, "2 CPUs: the node's pool gives the last area purged (b, not a)");
	ok(vcheck(), "checker passes with areas pooled");
	shutdown();

	nr_cpu_ids = 4;
	boot();
	/*
	 * A pooled area not aligned as asked goes to the back of its pool, and
	 * the request is served by the free tree.  a at VMALLOC_START is 64
	 * KiB aligned (the first area of a fresh boot), b (three pages on) is not;
	 * the pool is b -> a.
	 */
	vm_unmap_aliases();
	a = vmalloc(2 * PAGE_SIZE);
	b = vmalloc(2 * PAGE_SIZE);
	vfree(a);
	vfree(b);
	vm_unmap_aliases();
	c = __vmalloc_node(2 * PAGE_SIZE, 64 << 10, GFP_KERNEL, NUMA_NO_NODE, NULL);
	ok(c && c != a && c != b && IS_ALIGNED((unsigned long)c, 64 << 10),
	   "an unaligned pooled area is passed over: the free tree gives an aligned one (%p)", c);
	{
		void *d = __vmalloc_node(2 * PAGE_SIZE, 64 << 10, GFP_KERNEL, NUMA_NO_NODE, NULL);

		ok(a == (void *)VMALLOC_START && d == a,
		   "and the next request finds the aligned a at the head of the pool");
		vfree(d);
	}
	vfree(c);
	vm_unmap_aliases();

	/* 255 pages and a guard page, 1 MiB: the largest size a pool keeps; one more page is not. */
	c = pool_or_tree(255, &a, &b);
	ok(c == b, "255 pages + guard (1 MiB) are pooled");
	c = pool_or_tree(256, &a, &b);
	ok(c == a, "256 pages + guard (1 MiB + 4 KiB) go back to the free tree");
	c = pool_or_tree(254, &a, &b);
	ok(c == b, "254 pages + guard are pooled");

	/*
	 * A purge first gives a quarter of each pool back.  Eight areas of one
	 * page in address order, purged: the pool holds v7 .. v0 (v7 first).
	 * The next purge decays v7 and v6; the pool then serves v5 .. v0, and
	 * the free tree v6.
	 */
	vm_unmap_aliases();
	for (int i = 0; i < 8; i++)
		v[i] = vmalloc(PAGE_SIZE);
	for (int i = 0; i < 8; i++)
		vfree(v[i]);
	vm_unmap_aliases();
	vm_unmap_aliases();
	{
		int in_order = 1;
		void *w[7];

		for (int i = 0; i < 7; i++)
			w[i] = vmalloc(PAGE_SIZE);
		for (int i = 0; i < 6; i++)
			in_order &= w[i] == v[5 - i];
		ok(in_order, "after a second purge the pool serves v5 .. v0, its remaining three quarters");
		ok(w[6] == v[6], "and the seventh comes from the free tree: v6, decayed back to it");
		for (int i = 0; i < 7; i++)
			vfree(w[i]);
	}
	vm_unmap_aliases();
	ok(vcheck(), "checker passes after the decay");

	/*
	 * Busy areas live in the node of their start (16-page stripes over 4
	 * nodes): an address 40 pages into a 48-page area is two stripes on,
	 * and is found by searching the nodes before its own.
	 */
	a = vmalloc(48 * PAGE_SIZE);
	ok(a && find_vm_area((char *)a + 40 * PAGE_SIZE) == find_vm_area(a) && find_vm_area(a),
	   "an address two stripes into an area finds the area in its start's node");
	ok(fill_and_verify(a, 48, 0x5a5a), "and the area's pages read back");
	vfree(a);
	ok(vcheck(), "checker passes with busy areas over several nodes");
	shutdown();
	nr_cpu_ids = cpus;
}

/* --- the checker's mutants ---------------------------------------------------------------- */

static void test_mutants(void)
{
	void *p = vmalloc(4 * PAGE_SIZE);
	struct vm_struct *vm = find_vm_area(p);
	pte_t *pte = walk_pte((unsigned long)p + PAGE_SIZE), saved;
	struct page *page;

	ok(vm && pte && vcheck(), "an area to corrupt; the checker passes on it");
	if (!vm || !pte)
		return;
	saved = ptep_get(pte);
	pte_clear(&init_mm, 0, pte);
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: a cleared PTE is caught (%s)", msg);
	set_pte(pte, pfn_pte(page_to_pfn(vm->pages[0]), PAGE_KERNEL));
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: a PTE mapping the wrong page is caught (%s)", msg);
	set_pte(pte, saved);

	pte = walk_pte((unsigned long)p + 4 * PAGE_SIZE);
	set_pte(pte, saved);
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: a mapped guard page is caught (%s)", msg);
	pte_clear(&init_mm, 0, pte);

	page = vm->pages[3];
	vm->pages[3] = vm->pages[2];
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: pages[] disagreeing with the page table is caught (%s)", msg);
	vm->pages[3] = page;

	vm->nr_pages--;
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: a page count off by one is caught (%s)", msg);
	vm->nr_pages++;

	vm->size += PAGE_SIZE;
	ok(vmalloc_check(msg, sizeof(msg)) < 0, "mutant: a vm_struct size that disagrees with its area is caught (%s)", msg);
	vm->size -= PAGE_SIZE;

	ok(vcheck(), "every mutation undone: the checker passes");
	vfree(p);

	/* An area still allocated at exit is reported, its pages leaked. */
	p = vmalloc(3 * PAGE_SIZE);
	ok(vmalloc_exit(msg, sizeof(msg)) < 0 && strstr(msg, "still allocated"),
	   "vmalloc_exit reports an area left allocated (%s)", msg);
	{
		struct page_alloc_report r;

		drain_all_pages(&contig_zone);
		page_alloc_check(&r, msg, sizeof(msg));
		is_int(r.allocated, 3, "and the allocator's check sees its 3 pages still allocated");
	}
}

/* Misuse fires a warning in CONFIG_DEBUG_VM builds. */
static void test_bad_vfree(void)
{
	unsigned long warns = vm_warn_count;
	void *p = vmalloc(2 * PAGE_SIZE);

	vm_warn_quiet = true;
	vfree((char *)p + PAGE_SIZE);
	vfree((void *)(VMALLOC_START + (1UL << 40)));
	vm_warn_quiet = false;
	ok(vm_warn_count - warns >= 2, "vfree of an address that starts no area warns (%lu)",
	   vm_warn_count - warns);
	ok(find_vm_area(p) != NULL && vcheck(), "and leaves the real area alone");
	vfree(p);
}

/*
 * A run of pfns that starts off its own alignment, built on purpose: with
 * every order-4 block allocated, free pairs of neighbours that are not
 * buddies, so no order-5 block forms and each 32-page vmalloc() takes two
 * order-4 blocks.  When it takes the lower first its pages are one run of
 * 32 starting 16 pages past a 32-page boundary:
 *
 *   pfn  32k   32k+16        32k+48   32k+64
 *        [held][free b][free c][held]...     b, c: not buddies (32k+32 is c's)
 *   area pages[]: b b b ... c c c            one run, at 16 mod 32
 *
 * vfree() must free it as two order-4 chunks; the contig-misaligned mutant
 * frees one order-5 chunk at a pfn that is not a multiple of 32.  Returns
 * the allocator's check after the areas are freed; *@misaligned counts the
 * areas whose one run started off its alignment.
 */
static int vfree_misaligned_runs(unsigned int *misaligned)
{
	struct page_alloc_report r;
	struct page **held = calloc(max_pfn / 16, sizeof(*held));
	unsigned int nr_held = 0, nr_pairs = 0;
	void *p[8];
	int ret;

	*misaligned = 0;
	vfree(vmalloc(32 * PAGE_SIZE));		/* the page tables this needs, first */
	vm_unmap_aliases();
	drain_all_pages(&contig_zone);
	while (held && (held[nr_held] = alloc_pages(GFP_KERNEL, 4)))
		nr_held++;
	for (unsigned int i = 0; i < nr_held && nr_pairs < 8; i++) {
		unsigned long pfn = page_to_pfn(held[i]);

		if (pfn % 64 != 16)
			continue;
		for (unsigned int j = 0; j < nr_held; j++) {
			if (j != i && held[j] && page_to_pfn(held[j]) == pfn + 16) {
				/* c first: the free list then hands out b, the lower, first */
				__free_pages(held[j], 4);
				__free_pages(held[i], 4);
				held[i] = held[j] = NULL;
				nr_pairs++;
				break;
			}
		}
	}
	for (int i = 0; i < 8; i++) {
		struct vm_struct *vm;

		p[i] = vmalloc(32 * PAGE_SIZE);
		vm = p[i] ? find_vm_area(p[i]) : NULL;
		if (vm && page_to_pfn(vm->pages[16]) == page_to_pfn(vm->pages[15]) + 1 &&
		    page_to_pfn(vm->pages[0]) % 32 == 16)
			(*misaligned)++;
	}
	for (int i = 0; i < 8; i++)
		vfree(p[i]);
	vm_unmap_aliases();
	for (unsigned int i = 0; i < nr_held; i++)
		if (held[i])
			__free_pages(held[i], 4);
	free(held);
	drain_all_pages(&contig_zone);
	ret = page_alloc_check(&r, msg, sizeof(msg));
	return ret;
}

static void test_misaligned_runs(void)
{
	unsigned int misaligned;
	int bad = vfree_misaligned_runs(&misaligned);

	ok(bad == 0 && misaligned > 0,
	   "%u areas whose run of pfns starts off its alignment are freed in aligned chunks", misaligned);
	is_int(pages_accounted(), max_pfn, "every page back after the misaligned runs");
}

#ifdef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
/* The contig-misaligned mutant: the misaligned run corrupts the buddy. */
static void test_catches_misaligned_mutant(void)
{
	unsigned int misaligned;
	int bad;

	boot();
	bad = vfree_misaligned_runs(&misaligned);
	ok(bad != 0 && misaligned > 0,
	   "contig-misaligned mutant: vfree's misaligned chunks are caught (%u runs; %s)", misaligned, msg);
}
#endif

int main(void)
{
	plan_no_plan();
#ifdef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
	test_catches_misaligned_mutant();
	return done_testing();
#endif
	test_boot();
	test_sizes();
	test_large_orders();
	test_huge();
	test_huge_fallback();
	test_align();
	test_lazy_reuse();
	test_exact_fit();
	test_lazy_threshold();
	test_flush_cost();
	test_exhaustion();
	test_vm_map_ram();
	test_random_mix();
	test_misaligned_runs();
	test_bad_vfree();
	shutdown();

	test_vmap_nodes();

	boot();
	test_mutants();
	mem_exit();
	return done_testing();
}
