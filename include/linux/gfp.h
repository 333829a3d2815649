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

#define __GFP_IO	0x40u
#define __GFP_FS	0x80u
/* The caller may sleep: the allocator may reclaim and compact directly. */
#define __GFP_DIRECT_RECLAIM	0x100u
/* Wake kswapd when low: every allocation but the most restricted does. */
#define __GFP_KSWAPD_RECLAIM	0x200u
#define __GFP_RECLAIM	(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)
#define __GFP_HIGH	0x400u
#define __GFP_ACCOUNT	0x800u
#define __GFP_THISNODE	0x1000u	/* no fallback to other nodes */

/*
 * The kernel's compositions.  What the model looks at is whether an
 * allocation may sleep (gfpflags_allow_blocking()): the XArray drops
 * xa_lock only then, and the tests' failure hook (xa_fail_gfp_without)
 * fails allocations by flag.  Every flag stays below bit 24, where
 * struct xarray keeps its head marks.
 */
#define GFP_ATOMIC	(__GFP_HIGH | __GFP_KSWAPD_RECLAIM)
#define GFP_NOWAIT	(__GFP_KSWAPD_RECLAIM | __GFP_NOWARN)
#define GFP_NOIO	(__GFP_RECLAIM)
#define GFP_NOFS	(__GFP_RECLAIM | __GFP_IO)
#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | __GFP_ACCOUNT)
#define GFP_HIGHUSER_MOVABLE	(GFP_KERNEL | __GFP_MOVABLE)
/* The bits that say how hard to try, which a caller passes on to the XArray. */
#define GFP_RECLAIM_MASK	(__GFP_RECLAIM | __GFP_HIGH | __GFP_IO | __GFP_FS | \
				 __GFP_NOWARN | __GFP_NORETRY)

static inline bool gfpflags_allow_blocking(gfp_t gfp)
{
	return gfp & __GFP_DIRECT_RECLAIM;
}

/*
 * Returns a page (with __GFP_COMP a compound page) whose refcount is 1,
 * or NULL when no block of that order is free.  From the node of the CPU
 * that asks (numa_node_id()), else from the others in turn.
 */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct folio *folio_alloc(gfp_t gfp, unsigned int order);
/*
 * The same from node @nid first; with __GFP_THISNODE from @nid only (the
 * kernel's alloc_pages_node() and __folio_alloc_node()).
 */
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
struct folio *__folio_alloc_node(gfp_t gfp, unsigned int order, int nid);
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
