/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page flags and page types.  Flag bits are changed with atomic bit
 * operations (folio_set_uptodate) or, where the page is not yet visible
 * to anyone else, with the non-atomic __folio_set_* forms.
 */
#ifndef _LINUX_PAGE_FLAGS_H
#define _LINUX_PAGE_FLAGS_H

#include <linux/mm_types.h>
#include <linux/bits.h>

enum pageflags {
	PG_locked,
	PG_writeback,
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,
	PG_head,
	PG_waiters,
	PG_active,
	PG_workingset,
	PG_owner_priv_1,
	PG_reserved,
	PG_private,
	PG_reclaim,
	PG_swapbacked,
	PG_unevictable,
	PG_mlocked,
	PG_hwpoison,
	PG_anon_exclusive,	/* the kernel aliases PG_mappedtodisk; a per-page flag */
	NR_PAGEFLAGS,

	PG_readahead = PG_reclaim,	/* file folios: readahead marker */
};

/* Flags a page must not carry when it is freed. */
#define PAGE_FLAGS_CHECK_AT_FREE					\
	(BIT(PG_lru) | BIT(PG_locked) | BIT(PG_private) |		\
	 BIT(PG_writeback) | BIT(PG_reserved) | BIT(PG_active) |	\
	 BIT(PG_unevictable) | BIT(PG_mlocked) | BIT(PG_hwpoison))

/* Flags cleared when a page is prepared for freeing. */
#define PAGE_FLAGS_CHECK_AT_PREP	(BIT(NR_PAGEFLAGS) - 1)

/*
 * The bit operations go through the shims' memory operations, so that the
 * interleaving checker's weak-memory mode sees their orderings (what
 * folio_mark_uptodate() publishes, what the folio lock orders); elsewhere
 * they are the compiler's builtins.  Only the lock's own operations
 * (test_and_set_bit_lock(), clear_bit_unlock() and the unlock's xor) are
 * steps of the checker, as every other lock operation is.
 */
static inline bool test_bit(int nr, const unsigned long *addr)
{
	return (__shim_load(addr, __ATOMIC_RELAXED) >> nr) & 1;
}

static inline void set_bit(int nr, unsigned long *addr)
{
	(void)__shim_fetch_or(addr, BIT(nr), __ATOMIC_RELAXED);
}

static inline void clear_bit(int nr, unsigned long *addr)
{
	(void)__shim_fetch_and(addr, ~BIT(nr), __ATOMIC_RELAXED);
}

static inline bool test_and_set_bit(int nr, unsigned long *addr)
{
	return (__shim_fetch_or(addr, BIT(nr), __ATOMIC_SEQ_CST) >> nr) & 1;
}

static inline bool test_and_clear_bit(int nr, unsigned long *addr)
{
	return (__shim_fetch_and(addr, ~BIT(nr), __ATOMIC_SEQ_CST) >> nr) & 1;
}

/* A bit lock's acquire: later accesses stay after it (folio_trylock()). */
static inline bool test_and_set_bit_lock(int nr, unsigned long *addr)
{
	__atomic_step();
	return (__shim_fetch_or(addr, BIT(nr), __ATOMIC_ACQUIRE) >> nr) & 1;
}

static inline void clear_bit_unlock(int nr, unsigned long *addr)
{
	__atomic_step();
	(void)__shim_fetch_and(addr, ~BIT(nr), __ATOMIC_RELEASE);
}

/*
 * Flip @mask's bits (set ones: this clears them) with release order and
 * say whether PG_waiters was set, in one RMW: folio_unlock()'s way of
 * learning whether anyone sleeps on the folio (x86: a locked xorb and its
 * sign bit, PG_waiters being bit 7 of the byte).
 */
static inline bool xor_unlock_is_waiters_set(unsigned long mask, unsigned long *addr)
{
	__atomic_step();
	return (__shim_fetch_xor(addr, mask, __ATOMIC_RELEASE) >> PG_waiters) & 1;
}

/* Non-atomic forms, for pages nobody else can see. */
static inline void __set_bit(int nr, unsigned long *addr)
{
	WRITE_ONCE(*addr, READ_ONCE(*addr) | BIT(nr));
}

static inline void __clear_bit(int nr, unsigned long *addr)
{
	WRITE_ONCE(*addr, READ_ONCE(*addr) & ~BIT(nr));
}

/*
 * folio_test_X / folio_set_X / folio_clear_X / __folio_set_X /
 * __folio_clear_X and PageX for each flag, as the kernel's FOLIO_FLAG().
 */
#define FOLIO_FLAG(name, bit)						\
static inline bool folio_test_##name(const struct folio *folio)		\
{ return test_bit(bit, &folio->flags); }				\
static inline void folio_set_##name(struct folio *folio)		\
{ set_bit(bit, &folio->flags); }					\
static inline void folio_clear_##name(struct folio *folio)		\
{ clear_bit(bit, &folio->flags); }					\
static inline void __folio_set_##name(struct folio *folio)		\
{ __set_bit(bit, &folio->flags); }					\
static inline void __folio_clear_##name(struct folio *folio)		\
{ __clear_bit(bit, &folio->flags); }					\
static inline bool folio_test_set_##name(struct folio *folio)		\
{ return test_and_set_bit(bit, &folio->flags); }			\
static inline bool folio_test_clear_##name(struct folio *folio)		\
{ return test_and_clear_bit(bit, &folio->flags); }

FOLIO_FLAG(locked, PG_locked)
FOLIO_FLAG(referenced, PG_referenced)
FOLIO_FLAG(dirty, PG_dirty)
FOLIO_FLAG(lru, PG_lru)
FOLIO_FLAG(active, PG_active)
FOLIO_FLAG(workingset, PG_workingset)
FOLIO_FLAG(readahead, PG_readahead)
FOLIO_FLAG(reclaim, PG_reclaim)
FOLIO_FLAG(swapbacked, PG_swapbacked)
FOLIO_FLAG(unevictable, PG_unevictable)
FOLIO_FLAG(mlocked, PG_mlocked)
FOLIO_FLAG(writeback, PG_writeback)
FOLIO_FLAG(private, PG_private)
FOLIO_FLAG(hwpoison, PG_hwpoison)
FOLIO_FLAG(waiters, PG_waiters)

static inline bool folio_xor_flags_has_waiters(struct folio *folio, unsigned long mask)
{
	return xor_unlock_is_waiters_set(mask, &folio->flags);
}
#undef FOLIO_FLAG

/*
 * Uptodate publishes the folio's contents: the setter's writes to the data
 * must be visible to whoever sees the flag (smp_wmb before setting,
 * smp_rmb after testing, in the kernel; release/acquire here).
 */
static inline bool folio_test_uptodate(const struct folio *folio)
{
	return (__shim_load(&folio->flags, __ATOMIC_ACQUIRE) >> PG_uptodate) & 1;
}

static inline void folio_mark_uptodate(struct folio *folio)
{
	(void)__shim_fetch_or(&folio->flags, BIT(PG_uptodate), __ATOMIC_RELEASE);
}

static inline void folio_clear_uptodate(struct folio *folio)
{
	clear_bit(PG_uptodate, &folio->flags);
}

static inline bool PageHead(const struct page *page)
{
	return test_bit(PG_head, &page->flags);
}

static inline bool PageTail(const struct page *page)
{
	return READ_ONCE(page->compound_head) & 1;
}

static inline bool PageCompound(const struct page *page)
{
	return PageHead(page) || PageTail(page);
}

static inline bool PageReserved(const struct page *page)
{
	return test_bit(PG_reserved, &page->flags);
}

static inline bool PageHWPoison(const struct page *page)
{
	return test_bit(PG_hwpoison, &page->flags);
}

static inline void SetPageHWPoison(struct page *page)
{
	set_bit(PG_hwpoison, &page->flags);
}

static inline bool folio_test_large(const struct folio *folio)
{
	return PageHead(&folio->page);
}

/*
 * An anonymous folio's mapping is its anon_vma with the low bit set
 * (FOLIO_MAPPING_ANON); a file folio's is its address_space.
 */
#define FOLIO_MAPPING_ANON	0x1UL
#define FOLIO_MAPPING_FLAGS	0x3UL

static inline bool folio_test_anon(const struct folio *folio)
{
	return ((unsigned long)READ_ONCE(folio->mapping) & FOLIO_MAPPING_ANON) != 0;
}

/*
 * PageAnonExclusive: this page of an anonymous folio is mapped by one
 * process only, which may write to it without copying.  Set when a fault
 * maps a new page or a write fault reuses one; cleared when fork shares
 * it (the kernel keeps it per page, in PG_mappedtodisk's bit).  Changed
 * under the page table lock, with atomic bit operations as the kernel does.
 */
static inline bool PageAnonExclusive(const struct page *page)
{
	return test_bit(PG_anon_exclusive, &page->flags);
}

static inline void SetPageAnonExclusive(struct page *page)
{
	set_bit(PG_anon_exclusive, (unsigned long *)&page->flags);
}

static inline void __SetPageAnonExclusive(struct page *page)
{
	__set_bit(PG_anon_exclusive, &page->flags);
}

static inline void ClearPageAnonExclusive(struct page *page)
{
	clear_bit(PG_anon_exclusive, &page->flags);
}

/*
 * Page types live in the top byte of page_type, which overlays _mapcount:
 * a page with a type is never mapped (mapcount -1 is 0xffffffff).
 */
enum pagetype {
	PGTY_buddy	= 0xf0,
	PGTY_offline	= 0xf1,
	PGTY_table	= 0xf2,
	PGTY_guard	= 0xf3,
	PGTY_mgt_entry	= 0xf4,	/* seed 003's RFC (mgt-entry): migration entries, low 24 bits */
	PGTY_mapcount_underflow = 0xff,
};

/* Is this value of page_type a type rather than a mapcount (top byte 0x80..0xfe)? */
static inline bool page_type_has_type(int page_type)
{
	return page_type < (int)((unsigned int)PGTY_mapcount_underflow << 24);
}

/* The same for @mapcount, one more than _mapcount, as folio_mapcount() reads it. */
static inline bool page_mapcount_is_type(unsigned int mapcount)
{
	return page_type_has_type((int)(mapcount - 1));
}

static inline bool page_has_type(const struct page *page)
{
	return page_type_has_type((int)__atomic_load_n(&page->page_type, __ATOMIC_RELAXED));
}

static inline bool PageBuddy(const struct page *page)
{
	return (__atomic_load_n(&page->page_type, __ATOMIC_RELAXED) >> 24) == PGTY_buddy;
}

static inline void __SetPageBuddy(struct page *page)
{
	__atomic_store_n(&page->page_type, (unsigned int)PGTY_buddy << 24, __ATOMIC_RELAXED);
}

/*
 * The RFC's PGTY_mgt_entry (design mgt-entry, linux/migrate.h): an unmapped
 * small folio under migration counts the migration entries naming it in
 * the low 24 bits.
 */
#define PAGE_TYPE_SHIFT		24
#define PAGE_TYPE_VALUE_MASK	((1U << PAGE_TYPE_SHIFT) - 1)

static inline bool PageMgtEntry(const struct page *page)
{
	return (__atomic_load_n(&page->page_type, __ATOMIC_RELAXED) >> PAGE_TYPE_SHIFT) ==
	       PGTY_mgt_entry;
}

static inline void __ClearPageBuddy(struct page *page)
{
	__atomic_store_n(&page->page_type, UINT32_MAX, __ATOMIC_RELAXED);
}

#endif
