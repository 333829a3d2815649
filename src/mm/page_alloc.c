// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocator (mm/page_alloc.c): per node, the buddy allocator of
 * its one zone, with free lists per order and migratetype, pageblock
 * migratetypes and fallback stealing, and the per-CPU page lists in front
 * of it; an allocation tries the asking CPU's node first, then the others.
 *
 * Locking as in the kernel: zone->lock protects the buddy free lists;
 * each CPU's per_cpu_pages has its own spinlock, taken with trylock on the
 * allocation and free paths (a failed trylock goes to the buddy directly);
 * free_pcppages_bulk() and rmqueue_bulk() take zone->lock inside the pcp
 * lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/guest_touch.h>
#include <linux/math.h>
#include <linux/percpu_counter.h>
#include <linux/pgtable.h>
#include <linux/vmstat.h>

#include "internal.h"

struct pglist_data node_data[MAX_NUMNODES];
int nr_online_nodes = 1;
unsigned char cpu_node_map[NR_CPUS];
bool page_poisoning_on;

/* --- pageblocks ----------------------------------------------------------- */

unsigned char *pageblock_mt;

void set_pageblock_migratetype(struct page *page, int migratetype)
{
	WRITE_ONCE(pageblock_mt[page_to_pfn(page) >> pageblock_order], (unsigned char)migratetype);
}

static inline int gfp_migratetype(gfp_t gfp)
{
	if (gfp & __GFP_MOVABLE)
		return MIGRATE_MOVABLE;
	if (gfp & __GFP_RECLAIMABLE)
		return MIGRATE_RECLAIMABLE;
	return MIGRATE_UNMOVABLE;
}

/* --- the buddy ------------------------------------------------------------ */

/* Relabel the pageblocks of a block of @start_order (at least pageblock_order). */
static void change_pageblock_range(struct page *pageblock_page, int start_order, int migratetype)
{
	for (int nr_pageblocks = 1 << (start_order - pageblock_order); nr_pageblocks > 0;
	     nr_pageblocks--, pageblock_page += pageblock_nr_pages)
		set_pageblock_migratetype(pageblock_page, migratetype);
}

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

/* Is @buddy a free block of exactly @order, so a block can merge with it? */
static inline bool page_is_buddy(const struct page *buddy, unsigned int order)
{
	return PageBuddy(buddy) && buddy_order(buddy) == order;
}

static inline bool migratetype_is_mergeable(int mt)
{
	return mt < MIGRATE_PCPTYPES;
}

/*
 * From which order a merge looks at the buddy's pageblock type.  The
 * page-alloc-merge-pageblock mutant starts one order too late, merging two
 * pageblocks whatever their types: the slip test_page_alloc must catch.
 */
#ifndef CONFIG_PAGE_ALLOC_MUTANT_MERGE_PAGEBLOCK
#define merge_checks_type(order)	((order) >= pageblock_order)
#else
#define merge_checks_type(order)	((order) > pageblock_order)
#endif

/*
 * NR_FREE_PAGES counts what can be allocated: blocks on isolated pageblocks
 * are left out.  Like the kernel, the free-list helpers below do not
 * account it; their callers do, once per operation (one per freed block,
 * not one per merge step).  NR_FREE_PAGES_BLOCKS, the part of it in blocks
 * of pageblock_order or more (what defrag_mode's watermark checks read), is
 * the helpers' own, as in the kernel: only blocks that big change it, so a
 * merge step below pageblock_order costs nothing more.
 */
static inline void account_freepages(struct zone *zone, long nr_pages, int migratetype)
{
	if (is_migrate_isolate(migratetype))
		return;
	__mod_zone_page_state(zone, NR_FREE_PAGES, nr_pages);
}

static inline void __add_to_free_list(struct page *page, struct zone *zone,
				      unsigned int order, int migratetype, bool tail)
{
	struct free_area *area = &zone->free_area[order];

	VM_WARN_ON_ONCE_PAGE(get_pageblock_migratetype(page) != migratetype, page);
	if (tail)
		list_add_tail(&page->lru, &area->free_list[migratetype]);
	else
		list_add(&page->lru, &area->free_list[migratetype]);
	area->nr_free++;

	if (order >= pageblock_order && !is_migrate_isolate(migratetype))
		__mod_zone_page_state(zone, NR_FREE_PAGES_BLOCKS, 1L << order);
}

static inline void __del_page_from_free_list(struct page *page, struct zone *zone,
					     unsigned int order, int migratetype)
{
	list_del(&page->lru);
	__ClearPageBuddy(page);
	page->private = 0;
	zone->free_area[order].nr_free--;

	if (order >= pageblock_order && !is_migrate_isolate(migratetype))
		__mod_zone_page_state(zone, NR_FREE_PAGES_BLOCKS, -(1L << order));
}

static inline void del_page_from_free_list(struct page *page, struct zone *zone,
					   unsigned int order, int migratetype)
{
	__del_page_from_free_list(page, zone, order, migratetype);
	account_freepages(zone, -(1L << order), migratetype);
}

/* Move a free block to another type's list, as the pageblock changes type. */
static inline void move_to_free_list(struct page *page, struct zone *zone,
				     unsigned int order, int old_mt, int new_mt)
{
	long nr_pages = 1L << order;

	list_move_tail(&page->lru, &zone->free_area[order].free_list[new_mt]);
	account_freepages(zone, -nr_pages, old_mt);
	account_freepages(zone, nr_pages, new_mt);

	/* Into or out of an isolated pageblock: the big block leaves or joins the count. */
	if (order >= pageblock_order &&
	    is_migrate_isolate(old_mt) != is_migrate_isolate(new_mt)) {
		if (!is_migrate_isolate(old_mt))
			nr_pages = -nr_pages;
		__mod_zone_page_state(zone, NR_FREE_PAGES_BLOCKS, nr_pages);
	}
}

/* The block at the head of @area's @migratetype list, or NULL. */
static inline struct page *get_page_from_free_area(struct free_area *area, int migratetype)
{
	return list_first_entry_or_null(&area->free_list[migratetype], struct page, lru);
}

/*
 * If the block one order up is likely to become free soon (its other half
 * is free), put this block at the tail so it is not handed out before the
 * merge can happen.
 */
static bool buddy_merge_likely(unsigned long pfn, unsigned int order)
{
	unsigned long higher_pfn = pfn & ~(1UL << order);
	unsigned long higher_buddy_pfn = __find_buddy_pfn(higher_pfn, order + 1);

	if (order >= MAX_PAGE_ORDER - 1 || !pfn_valid(higher_buddy_pfn))
		return false;
	return page_is_buddy(pfn_to_page(higher_buddy_pfn), order + 1);
}

/*
 * Free a block into the buddy, merging with free buddies.  At and above
 * pageblock_order, blocks of incompatible migratetypes (isolated) do not
 * merge.  Caller holds zone->lock.
 */
static void __free_one_page(struct page *page, unsigned long pfn, struct zone *zone,
			    unsigned int order, int migratetype, fpi_t fpi_flags)
{
	bool to_tail;

	account_freepages(zone, 1L << order, migratetype);
	while (order < MAX_PAGE_ORDER) {
		unsigned long buddy_pfn = __find_buddy_pfn(pfn, order);
		struct page *buddy;
		int buddy_mt = migratetype;

		if (!pfn_valid(buddy_pfn))
			break;
		buddy = pfn_to_page(buddy_pfn);
		if (!page_is_buddy(buddy, order))
			break;
		if (unlikely(merge_checks_type(order))) {
			buddy_mt = get_pfnblock_migratetype(buddy, buddy_pfn);
			if (migratetype != buddy_mt &&
			    (!migratetype_is_mergeable(migratetype) ||
			     !migratetype_is_mergeable(buddy_mt)))
				break;
		}
		__del_page_from_free_list(buddy, zone, order, buddy_mt);
		/* The merged block is of one type: expand() will rely on it. */
		if (unlikely(buddy_mt != migratetype))
			change_pageblock_range(buddy, (int)order, migratetype);
		pfn &= buddy_pfn;
		page = pfn_to_page(pfn);
		order++;
	}
	set_buddy_order(page, order);
	to_tail = (fpi_flags & FPI_TO_TAIL) || buddy_merge_likely(pfn, order);
	__add_to_free_list(page, zone, order, migratetype, to_tail);
}

/*
 * A block larger than a pageblock may span pageblocks of different types:
 * free it pageblock by pageblock, each with its own type.
 */
static void split_large_buddy(struct zone *zone, struct page *page, unsigned long pfn,
			      unsigned int order, fpi_t fpi_flags)
{
	unsigned long end = pfn + (1UL << order);

	if (order > pageblock_order)
		order = pageblock_order;
	for (;;) {
		__free_one_page(page, pfn, zone, order, get_pfnblock_migratetype(page, pfn), fpi_flags);
		pfn += 1UL << order;
		if (pfn == end)		/* no struct page is looked up past the block */
			break;
		page = pfn_to_page(pfn);
	}
}

static void free_one_page(struct zone *zone, struct page *page, unsigned long pfn,
			  unsigned int order, fpi_t fpi_flags)
{
	/* The kernel defers a free whose trylock fails; the model just waits. */
	if (!(fpi_flags & FPI_TRYLOCK) || !spin_trylock(&zone->lock))
		spin_lock(&zone->lock);
	split_large_buddy(zone, page, pfn, order, fpi_flags);
	spin_unlock(&zone->lock);
	__count_vm_events(PGFREE, 1 << order);
}

/*
 * Split a block of order @high down to @low, freeing the upper halves;
 * returns the pages put back on free lists.
 */
static unsigned long expand(struct zone *zone, struct page *page, unsigned int low,
			    unsigned int high, int migratetype)
{
	unsigned long size = 1UL << high, nr_added = 0;

	while (high > low) {
		high--;
		size >>= 1;
		set_buddy_order(&page[size], high);
		__add_to_free_list(&page[size], zone, high, migratetype, false);
		nr_added += size;
	}
	return nr_added;
}

/* Take a block off its free list and split it: one accounting for both. */
static void page_del_and_expand(struct zone *zone, struct page *page, unsigned int low,
				unsigned int high, int migratetype)
{
	long nr_pages = 1L << high;

	__del_page_from_free_list(page, zone, high, migratetype);
	nr_pages -= expand(zone, page, low, high, migratetype);
	account_freepages(zone, -nr_pages, migratetype);
}

static struct page *__rmqueue_smallest(struct zone *zone, unsigned int order,
				       int migratetype)
{
	for (unsigned int current_order = order; current_order < NR_PAGE_ORDERS; current_order++) {
		struct page *page = get_page_from_free_area(&zone->free_area[current_order],
							    migratetype);

		if (!page)
			continue;
		page_del_and_expand(zone, page, order, current_order, migratetype);
		return page;
	}
	return NULL;
}

/* Which types an allocation of each type may fall back to, in order. */
static const int fallbacks[MIGRATE_PCPTYPES][MIGRATE_PCPTYPES - 1] = {
	[MIGRATE_UNMOVABLE]   = { MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE },
	[MIGRATE_MOVABLE]     = { MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE },
	[MIGRATE_RECLAIMABLE] = { MIGRATE_UNMOVABLE, MIGRATE_MOVABLE },
};

/*
 * Is a block of @order worth claiming its whole pageblock for @start_mt?
 * A block of a pageblock or more is claimed outright; from half a
 * pageblock's order up the rest of the pageblock is likely free too.
 * Unmovable and reclaimable allocations always try: scattering them over
 * many movable pageblocks is what fragments memory for good, while a
 * movable allocation that only borrows a small block can be moved out of
 * it later.
 */
static bool should_try_claim_block(unsigned int order, int start_mt)
{
	if (order >= pageblock_order)
		return true;
	if (order >= pageblock_order / 2)
		return true;
	if (start_mt == MIGRATE_RECLAIMABLE || start_mt == MIGRATE_UNMOVABLE)
		return true;
	return false;
}

/*
 * The first type in @migratetype's fallback order with a free block of
 * @order, or -1.  With @claimable (the claim path), -2 when blocks of
 * @order are too small to claim a pageblock with: should_try_claim_block()
 * only gets stricter as the order drops, so the caller can stop there.
 */
static int find_suitable_fallback(struct free_area *area, unsigned int order, int migratetype,
				  bool claimable)
{
	if (claimable && !should_try_claim_block(order, migratetype))
		return -2;
	if (area->nr_free == 0)
		return -1;
	for (int i = 0; i < MIGRATE_PCPTYPES - 1; i++) {
		int fallback_mt = fallbacks[migratetype][i];

		if (!free_area_empty(area, fallback_mt))
			return fallback_mt;
	}
	return -1;
}

/* Move every free block of the pageblock at @start_pfn to @new_mt's lists. */
static unsigned long __move_freepages_block(struct zone *zone, unsigned long start_pfn,
					    int old_mt, int new_mt)
{
	unsigned long pfn = start_pfn, moved = 0;

	while (pfn < start_pfn + pageblock_nr_pages) {
		struct page *p = pfn_to_page(pfn);

		if (PageBuddy(p)) {
			move_to_free_list(p, zone, buddy_order(p), old_mt, new_mt);
			moved += 1UL << buddy_order(p);
			pfn += 1UL << buddy_order(p);
		} else {
			pfn++;
		}
	}
	return moved;
}

/*
 * The pageblock of @page: its first pfn in @start_pfn and, if @num_free,
 * how many of its pages are free.  False when it reaches outside @zone
 * (only the zone's lock is held).  The kernel also counts the allocated
 * pages that look movable (on an LRU or with movable_ops) in
 * @num_movable; the model does not tell them apart and counts none.
 */
static bool prep_move_freepages_block(struct zone *zone, struct page *page,
				      unsigned long *start_pfn, unsigned long *num_free,
				      unsigned long *num_movable)
{
	unsigned long start = ALIGN_DOWN(page_to_pfn(page), pageblock_nr_pages);
	unsigned long end = start + pageblock_nr_pages;

	if (!zone_spans_pfn(zone, start) || !zone_spans_pfn(zone, end - 1))
		return false;
	*start_pfn = start;
	if (!num_free)
		return true;
	*num_free = 0;
	*num_movable = 0;
	for (unsigned long pfn = start; pfn < end; ) {
		struct page *p = pfn_to_page(pfn);

		if (PageBuddy(p)) {
			*num_free += 1UL << buddy_order(p);
			pfn += 1UL << buddy_order(p);
		} else {
			pfn++;
		}
	}
	return true;
}

/*
 * Take a free block of another type, and claim its pageblock for
 * @start_mt if at least half of the pageblock is free or compatible.  The
 * model does not track which allocated pages are movable, so it counts
 * allocated pages of a movable pageblock as incompatible with a movable
 * request and as "alike" for an unmovable one, which makes unmovable
 * requests claim, as they nearly always do.  (No watermark boost: the
 * model runs no kswapd.)
 */
static struct page *try_to_claim_block(struct zone *zone, struct page *page,
				       unsigned int current_order, unsigned int order,
				       int start_mt, int block_mt)
{
	unsigned long start_pfn, free_pages, movable_pages, alike;

	if (current_order >= pageblock_order) {
		del_page_from_free_list(page, zone, current_order, block_mt);
		change_pageblock_range(page, (int)current_order, start_mt);
		account_freepages(zone, expand(zone, page, order, current_order, start_mt), start_mt);
		return page;
	}
	if (!prep_move_freepages_block(zone, page, &start_pfn, &free_pages, &movable_pages))
		return NULL;
	if (start_mt == MIGRATE_MOVABLE)
		alike = movable_pages;
	else
		alike = block_mt == MIGRATE_MOVABLE ?
			pageblock_nr_pages - (free_pages + movable_pages) : 0;
	if (free_pages + alike < pageblock_nr_pages / 2)
		return NULL;
	__move_freepages_block(zone, start_pfn, block_mt, start_mt);
	set_pageblock_migratetype(pfn_to_page(start_pfn), start_mt);
	return __rmqueue_smallest(zone, order, start_mt);
}

/*
 * Fall back by claiming a whole pageblock of another type for @start_mt,
 * largest blocks first: the more of a pageblock is free, the better the
 * claim.  (The kernel's ALLOC_NOFRAGMENT floor at pageblock_order is not
 * modelled: it comes with a second zone.)
 */
static struct page *__rmqueue_claim(struct zone *zone, unsigned int order, int start_mt)
{
	for (int current_order = MAX_PAGE_ORDER; current_order >= (int)order; current_order--) {
		struct free_area *area = &zone->free_area[current_order];
		int fallback_mt = find_suitable_fallback(area, current_order, start_mt, true);
		struct page *page;

		if (fallback_mt == -1)	/* none of this order */
			continue;
		if (fallback_mt == -2)	/* too small from here down */
			break;
		page = get_page_from_free_area(area, fallback_mt);
		page = try_to_claim_block(zone, page, current_order, order, start_mt, fallback_mt);
		if (page)
			return page;
	}
	return NULL;
}

/* Smallest blocks first: take one block, leaving its pageblock's type alone. */
static struct page *__rmqueue_steal(struct zone *zone, unsigned int order, int start_mt)
{
	for (unsigned int current_order = order; current_order < NR_PAGE_ORDERS; current_order++) {
		struct free_area *area = &zone->free_area[current_order];
		int fallback_mt = find_suitable_fallback(area, current_order, start_mt, false);
		struct page *page;

		if (fallback_mt == -1)
			continue;
		page = get_page_from_free_area(area, fallback_mt);
		page_del_and_expand(zone, page, order, current_order, fallback_mt);
		return page;
	}
	return NULL;
}

/*
 * Where __rmqueue() starts looking, from the least to the most
 * fragmenting source.  rmqueue_bulk() keeps one across its whole batch.
 */
enum rmqueue_mode {
	RMQUEUE_NORMAL,		/* @migratetype's own free lists */
	RMQUEUE_CMA,		/* CMA pageblocks (none in the model) */
	RMQUEUE_CLAIM,		/* claim a pageblock of another type */
	RMQUEUE_STEAL,		/* take one block of another type */
};

/*
 * Take a block of @order off the buddy for @migratetype; zone->lock held.
 * The fallbacks cost a search over every order.  A caller that takes many
 * blocks under one hold of the lock (rmqueue_bulk()) passes the same
 * @mode each time: nothing else changes the free lists meanwhile, so a
 * source found empty stays empty, and *@mode moves past it for the calls
 * that follow.  A claim refills @migratetype's own lists, so it sends
 * *@mode back to RMQUEUE_NORMAL.
 */
static struct page *__rmqueue(struct zone *zone, unsigned int order, int migratetype,
			      enum rmqueue_mode *mode)
{
	struct page *page;

	switch (*mode) {
	case RMQUEUE_NORMAL:
		page = __rmqueue_smallest(zone, order, migratetype);
		if (page)
			return page;
		fallthrough;
	case RMQUEUE_CMA:
		/*
		 * The kernel without CONFIG_CMA (ALLOC_CMA is 0): nothing to
		 * try, and nothing charged.
		 */
		fallthrough;
	case RMQUEUE_CLAIM:
		page = __rmqueue_claim(zone, order, migratetype);
		if (page) {
			*mode = RMQUEUE_NORMAL;
			return page;
		}
		fallthrough;
	case RMQUEUE_STEAL:
		page = __rmqueue_steal(zone, order, migratetype);
		if (page) {
			*mode = RMQUEUE_STEAL;
			return page;
		}
	}
	return NULL;
}

/* --- per-CPU page lists --------------------------------------------------- */

static inline struct per_cpu_pages *this_cpu_pcp(struct zone *zone)
{
	return &zone->per_cpu_pageset[smp_processor_id() % NR_CPUS];
}

/* Take up to @count blocks of @order from the buddy onto @list. */
static int rmqueue_bulk(struct zone *zone, unsigned int order, int count,
			struct list_head *list, int migratetype)
{
	enum rmqueue_mode rmqm = RMQUEUE_NORMAL;
	int allocated = 0;

	spin_lock(&zone->lock);
	for (; allocated < count; allocated++) {
		struct page *page = __rmqueue(zone, order, migratetype, &rmqm);

		if (unlikely(!page))
			break;
		list_add_tail(&page->lru, list);
	}
	spin_unlock(&zone->lock);
	return allocated;
}

/*
 * How many blocks of @order a refill takes from the buddy.  Order-0
 * refills grow (alloc_factor) while a CPU keeps allocating, and pcp->high
 * grows with them up to high_max.
 */
static int nr_pcp_alloc(struct per_cpu_pages *pcp, unsigned int order)
{
	int high, base_batch, batch, max_nr_alloc;
	int high_max = READ_ONCE(pcp->high_max);
	int high_min = READ_ONCE(pcp->high_min);

	base_batch = READ_ONCE(pcp->batch);
	high = pcp->high = clamp(pcp->high, high_min, high_max);
	if (unlikely(high < base_batch))
		return 1;
	batch = order ? base_batch : base_batch << pcp->alloc_factor;
	if (high_min != high_max)
		high = pcp->high = min(high + batch, high_max);
	if (!order) {
		max_nr_alloc = max(high - pcp->count - base_batch, base_batch);
		if (batch <= max_nr_alloc && pcp->alloc_factor < PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		batch = min(batch, max_nr_alloc);
	}
	if (batch > 1)
		batch = max(batch >> order, 2);
	return batch;
}

/*
 * Free @count pages from the pcp lists to the buddy, round-robin over the
 * lists starting after @pindex, oldest (tail) first.  Caller holds pcp->lock.
 */
static void free_pcppages_bulk(struct zone *zone, int count,
			       struct per_cpu_pages *pcp, int pindex)
{
	count = min(pcp->count, count);
	/* The list the caller names is drained first, then round-robin. */
	pindex = pindex - 1;
	spin_lock(&zone->lock);
	while (count > 0) {
		struct list_head *list;
		unsigned int order;

		do {
			if (++pindex > NR_PCP_LISTS - 1)
				pindex = 0;
			list = &pcp->lists[pindex];
		} while (list_empty(list));

		order = pindex_to_order(pindex);
		do {
			struct page *page = list_last_entry(list, struct page, lru);
			unsigned long pfn = page_to_pfn(page);

			list_del(&page->lru);
			count -= 1 << order;
			pcp->count -= 1 << order;
			__free_one_page(page, pfn, zone, order,
					get_pfnblock_migratetype(page, pfn), FPI_NONE);
		} while (count > 0 && !list_empty(list));
	}
	spin_unlock(&zone->lock);
}

static int nr_pcp_free(struct per_cpu_pages *pcp, int batch, int high, bool free_high)
{
	/* Free as much as possible if batch freeing high-order pages. */
	if (unlikely(free_high))
		return min(pcp->count, batch << PCP_BATCH_SCALE_MAX);
	/* Check for PCP disabled or boot pageset. */
	if (unlikely(high < batch))
		return 1;
	/* Free at least a batch, more if the CPU keeps freeing. */
	return clamp((int)pcp->free_count, batch, high - batch);
}

/*
 * The high mark to compare the count with.  A CPU that frees more than it
 * allocates gets a larger high (up to high_max); one that frees high-order
 * pages in bulk gets a smaller one.  (No reclaim runs in the model, so the
 * kernel's ZONE_RECLAIM_ACTIVE and ZONE_BELOW_HIGH cases never apply.)
 */
static int nr_pcp_high(struct per_cpu_pages *pcp, int batch, bool free_high)
{
	int high_min = READ_ONCE(pcp->high_min);
	int high_max = READ_ONCE(pcp->high_max);
	int high = pcp->high = clamp(pcp->high, high_min, high_max);

	if (unlikely(!high))
		return 0;
	if (unlikely(free_high)) {
		pcp->high = max(high - (batch << PCP_BATCH_SCALE_MAX), high_min);
		return 0;
	}
	if (high_min == high_max)
		return high;
	if (pcp->count >= high && pcp->high < pcp->free_count + batch)
		pcp->high = clamp(pcp->free_count + batch, high_min, high_max);
	return high;
}

/*
 * Called with pcp->lock held; returns with it held, or returns false with
 * it dropped (when re-taking it between batches failed).
 */
static bool free_frozen_page_commit(struct zone *zone, struct per_cpu_pages *pcp,
				    struct page *page, int migratetype, unsigned int order)
{
	unsigned int pindex = order_to_pindex(migratetype, order);
	int batch = READ_ONCE(pcp->batch);
	bool free_high = false;
	int high, to_free;

	__count_vm_events(PGFREE, 1 << order);
	pcp->alloc_factor >>= 1;
	list_add(&page->lru, &pcp->lists[pindex]);
	pcp->count += 1 << order;

	/*
	 * High-order pages other than THP kept on the pcp fragment memory:
	 * when a CPU frees them in bulk without allocating, free them on.
	 */
	if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
		free_high = pcp->free_count >= batch + pcp->high_min / 2 &&
			    (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
			    (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= batch);
		pcp->flags |= PCPF_PREV_FREE_HIGH_ORDER;
	} else if (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) {
		pcp->flags &= ~PCPF_PREV_FREE_HIGH_ORDER;
	}
	if (pcp->free_count < (batch << PCP_BATCH_SCALE_MAX))
		pcp->free_count += 1 << order;

	high = nr_pcp_high(pcp, batch, free_high);
	if (pcp->count < high)
		return true;

	/* Free in batches, letting others at the lock in between. */
	to_free = nr_pcp_free(pcp, batch, high, free_high);
	while (to_free > 0 && pcp->count > 0) {
		int n = min(to_free, batch);

		free_pcppages_bulk(zone, n, pcp, pindex);
		to_free -= n;
		if (to_free <= 0 || pcp->count <= 0)
			break;
		spin_unlock(&pcp->lock);
		if (!spin_trylock(&pcp->lock))
			return false;
	}
	return true;
}

/* Take a block from a pcp list, refilling it from the buddy.  pcp->lock held. */
static struct page *__rmqueue_pcplist(struct zone *zone, unsigned int order, int migratetype,
				      struct per_cpu_pages *pcp, struct list_head *list)
{
	struct page *page;

	if (list_empty(list)) {
		int alloced = rmqueue_bulk(zone, order, nr_pcp_alloc(pcp, order), list, migratetype);

		pcp->count += alloced << order;
		if (unlikely(list_empty(list)))
			return NULL;
	}
	page = list_first_entry(list, struct page, lru);
	list_del(&page->lru);
	pcp->count -= 1 << order;
	return page;
}

static struct page *rmqueue_pcplist(struct zone *zone, unsigned int order, int migratetype)
{
	struct per_cpu_pages *pcp = this_cpu_pcp(zone);
	struct page *page;

	if (!spin_trylock(&pcp->lock))
		return NULL;
	/* Allocating halves the "freeing without allocating" streak. */
	pcp->free_count >>= 1;
	page = __rmqueue_pcplist(zone, order, migratetype, pcp,
				 &pcp->lists[order_to_pindex(migratetype, order)]);
	spin_unlock(&pcp->lock);
	if (page)
		__count_vm_events(PGALLOC_NORMAL, 1 << order);
	return page;
}

static struct page *rmqueue_buddy(struct zone *zone, unsigned int order, int migratetype)
{
	enum rmqueue_mode rmqm = RMQUEUE_NORMAL;
	struct page *page;

	spin_lock(&zone->lock);
	page = __rmqueue(zone, order, migratetype, &rmqm);
	spin_unlock(&zone->lock);
	if (page)
		__count_vm_events(PGALLOC_NORMAL, 1 << order);
	return page;
}

static struct page *rmqueue(struct zone *zone, unsigned int order, int migratetype)
{
	struct page *page = NULL;

	if (likely(pcp_allowed_order(order)))
		page = rmqueue_pcplist(zone, order, migratetype);
	if (!page)
		page = rmqueue_buddy(zone, order, migratetype);
	return page;
}

#ifdef CONFIG_PCP_DRAIN_BATCH
/*
 * Joshua Hahn's "mm/page_alloc: Perform appropriate batching in
 * drain_pages_zone" (v2 2/4, September 2025): one pcp->batch per hold of
 * the pcp and zone locks, so that a drain of a long list lets others at
 * the locks every batch.
 */
static inline int drain_batch_pages(const struct per_cpu_pages *pcp)
{
	return pcp->batch;
}
#else /* vanilla */
static inline int drain_batch_pages(const struct per_cpu_pages *pcp)
{
	return pcp->batch << PCP_BATCH_SCALE_MAX;
}
#endif /* CONFIG_PCP_DRAIN_BATCH */

/*
 * Drain one CPU's lists of @zone, at most drain_batch_pages() per hold of
 * the locks, re-reading the count under the lock each time (55f77df7d715,
 * Huang Ying, 2023; 66eca1021a42, Li Zhijian, 2024).
 */
static void drain_pages_zone(unsigned int cpu, struct zone *zone)
{
	struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
	int count;

	do {
		spin_lock(&pcp->lock);
		count = pcp->count;
		if (count) {
			int to_drain = min(count, drain_batch_pages(pcp));

			count_debug_vm_event(PCP_DRAIN_BATCHES);
			free_pcppages_bulk(zone, to_drain, pcp, 0);
			count -= to_drain;
		}
		spin_unlock(&pcp->lock);
	} while (count);
}

void drain_local_pages(struct zone *zone)
{
	drain_pages_zone(smp_processor_id(), zone);
}

/*
 * Every CPU's lists, as __drain_all_pages(zone, true) does: the kernel's
 * unlocked look at pcp->count to skip empty CPUs is left out (a plain read
 * racing with the owner's update), and each drain runs here rather than on
 * its CPU from a workqueue.
 */
void drain_all_pages(struct zone *zone)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		drain_pages_zone(cpu, zone);
}

void zone_pcp_retune(struct zone *zone)
{
	drain_all_pages(zone);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];

		spin_lock(&pcp->lock);
		pcp->high = pcp->high_min;
		pcp->free_count = 0;
		pcp->alloc_factor = 0;
		spin_unlock(&pcp->lock);
	}
}

/* --- compound pages ------------------------------------------------------- */

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

/*
 * Turn a non-compound high-order page into 1 << order order-0 pages, each
 * with its own reference.
 */
void split_page(struct page *page, unsigned int order)
{
	VM_WARN_ON_ONCE_PAGE(PageCompound(page), page);
	VM_WARN_ON_ONCE_PAGE(!page_ref_count(page), page);
	for (unsigned long i = 1; i < (1UL << order); i++)
		set_page_refcounted(page + i);
}

/* --- allocation ----------------------------------------------------------- */

/* --- the host's backing of guest memory (linux/guest_touch.h) -------------- */

struct guest_touch guest_touch;

#define GT_BIT(map, n)	((map)[(n) / BITS_PER_LONG] & (1UL << ((n) % BITS_PER_LONG)))
#define GT_SET(map, n)	((map)[(n) / BITS_PER_LONG] |= 1UL << ((n) % BITS_PER_LONG))
#define GT_CLEAR(map, n)	((map)[(n) / BITS_PER_LONG] &= ~(1UL << ((n) % BITS_PER_LONG)))

/*
 * The host backs host page @hp now, for the write to [@pfn, @end): the EPT
 * violation and host fault path, then the host's zeroing of the page, as a
 * memset of its frames through the machine's memory model.  No frame of it
 * was handed out while tracked; a frame in use anyway (allocated before the
 * workload armed the model) is charged as its neighbours but keeps its data.
 */
static void guest_touch_fault(unsigned long hp, unsigned long pfn, unsigned long end)
{
	unsigned long first = hp << guest_touch.host_order;
	unsigned long last = min((hp + 1) << guest_touch.host_order, max_pfn);
	static unsigned char scratch[PAGE_SIZE];

	ndelay(guest_touch.fault_ns);
	for (unsigned long f = first; f < last; f++) {
		struct page *page = pfn_to_page(f);
		bool mine = f >= pfn && f < end;

		if (mine || (!page_ref_count(page) && !PageTail(page)))
			memset(page_address(page), 0, PAGE_SIZE);
		else
			memset(scratch, 0, PAGE_SIZE);
	}
	guest_touch.faults++;
}

void guest_touch_alloc(struct page *page, unsigned int order, bool zeroed)
{
	unsigned long pfn = page_to_pfn(page), end = pfn + (1UL << order);

	if (!guest_touch.backed)
		return;
	while (pfn < end) {
		unsigned long hp = pfn >> guest_touch.host_order;
		unsigned long next = (hp + 1) << guest_touch.host_order;

		if (!GT_BIT(guest_touch.backed, hp)) {
			GT_SET(guest_touch.backed, hp);
			if (guest_touch.armed) {
				if (zeroed)
					guest_touch_fault(hp, page_to_pfn(page), end);
				else
					GT_SET(guest_touch.pending, pfn);
			}
		}
		pfn = next;
	}
}

/* The first write to @page (a copy): pay a host fault left pending at allocation. */
void guest_touch_write(struct page *page, unsigned int order)
{
	unsigned long pfn = page_to_pfn(page), end = pfn + (1UL << order);

	if (!guest_touch.backed)
		return;
	for (; pfn < end; pfn++)
		if (GT_BIT(guest_touch.pending, pfn)) {
			GT_CLEAR(guest_touch.pending, pfn);
			guest_touch_fault(pfn >> guest_touch.host_order, page_to_pfn(page), end);
		}
}


static void prep_new_page(struct page *page, unsigned int order, gfp_t gfp, bool refcounted)
{
	page->private = 0;
	INIT_LIST_HEAD(&page->lru);
	if (refcounted)
		set_page_refcounted(page);
	guest_touch_alloc(page, order, gfp & __GFP_ZERO);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	if (order && (gfp & __GFP_COMP))
		prep_compound_page(page, order);
}

#ifdef CONFIG_FAIL_PAGE_ALLOC
struct fail_page_alloc_attr fail_page_alloc = { .after = -1 };

bool should_fail_alloc_page(gfp_t gfp, unsigned int order)
{
	void (*hook)(gfp_t, unsigned int) = fail_page_alloc.on_attempt;

	if (hook) {
		fail_page_alloc.on_attempt = NULL;
		hook(gfp, order);
		fail_page_alloc.on_attempt = hook;
	}
	if (fail_page_alloc.after < 0)
		return false;
	if (fail_page_alloc.after > 0) {
		fail_page_alloc.after--;
		return false;
	}
	if (fail_page_alloc.nr > 0 && --fail_page_alloc.nr == 0)
		fail_page_alloc.after = -1;
	return true;
}
#endif

static inline struct zone *node_zone(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
}

/*
 * The zonelist walk: the preferred node's zone, then every other node's
 * in turn (the kernel orders them by distance; every remote node is
 * equally far in the model), or the preferred one only with
 * __GFP_THISNODE.  Departure: with no watermark checks, an allocation
 * falls back to another node only when its own is empty, not when it runs
 * low.  @drained: the slow path's retry, from the buddy lists only.
 */
static struct page *get_page_from_freelist(gfp_t gfp, unsigned int order, int preferred_nid,
					   int migratetype, bool drained)
{
	int nid = preferred_nid;

	for (int i = 0; i < nr_online_nodes; i++) {
		struct zone *zone = node_zone(nid);
		struct page *page;

		page = drained ? rmqueue_buddy(zone, order, migratetype) :
				 rmqueue(zone, order, migratetype);
		if (page)
			return page;
		if (gfp & __GFP_THISNODE)
			break;
		if (++nid == nr_online_nodes)
			nid = 0;
	}
	return NULL;
}

static struct page *__alloc_pages(gfp_t gfp, unsigned int order, int preferred_nid,
				  bool refcounted)
{
	int migratetype = gfp_migratetype(gfp);
	struct page *page;

	if (order > MAX_PAGE_ORDER) {
		VM_WARN_ON_ONCE(!(gfp & __GFP_NOWARN));
		return NULL;
	}
	if (should_fail_alloc_page(gfp, order))
		return NULL;
	page = get_page_from_freelist(gfp, order, preferred_nid, migratetype, false);
	if (unlikely(!page)) {
		/*
		 * The slow path's last resort before failing: pages may sit
		 * on other CPUs' lists.  (No reclaim or compaction here.)
		 */
		for (int nid = 0; nid < nr_online_nodes; nid++)
			if (nid == preferred_nid || !(gfp & __GFP_THISNODE))
				drain_all_pages(node_zone(nid));
		page = get_page_from_freelist(gfp, order, preferred_nid, migratetype, true);
	}
	if (page)
		prep_new_page(page, order, gfp, refcounted);
	return page;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, numa_node_id(), true);
}

struct page *alloc_frozen_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(gfp, order, numa_node_id(), false);
}

struct folio *folio_alloc(gfp_t gfp, unsigned int order)
{
	return (struct folio *)alloc_pages(gfp | __GFP_COMP, order);
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	VM_WARN_ON_ONCE(nid < 0 || nid >= nr_online_nodes);
	return __alloc_pages(gfp, order, nid, true);
}

struct folio *__folio_alloc_node(gfp_t gfp, unsigned int order, int nid)
{
	return (struct folio *)alloc_pages_node(nid, gfp | __GFP_COMP, order);
}

/*
 * Fill the empty slots of @page_array with order-0 pages taken under one
 * hold of this CPU's pcp lock.  As the kernel does, one missing page, or
 * a pcp lock that cannot be had, goes through the normal allocator.
 */
unsigned long alloc_pages_bulk(gfp_t gfp, unsigned long nr_pages, struct page **page_array)
{
	struct zone *zone = node_zone(numa_node_id());
	int migratetype = gfp_migratetype(gfp);
	unsigned long nr_populated = 0, nr_account = 0, i;
	struct per_cpu_pages *pcp;
	struct list_head *list;

	while (nr_populated < nr_pages && page_array[nr_populated])
		nr_populated++;
	if (nr_pages - nr_populated <= 1)
		goto failed;

	pcp = this_cpu_pcp(zone);
	if (!spin_trylock(&pcp->lock))
		goto failed;
	pcp->free_count >>= 1;
	list = &pcp->lists[order_to_pindex(migratetype, 0)];
	for (i = nr_populated; i < nr_pages; i++) {
		struct page *page;

		if (page_array[i]) {
			nr_populated++;
			continue;
		}
		page = __rmqueue_pcplist(zone, 0, migratetype, pcp, list);
		if (unlikely(!page))
			break;
		prep_new_page(page, 0, gfp, true);
		page_array[i] = page;
		nr_populated++;
		nr_account++;
	}
	spin_unlock(&pcp->lock);
	__count_vm_events(PGALLOC_NORMAL, nr_account);
	/* Always try for at least one page: the slow path may find one. */
	if (nr_account)
		return nr_populated;
failed:
	nr_populated = 0;
	while (nr_populated < nr_pages && page_array[nr_populated])
		nr_populated++;
	if (nr_populated < nr_pages) {
		page_array[nr_populated] = alloc_pages(gfp, 0);
		if (page_array[nr_populated])
			nr_populated++;
	}
	return nr_populated;
}

/*
 * alloc_contig_range() on memory that is already free: take every page of
 * [pfn, pfn + nr_pages), which must be whole MAX_PAGE_ORDER blocks, out of
 * the buddy as frozen order-0 pages.  Other CPUs' lists are drained first,
 * as the kernel does after isolating the range; a range that is not
 * entirely free is -EBUSY (the model does not migrate pages away), a
 * misaligned one -EINVAL.
 */
int alloc_contig_frozen_range(unsigned long pfn, unsigned long nr_pages)
{
	unsigned long end = pfn + nr_pages, p;
	struct zone *zone;

	if (!nr_pages || end > max_pfn || !IS_ALIGNED(pfn, MAX_ORDER_NR_PAGES) ||
	    !IS_ALIGNED(nr_pages, MAX_ORDER_NR_PAGES))
		return -EINVAL;
	/* The range must lie in one zone. */
	zone = page_zone(pfn_to_page(pfn));
	if (page_zone(pfn_to_page(end - 1)) != zone)
		return -EINVAL;
	drain_all_pages(zone);
	spin_lock(&zone->lock);
	for (p = pfn; p < end; p += MAX_ORDER_NR_PAGES) {
		if (!page_is_buddy(pfn_to_page(p), MAX_PAGE_ORDER)) {
			spin_unlock(&zone->lock);
			return -EBUSY;
		}
	}
	for (p = pfn; p < end; p += MAX_ORDER_NR_PAGES) {
		struct page *page = pfn_to_page(p);

		del_page_from_free_list(page, zone, MAX_PAGE_ORDER, get_pageblock_migratetype(page));
		for (unsigned long i = 0; i < MAX_ORDER_NR_PAGES; i++) {
			INIT_LIST_HEAD(&page[i].lru);
			page[i].private = 0;
			set_page_count_frozen(page + i);
		}
	}
	spin_unlock(&zone->lock);
	return 0;
}

/* --- freeing -------------------------------------------------------------- */

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
	if (unlikely(page->memcg_data))
		return "page still charged to cgroup";
	return NULL;
}

/*
 * The kernel's check_pages_enabled static key: the bad-page checks at free
 * time run with CONFIG_DEBUG_VM, or when a page debugging option (here,
 * poisoning) turns them on at boot.  Timed builds follow that default.
 */
#ifdef CONFIG_DEBUG_VM
static inline bool is_check_pages_enabled(void)
{
	return true;
}
#else
static inline bool is_check_pages_enabled(void)
{
	return unlikely(page_poisoning_enabled());
}
#endif

static void leak_pages(struct page *page, unsigned int order)
{
	for (unsigned long i = 0; i < (1UL << order); i++)
		__atomic_store_n(&page[i].page_type, (unsigned int)PGTY_offline << 24,
				 __ATOMIC_RELAXED);
	atomic_long_add(1L << order, &page_zone(page)->leaked_pages);
}

bool free_pages_prepare(struct page *page, unsigned int order)
{
	const char *reason;
	bool bad = false;

	if (unlikely(PageHWPoison(page))) {
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
	free_pages_check_tlb_flush(page, 1UL << order);
	for (unsigned long i = 0; is_check_pages_enabled() && i < (1UL << order); i++) {
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
	for (unsigned long i = 0; i < (1UL << order); i++)
		page[i].flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	if (page_poisoning_enabled())
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	return true;
}

/*
 * Prepare 1 << order contiguous order-0 pages (not a compound page) as one
 * chunk: every page is checked, in one pass, before anything is changed,
 * and the chunk is then cleaned and poisoned as a whole.  False if any
 * page is bad; nothing was changed then, and the caller prepares the
 * pages one by one so that only the bad ones are leaked.
 */
bool free_pages_prepare_contig(struct page *page, unsigned int order)
{
	unsigned long nr = 1UL << order;

	for (unsigned long i = 0; i < nr; i++)
		if (unlikely(PageHWPoison(page + i) || PageCompound(page + i) ||
			     (is_check_pages_enabled() && page_bad_reason(page + i))))
			return false;
	free_pages_check_tlb_flush(page, nr);
	for (unsigned long i = 0; i < nr; i++)
		page[i].flags &= ~PAGE_FLAGS_CHECK_AT_PREP;
	if (page_poisoning_enabled())
		memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	return true;
}

static void __free_pages_ok(struct page *page, unsigned int order, fpi_t fpi_flags)
{
	if (!(fpi_flags & FPI_PREPARED) && !free_pages_prepare(page, order))
		return;
	free_one_page(page_zone(page), page, page_to_pfn(page), order, fpi_flags);
}

void __free_frozen_pages(struct page *page, unsigned int order, fpi_t fpi_flags)
{
	struct zone *zone = page_zone(page);
	unsigned long pfn = page_to_pfn(page);
	struct per_cpu_pages *pcp;
	int migratetype;

	if (!pcp_allowed_order(order)) {
		__free_pages_ok(page, order, fpi_flags);
		return;
	}
	if (!(fpi_flags & FPI_PREPARED) && !free_pages_prepare(page, order))
		return;

	/* Only unmovable, reclaimable and movable are tracked on pcp lists. */
	migratetype = get_pfnblock_migratetype(page, pfn);
	if (unlikely(migratetype >= MIGRATE_PCPTYPES)) {
		if (unlikely(is_migrate_isolate(migratetype))) {
			free_one_page(zone, page, pfn, order, fpi_flags);
			return;
		}
		migratetype = MIGRATE_MOVABLE;
	}

	pcp = this_cpu_pcp(zone);
	if (spin_trylock(&pcp->lock)) {
		if (free_frozen_page_commit(zone, pcp, page, migratetype, order))
			spin_unlock(&pcp->lock);
	} else {
		free_one_page(zone, page, pfn, order, fpi_flags);
	}
}

void free_frozen_pages(struct page *page, unsigned int order)
{
	__free_frozen_pages(page, order, FPI_NONE);
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
	unsigned long nr = 0;

	for (int nid = 0; nid < nr_online_nodes; nid++)
		nr += zone_page_state_snapshot(node_zone(nid), NR_FREE_PAGES);
	return nr;
}

unsigned long totalram_pages(void)
{
	unsigned long nr = 0;

	for (int nid = 0; nid < nr_online_nodes; nid++)
		nr += node_zone(nid)->managed_pages;
	return nr;
}

/* --- boot ----------------------------------------------------------------- */

/* Watermarks from the zone size, as __setup_per_zone_wmarks() does. */
static void setup_zone_watermarks(struct zone *zone)
{
	unsigned long kbytes = zone->managed_pages * (PAGE_SIZE / 1024);
	unsigned long min_free_kbytes = clamp(int_sqrt(kbytes * 16), 128UL, 262144UL);
	unsigned long min = min_free_kbytes / (PAGE_SIZE / 1024);
	unsigned long gap = max(min / 4, zone->managed_pages * 10 / 10000);

	zone->watermark_min = min;
	zone->watermark_low = min + gap;
	zone->watermark_high = min + 2 * gap;
}

/* zone_batchsize(): a quarter of a megabyte or 1/4096 of the zone, as 2^n - 1. */
static int zone_batchsize(struct zone *zone)
{
	unsigned long batch = min(zone->managed_pages >> 12, (256UL << 10) / PAGE_SIZE);

	if (batch <= 1)
		return 1;
	/*
	 * Clamp to 2^n - 1: a power of two was seen to alias in the cache
	 * with some workloads.
	 */
	return (int)(rounddown_pow_of_two(batch + batch / 2) - 1);
}

/*
 * zone_highsize(): the low watermark shared out between the CPUs, but at
 * least four batches.  @high_fraction 0 is the default sizing.
 */
static int zone_highsize(struct zone *zone, int batch, int cpu_online, int high_fraction)
{
	unsigned long total_pages;
	int nr_split_cpus = max(num_online_cpus(), 1) + cpu_online;
	unsigned long high;

	if (high_fraction)
		total_pages = zone->managed_pages / high_fraction;
	else
		total_pages = zone->watermark_low;
	high = total_pages / nr_split_cpus;
	return (int)max(high, (unsigned long)batch << 2);
}

static void setup_per_cpu_pageset(struct zone *zone)
{
	int batch = zone_batchsize(zone);
	int high_min = zone_highsize(zone, batch, 0, 0);
	int high_max = zone_highsize(zone, batch, 0, 8);

	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];

		spin_lock_init(&pcp->lock);
		for (int i = 0; i < NR_PCP_LISTS; i++)
			INIT_LIST_HEAD(&pcp->lists[i]);
		pcp->count = 0;
		pcp->batch = batch;
		pcp->high_min = high_min;
		pcp->high_max = max(high_max, high_min);
		pcp->high = high_min;
		pcp->free_count = 0;
		pcp->alloc_factor = 0;
		/* A CPU's cache slice holds more than three batches on any modern part. */
		pcp->flags = PCPF_FREE_HIGH_BATCH;
	}
}

/* One node's zone over [start_pfn, start_pfn + nr_pages): empty, then its pages freed into it. */
static void zone_init(struct pglist_data *pgdat, unsigned long start_pfn, unsigned long nr_pages)
{
	struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

	memset(zone, 0, sizeof(*zone));
	spin_lock_init(&zone->lock);
	zone->node = pgdat->node_id;
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			INIT_LIST_HEAD(&zone->free_area[order].free_list[mt]);
	zone->zone_start_pfn = start_pfn;
	zone->spanned_pages = nr_pages;
	zone->managed_pages = nr_pages;
	setup_zone_watermarks(zone);
	setup_per_cpu_pageset(zone);
	refresh_zone_stat_thresholds(zone);
	node_stats_init(pgdat, zone->per_cpu_zonestats[0].stat_threshold);

	for (unsigned long pfn = start_pfn; pfn < start_pfn + nr_pages; pfn++)
		set_page_node(pfn_to_page(pfn), pgdat->node_id);
	spin_lock(&zone->lock);
	for (unsigned long pfn = start_pfn; pfn < start_pfn + nr_pages; pfn += MAX_ORDER_NR_PAGES)
		__free_one_page(pfn_to_page(pfn), pfn, zone, MAX_PAGE_ORDER,
				MIGRATE_MOVABLE, FPI_TO_TAIL);
	spin_unlock(&zone->lock);
}

/*
 * Equal spans of whole MAX_PAGE_ORDER blocks per node (the last takes the
 * rest), so no buddy block and no pageblock straddles two nodes.  Fewer
 * blocks than nodes: fewer nodes.
 */
void page_alloc_init(unsigned long start_pfn, unsigned long nr_pages)
{
	unsigned long nr_blocks = DIV_ROUND_UP(start_pfn + nr_pages, pageblock_nr_pages);
	unsigned long max_blocks = nr_pages / MAX_ORDER_NR_PAGES, per_node;

	if (nr_online_nodes < 1)
		nr_online_nodes = 1;
	if (nr_online_nodes > MAX_NUMNODES)
		nr_online_nodes = MAX_NUMNODES;
	if ((unsigned long)nr_online_nodes > max_blocks)
		nr_online_nodes = (int)max(max_blocks, 1UL);
	per_node = max_blocks / (unsigned long)nr_online_nodes * MAX_ORDER_NR_PAGES;
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		cpu_node_map[cpu] = (unsigned char)(cpu % nr_online_nodes);

	/* Boot memory is movable, as memmap_init_range() marks it. */
	free(pageblock_mt);
	pageblock_mt = malloc(nr_blocks);
	memset(pageblock_mt, MIGRATE_MOVABLE, nr_blocks);
	reset_vm_zone_stat();
	for (int nid = 0; nid < nr_online_nodes; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		unsigned long start = start_pfn + (unsigned long)nid * per_node;
		unsigned long nr = nid == nr_online_nodes - 1 ? start_pfn + nr_pages - start : per_node;

		pgdat->node_id = nid;
		pgdat->node_start_pfn = start;
		pgdat->node_spanned_pages = nr;
		zone_init(pgdat, start, nr);
	}
	percpu_counter_startup();
}

void page_alloc_exit(void)
{
	free(pageblock_mt);
	pageblock_mt = NULL;
}
