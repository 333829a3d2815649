/*
 * The chunk orders in which each design frees a contiguous range of
 * order-0 pages (issue 23, item 14), for ranges of 512 to 4,096 pages
 * around the two order caps: pageblock_order (9) in v1
 * (CONFIG_CONTIG_BATCHED) and MAX_PAGE_ORDER (10) in the merged design
 * (CONFIG_CONTIG_BULK, and chunk-prepare with it), aligned and one
 * page off at either end.  Vanilla frees page by page.
 *
 * The chunks are visible without a hook: the whole machine is taken
 * first, so nothing outside the range is free, and this CPU's pcp is
 * given a high no free reaches.  A chunk of a pcp order (0..3, and 9)
 * then stays on the pcp as one block; one of another order (4..8, 10)
 * goes to the buddy, where it cannot merge: its buddy is either allocated,
 * on the pcp, or would have made one larger chunk with it below the cap.
 * So the report's block counts per order, pcp and buddy, are the list of
 * chunks.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM	(16ULL << 20)	/* 4096 pages: four MAX_PAGE_ORDER blocks */

/* What the design under test frees a range as: 0 page by page, 1 v1, 2 merged. */
#if defined(CONFIG_CONTIG_BULK)
#define DESIGN	2
#elif defined(CONFIG_CONTIG_BATCHED)
#define DESIGN	1
#else
#define DESIGN	0
#endif
/* __free_contig_frozen_range(): batched in the merged design only. */
#define FROZEN_DESIGN	(DESIGN == 2 ? 2 : 0)

static const char *const design_name[] = { "page by page", "v1, cap 9", "merged, cap 10" };

/*
 * One range and what it must become in each design: "pcp O:N ... | buddy
 * O:N ...", N blocks of order O ("-" for none).
 */
struct chunk_case {
	unsigned long pfn, nr;
	const char *what;
	const char *want[3];
};

/*
 * [0, 2048) and [0, 4096): aligned, two and four MAX_PAGE_ORDER blocks.
 *
 *   pfn   0        512      1024     1536     2048 ... 4096
 *   v1    |  o9    |  o9    |  o9    |  o9    | ...       (pcp, pageblock order)
 *   bulk  |       o10       |       o10       | ...       (buddy)
 *
 * [1024, 1024 + nr) for nr 1023, 1024, 1025 (the cap of 10 at, below, above),
 * and [512, 512 + nr) for nr 511, 512, 513 (the cap of 9):
 *
 *   1024 +1023: o9 o8 o7 o6 o5 o4 o3 o2 o1 o0   (1024, 1536, 1792, ... 2046)
 *   1024 +1024: bulk o10;  v1 o9 o9
 *   1024 +1025: bulk o10 o0;  v1 o9 o9 o0
 *   512  +511:  o8 o7 o6 o5 o4 o3 o2 o1 o0     (512, 768, ... 1022)
 *   512  +512:  o9
 *   512  +513:  o9 o0
 *
 * 2048 pages starting one below and one above a 1024-aligned pfn:
 *
 *   1023 +2048: o0 | o10 (v1: o9 o9) | 2048: o9 o8 o7 o6 o5 o4 o3 o2 o1 o0 (to 3071)
 *   1025 +2048: o0 o1 o2 o3 o4 o5 o6 o7 o8 o9 (1025 ... 1536) | 2048: o10 (v1: o9 o9) | 3072: o0
 */
static const struct chunk_case cases[] = {
	{ 0, 2048, "2048 aligned pages",
	  { "pcp 0:2048 | buddy -", "pcp 9:4 | buddy -", "pcp - | buddy 10:2" } },
	{ 0, 4096, "the whole machine, 4096 pages",
	  { "pcp 0:4096 | buddy -", "pcp 9:8 | buddy -", "pcp - | buddy 10:4" } },
	{ 1024, 1023, "1023 pages at a 1024-aligned pfn",
	  { "pcp 0:1023 | buddy -",
	    "pcp 0:1 1:1 2:1 3:1 9:1 | buddy 4:1 5:1 6:1 7:1 8:1",
	    "pcp 0:1 1:1 2:1 3:1 9:1 | buddy 4:1 5:1 6:1 7:1 8:1" } },
	{ 1024, 1024, "1024 pages at a 1024-aligned pfn",
	  { "pcp 0:1024 | buddy -", "pcp 9:2 | buddy -", "pcp - | buddy 10:1" } },
	{ 1024, 1025, "1025 pages at a 1024-aligned pfn",
	  { "pcp 0:1025 | buddy -", "pcp 0:1 9:2 | buddy -", "pcp 0:1 | buddy 10:1" } },
	{ 512, 511, "511 pages at a 512-aligned pfn",
	  { "pcp 0:511 | buddy -",
	    "pcp 0:1 1:1 2:1 3:1 | buddy 4:1 5:1 6:1 7:1 8:1",
	    "pcp 0:1 1:1 2:1 3:1 | buddy 4:1 5:1 6:1 7:1 8:1" } },
	{ 512, 512, "512 pages at a 512-aligned pfn",
	  { "pcp 0:512 | buddy -", "pcp 9:1 | buddy -", "pcp 9:1 | buddy -" } },
	{ 512, 513, "513 pages at a 512-aligned pfn",
	  { "pcp 0:513 | buddy -", "pcp 0:1 9:1 | buddy -", "pcp 0:1 9:1 | buddy -" } },
	{ 1023, 2048, "2048 pages from one below a 1024-aligned pfn",
	  { "pcp 0:2048 | buddy -",
	    "pcp 0:2 1:1 2:1 3:1 9:3 | buddy 4:1 5:1 6:1 7:1 8:1",
	    "pcp 0:2 1:1 2:1 3:1 9:1 | buddy 4:1 5:1 6:1 7:1 8:1 10:1" } },
	{ 1025, 2048, "2048 pages from one above a 1024-aligned pfn",
	  { "pcp 0:2048 | buddy -",
	    "pcp 0:2 1:1 2:1 3:1 9:3 | buddy 4:1 5:1 6:1 7:1 8:1",
	    "pcp 0:2 1:1 2:1 3:1 9:1 | buddy 4:1 5:1 6:1 7:1 8:1 10:1" } },
};

static void boot(void)
{
	if (mem_init(MEM)) {
		printf("Bail out! mem_init failed\n");
		exit(1);
	}
	page_poisoning_on = false;
}

/* Take every page of the machine (frozen), then make this CPU's pcp keep whatever it gets. */
static bool take_all(void)
{
	struct per_cpu_pages *pcp = &contig_zone.per_cpu_pageset[smp_processor_id()];

	if (alloc_contig_frozen_range(0, max_pfn))
		return false;
	pcp->high = pcp->high_min = pcp->high_max = 1 << 20;
	pcp->free_count = 0;
	pcp->flags = PCPF_FREE_HIGH_BATCH;
	return true;
}

/* The report's blocks as "pcp O:N ... | buddy O:N ...". */
static void blocks_of(const struct page_alloc_report *r, char *buf, size_t len)
{
	size_t at = 0;

	for (int k = 0; k < 2; k++) {
		const unsigned long *n = k ? r->free_by_order : r->pcp_by_order;
		bool any = false;

		at += (size_t)snprintf(buf + at, len - at, "%s", k ? " | buddy" : "pcp");
		for (unsigned int o = 0; o < NR_PAGE_ORDERS; o++)
			if (n[o]) {
				at += (size_t)snprintf(buf + at, len - at, " %u:%lu", o, n[o]);
				any = true;
			}
		if (!any)
			at += (size_t)snprintf(buf + at, len - at, " -");
	}
}

static void check_case(const struct chunk_case *c, bool frozen)
{
	const char *want = c->want[frozen ? FROZEN_DESIGN : DESIGN];
	const char *entry = frozen ? "__free_contig_frozen_range" : "free_contig_range";
	struct page_alloc_report r;
	char got[256], msg[256];

	boot();
	if (!take_all()) {
		ok(0, "%s: take the whole machine", c->what);
		return;
	}
	if (frozen) {
		__free_contig_frozen_range(c->pfn, c->nr);
	} else {
		for (unsigned long i = 0; i < c->nr; i++)
			init_page_count(pfn_to_page(c->pfn + i));
		free_contig_range(c->pfn, c->nr);
	}
	if (page_alloc_check(&r, msg, sizeof(msg))) {
		ok(0, "%s, %s: the checker passes (%s)", entry, c->what, msg);
		return;
	}
	ok(r.free + r.pcp == c->nr && r.allocated == max_pfn - c->nr,
	   "%s, %s [%lu, %lu): those pages free, the rest allocated", entry, c->what, c->pfn,
	   c->pfn + c->nr);
	blocks_of(&r, got, sizeof(got));
	if (!ok(!strcmp(got, want), "%s, %s, %s: %s", entry, c->what,
		design_name[frozen ? FROZEN_DESIGN : DESIGN], want))
		diag("got %s", got);
}

int main(void)
{
	plan_no_plan();
	machine_init();
	diag("design %s: free_contig_range %s, __free_contig_frozen_range %s", MM_KERNEL_NAME,
	     design_name[DESIGN], design_name[FROZEN_DESIGN]);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i], false);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i], true);
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
