/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The zone: one per machine in this model (a single node, ZONE_NORMAL),
 * with the buddy allocator's free lists per order.
 */
#ifndef _LINUX_MMZONE_H
#define _LINUX_MMZONE_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/spinlock.h>

struct free_area {
	struct list_head free_list;
	unsigned long nr_free;		/* blocks of this order */
};

struct zone {
	spinlock_t lock;
	unsigned long zone_start_pfn;
	unsigned long spanned_pages;
	unsigned long managed_pages;
	atomic_long_t free_pages;	/* NR_FREE_PAGES */
	atomic_long_t leaked_pages;	/* bad pages taken out of use */
	struct free_area free_area[NR_PAGE_ORDERS];
} __cacheline_aligned;

extern struct zone contig_zone;

static inline struct zone *page_zone(const struct page *page)
{
	(void)page;
	return &contig_zone;
}

/* Called by mem_init(): hand the memmap's pages to the buddy allocator. */
void page_alloc_init(unsigned long start_pfn, unsigned long nr_pages);

/* What the allocator's checker found (mm/page_alloc_check.c). */
struct page_alloc_report {
	unsigned long free;		/* pages in free blocks */
	unsigned long allocated;	/* pages neither free nor leaked */
	unsigned long leaked;		/* pages leaked by bad_page() */
	unsigned long free_by_order[NR_PAGE_ORDERS];	/* blocks */
};

/*
 * Check every allocator invariant over the whole memmap; 0, or -1 with a
 * one-line description of the first violation in @msg.
 */
int page_alloc_check(struct page_alloc_report *r, char *msg, size_t len);

/* Fill freed pages with PAGE_POISON so that use-after-free reads show. */
extern bool page_poisoning;
#define PAGE_POISON	0xaa

#endif
