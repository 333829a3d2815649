/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_GFP_H
#define _LINUX_GFP_H

#include <linux/mm.h>

typedef unsigned int gfp_t;

#define __GFP_ZERO	0x01u
#define __GFP_COMP	0x02u
#define __GFP_NOWARN	0x04u
#define __GFP_NORETRY	0x08u
#define __GFP_MOVABLE	0x10u
#define __GFP_RECLAIMABLE 0x20u

#define GFP_KERNEL	0x00u
#define GFP_NOWAIT	0x00u
#define GFP_NOFS	0x00u
#define GFP_HIGHUSER_MOVABLE	__GFP_MOVABLE

/*
 * Returns a page (with __GFP_COMP a compound page) whose refcount is 1,
 * or NULL when no block of that order is free.
 */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct folio *folio_alloc(gfp_t gfp, unsigned int order);
/* As the kernel's alloc_frozen_pages(): the refcount stays frozen. */
struct page *alloc_frozen_pages(gfp_t gfp, unsigned int order);

static inline struct page *alloc_page(gfp_t gfp)
{
	return alloc_pages(gfp, 0);
}

/* Drop a reference; the last one frees the block. */
void __free_pages(struct page *page, unsigned int order);
/* Free a block whose refcount is already zero/frozen. */
void free_frozen_pages(struct page *page, unsigned int order);

#define __free_page(page)	__free_pages((page), 0)

/*
 * Fill the NULL slots of @page_array with order-0 pages, up to @nr_pages;
 * returns how many slots are filled (the kernel's alloc_pages_bulk()).
 */
unsigned long alloc_pages_bulk(gfp_t gfp, unsigned long nr_pages, struct page **page_array);

/*
 * Put one reference on each order-0 page of [pfn, pfn + nr_pages) and free
 * those that reach zero; returns the number not freed (still referenced).
 * How the freeing is batched is the design under study (seed 001): see
 * mm/page_alloc_contig.c.
 */
unsigned long __free_contig_range(unsigned long pfn, unsigned long nr_pages);
/* The same, warning if any page was still in use. */
void free_contig_range(unsigned long pfn, unsigned long nr_pages);
/* Free a range of order-0 pages whose refcounts are already frozen. */
void __free_contig_frozen_range(unsigned long pfn, unsigned long nr_pages);
/*
 * Put a reference on each page of an array of order-0 pages and free
 * those that reach zero, batching physically contiguous runs.
 */
void free_pages_bulk(struct page **page_array, unsigned long nr_pages);

/*
 * Take [pfn, pfn + nr_pages) out of the buddy as frozen order-0 pages
 * (alloc_contig_range() on memory that is free); -EBUSY if any page in the
 * range is not free.
 */
int alloc_contig_frozen_range(unsigned long pfn, unsigned long nr_pages);

/* Give every page of a non-compound high-order page its own reference. */
void split_page(struct page *page, unsigned int order);

/* Pages free in the buddy (NR_FREE_PAGES: pages on pcp lists are not counted). */
unsigned long nr_free_pages(void);

#endif
