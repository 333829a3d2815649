// SPDX-License-Identifier: GPL-2.0
/*
 * The free-contig workload, inside the kernel build: the thread's test,
 *
 *	for (i = 0; i < iterations; i++) {
 *		page = alloc_pages(GFP_KERNEL, order);
 *		split_page(page, order);
 *		free_contig_range(page_to_pfn(page), 1 << order);
 *	}
 *
 * timed as a whole, and the CMA-style test of the frozen-range follow-up:
 * take a free range out of the buddy frozen, free it with
 * __free_contig_frozen_range(), timing only the free.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include <linux/ktime.h>
#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <mmlab/workloads/free_contig.h>
#include "workloads.h"

static int fc_split_loop(const struct fc_params *p, struct fc_result *r)
{
	const unsigned int order = p->order;
	double t0 = timed_begin();

	for (unsigned long i = 0; i < p->iterations; i++) {
		struct page *page = alloc_pages(GFP_KERNEL, order);
		unsigned long pfn;

		if (unlikely(!page))
			return -ENOMEM;
		split_page(page, order);
		pfn = page_to_pfn(page);
		r->not_freed += __free_contig_range(pfn, 1UL << order);
	}
	r->usec = timed_end(t0);
	return 0;
}

static int fc_frozen_loop(const struct fc_params *p, struct fc_result *r)
{
	/* The last whole MAX_PAGE_ORDER blocks of memory: CMA areas sit high. */
	unsigned long pfn = ALIGN_DOWN(max_pfn - p->frozen_pages, MAX_ORDER_NR_PAGES);
	double spent = 0;

	for (unsigned long i = 0; i < p->iterations; i++) {
		double t0;
		int err = alloc_contig_frozen_range(pfn, p->frozen_pages);

		if (err)
			return err;
		t0 = timed_begin();
		__free_contig_frozen_range(pfn, p->frozen_pages);
		spent += timed_end(t0);
	}
	r->usec = spent;
	return 0;
}

static int free_contig_run(const void *params, void *result, char *msg, size_t len)
{
	const struct fc_params *p = params;
	struct fc_result *r = result;
	struct page_alloc_report rep;
	int err;

	*r = (struct fc_result){ 0 };
	err = p->mode == FC_SPLIT ? fc_split_loop(p, r) : fc_frozen_loop(p, r);
	if (err) {
		snprintf(msg, len, "free-contig: allocation failed in the loop (%d)", err);
		return err;
	}
	if (page_alloc_check(&rep, msg, len))
		return -1;
	for (int o = 0; o < FC_NR_ORDERS; o++) {
		r->buddy_pages_by_order[o] = rep.free_by_order[o] << o;
		r->pcp_pages_by_order[o] = rep.pcp_by_order[o] << o;
	}
	if (r->not_freed) {
		snprintf(msg, len, "free-contig: %lu pages were still referenced", r->not_freed);
		return -1;
	}
	return 0;
}

MM_WORKLOAD(free_contig, .run = free_contig_run,
	    .params_size = sizeof(struct fc_params), .result_size = sizeof(struct fc_result));
