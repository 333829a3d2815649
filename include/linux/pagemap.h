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
#include <linux/rwsem.h>
#include <linux/rbtree.h>

/*
 * The backing store: a real file of the host, read with pread(2) into the
 * folios' memory.  Without a device (bdev NULL) the CPU that wants the data
 * reads it synchronously and spends the modelled device latency (a
 * calibrated busy loop, see include/linux/delay.h); with one, readahead
 * submits its batches to the device, which reads and completes them on its
 * own thread (include/linux/blkdev.h).
 */
struct block_device;

struct backing_file {
	int fd;
	unsigned long latency_loops;	/* synchronous reads only */
	struct block_device *bdev;	/* NULL: synchronous reads */
};

struct address_space {
	struct xarray i_pages;
	struct rb_root i_mmap;		/* VMAs mapping the file, by page offset */
	struct rw_semaphore i_mmap_rwsem;
	struct rw_semaphore invalidate_lock;	/* readahead and faults vs truncation */
	unsigned int folio_order;	/* the largest order readahead makes; without it, every fault's */
	unsigned long nrpages;		/* under xa_lock */
	loff_t i_size;
	struct backing_file *backing;	/* NULL: nothing behind the cache */
#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
	/*
	 * Bumped around every removal of a folio from i_pages, including
	 * replacement by migration: a lockless reader that sampled it before
	 * looking a folio up, and finds it unchanged after copying, copied
	 * from a folio that was still in the page cache.
	 */
	seqcount_t i_pages_delete_seqcnt;
#endif
};

/* Readahead state of an open file (include/linux/fs.h). */
struct file_ra_state {
	pgoff_t start;			/* where the current window starts */
	unsigned int size;		/* its size in pages */
	unsigned int async_size;	/* start the next window when this many are left */
	unsigned int ra_pages;		/* maximum window */
	loff_t prev_pos;		/* where the last read ended */
};

/* Default maximum readahead: 128 KiB. */
#define VM_READAHEAD_PAGES	32

struct file {
	struct address_space *f_mapping;
	struct file_ra_state f_ra;
};

static inline void file_ra_state_init(struct file_ra_state *ra)
{
	ra->start = 0;
	ra->size = 0;
	ra->async_size = 0;
	ra->ra_pages = VM_READAHEAD_PAGES;
	ra->prev_pos = -1;
}

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

/*
 * folio_lock: PG_locked as a sleeping lock, as the kernel's: a waiter sets
 * PG_waiters and queues on one of the hashed folio wait queues
 * (mm/filemap.c), and the unlock that finds PG_waiters wakes the first.
 */
void __folio_lock(struct folio *folio);
void folio_wake_bit(struct folio *folio, int bit_nr);
/* Sleep until the folio is unlocked, without taking the lock. */
void folio_wait_locked(struct folio *folio);
bool folio_wait_queued(struct folio *folio);
extern int sysctl_page_lock_unfairness;

static inline bool folio_trylock(struct folio *folio)
{
	return !test_and_set_bit_lock(PG_locked, &folio->flags);
}

static inline void folio_lock(struct folio *folio)
{
	if (!folio_trylock(folio))
		__folio_lock(folio);
}

static inline void folio_unlock(struct folio *folio)
{
	if (folio_xor_flags_has_waiters(folio, BIT(PG_locked)))
		folio_wake_bit(folio, PG_locked);
}

/* A file folio's data differs from the backing store (the flag only: no writeback here). */
static inline void folio_mark_dirty(struct folio *folio)
{
	folio_set_dirty(folio);
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

/*
 * Insert @nr_folios locked-to-be folios covering consecutive indices from
 * @index under one xa_lock hold.  Returns how many were inserted (they are
 * the first ones, each now locked with the cache's references), or the
 * error that stopped the first one.
 */
int filemap_add_folios(struct address_space *mapping, struct folio **folios,
		       unsigned int nr_folios, pgoff_t index, gfp_t gfp);

/* --- i_mmap (mm/interval_tree.c) --------------------------------------------------------- */

static inline void filemap_invalidate_lock_shared(struct address_space *mapping)
{
	down_read(&mapping->invalidate_lock);
}

static inline void filemap_invalidate_unlock_shared(struct address_space *mapping)
{
	up_read(&mapping->invalidate_lock);
}

static inline void i_mmap_lock_read(struct address_space *mapping)	{ down_read(&mapping->i_mmap_rwsem); }
static inline bool i_mmap_trylock_read(struct address_space *mapping)	{ return down_read_trylock(&mapping->i_mmap_rwsem); }
static inline void i_mmap_unlock_read(struct address_space *mapping)	{ up_read(&mapping->i_mmap_rwsem); }
static inline void i_mmap_lock_write(struct address_space *mapping)	{ down_write(&mapping->i_mmap_rwsem); }
static inline void i_mmap_unlock_write(struct address_space *mapping)	{ up_write(&mapping->i_mmap_rwsem); }

struct vm_area_struct;

/* The interval tree of VMAs over [vm_pgoff, vm_pgoff + vma_pages - 1]; i_mmap_rwsem held. */
void vma_interval_tree_insert(struct vm_area_struct *vma, struct rb_root *root);
void vma_interval_tree_remove(struct vm_area_struct *vma, struct rb_root *root);
struct vm_area_struct *vma_interval_tree_iter_first(struct rb_root *root, pgoff_t start, pgoff_t last);
struct vm_area_struct *vma_interval_tree_iter_next(struct vm_area_struct *vma, pgoff_t start, pgoff_t last);

#define vma_interval_tree_foreach(vma, root, start, last)			\
	for (vma = vma_interval_tree_iter_first(root, start, last);		\
	     vma; vma = vma_interval_tree_iter_next(vma, start, last))

/* --- getting folios -------------------------------------------------------------------------- */

#define FGP_LOCK	0x01	/* return the folio locked */
#define FGP_CREAT	0x02	/* create it if it is not cached */

/*
 * The folio covering @index, with a reference (and locked with FGP_LOCK).
 * With FGP_CREAT a missing one is created at the mapping's folio_order (as
 * large as alignment and i_size allow), read from the backing store (or,
 * with none, left as it is: the model's "no data" mode), marked uptodate
 * and put on the LRU.  NULL if it is missing and cannot be created.
 */
struct folio *__filemap_get_folio(struct address_space *mapping, pgoff_t index,
				  unsigned int fgp_flags, gfp_t gfp);

/*
 * Reclaim's half of remove_mapping(): freeze the count at the cache's
 * references plus the caller's and take the folio out of i_pages, leaving
 * it frozen at 0 for the caller to free (after the TLB flush).  False if
 * somebody else holds a reference (a mapping, a reader).
 */
bool __remove_mapping(struct address_space *mapping, struct folio *folio);

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

/*
 * The page cache's invariants for one mapping (xa_lock taken): every entry
 * is a folio of this mapping covering that index, each folio holds at least
 * the cache's references, nrpages counts the pages.  0, or -1 and @msg.
 */
int filemap_check(struct address_space *mapping, char *msg, size_t len);

/* Drop every folio of the mapping (truncate_inode_pages). */
void truncate_inode_pages(struct address_space *mapping);

/*
 * The read path's lockless lookup: the folios covering [index, max], each
 * with a reference, up to a hole, a folio not uptodate or a readahead
 * marker.  Static in the kernel; exported here for tests/check_filemap.c.
 */
void filemap_get_read_batch(struct address_space *mapping, pgoff_t index, pgoff_t max,
			    struct folio_batch *fbatch);

/* Find the folio at @index with a reference held, or NULL. */
struct folio *filemap_get_folio(struct address_space *mapping, pgoff_t index);

/*
 * Copy up to @count bytes at @pos of @file into @buf through the page
 * cache, reading missing folios from the backing store with readahead.
 * Returns the bytes copied: fewer than asked at the end of the file, where
 * the cache has a hole and there is no backing store, or on an I/O error.
 */
ssize_t filemap_read(struct file *file, loff_t pos, size_t count, char *buf);

/* The locked folio for a read fault at @index, read ahead as filemap_fault() does. */
struct folio *filemap_fault_folio(struct file *file, pgoff_t index);

/* Readahead (mm/readahead.c). */
void page_cache_sync_ra(struct file *file, pgoff_t index, unsigned long req_count);
void page_cache_async_ra(struct file *file, struct folio *folio, pgoff_t index,
			 unsigned long req_count);
/* Read the window of @ra in folios of up to @new_order (see readahead.c). */
void page_cache_ra_order(struct file *file, struct file_ra_state *ra, unsigned int new_order);
/* readahead(2): read the pages of [@offset, @offset + @count) ahead, as force_page_cache_ra(). */
int ksys_readahead(struct file *file, loff_t offset, size_t count);
void force_page_cache_ra(struct file *file, pgoff_t index, unsigned long nr_to_read);
/* Read @nr_to_read pages from @index, marking the folio @lookahead_size from the end. */
void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr_to_read, unsigned long lookahead_size);
/* The first index in [index, index + max) that is not cached, or index + max. */
pgoff_t page_cache_next_miss(struct address_space *mapping, pgoff_t index, unsigned long max);
/* The first index in [index, index + max) that is cached, or index + max. */
pgoff_t page_cache_next_present(struct address_space *mapping, pgoff_t index, unsigned long max);
/* The last index in (index - max, index] that is not cached, or index - max (ULONG_MAX if that underflows). */
pgoff_t page_cache_prev_miss(struct address_space *mapping, pgoff_t index, unsigned long max);

#endif
