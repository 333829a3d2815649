// SPDX-License-Identifier: GPL-2.0
/*
 * The pcp-drain workload, inside the kernel build:
 *
 *	for (i = 0; i < iterations; i++) {
 *		allocate @pages order-0 pages, free them all    (not timed)
 *		drain_local_pages(zone)                         (timed)
 *	}
 *
 * The frees leave what the pcp's high lets stay on this CPU's list (the
 * rest spills to the buddy as it would); the drain hands it all back,
 * in holds of the pcp and zone locks of the design's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include "workloads.h"

/* What the experiment gives and gets back (build/gen/workloads/pcp_drain.h). */
struct pd_params {
	unsigned long pages;		/* order-0 pages allocated, then freed, before each drain */
	unsigned long iterations;	/* drains per sample */
};

struct pd_result {
	double usec;			/* the drains, summed */
	unsigned long drained;		/* pages on the lists at the drains, summed */
	int batch;			/* pcp->batch of this CPU */
};

static int pcp_drain_run(const void *params, void *result, char *msg, size_t len)
{
	const struct pd_params *p = params;
	struct pd_result *r = result;
	struct page **pages = calloc(p->pages, sizeof(*pages));
	struct zone *zone = NULL;
	double spent = 0;
	int err = 0;

	*r = (struct pd_result){ 0 };
	if (!pages) {
		snprintf(msg, len, "pcp-drain: no memory for %lu page pointers", p->pages);
		return -ENOMEM;
	}
	for (unsigned long i = 0; i < p->iterations && !err; i++) {
		struct per_cpu_pages *pcp;
		double t0;

		for (unsigned long n = 0; n < p->pages; n++) {
			pages[n] = alloc_pages(GFP_KERNEL, 0);
			if (unlikely(!pages[n])) {
				while (n--)
					__free_page(pages[n]);
				snprintf(msg, len, "pcp-drain: out of memory allocating %lu pages", p->pages);
				err = -ENOMEM;
				break;
			}
		}
		if (err)
			break;
		zone = page_zone(pages[0]);
		for (unsigned long n = 0; n < p->pages; n++)
			__free_page(pages[n]);
		pcp = &zone->per_cpu_pageset[smp_processor_id()];
		r->drained += (unsigned long)pcp->count;
		r->batch = pcp->batch;
		t0 = timed_begin();
		drain_local_pages(zone);
		spent += timed_end(t0);
	}
	free(pages);
	r->usec = spent;
	return err;
}

MM_WORKLOAD(pcp_drain, .run = pcp_drain_run,
	    .params_size = sizeof(struct pd_params), .result_size = sizeof(struct pd_result));
