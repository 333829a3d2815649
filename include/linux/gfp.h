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

/* Give every page of a non-compound high-order page its own reference. */
void split_page(struct page *page, unsigned int order);

/* Pages free in the buddy (NR_FREE_PAGES: pages on pcp lists are not counted). */
unsigned long nr_free_pages(void);

#endif
