// SPDX-License-Identifier: GPL-2.0
/*
 * The page allocator's invariant checker.  Over the whole memmap:
 *
 *  - every page is in exactly one state: inside a buddy free block, inside
 *    a block on some CPU's pcp list, allocated, or leaked by bad_page();
 *  - every buddy block is aligned to its order, lies inside its zone, is on
 *    the free list of its order and of its pageblock's migratetype exactly
 *    once, and has no free buddy of the same order it should have merged
 *    with (unless merging is forbidden across migratetypes);
 *  - every pcp block is on the list of its order, is aligned, lies inside
 *    its zone, is not marked as a buddy page, and each pcp's count is what
 *    its lists hold;
 *  - every node's pages say they are on that node (page_to_nid()), and
 *    the nodes' spans tile the memmap;
 *  - each zone's counts (free pages, blocks per order, leaked pages) agree
 *    with what its lists and the memmap say.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/mmzone.h>
#include <linux/vmstat.h>

enum { PFN_UNSEEN, PFN_BUDDY_HEAD, PFN_PCP };

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

static int check_block(unsigned long pfn, unsigned int order, const char *where,
		       char *msg, size_t len)
{
	if (!pfn_valid(pfn))
		return check_fail(msg, len, "%s holds a page outside the memmap", where);
	if (!IS_ALIGNED(pfn, 1UL << order))
		return check_fail(msg, len, "%s block at pfn %lu is not aligned to order %u", where, pfn, order);
	if (pfn + (1UL << order) > max_pfn)
		return check_fail(msg, len, "%s block at pfn %lu order %u runs past the end", where, pfn, order);
	return 0;
}

/* A block on @zone's lists must be inside @zone: its span and its node. */
static int check_in_zone(struct zone *zone, unsigned long pfn, unsigned int order,
			 const char *where, char *msg, size_t len)
{
	if (pfn < zone->zone_start_pfn ||
	    pfn + (1UL << order) > zone->zone_start_pfn + zone->spanned_pages ||
	    page_to_nid(pfn_to_page(pfn)) != zone->node)
		return check_fail(msg, len, "%s of node %d holds pfn %lu (order %u) of node %d",
				  where, zone->node, pfn, order, page_to_nid(pfn_to_page(pfn)));
	return 0;
}

static int check_free_lists(struct zone *zone, unsigned char *state,
			    struct page_alloc_report *r, char *msg, size_t len)
{
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++) {
		struct free_area *area = &zone->free_area[order];
		unsigned long n = 0;

		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct page *page;

			list_for_each_entry(page, &area->free_list[mt], lru) {
				unsigned long pfn = page_to_pfn(page);

				if (check_block(pfn, order, "buddy free list", msg, len) ||
				    check_in_zone(zone, pfn, order, "buddy free list", msg, len))
					return -1;
				if (!PageBuddy(page) || page->private != order)
					return check_fail(msg, len, "pfn %lu on the order-%u list is not a free block of that order",
							  pfn, order);
				if (get_pfnblock_migratetype(page, pfn) != mt)
					return check_fail(msg, len, "free block at pfn %lu is on the type-%d list of a type-%d pageblock",
							  pfn, mt, get_pfnblock_migratetype(page, pfn));
				if (state[pfn] != PFN_UNSEEN)
					return check_fail(msg, len, "free block at pfn %lu is on a free list twice", pfn);
				state[pfn] = PFN_BUDDY_HEAD;
				r->free_listed += 1UL << order;
				if (is_migrate_isolate(mt))
					r->isolated += 1UL << order;
				else if (order >= pageblock_order)
					r->free_blocks += 1UL << order;
				if (++n > max_pfn)
					return check_fail(msg, len, "order-%u free list is circular", order);
			}
		}
		if (n != area->nr_free)
			return check_fail(msg, len, "order-%u free lists have %lu blocks, nr_free says %lu",
					  order, n, area->nr_free);
		r->free_by_order[order] += n;
	}
	return 0;
}

static int check_pcp_lists(struct zone *zone, unsigned char *state,
			   struct page_alloc_report *r, char *msg, size_t len)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
		unsigned long count = 0;

		for (unsigned int pindex = 0; pindex < NR_PCP_LISTS; pindex++) {
			unsigned int order = pindex_to_order(pindex);
			struct page *page;

			list_for_each_entry(page, &pcp->lists[pindex], lru) {
				unsigned long pfn = page_to_pfn(page);

				if (check_block(pfn, order, "pcp list", msg, len) ||
				    check_in_zone(zone, pfn, order, "pcp list", msg, len))
					return -1;
				if (PageBuddy(page))
					return check_fail(msg, len, "pcp page at pfn %lu is marked as a buddy page", pfn);
				for (unsigned long i = 0; i < (1UL << order); i++) {
					if (state[pfn + i] != PFN_UNSEEN)
						return check_fail(msg, len, "pcp block at pfn %lu overlaps another free block at pfn %lu",
								  pfn, pfn + i);
					state[pfn + i] = PFN_PCP;
				}
				count += 1UL << order;
				r->pcp_by_order[order]++;
				if (count > max_pfn)
					return check_fail(msg, len, "cpu %d pcp list %u is circular", cpu, pindex);
			}
		}
		if (count != (unsigned long)pcp->count)
			return check_fail(msg, len, "cpu %d pcp lists hold %lu pages, its count says %d",
					  cpu, count, pcp->count);
		r->pcp += count;
	}
	return 0;
}

static bool may_merge(const struct page *a, unsigned long apfn, const struct page *b,
		      unsigned long bpfn, unsigned int order)
{
	int amt, bmt;

	if (order < pageblock_order)
		return true;
	amt = get_pfnblock_migratetype(a, apfn);
	bmt = get_pfnblock_migratetype(b, bpfn);
	return amt == bmt || (amt < MIGRATE_PCPTYPES && bmt < MIGRATE_PCPTYPES);
}

static int check_memmap(unsigned char *state, struct page_alloc_report *r,
			char *msg, size_t len)
{
	unsigned long pfn = 0;

	while (pfn < max_pfn) {
		struct page *page = pfn_to_page(pfn);

		if (state[pfn] == PFN_PCP) {
			pfn++;
		} else if (PageBuddy(page)) {
			unsigned int order = (unsigned int)page->private;
			unsigned long buddy_pfn = pfn ^ (1UL << order);

			if (state[pfn] != PFN_BUDDY_HEAD)
				return check_fail(msg, len, "free block at pfn %lu order %u is on no free list", pfn, order);
			for (unsigned long i = 1; i < (1UL << order); i++) {
				if (PageBuddy(page + i) || page_is_leaked(page + i) || state[pfn + i] != PFN_UNSEEN)
					return check_fail(msg, len, "free block at pfn %lu order %u overlaps pfn %lu",
							  pfn, order, pfn + i);
			}
			if (order < MAX_PAGE_ORDER && pfn_valid(buddy_pfn) &&
			    PageBuddy(pfn_to_page(buddy_pfn)) &&
			    pfn_to_page(buddy_pfn)->private == order &&
			    may_merge(page, pfn, pfn_to_page(buddy_pfn), buddy_pfn, order))
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

/* The nodes' spans tile [0, max_pfn) and every page knows its node. */
static int check_nodes(char *msg, size_t len)
{
	unsigned long next = 0;

	for (int nid = 0; nid < nr_online_nodes; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

		if (pgdat->node_start_pfn != next || zone->zone_start_pfn != next ||
		    zone->spanned_pages != pgdat->node_spanned_pages || zone->node != nid)
			return check_fail(msg, len, "node %d spans pfn %lu + %lu, its zone %lu + %lu (node %d), expected to start at %lu",
					  nid, pgdat->node_start_pfn, pgdat->node_spanned_pages,
					  zone->zone_start_pfn, zone->spanned_pages, zone->node, next);
		for (unsigned long pfn = next; pfn < next + pgdat->node_spanned_pages; pfn++)
			if (page_to_nid(pfn_to_page(pfn)) != nid)
				return check_fail(msg, len, "pfn %lu of node %d says node %d", pfn, nid,
						  page_to_nid(pfn_to_page(pfn)));
		next += pgdat->node_spanned_pages;
	}
	if (next != max_pfn)
		return check_fail(msg, len, "the nodes span %lu pages, the memmap %lu", next, max_pfn);
	return 0;
}

/* One zone's lists, and its free-page count against them. */
static int check_zone(struct zone *zone, unsigned char *state, struct page_alloc_report *r,
		      char *msg, size_t len)
{
	unsigned long free_before = r->free_listed, isolated_before = r->isolated;
	unsigned long blocks_before = r->free_blocks;
	long free_pages, free_blocks;
	int ret;

	ret = check_free_lists(zone, state, r, msg, len);
	if (!ret)
		ret = check_pcp_lists(zone, state, r, msg, len);
	if (ret)
		return ret;
	free_pages = zone_page_state_snapshot(zone, NR_FREE_PAGES);
	if ((unsigned long)free_pages != (r->free_listed - free_before) - (r->isolated - isolated_before))
		return check_fail(msg, len, "node %d's zone counts %ld free pages, its free lists hold %lu (%lu isolated)",
				  zone->node, free_pages, r->free_listed - free_before,
				  r->isolated - isolated_before);
	free_blocks = zone_page_state_snapshot(zone, NR_FREE_PAGES_BLOCKS);
	if ((unsigned long)free_blocks != r->free_blocks - blocks_before)
		return check_fail(msg, len, "node %d's zone counts %ld free pages in blocks of pageblock_order "
				  "or more, its free lists hold %lu", zone->node, free_blocks,
				  r->free_blocks - blocks_before);
	return 0;
}

int page_alloc_check(struct page_alloc_report *r, char *msg, size_t len)
{
	unsigned char *state;
	long leaked = 0;
	int ret = 0;

	*r = (struct page_alloc_report){ 0 };
	state = calloc(max_pfn, 1);
	if (!state)
		return check_fail(msg, len, "out of host memory for the checker");

	for (int nid = 0; nid < nr_online_nodes; nid++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];

		for (int cpu = 0; cpu < NR_CPUS; cpu++)
			spin_lock(&zone->per_cpu_pageset[cpu].lock);
		spin_lock(&zone->lock);
	}
	ret = check_nodes(msg, len);
	for (int nid = 0; nid < nr_online_nodes && !ret; nid++) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];

		ret = check_zone(zone, state, r, msg, len);
		leaked += atomic_long_read(&zone->leaked_pages);
	}
	if (!ret)
		ret = check_memmap(state, r, msg, len);
	for (int nid = nr_online_nodes - 1; nid >= 0; nid--) {
		struct zone *zone = &NODE_DATA(nid)->node_zones[ZONE_NORMAL];

		spin_unlock(&zone->lock);
		for (int cpu = NR_CPUS - 1; cpu >= 0; cpu--)
			spin_unlock(&zone->per_cpu_pageset[cpu].lock);
	}
	free(state);
	if (ret)
		return ret;
	if (r->free != r->free_listed)
		return check_fail(msg, len, "the free lists hold %lu pages, the memmap's free blocks %lu",
				  r->free_listed, r->free);
	if ((unsigned long)leaked != r->leaked)
		return check_fail(msg, len, "the zones count %ld leaked pages, the memmap shows %lu",
				  leaked, r->leaked);
	return 0;
}
