/*
 * The page cache, one step at a time: adding folios, reading through the
 * lockless path, the two ways of removing a folio, and what a reader that
 * holds a reference does to each.
 */
#include <errno.h>
#include <string.h>

#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <machine/machine.h>

#include "mm_test.h"

static struct address_space mapping;
static struct file file = { .f_mapping = &mapping };

static struct folio *add_filled(pgoff_t index, unsigned int order, unsigned char fill)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, order);

	if (!folio)
		return NULL;
	if (filemap_add_folio(&mapping, folio, index, GFP_KERNEL)) {
		folio_put(folio);
		return NULL;
	}
	memset(folio_address(folio), fill, folio_size(folio));
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);
	lru_add_drain();	/* on the LRU: the cache's references alone remain */
	return folio;
}

/* The node's NR_FILE_PAGES, with every CPU's difference. */
static long file_pages(void)
{
	return (long)node_page_state_snapshot(&contig_node, NR_FILE_PAGES);
}

static void test_add(void)
{
	struct folio *f0, *big, *dup;

	f0 = add_filled(0, 0, 0xa0);
	ok(f0 != NULL, "add an order-0 folio at index 0");
	is_int(folio_ref_count(f0), 1, "the page cache holds one reference");
	ok(f0->mapping == &mapping && f0->index == 0, "mapping and index set");
	ok(!folio_test_locked(f0), "unlocked after filling");

	big = add_filled(4, 2, 0xb4);
	ok(big != NULL, "add an order-2 folio at index 4");
	is_int(folio_ref_count(big), 4, "one reference per page");
	is_int(mapping.nrpages, 5, "nrpages counts pages");
	is_int(file_pages(), 5, "the node's NR_FILE_PAGES counts them too");
	ok(xa_load(&mapping.i_pages, 6) == big, "every index of a large folio finds it");

	dup = folio_alloc(GFP_KERNEL, 0);
	is_int(filemap_add_folio(&mapping, dup, 5, GFP_KERNEL), -EEXIST, "an occupied index is refused");
	is_int(folio_ref_count(dup), 1, "a refused folio keeps only the caller's reference");
	ok(!folio_test_locked(dup) && dup->mapping == NULL, "and is left as it was");
	folio_put(dup);
}

/*
 * filemap_add_folio() hands its gfp to the XArray.  With every allocation
 * that may not sleep failing (the kernel's userspace harness), GFP_NOWAIT
 * cannot get the nodes a far index needs; GFP_KERNEL drops xa_lock for
 * each and completes.
 */
static void test_add_nomem(void)
{
	struct folio *a = folio_alloc(GFP_KERNEL, 0), *b = folio_alloc(GFP_KERNEL, 0);
	pgoff_t far = 1UL << 30;
	unsigned long nrpages = mapping.nrpages;

	xa_fail_gfp_without = __GFP_DIRECT_RECLAIM;
	is_int(filemap_add_folio(&mapping, a, far, GFP_NOWAIT), -ENOMEM,
	       "GFP_NOWAIT and no node to be had: -ENOMEM");
	ok(folio_ref_count(a) == 1 && !folio_test_locked(a) && a->mapping == NULL,
	   "the folio is left as it was");
	is_int(filemap_add_folio(&mapping, b, far, GFP_KERNEL), 0,
	       "GFP_KERNEL: node by node with the lock dropped, it completes");
	xa_fail_gfp_without = 0;
	ok(xa_load(&mapping.i_pages, far) == b && mapping.nrpages == nrpages + 1, "and the folio is there");
	folio_put(a);
	folio_mark_uptodate(b);
	folio_unlock(b);
	folio_put(b);
}

static void test_read(void)
{
	struct folio *folio;
	char buf[3 * 4096];

	mapping.i_size = 8 * PAGE_SIZE;
	is_int(filemap_read(&file, 10, 64, buf), 64, "64-byte read");
	ok(buf[0] == (char)0xa0 && buf[63] == (char)0xa0, "bytes of folio 0");
	is_int(filemap_read(&file, 4 * PAGE_SIZE + 100, 2 * PAGE_SIZE, buf), 2 * PAGE_SIZE,
	       "a read inside a large folio");
	ok(buf[0] == (char)0xb4 && buf[2 * PAGE_SIZE - 1] == (char)0xb4, "bytes of the large folio");
	is_int(filemap_read(&file, PAGE_SIZE - 10, 64, buf), 10, "a read stops at a hole");
	is_int(filemap_read(&file, 9 * PAGE_SIZE, 64, buf), 0, "nothing past i_size");
	folio = filemap_get_folio(&mapping, 4);
	is_int(folio_ref_count(folio), 5, "filemap_get_folio takes a reference");
	folio_put(folio);
	is_int(folio_ref_count(folio), 4, "reads left no reference behind");
	ok(folio_test_referenced(folio), "a read starting in a new folio marks it accessed");

#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
	/* Short reads inside one page take the fast path, which marks nothing. */
	folio = filemap_get_folio(&mapping, 0);
	ok(folio_test_referenced(folio) && folio_test_lru(folio),
	   "folio 0: marked once, by the read that crossed into the hole");
	folio_put(folio);
#else
	/* Folio 0 was the first folio of two reads: the second activates it. */
	folio = filemap_get_folio(&mapping, 0);
	ok(folio_test_referenced(folio) == false && !folio_test_lru(folio),
	   "folio 0 read twice: queued for activation (off the LRU, in this CPU's batch)");
	is_int(folio_ref_count(folio), 3, "the activation batch holds a reference");
	ok(!folio_test_active(folio), "not active before the batch is moved");
	lru_add_drain();
	ok(folio_test_active(folio) && folio_test_lru(folio), "after the drain: active, on the LRU");
	is_int(folio_ref_count(folio), 2, "and the batch's reference is gone");
	folio_put(folio);
	is_int(filemap_read(&file, 20, 8, buf), 8, "a read inside the folio the last one ended in");
	is_int(filemap_read(&file, 28, 8, buf), 8, "and another");
	folio = filemap_get_folio(&mapping, 0);
	ok(!folio_test_referenced(folio), "marks it once, then not again while the reads stay in it");
	folio_put(folio);
#endif
}

/*
 * The tmpfs read (shmem_file_read_iter()): the same bytes as filemap_read(),
 * the folio locked and unlocked on the way, and marked accessed when a read
 * starts at a page boundary: referenced, then active (on the LRU), then
 * nothing more to change.
 */
static void test_shmem_read(void)
{
	struct folio *folio = add_filled(3, 0, 0xa3);
	char buf[64];
	int refs;

	refs = folio_ref_count(folio);
	ok(!folio_test_referenced(folio) && !folio_test_active(folio), "folio 3: not yet accessed");
	ok(folio_test_lru(folio), "on the LRU (this CPU's lru_add batch was drained)");
	is_int(shmem_file_read(&file, 3 * PAGE_SIZE, 64, buf), 64, "tmpfs: 64-byte read");
	ok(buf[0] == (char)0xa3 && buf[63] == (char)0xa3, "tmpfs: the bytes of folio 3");
	ok(!folio_test_locked(folio) && folio_ref_count(folio) == refs,
	   "tmpfs: unlocked again, no reference left behind");
	ok(folio_test_referenced(folio) && !folio_test_active(folio), "first access: referenced");
	shmem_file_read(&file, 3 * PAGE_SIZE, 64, buf);
	ok(!folio_test_referenced(folio) && !folio_test_lru(folio), "second access: queued for activation");
	lru_add_drain();
	ok(folio_test_active(folio) && folio_test_lru(folio), "activated when this CPU's batch moves");
	shmem_file_read(&file, 3 * PAGE_SIZE, 64, buf);
	ok(folio_test_referenced(folio) && folio_test_active(folio), "third: active and referenced");
	shmem_file_read(&file, 3 * PAGE_SIZE, 64, buf);
	ok(folio_test_referenced(folio) && folio_test_active(folio), "steady state: no flag changes");
	folio_clear_referenced(folio);
	is_int(shmem_file_read(&file, 3 * PAGE_SIZE + 10, 32, buf), 32, "tmpfs: a read inside the page");
	ok(!folio_test_referenced(folio), "a read not at a page boundary does not mark the folio accessed");
	is_int(shmem_file_read(&file, PAGE_SIZE - 10, 64, buf), 10, "tmpfs: a read stops at a hole (not modelled)");
	is_int(shmem_file_read(&file, 9 * PAGE_SIZE, 64, buf), 0, "tmpfs: nothing past i_size");
	/* Off the LRU again, as reclaim would isolate it, for the tests that follow. */
	folio_lru_release(folio);
}

static void test_remove_mapping(void)
{
	struct folio *folio = filemap_get_folio(&mapping, 0);
	struct folio *reader;
	unsigned long free_before;
	char buf[64];

	/* A reader holds a reference: reclaim must not free the folio. */
	reader = filemap_get_folio(&mapping, 0);
	folio_lock(folio);
	ok(!remove_mapping(&mapping, folio), "reclaim fails while a reader holds a reference");
	is_int(folio_ref_count(folio), 3, "and leaves the count as it was");
	ok(xa_load(&mapping.i_pages, 0) == folio, "and the folio in the cache");
	folio_put(reader);

	free_before = free_pages_all();
	ok(remove_mapping(&mapping, folio), "reclaim succeeds once only cache and caller hold it");
	is_int(free_pages_all(), free_before + 1, "the folio went back to the allocator");
	ok(xa_load(&mapping.i_pages, 0) == NULL, "the slot is empty");
	is_int(filemap_read(&file, 0, 64, buf), 0, "a read now finds a hole");
	ok(!folio_try_get(folio), "a speculative get on the freed folio fails");
}

static void test_truncate_with_reader(void)
{
	struct folio *folio = add_filled(1, 0, 0xc1);
	struct folio *reader = filemap_get_folio(&mapping, 1);
	unsigned long free_before = free_pages_all();

	folio_get(folio);
	folio_lock(folio);
	filemap_remove_folio(folio);
	folio_unlock(folio);
	folio_put(folio);
	ok(xa_load(&mapping.i_pages, 1) == NULL, "truncate removes the folio from the cache");
	is_int(free_pages_all(), free_before, "but a reader's reference keeps it allocated");
	ok(((unsigned char *)folio_address(reader))[0] == 0xc1, "and its data intact");
	folio_put(reader);
	is_int(free_pages_all(), free_before + 1, "the reader's put frees it");
}

#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
static void test_seqcount_bumped(void)
{
	struct folio *folio = add_filled(2, 0, 0xd2);
	unsigned int seq = raw_read_seqcount(&mapping.i_pages_delete_seqcnt);

	folio_get(folio);
	folio_lock(folio);
	ok(remove_mapping(&mapping, folio), "reclaim a folio");
	ok(read_seqcount_retry(&mapping.i_pages_delete_seqcnt, seq),
	   "removal moved the deletion sequence count");
	is_int(raw_read_seqcount(&mapping.i_pages_delete_seqcnt) & 1, 0, "and left it even");
}
#endif

/*
 * Two folios just added sit in this CPU's lru_add batch, first and last
 * (a b); accessed twice each, they are marked active where they sit, and
 * the drain puts both straight on the active list.
 */
static void test_activate_in_lru_add_batch(void)
{
	struct address_space m2;
	struct folio *f[2];

	address_space_init(&m2);
	for (int i = 0; i < 2; i++) {
		f[i] = folio_alloc(GFP_KERNEL, 0);
		if (!f[i] || filemap_add_folio(&m2, f[i], (pgoff_t)i, GFP_KERNEL)) {
			printf("Bail out! could not add folio %d\n", i);
			exit(1);
		}
		folio_mark_uptodate(f[i]);
		folio_unlock(f[i]);
	}
	is_int(lru_batched_folios(), 2, "both folios wait in this CPU's lru_add batch");
	for (int i = 0; i < 2; i++) {
		folio_mark_accessed(f[i]);
		folio_mark_accessed(f[i]);
		ok(folio_test_active(f[i]) && !folio_test_lru(f[i]),
		   "folio %c accessed twice in the batch: marked active there", 'a' + i);
	}
	lru_add_drain();
	for (int i = 0; i < 2; i++) {
		ok(folio_test_active(f[i]) && folio_test_lru(f[i]),
		   "folio %c: on the active list after the drain", 'a' + i);
		folio_put(f[i]);
	}
	truncate_inode_pages(&m2);
	address_space_destroy(&m2);
}

/*
 * One folio on the inactive list, read again and again (seed 000's loop).
 * Its second access queues it in this CPU's lru_activate batch, off the
 * LRU and not yet active, where one folio stays until a drain; from then
 * on every second access clears PG_referenced and ages the workingset
 * clock again, as the kernel's folio_mark_accessed() does:
 *   access   1    2         3    4         drain   5    6
 *   flags    R    parked    R    parked    A       AR   AR
 *   age      0    1         1    2         2       2    2
 */
static void test_mark_accessed_ages_workingset(void)
{
	static const long want_age[6] = { 0, 1, 1, 2, 2, 2 };
	static const bool want_ref[6] = { true, false, true, false, true, true };
	struct address_space m3;
	struct folio *f = folio_alloc(GFP_KERNEL, 0);
	long age0 = atomic_long_read(&node_lruvec.nonresident_age);

	address_space_init(&m3);
	if (!f || filemap_add_folio(&m3, f, 0, GFP_KERNEL)) {
		printf("Bail out! could not add a folio\n");
		exit(1);
	}
	folio_mark_uptodate(f);
	folio_unlock(f);
	lru_add_drain();
	ok(folio_test_lru(f) && !folio_test_active(f) && !folio_test_referenced(f),
	   "the folio sits on the inactive list, unreferenced");
	for (int i = 0; i < 6; i++) {
		if (i == 4) {
			lru_add_drain();
			ok(folio_test_lru(f) && folio_test_active(f), "the drain puts it on the active list");
		}
		folio_mark_accessed(f);
		is_int(atomic_long_read(&node_lruvec.nonresident_age) - age0, want_age[i],
		       "access %d: the workingset clock has aged by %ld", i + 1, want_age[i]);
		ok(folio_test_referenced(f) == want_ref[i], "access %d: PG_referenced %s", i + 1,
		   want_ref[i] ? "set" : "clear");
		if (i == 1 || i == 3)
			ok(!folio_test_lru(f) && !folio_test_active(f),
			   "access %d: parked in the activation batch, off the LRU, not active", i + 1);
	}
	folio_put(f);
	truncate_inode_pages(&m3);
	address_space_destroy(&m3);
}

int main(void)
{
	struct page_alloc_report r;
	char msg[200];

	plan_no_plan();
	machine_init();
	ok(mem_init(16ULL << 20) == 0, "boot");
	address_space_init(&mapping);
	test_add();
	test_add_nomem();
	test_read();
	test_shmem_read();
	test_activate_in_lru_add_batch();
	test_mark_accessed_ages_workingset();
	test_remove_mapping();
	test_truncate_with_reader();
#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
	test_seqcount_bumped();
#endif
	truncate_inode_pages(&mapping);
	is_int(mapping.nrpages, 0, "truncate_inode_pages empties the cache");
	is_int(file_pages(), 0, "and NR_FILE_PAGES is back to 0");
	address_space_destroy(&mapping);
	ok(page_alloc_check(&r, msg, sizeof(msg)) == 0, "allocator invariants hold");
	is_int(r.allocated, 0, "every page is free again");
	is_int(vm_warn_count, 0, "no debug check fired");
	mem_exit();
	return done_testing();
}
