/*
 * Freeing contiguous ranges of order-0 pages (seed 001), in every design
 * and mutant: __free_contig_range, free_contig_range,
 * __free_contig_frozen_range, free_pages_bulk, and the allocation side
 * they pair with: split_page, alloc_pages_bulk, alloc_contig_frozen_range.
 *
 * Every design must free every page it is given whose last reference
 * goes, leave alone (contents and refcount) every page someone still
 * holds, leak only bad pages, and leave the allocator sound: blocks
 * aligned, buddies merged, counts right.  The batched designs must in
 * addition free a split high-order block as high-order chunks.
 *
 * The mutants must be caught here: contig-free-referenced by the test of
 * referenced pages, contig-misaligned by the test of odd ranges (its
 * chunks corrupt the buddy as soon as a run starts unaligned, so the other
 * tests that free unaligned runs are skipped in that build).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <machine/machine.h>

#include "mm_test.h"

#if defined(CONFIG_CONTIG_BATCHED) || defined(CONFIG_CONTIG_BULK)
#define BATCHED_DESIGN	1
#else
#define BATCHED_DESIGN	0
#endif

#define MEM_8M	(8ULL << 20)	/* 2048 pages: two MAX_PAGE_ORDER blocks */
#define MEM_16M	(16ULL << 20)	/* 4096 pages: four */

static char msg[256];
static unsigned char *map;	/* mm_mark_free_pfns() */

static int check(struct page_alloc_report *r)
{
	int ret = page_alloc_check(r, msg, sizeof(msg));

	if (ret)
		diag("checker: %s", msg);
	return ret;
}

static void boot(unsigned long long bytes)
{
	if (mem_init(bytes)) {
		printf("Bail out! mem_init(%llu) failed\n", bytes);
		exit(1);
	}
	free(map);
	map = malloc(max_pfn);
	page_poisoning_on = false;
}

static uint64_t tag_of(unsigned long pfn)
{
	return 0x7e57000000000000ULL | ((uint64_t)pfn << 8);
}

static void tag_range(unsigned long pfn, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		mm_tag_page(pfn_to_page(pfn + i), tag_of(pfn + i));
}

/* How many pfns of [pfn, pfn + nr) are in @state (after mm_mark_free_pfns). */
static unsigned long count_state(unsigned long pfn, unsigned long nr, int state)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < nr; i++)
		n += map[pfn + i] == state;
	return n;
}

static unsigned long count_free(unsigned long pfn, unsigned long nr)
{
	return nr - count_state(pfn, nr, MM_PFN_ALLOCATED);
}

/* A non-compound block of @order split into refcounted order-0 pages. */
static unsigned long split_block(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	if (!page) {
		printf("Bail out! no order-%u block to split\n", order);
		exit(1);
	}
	split_page(page, order);
	tag_range(page_to_pfn(page), 1UL << order);
	return page_to_pfn(page);
}

/*
 * [pfn, pfn + nr) (whole MAX_PAGE_ORDER blocks) as refcounted order-0
 * pages, the way alloc_contig_range() hands a range out.
 */
static bool take_pages(unsigned long pfn, unsigned long nr)
{
	if (alloc_contig_frozen_range(pfn, nr))
		return false;
	for (unsigned long i = 0; i < nr; i++)
		init_page_count(pfn_to_page(pfn + i));
	tag_range(pfn, nr);
	return true;
}

/* After a drain, is all memory (less @leaked pages) back as free blocks, none allocated? */
static void expect_all_free(const char *what, unsigned long leaked)
{
	struct page_alloc_report r;

	drain_all_pages(&contig_zone);
	ok(check(&r) == 0, "%s: the checker passes after draining", what);
	is_int(r.allocated, 0, "%s: no page is still allocated", what);
	is_int(r.leaked, leaked, "%s: %lu leaked", what, leaked);
	is_int(r.free, max_pfn - leaked, "%s: every other page is free in the buddy", what);
	if (!leaked)
		is_int(r.free_by_order[MAX_PAGE_ORDER], max_pfn / MAX_ORDER_NR_PAGES,
		       "%s: the buddy holds max-order blocks again", what);
}

#ifdef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
/*
 * Misaligned chunks corrupt the buddy lists; tests that free runs starting
 * at unaligned pfns cannot go on from there.  test_odd_ranges() asserts
 * that the corruption is caught.
 */
#define SKIP_IN_MISALIGNED_MUTANT(what) do {					\
	ok(1, "%s # SKIP in the contig-misaligned mutant (caught by the odd-range test)", what); \
	return;									\
} while (0)
#else
#define SKIP_IN_MISALIGNED_MUTANT(what) do { } while (0)
#endif

/* --- a split block comes back whole ---------------------------------------- */

static void test_split_block_whole(unsigned int order, gfp_t gfp)
{
	struct page_alloc_report r;
	unsigned long nr = 1UL << order, pfn, refs_ok = 0;

	boot(MEM_8M);
	pfn = split_block(gfp, order);
	for (unsigned long i = 0; i < nr; i++)
		refs_ok += page_ref_count(pfn_to_page(pfn + i)) == 1 && !PageCompound(pfn_to_page(pfn + i));
	is_int(refs_ok, nr, "split_page: each of the %lu pages has its own reference", nr);
	ok(check(&r) == 0 && r.allocated == nr, "order-%u block split: %lu pages allocated", order, nr);
	free_contig_range(pfn, nr);
	ok(check(&r) == 0, "order-%u split block freed: the checker passes", order);
	is_int(r.allocated, 0, "order-%u split block freed: no page left allocated", order);
	is_int(r.free + r.pcp, max_pfn, "order-%u: every page is free (buddy %lu, pcp %lu)", order, r.free, r.pcp);
	diag("%s order %u before draining: %lu pages in blocks of order >= %d, pcp order-0 pages %lu",
	     MM_KERNEL_NAME, order, mm_free_pages_from_order(&r, pageblock_order), pageblock_order,
	     r.pcp_by_order[0]);
#if BATCHED_DESIGN
	is_int(mm_free_pages_from_order(&r, pageblock_order), max_pfn,
	       "batched: before any drain, all free memory sits in blocks of order >= %d", pageblock_order);
#endif
	expect_all_free("split block", 0);
}

/*
 * Where the freed pages of an aligned order-3 split block go on this CPU:
 * eight order-0 pages on the pcp (vanilla), or one order-3 block (the
 * batched designs: one chunk, to the pcp because order 3 is a pcp order).
 */
static void test_chunk_shape(void)
{
	struct page_alloc_report before, after;
	unsigned long pfn;

	boot(MEM_8M);
	pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, 3);
	ok(check(&before) == 0, "order-3 block split");
	free_contig_range(pfn, 8);
	ok(check(&after) == 0, "order-3 split block freed");
	is_int(mm_pcp_block_order(0, pfn), BATCHED_DESIGN ? 3 + 1 : 0 + 1,
	       "its first page is on this CPU's pcp in a block of order %d", BATCHED_DESIGN ? 3 : 0);
#if BATCHED_DESIGN
	is_int(after.pcp_by_order[3] - before.pcp_by_order[3], 1, "batched: one order-3 block more on the pcp");
	is_int(after.pcp_by_order[0] - before.pcp_by_order[0], 0, "batched: no order-0 page more on the pcp");
#else
	is_int(after.pcp_by_order[0] - before.pcp_by_order[0], 8, "vanilla: eight order-0 pages more on the pcp");
	is_int(after.pcp_by_order[3] - before.pcp_by_order[3], 0, "vanilla: no order-3 block more on the pcp");
#endif
	expect_all_free("chunk shape", 0);
}

/* --- odd ranges; catches the contig-misaligned mutant ------------------------- */

struct range {
	unsigned long pfn, nr;
};

static void test_odd_ranges(void)
{
	/*
	 * A partition of [0, 2048), freed out of order: unaligned starts,
	 * odd lengths, runs across a pageblock (512, 1536) and across a
	 * MAX_PAGE_ORDER block (1024) boundary.
	 */
	static const struct range parts[] = {
		{ 11, 501 }, { 1021, 9 }, { 3, 1 }, { 1537, 510 }, { 0, 3 },
		{ 512, 509 }, { 2047, 1 }, { 4, 7 }, { 1030, 507 },
	};
	struct page_alloc_report r;
	unsigned long freed = 0;
	bool sound = true, freed_right = true, held_right = true;

	boot(MEM_16M);
	ok(take_pages(0, 2048), "take pfns [0, 2048) as order-0 pages");
	for (size_t k = 0; k < ARRAY_SIZE(parts); k++) {
		unsigned long pfn = parts[k].pfn, nr = parts[k].nr, left;

		left = __free_contig_range(pfn, nr);
		freed += nr;
		if (left)
			diag("[%lu, +%lu): %lu pages not freed", pfn, nr, left);
		if (check(&r)) {
#ifdef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
			ok(strstr(msg, "not aligned") != NULL,
			   "contig-misaligned mutant caught: freeing [%lu, +%lu) left a misaligned block (%s)",
			   pfn, nr, msg);
			boot(MEM_16M);
			return;
#endif
			sound = false;
			break;
		}
		mm_mark_free_pfns(map);
		if (left || count_free(pfn, nr) != nr) {
			diag("[%lu, +%lu): %lu of %lu pages free", pfn, nr, count_free(pfn, nr), nr);
			freed_right = false;
		}
		if (count_free(0, 2048) != freed || r.allocated != 2048 - freed) {
			diag("after [%lu, +%lu): %lu pages of the range free, %lu freed so far, %lu allocated",
			     pfn, nr, count_free(0, 2048), freed, r.allocated);
			held_right = false;
		}
	}
#ifdef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
	ok(0, "contig-misaligned mutant: misaligned chunks were not caught");
#endif
	ok(sound, "the checker passes after each odd range is freed (blocks aligned, merged, counted)");
	ok(freed_right, "each odd range is freed entirely, and the return value is 0");
	ok(held_right, "pages outside the ranges freed so far stay allocated");
	is_int(count_state(0, 4096, MM_PFN_ALLOCATED), 0, "all 2048 pages of the ranges are free");
	expect_all_free("odd ranges", 0);
}

/* --- referenced pages; catches the contig-free-referenced mutant ------------- */

struct held {
	unsigned int index, extra;	/* page in the range, extra references */
};

/* Are the held pages intact: refcount, contents, allocated, not poisoned? */
static bool held_pages_intact(unsigned long pfn, const struct held *h, size_t n, bool verbose)
{
	bool intact = true;

	mm_mark_free_pfns(map);
	for (size_t k = 0; k < n; k++) {
		unsigned long p = pfn + h[k].index;
		struct page *page = pfn_to_page(p);
		int ref = page_ref_count(page);
		bool tagged = mm_page_has_tag(page, tag_of(p));

		if (ref != (int)h[k].extra || !tagged || map[p] != MM_PFN_ALLOCATED) {
			if (verbose)
				diag("held page %u (pfn %lu): refcount %d (expected %u), contents %s, %s",
				     h[k].index, p, ref, h[k].extra, tagged ? "intact" : "overwritten",
				     map[p] == MM_PFN_ALLOCATED ? "allocated" : "FREE");
			intact = false;
		}
	}
	return intact;
}

static bool is_held(const struct held *h, size_t n, unsigned long index)
{
	for (size_t k = 0; k < n; k++)
		if (h[k].index == index)
			return true;
	return false;
}

static void test_referenced_pages(void)
{
	/* First page, odd pages, chunk boundaries, last page; one held twice. */
	static const struct held held[] = {
		{ 0, 1 }, { 7, 1 }, { 8, 2 }, { 31, 1 }, { 33, 1 }, { 63, 1 },
	};
	const size_t nh = ARRAY_SIZE(held);
	struct page_alloc_report r;
	unsigned long pfn, left;
	bool neighbours_freed = true, poisoned = true;

	SKIP_IN_MISALIGNED_MUTANT("referenced pages");
	boot(MEM_8M);
	page_poisoning_on = true;
	pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, 6);
	for (size_t k = 0; k < nh; k++)
		for (unsigned int e = 0; e < held[k].extra; e++)
			get_page(pfn_to_page(pfn + held[k].index));

	left = __free_contig_range(pfn, 64);
	is_int(left, nh, "__free_contig_range returns the %zu pages still referenced", nh);
#ifdef CONFIG_FREE_CONTIG_MUTANT_FREE_REFERENCED
	ok(!held_pages_intact(pfn, held, nh, true),
	   "contig-free-referenced mutant caught: a page someone still held was freed");
	boot(MEM_8M);
	vm_warn_count = 0;	/* whatever the mutant's state tripped */
	return;
#endif
	ok(held_pages_intact(pfn, held, nh, true),
	   "every referenced page keeps its contents and its other references, and stays allocated");
	for (unsigned long i = 0; i < 64; i++) {
		if (is_held(held, nh, i))
			continue;
		if (map[pfn + i] == MM_PFN_ALLOCATED)
			neighbours_freed = false;
		if (!mm_page_poisoned(pfn_to_page(pfn + i)))
			poisoned = false;
	}
	ok(neighbours_freed, "every unreferenced page of the range is freed");
	ok(poisoned, "with page_poisoning, every freed page is poisoned");
	ok(check(&r) == 0 && r.allocated == nh, "the checker passes and counts %zu pages still allocated", nh);

	/* A range whose every page is held: nothing is freed. */
	get_page(pfn_to_page(pfn + 7));
	get_page(pfn_to_page(pfn + 8));
	is_int(__free_contig_range(pfn + 7, 2), 2, "a range of held pages: none freed, both counted");
	ok(page_ref_count(pfn_to_page(pfn + 7)) == 1 && page_ref_count(pfn_to_page(pfn + 8)) == 2,
	   "and their references are one less each");

	/* free_pages_bulk over the held pages puts one reference each. */
	{
		struct page *arr[nh];

		for (size_t k = 0; k < nh; k++)
			arr[k] = pfn_to_page(pfn + held[k].index);
		free_pages_bulk(arr, nh);
		mm_mark_free_pfns(map);
		ok(map[pfn + 8] == MM_PFN_ALLOCATED && page_ref_count(pfn_to_page(pfn + 8)) == 1 &&
		   mm_page_has_tag(pfn_to_page(pfn + 8), tag_of(pfn + 8)),
		   "free_pages_bulk keeps the page still referenced, intact");
		is_int(count_free(pfn, 64), 63, "and frees the others whose last reference it put");
		ok(mm_page_poisoned(pfn_to_page(pfn + 31)), "freed by free_pages_bulk: poisoned");
		put_page(pfn_to_page(pfn + 8));
		ok(mm_page_poisoned(pfn_to_page(pfn + 8)), "the last put frees and poisons the last page");
	}
	expect_all_free("referenced pages", 0);

	/* The same through free_contig_range(), which warns instead of returning the count. */
	pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, 4);
	get_page(pfn_to_page(pfn + 5));
	fprintf(stderr, "# (a free_contig_range 'still in use' warning below is expected)\n");
	free_contig_range(pfn, 16);
	mm_mark_free_pfns(map);
	ok(count_free(pfn, 16) == 15 && map[pfn + 5] == MM_PFN_ALLOCATED &&
	   page_ref_count(pfn_to_page(pfn + 5)) == 1 && mm_page_has_tag(pfn_to_page(pfn + 5), tag_of(pfn + 5)),
	   "free_contig_range frees 15 of 16 pages and leaves the held one intact");
	put_page(pfn_to_page(pfn + 5));
	expect_all_free("free_contig_range with a held page", 0);
	page_poisoning_on = false;
}

/* --- bad pages are leaked, their neighbours freed ------------------------------ */

enum bad_kind { BAD_MAPPING, BAD_HWPOISON, BAD_FLAG };

static const char *const bad_name[] = { "page->mapping set", "HWPoison", "PG_locked set" };

static void make_bad(struct page *page, enum bad_kind kind)
{
	switch (kind) {
	case BAD_MAPPING:
		page->mapping = (struct address_space *)0x1234;
		break;
	case BAD_HWPOISON:
		SetPageHWPoison(page);
		break;
	case BAD_FLAG:
		set_bit(PG_locked, &page->flags);
		break;
	}
}

static void free_range_with_bad(unsigned long nr, const unsigned int *bad, size_t nbad,
				enum bad_kind kind, bool frozen)
{
	struct page_alloc_report r;
	unsigned long pfn;
	bool others_freed = true, bad_kept = true;
	char what[120];
	int len;

	boot(MEM_8M);
	page_poisoning_on = true;
	len = snprintf(what, sizeof(what), "%s%s at", frozen ? "frozen range, " : "", bad_name[kind]);
	for (size_t k = 0; k < nbad; k++)
		len += snprintf(what + len, sizeof(what) - len, " %u", bad[k]);
	snprintf(what + len, sizeof(what) - len, " of %lu", nr);

	if (frozen) {
		pfn = MAX_ORDER_NR_PAGES;
		if (alloc_contig_frozen_range(pfn, MAX_ORDER_NR_PAGES))
			diag("alloc_contig_frozen_range failed");
		tag_range(pfn, MAX_ORDER_NR_PAGES);
	} else {
		pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, (unsigned int)ilog2(nr));
	}
	for (size_t k = 0; k < nbad; k++)
		make_bad(pfn_to_page(pfn + bad[k]), kind);
	if (frozen)
		__free_contig_frozen_range(pfn, nr);
	else
		is_int(__free_contig_range(pfn, nr), 0, "%s: no page counted as still referenced", what);

	ok(check(&r) == 0, "%s: the checker passes", what);
	is_int(r.leaked, nbad, "%s: the bad page(s) reported leaked", what);
	is_int(r.allocated, frozen ? MAX_ORDER_NR_PAGES - nr : 0, "%s: nothing else left allocated", what);
	mm_mark_free_pfns(map);
	for (unsigned long i = 0; i < nr; i++) {
		bool is_bad = false;

		for (size_t k = 0; k < nbad; k++)
			is_bad |= bad[k] == i;
		if (is_bad) {
			if (map[pfn + i] != MM_PFN_ALLOCATED || !mm_page_has_tag(pfn_to_page(pfn + i), tag_of(pfn + i)))
				bad_kept = false;
		} else if (map[pfn + i] == MM_PFN_ALLOCATED || !mm_page_poisoned(pfn_to_page(pfn + i))) {
			others_freed = false;
		}
	}
	ok(others_freed, "%s: every other page of the range is freed (and poisoned)", what);
	ok(bad_kept, "%s: the bad page is out of use, its contents untouched", what);
	if (frozen)
		__free_contig_frozen_range(pfn + nr, MAX_ORDER_NR_PAGES - nr);
	expect_all_free(what, nbad);
}

static void test_bad_pages(void)
{
	static const unsigned int first[] = { 0 }, odd[] = { 5 }, boundary[] = { 32 },
		last[] = { 63 }, pair[] = { 20, 21 }, scattered[] = { 1, 100, 255, 256 };

	SKIP_IN_MISALIGNED_MUTANT("bad pages");
	fprintf(stderr, "# ('Bad page state' reports below are expected)\n");
	free_range_with_bad(64, first, 1, BAD_MAPPING, false);
	free_range_with_bad(64, odd, 1, BAD_MAPPING, false);
	free_range_with_bad(64, boundary, 1, BAD_HWPOISON, false);
	free_range_with_bad(64, last, 1, BAD_FLAG, false);
	free_range_with_bad(64, pair, 2, BAD_HWPOISON, false);
	free_range_with_bad(512, scattered, 4, BAD_MAPPING, false);
	free_range_with_bad(1024, scattered, 4, BAD_HWPOISON, true);
	free_range_with_bad(1000, odd, 1, BAD_MAPPING, true);
	page_poisoning_on = false;
}

/* --- free_pages_bulk -------------------------------------------------------- */

static int cmp_pfn(const void *a, const void *b)
{
	unsigned long x = page_to_pfn(*(struct page *const *)a);
	unsigned long y = page_to_pfn(*(struct page *const *)b);

	return x < y ? -1 : x > y;
}

static void test_free_pages_bulk(void)
{
	struct page *arr[128], *bulk[40] = { 0 };
	struct page_alloc_report r;
	unsigned long pfn;
	size_t n = 0;

	SKIP_IN_MISALIGNED_MUTANT("free_pages_bulk");
	boot(MEM_8M);
	pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, 5);
	/* ascending, then descending, then unaligned ascending runs, with bulk pages between */
	for (unsigned long i = 0; i < 16; i++)
		arr[n++] = pfn_to_page(pfn + i);
	for (unsigned long i = 20; i >= 18; i--)
		arr[n++] = pfn_to_page(pfn + i);
	is_int(alloc_pages_bulk(GFP_KERNEL, 40, bulk), 40, "40 pages from alloc_pages_bulk");
	for (int i = 0; i < 40; i++)
		arr[n++] = bulk[i];
	arr[n++] = pfn_to_page(pfn + 16);
	arr[n++] = pfn_to_page(pfn + 17);
	for (unsigned long i = 21; i < 32; i++)
		arr[n++] = pfn_to_page(pfn + i);
	ok(check(&r) == 0 && r.allocated == n, "%zu pages allocated", n);
	free_pages_bulk(arr, n);
	ok(check(&r) == 0, "free_pages_bulk of mixed runs: the checker passes");
	is_int(r.allocated, 0, "free_pages_bulk frees every page of the array");

	/* A sorted array of one long run, unaligned at both ends. */
	pfn = split_block(GFP_KERNEL | __GFP_MOVABLE, 7);
	for (n = 0; n < 125; n++)
		arr[n] = pfn_to_page(pfn + 2 + n);
	free_pages_bulk(arr, n);
	ok(check(&r) == 0 && r.allocated == 3, "a run [2, 127) of 128 pages: all of it freed");
	__free_page(pfn_to_page(pfn));
	__free_page(pfn_to_page(pfn + 1));
	__free_page(pfn_to_page(pfn + 127));
	expect_all_free("free_pages_bulk", 0);
}

/* --- compound pages given to free_contig_range -------------------------------- */

static void test_contig_range_folio(void)
{
	struct page_alloc_report r;
	struct page *page;

	boot(MEM_8M);
	page = alloc_pages(GFP_KERNEL | __GFP_COMP, 3);
	fprintf(stderr, "# (a free_contig_range warning about part of a folio below is expected)\n");
	free_contig_range(page_to_pfn(page), 4);
	ok(check(&r) == 0 && r.allocated == 8 && PageHead(page) && page_ref_count(page) == 1,
	   "free_contig_range of half a folio frees nothing");
	free_contig_range(page_to_pfn(page), 8);
	ok(check(&r) == 0 && r.allocated == 0, "free_contig_range of a whole folio frees it");
	expect_all_free("folio", 0);
}

/* --- memory exhaustion --------------------------------------------------------- */

static void test_exhaustion(void)
{
	static struct page *pages[2048];
	struct page_alloc_report r;
	struct page *big[4];
	size_t n = 0;
	bool distinct = true;

	boot(MEM_8M);
	while (n < ARRAY_SIZE(pages) &&
	       (pages[n] = alloc_pages((n & 1) ? GFP_KERNEL : GFP_KERNEL | __GFP_MOVABLE, 0)))
		n++;
	is_int(n, max_pfn, "order-0 allocations get every page of the machine");
	ok(alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0) == NULL, "then an order-0 allocation returns NULL");
	ok(alloc_pages(GFP_KERNEL, 3) == NULL, "and so does an order-3 one");
	{
		struct page *arr[8] = { 0 };

		is_int(alloc_pages_bulk(GFP_KERNEL, 8, arr), 0, "and alloc_pages_bulk fills no slot");
		ok(arr[0] == NULL, "slot 0 stays NULL");
	}
	qsort(pages, n, sizeof(pages[0]), cmp_pfn);
	for (size_t i = 1; i < n; i++)
		distinct &= pages[i] != pages[i - 1];
	ok(distinct, "no page was handed out twice");
	ok(check(&r) == 0 && r.allocated == max_pfn && r.free == 0 && r.pcp == 0 && r.leaked == 0,
	   "all allocated, none free, none leaked");
	free_pages_bulk(pages, n);
	ok(check(&r) == 0 && r.allocated == 0 && r.leaked == 0, "free_pages_bulk of the whole machine frees it all");
	expect_all_free("exhaustion, order 0", 0);

	big[0] = alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER);
	big[1] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, MAX_PAGE_ORDER);
	ok(big[0] && big[1], "two max-order blocks");
	ok(alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER) == NULL && alloc_pages(GFP_KERNEL, 0) == NULL,
	   "then nothing more, at any order");
	split_page(big[0], MAX_PAGE_ORDER);
	free_contig_range(page_to_pfn(big[0]), MAX_ORDER_NR_PAGES);
	__free_pages(big[1], MAX_PAGE_ORDER);
	expect_all_free("exhaustion, max order", 0);

	for (n = 0; n < 4; n++)
		big[n] = alloc_pages(GFP_KERNEL | __GFP_COMP, pageblock_order);
	ok(big[0] && big[1] && big[2] && big[3], "four pageblock-order folios");
	ok(alloc_pages(GFP_KERNEL | __GFP_COMP, pageblock_order) == NULL, "and no fifth");
	ok(check(&r) == 0 && r.allocated == max_pfn, "every page allocated");
	for (n = 0; n < 4; n++)
		folio_put(page_folio(big[n]));
	expect_all_free("exhaustion, pageblock order", 0);
}

/* --- alloc_pages_bulk -------------------------------------------------------- */

static bool in_array(struct page *const *arr, size_t n, const struct page *page, size_t skip)
{
	for (size_t i = 0; i < n; i++)
		if (i != skip && arr[i] == page)
			return true;
	return false;
}

/* Check an array after alloc_pages_bulk: returns the number of new pages. */
static unsigned long check_bulk(struct page **arr, size_t n, struct page **before, unsigned long ret,
				const char *what)
{
	unsigned long fresh = 0;
	bool prefill_kept = true, new_ok = true, prefix = true;

	mm_mark_free_pfns(map);
	for (size_t i = 0; i < n; i++) {
		if (before[i]) {
			prefill_kept &= arr[i] == before[i];
			continue;
		}
		if (!arr[i])
			continue;
		fresh++;
		if (page_ref_count(arr[i]) != 1 || PageCompound(arr[i]) ||
		    map[page_to_pfn(arr[i])] != MM_PFN_ALLOCATED || in_array(arr, n, arr[i], i))
			new_ok = false;
	}
	for (size_t i = 0; i < ret && i < n; i++)
		prefix &= arr[i] != NULL;
	ok(prefill_kept, "%s: pre-filled slots are left as they were", what);
	ok(new_ok, "%s: each new page is allocated, order 0, refcount 1, in one slot only", what);
	ok(ret <= n && prefix, "%s: returned %lu, and the first %lu slots are filled", what, ret, ret);
	return fresh;
}

/* Allocate movable order-0 pages until none is left; returns how many. */
static size_t fill_memory_movable(struct page **pages, size_t max)
{
	size_t n = 0;

	while (n < max && (pages[n] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0)))
		n++;
	return n;
}

static void test_alloc_pages_bulk(void)
{
	static struct page *all[2048];
	struct page *arr[100], *before[100];
	struct page_alloc_report r;
	unsigned long ret, fresh;
	size_t n;

	boot(MEM_8M);
	memset(arr, 0, sizeof(arr));
	arr[0] = alloc_page(GFP_KERNEL);
	arr[5] = alloc_page(GFP_KERNEL);
	arr[63] = alloc_page(GFP_KERNEL);
	memcpy(before, arr, sizeof(arr));
	ret = alloc_pages_bulk(GFP_KERNEL, 64, arr);
	is_int(ret, 64, "alloc_pages_bulk fills a 64-slot array with 3 slots pre-filled");
	is_int(check_bulk(arr, 64, before, ret, "64 slots"), 61, "61 new pages");
	ok(check(&r) == 0 && r.allocated == 64, "the checker counts 64 pages allocated");
	ret = alloc_pages_bulk(GFP_KERNEL, 64, arr);
	is_int(ret, 64, "a full array: alloc_pages_bulk returns its size");
	ok(check(&r) == 0 && r.allocated == 64, "and allocates nothing");
	qsort(arr, 64, sizeof(arr[0]), cmp_pfn);
	free_pages_bulk(arr, 64);

	memset(arr, 0, sizeof(arr));
	arr[0] = alloc_page(GFP_KERNEL);
	memcpy(before, arr, sizeof(arr));
	ret = alloc_pages_bulk(GFP_KERNEL, 2, arr);
	is_int(ret, 2, "one empty slot: filled by the single-page path");
	check_bulk(arr, 2, before, ret, "one empty slot");
	__free_page(arr[0]);
	__free_page(arr[1]);
	expect_all_free("alloc_pages_bulk", 0);

	/*
	 * Memory runs out part-way: the array is filled as far as memory
	 * goes.  (A fresh machine: every pageblock movable, so the freed
	 * pages are on the movable pcp list the request uses.)
	 */
	boot(MEM_8M);
	n = fill_memory_movable(all, ARRAY_SIZE(all));
	is_int(n, max_pfn, "all memory allocated as movable order-0 pages");
	for (size_t i = 0; i < 40; i++)
		__free_page(all[--n]);
	memset(arr, 0, sizeof(arr));
	for (int i = 0; i < 3; i++)
		arr[i] = all[--n];
	arr[50] = all[--n];
	memcpy(before, arr, sizeof(arr));
	ret = alloc_pages_bulk(GFP_KERNEL | __GFP_MOVABLE, 100, arr);
	fresh = check_bulk(arr, 100, before, ret, "40 pages left");
	is_int(fresh, 40, "partial fill: the 40 free pages are all handed out");
	is_int(ret, 43, "and it returns 43: the 3 pre-filled slots and 40 new ones");
	ok(arr[43] == NULL, "slot 43 stays empty");
	is_int(free_pages_all(), 0, "memory is exhausted now");
	for (size_t i = 0; i < 100; i++)
		if (arr[i])
			__free_page(arr[i]);
	while (n)
		__free_page(all[--n]);
	expect_all_free("alloc_pages_bulk, partial fill", 0);

	/*
	 * Nothing in the buddy, nothing on this CPU's pcp list of the
	 * requested type, but pages on its pcp list of another type: the
	 * batch loop gets nothing, and must then try one page through the
	 * normal allocator, which drains and finds them.  The kernel does so
	 * whether or not some slots were pre-filled: it tests how many pages
	 * the batch allocated (nr_account), not how many slots are populated
	 * (Mel Gorman's fix "mm/page_alloc: always attempt to allocate at
	 * least one page during bulk allocation", 2021, Cc stable 5.13+).
	 */
	for (int prefilled = 0; prefilled <= 1; prefilled++) {
		const char *what = prefilled ? "unmovable bulk, slot 0 pre-filled" : "unmovable bulk, no slot pre-filled";

		boot(MEM_8M);
		n = fill_memory_movable(all, ARRAY_SIZE(all));
		for (int i = 0; i < 10; i++)
			__free_page(all[--n]);
		ok(check(&r) == 0 && r.free == 0 && r.pcp == 10 && r.pcp_by_order[0] == 10,
		   "%s: buddy empty, 10 movable pages on this CPU's pcp", what);
		memset(arr, 0, sizeof(arr));
		if (prefilled)
			arr[0] = all[--n];
		memcpy(before, arr, sizeof(arr));
		ret = alloc_pages_bulk(GFP_KERNEL, 4, arr);
		fresh = check_bulk(arr, 4, before, ret, what);
		ok(fresh >= 1, "%s: the batch got nothing, one page is still tried the normal way (got %lu, returned %lu)",
		   what, fresh, ret);
		for (int i = 0; i < 4; i++)
			if (arr[i])
				__free_page(arr[i]);
		while (n)
			__free_page(all[--n]);
		expect_all_free(what, 0);
	}
}

/* --- alloc_contig_frozen_range / __free_contig_frozen_range -------------------- */

static void test_frozen_range(void)
{
	struct page_alloc_report r, before;
	struct page *page;
	unsigned long block, pfn;
	bool frozen = true;

	boot(MEM_16M);
	is_int(alloc_contig_frozen_range(1, MAX_ORDER_NR_PAGES), -EINVAL, "misaligned pfn: -EINVAL");
	is_int(alloc_contig_frozen_range(pageblock_nr_pages, MAX_ORDER_NR_PAGES), -EINVAL,
	       "pageblock-aligned only: -EINVAL");
	is_int(alloc_contig_frozen_range(0, 1000), -EINVAL, "length not whole blocks: -EINVAL");
	is_int(alloc_contig_frozen_range(0, 0), -EINVAL, "empty range: -EINVAL");
	is_int(alloc_contig_frozen_range(max_pfn - MAX_ORDER_NR_PAGES, 2 * MAX_ORDER_NR_PAGES), -EINVAL,
	       "past the end: -EINVAL");
	ok(check(&r) == 0 && r.free == max_pfn, "nothing taken by the refusals");

	page = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
	block = page_to_pfn(page) & ~(MAX_ORDER_NR_PAGES - 1);
	drain_all_pages(&contig_zone);
	ok(check(&before) == 0, "one page allocated, in the block at pfn %lu", block);
	is_int(alloc_contig_frozen_range(block, MAX_ORDER_NR_PAGES), -EBUSY, "its block: -EBUSY");
	is_int(alloc_contig_frozen_range(block & ~(2 * MAX_ORDER_NR_PAGES - 1), 2 * MAX_ORDER_NR_PAGES), -EBUSY,
	       "two blocks, one with an allocated page: -EBUSY");
	is_int(alloc_contig_frozen_range(0, max_pfn), -EBUSY, "the whole machine: -EBUSY");
	ok(check(&r) == 0 && r.allocated == 1 && r.free == before.free &&
	   r.free_by_order[MAX_PAGE_ORDER] == before.free_by_order[MAX_PAGE_ORDER],
	   "-EBUSY takes nothing: the free blocks are as they were");

	__free_page(page);
	ok(mm_pcp_block_order(0, page_to_pfn(page)) != 0, "the page is freed onto this CPU's pcp");
	is_int(alloc_contig_frozen_range(block, MAX_ORDER_NR_PAGES), 0,
	       "pages on a pcp are free: the range is drained and taken");
	for (unsigned long i = 0; i < MAX_ORDER_NR_PAGES; i++) {
		struct page *p = pfn_to_page(block + i);

		frozen &= page_ref_count(p) == 0 && !PageBuddy(p) && !PageCompound(p);
	}
	ok(frozen, "every page of the range is frozen (refcount 0), not a buddy page, not compound");
	ok(check(&r) == 0 && r.allocated == MAX_ORDER_NR_PAGES && r.pcp == 0,
	   "the checker counts the range allocated");
	page_poisoning_on = true;
	tag_range(block, MAX_ORDER_NR_PAGES);
	__free_contig_frozen_range(block, MAX_ORDER_NR_PAGES);
	ok(check(&r) == 0 && r.allocated == 0, "__free_contig_frozen_range frees the whole range");
	ok(mm_page_poisoned(pfn_to_page(block)) && mm_page_poisoned(pfn_to_page(block + 777)),
	   "frozen pages freed are poisoned");
#ifdef CONFIG_CONTIG_BULK
	is_int(mm_free_pages_from_order(&r, pageblock_order), max_pfn,
	       "bulk: the frozen range is freed as high-order chunks, before any drain");
#endif
	page_poisoning_on = false;
	expect_all_free("frozen range", 0);

	/* Two blocks, freed in odd pieces. */
	SKIP_IN_MISALIGNED_MUTANT("frozen range freed in odd pieces");
	pfn = 2 * MAX_ORDER_NR_PAGES;
	is_int(alloc_contig_frozen_range(pfn, 2 * MAX_ORDER_NR_PAGES), 0, "take two blocks frozen");
	{
		static const struct range parts[] = {
			{ 5, 100 }, { 1023, 2 }, { 0, 5 }, { 105, 918 }, { 1025, 1023 },
		};
		bool sound = true, freed_right = true;
		unsigned long freed = 0;

		for (size_t k = 0; k < ARRAY_SIZE(parts); k++) {
			__free_contig_frozen_range(pfn + parts[k].pfn, parts[k].nr);
			freed += parts[k].nr;
			sound &= check(&r) == 0;
			mm_mark_free_pfns(map);
			freed_right &= count_free(pfn + parts[k].pfn, parts[k].nr) == parts[k].nr &&
				       r.allocated == 2 * MAX_ORDER_NR_PAGES - freed;
		}
		ok(sound, "frozen pieces freed: the checker passes after each");
		ok(freed_right, "each piece is freed entirely, the rest stays allocated");
	}
	expect_all_free("frozen range in pieces", 0);
}

/* --- runs across a memory section boundary ----------------------------------------- */

static void test_section_boundary(void)
{
	const unsigned long sec = PAGES_PER_SECTION, start = sec - MAX_ORDER_NR_PAGES;
	struct page_alloc_report r;

	boot(2 * PAGES_PER_SECTION * PAGE_SIZE);
	is_int(max_pfn, 2 * sec, "a machine of two memory sections");
	is_int(alloc_contig_frozen_range(start, 2 * MAX_ORDER_NR_PAGES), 0,
	       "take the two blocks around the section boundary, frozen");
	__free_contig_frozen_range(start, 2 * MAX_ORDER_NR_PAGES);
	ok(check(&r) == 0 && r.allocated == 0, "a frozen range across the section boundary is freed whole");

	SKIP_IN_MISALIGNED_MUTANT("section boundary, odd range");
	ok(take_pages(start, 2 * MAX_ORDER_NR_PAGES), "take them again as order-0 pages");
	is_int(__free_contig_range(sec - 37, 100), 0, "free [boundary - 37, boundary + 63)");
	mm_mark_free_pfns(map);
	ok(check(&r) == 0 && count_free(sec - 37, 100) == 100 && r.allocated == 2048 - 100,
	   "the run across the boundary is freed entirely");
	is_int(__free_contig_range(start, MAX_ORDER_NR_PAGES - 37), 0, "free the rest below");
	is_int(__free_contig_range(sec + 63, MAX_ORDER_NR_PAGES - 63), 0, "and above");
	expect_all_free("section boundary", 0);
}

int main(void)
{
	plan_no_plan();
	machine_init();
	diag("design %s", MM_KERNEL_NAME);
	test_split_block_whole(pageblock_order, GFP_KERNEL | __GFP_MOVABLE);
	test_split_block_whole(pageblock_order, GFP_KERNEL);
	test_split_block_whole(MAX_PAGE_ORDER, GFP_KERNEL | __GFP_MOVABLE);
	test_chunk_shape();
	test_odd_ranges();
	test_referenced_pages();
	test_bad_pages();
	test_free_pages_bulk();
	test_contig_range_folio();
	test_exhaustion();
	test_alloc_pages_bulk();
	test_frozen_range();
	test_section_boundary();
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	free(map);
	return done_testing();
}
