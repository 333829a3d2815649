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

#include "rmap_test.h"

#ifdef CONFIG_MIGRATE_MUTANT_STOP_RESTORE
#define MT_STOP_RESTORE	1
#else
#define MT_STOP_RESTORE	0
#endif

#define BASE		0x7f0000000000UL
#define PG(n)		((unsigned long)(n) << PAGE_SHIFT)
#define RW		(VM_READ | VM_WRITE)
#define NPAGES		16

static char msg[256];

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
	for (int tries = 0; tries < 4; tries++) {
		unsigned char *p = mmu_access(mm, addr, write);
		struct vm_area_struct *vma;

		if (p)
			return p;
		mmap_read_lock(mm);
		vma = vma_lookup(mm, addr);
		if (vma)
			handle_mm_fault(vma, addr, write ? FAULT_FLAG_WRITE : 0);
		mmap_read_unlock(mm);
		lru_add_drain();	/* the new folio on the LRU, not in this CPU's batch */
	}
	printf("Bail out! access at %#lx failed\n", addr);
	exit(1);
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

static int check(struct mm_struct *const *mms, int nr)
{
	if (rmap_check(mms, nr, NULL, 0, msg, sizeof(msg))) {
		diag("rmap checker: %s", msg);
		return -1;
	}
	if (lruvec_check(&node_lruvec, msg, sizeof(msg))) {
		diag("LRU checker: %s", msg);
		return -1;
	}
	return 0;
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
	ok(check(mms, 4) == 0, "mbind MOVE: rmap and LRU checkers pass");
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
	ok(check(mms, 4) == 0, "mbind MOVE_ALL: checkers pass");

	/* A writable exclusive page: P writes page 0 (reuse), then moves it back. */
	store(mms[0], BASE + 8, 0x99);
	ok(pte_write(__ptep_get(mm_find_pte(mms[0], BASE))), "writable: P's page 0 is writable");
	is_int(do_mbind(mms[0], BASE, PG(1), 0, MPOL_MF_MOVE), 0, "writable: moved back to node 0");
	ok(page_to_nid(page_at(mms[0], BASE)) == 0 && pte_write(__ptep_get(mm_find_pte(mms[0], BASE))) &&
	   PageAnonExclusive(page_at(mms[0], BASE)),
	   "writable: on node 0, writable and exclusive again (writable entry)");
	is_int(load(mms[0], BASE + 8), 0x99, "writable: with its data");
	ok(check(mms, 4) == 0, "writable: checkers pass");
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
	is_int(vm_event(RMAP_VMAS), 1 + 4, "walks: unmap stops after 1 VMA, restore visits all 4");
	is_int(vm_event(RMAP_PVMW_HITS), 1 + 1, "walks: one entry found each time");
	ok(check(mms, 4) == 0, "walks: checkers pass");
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
	ok(check(&mm, 1) == 0, "wait: checkers pass");
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
	is_int(load(mm, BASE + 8), 7, "undo: data intact");
	folio_put(pinned);
	ok(check(&mm, 1) == 0, "undo: checkers pass");
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
	ok(check(mms, 4) == 0, "move_pages: checkers pass");
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
	ok(check(&mm, 1) == 0, "large: checkers pass");
	finish("large", &mm, 1, warns);
}

int main(void)
{
	plan_no_plan();
	machine_init();
	nr_online_nodes = 2;
	if (mem_init(64ULL << 20)) {
		printf("Bail out! mem_init failed\n");
		return 1;
	}
	test_mbind_move();
	if (MT_STOP_RESTORE)
		return done_testing();
	test_walk_costs();
	test_fault_waits();
	test_undo();
	test_pages_move();
	test_large_folio();
	rcu_barrier();
	mem_exit();
	nr_online_nodes = 1;
	return done_testing();
}
