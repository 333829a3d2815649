/*
 * The read path at its boundaries (issue 23, item 14), beyond the sizes
 * test_readahead uses (its window tops out at the default 32 pages):
 *
 *  - the first window, get_init_ra_size(): x4 up to max/32, x2 up to
 *    max/4, else max, after rounding the request up to a power of two;
 *  - its growth, get_next_ra_size(): x4 below max/16, x2 up to max/2,
 *    then max, with max 1024 and an odd max (1023), where doubling at
 *    max/2 and capping differ;
 *  - page_cache_sync_ra()'s choices: a sequential or same-page read, an
 *    oversized one, the history's length against the request, a history
 *    from the start of the file, its cap; and page_cache_async_ra()'s
 *    rebuild of a window from the cached run after a marker;
 *  - accounting that scales with the folio's size: nrpages, NR_FILE_PAGES,
 *    the LRU sizes, the workingset's age, for orders 0 to MAX_PAGE_ORDER;
 *    the folio order the fault path creates at i_size's boundaries; a
 *    read's "same folio as the last one" with large folios, which decides
 *    whether it counts as a new access, and a read batch that runs across
 *    a large folio's end.
 *
 * The window cases call the readahead entry points directly on a sparse
 * file of FILE_PAGES pages (its bytes are zeroes); nothing else runs.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <machine/machine.h>

#include "mm_test.h"

#define FILE_PAGES	4096

static struct address_space mapping;
static struct backing_file backing;
static struct file file = { .f_mapping = &mapping };
static struct file_ra_state *ra = &file.f_ra;

static int make_sparse_file(void)
{
	char path[] = "/tmp/mmlab-read-bounds-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	if (ftruncate(fd, (off_t)FILE_PAGES * PAGE_SIZE))
		return -1;
	return fd;
}

/* Empty the cache and start a fresh window state with @ra_pages. */
static void ra_reset(unsigned int ra_pages)
{
	truncate_inode_pages(&mapping);
	file_ra_state_init(ra);
	ra->ra_pages = ra_pages;
}

/* Is every index of [start, end) cached, and nothing else? */
static bool cached_exactly(pgoff_t start, pgoff_t end)
{
	return mapping.nrpages == end - start && page_cache_next_miss(&mapping, start, end - start) == end &&
	       (!start || page_cache_next_present(&mapping, 0, start) == start);
}

/* Cache [index, index + nr) without touching the window (readahead(2)). */
static void cache_run(pgoff_t index, unsigned long nr)
{
	ksys_readahead(&file, (loff_t)index * PAGE_SIZE, nr * PAGE_SIZE);
}

static void expect_window(pgoff_t start, unsigned int size, unsigned int async, const char *what)
{
	ok(ra->start == start && ra->size == size && ra->async_size == async,
	   "%s: window start %lu size %u async %u (got %lu %u %u)", what, start, size, async, ra->start,
	   ra->size, ra->async_size);
}

/*
 * The first window, at index 0 (always a fresh one), max 1024: the
 * request rounded up to a power of two, x4 if that is at most 32, x2 if
 * at most 256, else 1024; the async part is what was not asked for, or
 * half the window when the window is no larger than the request.
 *
 *   request  16  17  31  32  33   255  256   257  1024  1025
 *   rounded  16  32  32  32  64   256  256   512  1024  2048
 *   window   64 128 128 128 128   512  512  1024  1024  1024
 *   async    48 111  97  96  95   257  256   767   512   512
 */
static void test_init_window(void)
{
	static const struct { unsigned long req; unsigned int size, async; } c[] = {
		{ 16, 64, 48 }, { 17, 128, 111 }, { 31, 128, 97 }, { 32, 128, 96 }, { 33, 128, 95 },
		{ 255, 512, 257 }, { 256, 512, 256 }, { 257, 1024, 767 }, { 1024, 1024, 512 },
		{ 1025, 1024, 512 },
	};
	char what[64];

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		ra_reset(1024);
		page_cache_sync_ra(&file, 0, c[i].req);
		snprintf(what, sizeof(what), "max 1024, a read of %lu pages at 0", c[i].req);
		expect_window(0, c[i].size, c[i].async, what);
		ok(cached_exactly(0, c[i].size), "%s: pages [0, %u) read", what, c[i].size);
	}
}

/*
 * The ramp: the marker hit where the window put it moves the window on
 * and grows it.  The window is set to [8, 8 + cur) with its marker at 8.
 *
 *   max 1024:  cur   63   64   65   511   512   513  1024
 *              next 252  128  130  1022  1024  1024  1024
 *   max 1023:  cur   62   63   511   512
 *              next 248  126  1022  1023
 */
static void ramp_case(unsigned int max, unsigned int cur, unsigned int want)
{
	struct folio *folio;
	char what[64];

	ra_reset(max);
	cache_run(0, 1);
	folio = filemap_get_folio(&mapping, 0);
	folio_set_readahead(folio);
	ra->start = 8;
	ra->size = cur;
	ra->async_size = cur;
	page_cache_async_ra(&file, folio, 8, 1);
	snprintf(what, sizeof(what), "max %u, the marker of a %u-page window", max, cur);
	expect_window(8 + cur, want, want, what);
	ok(page_cache_next_miss(&mapping, 8 + cur, want) == 8 + cur + want &&
	   mapping.nrpages == 1 + want, "%s: the next %u pages read", what, want);
	ok(!folio_test_readahead(folio), "%s: the marker is cleared", what);
	folio_put(folio);
}

static void test_ramp(void)
{
	ramp_case(1024, 63, 252);
	ramp_case(1024, 64, 128);
	ramp_case(1024, 65, 130);
	ramp_case(1024, 511, 1022);
	ramp_case(1024, 512, 1024);
	ramp_case(1024, 513, 1024);
	ramp_case(1024, 1024, 1024);
	ramp_case(1023, 62, 248);
	ramp_case(1023, 63, 126);
	ramp_case(1023, 511, 1022);
	ramp_case(1023, 512, 1023);
}

/*
 * page_cache_sync_ra()'s choices, max 64 (window state 0/0/0 before each;
 * "random" reads the request as is and leaves the window alone):
 *
 *   read 4 at 100, the last read ended in page 99:  sequential, a fresh window [100, 108) async 4
 *                                     ... in page 100: the same page, fresh too
 *                                     ... in page 98:  no history: random
 *   read 64 at 100, last in page 0:   not oversized, no history: random
 *   read 65 at 100:                   oversized: fresh, the whole max, async 32
 *   read 4 at 200 with [200 - k, 200) cached (last read far away):
 *     k 3, 4: random;   k 5: a window of k + 4 = 9, async 1
 *   read 4 at 10 with [0, 10) cached: history from the start, twice: 24
 *                 with [1, 10) cached: 9 + 4 = 13
 *   read 4 at 100 with [36, 100) cached: the history walk stops at 64: min(68, 64) = 64
 */
static void sync_case(pgoff_t index, unsigned long req, long prev_page, pgoff_t hist, unsigned long k,
		      bool fresh, unsigned int size, unsigned int async, const char *what)
{
	ra_reset(64);
	if (k)
		cache_run(hist, k);
	ra->prev_pos = (loff_t)prev_page * PAGE_SIZE + (prev_page == 100 ? 10 : 0);
	page_cache_sync_ra(&file, index, req);
	if (fresh) {
		expect_window(index, size, async, what);
		ok(page_cache_next_miss(&mapping, index, size) == index + size, "%s: [%lu, +%u) read",
		   what, index, size);
	} else {
		expect_window(0, 0, 0, what);
		ok(mapping.nrpages == k + req && page_cache_next_miss(&mapping, index, req) == index + req,
		   "%s: only the %lu pages asked for read", what, req);
	}
}

static void test_sync_choices(void)
{
	sync_case(100, 4, 99, 0, 0, true, 8, 4, "sequential (last read in the page before)");
	sync_case(100, 4, 100, 0, 0, true, 8, 4, "the same page again");
	sync_case(100, 4, 98, 0, 0, false, 0, 0, "two pages on, nothing cached");
	sync_case(100, 64, 0, 0, 0, false, 0, 0, "a read of max (64) pages");
	sync_case(100, 65, 0, 0, 0, true, 64, 32, "a read of max + 1 pages");
	sync_case(200, 4, 0, 197, 3, false, 0, 0, "3 pages of history, 4 asked");
	sync_case(200, 4, 0, 196, 4, false, 0, 0, "4 pages of history, 4 asked");
	sync_case(200, 4, 0, 195, 5, true, 9, 1, "5 pages of history, 4 asked");
	sync_case(10, 4, 0, 0, 10, true, 24, 1, "history from page 0");
	sync_case(10, 4, 0, 1, 9, true, 13, 1, "history from page 1");
	sync_case(100, 4, 0, 36, 64, true, 64, 1, "64 pages of history, max 64");
}

/*
 * A marker hit with no window that expects it (interleaved streams):
 * the cached run after it is taken for the old async part, max 64.
 *
 *   marker at 100, [101, 101 + k) cached, a read of 1:
 *     k 62: next miss 163, 63 away: window [163, +64)
 *     k 63: next miss 164, 64 away (= max): window [164, +64)
 *     k 64: next miss 165, 65 away (> max): nothing read, the window left alone
 */
static void rebuild_case(unsigned long k, bool reads)
{
	struct folio *folio;
	char what[64];

	ra_reset(64);
	cache_run(100, 1);
	cache_run(101, k);
	folio = filemap_get_folio(&mapping, 100);
	folio_set_readahead(folio);
	page_cache_async_ra(&file, folio, 100, 1);
	snprintf(what, sizeof(what), "a marker at 100 with %lu pages cached after it", k);
	if (reads) {
		expect_window(101 + k, 64, 64, what);
		ok(mapping.nrpages == 1 + k + 64, "%s: 64 more pages read", what);
	} else {
		expect_window(0, 0, 0, what);
		ok(mapping.nrpages == 1 + k, "%s: nothing read", what);
	}
	folio_put(folio);
}

static void test_async_rebuild(void)
{
	rebuild_case(62, true);
	rebuild_case(63, true);
	rebuild_case(64, false);
}

/* --- large folios ------------------------------------------------------------- */

static struct address_space lmap;
static struct file lfile = { .f_mapping = &lmap };

struct counts {
	long nrpages, file_pages, inactive, active, age;
};

static void counts_now(struct counts *c)
{
	lru_add_drain();
	c->nrpages = (long)lmap.nrpages;
	c->file_pages = (long)node_stat(NR_FILE_PAGES);
	c->inactive = (long)node_lruvec.nr_pages[LRU_INACTIVE_FILE];
	c->active = (long)node_lruvec.nr_pages[LRU_ACTIVE_FILE];
	c->age = atomic_long_read(&node_lruvec.nonresident_age);
}

/*
 * A folio of order k created by the fault path at index 0 of a file of
 * 2^k pages, accessed twice (activated), then truncated: every count moves
 * by 2^k, both ways.
 *
 *   create:    nrpages, NR_FILE_PAGES, inactive file  +2^k;  refcount 2^k + 1
 *   activate:  inactive -2^k, active +2^k, the workingset's age +2^k
 *   truncate:  nrpages, NR_FILE_PAGES, active         -2^k
 */
static void account_case(unsigned int order)
{
	long nr = 1L << order;
	struct counts c0, c;
	struct folio *folio;

	lmap.folio_order = order;
	lmap.i_size = (loff_t)nr * PAGE_SIZE;
	counts_now(&c0);
	folio = __filemap_get_folio(&lmap, 0, FGP_CREAT, GFP_KERNEL);
	if (!folio) {
		ok(0, "order %u: a folio created", order);
		return;
	}
	is_int(folio_order(folio), order, "order %u: the fault path creates an order-%u folio", order, order);
	counts_now(&c);
	ok(c.nrpages - c0.nrpages == nr && c.file_pages - c0.file_pages == nr &&
	   c.inactive - c0.inactive == nr && c.active == c0.active,
	   "order %u: nrpages, NR_FILE_PAGES and the inactive file list grow by %ld (%ld %ld %ld)",
	   order, nr, c.nrpages - c0.nrpages, c.file_pages - c0.file_pages, c.inactive - c0.inactive);
	is_int(folio_ref_count(folio), nr + 1, "order %u: the cache's %ld references and ours", order, nr);
	folio_mark_accessed(folio);
	folio_mark_accessed(folio);
	counts_now(&c);
	ok(folio_test_active(folio) && c.inactive == c0.inactive && c.active - c0.active == nr &&
	   c.age - c0.age == nr,
	   "order %u: activated, %ld pages move to the active list and age the workingset (%ld %ld %ld)",
	   order, nr, c.inactive - c0.inactive, c.active - c0.active, c.age - c0.age);
	folio_put(folio);
	truncate_inode_pages(&lmap);
	counts_now(&c);
	ok(c.nrpages == c0.nrpages && c.file_pages == c0.file_pages && c.inactive == c0.inactive &&
	   c.active == c0.active,
	   "order %u: truncated, every count is back (%ld %ld %ld %ld)", order, c.nrpages - c0.nrpages,
	   c.file_pages - c0.file_pages, c.inactive - c0.inactive, c.active - c0.active);
}

static void test_accounting(void)
{
	static const unsigned int orders[] = { 0, 1, 2, 3, 4, 8, 9, MAX_PAGE_ORDER };

	for (size_t i = 0; i < ARRAY_SIZE(orders); i++)
		account_case(orders[i]);
}

/*
 * The order the fault path creates at index 4 of a mapping whose folios
 * are order 2, as i_size moves about the folio's end (page 8):
 *
 *   i_size (pages)   7      7 + 1 byte   8 - 1 byte   8      8 + 1 byte
 *   pages of file    7      8            8            8      9
 *   folio at 4      [4,6)   [4,8)        [4,8)        [4,8)  [4,8)
 *                   order 1 order 2 ...
 *
 * And at index 6 of a 7-page file: the folio that holds it may not reach
 * past page 7, so it is [6,7), order 0.  (The model once sized the folio at
 * ALIGN_DOWN(6, 4) = 4, where order 1 fits, and placed that order-1 folio
 * at 6: [6,8), a page past the end of the file.  The kernel's
 * page_cache_ra_order() checks the end at the index it allocates at.)
 */
static void order_case(loff_t i_size, unsigned int want, const char *what)
{
	struct folio *folio;

	lmap.folio_order = 2;
	lmap.i_size = i_size;
	folio = __filemap_get_folio(&lmap, 4, FGP_CREAT, GFP_KERNEL);
	ok(folio && folio_order(folio) == want && folio->index == 4,
	   "i_size %s: the folio at index 4 is order %u", what, want);
	if (folio)
		folio_put(folio);
	truncate_inode_pages(&lmap);
}

static void test_create_order(void)
{
	struct folio *folio;

	order_case(7 * PAGE_SIZE, 1, "7 pages");
	order_case(7 * PAGE_SIZE + 1, 2, "7 pages + 1 byte");
	order_case(8 * PAGE_SIZE - 1, 2, "8 pages - 1 byte");
	order_case(8 * PAGE_SIZE, 2, "8 pages");
	order_case(8 * PAGE_SIZE + 1, 2, "8 pages + 1 byte");

	lmap.folio_order = 2;
	lmap.i_size = 7 * PAGE_SIZE;
	folio = __filemap_get_folio(&lmap, 6, FGP_CREAT, GFP_KERNEL);
	ok(folio && folio->index == 6 && folio_next_index(folio) == 7,
	   "i_size 7 pages: the folio created at index 6 is [6, 7), ending by the file's end (got [%lu, %lu))",
	   folio ? folio->index : 0, folio ? folio_next_index(folio) : 0);
	if (folio)
		folio_put(folio);
	truncate_inode_pages(&lmap);
}

/*
 * Reads through two order-2 folios (16 KiB each), 2000 bytes at a time
 * (past the seqcount design's short-read path).  A read whose first folio
 * is the one the last read ended in does not count as an access; a
 * batch's later folios are not marked at all.
 *
 *   bytes  0            14384   16383 16384           32768
 *          |  F0 (0xf0)     |   |     |  F1 (0xf1)      |
 *   R1  [0, 2000)                       F0 marked (referenced)
 *   R2  [14384, 16384)   ends at F0's last byte: same folio, not marked
 *   R3  [16383, 18383)   starts there: not marked; F1 second in its batch: not marked
 *   (prev_pos set back to 16384: the last read taken to have ended at F0's end)
 *   R4  [16384, 18384)   F1's first byte: a new folio, F1 marked
 *   R1 again             F0's second access: activated, 4 pages to the active list
 */
static void test_read_large(void)
{
	struct folio *f0, *f1;
	struct counts c0, c;
	char buf[2000];

	file_ra_state_init(&lfile.f_ra);
	lmap.folio_order = 2;
	lmap.i_size = 8 * PAGE_SIZE;
	f0 = __filemap_get_folio(&lmap, 0, FGP_CREAT, GFP_KERNEL);
	f1 = __filemap_get_folio(&lmap, 4, FGP_CREAT, GFP_KERNEL);
	if (!f0 || !f1 || folio_order(f0) != 2 || folio_order(f1) != 2) {
		ok(0, "two order-2 folios created");
		return;
	}
	memset(folio_address(f0), 0xf0, folio_size(f0));
	memset(folio_address(f1), 0xf1, folio_size(f1));
	counts_now(&c0);

	is_int(filemap_read(&lfile, 0, 2000, buf), 2000, "R1 [0, 2000)");
	ok(folio_test_referenced(f0) && !folio_test_referenced(f1), "R1: F0 marked, F1 not");
	is_int(filemap_read(&lfile, 14384, 2000, buf), 2000, "R2 [14384, 16384)");
	lru_add_drain();
	ok(folio_test_referenced(f0) && !folio_test_active(f0),
	   "R2 ends at F0's last byte, in the folio R1 ended in: not a new access");
	is_int(filemap_read(&lfile, 16383, 2000, buf), 2000, "R3 [16383, 18383)");
	ok(buf[0] == (char)0xf0 && buf[1] == (char)0xf1 && buf[1999] == (char)0xf1,
	   "R3: one byte of F0, then F1's");
	lru_add_drain();
	ok(folio_test_referenced(f0) && !folio_test_active(f0) && !folio_test_referenced(f1),
	   "R3 starts at F0's last byte: F0 not marked again, F1 (second in the batch) not marked");
	lfile.f_ra.prev_pos = 16384;
	is_int(filemap_read(&lfile, 16384, 2000, buf), 2000, "R4 [16384, 18384)");
	ok(folio_test_referenced(f1) && !folio_test_active(f1), "R4 starts at F1's first byte: F1 marked");
	counts_now(&c);
	ok(c.active == c0.active && c.age == c0.age, "nothing activated so far");
	is_int(filemap_read(&lfile, 0, 2000, buf), 2000, "R1 again");
	counts_now(&c);
	ok(folio_test_active(f0) && !folio_test_active(f1) && c.active - c0.active == 4 && c0.inactive - c.inactive == 4 &&
	   c.age - c0.age == 4,
	   "F0's second access activates it: 4 pages move to the active list (%ld %ld %ld)",
	   c.active - c0.active, c0.inactive - c.inactive, c.age - c0.age);
	folio_put(f0);
	folio_put(f1);
	truncate_inode_pages(&lmap);
	address_space_destroy(&lmap);
}

int main(void)
{
	char msg[256];
	int fd;

	plan_no_plan();
	machine_init();
	fd = make_sparse_file();
	if (fd < 0) {
		printf("Bail out! no backing file\n");
		return 1;
	}
	backing.fd = fd;
	ok(mem_init(64ULL << 20) == 0, "boot 64 MiB");
	address_space_init(&mapping);
	mapping.i_size = (loff_t)FILE_PAGES * PAGE_SIZE;
	mapping.backing = &backing;

	test_init_window();
	test_ramp();
	test_sync_choices();
	test_async_rebuild();
	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0, "page cache invariants hold (%s)", msg);
	truncate_inode_pages(&mapping);
	address_space_destroy(&mapping);

	address_space_init(&lmap);
	test_accounting();
	test_create_order();
	test_read_large();

	is_int(vm_warn_count, 0, "no debug check fired");
	is_int(mm_allocated_pages(), 0, "every page is free again");
	mem_exit();
	close(fd);
	return done_testing();
}
