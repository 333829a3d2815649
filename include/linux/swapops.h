/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Swap-format entries (linux/swapops.h): what a page-table entry holds when
 * it is neither none nor present.  The model has no swap; the entries it
 * uses are migration entries, which name the pfn of the folio being
 * migrated and say how the entry may be restored:
 *
 *   SWP_MIGRATION_READ            restore read-only; the page may be shared
 *   SWP_MIGRATION_READ_EXCLUSIVE  restore read-only, PageAnonExclusive
 *   SWP_MIGRATION_WRITE           restore writable (and exclusive, for anon)
 *
 * The young and dirty bits of the entry replaced are kept in the offset,
 * above the pfn, as the kernel does where migration_entry_supports_ad().
 *
 * The model's PTE layout of such an entry (x86-64 keeps its own, inverted
 * one; nothing here depends on the exact bits):
 *
 *   bit 0       present = 0
 *   bits 1..5   swap type (MAX_SWAPFILES_SHIFT bits)
 *   bits 12..51 offset: for migration entries, the pfn in bits 12..49,
 *               young in bit 50, dirty in bit 51
 *
 * Bit 52 (_PAGE_CONT, the model's arm64 contiguous hint) is never set in a
 * non-present entry, so contpte code never mistakes one for a block.
 */
#ifndef _LINUX_SWAPOPS_H
#define _LINUX_SWAPOPS_H

#include <linux/mm.h>
#include <linux/pgtable.h>

#define MAX_SWAPFILES_SHIFT	5
/*
 * The top types are special, as in the kernel with no device-private
 * entries: hwpoison, the three migration types, PTE markers.
 */
#define SWP_HWPOISON			27
#define SWP_MIGRATION_READ		28
#define SWP_MIGRATION_READ_EXCLUSIVE	29
#define SWP_MIGRATION_WRITE		30
#define SWP_PTE_MARKER			31
#define MAX_SWAPFILES			SWP_HWPOISON

#define SWP_TYPE_SHIFT		(BITS_PER_LONG - MAX_SWAPFILES_SHIFT)
#define SWP_OFFSET_MASK		((1UL << SWP_TYPE_SHIFT) - 1)

/* Migration entries: the pfn, then the young and dirty bits. */
#define SWP_PFN_BITS		38
#define SWP_PFN_MASK		((1UL << SWP_PFN_BITS) - 1)
#define SWP_MIG_YOUNG_BIT	(SWP_PFN_BITS)
#define SWP_MIG_DIRTY_BIT	(SWP_PFN_BITS + 1)
#define SWP_MIG_TOTAL_BITS	(SWP_PFN_BITS + 2)

#define _PAGE_SWP_TYPE_SHIFT	1

static inline swp_entry_t swp_entry(unsigned long type, unsigned long offset)
{
	return (swp_entry_t){ .val = (type << SWP_TYPE_SHIFT) | (offset & SWP_OFFSET_MASK) };
}

static inline unsigned int swp_type(swp_entry_t entry)
{
	return (unsigned int)(entry.val >> SWP_TYPE_SHIFT);
}

static inline unsigned long swp_offset(swp_entry_t entry)
{
	return entry.val & SWP_OFFSET_MASK;
}

/* A PTE that is neither none nor present: a swap-format entry. */
static inline bool is_swap_pte(pte_t pte)
{
	return !pte_none(pte) && !pte_present(pte);
}

static inline pte_t swp_entry_to_pte(swp_entry_t entry)
{
	return __pte(((pteval_t)swp_offset(entry) << PAGE_SHIFT) |
		     ((pteval_t)swp_type(entry) << _PAGE_SWP_TYPE_SHIFT));
}

static inline swp_entry_t pte_to_swp_entry(pte_t pte)
{
	return swp_entry((pte_val(pte) >> _PAGE_SWP_TYPE_SHIFT) & ((1UL << MAX_SWAPFILES_SHIFT) - 1),
			 (unsigned long)((pte_val(pte) & PTE_PFN_MASK) >> PAGE_SHIFT));
}

static inline bool non_swap_entry(swp_entry_t entry)
{
	return swp_type(entry) >= MAX_SWAPFILES;
}

/* --- migration entries ------------------------------------------------------------ */

static inline bool is_migration_entry(swp_entry_t entry)
{
	return swp_type(entry) == SWP_MIGRATION_READ ||
	       swp_type(entry) == SWP_MIGRATION_READ_EXCLUSIVE ||
	       swp_type(entry) == SWP_MIGRATION_WRITE;
}

static inline bool is_writable_migration_entry(swp_entry_t entry)
{
	return swp_type(entry) == SWP_MIGRATION_WRITE;
}

static inline bool is_readable_migration_entry(swp_entry_t entry)
{
	return swp_type(entry) == SWP_MIGRATION_READ;
}

static inline bool is_readable_exclusive_migration_entry(swp_entry_t entry)
{
	return swp_type(entry) == SWP_MIGRATION_READ_EXCLUSIVE;
}

static inline swp_entry_t make_readable_migration_entry(unsigned long offset)
{
	return swp_entry(SWP_MIGRATION_READ, offset);
}

static inline swp_entry_t make_readable_exclusive_migration_entry(unsigned long offset)
{
	return swp_entry(SWP_MIGRATION_READ_EXCLUSIVE, offset);
}

static inline swp_entry_t make_writable_migration_entry(unsigned long offset)
{
	return swp_entry(SWP_MIGRATION_WRITE, offset);
}

static inline swp_entry_t make_migration_entry_young(swp_entry_t entry)
{
	return swp_entry(swp_type(entry), swp_offset(entry) | BIT(SWP_MIG_YOUNG_BIT));
}

static inline bool is_migration_entry_young(swp_entry_t entry)
{
	return swp_offset(entry) & BIT(SWP_MIG_YOUNG_BIT);
}

static inline swp_entry_t make_migration_entry_dirty(swp_entry_t entry)
{
	return swp_entry(swp_type(entry), swp_offset(entry) | BIT(SWP_MIG_DIRTY_BIT));
}

static inline bool is_migration_entry_dirty(swp_entry_t entry)
{
	return swp_offset(entry) & BIT(SWP_MIG_DIRTY_BIT);
}

/* The pfn a migration entry names. */
static inline unsigned long swp_offset_pfn(swp_entry_t entry)
{
	return swp_offset(entry) & SWP_PFN_MASK;
}

static inline struct page *pfn_swap_entry_to_page(swp_entry_t entry)
{
	return pfn_to_page(swp_offset_pfn(entry));
}

static inline struct folio *pfn_swap_entry_folio(swp_entry_t entry)
{
	return page_folio(pfn_swap_entry_to_page(entry));
}

#endif
