/*
 * free-contig (src/workloads/free_contig.c): allocate and free contiguous
 * ranges, as the kernel's CMA and split-page tests do.
 */
#ifndef MMLAB_WORKLOADS_FREE_CONTIG_H
#define MMLAB_WORKLOADS_FREE_CONTIG_H

enum fc_mode {
	FC_SPLIT,	/* alloc order N, split_page, free_contig_range: the thread's test */
	FC_FROZEN,	/* alloc_contig_frozen_range, __free_contig_frozen_range: the CMA test */
};

struct fc_params {
	enum fc_mode mode;
	unsigned int order;		/* FC_SPLIT */
	unsigned long frozen_pages;	/* FC_FROZEN: pages per range */
	unsigned long iterations;
};

#define FC_NR_ORDERS		11	/* MAX_PAGE_ORDER + 1 */
#define FC_PAGEBLOCK_ORDER	9	/* pageblock_order */

struct fc_result {
	double usec;			/* the measured loop */
	unsigned long not_freed;	/* pages __free_contig_range reported still in use */
	/* Where the free memory is after the loop, in pages per order. */
	unsigned long buddy_pages_by_order[FC_NR_ORDERS];
	unsigned long pcp_pages_by_order[FC_NR_ORDERS];
};

#endif
