/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated machine's memory: an arena of PAGE_SIZE pages and its
 * memmap of struct page, with the kernel's pfn <-> page <-> address
 * conversions, compound pages (folios) and folio reference helpers.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/log2.h>
#include <linux/mm_types.h>
#include <linux/page-flags.h>
#include <linux/page_ref.h>
#include <linux/mmdebug.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#define MAX_PAGE_ORDER		10
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)
#define MAX_ORDER_NR_PAGES	(1UL << MAX_PAGE_ORDER)
#define pageblock_order		9
#define pageblock_nr_pages	(1UL << pageblock_order)
#define PAGE_ALLOC_COSTLY_ORDER	3

/* Memory sections (SPARSEMEM): 128 MiB on x86-64. */
#define SECTION_SIZE_BITS	27
#define PAGES_PER_SECTION	(1UL << (SECTION_SIZE_BITS - PAGE_SHIFT))

/* The machine: memmap[0 .. max_pfn) describes arena[0 .. max_pfn * PAGE_SIZE). */
extern struct page *mem_map;
extern unsigned long max_pfn;
extern char *mem_arena;

/* Boot and tear down the simulated memory (mm/memmap.c). */
int mem_init(unsigned long long bytes);
void mem_exit(void);

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline bool pfn_valid(unsigned long pfn)
{
	return pfn < max_pfn;
}

static inline void *page_address(const struct page *page)
{
	return mem_arena + (page_to_pfn(page) << PAGE_SHIFT);
}

static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page((unsigned long)((const char *)addr - mem_arena) >> PAGE_SHIFT);
}

static inline struct page *compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (unlikely(head & 1))
		return (struct page *)(head - 1);
	return (struct page *)page;
}

#define page_folio(p)		((struct folio *)compound_head(p))
#define folio_page(folio, n)	(&(folio)->page + (n))

static inline unsigned int folio_order(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 0;
	return folio->_flags_1 & 0xff;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1UL << folio_order(folio);
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

static inline void *folio_address(const struct folio *folio)
{
	return page_address(&folio->page);
}

static inline pgoff_t folio_next_index(const struct folio *folio)
{
	return folio->index + folio_nr_pages(folio);
}

/* Compound pages (mm/page_alloc.c). */
void prep_compound_page(struct page *page, unsigned int order);
void destroy_compound_page(struct page *page, unsigned int order);

static inline int page_count(const struct page *page)
{
	return folio_ref_count(page_folio(page));
}

static inline int folio_mapcount(const struct folio *folio)
{
	return atomic_read(&folio->_mapcount) + 1;
}

static inline bool folio_mapped(const struct folio *folio)
{
	return folio_mapcount(folio) > 0;
}

/* --- references ---------------------------------------------------------- */

static inline void folio_get(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_ref_count(folio) <= 0, folio);
	folio_ref_inc(folio);
}

static inline void get_page(struct page *page)
{
	folio_get(page_folio(page));
}

static inline bool folio_put_testzero(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_ref_count(folio) == 0, folio);
	return folio_ref_dec_and_test(folio);
}

static inline bool put_page_testzero(struct page *page)
{
	return folio_put_testzero(page_folio(page));
}

/* Frees a folio whose last reference is gone (mm/swap.c in the kernel). */
void __folio_put(struct folio *folio);

static inline void folio_put(struct folio *folio)
{
	if (folio_put_testzero(folio))
		__folio_put(folio);
}

static inline void folio_put_refs(struct folio *folio, int refs)
{
	if (folio_ref_sub_and_test(folio, refs))
		__folio_put(folio);
}

static inline void put_page(struct page *page)
{
	folio_put(page_folio(page));
}

#endif
