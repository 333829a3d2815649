// SPDX-License-Identifier: GPL-2.0
/*
 * Readahead (mm/readahead.c): the on-demand window of an open file, the
 * forced readahead of readahead(2) and POSIX_FADV_WILLNEED, and
 * page_cache_ra_unbounded(), which allocates folios for a range, inserts
 * them into the page cache locked, and reads them from the backing store.
 *
 * Insertion is the design under study (seed 002):
 *
 *  vanilla	one filemap_add_folio() per folio: one xa_lock hold each.
 *
 *  CONFIG_RA_BATCHED (the series, reshaped as its review asked)
 *		allocate the folios of a run of missing indices first,
 *		outside any lock, then insert the whole run with
 *		filemap_add_folios() under one xa_lock hold.  If allocation
 *		fails part-way (memory pressure), what was allocated is
 *		inserted and the rest of the window goes one folio at a time,
 *		as vanilla does.  No "is the lock held" flags: the locked
 *		insertion step is one static function in filemap.c that both
 *		paths call.
 *
 * The read of a batch is submitted to the mapping's block device when it
 * has one (include/linux/blkdev.h): the reader goes on and waits on a
 * folio's lock only when it reaches a folio still under I/O, as in the
 * kernel.  Without a device, the thread that triggers readahead does the
 * pread(2) (and spends the modelled device latency) before returning.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/blkdev.h>
#include <linux/pagemap.h>
#include <linux/delay.h>
#include "internal.h"


struct readahead_control {
	struct address_space *mapping;
	pgoff_t _index;			/* first index of the batch being built */
	unsigned int _nr_pages;
	unsigned int _nr_folios;
	struct folio *folios[RA_BATCH_MAX];
};

static void ractl_add(struct readahead_control *ractl, struct folio *folio)
{
	ractl->folios[ractl->_nr_folios++] = folio;
	ractl->_nr_pages += folio_nr_pages(folio);
}

bool backing_fill_folios(struct backing_file *bf, struct folio **folios, unsigned int nr)
{
	struct iovec iov[RA_BATCH_MAX];
	size_t want = 0, start = 0;
	ssize_t got;

	VM_WARN_ON_ONCE(!nr || nr > RA_BATCH_MAX);
	for (unsigned int i = 0; i < nr; i++) {
		iov[i].iov_base = folio_address(folios[i]);
		iov[i].iov_len = folio_size(folios[i]);
		want += iov[i].iov_len;
	}
	got = preadv(bf->fd, iov, (int)nr, folio_pos(folios[0]));
	if (got < 0)
		return false;
	/* Whatever lies past the end of the file reads as zeroes. */
	for (unsigned int i = 0; i < nr && (size_t)got < want; start += iov[i++].iov_len) {
		size_t valid = (size_t)got > start ? (size_t)got - start : 0;

		if (valid < iov[i].iov_len)
			memset((char *)iov[i].iov_base + valid, 0, iov[i].iov_len - valid);
	}
	return true;
}

bool backing_read_folios(struct backing_file *bf, struct folio **folios, unsigned int nr)
{
	bool ok = backing_fill_folios(bf, folios, nr);

	__delay(bf->latency_loops);
	count_debug_vm_event(FILEMAP_READ_REQUESTS);
	return ok;
}

/* Read the batch here and now: uptodate and unlocked on return. */
static void read_pages_sync(struct readahead_control *ractl)
{
	bool ok = backing_read_folios(ractl->mapping->backing, ractl->folios, ractl->_nr_folios);

	for (unsigned int i = 0; i < ractl->_nr_folios; i++) {
		if (ok)
			folio_mark_uptodate(ractl->folios[i]);
		folio_unlock(ractl->folios[i]);
	}
}

/* A mapping with no backing store: the contents are not modelled, the folios are ready. */
static void read_pages_unbacked(struct readahead_control *ractl)
{
	for (unsigned int i = 0; i < ractl->_nr_folios; i++) {
		folio_mark_uptodate(ractl->folios[i]);
		folio_unlock(ractl->folios[i]);
	}
}

/*
 * Start the read of the batch (the device completes it, or we do), then
 * drop the references allocation gave us: the page cache's keep the folios.
 */
static void read_pages(struct readahead_control *ractl)
{
	struct backing_file *bf = ractl->mapping->backing;

	if (!ractl->_nr_folios)
		return;
	if (!bf)
		read_pages_unbacked(ractl);
	else if (bf->bdev)
		blk_submit_read(bf, ractl->folios, ractl->_nr_folios);
	else
		read_pages_sync(ractl);
	for (unsigned int i = 0; i < ractl->_nr_folios; i++)
		folio_put(ractl->folios[i]);
	ractl->_index += ractl->_nr_pages;
	ractl->_nr_pages = 0;
	ractl->_nr_folios = 0;
}

/* An index already in the cache ends the batch; the next one starts after it. */
static void ractl_skip_present(struct readahead_control *ractl, pgoff_t present)
{
	read_pages(ractl);
	ractl->_index = present + 1;
}

/* Queue an inserted folio for reading; the marker folio triggers the next window. */
static void ractl_queue(struct readahead_control *ractl, struct folio *folio, bool marker)
{
	if (marker)
		folio_set_readahead(folio);
	ractl_add(ractl, folio);
	if (ractl->_nr_folios == RA_BATCH_MAX)
		read_pages(ractl);
}

/* Allocate a folio and insert it at @index alone: 0, -ENOMEM, or -EEXIST. */
static int ra_add_one(struct readahead_control *ractl, pgoff_t index, bool marker)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	int ret;

	if (!folio)
		return -ENOMEM;
	ret = filemap_add_folio(ractl->mapping, folio, index, GFP_KERNEL);
	if (ret < 0) {
		folio_put(folio);
		return ret;
	}
	ractl_queue(ractl, folio, marker);
	return 0;
}

static bool ra_index_present(struct address_space *mapping, pgoff_t index)
{
	void *entry;

	rcu_read_lock();
	entry = xa_load(&mapping->i_pages, index);
	rcu_read_unlock();
	return entry && !xa_is_value(entry);
}

#ifndef CONFIG_RA_BATCHED

void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr_to_read, unsigned long lookahead_size)
{
	struct readahead_control ractl = { .mapping = mapping, ._index = index };
	unsigned long mark = ULONG_MAX, i = 0;

	/* Truncation and hole punching exclude readahead (filemap_invalidate_lock()). */
	filemap_invalidate_lock_shared(mapping);
	if (lookahead_size <= nr_to_read)
		mark = nr_to_read - lookahead_size;
	while (i < nr_to_read) {
		int ret = ra_index_present(mapping, index + i) ? -EEXIST :
			  ra_add_one(&ractl, index + i, i == mark);

		if (ret == -ENOMEM)
			break;
		if (ret)
			ractl_skip_present(&ractl, index + i);	/* already cached */
		i++;
	}
	read_pages(&ractl);
	filemap_invalidate_unlock_shared(mapping);
}

#else /* CONFIG_RA_BATCHED */

/*
 * Which error of a single insert ends the window: only running out of
 * memory; an index another reader filled (-EEXIST) is skipped.  The mutant
 * (CONFIG_READAHEAD_MUTANT_EEXIST_ENDS, the series' first version) ends the
 * window on any error.
 */
#ifdef CONFIG_READAHEAD_MUTANT_EEXIST_ENDS
static inline bool ra_error_ends_window(int ret)
{
	return ret != 0;
}
#else
static inline bool ra_error_ends_window(int ret)
{
	return ret == -ENOMEM;
}
#endif

/* How many indices from @index on (at most @max) are missing from the cache. */
static unsigned long ra_missing_run(struct address_space *mapping, pgoff_t index,
				    unsigned long max)
{
	return page_cache_next_present(mapping, index, max) - index;
}

/* Allocate up to @nr order-0 folios; returns how many it got. */
static unsigned int ra_alloc_folios(struct folio **folios, unsigned int nr)
{
	unsigned int got = 0;

	while (got < nr && (folios[got] = folio_alloc(GFP_KERNEL, 0)))
		got++;
	return got;
}

void page_cache_ra_unbounded(struct address_space *mapping, pgoff_t index,
			     unsigned long nr_to_read, unsigned long lookahead_size)
{
	struct readahead_control ractl = { .mapping = mapping, ._index = index };
	struct folio *folios[RA_BATCH_MAX];
	unsigned long mark = ULONG_MAX, i = 0;

	filemap_invalidate_lock_shared(mapping);
	if (lookahead_size <= nr_to_read)
		mark = nr_to_read - lookahead_size;
	while (i < nr_to_read) {
		unsigned int run = (unsigned int)min(ra_missing_run(mapping, index + i, nr_to_read - i),
						     (unsigned long)(RA_BATCH_MAX - ractl._nr_folios));
		unsigned int got;
		int added;

		if (!run) {
			ractl_skip_present(&ractl, index + i);
			i++;
			continue;
		}
		/* Allocate before the critical section, not inside it. */
		got = ra_alloc_folios(folios, run);
		if (!got)
			break;
		if (got < run)
			count_debug_vm_event(FILEMAP_RA_FALLBACK);
		added = filemap_add_folios(mapping, folios, got, index + i, GFP_KERNEL);
		for (unsigned int j = added > 0 ? (unsigned int)added : 0; j < got; j++)
			folio_put(folios[j]);
		if (added < 0) {
			if (added == -ENOMEM)
				break;
			ractl_skip_present(&ractl, index + i);
			i++;
			continue;
		}
		for (unsigned int j = 0; j < (unsigned int)added; j++)
			ractl_queue(&ractl, folios[j], i + j == mark);
		i += (unsigned long)added;
		if ((unsigned int)added < got)
			continue;	/* an index got filled meanwhile: the loop skips it */
		if (got < run) {
			/*
			 * Memory pressure: the rest of the run one folio at a
			 * time, as vanilla does: out of memory ends the window,
			 * an index filled meanwhile (-EEXIST) is skipped.
			 */
			while (i < nr_to_read && !ra_index_present(mapping, index + i)) {
				int ret = ra_add_one(&ractl, index + i, i == mark);

				if (ra_error_ends_window(ret)) {
					nr_to_read = i;
					break;
				}
				if (ret)
					ractl_skip_present(&ractl, index + i);
				i++;
			}
		}
	}
	read_pages(&ractl);
	filemap_invalidate_unlock_shared(mapping);
}

#endif /* CONFIG_RA_BATCHED */

/* Read @nr_to_read pages from @index, but not past the end of the file. */
static void do_page_cache_ra(struct address_space *mapping, pgoff_t index,
			     unsigned long nr_to_read, unsigned long lookahead_size)
{
	loff_t isize = READ_ONCE(mapping->i_size);
	pgoff_t end_index;

	if (isize <= 0)
		return;
	end_index = (pgoff_t)((isize - 1) >> PAGE_SHIFT);
	if (index > end_index)
		return;
	if (nr_to_read > end_index - index + 1)
		nr_to_read = end_index - index + 1;
	page_cache_ra_unbounded(mapping, index, nr_to_read, lookahead_size);
}

/* A folio of @order inserted at @index, marked if the window's mark falls in it. */
static int ra_alloc_folio(struct readahead_control *ractl, pgoff_t index, pgoff_t mark,
			  unsigned int order)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, order);
	int err;

	if (!folio)
		return -ENOMEM;
	err = filemap_add_folio(ractl->mapping, folio, index, GFP_KERNEL);
	if (err) {
		folio_put(folio);
		return err;
	}
	ractl_queue(ractl, folio, index == ALIGN_DOWN(mark, 1UL << order));
	return 0;
}

/*
 * Read the window [ra->start, ra->start + ra->size) in folios of up to
 * @new_order, capped by the mapping's largest order and by the window
 * (ilog2 of its size), each naturally aligned and none past the end of
 * the file.  A mapping without large folios reads the window a page at a
 * time; so does the rest of a window after an index another reader filled
 * (or an allocation failure), as in the kernel.
 */
void page_cache_ra_order(struct file *file, struct file_ra_state *ra, unsigned int new_order)
{
	struct address_space *mapping = file->f_mapping;
	struct readahead_control ractl = { .mapping = mapping, ._index = ra->start };
	loff_t isize = READ_ONCE(mapping->i_size);
	pgoff_t start = ra->start, index = start, limit, mark;
	int err = 0;

	if (!mapping->folio_order || isize <= 0 || !ra->size)
		goto fallback;
	limit = min((pgoff_t)((isize - 1) >> PAGE_SHIFT), start + ra->size - 1);
	new_order = min(new_order, mapping->folio_order);
	new_order = min(new_order, (unsigned int)ilog2(ra->size));
	mark = start + ra->size - ra->async_size;

	filemap_invalidate_lock_shared(mapping);
	while (index <= limit) {
		unsigned int order = new_order;

		if (index & ((1UL << order) - 1))
			order = (unsigned int)__ffs(index);
		while (order && index + (1UL << order) - 1 > limit)
			order--;
		err = ra_alloc_folio(&ractl, index, mark, order);
		if (err)
			break;
		index += 1UL << order;
	}
	read_pages(&ractl);
	filemap_invalidate_unlock_shared(mapping);
	if (!err)
		return;
fallback:
	if (ra->size > index - start)
		do_page_cache_ra(mapping, index, ra->size - (index - start), ra->async_size);
}

/* The first window: 4x a small request, 2x a medium one, else the maximum. */
static unsigned long get_init_ra_size(unsigned long size, unsigned long max)
{
	unsigned long newsize = roundup_pow_of_two(size);

	if (newsize <= max / 32)
		newsize *= 4;
	else if (newsize <= max / 4)
		newsize *= 2;
	else
		newsize = max;
	return newsize;
}

/* Each next window: 4x while small, then 2x, capped at the maximum. */
static unsigned long get_next_ra_size(struct file_ra_state *ra, unsigned long max)
{
	unsigned long cur = ra->size;

	if (cur < max / 16)
		return 4 * cur;
	if (cur <= max / 2)
		return 2 * cur;
	return max;
}

/* The device's optimal request size (bdi->io_pages), taken to be the window's maximum. */
static unsigned long bdi_io_pages(struct file_ra_state *ra)
{
	return ra->ra_pages;
}

static unsigned long ra_max_pages(struct file_ra_state *ra, unsigned long req_count)
{
	/* With io_pages == ra_pages, oversized reads are not widened. */
	return min((unsigned long)ra->ra_pages, (unsigned long)RA_BATCH_MAX);
}

/*
 * Readahead the caller asked for: up to the larger of the device's request
 * size and the window's maximum, in chunks of 2 MiB so as not to pin too
 * much memory at once; no lookahead marker, and the window is left alone.
 */
void force_page_cache_ra(struct file *file, pgoff_t index, unsigned long nr_to_read)
{
	struct file_ra_state *ra = &file->f_ra;
	unsigned long max_pages = max(bdi_io_pages(ra), (unsigned long)ra->ra_pages);

	nr_to_read = min(nr_to_read, max_pages);
	while (nr_to_read) {
		unsigned long this_chunk = (2 * 1024 * 1024) / PAGE_SIZE;

		if (this_chunk > nr_to_read)
			this_chunk = nr_to_read;
		do_page_cache_ra(file->f_mapping, index, this_chunk, 0);
		index += this_chunk;
		nr_to_read -= this_chunk;
	}
}

/* readahead(2): generic_fadvise(POSIX_FADV_WILLNEED) of the pages the bytes touch. */
int ksys_readahead(struct file *file, loff_t offset, size_t count)
{
	loff_t endbyte;
	pgoff_t start_index, end_index;
	unsigned long nrpages;

	if (offset < 0)
		return -EINVAL;
	endbyte = (loff_t)((unsigned long long)offset + count);
	if (!count || endbyte < offset)
		endbyte = LLONG_MAX;
	else
		endbyte--;		/* inclusive */
	start_index = (pgoff_t)(offset >> PAGE_SHIFT);
	end_index = (pgoff_t)(endbyte >> PAGE_SHIFT);
	nrpages = end_index - start_index + 1;
	if (!nrpages)
		nrpages = ~0UL;
	force_page_cache_ra(file, start_index, nrpages);
	return 0;
}

void page_cache_sync_ra(struct file *file, pgoff_t index, unsigned long req_count)
{
	struct address_space *mapping = file->f_mapping;
	struct file_ra_state *ra = &file->f_ra;
	unsigned long max_pages, contig_count;
	pgoff_t prev_index, miss;

	if (!ra->ra_pages) {
		do_page_cache_ra(mapping, index, req_count, 0);
		return;
	}
	max_pages = ra_max_pages(ra, req_count);
	prev_index = (pgoff_t)((unsigned long long)ra->prev_pos >> PAGE_SHIFT);
	/* Start of file, oversized read, or a sequential miss: a fresh window. */
	if (!index || req_count > max_pages || index - prev_index <= 1UL) {
		ra->start = index;
		ra->size = (unsigned int)get_init_ra_size(req_count, max_pages);
		ra->async_size = ra->size > req_count ? ra->size - (unsigned int)req_count :
							 ra->size >> 1;
		goto readit;
	}
	/* Otherwise look in the cache for the traces a sequential stream leaves. */
	miss = page_cache_prev_miss(mapping, index - 1, max_pages);
	contig_count = index - miss - 1;
	if (contig_count <= req_count) {
		/* A small random read: read it as is, leave the window alone. */
		do_page_cache_ra(mapping, index, req_count, 0);
		return;
	}
	if (miss == ULONG_MAX)
		contig_count *= 2;	/* cached from the start: a long stream */
	ra->start = index;
	ra->size = (unsigned int)min(contig_count + req_count, max_pages);
	ra->async_size = 1;
readit:
	page_cache_ra_order(file, ra, 0);
}

void page_cache_async_ra(struct file *file, struct folio *folio, pgoff_t index,
			 unsigned long req_count)
{
	struct address_space *mapping = file->f_mapping;
	struct file_ra_state *ra = &file->f_ra;
	unsigned int order = folio_order(folio);
	unsigned long max_pages;
	pgoff_t expected, start;

	if (!ra->ra_pages)
		return;
	folio_clear_readahead(folio);
	max_pages = ra_max_pages(ra, req_count);
	/* The marker was hit where the window put it (its folio's first page): ramp up. */
	expected = ALIGN_DOWN(ra->start + ra->size - ra->async_size, 1UL << order);
	if (index == expected) {
		ra->start += ra->size;
		ra->size = (unsigned int)max((unsigned long)ra->size, get_next_ra_size(ra, max_pages));
		ra->async_size = ra->size;
		goto readit;
	}
	/* A marker without a matching window (interleaved streams): rebuild one. */
	start = page_cache_next_miss(mapping, index + 1, max_pages);
	if (!start || start - index > max_pages)
		return;
	ra->start = start;
	ra->size = (unsigned int)(start - index + req_count);
	ra->size = (unsigned int)get_next_ra_size(ra, max_pages);
	ra->async_size = ra->size;
readit:
	/* Each window's folios two orders larger than the marker's, as far as the caps allow. */
	page_cache_ra_order(file, ra, order + 2);
}
