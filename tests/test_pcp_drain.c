// SPDX-License-Identifier: GPL-2.0
/*
 * How many holds of the pcp and zone locks drain_pages_zone() takes to
 * empty a list of N pages: at most pcp->batch << PCP_BATCH_SCALE_MAX pages
 * per hold in vanilla, at most pcp->batch with the pcp-drain-batch design
 * (Joshua Hahn, "mm/page_alloc: Perform appropriate batching in
 * drain_pages_zone", September 2025).  With batch 4 the two limits are 4
 * and 128 pages; each is asserted one below, at and one above it.
 *
 * Each case fills this CPU's list with exactly N order-0 pages (high set
 * above N so nothing spills meanwhile), drains it with drain_local_pages()
 * and reads the holds from the pcp_drain_batches event.  One CPU: every
 * trylock succeeds.
 */
#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM	(64ULL << 20)	/* 16384 pages */
#define BATCH	4
#define MAXN	300

static struct per_cpu_pages *pcp;
static struct page *own[MAXN];

/* Drain @n pages off this CPU's list; the holds it took, or -1. */
static long drain_n(int n)
{
	unsigned long free_before, holds;

	drain_all_pages(&contig_zone);
	pcp->batch = BATCH;
	pcp->high_min = pcp->high_max = pcp->high = MAXN + BATCH;
	pcp->free_count = 0;
	for (int i = 0; i < n; i++) {
		own[i] = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 0);
		if (!own[i])
			return -1;
	}
	drain_all_pages(&contig_zone);
	for (int i = 0; i < n; i++)
		__free_page(own[i]);
	if (pcp->count != n) {
		diag("the list holds %d pages, not %d", pcp->count, n);
		return -1;
	}
	free_before = free_pages_all();
	reset_vm_events();
	drain_local_pages(&contig_zone);
	holds = vm_event(PCP_DRAIN_BATCHES);
	if (pcp->count || free_pages_all() != free_before) {
		diag("after the drain: %d pages on the list, %lu free (were %lu)",
		     pcp->count, free_pages_all(), free_before);
		return -1;
	}
	return (long)holds;
}

int main(void)
{
	static const struct { int n; long holds, holds_batch; } cases[] = {
		/* n           vanilla: <= 128 a hold   design: <= 4 a hold */
		{ BATCH - 1,		1,		1 },
		{ BATCH,		1,		1 },
		{ BATCH + 1,		1,		2 },
		{ (BATCH << 5) - 1,	1,		32 },
		{ BATCH << 5,		1,		32 },
		{ (BATCH << 5) + 1,	2,		33 },
		{ 2 * (BATCH << 5) + 1,	3,		65 },
	};
	struct page_alloc_report r;

	plan_no_plan();
	machine_init();
	if (mem_init(MEM)) {
		printf("Bail out! mem_init failed\n");
		return 1;
	}
	pcp = &contig_zone.per_cpu_pageset[smp_processor_id()];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int n = cases[i].n;
		long holds = drain_n(n);

#ifdef CONFIG_PCP_DRAIN_BATCH
		is_int(holds, cases[i].holds_batch,
		       "drain-batch: %d pages drained in holds of at most pcp->batch (%d)", n, BATCH);
#else
		is_int(holds, cases[i].holds,
		       "%d pages drained in holds of at most pcp->batch << 5 (%d)", n, BATCH << 5);
#endif
	}
	is_int(drain_n(0), 0, "an empty list: the lock taken, no free_pcppages_bulk()");
	ok(mm_alloc_check(&r) == 0 && r.allocated == 0 && r.pcp == 0,
	   "every page is back in the buddy and the allocator is sound");
	mem_exit();
	return done_testing();
}
