/*
 * Helpers shared by the tests of the model's mm.
 */
#ifndef MMLAB_MM_TEST_H
#define MMLAB_MM_TEST_H

#include <linux/mmzone.h>
#include <linux/swap.h>
#include <linux/vmstat.h>

#include "tap.h"

/* The allocator's checker into @r: 0, or -1 with its diagnostic printed. */
static inline int mm_alloc_check(struct page_alloc_report *r)
{
	char msg[256];
	int ret = page_alloc_check(r, msg, sizeof(msg));

	if (ret)
		diag("allocator checker: %s", msg);
	return ret;
}

/* Pages allocated and not free, per the allocator's checker; -1 if it fails. */
static inline long mm_allocated_pages(void)
{
	struct page_alloc_report r;

	return mm_alloc_check(&r) ? -1 : (long)r.allocated;
}

/* Free pages wherever they sit: in the buddy or on some CPU's pcp list. */
static inline unsigned long free_pages_all(void)
{
	struct page_alloc_report r;

	lru_add_drain_all();
	mm_alloc_check(&r);
	return r.free + r.pcp;
}

/* One vm event counter, summed over all CPUs. */
static inline unsigned long vm_event(enum vm_event_item item)
{
	unsigned long events[NR_VM_EVENT_ITEMS];

	all_vm_events(events);
	return events[item];
}

/* One node statistic, exact (per-CPU differences included), summed over the online nodes. */
static inline unsigned long node_stat(enum node_stat_item item)
{
	unsigned long sum = 0;

	for (int nid = 0; nid < nr_online_nodes; nid++)
		sum += node_page_state_snapshot(NODE_DATA(nid), item);
	return sum;
}

/* --- helpers of the contiguous-range tests (test_contig, test_alloc_differential, stress_pcp) --- */

#include <stdint.h>

#include <linux/log2.h>

enum { MM_PFN_ALLOCATED, MM_PFN_BUDDY, MM_PFN_PCP };

/*
 * Where every pfn is: map[pfn] = MM_PFN_BUDDY inside a buddy free block,
 * MM_PFN_PCP inside a block on some CPU's pcp list, MM_PFN_ALLOCATED
 * otherwise (allocated or leaked).  @map has max_pfn bytes.  Takes the
 * locks in page_alloc_check()'s order: the allocator must be quiescent.
 */
static inline void mm_mark_free_pfns(unsigned char *map)
{
	struct zone *zone = &contig_zone;

	memset(map, MM_PFN_ALLOCATED, max_pfn);
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		spin_lock(&zone->per_cpu_pageset[cpu].lock);
	spin_lock(&zone->lock);
	for (unsigned int order = 0; order < NR_PAGE_ORDERS; order++)
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			struct page *page;

			list_for_each_entry(page, &zone->free_area[order].free_list[mt], lru)
				memset(map + page_to_pfn(page), MM_PFN_BUDDY, 1UL << order);
		}
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (unsigned int pindex = 0; pindex < NR_PCP_LISTS; pindex++) {
			struct page *page;

			list_for_each_entry(page, &zone->per_cpu_pageset[cpu].lists[pindex], lru)
				memset(map + page_to_pfn(page), MM_PFN_PCP,
				       1UL << pindex_to_order(pindex));
		}
	spin_unlock(&zone->lock);
	for (int cpu = NR_CPUS - 1; cpu >= 0; cpu--)
		spin_unlock(&zone->per_cpu_pageset[cpu].lock);
}

/*
 * The order + 1 of the block on @cpu's pcp lists that contains @pfn, or 0
 * if none does.  Takes that pcp's lock.
 */
static inline int mm_pcp_block_order(int cpu, unsigned long pfn)
{
	struct per_cpu_pages *pcp = &contig_zone.per_cpu_pageset[cpu];
	int found = 0;

	spin_lock(&pcp->lock);
	for (unsigned int pindex = 0; pindex < NR_PCP_LISTS && !found; pindex++) {
		unsigned int order = pindex_to_order(pindex);
		struct page *page;

		list_for_each_entry(page, &pcp->lists[pindex], lru) {
			unsigned long start = page_to_pfn(page);

			if (pfn >= start && pfn < start + (1UL << order)) {
				found = (int)order + 1;
				break;
			}
		}
	}
	spin_unlock(&pcp->lock);
	return found;
}

/*
 * A test's mark in a page it owns: @tag at 8 places spread over the page
 * (cheap enough to write into every page a test allocates, and anything
 * that overwrites or poisons the page changes at least one of them).
 */
#define MM_TAG_WORDS	8

static inline void mm_tag_page(struct page *page, uint64_t tag)
{
	uint64_t *w = page_address(page);

	for (int i = 0; i < MM_TAG_WORDS; i++)
		w[i * (PAGE_SIZE / 8 / MM_TAG_WORDS)] = tag + (uint64_t)i;
}

/* Does @page still carry @tag everywhere mm_tag_page() wrote it? */
static inline bool mm_page_has_tag(const struct page *page, uint64_t tag)
{
	const uint64_t *w = page_address(page);

	for (int i = 0; i < MM_TAG_WORDS; i++)
		if (w[i * (PAGE_SIZE / 8 / MM_TAG_WORDS)] != tag + (uint64_t)i)
			return false;
	return true;
}

/* Is every byte of @page PAGE_POISON (freed with page_poisoning on)? */
static inline bool mm_page_poisoned(const struct page *page)
{
	const unsigned char *p = page_address(page);

	for (size_t i = 0; i < PAGE_SIZE; i++)
		if (p[i] != PAGE_POISON)
			return false;
	return true;
}

/* Pages in free blocks of order >= @order, buddy and pcp together. */
static inline unsigned long mm_free_pages_from_order(const struct page_alloc_report *r,
						     unsigned int order)
{
	unsigned long n = 0;

	for (unsigned int o = order; o < NR_PAGE_ORDERS; o++)
		n += (r->free_by_order[o] + r->pcp_by_order[o]) << o;
	return n;
}

/* FNV-1a over the per-order free block counts (buddy, then pcp) of a report. */
static inline uint64_t mm_report_digest(const struct page_alloc_report *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (unsigned int o = 0; o < NR_PAGE_ORDERS; o++)
		for (int k = 0; k < 2; k++) {
			uint64_t v = k ? r->pcp_by_order[o] : r->free_by_order[o];

			for (int b = 0; b < 8; b++) {
				h ^= (v >> (8 * b)) & 0xff;
				h *= 0x100000001b3ULL;
			}
		}
	return h;
}

#endif
