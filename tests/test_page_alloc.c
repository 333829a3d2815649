/*
 * The page allocator and its checker: the buddy splits and merges, the
 * per-CPU lists refill and spill in batches, pageblocks change type when
 * an allocation falls back, bad pages are leaked and reported, exhaustion
 * returns NULL, and the checker catches corrupted states (mutants of the
 * allocator's state).
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM	(8ULL << 20)	/* two MAX_PAGE_ORDER blocks */

static char msg[256];

static int check(struct page_alloc_report *r)
{
	int ret = page_alloc_check(r, msg, sizeof(msg));

	if (ret)
		diag("checker: %s", msg);
	return ret;
}

static struct per_cpu_pages *my_pcp(void)
{
	return &contig_zone.per_cpu_pageset[smp_processor_id()];
}

static void reboot(void)
{
	ok(mem_init(MEM) == 0, "reboot");
}

static void test_boot(void)
{
	struct page_alloc_report r;

	ok(mem_init(MEM) == 0, "boot 8 MiB");
	is_int(max_pfn, 2048, "2048 pages");
	is_int(nr_free_pages(), 2048, "all free in the buddy after boot");
	ok(check(&r) == 0, "checker passes after boot");
	is_int(r.free_by_order[MAX_PAGE_ORDER], 2, "two order-10 blocks");
	is_int(get_pageblock_migratetype(pfn_to_page(0)), MIGRATE_MOVABLE, "boot pageblocks are movable");
	ok(my_pcp()->batch >= 1 && my_pcp()->high >= 4 * my_pcp()->batch,
	   "pcp batch %d, high %d: high is at least four batches", my_pcp()->batch, my_pcp()->high);
	ok(mem_init(1ULL << 20) != 0, "less than one MAX_PAGE_ORDER block is refused");
	reboot();
}

static void test_buddy_split_and_merge(void)
{
	struct page_alloc_report r;
	/* Order 4 is not kept on pcp lists: straight from and to the buddy. */
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 4);
	struct page *c;

	ok(p && IS_ALIGNED(page_to_pfn(p), 16), "order-4 block from the buddy, aligned");
	is_int(page_ref_count(p), 1, "allocated page has refcount 1");
	is_int(nr_free_pages(), 2048 - 16, "16 pages less free in the buddy");
	ok(check(&r) == 0, "checker passes with a block allocated");
	is_int(r.allocated, 16, "checker counts 16 allocated pages");
	for (int o = 4; o < MAX_PAGE_ORDER; o++)
		is_int(r.free_by_order[o], 1, "expand left one free block of order %d", o);
	__free_pages(p, 4);
	ok(check(&r) == 0 && r.free_by_order[MAX_PAGE_ORDER] == 2, "freed: buddies merged back to order 10");

	c = alloc_pages(GFP_KERNEL | __GFP_MOVABLE | __GFP_COMP, 5);
	ok(PageHead(c) && compound_head(c + 5) == c, "compound page: head and tails");
	is_int(folio_order(page_folio(c + 31)), 5, "a tail finds its folio's order");
	__free_pages(c, 5);
	ok(!PageHead(c) && !PageTail(c + 1), "compound state undone on free");
	ok(check(&r) == 0 && r.free == 2048, "all free again");
}

/* The pcp's own arithmetic: how many blocks of @order a refill takes. */
static int expected_refill(int batch, unsigned int order)
{
	return batch > 1 ? max(batch >> order, 2) : batch;
}

static void test_pcp_refill_and_spill(void)
{
	struct per_cpu_pages *pcp;
	struct page_alloc_report r;
	static struct page *pages[2048];
	unsigned long total;
	int batch, refill, n, high;

	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB, for pcp batches larger than one page");
	pcp = my_pcp();
	total = max_pfn;
	batch = pcp->batch;
	refill = expected_refill(batch, 0);
	diag("64 MiB zone: pcp batch %d, high %d (min %d, max %d)", batch, pcp->high,
	     pcp->high_min, pcp->high_max);
	ok(batch > 1, "the batch is more than one page");

	pages[0] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	ok(pages[0] != NULL, "order-0 allocation");
	is_int(nr_free_pages(), total - refill, "the pcp refilled %d pages from the buddy", refill);
	is_int(pcp->count, refill - 1, "and kept the rest of the refill");
	__free_pages(pages[0], 0);
	is_int(pcp->count, refill, "an order-0 free goes to the pcp list");
	ok(check(&r) == 0 && r.pcp == (unsigned long)pcp->count, "checker counts pcp pages");

	for (n = 0; n < 2048; n++)
		pages[n] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	for (n = 0; n < 2048; n++)
		__free_pages(pages[n], 0);
	ok(pcp->count < pcp->high, "freeing many pages spills to the buddy: pcp holds %d < high %d",
	   pcp->count, pcp->high);
	ok(check(&r) == 0, "checker passes after the spill");
	drain_all_pages(&contig_zone);
	is_int(pcp->count, 0, "drain empties the pcp");
	ok(check(&r) == 0 && r.free == total, "and everything is back in the buddy");

	/* A pageblock-order block goes to the pcp's THP list if high allows. */
	high = pcp->high;
	pcp->high = 4 * pageblock_nr_pages;
	pages[0] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, pageblock_order);
	ok(pages[0] && IS_ALIGNED(page_to_pfn(pages[0]), pageblock_nr_pages), "a pageblock-order allocation");
	is_int(pcp->count, expected_refill(batch, pageblock_order) * (int)pageblock_nr_pages - (int)pageblock_nr_pages,
	       "the THP list was refilled with %d blocks, one handed out", expected_refill(batch, pageblock_order));
	__free_pages(pages[0], pageblock_order);
	is_int(pcp->count, expected_refill(batch, pageblock_order) * (int)pageblock_nr_pages,
	       "a pageblock-order free goes back to the pcp THP list");
	ok(check(&r) == 0 && r.pcp_by_order[pageblock_order] == (unsigned long)expected_refill(batch, pageblock_order),
	   "the checker sees the blocks there");
	pcp->high = high;
	drain_all_pages(&contig_zone);
	reboot();
}

static int pcp_list_len(struct per_cpu_pages *pcp, unsigned int order)
{
	struct list_head *list = &pcp->lists[order_to_pindex(MIGRATE_MOVABLE, order)];
	struct page *page;
	int n = 0;

	list_for_each_entry(page, list, lru)
		n++;
	return n;
}

/*
 * A spill drains the list of the block just freed first: the kernel's
 * free_pcppages_bulk() starts at the index it is given, then goes
 * round-robin.  Here order-0 and order-1 movable lists both hold blocks;
 * freeing one more order-0 page past high must take order-0 blocks only.
 *
 *   lists before:  order-0 movable  0000000000...   order-1 movable  11 11 11 ...
 *   free one order-0 page past high
 *   lists after:   order-0 movable  0000.......     order-1 movable  11 11 11 ... (unchanged)
 */
static void test_pcp_spill_drains_requested_list_first(void)
{
	struct per_cpu_pages *pcp = my_pcp();
	struct page *small[64], *pairs[8];
	int i, batch = pcp->batch, len0, len1, freed;

	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB");
	pcp = my_pcp();
	batch = pcp->batch;
	/* A fixed, roomy high: nothing spills while the lists fill. */
	pcp->high = pcp->high_min = pcp->high_max = 4096;
	for (i = 0; i < 8; i++)
		pairs[i] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 1);
	for (i = 0; i < 64; i++)
		small[i] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	for (i = 0; i < 8; i++)
		__free_pages(pairs[i], 1);
	for (i = 0; i < 63; i++)
		__free_pages(small[i], 0);
	len0 = pcp_list_len(pcp, 0);
	len1 = pcp_list_len(pcp, 1);
	ok(len0 >= batch && len1 >= 8, "order-0 list holds %d blocks (batch %d), order-1 list %d",
	   len0, batch, len1);

	/* Now the next order-0 free reaches high and spills at least a batch. */
	pcp->high = pcp->high_min = pcp->high_max = pcp->count + 1;
	pcp->free_count = 0;
	__free_pages(small[63], 0);
	freed = len0 + 1 - pcp_list_len(pcp, 0);
	ok(freed >= batch, "the spill took %d order-0 blocks (at least a batch of %d)", freed, batch);
	is_int(pcp_list_len(pcp, 1), len1, "and no order-1 block: the requested list drains first");
	drain_all_pages(&contig_zone);
	reboot();
}

/*
 * NR_FREE_PAGES is kept the kernel's way: the buddy's add and delete of a
 * block change this CPU's small difference, which reaches the zone's atomic
 * only past the threshold.  A block's merges count once, not per step.
 */
static void test_free_pages_per_cpu_diff(void)
{
	struct per_cpu_zonestat *pz;
	struct page *p;
	long folded;
	int t;

	reboot();
	pz = &contig_zone.per_cpu_zonestats[smp_processor_id()];
	is_int(pz->stat_threshold, 2 * fls((unsigned)nr_cpu_ids) * (1 + fls(2048 >> 15)),
	       "stat threshold: 2 * fls(cpus) * (1 + fls(zone size in 128 MiB units))");
	/* A larger machine's threshold, so that a 16-page change stays per CPU. */
	t = 100;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		contig_zone.per_cpu_zonestats[cpu].stat_threshold = (s8)t;
	folded = (long)zone_page_state(&contig_zone, NR_FREE_PAGES);
	is_int(nr_free_pages(), 2048, "snapshot: all 2048 pages free");

	/* An order-0 block from the buddy: 1024 -> ... -> 1, ten merges undone. */
	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 4);
	ok(p != NULL, "order-4 block from the buddy");
	is_int(pz->vm_stat_diff[NR_FREE_PAGES], -16, "this CPU's difference took -16");
	is_int((long)zone_page_state(&contig_zone, NR_FREE_PAGES), folded, "the zone's atomic was not touched");
	is_int(nr_free_pages(), 2048 - 16, "the snapshot adds the difference");
	__free_pages(p, 4);
	is_int(pz->vm_stat_diff[NR_FREE_PAGES], 0, "freeing it back (four merges) adds 16 once");

	/* Past the threshold the difference is folded into the atomic. */
	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 7);
	ok(p != NULL, "order-7 block (128 pages > threshold %d)", t);
	is_int(pz->vm_stat_diff[NR_FREE_PAGES], 0, "a change past the threshold leaves no difference");
	is_int((long)zone_page_state(&contig_zone, NR_FREE_PAGES), folded - 128, "it went to the zone's atomic");
	__free_pages(p, 7);
	reboot();
}

static void test_split_page(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 3);

	split_page(p, 3);
	for (int i = 0; i < 8; i++)
		is_int(page_ref_count(p + i), 1, "after split_page, page %d has its own reference", i);
	for (int i = 0; i < 8; i++)
		__free_pages(p + i, 0);
	is_int(free_pages_all(), 2048, "the split pages all come back");
	drain_all_pages(&contig_zone);
}

static void test_migratetype_fallback(void)
{
	struct page_alloc_report r;
	struct page *u = alloc_pages(GFP_KERNEL, 0);	/* unmovable; no unmovable blocks yet */

	ok(u != NULL, "an unmovable allocation falls back to movable memory");
	is_int(get_pageblock_migratetype(u), MIGRATE_UNMOVABLE, "and claims the pageblock as unmovable");
	ok(check(&r) == 0, "free blocks moved to the unmovable lists consistently");
	__free_pages(u, 0);
	drain_all_pages(&contig_zone);
	ok(check(&r) == 0, "checker passes after freeing");
	reboot();
}

/* --- pageblocks of different types at and above pageblock_order --------------- */

/*
 * In the page-alloc-merge-pageblock mutant build every rule below is
 * expected to hold or not, and the test passes iff at least one is caught
 * breaking (it merges two pageblocks whatever their types).
 */
#ifdef CONFIG_PAGE_ALLOC_MUTANT_MERGE_PAGEBLOCK
#define MERGE_MUTANT	1
#else
#define MERGE_MUTANT	0
#endif

static int rules_broken;

#define rule_int(got, want, ...)	rule((long)(got) == (long)(want), __VA_ARGS__)

#define rule(cond, ...) ({						\
	bool __c = (cond);						\
	if (MERGE_MUTANT) {						\
		if (!__c) {						\
			rules_broken++;					\
			diag("mutant breaks: " __VA_ARGS__);		\
		}							\
	} else {							\
		ok(__c, __VA_ARGS__);					\
	}								\
	__c;								\
})

/* The migratetype whose order-@order free list holds @page, or -1. */
static int free_list_of(struct page *page, unsigned int order)
{
	struct page *pos;

	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		list_for_each_entry(pos, &contig_zone.free_area[order].free_list[mt], lru)
			if (pos == page)
				return mt;
	return -1;
}

/*
 * Two pageblocks, one order-10 block: allocate it, label its halves @mt0
 * and @mt1 (an allocated pageblock can change type with nothing to move),
 * free it, and describe what the buddy made of it in @out.
 */
static void free_two_pageblocks(int mt0, int mt1, char *out, size_t len)
{
	struct page *b = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	struct page *hi = b + pageblock_nr_pages;

	set_pageblock_migratetype(b, mt0);
	set_pageblock_migratetype(hi, mt1);
	__free_pages(b, MAX_PAGE_ORDER);
	snprintf(out, len, "order-10 on %d, halves: order-9 on %d and %d, types %d/%d",
		 free_list_of(b, MAX_PAGE_ORDER), free_list_of(b, pageblock_order),
		 free_list_of(hi, pageblock_order), get_pageblock_migratetype(b),
		 get_pageblock_migratetype(hi));
}

/* What the kernel makes of it: two blocks apart, each on its own type's list. */
static void expect_apart(int mt0, int mt1, const char *what)
{
	char got[120], want[120];
	struct page_alloc_report r;

	free_two_pageblocks(mt0, mt1, got, sizeof(got));
	snprintf(want, sizeof(want), "order-10 on -1, halves: order-9 on %d and %d, types %d/%d",
		 mt0, mt1, mt0, mt1);
	rule(strcmp(got, want) == 0, "%s: no merge at pageblock_order (%s)", what, got);
	rule(check(&r) == 0, "%s: the checker passes", what);
	reboot();
}

static void test_pageblock_merge_rules(void)
{
	struct page_alloc_report r;
	struct page *b, *p[4];
	char got[120];
	unsigned long warns = vm_warn_count;
	int n = 0;

	reboot();
	/* Mergeable types merge at pageblock_order; the merged block takes one type. */
	b = pfn_to_page(0);
	free_two_pageblocks(MIGRATE_MOVABLE, MIGRATE_UNMOVABLE, got, sizeof(got));
	rule_int(free_list_of(b, MAX_PAGE_ORDER), MIGRATE_UNMOVABLE,
	       "movable + unmovable pageblocks merge into one order-10 block (%s)", got);
	rule_int(get_pageblock_migratetype(b), MIGRATE_UNMOVABLE,
	       "... and the buddy's pageblock is relabelled to the freed block's type");
	rule_int(get_pageblock_migratetype(b + pageblock_nr_pages), MIGRATE_UNMOVABLE,
	       "... so both halves have the type of the list the block is on");
	rule(check(&r) == 0 && r.free_by_order[MAX_PAGE_ORDER] == 2, "the checker passes");
	reboot();

	/* Isolated and highatomic pageblocks never merge with another type. */
	expect_apart(MIGRATE_MOVABLE, MIGRATE_ISOLATE, "movable next to isolated");
	expect_apart(MIGRATE_ISOLATE, MIGRATE_UNMOVABLE, "isolated next to unmovable");
	expect_apart(MIGRATE_RECLAIMABLE, MIGRATE_HIGHATOMIC, "reclaimable next to highatomic");

	/* An isolated pageblock's free block is neither counted nor handed out. */
	b = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	set_pageblock_migratetype(b + pageblock_nr_pages, MIGRATE_ISOLATE);
	__free_pages(b, MAX_PAGE_ORDER);
	rule_int(nr_free_pages(), 2048 - pageblock_nr_pages, "the isolated pageblock is not counted free");
	rule(check(&r) == 0 && r.isolated == pageblock_nr_pages, "the checker sees it isolated");
	while (n < 4 && (p[n] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE | __GFP_NOWARN, pageblock_order)))
		n++;
	rule_int(n, 3, "three pageblocks can be allocated, not the isolated one");
	for (int i = 0; i < n; i++)
		rule(page_to_pfn(p[i]) >> pageblock_order != page_to_pfn(b) / pageblock_nr_pages + 1,
		   "pageblock %lu is not the isolated one", page_to_pfn(p[i]) >> pageblock_order);
	while (n--)
		__free_pages(p[n], pageblock_order);
	reboot();

	/* An order-0 page of an isolated pageblock is freed to the buddy, never to a pcp list. */
	b = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	split_page(b, MAX_PAGE_ORDER);
	set_pageblock_migratetype(b + pageblock_nr_pages, MIGRATE_ISOLATE);
	n = my_pcp()->count;
	__free_pages(b + pageblock_nr_pages, 0);
	rule_int(my_pcp()->count, n, "an isolated page does not go to the pcp list");
	rule(check(&r) == 0 && r.isolated == 1, "it is on the isolate free list");
	reboot();
	if (MERGE_MUTANT) {
		ok(rules_broken > 0, "merge-at-pageblock mutant: %d pageblock rules caught broken, "
		   "%lu VM_WARNs", rules_broken, vm_warn_count - warns);
		vm_warn_count = warns;	/* expected here; the rest of the tests must not warn */
	}
}

/*
 * NR_FREE_PAGES_BLOCKS: the free pages in blocks of pageblock_order (9) or
 * more, outside isolated pageblocks, kept by the free-list helpers as the
 * kernel's are.  The 8 MiB machine is two order-10 blocks; an order-8
 * allocation splits one into an order-9 block (at the boundary: counted),
 * an order-8 one (below: not counted) and the allocation, beside the other
 * order-10 block (above: counted).
 */
static unsigned long free_blocks(void)
{
	return zone_page_state_snapshot(&contig_zone, NR_FREE_PAGES_BLOCKS);
}

static void test_free_pages_blocks(void)
{
	struct page_alloc_report r;
	struct page *p, *b;

	reboot();
	is_int(free_blocks(), 2048, "boot: both order-10 blocks counted (above the boundary)");
	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, pageblock_order - 1);
	ok(p != NULL, "an order-8 block from the buddy");
	is_int(free_blocks(), 1024 + 512, "split: the order-9 half counts (at the boundary), the free "
	       "order-8 quarter does not (below it), the other order-10 block does");
	is_int(nr_free_pages(), 2048 - 256, "NR_FREE_PAGES counts the order-8 quarter too");
	ok(check(&r) == 0 && r.free_blocks == 1536, "the checker agrees (%lu)", r.free_blocks);
	__free_pages(p, pageblock_order - 1);
	is_int(free_blocks(), 2048, "freed: the merges (8 -> 9 -> 10) count the order-10 block once");

	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	ok(p != NULL, "an order-10 block");
	is_int(free_blocks(), 1024, "its 1024 pages leave the count");
	__free_pages(p, MAX_PAGE_ORDER);
	is_int(free_blocks(), 2048, "and come back with it");
	reboot();

	/*
	 * An isolated pageblock's block is free but not counted; its neighbour
	 * is.  (The merge mutant merges the two: test_pageblock_merge_rules.)
	 */
	if (MERGE_MUTANT)
		return;
	b = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	set_pageblock_migratetype(b + pageblock_nr_pages, MIGRATE_ISOLATE);
	__free_pages(b, MAX_PAGE_ORDER);
	is_int(free_blocks(), 1024 + 512, "an isolated order-9 block is not counted, its movable "
	       "neighbour is");
	ok(check(&r) == 0 && r.free_blocks == 1536 && r.isolated == pageblock_nr_pages,
	   "the checker agrees (%lu counted, %lu isolated)", r.free_blocks, r.isolated);
	reboot();
}

/*
 * How much a spill frees: nr_pcp_free() gives at most high - batch, so a
 * CPU that keeps freeing still keeps a batch on its list.
 */
static void test_pcp_spill_keeps_a_batch(void)
{
	static struct page *pages[1024];
	struct per_cpu_pages *pcp;
	int batch, high, n;

	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB");
	pcp = my_pcp();
	batch = pcp->batch;
	high = 4 * batch;
	for (n = 0; n < high; n++)
		pages[n] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	drain_all_pages(&contig_zone);
	/* A fixed high, and a CPU that has been freeing for a long time. */
	pcp->high = pcp->high_min = pcp->high_max = high;
	pcp->free_count = 8 * high;
	for (n = 0; n < high; n++)
		__free_pages(pages[n], 0);
	is_int(pcp->count, batch, "reaching high (%d) frees high - batch: a batch (%d) stays", high,
	       batch);
	reboot();
}

/* The order-10 block of @pfn, taken from the buddy and split into pages. */
static struct page *take_max_block(struct page **blocks, int nr, unsigned long pfn)
{
	for (int i = 0; i < nr; i++)
		if (page_to_pfn(blocks[i]) == pfn) {
			split_page(blocks[i], MAX_PAGE_ORDER);
			return blocks[i];
		}
	return NULL;
}

static void free_range(struct page *page, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		__free_pages(page + i, 0);
	drain_all_pages(&contig_zone);
}

/*
 * buddy_merge_likely() looks one order up only below MAX_PAGE_ORDER - 1:
 * an order-9 block can become order 10 at most, so a free order-10 block
 * beside its parent says nothing and the block goes to the head of its list.
 *
 *   16 MiB, order-10 blocks O0 O1 O2 O3: O0 free; O1 and O2 allocated and
 *   split; X = the upper half of O2 freed first, Y = the upper half of O1
 *   (whose order-10 neighbour O0 is free) freed second: Y is at the head.
 */
static void test_merge_likely_below_max_order(void)
{
	struct page *o[4], *o0, *x, *y, *got;
	int n = 0;

	ok(mem_init(16ULL << 20) == 0, "boot 16 MiB");
	while (n < 4 && (o[n] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER)))
		n++;
	is_int(n, 4, "four order-10 blocks");
	o0 = take_max_block(o, 4, 0);
	x = take_max_block(o, 4, 2048) + pageblock_nr_pages;
	y = take_max_block(o, 4, 1024) + pageblock_nr_pages;
	free_range(o0, MAX_ORDER_NR_PAGES);	/* O0 whole again */
	free_range(x, pageblock_nr_pages);
	free_range(y, pageblock_nr_pages);
	got = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, pageblock_order);
	ok(got == y, "the order-9 block freed last is handed out first (pfn %lu, want %lu)",
	   got ? page_to_pfn(got) : 0, page_to_pfn(y));
	reboot();
}

/*
 * The zone statistics' per-CPU threshold is capped at 125, so that a
 * difference one add below it still fits its s8; and a global count that
 * per-CPU differences not yet folded have taken below zero reads as 0.
 */
static void test_zone_stat_threshold_and_clamp(void)
{
	struct zone *zone = &contig_zone;
	unsigned long managed = zone->managed_pages;
	long global = atomic_long_read(&zone->vm_stat[NR_FREE_PAGES]);
	int cpus = nr_cpu_ids;

	zone->managed_pages = 1UL << 30;	/* 4 TiB */
	nr_cpu_ids = NR_CPUS;
	refresh_zone_stat_thresholds(zone);
	is_int(zone->per_cpu_zonestats[0].stat_threshold, 125,
	       "a 4 TiB zone on %d CPUs: the threshold is capped at 125", NR_CPUS);
	zone->managed_pages = managed;
	nr_cpu_ids = cpus;
	refresh_zone_stat_thresholds(zone);

	atomic_long_set(&zone->vm_stat[NR_FREE_PAGES], -5);
	is_int(zone_page_state(zone, NR_FREE_PAGES), 0, "a global count below zero reads as 0");
	atomic_long_set(&zone->vm_stat[NR_FREE_PAGES], global);
}

static void test_extra_reference(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned long before = free_pages_all();

	get_page(p);
	__free_pages(p, 0);
	is_int(free_pages_all(), before, "a page with another reference is not freed");
	put_page(p);
	is_int(free_pages_all(), before + 1, "the last reference frees it");
}

static void test_exhaustion(void)
{
	static struct page *pages[4];
	struct page_alloc_report r;
	int n = 0;

	reboot();
	ok(alloc_pages(GFP_KERNEL | __GFP_NOWARN, MAX_PAGE_ORDER + 1) == NULL,
	   "an order above MAX_PAGE_ORDER fails cleanly");
	while (n < 4 && (pages[n] = alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER)))
		n++;
	is_int(n, 2, "two order-10 blocks can be had");
	ok(alloc_pages(GFP_KERNEL, 0) == NULL, "then even order 0 fails, returning NULL");
	is_int(nr_free_pages(), 0, "no page free");
	while (n--)
		__free_pages(pages[n], MAX_PAGE_ORDER);
	ok(check(&r) == 0 && r.free == 2048, "all back after exhaustion");
}

static void test_exhaustion_drains_pcp(void)
{
	struct page *p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	struct page *big;

	__free_pages(p, 0);	/* pages now sit on this CPU's pcp list */
	big = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	ok(big != NULL, "one order-10 block");
	ok(alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER) != NULL,
	   "the second one needs the pcp pages drained back: the slow path drains");
	reboot();
}

static void test_bad_page_leaked(void)
{
	struct page_alloc_report r;
	struct page *p = alloc_pages(GFP_KERNEL, 1);

	p[1].mapping = (struct address_space *)0x1234;	/* corrupt the second page */
	fprintf(stderr, "# (a 'Bad page state' report below is expected)\n");
	__free_pages(p, 1);
	ok(check(&r) == 0, "checker passes with a leaked block");
	is_int(r.leaked, 2, "the bad block is leaked and accounted for");
	is_int(free_pages_all(), 2046, "the leaked pages are not free");
	reboot();
}

static void test_poisoning(void)
{
	struct page *p = alloc_pages(GFP_KERNEL, 0);
	unsigned char *data = page_address(p);

	page_poisoning_on = true;
	memset(data, 0x11, PAGE_SIZE);
	__free_pages(p, 0);
	ok(data[0] == PAGE_POISON && data[PAGE_SIZE - 1] == PAGE_POISON, "freed page is poisoned");
	page_poisoning_on = false;
}

/* Put a fake free block on a buddy list, as a broken allocator might. */
static void fake_buddy(struct page *p, unsigned int order, int mt)
{
	__SetPageBuddy(p);
	p->private = order;
	list_add(&p->lru, &contig_zone.free_area[order].free_list[mt]);
	contig_zone.free_area[order].nr_free++;
	__mod_zone_page_state(&contig_zone, NR_FREE_PAGES, 1L << order);
}

/* Each mutant of the allocator's state must be caught by the checker. */
static void test_checker_catches_mutants(void)
{
	struct page_alloc_report r;
	struct page *p, *q;

	reboot();
	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	q = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	drain_all_pages(&contig_zone);
	ok(page_to_pfn(q) == (page_to_pfn(p) ^ 1), "two buddies allocated");
	spin_lock(&contig_zone.lock);
	fake_buddy(p, 0, MIGRATE_MOVABLE);
	fake_buddy(q, 0, MIGRATE_MOVABLE);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0 && strstr(msg, "not merged"), "mutant: unmerged buddies are caught");
	reboot();

	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 4);
	spin_lock(&contig_zone.lock);
	fake_buddy(p + 1, 1, MIGRATE_MOVABLE);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0 && strstr(msg, "not aligned"), "mutant: misaligned free block is caught");
	reboot();

	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 4);
	spin_lock(&contig_zone.lock);
	fake_buddy(p, 4, MIGRATE_UNMOVABLE);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0 && strstr(msg, "pageblock"), "mutant: block on the wrong migratetype list is caught");
	reboot();

	atomic_long_add(5, &contig_zone.vm_stat[NR_FREE_PAGES]);
	ok(check(&r) != 0 && strstr(msg, "free pages"), "mutant: wrong free count is caught");
	reboot();

	atomic_long_add(512, &contig_zone.vm_stat[NR_FREE_PAGES_BLOCKS]);
	ok(check(&r) != 0 && strstr(msg, "blocks of pageblock_order"),
	   "mutant: wrong count of free pages in pageblock-sized blocks is caught");
	reboot();

	spin_lock(&contig_zone.lock);
	p = list_first_entry(&contig_zone.free_area[MAX_PAGE_ORDER].free_list[MIGRATE_MOVABLE],
			     struct page, lru);
	list_add(&p->lru, &contig_zone.free_area[MAX_PAGE_ORDER].free_list[MIGRATE_MOVABLE]);
	spin_unlock(&contig_zone.lock);
	ok(check(&r) != 0, "mutant: a block on a free list twice is caught (%s)", msg);
	reboot();

	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	__free_pages(p, 0);
	my_pcp()->count += 1;
	ok(check(&r) != 0 && strstr(msg, "pcp"), "mutant: a pcp count that disagrees with its lists is caught");
	reboot();

	/* A page inside a free buddy block that is also on a pcp list. */
	spin_lock(&contig_zone.lock);
	p = list_first_entry(&contig_zone.free_area[MAX_PAGE_ORDER].free_list[MIGRATE_MOVABLE],
			     struct page, lru);
	spin_unlock(&contig_zone.lock);
	list_add(&p[5].lru, &my_pcp()->lists[order_to_pindex(MIGRATE_MOVABLE, 0)]);
	my_pcp()->count += 1;
	ok(check(&r) != 0 && strstr(msg, "overlaps"),
	   "mutant: a page both in a buddy block and on a pcp list is caught");
	reboot();
}

/* pgalloc_normal and pgfree count pages, on the pcp and the buddy paths alike. */
static void test_vm_events(void)
{
	struct page *pages[8] = { NULL };
	struct page *p, *q;

	reboot();
	is_int(vm_event(PGALLOC_NORMAL) + vm_event(PGFREE), 0, "booted: nothing allocated or freed");
	p = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	q = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 4);
	ok(p && q, "an order-0 page from the pcp, an order-4 block from the buddy");
	is_int(vm_event(PGALLOC_NORMAL), 1 + 16, "pgalloc_normal counts 17 pages");
	is_int(vm_event(PGFREE), 0, "pgfree counts nothing yet");
	__free_pages(p, 0);
	__free_pages(q, 4);
	is_int(vm_event(PGFREE), 1 + 16, "pgfree counts the 17 pages freed");
	is_int(alloc_pages_bulk(GFP_KERNEL | __GFP_MOVABLE, 8, pages), 8, "a bulk allocation of 8 pages");
	is_int(vm_event(PGALLOC_NORMAL), 17 + 8, "pgalloc_normal counts them");
	for (int i = 0; i < 8; i++)
		__free_pages(pages[i], 0);
	is_int(vm_event(PGFREE), 17 + 8, "pgfree too, once freed");
}

int main(void)
{
	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	test_boot();
	test_buddy_split_and_merge();
	test_pcp_refill_and_spill();
	test_pcp_spill_drains_requested_list_first();
	test_free_pages_per_cpu_diff();
	test_split_page();
	test_migratetype_fallback();
	test_pageblock_merge_rules();
	test_free_pages_blocks();
	test_pcp_spill_keeps_a_batch();
	test_merge_likely_below_max_order();
	test_zone_stat_threshold_and_clamp();
	test_extra_reference();
	test_exhaustion();
	test_exhaustion_drains_pcp();
	test_bad_page_leaked();
	test_poisoning();
	test_checker_catches_mutants();
	test_vm_events();
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
