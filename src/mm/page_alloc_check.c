// SPDX-License-Identifier: GPL-2.0
/*
 * The buddy allocator's invariant checker: every page of the zone is in
 * exactly one state (inside a free block, allocated, or leaked by
 * bad_page()), every free block is aligned to its order and on its order's
 * list exactly once, no two free buddies are left unmerged, and the counts
 * kept by the allocator agree with what the memmap says.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/mmzone.h>

static int check_fail(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return -1;
}

static bool page_is_leaked(const struct page *page)
{
	return (__atomic_load_n(&page->page_type, __ATOMIC_RELAXED) >> 24) == PGTY_offline;
}

static int check_free_lists(struct zone *zone, unsigned char *on_list,
			    struct page_alloc_report *r, char *msg, size_t len)
{
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++) {
		struct free_area *area = &zone->free_area[order];
		unsigned long n = 0;
		struct page *page;

		list_for_each_entry(page, &area->free_list, lru) {
			unsigned long pfn = page_to_pfn(page);

			if (!pfn_valid(pfn))
				return check_fail(msg, len, "order-%u free list holds a page outside the memmap", order);
			if (!PageBuddy(page) || page->private != order)
				return check_fail(msg, len, "pfn %lu on the order-%u list is not a free block of that order",
						  pfn, order);
			if (!IS_ALIGNED(pfn, 1UL << order))
				return check_fail(msg, len, "free block at pfn %lu is not aligned to order %u", pfn, order);
			if (pfn + (1UL << order) > max_pfn)
				return check_fail(msg, len, "free block at pfn %lu order %u runs past the end", pfn, order);
			if (on_list[pfn])
				return check_fail(msg, len, "free block at pfn %lu is on a free list twice", pfn);
			on_list[pfn] = 1;
			if (++n > max_pfn)
				return check_fail(msg, len, "order-%u free list is circular", order);
		}
		if (n != area->nr_free)
			return check_fail(msg, len, "order-%u free list has %lu blocks, nr_free says %lu",
					  order, n, area->nr_free);
		r->free_by_order[order] = n;
	}
	return 0;
}

static int check_memmap(unsigned char *on_list, struct page_alloc_report *r,
			char *msg, size_t len)
{
	unsigned long pfn = 0;

	while (pfn < max_pfn) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page)) {
			unsigned int order = (unsigned int)page->private;
			unsigned long buddy_pfn = pfn ^ (1UL << order);

			if (!on_list[pfn])
				return check_fail(msg, len, "free block at pfn %lu order %u is on no free list", pfn, order);
			for (unsigned long i = 1; i < (1UL << order); i++) {
				if (PageBuddy(page + i) || page_is_leaked(page + i))
					return check_fail(msg, len, "free block at pfn %lu order %u overlaps pfn %lu",
							  pfn, order, pfn + i);
			}
			if (order < MAX_PAGE_ORDER && pfn_valid(buddy_pfn) &&
			    PageBuddy(pfn_to_page(buddy_pfn)) &&
			    pfn_to_page(buddy_pfn)->private == order)
				return check_fail(msg, len, "free buddies at pfn %lu and %lu (order %u) were not merged",
						  pfn, buddy_pfn, order);
			if (page_ref_count(page) != 0)
				return check_fail(msg, len, "free block at pfn %lu has refcount %d", pfn,
						  page_ref_count(page));
			r->free += 1UL << order;
			pfn += 1UL << order;
		} else if (page_is_leaked(page)) {
			r->leaked++;
			pfn++;
		} else {
			r->allocated++;
			pfn++;
		}
	}
	return 0;
}

int page_alloc_check(struct page_alloc_report *r, char *msg, size_t len)
{
	struct zone *zone = &contig_zone;
	unsigned char *on_list;
	long free_pages, leaked;
	int ret;

	*r = (struct page_alloc_report){ 0 };
	on_list = calloc(max_pfn, 1);
	if (!on_list)
		return check_fail(msg, len, "out of host memory for the checker");

	spin_lock(&zone->lock);
	ret = check_free_lists(zone, on_list, r, msg, len);
	if (!ret)
		ret = check_memmap(on_list, r, msg, len);
	free_pages = atomic_long_read(&zone->free_pages);
	leaked = atomic_long_read(&zone->leaked_pages);
	spin_unlock(&zone->lock);
	free(on_list);
	if (ret)
		return ret;

	if ((unsigned long)free_pages != r->free)
		return check_fail(msg, len, "zone counts %ld free pages, the free lists hold %lu",
				  free_pages, r->free);
	if ((unsigned long)leaked != r->leaked)
		return check_fail(msg, len, "zone counts %ld leaked pages, the memmap shows %lu",
				  leaked, r->leaked);
	return 0;
}
