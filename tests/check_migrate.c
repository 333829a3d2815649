// SPDX-License-Identifier: GPL-2.0
/*
 * Migration against the processes that map the folio, under the
 * interleaving checker (seed 003, issue 12 section 6): the real
 * migrate_pages() of one isolated anonymous folio to node 1, as compaction
 * or another process's mbind(MPOL_MF_MOVE_ALL) runs it (holding no lock of
 * these mms), against the real fork (dup_mm()), exit (mmput()) or write
 * fault (handle_mm_fault(), which meets the migration entry and waits) on
 * other CPUs.  Every shim atomic, lock operation and page-table entry
 * access is a step.  Built for vanilla and the two counting designs, and
 * for the counter's mutants that must fail it.
 *
 *	P: BASE [F]	F: one small folio with P's bytes, isolated, on node 0
 *	C: BASE [F]	C: forked from P before (b, c), so F is mapped twice
 *
 *  a) M migrates F while F forks P into G (the RFC's own second diagram:
 *     the fork links G's VMA into the anon_vma tree, then copies P's PTE);
 *  b) M migrates F while X exits C (zaps C's PTE or migration entry);
 *  c) M migrates F while W write-faults on C's page (COW; a fault that
 *     meets the migration entry waits until it is restored);
 *  d) F is pinned (an extra reference R drops at any point): passes fail
 *     at the freeze and undo (restore F itself) until R lets go, while F
 *     forks P into G.
 *
 * What must hold:
 *  - after every step at which no page-table lock of a process that maps
 *    F's anon_vma is held: mgt-counter's count equals the migration entries
 *    naming F in the page tables; mgt-entry's, while its type is set, is not
 *    below them (above only costs the early stop; below ends the restore
 *    with an entry left);
 *  - at the end: no migration entry left in any process, each maps a folio
 *    with its bytes (byte for byte), a moved folio is on node 1, the rmap
 *    census and the LRU agree, every page is free once the processes exit,
 *    and no VM_WARN fired;
 *  - and each scenario reaches its window in some schedule (the fork copied
 *    an entry, the exit zapped one, the fault waited, a pass was undone),
 *    so that a pass is not vacuous.
 *
 * Vanilla and mgt-counter pass every scenario.  mgt-entry fails a): the
 * copy lands between try_to_migrate_one() writing P's entry and the exit
 * hook setting the type; the walk ended at P's VMA (the folio was
 * unmapped), so the count is 1 with 2 entries, and the restore would stop
 * at P with G's entry naming the freed source.  It also overcounts in b)
 * (an entry zapped before the type is set): not exact, only slower.
 *
 * Bound: every schedule with at most 2 preemptions (a, c) or 1 (b, whose
 * exit is 700 steps long; d, three threads), CHECK_MIGRATE_BOUND=N for
 * another.  Each scenario runs in a child process: a violation leaves its
 * threads holding locks of a state nobody may touch again.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/gfp.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "migrate_test.h"
#include "mm_test.h"

#define BASE		0x7f0000000000UL
#define RW		(VM_READ | VM_WRITE)
#define NEW_BYTE	0xc3	/* what the faulting process writes at offset 8 */

enum { PROC_P, PROC_C, PROC_G, NR_PROCS };

static struct model {
	struct mm_struct *mm[NR_PROCS];
	struct folio *src;		/* F */
	struct anon_vma *anon_vma;	/* F's, the root: every VMA that may map it */
	int rc;				/* migrate_pages() */
	unsigned int succeeded;
	bool wrote[NR_PROCS];		/* the process wrote NEW_BYTE at offset 8 */
	bool pinned;			/* an extra reference on F (a GUP pin) is held */
	bool exiting;			/* C's exit has begun */
	/* What the schedule reached (so that a scenario is shown not to be vacuous): */
	bool copied;			/* the fork copied an entry naming F */
	bool zapped;			/* C's exit zapped an entry naming F */
	bool c_entry;			/* ... C held one at the previous step */
	bool waited;			/* C's write fault met a migration entry */
	bool undone;			/* a pass failed and restored F's own entries */
	bool c_entry_made;		/* an entry naming F existed at some step */
	bool over;			/* mgt-entry counted more entries than there were */
	long allocated0;		/* pages allocated before the scenario built anything */
	unsigned long warns0;
} M;

static LIST_HEAD(from);

static unsigned char pattern(unsigned long i)
{
	return (unsigned char)(i * 7 + 3);
}

/* --- looking at the page tables ------------------------------------------------- */

static pte_t entry_of(struct mm_struct *mm)
{
	pte_t *ptep = mm ? mm_find_pte(mm, BASE) : NULL;

	return ptep ? __ptep_get(ptep) : __pte(0);
}

static bool names_src(pte_t pte)
{
	swp_entry_t entry;

	if (!is_swap_pte(pte))
		return false;
	entry = pte_to_swp_entry(pte);
	return is_migration_entry(entry) && pfn_swap_entry_folio(entry) == M.src;
}

/*
 * Entries naming the source in every VMA of its anon_vma: the fork's child
 * is seen from the moment its VMA is linked, before dup_mm() returns it.
 * The tree changes only under the anon_vma lock, with no step inside.
 */
static int entries_naming_src(void)
{
	struct anon_vma_chain *avc;
	int n = 0;

	anon_vma_interval_tree_foreach(avc, &M.anon_vma->rb_root, 0, ULONG_MAX)
		n += names_src(entry_of(avc->vma->vm_mm));
	return n;
}

static bool any_migration_entry(char *why, size_t len)
{
	for (int k = 0; k < NR_PROCS; k++) {
		pte_t pte = entry_of(M.mm[k]);

		if (is_swap_pte(pte) && is_migration_entry(pte_to_swp_entry(pte))) {
			snprintf(why, len, "%c keeps a migration entry%s", "PCG"[k],
				 names_src(pte) ? " naming the source, freed" : "");
			return true;
		}
	}
	return false;
}

static bool ptl_held(void)
{
	struct anon_vma_chain *avc;

	anon_vma_interval_tree_foreach(avc, &M.anon_vma->rb_root, 0, ULONG_MAX) {
		struct mm_struct *mm = avc->vma->vm_mm;
		pmd_t *pmd = mm_find_pmd(mm, BASE);

		if (pmd && pmd_present(pmdp_get(pmd)) && spin_is_locked(pte_lockptr(mm, pmd)))
			return true;
	}
	return false;
}

/* --- setup and teardown ------------------------------------------------------- */

static void teardown(void)
{
	if (M.pinned)
		folio_put(M.src);
	M.pinned = false;
	putback_movable_pages(&from);
	for (int k = NR_PROCS - 1; k >= 0; k--) {
		if (M.mm[k])
			mmput(M.mm[k]);
		M.mm[k] = NULL;
	}
	drain_nodes();
}

struct opts {
	bool with_c;		/* C forked from P before: F mapped twice */
	bool pinned;		/* F starts with an extra reference, dropped by thread R */
};

static void setup(void *arg)
{
	const struct opts *o = arg;
	struct folio *src;
	unsigned char *b;

	teardown();
	memset(&M, 0, sizeof(M));
	INIT_LIST_HEAD(&from);
	M.allocated0 = allocated_pages();
	M.warns0 = vm_warn_count;
	M.mm[PROC_P] = mm_alloc();
	if (!M.mm[PROC_P])
		abort();
	do_mmap(M.mm[PROC_P], NULL, BASE, PAGE_SIZE, RW, 0);
	b = mt_access(M.mm[PROC_P], BASE, true, 8, false);
	for (unsigned long i = 0; i < PAGE_SIZE; i++)
		b[i] = pattern(i);
	if (o->with_c)
		M.mm[PROC_C] = dup_mm(M.mm[PROC_P]);
	drain_nodes();
	src = page_folio(pte_page(entry_of(M.mm[PROC_P])));
	if (folio_nid(src) != 0 || !folio_isolate_lru(src))
		abort();
	list_add_tail(&src->lru, &from);
	M.src = src;
	M.anon_vma = folio_anon_vma(src);
	if (o->pinned) {
		folio_get(src);
		M.pinned = true;
	}
}

/* --- the threads --------------------------------------------------------------- */

static void migrator(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	M.rc = migrate_pages(&from, alloc_migration_target, NULL, 1, MIGRATE_SYNC,
			     MR_MEMPOLICY_MBIND, &M.succeeded);
	checker_note("M: migrate_pages returns %d, %u moved", M.rc, M.succeeded);
	putback_movable_pages(&from);
}

static void forker(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	M.mm[PROC_G] = dup_mm(M.mm[PROC_P]);
	checker_note("F: G forked from P");
}

static void exiter(void *arg)
{
	struct mm_struct *c = M.mm[PROC_C];

	(void)arg;
	cpu_number = checker_self();
	M.exiting = true;
	mmput(c);
	M.mm[PROC_C] = NULL;
	checker_note("X: C exited");
}

/* C writes its byte: a COW fault, which waits on a migration entry if it meets one. */
static void writer(void *arg)
{
	struct mm_struct *c = M.mm[PROC_C];
	unsigned char *b;

	(void)arg;
	cpu_number = checker_self();
	while (!(b = mmu_access(c, BASE + 8, true))) {
		struct vm_area_struct *vma;

		if (is_swap_pte(entry_of(c)))
			M.waited = true;
		mmap_read_lock(c);
		vma = vma_lookup(c, BASE);
		handle_mm_fault(vma, BASE + 8, FAULT_FLAG_WRITE);
		mmap_read_unlock(c);
	}
	*b = NEW_BYTE;
	M.wrote[PROC_C] = true;
	checker_note("W: C wrote its byte");
}

/* The pin's owner lets go: a migration pass after this can freeze F's count. */
static void unpinner(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	M.pinned = false;
	folio_put(M.src);
	checker_note("R: the extra reference dropped");
}

/* --- checks ---------------------------------------------------------------------- */

/* Record what the schedule reached, from the page tables after a step. */
static void observe(void)
{
	struct anon_vma_chain *avc;
	bool c_entry = false;

	anon_vma_interval_tree_foreach(avc, &M.anon_vma->rb_root, 0, ULONG_MAX) {
		struct mm_struct *mm = avc->vma->vm_mm;

		if (!names_src(entry_of(mm)))
			continue;
		if (mm != M.mm[PROC_P] && mm != M.mm[PROC_C])
			M.copied = true;
		if (mm == M.mm[PROC_C])
			c_entry = true;
	}
	if (M.exiting && M.c_entry && !c_entry)
		M.zapped = true;
	M.c_entry = c_entry;
	/* F mapped again after its entries were made: the undo path restored them. */
	if (M.c_entry_made && folio_mapped(M.src))
		M.undone = true;
	if (entries_naming_src())
		M.c_entry_made = true;
}

static bool inv(void *arg, char *why, size_t len)
{
	int n, c;

	(void)arg;
	observe();
	if (!MGT_ENTRY && !MGT_COUNTER)
		return true;
	if (ptl_held())
		return true;
	n = entries_naming_src();
	c = mgt_counted(M.src);
	if (MGT_COUNTER && c != n) {
		snprintf(why, len, "the count is %d with %d entries naming the source", c, n);
		return false;
	}
	M.over |= MGT_ENTRY && c > n;
	if (MGT_ENTRY && c >= 0 && c < n) {
		snprintf(why, len, "the count is %d with %d entries naming the source", c, n);
		return false;
	}
	return true;
}

static bool data_ok(int k, char *why, size_t len)
{
	pte_t pte = entry_of(M.mm[k]);
	const unsigned char *b;

	if (!pte_present(pte)) {
		snprintf(why, len, "%c maps nothing at BASE", "PCG"[k]);
		return false;
	}
	b = page_address(pte_page(pte));
	for (unsigned long i = 0; i < PAGE_SIZE; i++) {
		unsigned char want = (i == 8 && M.wrote[k]) ? NEW_BYTE : pattern(i);

		if (b[i] != want) {
			snprintf(why, len, "%c reads %#x at offset %lu, wrote %#x", "PCG"[k], b[i], i,
				 want);
			return false;
		}
	}
	return true;
}

static bool fin(void *arg, char *why, size_t len)
{
	struct mm_struct *mms[NR_PROCS];
	int nr = 0;

	(void)arg;
	/* An entry left names a freed page: stop before exiting the processes touches it. */
	if (any_migration_entry(why, len))
		return false;
	for (int k = 0; k < NR_PROCS; k++) {
		if (!M.mm[k])
			continue;
		if (!data_ok(k, why, len))
			return false;
		mms[nr++] = M.mm[k];
	}
	if (M.succeeded && folio_nid(page_folio(pte_page(entry_of(M.mm[PROC_P])))) != 1) {
		snprintf(why, len, "migrated, but P's folio is on node %d",
			 folio_nid(page_folio(pte_page(entry_of(M.mm[PROC_P])))));
		return false;
	}
	drain_nodes();
	if (rmap_check(mms, nr, NULL, 0, why, len))
		return false;
	teardown();
	return nothing_left(M.allocated0, M.warns0, why, len);
}

static void describe(void *arg, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "entries naming F %d, count %d, F mapcount %d", entries_naming_src(),
		 M.src ? mgt_counted(M.src) : -1, M.src ? folio_mapcount(M.src) : 0);
}

#define SCENARIO(...)	{ .invariant = inv, .final = fin, .describe = describe, \
			  .setup = setup, .bound_preemptions = true, \
			  __VA_ARGS__ }

static const struct opts only_p = { 0 }, p_and_c = { .with_c = true },
	pinned_p = { .pinned = true };

static const struct checker_scenario sc_fork = SCENARIO(
	.name = "a) migrate_pages vs fork of P", .arg = (void *)&only_p,
	.nthreads = 2, .thread = { migrator, forker }, .thread_name = { "M", "F" });
static const struct checker_scenario sc_exit = SCENARIO(
	.name = "b) migrate_pages vs exit of C", .arg = (void *)&p_and_c,
	.nthreads = 2, .thread = { migrator, exiter }, .thread_name = { "M", "X" });
static const struct checker_scenario sc_fault = SCENARIO(
	.name = "c) migrate_pages vs a write fault of C", .arg = (void *)&p_and_c,
	.nthreads = 2, .thread = { migrator, writer }, .thread_name = { "M", "W" });
static const struct checker_scenario sc_undo = SCENARIO(
	.name = "d) migrate_pages of a pinned folio (undo) vs fork of P", .arg = (void *)&pinned_p,
	.nthreads = 3, .thread = { migrator, forker, unpinner }, .thread_name = { "M", "F", "R" });

static unsigned long reached;	/* executions that reached the scenario's window */
static unsigned long overcounted;	/* ... and where mgt-entry's count exceeded the entries */
static bool (*window)(void);

static bool window_copied(void)	{ return M.copied; }
static bool window_zapped(void)	{ return M.zapped; }
static bool window_waited(void)	{ return M.waited; }
static bool window_undone(void)	{ return M.undone && M.copied; }

static bool fin_counted(void *arg, char *why, size_t len)
{
	bool r = fin(arg, why, len);

	reached += r && window();
	overcounted += r && M.over;
	return r;
}

static unsigned long last_overcounted;	/* of the last exploration */

/* What an exploration in a child process hands back. */
struct outcome {
	struct checker_result res;
	unsigned long reached, overcounted;
	bool done;
};

/*
 * Explore in a child process: a violation stops the search with its
 * threads where they were, holding locks of a state nobody may touch again;
 * the child's copy of the machine is thrown away, and every scenario starts
 * from the same booted state.
 */
static void explore_in_child(const struct checker_scenario *sc, struct outcome *out)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		out->res.status = CHECKER_ERROR;
		snprintf(out->res.message, sizeof(out->res.message), "fork failed");
		return;
	}
	if (pid == 0) {
		/*
		 * One execution first: the first allocations after boot change
		 * pageblocks' migratetypes (page tables steal from movable
		 * blocks), and every execution explored must start from the
		 * same state.
		 */
		checker_run_forced(sc, NULL, 0, &out->res);
		reached = overcounted = 0;
		checker_explore(sc, &out->res);
		out->reached = reached;
		out->overcounted = overcounted;
		out->done = true;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || !out->done) {
		out->res.status = CHECKER_ERROR;
		snprintf(out->res.message, sizeof(out->res.message),
			 "the exploring process died (status %#x)", status);
	}
}

static void explore(const struct checker_scenario *base, int max_preempt, bool (*win)(void),
		    const char *win_what, bool want_violation, const char *what)
{
	struct checker_scenario sc = *base;
	struct outcome *out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (out == MAP_FAILED) {
		ok(0, "%s: map the outcome", sc.name);
		return;
	}
	memset(out, 0, sizeof(*out));
	sc.final = fin_counted;
	sc.max_preemptions = max_preempt;
	window = win;
	explore_in_child(&sc, out);
	diag("%s [%s]: %s, %lu schedules with at most %d preemptions (longest %d steps), %lu %s%s%s",
	     sc.name, MM_KERNEL_NAME, checker_status_name(out->res.status), out->res.executions,
	     max_preempt, out->res.longest, out->reached, win_what, out->res.status ? ": " : "",
	     out->res.message);
	if (want_violation) {
		ok(out->res.status == CHECKER_VIOLATION && strstr(out->res.message, what),
		   "%s: the checker finds %s", sc.name, what);
		diag_trace(out->res.trace);
	} else {
		if (!ok(out->res.status == CHECKER_OK, "%s: no violation in any schedule", sc.name))
			diag_trace(out->res.trace);
		ok(out->reached > 0, "%s: %lu schedules %s", sc.name, out->reached, win_what);
	}
	if (MGT_ENTRY && !want_violation)
		diag("%s: mgt-entry's count exceeded the entries in %lu schedules (the restore "
		     "then walks every VMA)", sc.name, out->overcounted);
	last_overcounted = out->overcounted;
	munmap(out, sizeof(*out));
}

int main(void)
{
	int bound = getenv("CHECK_MIGRATE_BOUND") ? atoi(getenv("CHECK_MIGRATE_BOUND")) : 0;

	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	machine_set_nr_cpus(3);	/* one CPU per scenario thread */
	nr_online_nodes = 2;
	if (!ok(mem_init(16ULL << 20) == 0, "boot 16 MiB on two nodes"))
		return done_testing();
	diag("migration under the interleaving checker, design %s", MM_KERNEL_NAME);

	if (MT_FORK_UNCOUNTED || MT_ZAP_UNCOUNTED) {
		diag("mutant: %s does not count", MT_FORK_UNCOUNTED ? "fork" : "exit");
		if (MT_FORK_UNCOUNTED)
			explore(&sc_fork, bound ?: 2, window_copied, "", true,
				"the count is 1 with 2 entries");
		else
			explore(&sc_exit, bound ?: 1, window_zapped, "", true,
				"the count is 1 with 0 entries");
		return done_testing();
	}

	/* The RFC's count misses an entry the fork copies before its exit hook. */
	explore(&sc_fork, bound ?: 2, window_copied, "where the fork copied an entry naming F",
		MGT_ENTRY, "the count is 1 with 2 entries");
	explore(&sc_exit, bound ?: 1, window_zapped, "where the exit zapped an entry naming F",
		false, NULL);
	/* A zap between try_to_migrate_one() and the exit hook is not uncounted. */
	if (MGT_ENTRY)
		ok(last_overcounted > 0, "b) mgt-entry's count is not exact: above the entries "
		   "in %lu schedules", last_overcounted);
	explore(&sc_fault, bound ?: 2, window_waited,
		"where the fault met a migration entry and waited", false, NULL);
	explore(&sc_undo, bound ?: 1, window_undone,
		"where a pass was undone and the fork copied an entry", false, NULL);
	is_int(vm_warn_count, 0, "no VM_WARN fired outside the scenarios");
	return done_testing();
}
