/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mm-internal interfaces (mm/internal.h): what page_alloc.c shares with
 * the rest of mm but not with the world.
 */
#ifndef _MM_INTERNAL_H
#define _MM_INTERNAL_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/mmzone.h>

/* Free Page Internal flags: for internal, non-pcp variants of free_pages(). */
typedef int fpi_t;
#define FPI_NONE	0
/* Place the freed block at the tail of its free list (no recent use). */
#define FPI_TO_TAIL	((fpi_t)BIT(1))
/* Free the page without taking locks; rely on trylock only. */
#define FPI_TRYLOCK	((fpi_t)BIT(2))
/* free_pages_prepare() has already been called for the page(s) being freed. */
#define FPI_PREPARED	((fpi_t)BIT(3))

/*
 * Check a block about to be freed and clean its struct pages; false if a
 * page is bad (it is then reported and leaked).
 */
bool free_pages_prepare(struct page *page, unsigned int order);
/*
 * The same for 1 << order contiguous order-0 pages prepared as one chunk;
 * false (with nothing changed) if any of them is bad.
 */
bool free_pages_prepare_contig(struct page *page, unsigned int order);
void __free_frozen_pages(struct page *page, unsigned int order, fpi_t fpi_flags);

static inline void set_page_refcounted(struct page *page)
{
	VM_WARN_ON_ONCE_PAGE(PageTail(page), page);
	VM_WARN_ON_ONCE_PAGE(page_ref_count(page), page);
	init_page_count(page);
}

struct backing_file;
struct vm_area_struct;

/* The largest batch of folios read with one request. */
#define RA_BATCH_MAX	1024

/*
 * Read @nr folios covering consecutive file offsets from the backing store
 * with one request; whatever lies past the end of the file reads as
 * zeroes.  False on an I/O error.  backing_read_folios() is the synchronous
 * read of the CPU that wants the data (it spends the device latency and
 * counts the request); backing_fill_folios() is the transfer alone, as the
 * device does it.
 */
bool backing_read_folios(struct backing_file *bf, struct folio **folios, unsigned int nr);
bool backing_fill_folios(struct backing_file *bf, struct folio **folios, unsigned int nr);

/*
 * Zap the entries of [start, end) of @vma (zap_pte_range() for file
 * folios): clear them, flush, drop mapcounts, RSS and references.
 */
void unmap_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);

#endif
