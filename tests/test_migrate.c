/*
 * Migration of anonymous folios between NUMA nodes (seed 003, part 3, the
 * vanilla kernel's behaviour), on a two-node machine:
 *
 *  - do_mbind(MPOL_MF_MOVE) moves the folios only the calling process
 *    maps, MPOL_MF_MOVE_ALL the shared ones too; every process then reads
 *    what it wrote, the moved pages are on the target node, no migration
 *    entry is left, and the rmap census agrees;
 *  - the entry kinds: a writable exclusive page comes back writable and
 *    exclusive, a read-only shared one read-only;
 *  - try_to_migrate() stops once the folio is unmapped, while
 *    remove_migration_ptes() visits every VMA of the anon_vma tree;
 *  - a fault on a migration entry waits until the entries are restored;
 *  - a folio with an extra reference cannot move: the undo path restores
 *    its entries and puts it back;
 *  - do_pages_move() moves single pages and reports each one's node;
 *  - a large folio moves whole.
 *
 * Mutant: migrate-stop-restore (remove_migration_ptes() stops once the
 * new folio is mapped anywhere) is caught by the shared pages of
 * MPOL_MF_MOVE_ALL: C3 keeps migration entries.
 *
 * The designs of seed 003 (mgt-entry: the RFC's PGTY_mgt_entry; mgt-counter:
 * a counter of its own) count the entries naming the source: every
 * transition is checked here (made by try_to_migrate(), copied by a fork
 * between unmap and restore, dropped by an exiting child, removed by the
 * restore, which stops when none is left; the undo path; a large folio).
 * Mutants mgt-entry-fork-uncounted and mgt-counter-fork-uncounted (fork
 * does not count the copy: the restore stops before the child's entry),
 * mgt-counter-zap-uncounted (an exiting child does not uncount: the count
 * never reaches 0), and migrate-stop-exclusive (David Hildenbrand's "stop
 * after restoring an exclusive entry": a large folio mapped by two VMAs
 * after a split keeps entries in the second) are caught.
 *
 *   P:  BASE [ 0 .. 7 | 8 .. 15 ]    C1, C2 copied every page, C3 pages 0..7:
 *   C1: BASE [ copies          ]     P's pages 0..7 are P's alone,
 *   C2: BASE [ copies          ]     8..15 shared with C3
 *   C3: BASE [ copies | shared ]
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/migrate.h>
#include <linux/swapops.h>
#include <machine/machine.h>

#include "migrate_test.h"
#include "rmap_test.h"

#ifdef CONFIG_MIGRATE_MUTANT_STOP_RESTORE
#define MT_STOP_RESTORE	1
#else
#define MT_STOP_RESTORE	0
#endif

#if defined(CONFIG_MIGRATE_MUTANT_STOP_EXCLUSIVE)
#define MT_STOP_EXCLUSIVE	1
#else
#define MT_STOP_EXCLUSIVE	0
#endif
#define MT_COUNT_MUTANT	(MT_FORK_UNCOUNTED || MT_ZAP_UNCOUNTED)

#define BASE		0x7f0000000000UL
#define PG(n)		((unsigned long)(n) << PAGE_SHIFT)
#define RW		(VM_READ | VM_WRITE)
#define NPAGES		16

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = mm_find_pte(mm, addr);

	if (!ptep || !pte_present(__ptep_get(ptep))) {
		printf("Bail out! nothing mapped at %#lx\n", addr);
		exit(1);
	}
	return pte_page(__ptep_get(ptep));
}

static unsigned char *access_byte(struct mm_struct *mm, unsigned long addr, bool write)
{
	unsigned char *p = mt_access(mm, addr, write, 4, true);

	if (!p) {
		printf("Bail out! access at %#lx failed\n", addr);
		exit(1);
	}
	return p;
}

static void store(struct mm_struct *mm, unsigned long addr, unsigned char v)
{
	*access_byte(mm, addr, true) = v;
}

static unsigned char load(struct mm_struct *mm, unsigned long addr)
{
	return *access_byte(mm, addr, false);
}

/* Migration entries left in @mm's page tables. */
static int migration_entries(struct mm_struct *mm)
{
	int n = 0;

	for (unsigned long i = 0; i < NPAGES; i++) {
		pte_t *ptep = mm_find_pte(mm, BASE + PG(i));

		if (ptep && is_swap_pte(__ptep_get(ptep)) &&
		    is_migration_entry(pte_to_swp_entry(__ptep_get(ptep))))
			n++;
	}
	return n;
}

static void finish(const char *what, struct mm_struct **mms, int nr, unsigned long warns)
{
	for (int i = 0; i < nr; i++)
		mmput(mms[i]);
	is_int(node_stat(NR_ANON_MAPPED), 0, "%s: NR_ANON_MAPPED back to 0", what);
	is_int(atomic_long_read(&nr_anon_vmas), 0, "%s: every anon_vma freed", what);
	is_int(rt_allocated_pages(), 0, "%s: every page free on both nodes", what);
	is_int(vm_warn_count - warns, 0, "%s: no debug check fired", what);
	anon_folio_order = 0;
}

/* P, C1..C3 as drawn at the top; page i of process k carries byte k*16 + i at offset 8. */
static void build_family(struct mm_struct **mms)
{
	mms[0] = rt_mm_alloc();
	do_mmap(mms[0], NULL, BASE, PG(NPAGES), RW, 0);
	for (int i = 0; i < NPAGES; i++)
		store(mms[0], BASE + PG(i) + 8, (unsigned char)i);
	for (int k = 1; k <= 3; k++)
		mms[k] = dup_mm(mms[0]);
	for (int k = 1; k <= 3; k++)
		for (int i = 0; i < (k == 3 ? NPAGES / 2 : NPAGES); i++)
			store(mms[k], BASE + PG(i) + 8, (unsigned char)(k * 16 + i));
}

/* Does every process read what it last wrote? */
static bool family_data_ok(struct mm_struct **mms)
{
	for (int k = 0; k <= 3; k++)
		for (int i = 0; i < NPAGES; i++) {
			int want = (k == 0 || (k == 3 && i >= NPAGES / 2)) ? i : k * 16 + i;

			if (load(mms[k], BASE + PG(i) + 8) != want)
				return false;
		}
	return true;
}

static int pages_on_node(struct mm_struct *mm, int from, int to, int nid)
{
	int n = 0;

	for (int i = from; i < to; i++)
		n += page_to_nid(page_at(mm, BASE + PG(i))) == nid;
	return n;
}

static void test_mbind_move(void)
{
	unsigned long warns = vm_warn_count, moved;
	struct mm_struct *mms[4];
	struct folio *shared;

	build_family(mms);
	is_int(pages_on_node(mms[0], 0, NPAGES, 0), NPAGES, "mbind: P's pages start on node 0");
	shared = page_folio(page_at(mms[0], BASE + PG(12)));
	is_int(folio_mapcount(shared), 2, "mbind: page 12 is shared with C3");

	reset_vm_events();
	is_int(do_mbind(mms[0], BASE, PG(NPAGES), 1, MPOL_MF_MOVE), 0, "mbind MOVE: returns 0");
	moved = vm_event(PGMIGRATE_SUCCESS);
	is_int(moved, NPAGES / 2, "mbind MOVE: 8 pages migrated");
	is_int(pages_on_node(mms[0], 0, NPAGES / 2, 1), NPAGES / 2, "mbind MOVE: P's own pages on node 1");
	is_int(pages_on_node(mms[0], NPAGES / 2, NPAGES, 0), NPAGES / 2,
	       "mbind MOVE: the shared ones stay on node 0");
	ok(!pte_write(__ptep_get(mm_find_pte(mms[0], BASE))) &&
	   !PageAnonExclusive(page_at(mms[0], BASE)),
	   "mbind MOVE: a read-only, non-exclusive page comes back so (readable entry)");
	is_int(migration_entries(mms[0]) + migration_entries(mms[3]), 0, "mbind MOVE: no migration entry left");
	ok(family_data_ok(mms), "mbind MOVE: every process reads what it wrote");
	ok(rt_check(mms, 4, NULL) == 0, "mbind MOVE: rmap and LRU checkers pass");
	if (MT_STOP_RESTORE) {
		/* P's entry is restored first; the walk stops before C3's. */
		do_mbind(mms[0], BASE, PG(NPAGES), 1, MPOL_MF_MOVE_ALL);
		ok(migration_entries(mms[3]) == NPAGES / 2,
		   "mutant %s: C3 keeps a migration entry for each shared page (caught)", MM_KERNEL_NAME);
		return;		/* the entries name freed folios: no teardown */
	}

	is_int(do_mbind(mms[0], BASE, PG(NPAGES), 1, MPOL_MF_MOVE_ALL), 0, "mbind MOVE_ALL: returns 0");
	is_int(pages_on_node(mms[0], 0, NPAGES, 1), NPAGES, "mbind MOVE_ALL: all of P's pages on node 1");
	ok(page_at(mms[3], BASE + PG(12)) == page_at(mms[0], BASE + PG(12)),
	   "mbind MOVE_ALL: C3 maps the moved shared page too");
	ok(family_data_ok(mms), "mbind MOVE_ALL: every process reads what it wrote");
	ok(rt_check(mms, 4, NULL) == 0, "mbind MOVE_ALL: checkers pass");

	/* A writable exclusive page: P writes page 0 (reuse), then moves it back. */
	store(mms[0], BASE + 8, 0x99);
	ok(pte_write(__ptep_get(mm_find_pte(mms[0], BASE))), "writable: P's page 0 is writable");
	is_int(do_mbind(mms[0], BASE, PG(1), 0, MPOL_MF_MOVE), 0, "writable: moved back to node 0");
	ok(page_to_nid(page_at(mms[0], BASE)) == 0 && pte_write(__ptep_get(mm_find_pte(mms[0], BASE))) &&
	   PageAnonExclusive(page_at(mms[0], BASE)),
	   "writable: on node 0, writable and exclusive again (writable entry)");
	is_int(load(mms[0], BASE + 8), 0x99, "writable: with its data");
	ok(rt_check(mms, 4, NULL) == 0, "writable: checkers pass");
	finish("mbind", mms, 4, warns);
}

/*
 * One page of P, copied by every child: try_to_migrate() stops after P's
 * VMA, remove_migration_ptes() visits P and the three children.
 */
static void test_walk_costs(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mms[4];

	mms[0] = rt_mm_alloc();
	do_mmap(mms[0], NULL, BASE, PG(1), RW, 0);
	store(mms[0], BASE, 1);
	for (int k = 1; k <= 3; k++) {
		mms[k] = dup_mm(mms[0]);
		store(mms[k], BASE, (unsigned char)k);
	}
	reset_vm_events();
	is_int(do_mbind(mms[0], BASE, PG(1), 1, MPOL_MF_MOVE), 0, "walks: the page moved");
	is_int(vm_event(RMAP_WALKS), 2, "walks: one to unmap, one to restore");
	if (MGT_COUNTER || MGT_ENTRY)
		is_int(vm_event(RMAP_VMAS), 1 + 1,
		       "walks: unmap stops after 1 VMA, restore too: the count reached 0 in P's");
	else
		is_int(vm_event(RMAP_VMAS), 1 + 4, "walks: unmap stops after 1 VMA, restore visits all 4");
	is_int(vm_event(MIGRATE_UNMAP_VMAS), 1, "walks: migrate_unmap_vmas counts try_to_migrate's");
	is_int(vm_event(MIGRATE_RESTORE_VMAS), MGT_COUNTER || MGT_ENTRY ? 1 : 4,
	       "walks: migrate_restore_vmas counts remove_migration_ptes'");
	is_int(vm_event(MIGRATE_ENTRIES_MADE), 1, "walks: one entry made");
	is_int(vm_event(MIGRATE_ENTRIES_REMOVED), 1, "walks: one entry removed");
	is_int(vm_event(PVMW_WALKS), MGT_COUNTER || MGT_ENTRY ? 2 : 5, "walks: one page table walk per VMA");
	is_int(vm_event(PVMW_PTL), MGT_COUNTER || MGT_ENTRY ? 2 : 5, "walks: one page table lock per VMA");
	is_int(vm_event(RMAP_PVMW_HITS), 1 + 1, "walks: one entry found each time");
	ok(rt_check(mms, 4, NULL) == 0, "walks: checkers pass");
	finish("walks", mms, 4, warns);
}

struct faulter {
	struct mm_struct *mm;
	volatile bool started, restored, done;
	unsigned char seen;
	bool restored_first;
};

static void *fault_on_entry(void *arg)
{
	struct faulter *f = arg;

	f->started = true;
	f->seen = *access_byte(f->mm, BASE + 8, false);
	f->restored_first = f->restored;
	f->done = true;
	return NULL;
}

/* A fault on a migration entry waits for the migration (here: held locked by the test). */
static void test_fault_waits(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm = rt_mm_alloc();
	struct faulter f = { .mm = mm };
	struct folio *folio;
	pthread_t t;

	do_mmap(mm, NULL, BASE, PG(1), RW, 0);
	store(mm, BASE + 8, 0x42);
	folio = page_folio(page_at(mm, BASE));
	folio_get(folio);
	folio_lock(folio);
	try_to_migrate(folio, 0);
	ok(!folio_mapped(folio) && migration_entries(mm) == 1, "wait: the entry is a migration entry");
	pthread_create(&t, NULL, fault_on_entry, &f);
	while (!f.started)
		sched_yield();
	usleep(20000);
	ok(!f.done, "wait: the faulting access is still waiting");
	remove_migration_ptes(folio, folio, 0);
	f.restored = true;
	folio_unlock(folio);
	pthread_join(t, NULL);
	ok(f.restored_first && f.seen == 0x42, "wait: it completed after the restore, reading its data");
	folio_put(folio);
	ok(rt_check(&mm, 1, NULL) == 0, "wait: checkers pass");
	finish("wait", &mm, 1, warns);
}

/* A page with an extra reference (a pin) cannot move: undo. */
static void test_undo(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm = rt_mm_alloc();
	struct folio *pinned;

	do_mmap(mm, NULL, BASE, PG(2), RW, 0);
	store(mm, BASE + 8, 7);
	store(mm, BASE + PG(1) + 8, 8);
	pinned = page_folio(page_at(mm, BASE));
	folio_get(pinned);
	reset_vm_events();
	is_int(do_mbind(mm, BASE, PG(2), 1, MPOL_MF_MOVE), -EIO, "undo: mbind reports a failure");
	ok(page_folio(page_at(mm, BASE)) == pinned && folio_nid(pinned) == 0,
	   "undo: the pinned page stays where it was");
	ok(pte_write(__ptep_get(mm_find_pte(mm, BASE))) && PageAnonExclusive(&pinned->page),
	   "undo: restored writable and exclusive");
	is_int(page_to_nid(page_at(mm, BASE + PG(1))), 1, "undo: the other page moved");
	is_int(vm_event(PGMIGRATE_FAIL), 1, "undo: pgmigrate_fail counts it");
	ok(migration_entries(mm) == 0 && folio_test_lru(pinned), "undo: no entry left, back on the LRU");
	is_int(folio_mapcount(pinned), 1, "undo: mapped once again (no page type left in the mapcount)");
	is_int(mgt_counted(pinned), MGT_COUNTER ? 0 : -1, "undo: the count is 0 (or none is kept)");
	is_int(load(mm, BASE + 8), 7, "undo: data intact");
	folio_put(pinned);
	ok(rt_check(&mm, 1, NULL) == 0, "undo: checkers pass");
	finish("undo", &mm, 1, warns);
}

static void test_pages_move(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mms[4];
	unsigned long pages[3] = { BASE + PG(2), BASE + PG(9), BASE + PG(NPAGES) };
	int nodes[3] = { 1, 1, 1 }, status[3];

	build_family(mms);
	do_mmap(mms[0], NULL, BASE + PG(NPAGES), PG(1), RW, 0);
	is_int(do_pages_move(mms[0], 3, pages, nodes, status, MPOL_MF_MOVE), 0, "move_pages: returns 0");
	is_int(status[0], 1, "move_pages: page 2 is on node 1");
	is_int(status[1], -EACCES, "move_pages: shared page 9 refused");
	is_int(status[2], -EFAULT, "move_pages: nothing mapped: -EFAULT");
	ok(family_data_ok(mms), "move_pages: every process reads what it wrote");
	ok(rt_check(mms, 4, NULL) == 0, "move_pages: checkers pass");
	finish("move_pages", mms, 4, warns);
}

static void test_large_folio(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm = rt_mm_alloc();
	struct folio *old, *new;
	bool data = true;

	anon_folio_order = 4;
	do_mmap(mm, NULL, BASE, PG(16), RW, 0);
	for (int i = 0; i < 16; i++)
		store(mm, BASE + PG(i) + 8, (unsigned char)(i + 100));
	old = page_folio(page_at(mm, BASE));
	ok(folio_order(old) == 4, "large: one order-4 folio");
	is_int(do_mbind(mm, BASE, PG(16), 1, MPOL_MF_MOVE), 0, "large: moved");
	new = page_folio(page_at(mm, BASE));
	ok(new != old && folio_order(new) == 4 && folio_nid(new) == 1, "large: an order-4 folio on node 1");
	is_int(rt_census(mm, BASE, 16).present, 16, "large: all 16 entries present");
	ok(rt_census(mm, BASE, 16).consecutive && folio_mapcount(new) == 16,
	   "large: mapping its pages in order, 16 mappings");
	for (int i = 0; i < 16; i++)
		data &= load(mm, BASE + PG(i) + 8) == i + 100;
	ok(data, "large: data intact");
	ok(rt_check(&mm, 1, NULL) == 0, "large: checkers pass");
	finish("large", &mm, 1, warns);
}

/* What the design should count for @n entries naming each page of @folio. */
static int expect_count(struct folio *folio, int n)
{
	if (MGT_COUNTER)
		return n * (int)folio_nr_pages(folio);
	if (MGT_ENTRY && !folio_test_large(folio))
		return n;
	return -1;
}

/* Does @mm hold a readable (not writable, not exclusive) migration entry at @addr? */
static bool readable_entry_at(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = mm_find_pte(mm, addr);
	swp_entry_t entry;

	if (!ptep || !is_swap_pte(__ptep_get(ptep)))
		return false;
	entry = pte_to_swp_entry(__ptep_get(ptep));
	return is_migration_entry(entry) && is_readable_migration_entry(entry);
}

/*
 * Every transition of the count, migrating by hand as compaction does (no
 * mmap_lock held, so processes may fork and exit between unmap and
 * restore):
 *
 *	P maps the folio, C0 (forked before) has its own copy;
 *	try_to_migrate()		P's entries: count 1 (per page)
 *	fork C1				copies them: 2
 *	fork C2, C2 exits		3, then 2
 *	restore (to a new folio on node 1, or @undo: to the folio itself)
 *					P's: 1, C0's VMA: none, C1's: 0, done
 */
static void test_count_transitions(unsigned int order, bool undo)
{
	unsigned long warns = vm_warn_count;
	int nr = 1 << order;
	struct mm_struct *mms[3], *c2;
	struct folio *src, *dst;
	bool data = true;
	char what[64];

	snprintf(what, sizeof(what), "count (order %u, %s)", order, undo ? "undo" : "move");
	anon_folio_order = order;
	mms[0] = rt_mm_alloc();
	do_mmap(mms[0], NULL, BASE, PG(nr), RW, 0);
	for (int i = 0; i < nr; i++)
		store(mms[0], BASE + PG(i) + 8, (unsigned char)(0x10 + i));
	mms[1] = dup_mm(mms[0]);
	for (int i = 0; i < nr; i++)
		store(mms[1], BASE + PG(i) + 8, 0x77);
	src = page_folio(page_at(mms[0], BASE));
	ok(folio_order(src) == order && folio_mapcount(src) == nr, "%s: P alone maps the folio", what);
	ok(folio_isolate_lru(src), "%s: isolated", what);
	folio_lock(src);

	try_to_migrate(src, 0);
	ok(!folio_mapped(src) && migration_entries(mms[0]) == nr, "%s: unmapped, %d entries in P", what, nr);
	is_int(mgt_counted(src), expect_count(src, 1), "%s: counted after try_to_migrate", what);

	mms[2] = dup_mm(mms[0]);
	ok(migration_entries(mms[2]) == nr && readable_entry_at(mms[2], BASE) &&
	   readable_entry_at(mms[0], BASE), "%s: fork copied the entries, readable on both sides", what);
	if (MT_FORK_UNCOUNTED) {
		ok(mgt_counted(src) == expect_count(src, 1),
		   "mutant %s: the fork's copies are not counted (caught by the next test)", MM_KERNEL_NAME);
	} else {
		is_int(mgt_counted(src), expect_count(src, 2), "%s: fork counted", what);
	}
	/* (Not with the fork mutant: the exit would take its count below the truth.) */
	c2 = MT_FORK_UNCOUNTED ? NULL : dup_mm(mms[0]);
	if (c2) {
		is_int(mgt_counted(src), expect_count(src, 3), "%s: a second fork counted", what);
		mmput(c2);
	}
	if (MT_ZAP_UNCOUNTED) {
		ok(mgt_counted(src) == expect_count(src, 3),
		   "mutant %s: the exiting child's entries are still counted (caught)", MM_KERNEL_NAME);
		exit(done_testing());	/* the count would never reach 0 */
	}
	if (!MT_FORK_UNCOUNTED)
		is_int(mgt_counted(src), expect_count(src, 2), "%s: the exit uncounted", what);

	reset_vm_events();
	if (undo) {
		dst = src;
		remove_migration_ptes(src, src, 0);
	} else {
		dst = alloc_migration_target(src, 1);
		folio_lock(dst);
		memcpy(folio_address(dst), folio_address(src), folio_size(src));
		dst->index = src->index;
		WRITE_ONCE(dst->mapping, src->mapping);
		__folio_set_swapbacked(dst);
		remove_migration_ptes(src, dst, 0);
	}
	if (MT_FORK_UNCOUNTED) {
		ok(migration_entries(mms[2]) == nr,
		   "mutant %s: C1 keeps its migration entries after the restore (caught)", MM_KERNEL_NAME);
		exit(done_testing());	/* entries name a folio about to be freed: no teardown */
	}
	is_int(migration_entries(mms[0]) + migration_entries(mms[1]) + migration_entries(mms[2]), 0,
	       "%s: no migration entry left", what);
	is_int(vm_event(MIGRATE_ENTRIES_REMOVED), 2 * nr, "%s: P's and C1's entries restored", what);
	is_int(vm_event(MIGRATE_RESTORE_VMAS), 3, "%s: P, C0 and C1 visited (C1 is the last)", what);
	is_int(mgt_counted(src), MGT_COUNTER ? 0 : -1, "%s: the count is 0 (or forgotten)", what);
	ok(folio_mapcount(dst) == 2 * nr && page_at(mms[2], BASE) == &dst->page &&
	   page_at(mms[0], BASE) == &dst->page, "%s: P and C1 map %s", what, undo ? "the folio again" : "the new folio");
	if (!undo) {
		folio_add_lru(dst);
		folio_unlock(dst);
		folio_put(dst);		/* the mappings hold it now */
		ok(folio_nid(dst) == 1, "%s: the new folio is on node 1", what);
	}
	folio_unlock(src);
	if (undo)
		folio_putback_lru(src);
	else
		folio_put(src);		/* the isolation reference, the last */
	for (int i = 0; i < nr; i++)
		data &= load(mms[0], BASE + PG(i) + 8) == 0x10 + i &&
			load(mms[2], BASE + PG(i) + 8) == 0x10 + i && load(mms[1], BASE + PG(i) + 8) == 0x77;
	ok(data, "%s: every process reads what it wrote", what);
	ok(rt_check(mms, 3, NULL) == 0, "%s: checkers pass", what);
	finish(what, mms, 3, warns);
}

/*
 * "Stop after restoring an exclusive entry": a large folio mapped by two
 * VMAs of one process (a VMA split by mprotect() or munmap() of part of
 * it), every page exclusive.  The restore walk visits the first VMA,
 * restores exclusive entries, and would stop with the second VMA's
 * entries still in place.
 */
static void test_split_exclusive(void)
{
	unsigned long warns = vm_warn_count;
	struct mm_struct *mm = rt_mm_alloc();
	struct folio *old, *new;
	bool data = true;

	anon_folio_order = 2;
	do_mmap(mm, NULL, BASE, PG(4), RW, 0);
	for (int i = 0; i < 4; i++)
		store(mm, BASE + PG(i) + 8, (unsigned char)(0x40 + i));
	old = page_folio(page_at(mm, BASE));
	mmap_write_lock(mm);
	is_int(split_vma(mm, vma_lookup(mm, BASE), BASE + PG(2)), 0, "split: VMA split in two");
	mmap_write_unlock(mm);
	ok(vma_lookup(mm, BASE) != vma_lookup(mm, BASE + PG(2)) && page_folio(page_at(mm, BASE + PG(3))) == old &&
	   PageAnonExclusive(page_at(mm, BASE + PG(3))), "split: one order-2 folio, exclusive, in two VMAs");
	is_int(do_mbind(mm, BASE, PG(4), 1, MPOL_MF_MOVE), 0, "split: mbind moves it");
	if (MT_STOP_EXCLUSIVE) {
		ok(migration_entries(mm) == 2,
		   "mutant %s: the second VMA keeps 2 migration entries (caught)", MM_KERNEL_NAME);
		exit(done_testing());
	}
	is_int(migration_entries(mm), 0, "split: no migration entry left");
	new = page_folio(page_at(mm, BASE + PG(3)));
	ok(new != old && folio_nid(new) == 1 && page_folio(page_at(mm, BASE)) == new,
	   "split: both VMAs map the new folio on node 1");
	for (int i = 0; i < 4; i++)
		data &= load(mm, BASE + PG(i) + 8) == 0x40 + i;
	ok(data, "split: data intact");
	ok(rt_check(&mm, 1, NULL) == 0, "split: checkers pass");
	finish("split", &mm, 1, warns);
}

int main(void)
{
	plan_no_plan();
	nr_online_nodes = 2;
	rt_boot(64ULL << 20);
	if (MT_COUNT_MUTANT) {
		test_count_transitions(0, false);
		test_count_transitions(2, false);
		return done_testing();
	}
	if (MT_STOP_EXCLUSIVE) {
		test_split_exclusive();
		return done_testing();
	}
	test_mbind_move();
	if (MT_STOP_RESTORE)
		return done_testing();
	test_walk_costs();
	test_count_transitions(0, false);
	test_count_transitions(0, true);
	test_count_transitions(2, false);
	test_count_transitions(2, true);
	test_split_exclusive();
	test_fault_waits();
	test_undo();
	test_pages_move();
	test_large_folio();
	rcu_barrier();
	mem_exit();
	nr_online_nodes = 1;
	return done_testing();
}
