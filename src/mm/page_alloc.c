// SPDX-License-Identifier: GPL-2.0
/*
 * The buddy allocator: one zone, free lists per order, the zone lock.
 *
 * This is the part of mm/page_alloc.c the refcount experiment needs:
 * allocation with expand(), freeing with __free_one_page() merging,
 * free_pages_prepare() with the bad-page checks, compound pages.  Per-CPU
 * lists, migratetypes and pageblocks arrive with the allocator experiment.
 */
#include <stdio.h>
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>

struct zone contig_zone;
bool page_poisoning;

static inline void set_buddy_order(struct page *page, unsigned int order)
{
	page->private = order;
	__SetPageBuddy(page);
}

static inline unsigned int buddy_order(const struct page *page)
{
	return (unsigned int)page->private;
}

static inline unsigned long __find_buddy_pfn(unsigned long pfn, unsigned int order)
{
	return pfn ^ (1UL << order);
}

/* Is @buddy a free block of exactly @order, so @page can merge with it? */
static inline bool page_is_buddy(const struct page *buddy, unsigned int order)
{
	return PageBuddy(buddy) && buddy_order(buddy) == order;
}

static inline void add_to_free_list(struct page *page, struct zone *zone,
				    unsigned int order, bool tail)
{
	struct free_area *area = &zone->free_area[order];

	if (tail)
		list_add_tail(&page->lru, &area->free_list);
	else
		list_add(&page->lru, &area->free_list);
	area->nr_free++;
}

static inline void del_page_from_free_list(struct page *page, struct zone *zone,
					   unsigned int order)
{
	list_del(&page->lru);
	__ClearPageBuddy(page);
	page->private = 0;
	zone->free_area[order].nr_free--;
}

/*
 * If the block one order up is likely to become free soon (its other half
 * is free), put this block at the tail so it is not handed out before the
 * merge can happen.
 */
static bool buddy_merge_likely(unsigned long pfn, unsigned long buddy_pfn,
			       struct page *page, unsigned int order)
{
	unsigned long higher_buddy_pfn;
	struct page *higher_page;

	if (order >= MAX_PAGE_ORDER - 1)
		return false;
	higher_page = page + ((buddy_pfn & pfn) - pfn);
	higher_buddy_pfn = __find_buddy_pfn(buddy_pfn & pfn, order + 1);
	if (!pfn_valid(higher_buddy_pfn))
		return false;
	return page_is_buddy(higher_page + (higher_buddy_pfn - (buddy_pfn & pfn)), order + 1);
}

/* Caller holds zone->lock. */
static void __free_one_page(struct page *page, unsigned long pfn,
			    struct zone *zone, unsigned int order)
{
	unsigned long buddy_pfn = 0;
	bool to_tail;

	atomic_long_add(1L << order, &zone->free_pages);
	while (order < MAX_PAGE_ORDER) {
		struct page *buddy;

		buddy_pfn = __find_buddy_pfn(pfn, order);
		if (!pfn_valid(buddy_pfn))
			break;
		buddy = page + (buddy_pfn - pfn);
		if (!page_is_buddy(buddy, order))
			break;
		del_page_from_free_list(buddy, zone, order);
		pfn &= buddy_pfn;
		page = pfn_to_page(pfn);
		order++;
	}
	set_buddy_order(page, order);
	to_tail = order < MAX_PAGE_ORDER &&
		  buddy_merge_likely(pfn, __find_buddy_pfn(pfn, order), page, order);
	add_to_free_list(page, zone, order, to_tail);
}

/* Split a block of order @high down to @low, freeing the upper halves. */
static void expand(struct zone *zone, struct page *page, unsigned int low,
		   unsigned int high)
{
	unsigned long size = 1UL << high;

	while (high > low) {
		high--;
		size >>= 1;
		set_buddy_order(&page[size], high);
		add_to_free_list(&page[size], zone, high, false);
	}
}

static struct page *__rmqueue_smallest(struct zone *zone, unsigned int order)
{
	for (unsigned int current_order = order; current_order < NR_PAGE_ORDERS; current_order++) {
		struct free_area *area = &zone->free_area[current_order];
		struct page *page;

		if (list_empty(&area->free_list))
			continue;
		page = list_first_entry(&area->free_list, struct page, lru);
		del_page_from_free_list(page, zone, current_order);
		expand(zone, page, order, current_order);
		atomic_long_sub(1L << order, &zone->free_pages);
		return page;
	}
	return NULL;
}

void prep_compound_page(struct page *page, unsigned int order)
{
	struct folio *folio = (struct folio *)page;
	unsigned long nr = 1UL << order;

	__set_bit(PG_head, &page->flags);
	for (unsigned long i = 1; i < nr; i++) {
		set_page_count_frozen(page + i);
		WRITE_ONCE(page[i].compound_head, (unsigned long)page + 1);
	}
	folio->_flags_1 = (folio->_flags_1 & ~0xffUL) | order;
	folio->_folio_nr_pages = (unsigned int)nr;
	atomic_set(&folio->_large_mapcount, -1);
	atomic_set(&folio->_entire_mapcount, -1);
	atomic_set(&folio->_nr_pages_mapped, 0);
	atomic_set(&folio->_pincount, 0);
}

/*
 * Undo prep_compound_page(): the folio fields kept in the first tail page
 * overlay that page's lru, mapping and index, which must read clean again
 * before the free-time checks.
 */
void destroy_compound_page(struct page *page, unsigned int order)
{
	struct page *first_tail = page + 1;

	for (unsigned long i = 1; i < (1UL << order); i++)
		WRITE_ONCE(page[i].compound_head, 0);
	first_tail->flags &= ~0xffUL;
	first_tail->__tail_pad = 0;
	first_tail->mapping = NULL;
	first_tail->index = 0;
	__clear_bit(PG_head, &page->flags);
}

static void prep_new_page(struct page *page, unsigned int order, gfp_t gfp, bool refcounted)
{
	page->private = 0;
	if (refcounted)
		init_page_count(page);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	if (order && (gfp & __GFP_COMP))
		prep_compound_page(page, order);
}

static struct page *__alloc_pages(gfp_t gfp, unsigned int order, bool refcounted)
{
	struct zone *zone = &contig_zone;
	struct page *page;

	if (order > MAX_PAGE_ORDER) {
		VM_WARN_ON_ONCE(!(gfp & __GFP_NOWARN));
		return NULL;
	}
	spin_lock(&zone->lock);
	page = __rmqueue_smallest(zone, order);
	spin_unlock(&zone->lock);
	if (page)
		prep_new_page(page, order, gfp, refcounted);
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, true);
}

struct page *alloc_frozen_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, false);
}

struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{
	return (struct folio *)alloc_pages(gfp | __GFP_COMP, order);
}

/*
 * A page that fails the checks at free time is reported and leaked, as the
 * kernel's bad_page() does: handing it out again could corrupt whoever
 * still uses it.  Leaked pages are marked offline so the checker can
 * account for them.
 */
static void bad_page(struct page *page, const char *reason)
{
	fprintf(stderr, "BUG: Bad page state: pfn %lu: %s (refcount %d mapcount %d mapping %p flags %#lx)\n",
		page_to_pfn(page), reason, page_ref_count(page),
		atomic_read(&page->_mapcount) + 1, (void *)page->mapping, page->flags);
}

static const char *page_bad_reason(const struct page *page)
{
	if (unlikely(atomic_read(&page->_mapcount) != -1))
		return "nonzero mapcount";
	if (unlikely(page->mapping != NULL))
		return "non-NULL mapping";
	if (unlikely(page_ref_count(page) != 0))
		return "nonzero _refcount";
	if (unlikely(page->flags & PAGE_FLAGS_CHECK_AT_FREE))
		return "PAGE_FLAGS_CHECK_AT_FREE flag(s) set";
	return NULL;
}

static void leak_pages(struct page *page, unsigned int order)
{
	for (unsigned long i = 0; i < (1UL << order); i++)
		__atomic_store_n(&page[i].page_type, (unsigned int)PGTY_offline << 24,
				 __ATOMIC_RELAXED);
	atomic_long_add(1L << order, &page_zone(page)->leaked_pages);
}

static bool free_pages_prepare(struct page *page, unsigned int order)
{
	const char *reason;
	bool bad = false;

	if (PageHWPoison(page)) {
		leak_pages(page, order);
		return false;
	}
	if (order && PageHead(page)) {
		for (unsigned long i = 1; i < (1UL << order); i++) {
			if (unlikely(compound_head(page + i) != page)) {
				bad_page(page + i, "corrupted compound head");
				bad = true;
			}
		}
		destroy_compound_page(page, order);
	}
	for (unsigned long i = 0; i < (1UL << order); i++) {
		reason = page_bad_reason(page + i);
		if (unlikely(reason)) {
			bad_page(page + i, reason);
			bad = true;
		}
	}
	if (unlikely(bad)) {
		leak_pages(page, order);
		return false;
	}
	page->flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	page->mapping = NULL;
	if (page_poisoning)
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	return true;
}

void free_frozen_pages(struct page *page, unsigned int order)
{
	struct zone *zone = page_zone(page);

	if (!free_pages_prepare(page, order))
		return;
	spin_lock(&zone->lock);
	__free_one_page(page, page_to_pfn(page), zone, order);
	spin_unlock(&zone->lock);
}

void __free_pages(struct page *page, unsigned int order)
{
	bool head = PageHead(page);

	if (put_page_testzero(page)) {
		free_frozen_pages(page, order);
	} else if (!head) {
		/*
		 * A non-compound high-order page someone else still holds a
		 * reference on: that holder owns the first page only, so
		 * free the rest now.
		 */
		while (order-- > 0)
			free_frozen_pages(page + (1UL << order), order);
	}
}

unsigned long nr_free_pages(void)
{
	return (unsigned long)atomic_long_read(&contig_zone.free_pages);
}

void page_alloc_init(unsigned long start_pfn, unsigned long nr_pages)
{
	struct zone *zone = &contig_zone;

	memset(zone, 0, sizeof(*zone));
	spin_lock_init(&zone->lock);
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++)
		INIT_LIST_HEAD(&zone->free_area[order].free_list);
	zone->zone_start_pfn = start_pfn;
	zone->spanned_pages = nr_pages;
	zone->managed_pages = nr_pages;

	spin_lock(&zone->lock);
	for (unsigned long pfn = start_pfn; pfn < start_pfn + nr_pages; pfn += MAX_ORDER_NR_PAGES)
		__free_one_page(pfn_to_page(pfn), pfn, zone, MAX_PAGE_ORDER);
	spin_unlock(&zone->lock);
}
