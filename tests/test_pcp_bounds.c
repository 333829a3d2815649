/*
 * The per-CPU lists at their exact boundaries (issue 23, item 14): the
 * spill trigger (count against high), how much a spill frees
 * (nr_pcp_free()'s clamp of free_count between batch and high - batch),
 * how high moves (nr_pcp_high(): raised to free_count + batch within
 * [high_min, high_max], dropped by a bulk high-order free), the cap of
 * free_count, and how much a refill takes (nr_pcp_alloc(): the disabled
 * pageset, alloc_factor's growth and cap, high's growth, the high-order
 * refill's max(batch >> order, 2)); and which orders the lists keep at
 * all.  Each boundary is asserted one below, at and one above it.
 *
 * Each case starts from empty lists and sets the pcp's tunables itself
 * (batch, high_min, high_max, high, free_count, alloc_factor, flags), so
 * the numbers below are the kernel's arithmetic on those values, not the
 * boot's sizing.  The test runs on one CPU: every trylock succeeds.
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM	(64ULL << 20)	/* 16384 pages, 32 pageblocks */
#define MOVABLE	(GFP_KERNEL | __GFP_MOVABLE)

static struct per_cpu_pages *pcp;

/* Blocks this test owns, by order, to free onto the lists. */
#define OWN_MAX	600
static struct page *own[PAGE_ALLOC_COSTLY_ORDER + 1][OWN_MAX];
static int nr_own[PAGE_ALLOC_COSTLY_ORDER + 1];

static void boot(void)
{
	ok(mem_init(MEM) == 0, "boot 64 MiB");
	pcp = &contig_zone.per_cpu_pageset[smp_processor_id()];
	memset(nr_own, 0, sizeof(nr_own));
}

/* Empty every list, then give the pcp these tunables and a clean history. */
static void tune(int batch, int high_min, int high_max, int high)
{
	drain_all_pages(&contig_zone);
	pcp->batch = batch;
	pcp->high_min = high_min;
	pcp->high_max = high_max;
	pcp->high = high;
	pcp->free_count = 0;
	pcp->alloc_factor = 0;
	pcp->flags = PCPF_FREE_HIGH_BATCH;
}

/* Own @n more blocks of @order; the lists are left empty. */
static void take(unsigned int order, int n)
{
	for (int i = 0; i < n; i++) {
		struct page *page = alloc_pages(MOVABLE, order);

		if (!page || nr_own[order] == OWN_MAX) {
			printf("Bail out! cannot own %d order-%u blocks\n", n, order);
			exit(1);
		}
		own[order][nr_own[order]++] = page;
	}
	drain_all_pages(&contig_zone);
}

/* Free one owned block of @order; returns the pages the pcp gave to the buddy meanwhile. */
static int put(unsigned int order)
{
	int before = pcp->count;

	if (!nr_own[order]) {
		printf("Bail out! no order-%u block left to free\n", order);
		exit(1);
	}
	__free_pages(own[order][--nr_own[order]], order);
	return before + (1 << order) - pcp->count;
}

/* Free owned order-0 pages onto the list until it holds @n (high must be above @n). */
static void fill(int n)
{
	while (pcp->count < n)
		if (put(0)) {
			printf("Bail out! the pcp spilled while filling to %d\n", n);
			exit(1);
		}
}

/* Give every owned block back and empty the lists. */
static void give_back(void)
{
	for (unsigned int o = 0; o <= PAGE_ALLOC_COSTLY_ORDER; o++)
		while (nr_own[o])
			__free_pages(own[o][--nr_own[o]], o);
	drain_all_pages(&contig_zone);
}

/*
 * The spill trigger: a free that brings count to high spills, one that
 * leaves it below does not, and one past a high lowered under it spills.
 *
 *   batch 4, high 16 (fixed), free_count 0 before each free:
 *     count 14 --free--> 15          below high: kept
 *     count 15 --free--> 16 = high   spill clamp(1, 4, 12) = 4  -> 12
 *   high lowered to 12 (fixed):
 *     count 12 --free--> 13 > high   spill clamp(1, 4, 8) = 4   -> 9
 */
static void test_spill_trigger(void)
{
	take(0, 20);
	tune(4, 16, 16, 16);
	fill(14);
	pcp->free_count = 0;
	is_int(put(0), 0, "count 15, one below high 16: nothing spills");
	pcp->free_count = 0;
	is_int(put(0), 4, "count reaches high 16: a batch (4) spills");
	is_int(pcp->count, 12, "... leaving 12");
	pcp->high = pcp->high_min = pcp->high_max = 12;
	pcp->free_count = 0;
	is_int(put(0), 4, "count 13, one above high 12: a batch spills");
	is_int(pcp->count, 9, "... leaving 9");
	give_back();
}

/*
 * How much a spill frees: free_count (this free included) clamped to
 * [batch, high - batch].
 *
 *   batch 8, high 64 (fixed); count 63 --free--> 64:
 *     free_count  7   8   9  55  56  57
 *     spilled     8   8   9  55  56  56
 */
static void test_spill_size(void)
{
	static const int fc[] = { 7, 8, 9, 55, 56, 57 };
	static const int want[] = { 8, 8, 9, 55, 56, 56 };

	for (size_t i = 0; i < ARRAY_SIZE(fc); i++) {
		take(0, 64);
		tune(8, 64, 64, 64);
		fill(63);
		pcp->free_count = (short)(fc[i] - 1);
		is_int(put(0), want[i], "free_count %d at high 64, batch 8: %d pages spill", fc[i],
		       want[i]);
		give_back();
	}
}

/*
 * How high moves while a CPU frees (high_min 16, high_max 64, batch 4).
 * Reaching high raises it to free_count + batch when that is more, within
 * [high_min, high_max]; the spill is sized by the old high.
 *
 *   high 20: count 18 --free--> 19, free_count 31     high stays 20, no spill
 *   high 20: count 19 --free--> 20, free_count f:
 *     f  16 -> 16 + 4 = 20 = high: stays 20    spill clamp(16, 4, 16) = 16
 *     f  17 -> 21: high 21                     spill 16
 *     f  20 -> 24: high 24                     spill 16
 *   high 60: count 59 --free--> 60, free_count f:
 *     f  59 -> 63: high 63;  f 60 -> 64 = high_max: 64;  f 61 -> 65: capped at 64
 *   high set outside [16, 64] is clamped back on the next free:
 *     15 -> 16, 16 -> 16, 65 -> 64
 */
static void high_case(int high, int count, int fc, int want_high, int want_spill, const char *what)
{
	take(0, count + 1);
	tune(4, 16, 64, high);
	fill(count);
	pcp->free_count = (short)(fc - 1);
	is_int(put(0), want_spill, "%s: %d pages spill", what, want_spill);
	is_int(pcp->high, want_high, "%s: high %d", what, want_high);
	give_back();
}

static void test_high_tuning(void)
{
	high_case(20, 18, 31, 20, 0, "count 19 below high 20, free_count 31");
	high_case(20, 19, 16, 20, 16, "count reaches high 20, free_count + batch = 20");
	high_case(20, 19, 17, 21, 16, "count reaches high 20, free_count + batch = 21");
	high_case(20, 19, 20, 24, 16, "count reaches high 20, free_count + batch = 24");
	high_case(60, 59, 59, 63, 56, "count reaches high 60, free_count + batch = 63 (max 64)");
	high_case(60, 59, 60, 64, 56, "count reaches high 60, free_count + batch = 64 = max");
	high_case(60, 59, 61, 64, 56, "count reaches high 60, free_count + batch = 65 > max");
	high_case(15, 4, 1, 16, 0, "high 15, below high_min 16");
	high_case(16, 4, 1, 16, 0, "high 16, at high_min");
	high_case(65, 4, 1, 64, 0, "high 65, above high_max 64");
}

/*
 * A bulk free of small high orders (1..PAGE_ALLOC_COSTLY_ORDER) empties the
 * lists and lowers high: when the previous free was such an order too,
 * free_count (before this free) >= batch + high_min / 2, and with
 * PCPF_FREE_HIGH_BATCH the count (after it) >= batch.
 *
 *   batch 4, high_min 16, high 64 (max 64): threshold free_count 4 + 8 = 12
 *   count 6 (order-1 blocks), previous free order 1, free one order-1 block:
 *     free_count 11: kept (count 8)      12, 13: all 8 spill, high -> 16
 *   previous free order 0 (flag clear), free_count 20: kept
 *   with PCPF_FREE_HIGH_BATCH, count before an order-1 free (free_count 20):
 *     1 -> 3 < batch: kept;   2 -> 4 = batch: spill;   3 -> 5: spill
 *   without it, count 0 -> 2: spill
 *   order 3 (the costly order), free_count 20, count 0 -> 8: spill
 *   order 0 never: free_count 20, count 7 -> 8 kept, and the flag is cleared
 */
static void free_high_case(unsigned int order, int order0, int order1, unsigned char flags, int fc,
			   int want_spill, const char *what)
{
	take(0, order0 + 1);
	take(1, order1 + 1);
	if (order > 1)
		take(order, 1);
	tune(4, 16, 64, 64);
	fill(order0);
	for (int i = 0; i < order1; i++)
		put(1);
	pcp->flags = flags;
	pcp->free_count = (short)fc;
	is_int(put(order), want_spill, "%s: %d pages spill", what, want_spill);
	if (want_spill) {
		is_int(pcp->count, 0, "%s: the lists are empty", what);
		is_int(pcp->high, 16, "%s: high drops to high_min", what);
	} else {
		is_int(pcp->high, 64, "%s: high stays 64", what);
	}
	give_back();
}

static void test_free_high(void)
{
	const unsigned char both = PCPF_PREV_FREE_HIGH_ORDER | PCPF_FREE_HIGH_BATCH;

	free_high_case(1, 0, 3, both, 11, 0, "order 1 after order 1, free_count 11");
	free_high_case(1, 0, 3, both, 12, 8, "order 1 after order 1, free_count 12");
	free_high_case(1, 0, 3, both, 13, 8, "order 1 after order 1, free_count 13");
	free_high_case(1, 0, 3, PCPF_FREE_HIGH_BATCH, 20, 0, "order 1 after order 0, free_count 20");
	free_high_case(1, 1, 0, both, 20, 0, "batch flag, count 1 -> 3");
	free_high_case(1, 2, 0, both, 20, 4, "batch flag, count 2 -> 4");
	free_high_case(1, 3, 0, both, 20, 5, "batch flag, count 3 -> 5");
	free_high_case(1, 0, 0, PCPF_PREV_FREE_HIGH_ORDER, 20, 2, "no batch flag, count 0 -> 2");
	free_high_case(3, 0, 0, both, 20, 8, "order 3 after a small high order, count 0 -> 8");
	free_high_case(0, 7, 0, both, 20, 0, "order 0, free_count 20");
	/* An order-0 free clears the flag. */
	take(0, 2);
	tune(4, 16, 64, 64);
	pcp->flags = PCPF_PREV_FREE_HIGH_ORDER | PCPF_FREE_HIGH_BATCH;
	put(0);
	ok(!(pcp->flags & PCPF_PREV_FREE_HIGH_ORDER), "an order-0 free clears PCPF_PREV_FREE_HIGH_ORDER");
	give_back();
}

/*
 * free_count grows by the pages freed until it reaches batch << 5 (128
 * with batch 4), then stops; a free that starts below the cap may pass it.
 *
 *   high 1000 (nothing spills), count 0:
 *     free_count 126 --order 0--> 127;  127 -> 128;  128 -> 128;  127 --order 1--> 129
 */
static void cap_case(unsigned int order, int fc, int want)
{
	take(order, 1);
	tune(4, 1000, 1000, 1000);
	pcp->free_count = (short)fc;
	put(order);
	is_int(pcp->free_count, want, "free_count %d, an order-%u free: %d", fc, order, want);
	give_back();
}

static void test_free_count_cap(void)
{
	cap_case(0, 126, 127);
	cap_case(0, 127, 128);
	cap_case(0, 128, 128);
	cap_case(1, 127, 129);
}

/*
 * How many blocks an order-0 refill takes (the list is empty; one block
 * is handed out, the rest stays: count = refill - 1).
 *
 *   batch 4, high fixed:  high 3 < batch: 1 (the disabled pageset)
 *                         high 4: 4, alloc_factor 0 -> 1;  high 5: 4
 *   batch 4, alloc_factor 2 (16 wanted), high fixed H: room H - count - batch
 *     H 19: room 15: 15, factor stays 2;  H 20: 16, factor -> 3;  H 21: 16, -> 3
 *   the same with count 4 already on the order-1 list (room H - 4 - 4):
 *     H 23: 15, stays 2;  H 24: 16, -> 3
 *   alloc_factor's cap, 5: factor 4 (64), high 1000: 64, -> 5;  factor 5 (128): 128, stays 5
 *   high_min 16, high_max 64: high grows by the refill's batch, up to high_max:
 *     high 59 -> 63;  60 -> 64;  61 -> 64
 */
static void refill_case(int batch, int high_min, int high_max, int high, int factor, int order1,
			int want_count, int want_factor, int want_high, const char *what)
{
	take(1, order1 + 1);
	tune(batch, high_min, high_max, high);
	for (int i = 0; i < order1; i++)
		put(1);
	pcp->alloc_factor = (unsigned char)factor;
	own[0][nr_own[0]++] = alloc_pages(MOVABLE, 0);
	is_int(pcp->count - 2 * order1, want_count, "%s: the refill leaves %d pages", what, want_count);
	is_int(pcp->alloc_factor, want_factor, "%s: alloc_factor %d", what, want_factor);
	is_int(pcp->high, want_high, "%s: high %d", what, want_high);
	give_back();
}

static void test_refill_order0(void)
{
	refill_case(4, 3, 3, 3, 0, 0, 0, 0, 3, "batch 4, high 3");
	refill_case(4, 4, 4, 4, 0, 0, 3, 1, 4, "batch 4, high 4");
	refill_case(4, 5, 5, 5, 0, 0, 3, 1, 5, "batch 4, high 5");
	refill_case(4, 19, 19, 19, 2, 0, 14, 2, 19, "factor 2, high 19");
	refill_case(4, 20, 20, 20, 2, 0, 15, 3, 20, "factor 2, high 20");
	refill_case(4, 21, 21, 21, 2, 0, 15, 3, 21, "factor 2, high 21");
	refill_case(4, 23, 23, 23, 2, 2, 14, 2, 23, "factor 2, count 4, high 23");
	refill_case(4, 24, 24, 24, 2, 2, 15, 3, 24, "factor 2, count 4, high 24");
	refill_case(4, 1000, 1000, 1000, 4, 0, 63, 5, 1000, "factor 4, high 1000");
	refill_case(4, 1000, 1000, 1000, 5, 0, 127, 5, 1000, "factor 5, high 1000");
	refill_case(4, 16, 64, 59, 0, 0, 3, 1, 63, "high 59 of 16..64");
	refill_case(4, 16, 64, 60, 0, 0, 3, 1, 64, "high 60 of 16..64");
	refill_case(4, 16, 64, 61, 0, 0, 3, 1, 64, "high 61 of 16..64");
}

/*
 * A high-order refill takes max(batch >> order, 2) blocks when batch > 1,
 * one block otherwise, and never scales by alloc_factor.
 *
 *   order 1:  batch 1: 1;  2 (>>1 = 1): 2;  4 (2): 2;  6 (3): 3
 *   order 3:  batch 8 (1): 2;  16 (2): 2;  24 (3): 3
 *   order 1, batch 4, alloc_factor 3: still 2
 *   order 9 (pageblock), batch 4: 2
 */
static void hi_refill_case(unsigned int order, int batch, int factor, int want_blocks)
{
	struct page *page;
	long pages;

	tune(batch, 1000, 1000, 1000);
	pcp->alloc_factor = (unsigned char)factor;
	page = alloc_pages(MOVABLE, order);
	pages = (long)(want_blocks - 1) << order;
	is_int(pcp->count, pages, "order %u, batch %d, alloc_factor %d: %d blocks taken, one handed out",
	       order, batch, factor, want_blocks);
	__free_pages(page, order);
	drain_all_pages(&contig_zone);
}

static void test_refill_high_order(void)
{
	hi_refill_case(1, 1, 0, 1);
	hi_refill_case(1, 2, 0, 2);
	hi_refill_case(1, 4, 0, 2);
	hi_refill_case(1, 6, 0, 3);
	hi_refill_case(3, 8, 0, 2);
	hi_refill_case(3, 16, 0, 2);
	hi_refill_case(3, 24, 0, 3);
	hi_refill_case(1, 4, 3, 2);
	hi_refill_case(pageblock_order, 4, 0, 2);
}

/*
 * Which orders the lists keep: 0..PAGE_ALLOC_COSTLY_ORDER (3) and
 * pageblock_order (9); 4, 8 and MAX_PAGE_ORDER (10) go to and come from
 * the buddy directly.
 *
 *   batch 4, high 5000, empty lists; allocate one block of each order:
 *     order   3    4    8    9   10
 *     pcp     8    0    0  512    0     (two blocks refilled, one handed out)
 *   then free it back:   +8   +0   +0 +512   +0
 */
static void test_pcp_orders(void)
{
	static const unsigned int orders[] = { 3, 4, 8, 9, 10 };

	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		unsigned int order = orders[i];
		bool kept = pcp_allowed_order(order);
		struct page *page;
		int before;

		tune(4, 5000, 5000, 5000);
		page = alloc_pages(MOVABLE, order);
		is_int(pcp->count, kept ? 1 << order : 0, "order %u: %s", order,
		       kept ? "refilled onto the pcp, one block kept there" : "taken from the buddy");
		before = pcp->count;
		__free_pages(page, order);
		is_int(pcp->count - before, kept ? 1 << order : 0, "order %u: freed %s", order,
		       kept ? "onto the pcp" : "to the buddy");
		drain_all_pages(&contig_zone);
	}
	ok(pcp_allowed_order(3) && !pcp_allowed_order(4) && !pcp_allowed_order(8) &&
	   pcp_allowed_order(9) && !pcp_allowed_order(10),
	   "pcp_allowed_order: 3 and 9 yes, 4, 8 and 10 no");
}

int main(void)
{
	struct page_alloc_report r;

	plan_no_plan();
	machine_init();
	boot();
	test_spill_trigger();
	test_spill_size();
	test_high_tuning();
	test_free_high();
	test_free_count_cap();
	test_refill_order0();
	test_refill_high_order();
	test_pcp_orders();
	ok(mm_alloc_check(&r) == 0 && r.allocated == 0 && r.pcp == 0,
	   "every page is back in the buddy and the allocator is sound");
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
