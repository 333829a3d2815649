// SPDX-License-Identifier: GPL-2.0
/*
 * The page cache's lockless lookup against removal, under the interleaving
 * checker: the real filemap_get_read_batch() (xas_load, folio_try_get(),
 * the reload of the slot after it, folio_put() of a lost race) on one CPU
 * against the real removal paths on another, filemap_remove_folio()
 * (truncation: remove under xa_lock, then drop the cache's reference) and
 * __remove_mapping() (reclaim: freeze at the cache's reference plus the
 * caller's, remove, free at once), down to the allocator's free path.
 * Every shim atomic and every load or store of an XArray slot is a step.
 * Built for every refcount design (chk flavour) and for the mutants that
 * must fail it.
 *
 * What must hold in every explored schedule:
 *  - a folio the reader returns was in the mapping, at its index, at some
 *    moment while the reader held the reference it returns with (the
 *    recheck's whole point: a folio removed, freed or reused between the
 *    load and the get must not be returned);
 *  - the folio's count is never frozen while a reader holds a reference;
 *  - at the end no reference is left behind, the folio is either still
 *    cached with only the cache's reference or freed (the allocator's own
 *    count of allocated pages says which), the mapping is consistent, and
 *    no VM_WARN fired.
 *
 * Whose reference is whose: a reader's get or put is the step in which a
 * reader thread moved the folio's count by one from a value that is not
 * frozen.  The invariant runs after every step, in the thread that took it,
 * so it sees each change and who made it.
 *
 * Bound: the removal's free path is long, so the larger scenarios explore
 * every schedule with at most MAX_PREEMPT preemptions (a switch away from
 * a thread that could go on); the smallest explores every schedule.
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/page_ref.h>
#include <linux/swap.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "mm_test.h"

#ifdef CONFIG_FILEMAP_MUTANT_NO_RECHECK
#define NO_RECHECK	1
#else
#define NO_RECHECK	0
#endif
#ifdef CONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS
#define NO_FROZEN_CAS	1
#else
#define NO_FROZEN_CAS	0
#endif

#define MAX_PREEMPT	3
#define NR_READERS	2

static struct address_space mapping;

static struct model {
	struct folio *folio;		/* the folio cached at index 0 at the start */
	struct folio *other;		/* what the remover allocated after freeing it */
	bool reclaim;			/* the remover holds an isolation reference */
	int last;			/* the folio's raw count after the previous step */
	int rrefs[NR_READERS];		/* references each reader holds */
	bool seen[NR_READERS];		/* ... and the folio was cached meanwhile */
	struct folio *got[NR_READERS];	/* what each reader returned */
	unsigned long allocated0;	/* allocated pages with the folio cached */
	unsigned long warns0;
	bool raced;			/* a reader got a reference on a folio not cached */
} M;

static unsigned long raced_schedules;	/* of the current exploration */

static const struct checker_scenario *cur;

static int raw(void)
{
	return __atomic_load_n(&M.folio->page._refcount.counter, __ATOMIC_RELAXED);
}

static bool frozen(int v)
{
	return __page_count_is_frozen(v);
}

static bool is_reader(int t)
{
	return t >= 0 && t < NR_READERS && t < cur->nthreads - 1;
}

static bool cached(void)
{
	return xa_load(&mapping.i_pages, 0) == M.folio && M.folio->mapping == &mapping;
}


/* --- setup: one order-0 folio at index 0, uptodate, only the cache's reference -- */

static void drop_leftovers(void)
{
	struct folio *folio = xa_load(&mapping.i_pages, 0);

	if (M.other)
		folio_put(M.other);
	M.other = NULL;
	if (folio)
		filemap_remove_folio(folio);
}

static void setup(void *arg)
{
	struct folio *folio;
	bool reclaim = arg != NULL;

	drop_leftovers();
	drain_all_pages(&contig_zone);	/* the same pcp state before every execution */
	memset(&M, 0, sizeof(M));
	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio || filemap_add_folio(&mapping, folio, 0, GFP_KERNEL))
		abort();
	lru_add_drain();	/* on the LRU, not held by this CPU's lru_add batch */
	folio_mark_uptodate(folio);
	if (reclaim) {
		/* shrink_folio_list's folio: isolated from the LRU (its reference), locked */
		if (!folio_isolate_lru(folio))
			abort();
		folio_put(folio);
		M.reclaim = true;
	} else {
		folio_unlock(folio);
		folio_put(folio);
	}
	M.folio = folio;
	M.last = raw();
	M.allocated0 = mm_allocated_pages();
	M.warns0 = vm_warn_count;
}

/* --- the threads ----------------------------------------------------------------- */

static void reader(void *arg)
{
	int t = checker_self();
	struct folio_batch fbatch;

	folio_batch_init(&fbatch);
	filemap_get_read_batch(&mapping, 0, 0, &fbatch);
	checker_sched_point();	/* looking at the batch is a step: the invariant has seen the last */
	M.got[t] = fbatch.nr ? fbatch.folios[0] : NULL;
	checker_note("R%d: the batch holds %s", t, fbatch.nr ? "the folio" : "nothing");
	if (fbatch.nr != (M.got[t] != NULL))
		checker_fail("R%d: a batch of %u folios from one index", t, fbatch.nr);
	if (M.got[t] && M.got[t] != M.folio)
		checker_fail("R%d: returned a folio that was never cached", t);
	if (M.got[t] && M.rrefs[t] != 1)
		checker_fail("R%d: returned the folio holding %d references to it", t, M.rrefs[t]);
	if (M.got[t] && !M.seen[t])
		checker_fail("R%d: returned a folio that was not in the mapping at any moment "
			     "while it held the reference", t);
	for (unsigned int i = 0; i < fbatch.nr; i++)
		folio_put(fbatch.folios[i]);
}

static void truncator(void *arg)
{
	filemap_remove_folio(M.folio);
}

/*
 * shrink_folio_list()'s end of a clean folio: frozen and removed, it is
 * freed with its count still 0; busy, it goes back to the LRU.
 */
static void reclaimer(void *arg)
{
	struct folio *folio = M.folio;

	if (__remove_mapping(&mapping, folio)) {
		__folio_clear_locked(folio);
		free_frozen_pages(&folio->page, folio_order(folio));
	} else {
		folio_unlock(folio);	/* busy: a reader holds it */
		folio_putback_lru(folio);
		lru_add_drain();
	}
}

/* Reclaim, then someone allocates a page: the pcp list hands back the same one. */
static void reclaimer_realloc(void *arg)
{
	reclaimer(arg);
	M.other = folio_alloc(GFP_KERNEL, 0);
	checker_note("M: allocates %s", M.other == M.folio ? "the same page" : "another page");
}

/* --- checks ---------------------------------------------------------------------- */

static void account(int who, int v)
{
	if (!is_reader(who) || frozen(M.last))
		return;
	if (v == M.last + 1 && !frozen(v)) {
		if (!M.rrefs[who]++)
			M.seen[who] = false;	/* a new reference: not yet seen cached */
	} else if (v == M.last - 1) {
		M.rrefs[who]--;
	}
}

static bool inv(void *arg, char *why, size_t len)
{
	int v = raw();
	bool in_cache = cached();

	account(checker_self(), v);
	M.last = v;
	for (int t = 0; t < NR_READERS; t++) {
		if (M.rrefs[t] <= 0)
			continue;
		if (in_cache)
			M.seen[t] = true;
		else if (!M.seen[t])
			M.raced = true;
		if (frozen(v)) {
			snprintf(why, len, "the folio's count is frozen (%#x) while R%d holds a reference",
				 v, t);
			return false;
		}
	}
	return true;
}

static bool fin(void *arg, char *why, size_t len)
{
	bool in_cache = cached();
	unsigned long want = M.allocated0 - !in_cache + (M.other != NULL), got;
	char msg[200];

	for (int t = 0; t < NR_READERS; t++)
		if (M.rrefs[t]) {
			snprintf(why, len, "R%d still holds %d references", t, M.rrefs[t]);
			return false;
		}
	if (in_cache && (raw() != 1 || mapping.nrpages != 1 || folio_test_locked(M.folio))) {
		snprintf(why, len, "the cached folio has count %#x (nrpages %lu)%s", raw(),
			 mapping.nrpages, folio_test_locked(M.folio) ? ", locked" : "");
		return false;
	}
	if (!in_cache && (frozen(raw()) == (M.other == M.folio) || mapping.nrpages ||
			  xa_load(&mapping.i_pages, 0))) {
		snprintf(why, len, "the removed folio has count %#x (%s), nrpages %lu", raw(),
			 frozen(raw()) ? "frozen" : "not frozen", mapping.nrpages);
		return false;
	}
	got = mm_allocated_pages();
	if (got != want) {
		snprintf(why, len, "%lu pages allocated, expected %lu (folio %s): %s", got, want,
			 in_cache ? "cached" : "removed", got > want ? "lost folio" : "freed twice");
		return false;
	}
	if (filemap_check(&mapping, msg, sizeof(msg))) {
		snprintf(why, len, "mapping: %s", msg);
		return false;
	}
	if (vm_warn_count != M.warns0) {
		snprintf(why, len, "%lu VM_WARN fired", vm_warn_count - M.warns0);
		return false;
	}
	raced_schedules += M.raced;
	return true;
}

static void describe(void *arg, char *buf, size_t len)
{
	snprintf(buf, len, "count %#x  slot %s  nrpages %lu  reader refs %d/%d", (unsigned int)raw(),
		 xa_load(&mapping.i_pages, 0) ? "folio" : "-", mapping.nrpages, M.rrefs[0],
		 M.rrefs[1]);
}

#define RECLAIM	((void *)1)
#define SCENARIO(...)	{ .setup = setup, .invariant = inv, .final = fin, \
			  .describe = describe, __VA_ARGS__ }

static const struct checker_scenario sc_truncate = SCENARIO(
	.name = "a) filemap_get_read_batch vs filemap_remove_folio (truncation)",
	.nthreads = 2, .thread = { reader, truncator }, .thread_name = { "R0", "M" });
static const struct checker_scenario sc_reclaim = SCENARIO(
	.name = "b) filemap_get_read_batch vs __remove_mapping (reclaim)", .arg = RECLAIM,
	.nthreads = 2, .thread = { reader, reclaimer }, .thread_name = { "R0", "M" });
static const struct checker_scenario sc_reuse = SCENARIO(
	.name = "c) filemap_get_read_batch vs __remove_mapping, then the page reallocated",
	.arg = RECLAIM, .nthreads = 2, .thread = { reader, reclaimer_realloc },
	.thread_name = { "R0", "M" });
static const struct checker_scenario sc_two = SCENARIO(
	.name = "d) two readers vs filemap_remove_folio", .nthreads = 3,
	.thread = { reader, reader, truncator }, .thread_name = { "R0", "R1", "M" },
	.bound_preemptions = true, .max_preemptions = MAX_PREEMPT);

static struct checker_result res;

static void explore(const struct checker_scenario *sc, bool want_violation, const char *what)
{
	cur = sc;
	raced_schedules = 0;
	checker_explore(sc, &res);
	drop_leftovers();
	diag("%s [%s]: %s, %lu schedules (longest %d steps)%s%s", sc->name, MM_KERNEL_NAME,
	     checker_status_name(res.status), res.executions, res.longest,
	     res.status ? ": " : "", res.message);
	if (want_violation) {
		ok(res.status == CHECKER_VIOLATION && strstr(res.message, what),
		   "%s: the checker finds %s", sc->name, what);
		diag_trace(res.trace);
	} else if (!ok(res.status == CHECKER_OK, "%s: no violation in any schedule", sc->name)) {
		diag_trace(res.trace);
	}
}

/* The window the recheck closes was reached: a get on a folio already gone. */
static void expect_raced(const struct checker_scenario *sc)
{
	ok(raced_schedules > 0, "%s: in %lu schedules a reader's get succeeded on a folio no "
	   "longer cached, and the recheck put it back", sc->name, raced_schedules);
}

int main(void)
{
	plan_no_plan();
	machine_init();
	vm_warn_quiet = true;
	diag("lookup vs removal under the interleaving checker, design %s%s", MM_KERNEL_NAME,
	     NO_RECHECK ? " (mutant: no recheck of the slot after folio_try_get)" :
	     NO_FROZEN_CAS ? " (mutant: dec_and_test without the 0 -> frozen exchange)" : "");
	if (!ok(mem_init(16ULL << 20) == 0, "boot 16 MiB"))
		return done_testing();
	address_space_init(&mapping);
	mapping.i_size = PAGE_SIZE;

	if (NO_FROZEN_CAS) {
		explore(&sc_truncate, true, "not frozen");
	} else {
		/* Truncation does not freeze: only the recheck rejects a removed folio. */
		explore(&sc_truncate, NO_RECHECK, "not in the mapping");
		if (!NO_RECHECK)
			expect_raced(&sc_truncate);
		/* Reclaim freezes first: a get after it fails, recheck or not. */
		explore(&sc_reclaim, false, NULL);
		is_int(raced_schedules, 0, "%s: no get ever succeeds on a removed folio",
		       sc_reclaim.name);
		/* ... unless the page is reused: then the get succeeds on the new owner. */
		explore(&sc_reuse, NO_RECHECK, "not in the mapping");
		if (!NO_RECHECK)
			expect_raced(&sc_reuse);
		explore(&sc_two, NO_RECHECK, "not in the mapping");
		if (!NO_RECHECK)
			expect_raced(&sc_two);
	}

	address_space_destroy(&mapping);
	is_int(vm_warn_count, 0, "no VM_WARN fired outside the scenarios");
	mem_exit();
	return done_testing();
}
