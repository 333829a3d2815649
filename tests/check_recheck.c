// SPDX-License-Identifier: GPL-2.0
/*
 * Decisions rechecked under a lock, against a racing actor, under the
 * interleaving checker (issue 23, item 12).  The copy-on-write fault
 * decides from what it read without a lock and confirms it once it holds
 * one: handle_pte_fault() retakes the entry under the page table lock
 * (pte_same), wp_can_reuse_anon_folio() reads the reference count again
 * under the folio lock, wp_page_copy() retakes the entry under the page
 * table lock before installing its copy.  A page-cache lookup that locks
 * the folio rechecks folio->mapping (__filemap_get_folio(FGP_LOCK)), and
 * so does truncation (truncate_inode_pages()).  Each scenario runs the real
 * functions on two CPUs; every shim atomic, lock operation (the folio
 * lock's included) and page-table entry access is a step.
 *
 *	P: BASE [F]	F: one small anonymous folio with P's bytes, mapped
 *			read-only in P and not exclusive (P forked C, and C
 *			exited, or C still maps F too)
 *	W: P's CPU writes its byte at BASE + 8 (a write fault: COW)
 *
 *  a) R takes a reference on F (folio_try_get(), as a PFN walker or
 *     another process's earlier GUP would) and keeps it; C exited, so F's
 *     count is 1 before R:
 *
 *	W: fault .. count == 1? .. folio_trylock .. count == 1? reuse | copy
 *	R:                      ^ get (and hold)
 *
 *     If R's get came before W's folio lock, W must copy: R's page keeps
 *     P's old bytes.  (A get after the lock is the kernel's own race, not
 *     closed by the recheck; it is not asserted.)
 *  b) G forks from P (dup_mm()) while W faults:
 *
 *	W: access (read-only: fault) .. reuse | copy ; write
 *	G:                 copy P's entry (F shared again)
 *
 *     G sees P's byte only if P wrote it before G copied the entry.  (The
 *     fork holds P's mmap_lock for write, so it meets the fault only
 *     outside handle_mm_fault(): at the access and between the tries.)
 *  c) X zaps P's entry (MADV_DONTNEED's zap, under mmap_lock for read)
 *     while W faults; C still maps F, so W copies:
 *
 *	W: read entry .. lock: same? .. copy (unlocked) .. lock: same? install
 *	X:            ^ zap                             ^ zap
 *
 *     A zap before W's write leaves P a zero page with W's byte; one after
 *     it leaves P nothing; C keeps its bytes and F its mapcount.
 *  d) M migrates F (isolated, as compaction holds it) while W faults:
 *
 *	W: read entry .. lock: same? .. copy (unlocked) .. lock: same? install
 *	M:            ^ try_to_migrate (migration entry) .. remove_migration_ptes
 *
 *     P and C end with their own bytes, no migration entry is left.
 *  e) L looks index 0 up with FGP_LOCK while T truncates the mapping:
 *
 *	L: filemap_get_folio .. folio_lock .. mapping still ours? return it
 *	T:                   ^ folio_lock, remove, unlock
 *
 *     A folio L returns is, while L holds its lock, still in the mapping.
 *  f) two truncations (T0, T1) of the same mapping: each removes the folio
 *     only if, under its lock, it is still the mapping's.
 *
 * At the end of each (a-d): every process maps the bytes it should, the
 * rmap census (rmap_check()) agrees, every page is free once the processes
 * exit and no VM_WARN fired; (e, f): the mapping is empty or holds the
 * folio with the cache's reference only, and no page is leaked.  Each
 * scenario also reaches its window in some schedule, so that a pass is not
 * vacuous.  Bound: every schedule with at most 2 preemptions (1 for the
 * migration); CHECK_RECHECK_BOUND=N for another.  Each exploration runs in
 * a child process (a violation leaves threads holding locks).
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
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "migrate_test.h"
#include "mm_test.h"

/* MADV_DONTNEED's zap (zap_page_range_single() in the kernel): mm/internal.h in the model. */
void unmap_vma_range(struct vm_area_struct *vma, unsigned long start, unsigned long end);

#define BASE		0x7f0000000000UL
#define RW		(VM_READ | VM_WRITE)
#define NEW_BYTE	0xc3

enum { PROC_P, PROC_C, PROC_G, NR_PROCS };

static struct model {
	struct mm_struct *mm[NR_PROCS];
	struct folio *f;		/* F */
	struct anon_vma *anon_vma;
	bool isolated;			/* F is on `from`, for migrate_pages() */
	unsigned int succeeded;
	/* the writer */
	bool wrote;			/* W wrote NEW_BYTE through P's entry */
	bool faulting;			/* W is inside handle_mm_fault() */
	pte_t orig;			/* P's entry when W's fault began */
	bool changed_in_fault;		/* ... and another CPU changed it before the fault returned */
	/* the reference taker */
	bool held;			/* R holds a reference on F */
	bool held_before_lock;		/* ... taken before F's lock was ever seen held */
	bool lock_seen;			/* F's lock was seen held after a step */
	/* the forker */
	bool g_copied;			/* G's entry is present */
	bool g_sees;			/* ... and P had written when it was copied */
	/* the zapper */
	bool zapping;			/* X's zap has begun */
	bool zapped;			/* ... and returned */
	bool p_cleared;			/* X's step left P's entry none, unlocked */
	bool zap_before_write;		/* ... before W's write */
	long allocated0;
	unsigned long warns0;
} M;

static LIST_HEAD(from);

static unsigned char pattern(unsigned long i)
{
	return (unsigned char)(i * 7 + 3);
}

static pte_t entry_of(struct mm_struct *mm)
{
	pte_t *ptep = mm ? mm_find_pte(mm, BASE) : NULL;

	return ptep ? __ptep_get(ptep) : __pte(0);
}

/* --- setup and teardown ------------------------------------------------------- */

static void teardown(void)
{
	if (M.held)
		folio_put(M.f);
	M.held = false;
	putback_movable_pages(&from);
	for (int k = NR_PROCS - 1; k >= 0; k--) {
		if (M.mm[k])
			mmput(M.mm[k]);
		M.mm[k] = NULL;
	}
	drain_nodes();
}

struct opts {
	bool keep_c;		/* C still maps F (else it exited: F's count is 1) */
	bool isolate;		/* F isolated for migration */
};

static void setup(void *arg)
{
	const struct opts *o = arg;
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
	M.mm[PROC_C] = dup_mm(M.mm[PROC_P]);
	if (!o->keep_c) {
		mmput(M.mm[PROC_C]);
		M.mm[PROC_C] = NULL;
	}
	drain_nodes();
	M.f = page_folio(pte_page(entry_of(M.mm[PROC_P])));
	M.anon_vma = folio_anon_vma(M.f);
	if (pte_write(entry_of(M.mm[PROC_P])) || PageAnonExclusive(&M.f->page))
		abort();
	if (o->isolate) {
		if (folio_nid(M.f) != 0 || !folio_isolate_lru(M.f))
			abort();
		list_add_tail(&M.f->lru, &from);
		M.isolated = true;
	}
}

/* --- the threads --------------------------------------------------------------- */

/* P's CPU writes its byte: through the entry if it allows, else a fault and again. */
static void writer(void *arg)
{
	struct mm_struct *p = M.mm[PROC_P];
	unsigned char *b;

	(void)arg;
	cpu_number = checker_self();
	while (!(b = mmu_access(p, BASE + 8, true))) {
		struct vm_area_struct *vma;

		mmap_read_lock(p);
		vma = vma_lookup(p, BASE);
		M.orig = entry_of(p);
		M.faulting = true;
		if (vma)
			handle_mm_fault(vma, BASE + 8, FAULT_FLAG_WRITE);
		M.faulting = false;
		mmap_read_unlock(p);
	}
	/* In the step of the access's last entry read: nothing changes the entry between. */
	*b = NEW_BYTE;
	M.wrote = true;
	M.zap_before_write = M.p_cleared;
	checker_note("W: P wrote its byte");
}

static void taker(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	if (folio_try_get(M.f)) {
		M.held = true;
		M.held_before_lock = !M.lock_seen;
		checker_note("R: holds F%s", M.held_before_lock ? ", before its lock was taken" : "");
	}
}

static void forker(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	M.mm[PROC_G] = dup_mm(M.mm[PROC_P]);
}

static void zapper(void *arg)
{
	struct mm_struct *p = M.mm[PROC_P];
	struct vm_area_struct *vma;

	(void)arg;
	cpu_number = checker_self();
	mmap_read_lock(p);
	vma = vma_lookup(p, BASE);
	M.zapping = true;
	unmap_vma_range(vma, BASE, BASE + PAGE_SIZE);
	M.zapped = true;
	mmap_read_unlock(p);
	checker_note("X: P's entry zapped");
}

static void migrator(void *arg)
{
	int rc;

	(void)arg;
	cpu_number = checker_self();
	rc = migrate_pages(&from, alloc_migration_target, NULL, 1, MIGRATE_SYNC,
			   MR_MEMPOLICY_MBIND, &M.succeeded);
	checker_note("M: migrate_pages returns %d, %u moved", rc, M.succeeded);
	putback_movable_pages(&from);
}

/* --- checks ---------------------------------------------------------------------- */

static bool p_ptl_held(void)
{
	struct mm_struct *mm = M.mm[PROC_P];
	pmd_t *pmd = mm_find_pmd(mm, BASE);

	return pmd && pmd_present(pmdp_get(pmd)) && spin_is_locked(pte_lockptr(mm, pmd));
}

static bool inv(void *arg, char *why, size_t len)
{
	struct anon_vma_chain *avc;

	(void)arg;
	(void)why;
	(void)len;
	if (folio_test_locked(M.f) && !M.isolated)
		M.lock_seen = true;
	if (M.zapping && checker_self() == 1 && pte_none(entry_of(M.mm[PROC_P])) && !p_ptl_held())
		M.p_cleared = true;
	if (M.faulting && checker_self() != 0 && pte_val(entry_of(M.mm[PROC_P])) != pte_val(M.orig))
		M.changed_in_fault = true;
	/* G is seen from the moment its VMA is linked, before dup_mm() returns it. */
	if (!M.g_copied) {
		anon_vma_interval_tree_foreach(avc, &M.anon_vma->rb_root, 0, ULONG_MAX) {
			struct mm_struct *mm = avc->vma->vm_mm;

			if (mm == M.mm[PROC_P] || mm == M.mm[PROC_C])
				continue;
			if (pte_present(entry_of(mm))) {
				M.g_copied = true;
				M.g_sees = M.wrote;
			}
		}
	}
	return true;
}

/* @k maps a page whose bytes are @base's (a pattern, or zeros: -1) with @byte8 at 8. */
static bool bytes_ok(int k, int base, unsigned char byte8, char *why, size_t len)
{
	pte_t pte = entry_of(M.mm[k]);
	const unsigned char *b;

	if (!pte_present(pte)) {
		snprintf(why, len, "%c maps nothing at BASE", "PCG"[k]);
		return false;
	}
	b = page_address(pte_page(pte));
	for (unsigned long i = 0; i < PAGE_SIZE; i++) {
		unsigned char want = i == 8 ? byte8 : base < 0 ? 0 : pattern(i);

		if (b[i] != want) {
			snprintf(why, len, "%c reads %#x at offset %lu, should read %#x", "PCG"[k],
				 b[i], i, want);
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
	for (int k = 0; k < NR_PROCS; k++) {
		pte_t pte = entry_of(M.mm[k]);

		if (M.mm[k] && is_swap_pte(pte) && is_migration_entry(pte_to_swp_entry(pte))) {
			snprintf(why, len, "%c keeps a migration entry", "PCG"[k]);
			return false;
		}
	}
	if (!M.wrote) {
		snprintf(why, len, "W never wrote");
		return false;
	}
	/*
	 * P: its bytes and its write; zapped before the write, a zero page
	 * with the write (the fault after the zap); zapped after: nothing.
	 */
	if (M.zapped && pte_none(entry_of(M.mm[PROC_P]))) {
		if (M.zap_before_write) {
			snprintf(why, len, "P maps nothing, though it wrote after the zap");
			return false;
		}
	} else if (!bytes_ok(PROC_P, M.zap_before_write ? -1 : 0, NEW_BYTE, why, len)) {
		return false;
	}
	if (M.mm[PROC_C] && !bytes_ok(PROC_C, 0, pattern(8), why, len))
		return false;
	if (M.mm[PROC_G] && !bytes_ok(PROC_G, 0, M.g_sees ? NEW_BYTE : pattern(8), why, len))
		return false;
	/* R's reference predates F's lock: F was not P's to reuse, and keeps the old bytes. */
	if (M.held && M.held_before_lock &&
	    ((const unsigned char *)page_address(&M.f->page))[8] != pattern(8)) {
		snprintf(why, len, "P reused F while R held a reference taken before the folio "
			 "lock: R sees P's write");
		return false;
	}
	for (int k = 0; k < NR_PROCS; k++)
		if (M.mm[k])
			mms[nr++] = M.mm[k];
	drain_nodes();
	if (rmap_check(mms, nr, NULL, 0, why, len))
		return false;
	teardown();
	return nothing_left(M.allocated0, M.warns0, why, len);
}

static void describe(void *arg, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "P %#lx  F count %d mapcount %d locked %d", pte_val(entry_of(M.mm[PROC_P])),
		 M.f ? folio_ref_count(M.f) : -1, M.f ? folio_mapcount(M.f) : -1,
		 M.f ? folio_test_locked(M.f) : -1);
}

/* --- the page cache: lookup with FGP_LOCK, truncation ------------------------------ */

static struct address_space mapping;

static struct fmodel {
	struct folio *folio;		/* cached at index 0 at the start */
	struct folio *got;		/* what L returned, locked */
	bool was_locked;		/* the folio's lock after the previous step */
	bool stale;			/* a step took the lock of the folio already removed */
	long allocated0;
	unsigned long warns0;
} FM;

static void fdrop(void)
{
	struct folio *folio = xa_load(&mapping.i_pages, 0);

	if (folio)
		filemap_remove_folio(folio);
}

static void fsetup(void *arg)
{
	struct folio *folio;

	(void)arg;
	fdrop();
	drain_nodes();
	memset(&FM, 0, sizeof(FM));
	FM.allocated0 = allocated_pages();
	FM.warns0 = vm_warn_count;
	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio || filemap_add_folio(&mapping, folio, 0, GFP_KERNEL))
		abort();
	lru_add_drain();
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);
	FM.folio = folio;
}

static void looker(void *arg)
{
	struct folio *folio;

	(void)arg;
	cpu_number = checker_self();
	folio = __filemap_get_folio(&mapping, 0, FGP_LOCK, GFP_KERNEL);
	/* Under the folio lock: nothing can remove it from the mapping now. */
	checker_sched_point();
	FM.got = folio;
	if (folio && (folio->mapping != &mapping || xa_load(&mapping.i_pages, 0) != folio))
		checker_fail("L: returned a locked folio that is no longer in the mapping");
	if (folio) {
		folio_unlock(folio);
		folio_put(folio);
	}
}

static void truncator(void *arg)
{
	(void)arg;
	cpu_number = checker_self();
	truncate_inode_pages(&mapping);
}

static bool finv(void *arg, char *why, size_t len)
{
	(void)arg;
	(void)why;
	(void)len;
	bool locked = folio_test_locked(FM.folio);

	/* The window: a lookup that found the folio locks it after its removal. */
	if (!FM.was_locked && locked && FM.folio->mapping != &mapping)
		FM.stale = true;
	FM.was_locked = locked;
	return true;
}

static bool ffin(void *arg, char *why, size_t len)
{
	struct folio *folio = xa_load(&mapping.i_pages, 0);
	long got;

	(void)arg;
	if (folio && (folio != FM.folio || folio_ref_count(folio) != 1 || folio_test_locked(folio))) {
		snprintf(why, len, "the mapping holds a folio with count %d%s",
			 folio_ref_count(folio), folio_test_locked(folio) ? ", locked" : "");
		return false;
	}
	if (mapping.nrpages != (folio != NULL)) {
		snprintf(why, len, "the mapping counts %lu pages", mapping.nrpages);
		return false;
	}
	fdrop();
	got = allocated_pages();
	if (got != FM.allocated0) {
		snprintf(why, len, "%ld pages allocated at the end, %ld before", got, FM.allocated0);
		return false;
	}
	if (vm_warn_count != FM.warns0) {
		snprintf(why, len, "%lu VM_WARN fired", vm_warn_count - FM.warns0);
		return false;
	}
	return true;
}

static void fdescribe(void *arg, char *buf, size_t len)
{
	(void)arg;
	snprintf(buf, len, "slot %s  count %d  locked %d  mapping %s", xa_load(&mapping.i_pages, 0) ?
		 "folio" : "-", folio_ref_count(FM.folio), folio_test_locked(FM.folio),
		 FM.folio->mapping == &mapping ? "ours" : "none");
}

/* --- the scenarios ------------------------------------------------------------------- */

#define SCENARIO(...)	{ .invariant = inv, .final = fin, .describe = describe, \
			  .setup = setup, .bound_preemptions = true, __VA_ARGS__ }
#define FSCENARIO(...)	{ .invariant = finv, .final = ffin, .describe = fdescribe, \
			  .setup = fsetup, .bound_preemptions = true, __VA_ARGS__ }

static const struct opts c_exited = { 0 }, c_maps = { .keep_c = true },
	c_maps_isolated = { .keep_c = true, .isolate = true };

static const struct checker_scenario sc_ref = SCENARIO(
	.name = "a) COW fault vs a reference taker (folio_try_get)", .arg = (void *)&c_exited,
	.nthreads = 2, .thread = { writer, taker }, .thread_name = { "W", "R" });
static const struct checker_scenario sc_fork = SCENARIO(
	.name = "b) COW fault vs fork", .arg = (void *)&c_exited,
	.nthreads = 2, .thread = { writer, forker }, .thread_name = { "W", "G" });
static const struct checker_scenario sc_zap = SCENARIO(
	.name = "c) COW fault vs zap (MADV_DONTNEED)", .arg = (void *)&c_maps,
	.nthreads = 2, .thread = { writer, zapper }, .thread_name = { "W", "X" });
static const struct checker_scenario sc_migrate = SCENARIO(
	.name = "d) COW fault vs migration", .arg = (void *)&c_maps_isolated,
	.nthreads = 2, .thread = { writer, migrator }, .thread_name = { "W", "M" });
static const struct checker_scenario sc_lookup = FSCENARIO(
	.name = "e) __filemap_get_folio(FGP_LOCK) vs truncation",
	.nthreads = 2, .thread = { looker, truncator }, .thread_name = { "L", "T" });
static const struct checker_scenario sc_truncate2 = FSCENARIO(
	.name = "f) truncation vs truncation",
	.nthreads = 2, .thread = { truncator, truncator }, .thread_name = { "T0", "T1" });

static unsigned long reached;
static bool (*window)(void);

static bool window_ref(void)		{ return M.held_before_lock && M.lock_seen; }
static bool window_fork(void)		{ return M.g_copied && !M.g_sees; }
static bool window_changed(void)	{ return M.changed_in_fault; }
static bool window_stale(void)		{ return FM.stale; }

static bool fin_counted(void *arg, char *why, size_t len)
{
	bool win = window();	/* before fin() tears the state down */
	bool r = (window == window_stale ? ffin : fin)(arg, why, len);

	reached += r && win;
	return r;
}

struct outcome {
	struct checker_result res;
	unsigned long reached;
	bool done;
};

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
		/* One execution first: every execution explored starts from the same state. */
		checker_run_forced(sc, NULL, 0, &out->res);
		reached = 0;
		checker_explore(sc, &out->res);
		out->reached = reached;
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
		    const char *win_what)
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
	if (!ok(out->res.status == CHECKER_OK, "%s: no violation in any schedule", sc.name))
		diag_trace(out->res.trace);
	ok(out->reached > 0, "%s: %lu schedules %s", sc.name, out->reached, win_what);
	munmap(out, sizeof(*out));
}

int main(void)
{
	int bound = getenv("CHECK_RECHECK_BOUND") ? atoi(getenv("CHECK_RECHECK_BOUND")) : 0;

	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	machine_set_nr_cpus(3);
	nr_online_nodes = 2;
	if (!ok(mem_init(16ULL << 20) == 0, "boot 16 MiB on two nodes"))
		return done_testing();
	diag("rechecks under a lock against a racing actor, design %s", MM_KERNEL_NAME);

	explore(&sc_ref, bound ?: 2, window_ref,
		"where R's get landed after W's count check and before its folio lock");
	explore(&sc_fork, bound ?: 2, window_fork, "where G copied P's entry before P's write");
	explore(&sc_zap, bound ?: 2, window_changed, "where P's entry was zapped during W's fault");
	explore(&sc_migrate, bound ?: 1, window_changed,
		"where P's entry changed (migration) during W's fault");

	address_space_init(&mapping);
	mapping.i_size = PAGE_SIZE;
	explore(&sc_lookup, bound ?: 2, window_stale,
		"where L held the folio after the truncation removed it");
	explore(&sc_truncate2, bound ?: 2, window_stale,
		"where a truncation held the folio after the other removed it");
	address_space_destroy(&mapping);

	is_int(vm_warn_count, 0, "no VM_WARN fired outside the scenarios");
	mem_exit();
	return done_testing();
}
