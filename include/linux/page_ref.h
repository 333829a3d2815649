/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page reference counts, in every design the folio refcount series
 * (seed 000) went through.  One design is compiled into a kernel build:
 *
 *  vanilla (default)
 *	_refcount 0 means frozen (or free).  page_ref_add_unless_frozen() is
 *	a compare-exchange loop that refuses to move a counter off zero.
 *
 *  CONFIG_REFCOUNT_FROZEN_BIT (the series, v4)
 *	bit 31 (PAGEREF_FROZEN_BIT) means frozen:
 *	    1 .. INT_MAX	owned
 *	    0			no owner, only transiently inside dec_and_test
 *	    INT_MIN .. -1	frozen (and free pages are frozen)
 *	A try-get is one optimistic fetch-add, checked afterwards; a failed
 *	try-get leaves its increment on the frozen counter (freeing or
 *	allocation overwrites it), and undoes the garbage once the frozen
 *	counter has grown to 2^30 so it can never carry into bit 31's
 *	neighbour and wrap to 0.  dec_and_test/sub_and_test take 0 to frozen
 *	with a compare-exchange, and only the winner of that exchange frees.
 *
 *  CONFIG_REFCOUNT_CMPXCHG_GUESS (Linus Torvalds' alternative in review)
 *	zero means frozen as in vanilla, but a try-get does not read the
 *	counter first: it guesses 1 and lets try_cmpxchg tell the real value.
 *
 * The seqcount-read design (Kirill Shutemov's short reads) uses vanilla
 * counts and skips them on the read path; it lives in mm/filemap.c.
 *
 * Ordering is the kernel's: value-returning operations are fully ordered,
 * a successful try-get is fully ordered, page_ref_freeze() is a fully
 * ordered cmpxchg, page_ref_unfreeze() a release store.  In the
 * frozen-bit design the 0 -> frozen step of dec_and_test is relaxed: the
 * decrement before it already ordered the caller's accesses.
 *
 * The PGREF_* vm events (CONFIG_DEBUG_VM_EVENTS) count try-gets, retries
 * and undo loops, as the kernel's page_ref tracepoints would observe them.
 * They exist only in the event and debug builds, never in the timed one.
 */
#ifndef _LINUX_PAGE_REF_H
#define _LINUX_PAGE_REF_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/mm_types.h>
#include <linux/mmdebug.h>
#include <linux/vmstat.h>

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
#define PAGEREF_FROZEN_BIT	((int)BIT(31))
/* A failed try-get undoes the garbage of a frozen counter at this value. */
#define PAGEREF_FROZEN_LIMIT	((unsigned int)(BIT(30) | BIT(31)))
#define PAGEREF_FROZEN_VALUE	PAGEREF_FROZEN_BIT

static inline bool __page_count_is_frozen(int count)
{
	return count & PAGEREF_FROZEN_BIT;
}
#else
#define PAGEREF_FROZEN_VALUE	0

static inline bool __page_count_is_frozen(int count)
{
	return count == 0;
}
#endif

static inline bool __page_is_frozen(const struct page *page)
{
	return __page_count_is_frozen(atomic_read(&page->_refcount));
}

/* The raw counter, for checkers and tests: includes the frozen bit. */
static inline int page_ref_raw(const struct page *page)
{
	return atomic_read(&page->_refcount);
}

static inline int page_ref_count(const struct page *page)
{
	int val = atomic_read(&page->_refcount);

	if (__page_count_is_frozen(val))
		return 0;
	return val;
}

static inline int folio_ref_count(const struct folio *folio)
{
	return page_ref_count(&folio->page);
}

static inline void set_page_count(struct page *page, int v)
{
	atomic_set(&page->_refcount, v);
}

static inline void init_page_count(struct page *page)
{
	set_page_count(page, 1);
}

static inline void folio_init_count(struct folio *folio)
{
	init_page_count(&folio->page);
}

static inline void set_page_count_frozen(struct page *page)
{
	set_page_count(page, PAGEREF_FROZEN_VALUE);
}

/* --- modifications of a counter the caller already holds a reference on -- */

static inline void page_ref_add(struct page *page, int nr)
{
	VM_WARN_ON_ONCE_PAGE(__page_is_frozen(page), page);
	atomic_add(nr, &page->_refcount);
}

static inline void folio_ref_add(struct folio *folio, int nr)
{
	page_ref_add(&folio->page, nr);
}

static inline void page_ref_sub(struct page *page, int nr)
{
	VM_WARN_ON_ONCE_PAGE(__page_is_frozen(page), page);
	atomic_sub(nr, &page->_refcount);
}

static inline void folio_ref_sub(struct folio *folio, int nr)
{
	page_ref_sub(&folio->page, nr);
}

static inline void page_ref_inc(struct page *page)
{
	page_ref_add(page, 1);
}

static inline void folio_ref_inc(struct folio *folio)
{
	page_ref_inc(&folio->page);
}

static inline void page_ref_dec(struct page *page)
{
	page_ref_sub(page, 1);
}

static inline void folio_ref_dec(struct folio *folio)
{
	page_ref_dec(&folio->page);
}

static inline int page_ref_sub_return(struct page *page, int nr)
{
	int ret = atomic_sub_return(nr, &page->_refcount);

	VM_WARN_ON_ONCE_PAGE(__page_count_is_frozen(ret + nr), page);
	return ret;
}

static inline int folio_ref_sub_return(struct folio *folio, int nr)
{
	return page_ref_sub_return(&folio->page, nr);
}

static inline int page_ref_inc_return(struct page *page)
{
	int ret = atomic_inc_return(&page->_refcount);

	VM_WARN_ON_ONCE_PAGE(__page_count_is_frozen(ret - 1), page);
	return ret;
}

static inline int folio_ref_inc_return(struct folio *folio)
{
	return page_ref_inc_return(&folio->page);
}

static inline int page_ref_dec_return(struct page *page)
{
	int ret = atomic_dec_return(&page->_refcount);

	VM_WARN_ON_ONCE_PAGE(__page_count_is_frozen(ret + 1), page);
	return ret;
}

static inline int folio_ref_dec_return(struct folio *folio)
{
	return page_ref_dec_return(&folio->page);
}

/*
 * In the frozen-bit design a counter that reached zero is not yet frozen:
 * a speculative try-get may still take it from 0 to 1.  Whoever moves it
 * from 0 to frozen owns the free; a racing try-get that got in first makes
 * this exchange fail, and then that getter's own put frees the page.
 */
#if defined(CONFIG_REFCOUNT_FROZEN_BIT) && !defined(CONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS)
static inline bool page_ref_zero_to_frozen(struct page *page)
{
	if (atomic_cmpxchg_relaxed(&page->_refcount, 0, PAGEREF_FROZEN_BIT) != 0) {
		count_debug_vm_event(PGREF_PUT_RACE);
		return false;
	}
	return true;
}
#else
/*
 * Zero is frozen already.  The frozen-bit mutant leaves the counter at
 * zero, unfrozen: the bug its tests must catch.
 */
static inline bool page_ref_zero_to_frozen(struct page *page)
{
	return true;
}
#endif

static inline bool page_ref_sub_and_test(struct page *page, int nr)
{
	int ret = atomic_sub_return(nr, &page->_refcount);

	VM_WARN_ON_ONCE_PAGE(__page_count_is_frozen(ret + nr), page);
	return ret == 0 && page_ref_zero_to_frozen(page);
}

static inline bool folio_ref_sub_and_test(struct folio *folio, int nr)
{
	return page_ref_sub_and_test(&folio->page, nr);
}

static inline bool page_ref_dec_and_test(struct page *page)
{
	return page_ref_sub_and_test(page, 1);
}

static inline bool folio_ref_dec_and_test(struct folio *folio)
{
	return page_ref_dec_and_test(&folio->page);
}

/* --- speculative references ---------------------------------------------- */

#if defined(CONFIG_REFCOUNT_FROZEN_BIT)

static inline bool page_ref_add_unless_frozen(struct page *page, int nr)
{
	int val = atomic_add_return(nr, &page->_refcount);

	count_debug_vm_event(PGREF_TRYGET);
	if (likely(!(val & PAGEREF_FROZEN_BIT)))
		return true;

	count_debug_vm_event(PGREF_TRYGET_FAIL);
	/*
	 * Failed gets leave their increments behind.  Before the garbage
	 * could reach bit 31's carry, put the counter back to plain frozen.
	 * A concurrent unfreeze or allocation changes the value, the exchange
	 * fails with a value below the limit, and the loop ends.
	 */
	while (unlikely((unsigned int)val >= PAGEREF_FROZEN_LIMIT)) {
		count_debug_vm_event(PGREF_UNDO_LOOP);
		val = atomic_cmpxchg_relaxed(&page->_refcount, val, PAGEREF_FROZEN_BIT);
	}
	return false;
}

#elif defined(CONFIG_REFCOUNT_CMPXCHG_GUESS)

static inline bool page_ref_add_unless_frozen(struct page *page, int nr)
{
	int old = 1;	/* the common case: only the page cache holds it */

	count_debug_vm_event(PGREF_TRYGET);
	while (!atomic_try_cmpxchg(&page->_refcount, &old, old + nr)) {
		if (unlikely(old == 0)) {
			count_debug_vm_event(PGREF_TRYGET_FAIL);
			return false;
		}
		count_debug_vm_event(PGREF_CAS_RETRY);
	}
	return true;
}

#else /* vanilla */

static inline bool page_ref_add_unless_frozen(struct page *page, int nr)
{
	int old = atomic_read(&page->_refcount);

	count_debug_vm_event(PGREF_TRYGET);
	for (;;) {
		if (unlikely(old == 0)) {
			count_debug_vm_event(PGREF_TRYGET_FAIL);
			return false;
		}
		if (likely(atomic_try_cmpxchg(&page->_refcount, &old, old + nr)))
			return true;
		count_debug_vm_event(PGREF_CAS_RETRY);
	}
}

#endif

static inline bool folio_ref_add_unless_frozen(struct folio *folio, int nr)
{
	return page_ref_add_unless_frozen(&folio->page, nr);
}

static inline bool get_page_unless_zero(struct page *page)
{
	return page_ref_add_unless_frozen(page, 1);
}

/**
 * folio_try_get - Attempt to increase the refcount on a folio.
 * Returns false if the folio is frozen (being freed, split or migrated,
 * or already free).  The caller must then not touch the folio, and, if it
 * found the folio through a lookup, must recheck that lookup after success.
 */
static inline bool folio_try_get(struct folio *folio)
{
	return folio_ref_add_unless_frozen(folio, 1);
}

static inline bool folio_ref_try_add(struct folio *folio, int count)
{
	return folio_ref_add_unless_frozen(folio, count);
}

/* --- freezing ------------------------------------------------------------ */

static inline bool page_ref_freeze(struct page *page, int count)
{
	return likely(atomic_cmpxchg(&page->_refcount, count,
				     PAGEREF_FROZEN_VALUE) == count);
}

static inline bool folio_ref_freeze(struct folio *folio, int count)
{
	return page_ref_freeze(&folio->page, count);
}

static inline void page_ref_unfreeze(struct page *page, int count)
{
	VM_WARN_ON_ONCE_PAGE(!__page_is_frozen(page), page);
	VM_WARN_ON_ONCE_PAGE(count == 0, page);
	atomic_set_release(&page->_refcount, count);
}

static inline void folio_ref_unfreeze(struct folio *folio, int count)
{
	page_ref_unfreeze(&folio->page, count);
}

#endif /* _LINUX_PAGE_REF_H */
