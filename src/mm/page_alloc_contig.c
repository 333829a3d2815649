// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing physically contiguous ranges of order-0 pages: the designs of
 * "Free contiguous order-0 pages efficiently" (seed 001) and its review.
 *
 *  vanilla	one __free_page() per page: each order-0 page goes through
 *		the pcp order-0 list, and the pcp spills them to the buddy a
 *		batch at a time, merging as it goes (if the pages were not
 *		reallocated first).
 *
 *  CONFIG_CONTIG_BATCHED (v1)
 *		put each page's reference and free_pages_prepare() each page,
 *		then free each run of freeable pages as the largest naturally
 *		aligned power-of-two chunks, at most pageblock_order, to the
 *		pcp or the buddy as whole blocks (FPI_PREPARED).
 *
 *  CONFIG_CONTIG_BULK (the merged design)
 *		as v1, but chunks up to MAX_PAGE_ORDER (the buddy splits them
 *		per pageblock), runs broken at memory-section boundaries, the
 *		frozen-range free batched the same way, and free_pages_bulk()
 *		for vfree()'s page array.
 *
 *  CONFIG_CONTIG_CHUNK_PREPARE (what the review agreed was possible)
 *		as the merged design, but a chunk of order-0 pages is
 *		prepared as one unit, every page checked in one pass, and a
 *		chunk with a bad page falls back to page-by-page preparation
 *		so that only the bad pages are leaked.
 */
#include <stdio.h>

#include "internal.h"

#if defined(CONFIG_CONTIG_BATCHED) || defined(CONFIG_CONTIG_BULK)
#define FREE_CONTIG_BATCHING
#endif

#ifdef CONFIG_CONTIG_BULK
#define CONTIG_CHUNK_MAX_ORDER	MAX_PAGE_ORDER
#else
#define CONTIG_CHUNK_MAX_ORDER	pageblock_order
#endif

#ifdef FREE_CONTIG_BATCHING

/* The largest order a buddy block starting at @pfn may have (@max_order at pfn 0). */
#ifndef CONFIG_FREE_CONTIG_MUTANT_IGNORE_ALIGN
static inline unsigned int contig_align_order(unsigned long pfn, unsigned int max_order)
{
	return pfn ? (unsigned int)__ffs(pfn) : max_order;
}
#else
/* Mutant for the tests: forgets that a buddy block must be aligned. */
static inline unsigned int contig_align_order(unsigned long pfn, unsigned int max_order)
{
	return max_order;
}
#endif

/* The largest naturally aligned power-of-two chunk that starts at @pfn and fits in @nr. */
static unsigned int contig_chunk_order(unsigned long pfn, unsigned long nr)
{
	unsigned int fit_order = (unsigned int)ilog2(nr);
	unsigned int align_order = contig_align_order(pfn, fit_order);

	return min3(fit_order, align_order, (unsigned int)CONTIG_CHUNK_MAX_ORDER);
}

#ifdef CONFIG_CONTIG_CHUNK_PREPARE
/* A chunk with a bad page: prepare page by page, freeing the good ones. */
static void free_contig_chunk_slow(struct page *page, unsigned long nr)
{
	for (unsigned long i = 0; i < nr; i++)
		if (free_pages_prepare(page + i, 0))
			__free_frozen_pages(page + i, 0, FPI_PREPARED);
}

/* Prepare a chunk as one unit, then free it whole. */
static inline void free_contig_chunk(struct page *page, unsigned int order)
{
	if (unlikely(!free_pages_prepare_contig(page, order)))
		free_contig_chunk_slow(page, 1UL << order);
	else
		__free_frozen_pages(page, order, FPI_PREPARED);
}

/* Can this page, whose last reference is gone, join a run of chunks? */
static inline bool contig_page_prepare(struct page *page)
{
	return true;		/* prepared with its chunk */
}
#else
/* Every page of the chunk is prepared already. */
static inline void free_contig_chunk(struct page *page, unsigned int order)
{
	__free_frozen_pages(page, order, FPI_PREPARED);
}

/* Can this page, whose last reference is gone, join a run of chunks? */
static inline bool contig_page_prepare(struct page *page)
{
	/* A bad page is leaked by free_pages_prepare(): it ends the run. */
	return free_pages_prepare(page, 0);
}
#endif

/*
 * Free a run of order-0 pages whose references are gone, as whole chunks.
 * In v1 and the merged design every page was already prepared; with chunk
 * preparation each chunk is prepared here, as a unit.
 */
static void free_prepared_contig_range(struct page *page, unsigned long nr_pages)
{
	while (nr_pages) {
		unsigned int order = contig_chunk_order(page_to_pfn(page), nr_pages);

		free_contig_chunk(page, order);
		page += 1UL << order;
		nr_pages -= 1UL << order;
	}
}

/* Does a run have to end before @pfn (memmap contiguity)? */
#ifdef CONFIG_CONTIG_BULK
static inline bool contig_run_breaks_at(unsigned long pfn)
{
	/* Struct pages are contiguous within a section, not necessarily across. */
	return IS_ALIGNED(pfn, PAGES_PER_SECTION);
}
#else
static inline bool contig_run_breaks_at(unsigned long pfn)
{
	return false;
}
#endif

/*
 * Put the range's reference on @page: true if it was the last one, else
 * the page is counted in @not_freed and stays with its other holders.
 */
#ifndef CONFIG_FREE_CONTIG_MUTANT_FREE_REFERENCED
static inline bool contig_put_page(struct page *page, unsigned long *not_freed)
{
	if (put_page_testzero(page))
		return true;
	(*not_freed)++;
	return false;
}
#else
/* Mutant for the tests: counts a page someone still holds, and frees it anyway. */
static inline bool contig_put_page(struct page *page, unsigned long *not_freed)
{
	if (put_page_testzero(page))
		return true;
	(*not_freed)++;
	set_page_count_frozen(page);
	return true;
}
#endif

/*
 * A run of consecutive pages that can be freed together: pages join it
 * while they can be freed, and it is freed as chunks when a page cannot
 * join, when the memmap may stop being contiguous, and at the end.
 */
struct contig_run {
	struct page *start;
};

static void contig_run_flush(struct contig_run *run, struct page *end)
{
	if (run->start)
		free_prepared_contig_range(run->start, end - run->start);
	run->start = NULL;
}

static void contig_run_next(struct contig_run *run, struct page *page, bool can_free)
{
	if (!can_free)
		contig_run_flush(run, page);
	else if (!run->start)
		run->start = page;
}

unsigned long __free_contig_range(unsigned long pfn, unsigned long nr_pages)
{
	struct contig_run run = { NULL };
	unsigned long not_freed = 0;

	for (unsigned long i = 0; i < nr_pages; i++) {
		struct page *page = pfn_to_page(pfn + i);
		bool can_free;

		VM_WARN_ON_ONCE_PAGE(PageCompound(page), page);
		if (contig_run_breaks_at(pfn + i))
			contig_run_flush(&run, page);
		can_free = contig_put_page(page, &not_freed) && contig_page_prepare(page);
		contig_run_next(&run, page, can_free);
	}
	contig_run_flush(&run, pfn_to_page(pfn + nr_pages));
	return not_freed;
}

#else /* vanilla */

unsigned long __free_contig_range(unsigned long pfn, unsigned long nr_pages)
{
	unsigned long not_freed = 0;

	for (; nr_pages--; pfn++) {
		struct page *page = pfn_to_page(pfn);

		not_freed += page_count(page) != 1;
		__free_page(page);
	}
	return not_freed;
}

#endif /* FREE_CONTIG_BATCHING */

void free_contig_range(unsigned long pfn, unsigned long nr_pages)
{
	struct folio *folio = page_folio(pfn_to_page(pfn));
	unsigned long count;

	if (folio_test_large(folio)) {
		if (nr_pages == folio_nr_pages(folio))
			folio_put(folio);
		else
			fprintf(stderr, "WARNING: free_contig_range: %lu pages of an order-%u folio\n",
				nr_pages, folio_order(folio));
		return;
	}
	count = __free_contig_range(pfn, nr_pages);
	if (count)
		fprintf(stderr, "WARNING: free_contig_range: %lu pages are still in use!\n", count);
}

/*
 * Free a range of order-0 pages allocated frozen (alloc_contig_frozen_range):
 * there is no reference to put.  The merged design batches it like
 * __free_contig_range(); v1 did not touch it.
 */
#ifdef CONFIG_CONTIG_BULK
void __free_contig_frozen_range(unsigned long pfn, unsigned long nr_pages)
{
	struct contig_run run = { NULL };

	for (unsigned long i = 0; i < nr_pages; i++) {
		struct page *page = pfn_to_page(pfn + i);

		if (contig_run_breaks_at(pfn + i))
			contig_run_flush(&run, page);
		contig_run_next(&run, page, contig_page_prepare(page));
	}
	contig_run_flush(&run, pfn_to_page(pfn + nr_pages));
}
#else
void __free_contig_frozen_range(unsigned long pfn, unsigned long nr_pages)
{
	for (; nr_pages--; pfn++)
		free_frozen_pages(pfn_to_page(pfn), 0);
}
#endif

/* How many pages from the start of @pages are physically consecutive. */
static unsigned long num_pages_contiguous(struct page **pages, unsigned long nr)
{
	unsigned long pfn = page_to_pfn(pages[0]), i;

	for (i = 1; i < nr; i++)
		if (page_to_pfn(pages[i]) != pfn + i)
			break;
	return i;
}

void free_pages_bulk(struct page **page_array, unsigned long nr_pages)
{
	while (nr_pages) {
		unsigned long nr = num_pages_contiguous(page_array, nr_pages);

		__free_contig_range(page_to_pfn(page_array[0]), nr);
		page_array += nr;
		nr_pages -= nr;
	}
}
