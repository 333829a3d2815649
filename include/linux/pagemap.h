/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page cache: a file's folios indexed by page offset in its
 * address_space, read locklessly under RCU with speculative references.
 */
#ifndef _LINUX_PAGEMAP_H
#define _LINUX_PAGEMAP_H

#include <sys/types.h>

#include <linux/gfp.h>
#include <linux/seqlock.h>
#include <linux/xarray.h>

struct address_space {
	struct xarray i_pages;
	unsigned long nrpages;		/* under xa_lock */
	loff_t i_size;
#ifdef CONFIG_FILEMAP_SEQCOUNT_READ
	/*
	 * Bumped around every removal of a folio from i_pages, including
	 * replacement by migration: a lockless reader that sampled it before
	 * looking a folio up, and finds it unchanged after copying, copied
	 * from a folio that was still in the page cache.
	 */
	seqcount_t i_pages_delete_seqcnt;
#endif
};

/* How many folios one lockless lookup batches (PAGEVEC_SIZE). */
#define FOLIO_BATCH_SIZE	31

struct folio_batch {
	unsigned char nr;
	struct folio *folios[FOLIO_BATCH_SIZE];
};

static inline void folio_batch_init(struct folio_batch *fbatch)
{
	fbatch->nr = 0;
}

/* Returns the space left after adding. */
static inline unsigned int folio_batch_add(struct folio_batch *fbatch, struct folio *folio)
{
	fbatch->folios[fbatch->nr++] = folio;
	return FOLIO_BATCH_SIZE - fbatch->nr;
}

static inline pgoff_t folio_index(const struct folio *folio)
{
	return folio->index;
}

static inline loff_t folio_pos(const struct folio *folio)
{
	return (loff_t)folio->index << PAGE_SHIFT;
}

/* folio_lock: PG_locked as a sleeping lock; here waiters yield. */
void folio_lock(struct folio *folio);

static inline bool folio_trylock(struct folio *folio)
{
	return !test_and_set_bit(PG_locked, &folio->flags);
}

static inline void folio_unlock(struct folio *folio)
{
	clear_bit_unlock(PG_locked, &folio->flags);
}

void address_space_init(struct address_space *mapping);
void address_space_destroy(struct address_space *mapping);

/*
 * Insert a locked folio at @index (it must be aligned to the folio's size).
 * The page cache takes folio_nr_pages() references.  -EEXIST if any index
 * in the range is occupied, -ENOMEM if the index cannot grow.
 */
int filemap_add_folio(struct address_space *mapping, struct folio *folio,
		      pgoff_t index, gfp_t gfp);

/* Remove a folio from the page cache and drop the cache's references (truncate). */
void filemap_remove_folio(struct folio *folio);

/*
 * Reclaim-style removal (__remove_mapping): the caller holds one reference;
 * succeeds only if nobody else does, by freezing the count at the cache's
 * references plus the caller's, so no speculative reader can get in; the
 * folio is then out of the cache and freed.  False if the folio is busy
 * (the caller still owns its reference).
 */
bool remove_mapping(struct address_space *mapping, struct folio *folio);

/* Drop every folio of the mapping (truncate_inode_pages). */
void truncate_inode_pages(struct address_space *mapping);

/* Find the folio at @index with a reference held, or NULL. */
struct folio *filemap_get_folio(struct address_space *mapping, pgoff_t index);

/*
 * Copy up to @count bytes at @pos into @buf from the page cache.  Returns
 * the bytes copied: fewer than asked where the cache has a hole (there is
 * no backing store to read from yet) or the file ends.
 */
ssize_t filemap_read(struct address_space *mapping, loff_t pos, size_t count, char *buf);

enum filemap_event {
	FILEMAP_FAST_READ,		/* seqcount-read: reads served without a refcount */
	FILEMAP_FAST_FALLBACK,		/* ... that fell back to the refcounted path */
	FILEMAP_GET_RETRY,		/* lookups retried after a failed get or recheck */
	NR_FILEMAP_EVENTS,
};

#ifdef CONFIG_PAGEREF_EVENTS
extern __thread unsigned long filemap_events[NR_FILEMAP_EVENTS];
static inline void filemap_event(enum filemap_event e)
{
	filemap_events[e]++;
}
#else
static inline void filemap_event(enum filemap_event e)
{
	(void)e;
}
#endif

#endif
