// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache (mm/filemap.c): adding and removing folios, and the
 * lockless read path.
 *
 * Readers find folios under RCU and take a speculative reference with
 * folio_try_get().  The folio may have been removed, freed and even
 * reallocated between the lookup and the get (struct page itself is never
 * freed, so touching its refcount is always safe): a failed get means the
 * folio is frozen or free, and a successful one is only kept if the slot
 * still holds that folio afterwards.  Removal either drops the cache's
 * references (truncate: readers holding a reference keep the folio alive)
 * or freezes the count (reclaim: only if nobody else holds a reference),
 * and frees at once; nothing waits for a grace period but the XArray's own
 * nodes.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <linux/ktime.h>
#include <linux/mmzone.h>
#include <linux/memcontrol.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/swap.h>
#include <linux/uaccess.h>
#include <machine/machine.h>
#include "internal.h"

/* linux/uaccess.h: what a copy to user memory costs beyond the memcpy(). */
unsigned long copy_user_loops;

/*
 * Sleeping on a folio's lock, as the kernel does it: waiters queue on one
 * of PAGE_WAIT_TABLE_SIZE hashed wait queues (several folios may share
 * one), PG_waiters tells folio_unlock() that someone may be there, and the
 * unlock wakes the first waiter of its folio.  A waiter woken
 * sysctl_page_lock_unfairness times without getting the lock (another CPU
 * took it first) asks for a hand-off: the waker then takes the lock on
 * its behalf before waking it.
 *
 * Non-exclusive waiters (folio_wait_locked(): a reader waiting for a folio
 * under I/O) queue too, and one wake-up wakes every one of them ahead of
 * the first exclusive waiter.  The model's departures: the
 * queue is a singly linked FIFO, so a zeroed table is ready to use; the
 * waker unlinks an entry before it publishes WQ_FLAG_WOKEN, so a woken
 * waiter never needs the queue's lock again; the sleep itself is
 * io_schedule() until WQ_FLAG_WOKEN shows (in virtual time a sleep that
 * the waker's release store ends).
 */
#define PAGE_WAIT_TABLE_BITS	8
#define PAGE_WAIT_TABLE_SIZE	(1 << PAGE_WAIT_TABLE_BITS)

#define WQ_FLAG_EXCLUSIVE	0x01
#define WQ_FLAG_WOKEN		0x02
#define WQ_FLAG_CUSTOM		0x04
#define WQ_FLAG_DONE		0x08

struct wait_page_queue {
	struct folio *folio;
	int bit_nr;
	atomic_t flags;		/* the kernel's wait->flags, read and published with order */
	struct wait_page_queue *next;
};

/* The kernel's wait_queue_head_t: a lock and a list, 24 bytes. */
struct folio_wait_head {
	spinlock_t lock;
	struct wait_page_queue *head, *tail;
};

static struct folio_wait_head folio_wait_table[PAGE_WAIT_TABLE_SIZE] __attribute__((aligned(64)));

int sysctl_page_lock_unfairness = 5;

/*
 * The kernel hashes the folio's address (hash_ptr(): a golden-ratio
 * multiply); its memmap sits at a fixed address, so that is a hash of the
 * pfn.  The model's memmap moves with the process's layout, so it hashes
 * the memmap address the pfn would have at 0: which folios share a queue
 * is the same on every run (virtual time's determinism depends on it).
 */
static struct folio_wait_head *folio_waitqueue(struct folio *folio)
{
	uint64_t key = (uint64_t)folio_pfn(folio) * sizeof(struct page);

	return &folio_wait_table[(key * 0x61C8864680B583EBull) >> (64 - PAGE_WAIT_TABLE_BITS)];
}

static void wait_queue_add_tail(struct folio_wait_head *q, struct wait_page_queue *wait)
{
	wait->next = NULL;
	if (q->tail)
		q->tail->next = wait;
	else
		q->head = wait;
	q->tail = wait;
}

/* Unlink @wait, which follows @prev (NULL: it is the first). */
static void wait_queue_del(struct folio_wait_head *q, struct wait_page_queue *prev,
			   struct wait_page_queue *wait)
{
	if (prev)
		prev->next = wait->next;
	else
		q->head = wait->next;
	if (q->tail == wait)
		q->tail = prev;
}

/*
 * Called under q->lock for a queued waiter of @folio's @bit_nr: 1 if an
 * exclusive waiter was woken (for a hand-off, with the lock taken for it),
 * 0 for a non-exclusive one (the walk goes on), -1 if the bit is taken
 * again and the walk must stop.
 */
static int wake_page_function(struct folio_wait_head *q, struct wait_page_queue *prev,
			      struct wait_page_queue *wait, struct folio *folio, int bit_nr)
{
	unsigned int flags = atomic_read(&wait->flags);

	if (flags & WQ_FLAG_EXCLUSIVE) {
		if (test_bit(bit_nr, &folio->flags))
			return -1;
		if (flags & WQ_FLAG_CUSTOM) {
			if (test_and_set_bit(bit_nr, &folio->flags))
				return -1;
			flags |= WQ_FLAG_DONE;
		}
	}
	wait_queue_del(q, prev, wait);
	/* The waiter may return as soon as it sees this: @wait is not touched again. */
	atomic_set_release(&wait->flags, flags | WQ_FLAG_WOKEN);
	return (flags & WQ_FLAG_EXCLUSIVE) ? 1 : 0;
}

void folio_wake_bit(struct folio *folio, int bit_nr)
{
	struct folio_wait_head *q = folio_waitqueue(folio);
	struct wait_page_queue *wait, *prev = NULL, *next;
	bool page_match = false;

	spin_lock(&q->lock);
	for (wait = q->head; wait; wait = next) {
		int ret;

		next = wait->next;	/* read before a wake-up lets the waiter go */
		if (wait->folio != folio || wait->bit_nr != bit_nr) {
			prev = wait;
			continue;
		}
		page_match = true;
		ret = wake_page_function(q, prev, wait, folio, bit_nr);
		if (ret)
			break;	/* one exclusive waiter woken, or the bit is taken */
		/* a non-exclusive waiter woken and unlinked: prev stays */
	}
	/*
	 * The queue is empty, or held no waiter of this folio: clear
	 * PG_waiters.  Otherwise it stays, even if the waiters left are other
	 * folios' (a spurious wake-up call at the next unlock), as in the kernel.
	 */
	if (!q->head || !page_match)
		folio_clear_waiters(folio);
	spin_unlock(&q->lock);
}

/*
 * PG_waiters goes up under the queue's lock before the waiter's last try:
 * an unlock that comes after the try then sees it and wakes the waiter.
 * The folio-lock-late-waiters mutant sets it only once queued, outside the
 * lock: an unlock between the try and the mark wakes nobody, the lost
 * wake-up tests/check_folio_lock.c must catch.
 */
#ifndef CONFIG_FILEMAP_MUTANT_LATE_WAITERS
static inline void folio_mark_waiters_before_try(struct folio *folio)
{
	folio_set_waiters(folio);
}

static inline void folio_mark_waiters_when_queued(struct folio *folio)
{
}
#else
static inline void folio_mark_waiters_before_try(struct folio *folio)
{
}

static inline void folio_mark_waiters_when_queued(struct folio *folio)
{
	folio_set_waiters(folio);
}
#endif

enum behavior {
	EXCLUSIVE,	/* take the bit (folio_lock()) */
	SHARED,		/* wait until it is clear (folio_wait_locked()) */
};

/* Under q->lock: take the bit (exclusive) or see it clear (shared). */
static bool folio_trylock_flag(struct folio *folio, int bit_nr, unsigned int flags)
{
	if (flags & WQ_FLAG_EXCLUSIVE)
		return !test_and_set_bit(bit_nr, &folio->flags);
	return !test_bit(bit_nr, &folio->flags);
}

static void folio_wait_bit_common(struct folio *folio, int bit_nr, enum behavior behavior)
{
	struct folio_wait_head *q = folio_waitqueue(folio);
	int unfairness = sysctl_page_lock_unfairness;
	struct wait_page_queue wait = { .folio = folio, .bit_nr = bit_nr };
	unsigned int flags;

repeat:
	flags = 0;
	if (behavior == EXCLUSIVE) {
		flags = WQ_FLAG_EXCLUSIVE;
		if (--unfairness < 0)
			flags |= WQ_FLAG_CUSTOM;
	}

	spin_lock(&q->lock);
	folio_mark_waiters_before_try(folio);
	if (folio_trylock_flag(folio, bit_nr, flags))
		flags |= WQ_FLAG_WOKEN | WQ_FLAG_DONE;
	atomic_set(&wait.flags, flags);
	if (!(flags & WQ_FLAG_WOKEN))
		wait_queue_add_tail(q, &wait);
	spin_unlock(&q->lock);
	if (!(flags & WQ_FLAG_WOKEN))
		folio_mark_waiters_when_queued(folio);

	for (;;) {
		flags = atomic_read_acquire(&wait.flags);
		if (!(flags & WQ_FLAG_WOKEN)) {
			io_schedule();
			continue;
		}
		if (behavior != EXCLUSIVE || (flags & WQ_FLAG_DONE))
			return;
		/* Woken without a hand-off: the lock is anyone's. */
		if (test_and_set_bit(bit_nr, &folio->flags))
			goto repeat;
		return;
	}
}

void __folio_lock(struct folio *folio)
{
	folio_wait_bit_common(folio, PG_locked, EXCLUSIVE);
}

void folio_wait_locked(struct folio *folio)
{
	if (folio_test_locked(folio))
		folio_wait_bit_common(folio, PG_locked, SHARED);
}

/*
 * Is a waiter of @folio queued?  For tests, which call it with every
 * thread stopped (the checker's callbacks), so without the queue's lock;
 * the kernel has no such function.
 */
bool folio_wait_queued(struct folio *folio)
{
	struct wait_page_queue *wait;

	for (wait = folio_waitqueue(folio)->head; wait; wait = wait->next)
		if (wait->folio == folio)
			return true;
	return false;
}

/*
 * The seqcount-read design's deletion count: bumped around every removal
 * from i_pages, so that a reader which copied without a reference can tell
 * whether its folio left the page cache meanwhile.  Other designs have no
 * such count.
 */
#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
static inline void i_pages_delete_seqcount_init(struct address_space *mapping)
{
	seqcount_init(&mapping->i_pages_delete_seqcnt);
}

static inline void i_pages_delete_begin(struct address_space *mapping)
{
	write_seqcount_begin(&mapping->i_pages_delete_seqcnt);
}

static inline void i_pages_delete_end(struct address_space *mapping)
{
	write_seqcount_end(&mapping->i_pages_delete_seqcnt);
}
#else
static inline void i_pages_delete_seqcount_init(struct address_space *mapping)
{
}

static inline void i_pages_delete_begin(struct address_space *mapping)
{
}

static inline void i_pages_delete_end(struct address_space *mapping)
{
}
#endif

void address_space_init(struct address_space *mapping)
{
	memset(mapping, 0, sizeof(*mapping));
	xa_init(&mapping->i_pages);
	init_rwsem(&mapping->i_mmap_rwsem);
	init_rwsem(&mapping->invalidate_lock);
	i_pages_delete_seqcount_init(mapping);
}

void address_space_destroy(struct address_space *mapping)
{
	VM_WARN_ON_ONCE(mapping->nrpages);
	VM_WARN_ON_ONCE(mapping->i_mmap.rb_node);
	xa_destroy(&mapping->i_pages);
	destroy_rwsem(&mapping->i_mmap_rwsem);
	destroy_rwsem(&mapping->invalidate_lock);
}

#ifdef CONFIG_DEBUG_VM_EVENTS
static __thread double xa_lock_taken_ns;

static double filemap_event_clock_ns(void)
{
	return ktime_get_ns();
}

/* The acquisitions of xa_lock for insertion, and the time it is held. */
static inline void count_xa_lock_add(void)
{
	count_vm_event(FILEMAP_XA_LOCK_ADD);
	xa_lock_taken_ns = filemap_event_clock_ns();
}

static inline void count_xa_unlock_add(void)
{
	count_vm_events(FILEMAP_XA_LOCK_NS, (long)(filemap_event_clock_ns() - xa_lock_taken_ns));
}
#else
static inline void count_xa_lock_add(void)
{
}

static inline void count_xa_unlock_add(void)
{
}
#endif

/*
 * xa_lock for insertion.  Event builds count the acquisitions and the time
 * the lock is held, the numbers that explain batched insertion; timed
 * builds take the plain lock.
 */
static inline void filemap_xa_lock_add(struct address_space *mapping)
{
	xa_lock(&mapping->i_pages);
	count_xa_lock_add();
}

static inline void filemap_xa_unlock_add(struct address_space *mapping)
{
	count_xa_unlock_add();
	xa_unlock(&mapping->i_pages);
}

/* Take the page cache's references and identity, before insertion. */
static void filemap_prepare_folio(struct address_space *mapping, struct folio *folio,
				  pgoff_t index)
{
	unsigned long nr = folio_nr_pages(folio);

	VM_WARN_ON_ONCE_FOLIO(!IS_ALIGNED(index, nr), folio);
	VM_WARN_ON_ONCE_FOLIO(folio->mapping, folio);
	__folio_set_locked(folio);
	folio_ref_add(folio, (int)nr);
	folio->mapping = mapping;
	folio->index = index;
}

/* Undo filemap_prepare_folio() for a folio that was not inserted. */
static void filemap_unprepare_folio(struct folio *folio)
{
	folio->mapping = NULL;
	folio_ref_sub(folio, (int)folio_nr_pages(folio));
	__folio_clear_locked(folio);
}

/*
 * After the XArray's allocation under xa_lock failed: allocate a node for
 * the retry, dropping the lock if @gfp may sleep, as the kernel's
 * __filemap_add_folio() always does.
 */
static bool filemap_xas_nomem(struct address_space *mapping, struct xa_state *xas, gfp_t gfp)
{
	bool retry;

	if (xas_error(xas) != -ENOMEM || !gfpflags_allow_blocking(gfp))
		return xas_nomem(xas, gfp);
	filemap_xa_unlock_add(mapping);
	retry = xas_nomem(xas, gfp);
	filemap_xa_lock_add(mapping);
	return retry;
}

/*
 * Insert a prepared folio at folio->index: the one place that adds to
 * i_pages.  The caller holds xa_lock: that is the whole difference between
 * inserting one folio per lock hold and a batch per hold, so it is stated
 * here once rather than passed around as a flag.  @gfp is what the XArray
 * may allocate its nodes with when the allocation under the lock fails: a
 * gfp that may sleep lets it drop the lock meanwhile (one folio per hold);
 * a batch passes GFP_NOWAIT and keeps it.
 */
static int __filemap_add_folio(struct address_space *mapping, struct folio *folio, gfp_t gfp)
{
	XA_STATE_ORDER(xas, &mapping->i_pages, folio->index, folio_order(folio));
	unsigned long nr = folio_nr_pages(folio);
	void *entry;

	VM_WARN_ON_ONCE(!spin_is_locked(&mapping->i_pages.xa_lock));
	/* One multi-index entry for the whole folio. */
	do {
		/* Again after a retry: the lock may have been dropped. */
		xas_for_each_conflict(&xas, entry) {
			/*
			 * A shadow (value) entry is replaced; a larger one
			 * would need xas_split(), which the page cache does
			 * not use yet.
			 */
			if (!xa_is_value(entry) || xas_get_order(&xas) > (int)folio_order(folio)) {
				xas_destroy(&xas);
				return -EEXIST;
			}
		}
		xas_store(&xas, folio);
	} while (filemap_xas_nomem(mapping, &xas, gfp));
	if (xas_error(&xas))
		return xas_error(&xas);
	mapping->nrpages += nr;
	/* The node's page-cache count, inside the xa_lock as the kernel does it. */
	__lruvec_stat_mod_folio(folio, NR_FILE_PAGES, (long)nr);
	count_debug_vm_event(FILEMAP_FOLIOS_ADDED);
	return 0;
}

int filemap_add_folio(struct address_space *mapping, struct folio *folio,
		      pgoff_t index, gfp_t gfp)
{
	int err;

	filemap_prepare_folio(mapping, folio, index);
	mem_cgroup_charge(folio);
	filemap_xa_lock_add(mapping);
	err = __filemap_add_folio(mapping, folio, gfp & GFP_RECLAIM_MASK);
	filemap_xa_unlock_add(mapping);
	if (err) {
		mem_cgroup_uncharge(folio);
		filemap_unprepare_folio(folio);
	} else {
		folio_add_lru(folio);
	}
	return err;
}

/*
 * Mutants of filemap_add_folios(), for the tests that must catch them; the
 * real designs have the stubs.
 */
#ifdef CONFIG_READAHEAD_MUTANT_SKIP_SLOT
/* The third folio of a batch never reaches i_pages. */
static inline bool mutant_skip_slot(unsigned int nr_added)
{
	return nr_added == 2;
}
#else
static inline bool mutant_skip_slot(unsigned int nr_added)
{
	return false;
}
#endif

#ifdef CONFIG_READAHEAD_MUTANT_BAD_REF
/* The second folio of a batch lacks the cache's reference. */
static inline void mutant_drop_cache_ref(struct folio *folio, unsigned int nr_added)
{
	if (nr_added == 1)
		folio_ref_sub(folio, 1);
}
#else
static inline void mutant_drop_cache_ref(struct folio *folio, unsigned int nr_added)
{
}
#endif

int filemap_add_folios(struct address_space *mapping, struct folio **folios,
		       unsigned int nr_folios, pgoff_t index, gfp_t gfp)
{
	unsigned int added = 0;
	int err = 0;

	(void)gfp;	/* the batch keeps xa_lock: GFP_NOWAIT for the XArray */
	for (unsigned int i = 0; i < nr_folios; i++) {
		filemap_prepare_folio(mapping, folios[i], index);
		mem_cgroup_charge(folios[i]);
		index += folio_nr_pages(folios[i]);
	}
	filemap_xa_lock_add(mapping);
	while (added < nr_folios) {
		if (mutant_skip_slot(added)) {
			added++;
			continue;
		}
		err = __filemap_add_folio(mapping, folios[added], GFP_NOWAIT);
		if (err)
			break;
		mutant_drop_cache_ref(folios[added], added);
		added++;
	}
	filemap_xa_unlock_add(mapping);
	for (unsigned int i = added; i < nr_folios; i++) {
		mem_cgroup_uncharge(folios[i]);
		filemap_unprepare_folio(folios[i]);
	}
	/* Outside the lock, as filemap_add_folio() does for one. */
	for (unsigned int i = 0; i < added; i++)
		folio_add_lru(folios[i]);
	return added ? (int)added : err;
}

/* Caller holds xa_lock. */
static void __filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	unsigned long nr = folio_nr_pages(folio);
	XA_STATE(xas, &mapping->i_pages, folio->index);

	i_pages_delete_begin(mapping);
	/* page_cache_delete(): erasing allocates nothing */
	xas_set_order(&xas, folio->index, folio_order(folio));
	xas_store(&xas, NULL);
	xas_init_marks(&xas);
	mapping->nrpages -= nr;
	__lruvec_stat_mod_folio(folio, NR_FILE_PAGES, -(long)nr);	/* filemap_unaccount_folio() */
	WRITE_ONCE(folio->mapping, NULL);
	i_pages_delete_end(mapping);
}

void filemap_remove_folio(struct folio *folio)
{
	struct address_space *mapping = folio->mapping;

	xa_lock(&mapping->i_pages);
	__filemap_remove_folio(folio);
	xa_unlock(&mapping->i_pages);
	folio_put_refs(folio, (int)folio_nr_pages(folio));
}

bool __remove_mapping(struct address_space *mapping, struct folio *folio)
{
	int refcount = 1 + (int)folio_nr_pages(folio);

	VM_WARN_ON_ONCE_FOLIO(!folio_test_locked(folio), folio);
	VM_WARN_ON_ONCE_FOLIO(folio->mapping != mapping, folio);
	xa_lock(&mapping->i_pages);
	/*
	 * The cache's references plus the caller's, and no other: freezing
	 * at exactly that count makes every later folio_try_get() fail, so
	 * no reader can come to hold the folio after it is freed.  A mapped
	 * folio fails here: each PTE holds a reference.
	 */
	if (!folio_ref_freeze(folio, refcount)) {
		xa_unlock(&mapping->i_pages);
		return false;
	}
	__filemap_remove_folio(folio);
	xa_unlock(&mapping->i_pages);
	return true;
}

bool remove_mapping(struct address_space *mapping, struct folio *folio)
{
	if (!__remove_mapping(mapping, folio))
		return false;
	/* As the kernel's: back to the caller's one reference, whose put frees it (off the LRU). */
	__folio_clear_locked(folio);
	folio_ref_unfreeze(folio, 1);
	folio_put(folio);
	return true;
}

/*
 * The largest order up to the mapping's whose naturally aligned folio
 * around @index ends by i_size: the end is checked where the folio goes,
 * as page_cache_ra_order() checks it at the index it allocates at.
 */
static unsigned int filemap_create_order(struct address_space *mapping, pgoff_t index)
{
	pgoff_t end = (pgoff_t)((mapping->i_size + (loff_t)PAGE_SIZE - 1) >> PAGE_SHIFT);
	unsigned int order = mapping->folio_order;

	while (order && ALIGN_DOWN(index, 1UL << order) + (1UL << order) > end)
		order--;
	return order;
}

/* Read a new folio; with no backing store its contents are not modelled. */
static bool filemap_read_folio(struct address_space *mapping, struct folio *folio)
{
	return !mapping->backing || backing_read_folios(mapping->backing, &folio, 1);
}

struct folio *__filemap_get_folio(struct address_space *mapping, pgoff_t index,
				  unsigned int fgp_flags, gfp_t gfp)
{
	struct folio *folio;
	unsigned int order;
	int err;

repeat:
	folio = filemap_get_folio(mapping, index);
	if (folio) {
		if (fgp_flags & FGP_LOCK) {
			folio_lock(folio);
			/* Truncated or reclaimed while we waited for the lock. */
			if (unlikely(folio->mapping != mapping)) {
				folio_unlock(folio);
				folio_put(folio);
				goto repeat;
			}
		}
		return folio;
	}
	if (!(fgp_flags & FGP_CREAT))
		return NULL;
	if ((loff_t)index << PAGE_SHIFT >= mapping->i_size)
		return NULL;
	order = filemap_create_order(mapping, index);
	for (;;) {
		folio = folio_alloc(gfp, order);
		if (!folio)
			return NULL;
		err = filemap_add_folio(mapping, folio, ALIGN_DOWN(index, 1UL << order), gfp);
		if (!err)
			break;
		folio_put(folio);
		if (err != -EEXIST)
			return NULL;
		/*
		 * Smaller folios sit in the range (a fault raced with us, or
		 * the range was cached at another order): a smaller one here,
		 * or, at order 0, whoever got in first.
		 */
		if (!order)
			goto repeat;
		order--;
	}
	/* Inserted locked; the read happens under the folio lock, as in the kernel. */
	if (filemap_read_folio(mapping, folio))
		folio_mark_uptodate(folio);
	if (!(fgp_flags & FGP_LOCK))
		folio_unlock(folio);
	return folio;
}

/*
 * mmap read-around (do_sync_mmap_readahead()): a fault that finds no folio
 * reads the window of ra_pages around it, a quarter of it ahead, in
 * order-0 folios (the kernel since 6.16; VM_EXEC's exec_folio_order(),
 * MADV_HUGEPAGE and the mmap_miss throttle are not modelled).
 */
static void do_sync_mmap_readahead(struct file *file, pgoff_t index)
{
	struct file_ra_state *ra = &file->f_ra;

	ra->start = index > ra->ra_pages / 2 ? index - ra->ra_pages / 2 : 0;
	ra->size = ra->ra_pages;
	ra->async_size = ra->ra_pages / 4;
	page_cache_ra_order(file, ra, 0);
}

/*
 * The folio for a read fault at @index of @file, locked and with a
 * reference (filemap_fault()'s lookup).  A cached folio carrying the
 * readahead mark starts the next window first (do_async_mmap_readahead());
 * a missing one is read around.  With readahead off (ra_pages 0) a missing
 * folio is created at the mapping's order: the model's way of choosing a
 * folio size outright, where the kernel would create an order-0 one.
 */
struct folio *filemap_fault_folio(struct file *file, pgoff_t index)
{
	struct address_space *mapping = file->f_mapping;
	struct folio *folio = filemap_get_folio(mapping, index);

	if (folio) {
		if (folio_test_readahead(folio) && file->f_ra.ra_pages)
			page_cache_async_ra(file, folio, index, file->f_ra.ra_pages);
		folio_lock(folio);
		if (likely(folio->mapping == mapping))
			return folio;
		/* Truncated or reclaimed while we waited for the lock. */
		folio_unlock(folio);
		folio_put(folio);
	} else if (file->f_ra.ra_pages) {
		do_sync_mmap_readahead(file, index);
	}
	return __filemap_get_folio(mapping, index, FGP_LOCK | FGP_CREAT, GFP_KERNEL);
}

/*
 * After a failed folio_try_get() the folio is frozen or free.  The kernel
 * just looks again.  Under the interleaving checker, looking again while
 * the slot still holds that folio is a poll that cannot succeed until
 * another CPU moves, so it waits for one (and a folio left frozen in the
 * cache shows as a deadlock); timed builds do not even reload.
 */
#ifdef MMLAB_CHECKER
#define filemap_get_retry_wait(folio, entry_now)	\
	do { if ((entry_now) == (folio)) machine_wait(); } while (0)
#else
#define filemap_get_retry_wait(folio, entry_now)	do { } while (0)
#endif

struct folio *filemap_get_folio(struct address_space *mapping, pgoff_t index)
{
	struct folio *folio;

	rcu_read_lock();
repeat:
	folio = xa_load(&mapping->i_pages, index);
	if (!folio || xa_is_value(folio)) {
		folio = NULL;
		goto out;
	}
	if (!folio_try_get(folio)) {
		filemap_get_retry_wait(folio, xa_load(&mapping->i_pages, index));
		goto repeat;
	}
	if (unlikely(folio != xa_load(&mapping->i_pages, index))) {
		folio_put(folio);
		goto repeat;
	}
out:
	rcu_read_unlock();
	return folio;
}

int filemap_check(struct address_space *mapping, char *msg, size_t len)
{
	unsigned long index = 0, pages = 0;
	struct folio *folio;
	int ret = 0;

	xa_lock(&mapping->i_pages);
	if (xa_check(&mapping->i_pages, msg, len)) {
		xa_unlock(&mapping->i_pages);
		return -1;
	}
	while ((folio = xa_find(&mapping->i_pages, &index, ULONG_MAX, XA_PRESENT))) {
		if (xa_is_value(folio)) {
			index++;
			continue;
		}
		if (folio->mapping != mapping || index < folio->index ||
		    index >= folio_next_index(folio)) {
			snprintf(msg, len, "index %lu holds a folio of mapping %p index %lu",
				 index, (void *)folio->mapping, folio->index);
			ret = -1;
			break;
		}
		if (index == folio->index && folio_ref_count(folio) < (int)folio_nr_pages(folio)) {
			snprintf(msg, len, "folio at index %lu has refcount %d, below the cache's %lu references",
				 index, folio_ref_count(folio), folio_nr_pages(folio));
			ret = -1;
			break;
		}
		pages++;
		index++;
	}
	if (!ret && pages != mapping->nrpages) {
		snprintf(msg, len, "i_pages holds %lu pages, nrpages says %lu", pages, mapping->nrpages);
		ret = -1;
	}
	xa_unlock(&mapping->i_pages);
	return ret;
}

void truncate_inode_pages(struct address_space *mapping)
{
	unsigned long index = 0;
	struct folio *folio;

	for (;;) {
		rcu_read_lock();
		folio = xa_find(&mapping->i_pages, &index, ULONG_MAX, XA_PRESENT);
		rcu_read_unlock();
		if (!folio)
			break;
		folio = filemap_get_folio(mapping, index);
		if (!folio)
			continue;	/* removed under us: look again */
		folio_lock(folio);
		if (folio->mapping == mapping)
			filemap_remove_folio(folio);
		index = folio_next_index(folio);
		folio_unlock(folio);
		folio_put(folio);
	}
}

/*
 * After a successful folio_try_get(): does the slot still hold the folio?
 * It may have been removed, freed and even reused between the load and
 * the get.  The filemap-no-recheck mutant trusts the load: the bug
 * tests/check_filemap.c must catch.
 */
#ifndef CONFIG_FILEMAP_MUTANT_NO_RECHECK
static inline bool filemap_folio_moved(struct xa_state *xas, struct folio *folio)
{
	return unlikely(folio != xas_reload(xas));
}
#else
static inline bool filemap_folio_moved(struct xa_state *xas, struct folio *folio)
{
	return false;
}
#endif

/*
 * Collect the folios covering [index, max] that are in the cache, with a
 * reference on each, stopping at a hole, at a folio that is not uptodate
 * (after adding it: the caller waits for it) and at a readahead marker.
 * Static in the kernel; the model exports it for the interleaving checker.
 */
void filemap_get_read_batch(struct address_space *mapping, pgoff_t index,
				   pgoff_t max, struct folio_batch *fbatch)
{
	XA_STATE(xas, &mapping->i_pages, index);
	struct folio *folio;

	rcu_read_lock();
	for (folio = xas_load(&xas); folio; folio = xas_next(&xas)) {
		if (xas_retry(&xas, folio))
			continue;
		if (xas.xa_index > max || xa_is_value(folio))
			break;
		if (xa_is_sibling(folio))
			break;
		if (!folio_try_get(folio)) {
			filemap_get_retry_wait(folio, xas_reload(&xas));
			goto retry;
		}
		if (filemap_folio_moved(&xas, folio))
			goto put_folio;
		if (!folio_batch_add(fbatch, folio))
			break;
		if (!folio_test_uptodate(folio))
			break;
		if (folio_test_readahead(folio))
			break;
		xas_advance(&xas, folio_next_index(folio) - 1);
		continue;
put_folio:
		folio_put(folio);
retry:
		count_debug_vm_event(FILEMAP_GET_RETRY);
		xas_reset(&xas);
	}
	rcu_read_unlock();
}

/*
 * A folio still being filled is locked by its filler: wait for the unlock
 * without taking the lock (filemap_update_page()'s folio_put_wait_locked():
 * a non-exclusive waiter, so one unlock lets every reader of the folio go
 * at once instead of handing the lock from reader to reader), then look.
 */
static bool filemap_wait_uptodate(struct folio *folio)
{
	if (likely(folio_test_uptodate(folio)))
		return true;
	folio_wait_locked(folio);
	return folio_test_uptodate(folio);
}

#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ

#ifdef __SANITIZE_THREAD__
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define data_race_begin()	AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define data_race_end()		AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define data_race_begin()	do { } while (0)
#define data_race_end()		do { } while (0)
#endif

/* Reads up to this size try the refcount-free path first. */
#define FILEMAP_FAST_READ_MAX	1024

/*
 * The short-read fast path: copy from the folio with no reference at all,
 * into a stack buffer, and keep the copy only if no folio left the page
 * cache meanwhile.  The folio may be freed and reused while we copy; the
 * copy is then garbage and the sequence count says so.  The folio's fields
 * are as unreliable as its data, so they only bound where we read, and
 * every read stays inside the arena.
 */
static ssize_t filemap_read_fast(struct address_space *mapping, loff_t pos,
				 size_t count, char *buf)
{
	char tmp[FILEMAP_FAST_READ_MAX];
	pgoff_t index = (pgoff_t)(pos >> PAGE_SHIFT);
	size_t offset = (size_t)(pos & ~PAGE_MASK);
	unsigned long nr, pfn;
	struct folio *folio;
	unsigned int seq;
	bool copied = false;

	if (count > FILEMAP_FAST_READ_MAX || offset + count > PAGE_SIZE ||
	    pos + (loff_t)count > READ_ONCE(mapping->i_size))
		return 0;
	seq = raw_read_seqcount(&mapping->i_pages_delete_seqcnt);
	if (seq & 1)
		return 0;

	rcu_read_lock();
	data_race_begin();
	folio = xa_load(&mapping->i_pages, index);
	if (folio && !xa_is_value(folio) && folio_test_uptodate(folio)) {
		nr = folio_nr_pages(folio);
		pfn = folio_pfn(folio) + (index & (nr - 1));
		if (nr <= MAX_ORDER_NR_PAGES && pfn < max_pfn) {
			memcpy(tmp, (char *)page_address(pfn_to_page(pfn)) + offset, count);
			copied = true;
		}
	}
	data_race_end();
	rcu_read_unlock();

	if (!copied || read_seqcount_retry(&mapping->i_pages_delete_seqcnt, seq))
		return 0;
	copy_to_user(buf, tmp, count);
	return (ssize_t)count;
}

/* The bytes the fast path copied, or 0: then the refcounted path reads. */
static inline ssize_t filemap_try_read_fast(struct address_space *mapping, loff_t pos,
					    size_t count, char *buf)
{
	ssize_t n = filemap_read_fast(mapping, pos, count, buf);

	if (likely(n > 0))
		count_debug_vm_event(FILEMAP_FAST_READ);
	else
		count_debug_vm_event(FILEMAP_FAST_FALLBACK);
	return n;
}
#else /* !CONFIG_REFCOUNT_SEQCOUNT_READ */
static inline ssize_t filemap_try_read_fast(struct address_space *mapping, loff_t pos,
					    size_t count, char *buf)
{
	return 0;
}
#endif /* CONFIG_REFCOUNT_SEQCOUNT_READ */

static bool page_cache_present(struct address_space *mapping, pgoff_t index)
{
	void *entry = xa_load(&mapping->i_pages, index);

	return entry && !xa_is_value(entry);
}

pgoff_t page_cache_next_miss(struct address_space *mapping, pgoff_t index, unsigned long max)
{
	pgoff_t end = index + max;

	rcu_read_lock();
	while (index < end && page_cache_present(mapping, index))
		index++;
	rcu_read_unlock();
	return index;
}

pgoff_t page_cache_next_present(struct address_space *mapping, pgoff_t index, unsigned long max)
{
	pgoff_t end = index + max;

	rcu_read_lock();
	while (index < end && !page_cache_present(mapping, index))
		index++;
	rcu_read_unlock();
	return index;
}

pgoff_t page_cache_prev_miss(struct address_space *mapping, pgoff_t index, unsigned long max)
{
	unsigned long n = 0;

	rcu_read_lock();
	while (n < max && page_cache_present(mapping, index)) {
		if (index == 0) {
			index = ULONG_MAX;	/* cached all the way to the start */
			break;
		}
		index--;
		n++;
	}
	rcu_read_unlock();
	return index;
}

/*
 * The folios for [index, last], reading them in with readahead if they are
 * missing, and starting the next window asynchronously when the batch ends
 * on the readahead marker.
 */
static void filemap_get_pages(struct file *file, pgoff_t index, pgoff_t last,
			      struct folio_batch *fbatch)
{
	struct address_space *mapping = file->f_mapping;
	struct folio *folio;

	filemap_get_read_batch(mapping, index, last, fbatch);
	if (!fbatch->nr) {
		if (!mapping->backing)
			return;	/* a hole, with nothing behind it */
		page_cache_sync_ra(file, index, last - index + 1);
		filemap_get_read_batch(mapping, index, last, fbatch);
		if (!fbatch->nr)
			return;
	}
	folio = fbatch->folios[fbatch->nr - 1];
	if (folio_test_readahead(folio) && mapping->backing)
		page_cache_async_ra(file, folio, folio->index, last - folio->index + 1);
}

/* Do @pos1 and @pos2 lie in the same folio-sized, folio-aligned range? */
static inline bool pos_same_folio(loff_t pos1, loff_t pos2, struct folio *folio)
{
	unsigned int shift = PAGE_SHIFT + folio_order(folio);

	return (pos1 >> shift) == (pos2 >> shift);
}

ssize_t filemap_read(struct file *file, loff_t pos, size_t count, char *buf)
{
	struct address_space *mapping = file->f_mapping;
	struct folio_batch fbatch;
	loff_t isize = READ_ONCE(mapping->i_size);
	loff_t last_pos = file->f_ra.prev_pos;
	size_t copied = 0;
	bool stop = false;
	ssize_t ret;

	if (pos >= isize)
		return 0;
	count = min(count, (size_t)(isize - pos));

	ret = filemap_try_read_fast(mapping, pos, count, buf);
	if (likely(ret > 0))
		return ret;

	while (count && !stop) {
		pgoff_t index = (pgoff_t)(pos >> PAGE_SHIFT);
		pgoff_t last = (pgoff_t)((pos + (loff_t)count - 1) >> PAGE_SHIFT);

		cond_resched();
		folio_batch_init(&fbatch);
		filemap_get_pages(file, index, last, &fbatch);
		if (!fbatch.nr)
			break;
		/* A read that stays in the folio the last one ended in marks it once only. */
		if (!pos_same_folio(pos, last_pos - 1, fbatch.folios[0]))
			folio_mark_accessed(fbatch.folios[0]);

		for (unsigned int i = 0; i < fbatch.nr; i++) {
			struct folio *folio = fbatch.folios[i];
			size_t offset, n;

			if (stop || !count || !filemap_wait_uptodate(folio)) {
				stop = true;
				continue;
			}
			offset = (size_t)(pos - folio_pos(folio));
			n = min(folio_size(folio) - offset, count);
			copy_to_user(buf + copied, (char *)folio_address(folio) + offset, n);
			copied += n;
			pos += (loff_t)n;
			count -= n;
			last_pos = pos;
		}
		for (unsigned int i = 0; i < fbatch.nr; i++)
			folio_put(fbatch.folios[i]);
	}
	file->f_ra.prev_pos = last_pos;
	return (ssize_t)copied;
}
