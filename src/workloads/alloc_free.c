// SPDX-License-Identifier: GPL-2.0
/*
 * The alloc-free workload, inside the kernel build: the page allocator's
 * round trip, alloc_pages() and __free_pages() of one order, timed as a
 * whole loop.  Its parameters and results below are what its experiment
 * includes (build/gen/workloads/alloc_free.h, generated from this file).
 */
#include <errno.h>
#include <stdio.h>

#include <linux/gfp.h>
#include "workloads.h"

struct af_params {
	unsigned int order;
	unsigned long iterations;
};

struct af_result {
	double usec;			/* the measured loop */
};

static int alloc_free_run(const void *params, void *result, char *msg, size_t len)
{
	const struct af_params *p = params;
	struct af_result *r = result;
	double t0 = timed_begin();

	for (unsigned long i = 0; i < p->iterations; i++) {
		struct page *page = alloc_pages(GFP_KERNEL, p->order);

		if (unlikely(!page)) {
			snprintf(msg, len, "alloc-free: order-%u allocation failed", p->order);
			return -ENOMEM;
		}
		__free_pages(page, p->order);
	}
	r->usec = timed_end(t0);
	return 0;
}

MM_WORKLOAD(alloc_free, .run = alloc_free_run,
	    .params_size = sizeof(struct af_params), .result_size = sizeof(struct af_result));
