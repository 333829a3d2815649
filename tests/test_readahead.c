/*
 * Readahead and the backing store: sequential reads through the page cache
 * return the file's bytes, the window ramps up as the kernel's does and
 * leaves the same page cache in every design, insertion takes xa_lock once
 * per folio (vanilla) or once per window (batched), reads completed by the
 * block device's thread return the same bytes, an index filled by another
 * reader during a window is skipped, memory exhaustion during readahead
 * leaks nothing, readahead(2) reads its capped range in 2 MiB chunks with
 * no marker, and the mutants of batched insertion are caught.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/blkdev.h>
#include <linux/fault-inject.h>
#include <linux/pagemap.h>
#include <machine/machine.h>

#include "mm_test.h"

#define FILE_PAGES	256
#define RECORD		8192

static struct address_space mapping;
static struct backing_file backing;
static struct file file = { .f_mapping = &mapping };
static unsigned char contents[FILE_PAGES * 4096];
static char msg[256];

static int make_backing_file(void)
{
	char path[] = "/tmp/mmlab-readahead-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t i = 0; i < sizeof(contents); i++)
		contents[i] = (unsigned char)(i * 131 + (i >> 12) * 7);
	if (write(fd, contents, sizeof(contents)) != (ssize_t)sizeof(contents))
		return -1;
	return fd;
}

static void open_file(loff_t size)
{
	address_space_init(&mapping);
	mapping.i_size = size;
	mapping.backing = &backing;
	file_ra_state_init(&file.f_ra);
}

static void close_file(void)
{
	truncate_inode_pages(&mapping);
	address_space_destroy(&mapping);
}

static unsigned long cached_pages(void)
{
	return mapping.nrpages;
}

static bool cached_range_is(pgoff_t start, pgoff_t end)
{
	for (pgoff_t i = 0; i < FILE_PAGES; i++) {
		bool present;

		rcu_read_lock();
		present = xa_load(&mapping.i_pages, i) != NULL;
		rcu_read_unlock();
		if (present != (i >= start && i < end))
			return false;
	}
	return true;
}

/* Every folio in the cache has been read and unlocked. */
static bool cached_folios_done(void)
{
	for (pgoff_t i = 0; i < FILE_PAGES; i++) {
		struct folio *folio = filemap_get_folio(&mapping, i);
		bool done;

		if (!folio)
			continue;
		done = folio_test_uptodate(folio) && !folio_test_locked(folio);
		folio_put(folio);
		if (!done)
			return false;
	}
	return true;
}

static void __maybe_unused test_sequential_read(const char *io)
{
	static char buf[RECORD];
	unsigned long locks0 = vm_event(FILEMAP_XA_LOCK_ADD);
	unsigned long added0 = vm_event(FILEMAP_FOLIOS_ADDED);
	unsigned long bad = 0;
	ssize_t n;

	diag("reads: %s", io);
	open_file(sizeof(contents));
	n = filemap_read(&file, 0, RECORD, buf);
	is_int(n, RECORD, "the first 8 KiB record");
	ok(memcmp(buf, contents, RECORD) == 0, "matches the backing file");
	/* 2 pages asked, window max 32: initial window 4 pages, marker at page 2. */
	is_int(file.f_ra.start, 0, "first window starts at 0");
	is_int(file.f_ra.size, 4, "first window: 4 pages (2 asked, x2)");
	is_int(file.f_ra.async_size, 2, "async part: the 2 pages not asked for");
	ok(cached_range_is(0, 4), "pages 0..3 are cached");

	n = filemap_read(&file, RECORD, RECORD, buf);
	is_int(n, RECORD, "the second record");
	is_int(file.f_ra.start, 4, "hitting the marker moves the window on");
	is_int(file.f_ra.size, 8, "and doubles it (4 -> 8)");
	ok(cached_range_is(0, 12), "pages 0..11 are cached");

	for (loff_t pos = 2 * RECORD; pos < (loff_t)sizeof(contents); pos += RECORD) {
		n = filemap_read(&file, pos, RECORD, buf);
		if (n != RECORD || memcmp(buf, contents + pos, RECORD))
			bad++;
	}
	is_int(bad, 0, "every record of the file reads back its bytes");
	is_int(file.f_ra.size, 32, "the window ramped up to ra_pages (32)");
	is_int(cached_pages(), FILE_PAGES, "the whole file is cached");
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	is_int(vm_event(FILEMAP_FOLIOS_ADDED) - added0, FILE_PAGES, "each page inserted once");
#ifdef CONFIG_RA_BATCHED
	ok(vm_event(FILEMAP_XA_LOCK_ADD) - locks0 < FILE_PAGES / 4,
	   "batched: xa_lock taken once per window (%lu times for %d folios)",
	   vm_event(FILEMAP_XA_LOCK_ADD) - locks0, FILE_PAGES);
#else
	is_int(vm_event(FILEMAP_XA_LOCK_ADD) - locks0, FILE_PAGES,
	       "vanilla: xa_lock taken once per folio");
#endif
	n = filemap_read(&file, sizeof(contents) - 100, RECORD, buf);
	is_int(n, 100, "a read at the end of the file is short");
	close_file();
}

/*
 * The device completes reads on its own thread: the reader waits on the
 * folio lock only for a folio still under I/O, reads the file's bytes, and
 * the device drains what asynchronous readahead left in flight before it
 * stops (with a latency, so that requests are still queued at the end).
 */
static void __maybe_unused test_async_device(void)
{
	unsigned long req0 = vm_event(FILEMAP_READ_REQUESTS);
	static char buf[RECORD];
	unsigned long bad = 0;

	backing.bdev = blkdev_create(0, 0);
	ok(backing.bdev != NULL, "block device started");
	test_sequential_read("asynchronous, device latency 0");
	ok(vm_event(FILEMAP_READ_REQUESTS) > req0, "requests were submitted to the device");
	is_int(blkdev_destroy(backing.bdev), vm_event(FILEMAP_READ_REQUESTS) - req0,
	       "the device completed every request submitted");

	backing.bdev = blkdev_create(20000, 0);
	open_file(sizeof(contents));
	for (loff_t pos = 0; pos < (loff_t)sizeof(contents) / 2; pos += RECORD)
		if (filemap_read(&file, pos, RECORD, buf) != RECORD || memcmp(buf, contents + pos, RECORD))
			bad++;
	is_int(bad, 0, "with 20 us of device latency every record reads back its bytes");
	blkdev_destroy(backing.bdev);
	backing.bdev = NULL;
	ok(cached_folios_done(), "after the device drained, every cached folio is uptodate and unlocked");
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	close_file();
}

/*
 * The device's channel (--device-mbps): a request's bytes cross after its
 * latency and after the request before it, at the channel's rate.  1000 MB/s
 * is 1 ns a byte; 4096 bytes take 4096 ns:
 *
 *	time (us)      0     10    14.096  20    24.096
 *	request A      |-lat-|==4 KiB==|
 *	request B due        ........ (waits) ==4 KiB==|     (due at 10: the channel is A's)
 *	request C due                             |==4 KiB==|  (due at 20: the channel is free)
 */
static void __maybe_unused test_device_channel(void)
{
	uint64_t a = blk_channel_done_ns(0, 10000, 4096, 1000000000);

	is_int(a, 14096, "a request due at 10 us on a free channel has its 4 KiB in 4096 ns later");
	is_int(blk_channel_done_ns(a, 10000, 4096, 1000000000), 18192,
	       "one due while the channel carries the last waits for it, then crosses");
	is_int(blk_channel_done_ns(a, 14095, 4096, 1000000000), 18192, "... due 1 ns before it is free: waits");
	is_int(blk_channel_done_ns(a, 14096, 4096, 1000000000), 18192, "... due as it is free: starts then");
	is_int(blk_channel_done_ns(a, 14097, 4096, 1000000000), 18193, "... due 1 ns after: starts when due");
	is_int(blk_channel_done_ns(a, 20000, 4096, 1000000000), 24096, "one due after it is free starts when due");
	is_int(blk_channel_done_ns(a, 10000, 4096, 0), 10000, "no bandwidth limit: done when due, whatever the channel");
	is_int(blk_channel_done_ns(0, 0, 2ULL << 30, 3200000000ULL), 671088640,
	       "2 GiB at 3200 MB/s: 0.671 s, no overflow");
}

/*
 * Another reader fills an index between readahead's "is it cached" check
 * and its insert: readahead must skip that index (-EEXIST) and go on with
 * the rest of the window, in both designs.  For the batched design this is
 * its fallback under memory pressure: the 5th allocation of the window
 * fails, so pages 0..3 go in as a batch and the rest one at a time.
 *
 *	index	0 1 2 3 4 5 ... 31
 *	window	B B B B 1 1 ... 1	B batch, 1 single insert
 *	other	        X		X filled "meanwhile" by another reader
 */
static int eexist_attempts, eexist_trigger;

static void fill_index_4_meanwhile(gfp_t gfp, unsigned int order)
{
	struct folio *folio;

	if (++eexist_attempts != eexist_trigger)
		return;
	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio || filemap_add_folio(&mapping, folio, 4, GFP_KERNEL)) {
		diag("the other reader could not insert index 4");
		return;
	}
	memcpy(folio_address(folio), contents + 4 * 4096, 4096);
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);
}

static void __maybe_unused test_eexist_skipped(void)
{
	static char buf[RECORD];
	struct folio *folio;
	unsigned long bad = 0;

	open_file(sizeof(contents));
	eexist_attempts = 0;
#ifdef CONFIG_RA_BATCHED
	fail_page_alloc.after = 4;	/* allocations 1-4 succeed, the 5th fails */
	fail_page_alloc.nr = 1;
	eexist_trigger = 6;		/* the single insert of index 4 */
#else
	eexist_trigger = 5;		/* the insert of index 4 */
#endif
	fail_page_alloc.on_attempt = fill_index_4_meanwhile;
	page_cache_ra_unbounded(&mapping, 0, 32, 0);
	fail_page_alloc.on_attempt = NULL;
	fail_page_alloc.after = -1;
	ok(eexist_attempts >= eexist_trigger, "the other reader filled index 4 during the window");
#ifdef CONFIG_READAHEAD_MUTANT_EEXIST_ENDS
	ok(cached_range_is(0, 5), "mutant %s: caught: the window ended at the filled index", MM_KERNEL_NAME);
#else
	ok(cached_range_is(0, 32), "the window went on past the index found filled: 0..31 cached");
#endif
	folio = filemap_get_folio(&mapping, 4);
	ok(folio && folio_test_uptodate(folio) &&
	   !memcmp(folio_address(folio), contents + 4 * 4096, 4096), "index 4 is the other reader's folio");
	if (folio)
		folio_put(folio);
	for (loff_t pos = 0; pos < 32 * 4096; pos += RECORD)
		if (filemap_read(&file, pos, RECORD, buf) != RECORD || memcmp(buf, contents + pos, RECORD))
			bad++;
	is_int(bad, 0, "and the window reads back the file's bytes");
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	close_file();
}

static bool no_readahead_marks(void)
{
	for (pgoff_t i = 0; i < FILE_PAGES; i++) {
		struct folio *folio = filemap_get_folio(&mapping, i);
		bool marked = folio && folio_test_readahead(folio);

		if (folio)
			folio_put(folio);
		if (marked)
			return false;
	}
	return true;
}

/*
 * readahead(2): force_page_cache_ra() reads from the offset's page at most
 * max(io_pages, ra_pages) pages, in chunks of 2 MiB, with no readahead
 * marker and the file's window left alone; an index already cached is
 * skipped and the range goes on, as is one filled meanwhile (-EEXIST).
 */
static void __maybe_unused test_force_readahead(void)
{
	static char buf[RECORD];
	struct file_ra_state ra0;
	unsigned long req0;
	struct folio *folio;

	open_file(sizeof(contents));
	ra0 = file.f_ra;
	is_int(ksys_readahead(&file, 4096 + 100, 100 * 4096), 0, "readahead(2) of 100 pages at page 1");
	ok(cached_range_is(1, 33), "capped at ra_pages (32): pages 1..32 cached");
	ok(no_readahead_marks(), "no folio carries the readahead marker");
	ok(file.f_ra.start == ra0.start && file.f_ra.size == ra0.size &&
	   file.f_ra.async_size == ra0.async_size, "the file's window is left alone");
	req0 = vm_event(FILEMAP_READ_REQUESTS);
	ok(filemap_read(&file, 4096, RECORD, buf) == RECORD && !memcmp(buf, contents + 4096, RECORD) &&
	   vm_event(FILEMAP_READ_REQUESTS) == req0, "a read in the range finds it cached, reads nothing");
	close_file();

	/* A mapping larger than the backing file: what lies past it reads as zeroes. */
	open_file(1024 * 4096);
	file.f_ra.ra_pages = 1024;
	req0 = vm_event(FILEMAP_READ_REQUESTS);
	ksys_readahead(&file, 0, 1000 * 4096);
	is_int(cached_pages(), 1000, "ra_pages 1024: all 1000 pages asked for");
	is_int(vm_event(FILEMAP_READ_REQUESTS) - req0, 2, "in two chunks (512 + 488 pages)");
	ok(no_readahead_marks(), "still no marker");
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	close_file();

	open_file(sizeof(contents));
	folio = folio_alloc(GFP_KERNEL, 0);
	ok(folio && !filemap_add_folio(&mapping, folio, 5, GFP_KERNEL), "page 5 cached beforehand");
	folio_unlock(folio);
	force_page_cache_ra(&file, 0, 16);
	ok(cached_range_is(0, 16), "the range went on past the cached index: 0..15 cached");
	ok(filemap_get_folio(&mapping, 5) == folio, "page 5 is still the folio cached before");
	folio_put(folio);
	folio_put(folio);
	close_file();

	open_file(sizeof(contents));
	eexist_attempts = 0;
#ifdef CONFIG_RA_BATCHED
	fail_page_alloc.after = 4;
	fail_page_alloc.nr = 1;
	eexist_trigger = 6;
#else
	eexist_trigger = 5;
#endif
	fail_page_alloc.on_attempt = fill_index_4_meanwhile;
	force_page_cache_ra(&file, 0, 32);
	fail_page_alloc.on_attempt = NULL;
	fail_page_alloc.after = -1;
	ok(eexist_attempts >= eexist_trigger && cached_range_is(0, 32),
	   "an index filled during the insert (-EEXIST) is skipped and the range goes on: 0..31 cached");
	ok(no_readahead_marks(), "no marker after the fallback either");
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	close_file();
}

static void __maybe_unused test_random_read_leaves_window(void)
{
	static char buf[64];

	open_file(sizeof(contents));
	filemap_read(&file, 0, 64, buf);
	file.f_ra.prev_pos = 0;
	is_int(filemap_read(&file, 100 * 4096 + 10, 64, buf), 64, "a random small read");
	ok(memcmp(buf, contents + 100 * 4096 + 10, 64) == 0, "returns the right bytes");
	ok(file.f_ra.start == 0, "and does not move the readahead window");
	close_file();
}

/*
 * Context readahead: a reader with no history of its own (a second open
 * file) whose read starts right after a cached run takes the run as the
 * trace of a stream, reads a window after it, and marks its last folio so
 * that the stream's next read goes on asynchronously.
 */
static void __maybe_unused test_context_readahead(void)
{
	struct file other = { .f_mapping = &mapping };
	static char buf[64];
	struct folio *last;
	pgoff_t n;

	open_file(sizeof(contents));
	filemap_read(&file, 0, 64, buf);
	n = (pgoff_t)cached_pages();
	ok(n > 1 && cached_range_is(0, n), "a first read caches pages 0..%lu", n - 1);
	file_ra_state_init(&other.f_ra);
	is_int(filemap_read(&other, (loff_t)n * 4096, 64, buf), 64, "another file reads at page %lu", n);
	ok(other.f_ra.start == n && other.f_ra.size > 1, "it opens a window at %lu of %u pages",
	   n, other.f_ra.size);
	rcu_read_lock();
	last = xa_load(&mapping.i_pages, other.f_ra.start + other.f_ra.size - 1);
	rcu_read_unlock();
	ok(last && folio_test_readahead(last), "the window's last folio carries the readahead marker");
	close_file();
}

static void __maybe_unused test_exhaustion(void)
{
	static char buf[RECORD];
	struct page_alloc_report r;
	loff_t pos;
	ssize_t n = RECORD;

	/* 4 MiB of memory, a file of 1 MiB: then take memory away. */
	ok(mem_init(4ULL << 20) == 0, "boot 4 MiB");
	{
		static struct page *hog[1024];
		int nr = 0;

		while (nr < 1024 - 100 && (hog[nr] = alloc_pages(GFP_KERNEL, 0)))
			nr++;
		unsigned long fallbacks = vm_event(FILEMAP_RA_FALLBACK);

		open_file(sizeof(contents));
		for (pos = 0; pos < (loff_t)sizeof(contents) && n == RECORD; pos += RECORD)
			n = filemap_read(&file, pos, RECORD, buf);
		ok(pos < (loff_t)sizeof(contents), "with memory exhausted a read comes back short");
#ifdef CONFIG_RA_BATCHED
		ok(vm_event(FILEMAP_RA_FALLBACK) > fallbacks,
		   "batched readahead fell back to single insertion when allocation failed");
#else
		is_int(vm_event(FILEMAP_RA_FALLBACK), fallbacks, "vanilla has no fallback path");
#endif
		ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
		close_file();
		while (nr--)
			__free_pages(hog[nr], 0);
	}
	lru_add_drain_all();
	drain_all_pages(&contig_zone);
	ok(page_alloc_check(&r, msg, sizeof(msg)) == 0 && r.allocated == 0,
	   "nothing leaked after readahead ran out of memory");
	ok(mem_init(64ULL << 20) == 0, "reboot");
}

/*
 * Readahead over the whole file, then every check we have: the page cache
 * checker after each window, the data of every record, and the allocator
 * after truncation.  A batched-insertion mutant must be caught by one of
 * them; a correct design passes them all.  (A folio freed while still in
 * the cache would make readers retry forever, as in the kernel, so reads
 * and truncation only run if the page cache checker found nothing.)
 */
static void test_all_checks(void)
{
	static char buf[RECORD];
	struct page_alloc_report r;
	bool caught = false;

	open_file(sizeof(contents));
	for (pgoff_t index = 0; index < FILE_PAGES && !caught; index += 32) {
		page_cache_ra_unbounded(&mapping, index, 32, 0);
		if (filemap_check(&mapping, msg, sizeof(msg))) {
			diag("page cache checker: %s", msg);
			caught = true;
		}
	}
	if (!caught) {
		for (loff_t pos = 0; pos < (loff_t)sizeof(contents); pos += RECORD)
			if (filemap_read(&file, pos, RECORD, buf) != RECORD ||
			    memcmp(buf, contents + pos, RECORD))
				caught = true;
		close_file();
		lru_add_drain_all();
		drain_all_pages(&contig_zone);
		if (page_alloc_check(&r, msg, sizeof(msg)) || r.allocated) {
			diag("after truncate: %lu pages still allocated %s", r.allocated, msg);
			caught = true;
		}
	}
#if defined(CONFIG_READAHEAD_MUTANT_SKIP_SLOT) || defined(CONFIG_READAHEAD_MUTANT_BAD_REF)
	ok(caught, "mutant %s: the broken batched insert is caught", MM_KERNEL_NAME);
#else
	ok(!caught, "design %s: page cache, data and allocator checks all pass", MM_KERNEL_NAME);
#endif
}

int main(void)
{
	int fd;

	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	fd = make_backing_file();
	ok(fd >= 0, "backing file created");
	backing.fd = fd;
	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB");
#ifdef CONFIG_READAHEAD_MUTANT_EEXIST_ENDS
	test_eexist_skipped();
#elif !defined(CONFIG_READAHEAD_MUTANT_SKIP_SLOT) && !defined(CONFIG_READAHEAD_MUTANT_BAD_REF)
	test_sequential_read("synchronous");
	test_async_device();
	test_device_channel();
	test_eexist_skipped();
	test_force_readahead();
	test_random_read_leaves_window();
	test_context_readahead();
	test_exhaustion();
#endif
	test_all_checks();
	mem_exit();
	close(fd);
	return done_testing();
}
