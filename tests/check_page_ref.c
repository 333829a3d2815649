// SPDX-License-Identifier: GPL-2.0
/*
 * Exhaustive interleaving checks of the page refcount designs
 * (include/linux/page_ref.h), run on the real functions through the
 * deterministic scheduler of src/machine/checker.c.  Built once per design
 * and mutant in the chk flavour.
 *
 * Memory model: every shim atomic is one indivisible step and the checked
 * executions are the sequentially consistent interleavings of those steps.
 * The relaxed 0 -> frozen cmpxchg of the frozen-bit dec_and_test, and any
 * other weak ordering, is not explored.
 *
 * The model around the refcount.  One folio; a per-page state {free,
 * allocated}, an incarnation number bumped by every allocation, and the
 * references every scenario thread holds (with the incarnation each was
 * taken on).  alloc = init_page_count() on a free page (an allocator that
 * finds none waits, checker_spin_wait()); a put is folio_ref_dec_and_test()
 * and runs the destructor (free) when it returns true; free marks the page
 * free.  A lookup is a page-cache slot that the owner clears before its
 * put; a speculative getter rechecks the slot after a successful
 * folio_try_get() and puts the reference back if it changed.  Looking at
 * the slot, clearing it, rechecking it, claiming a free page and freeing
 * are steps of their own (an explicit checker_sched_point()); the model's
 * bookkeeping of a get or a freeze is done in the step of its atomic, and
 * a put gives up its reference in the model just before its decrement.
 *
 * Scenarios: a) a reader (lookup, get, recheck, put) against reclaim
 * (freeze the cache's count, clear the slot, free), a2) against a freeze
 * that is undone, a3) two readers; b) two puts against a speculative get,
 * b2) against two; c) frozen-bit only: two failing gets on a free counter
 * at PAGEREF_FROZEN_LIMIT - 1 against an allocation, c1) without it;
 * d) the named race (forced, then explored), d2) with a lookup and
 * recheck, d3) with a second speculative getter.
 *
 * Properties:
 *  - a free page's counter is frozen at every step (0 in vanilla and
 *    cmpxchg-guess, bit 31 set in frozen-bit) until an allocation sets it
 *    to 1 (the reviewers' property);
 *  - a page is freed with a frozen counter, never twice in one incarnation,
 *    and never while some thread still holds a reference to it;
 *  - a get that succeeded on a free or frozen page, or on another
 *    incarnation than the lookup found, never survives the recheck;
 *  - at the end: every incarnation but a live one freed exactly once, no
 *    reference leaked, the counter equals the references held, and no
 *    VM_WARN fired.
 */
#include <string.h>

#include <linux/mm_types.h>
#include <linux/page_ref.h>
#include <machine/checker.h>

#include "tap.h"

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
#define FROZEN_BIT	1
#else
#define FROZEN_BIT	0
#endif
#ifdef CONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS
#define MUTANT		1
#else
#define MUTANT		0
#endif

#define NT		4	/* threads per scenario, at most */
#define MAX_INC		8	/* incarnations per execution, at most */

enum { P_FREE, P_ALLOCATED };

static struct folio folios[1];	/* the page every scenario races on */
#define FOLIO	(&folios[0])
#define PAGE	(&folios[0].page)

static struct model {
	int state;
	int inc;			/* current incarnation */
	int frees[MAX_INC];		/* frees of each incarnation */
	int freed_by[MAX_INC];		/* the thread that freed it */
	int freer_ref[MAX_INC];		/* the incarnation that thread's reference was to */
	bool frozen_by_owner;		/* page_ref_freeze() succeeded, not yet undone */
	struct folio *slot;		/* the lookup */

	int held[NT];			/* references each thread holds */
	int held_inc[NT];		/* ... taken on this incarnation */
	bool tainted[NT];		/* ... taken while the page was free or frozen */
	int looked_inc[NT];		/* incarnation the thread's lookup found */

	int gets_ok[NT], gets_failed[NT];
	int get_value[NT];		/* refcount right after the thread's last get */
	int puts_true[NT], puts_false[NT];
	unsigned long warns0;
} M;

static bool strict = true;	/* check the frozen state of free pages */
static bool end_free;		/* the scenario must end with the page free */
static bool end_undone;		/* c) ... and with the failed gets' garbage undone */
static const struct checker_scenario *cur;

static int raw(void)
{
	return __atomic_load_n(&PAGE->_refcount.counter, __ATOMIC_RELAXED);
}

static bool frozen(int v)
{
	return __page_count_is_frozen(v);
}

static const char *tn(int t)
{
	return t >= 0 && t < cur->nthreads ? cur->thread_name[t] : "nobody";
}

static const char *me(void)
{
	return tn(checker_self());
}

/* --- the model's operations, run by scenario threads ----------------------- */

static void model_reset(int state, int count)
{
	memset(&M, 0, sizeof(M));
	for (int i = 0; i < MAX_INC; i++)
		M.freed_by[i] = M.freer_ref[i] = -1;
	M.state = state;
	M.inc = 1;
	if (state == P_FREE)
		M.frees[1] = 1;		/* incarnation 1 was freed before the scenario */
	atomic_set(&PAGE->_refcount, count);
	M.warns0 = vm_warn_count;
}

static void hold(int t, int n)
{
	M.held[t] += n;
	M.held_inc[t] = M.inc;
}

/* Free the page: the destructor of the thread whose put won (or the freezer). */
static void m_free(int ref_inc)
{
	int t = checker_self(), v;

	checker_sched_point();		/* freeing is a step of its own */
	v = raw();
	if (M.state == P_FREE)
		checker_fail("%s frees incarnation %d, already freed by %s: double free",
			     me(), M.inc, tn(M.freed_by[M.inc]));
	if (strict && !frozen(v))
		checker_fail("%s frees incarnation %d with refcount %#x: not frozen", me(), M.inc, v);
	for (int u = 0; u < cur->nthreads; u++)
		if (M.held[u] > 0)
			checker_fail("%s frees incarnation %d while %s holds a reference (taken on incarnation %d)",
				     me(), M.inc, tn(u), M.held_inc[u]);
	M.frees[M.inc]++;
	M.freed_by[M.inc] = t;
	M.freer_ref[M.inc] = ref_inc;
	M.state = P_FREE;
	M.frozen_by_owner = false;
	if (ref_inc != M.inc)
		checker_note("%s: frees incarnation %d, but its own reference was to incarnation %d",
			     me(), M.inc, ref_inc);
	else
		checker_note("%s: frees incarnation %d", me(), M.inc);
}

/* The allocator hands the page out once it is free. */
static void m_alloc(void)
{
	int t = checker_self();

	for (;;) {
		checker_sched_point();	/* look at the free list */
		if (M.state == P_FREE)
			break;
		checker_note("%s: no free page, waits", me());
		checker_spin_wait();
	}
	M.state = P_ALLOCATED;
	M.inc++;
	hold(t, 1);
	checker_note("%s: allocates incarnation %d", me(), M.inc);
	folio_init_count(FOLIO);
	checker_note("%s: init_page_count: refcount %#x", me(), raw());
}

static bool m_lookup(void)
{
	int t = checker_self();
	bool found;

	checker_sched_point();
	found = M.slot == FOLIO;
	M.looked_inc[t] = M.inc;
	checker_note("%s: lookup %s", me(), found ? "finds the page" : "finds nothing");
	return found;
}

static void m_clear_slot(void)
{
	checker_sched_point();
	M.slot = NULL;
	checker_note("%s: clears the slot", me());
}

static bool m_try_get(void)
{
	int t = checker_self();
	bool ok = folio_try_get(FOLIO);

	M.get_value[t] = raw();
	if (ok) {
		hold(t, 1);
		M.tainted[t] = M.state == P_FREE || M.frozen_by_owner;
		M.gets_ok[t]++;
	} else {
		M.gets_failed[t]++;
	}
	checker_note("%s: folio_try_get %s: refcount %#x", me(), ok ? "succeeds" : "fails",
		     M.get_value[t]);
	return ok;
}

/* After a successful get: is the page still what the lookup found? */
static bool m_recheck(void)
{
	int t = checker_self();
	bool same;

	checker_sched_point();
	same = M.slot == FOLIO;
	if (same && (M.tainted[t] || M.state != P_ALLOCATED || M.held_inc[t] != M.looked_inc[t]))
		checker_fail("%s: a get on a %s page (incarnation %d, lookup found %d) survived the recheck",
			     me(), M.tainted[t] ? "free or frozen" : "reused", M.held_inc[t],
			     M.looked_inc[t]);
	checker_note("%s: recheck %s", me(), same ? "passes: keeps the reference"
					       : "fails: puts the reference back");
	return same;
}

/* folio_put(): drop the reference; the winner of dec_and_test frees. */
static void m_put(void)
{
	int t = checker_self(), ref = M.held_inc[t];

	M.held[t]--;			/* given up by the call */
	if (!M.held[t])
		M.tainted[t] = false;
	if (folio_ref_dec_and_test(FOLIO)) {
		M.puts_true[t]++;
		checker_note("%s: dec_and_test true: refcount %#x, runs the destructor", me(), raw());
		m_free(ref);
	} else {
		M.puts_false[t]++;
		checker_note("%s: dec_and_test false: refcount %#x", me(), raw());
	}
}

static bool m_freeze(int count)
{
	int t = checker_self();
	bool ok = folio_ref_freeze(FOLIO, count);

	if (ok) {
		M.frozen_by_owner = true;
		M.held[t] -= count;	/* the references are consumed */
	}
	checker_note("%s: freeze(%d) %s: refcount %#x", me(), count, ok ? "succeeds" : "fails", raw());
	return ok;
}

static void m_unfreeze(int count)
{
	int t = checker_self();

	M.frozen_by_owner = false;
	hold(t, count);
	folio_ref_unfreeze(FOLIO, count);
	checker_note("%s: unfreeze(%d): refcount %#x", me(), count, raw());
}

/* --- callbacks shared by the scenarios ----------------------------------- */

static bool inv(void *arg, char *why, size_t len)
{
	int v = raw();

	if (strict && M.state == P_FREE && !frozen(v)) {
		snprintf(why, len, "free page (incarnation %d) has refcount %#x: not frozen", M.inc, v);
		return false;
	}
	return true;
}

static bool fin(void *arg, char *why, size_t len)
{
	int total = 0, v = raw();

	for (int t = 0; t < cur->nthreads; t++)
		total += M.held[t];
	for (int i = 1; i < M.inc; i++)
		if (M.frees[i] != 1) {
			snprintf(why, len, "incarnation %d freed %d times", i, M.frees[i]);
			return false;
		}
	if (M.state == P_FREE) {
		if (M.frees[M.inc] != 1 || total) {
			snprintf(why, len, "free incarnation %d: freed %d times, %d references held",
				 M.inc, M.frees[M.inc], total);
			return false;
		}
		if (strict && !frozen(v)) {
			snprintf(why, len, "free page has refcount %#x: not frozen", v);
			return false;
		}
	} else {
		if (M.frees[M.inc] || total <= 0 || frozen(v) || v != total) {
			snprintf(why, len, "live incarnation %d: refcount %#x, %d references held, freed %d times%s",
				 M.inc, v, total, M.frees[M.inc], total <= 0 ? ": leaked" : "");
			return false;
		}
		if (end_free) {
			snprintf(why, len, "the page was never freed (refcount %#x)", v);
			return false;
		}
	}
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	if (end_undone && (unsigned int)v >= PAGEREF_FROZEN_LIMIT) {
		snprintf(why, len, "failed gets left refcount %#x at or above the undo limit", v);
		return false;
	}
#endif
	if (vm_warn_count != M.warns0) {
		snprintf(why, len, "%lu VM_WARN fired", vm_warn_count - M.warns0);
		return false;
	}
	return true;
}

static void describe(void *arg, char *buf, size_t len)
{
	int n = snprintf(buf, len, "refcount 0x%08x  %s inc %d%s  slot %s  refs",
			 (unsigned int)raw(), M.state == P_FREE ? "free" : "allocated", M.inc,
			 M.frozen_by_owner ? " frozen" : "", M.slot ? "page" : "-");

	for (int t = 0; t < cur->nthreads && n > 0 && (size_t)n < len; t++)
		n += snprintf(buf + n, len - n, "%s%d", t ? "/" : " ", M.held[t]);
}

#define SCENARIO(...)	{ .invariant = inv, .describe = describe, __VA_ARGS__ }

/* --- a) a reader against reclaim: freeze the cache's count and free ------- */

static void a_setup(void *arg)
{
	model_reset(P_ALLOCATED, 1);
	M.slot = FOLIO;
	M.held[1] = 1;			/* the remover owns the page cache's reference */
	M.held_inc[1] = 1;
	end_free = end_undone = false;
}

static void a_reader(void *arg)
{
	if (!m_lookup() || !m_try_get())
		return;
	m_recheck();			/* passes or not, the reader then puts */
	m_put();
}

static void a_remover(void *arg)
{
	if (!m_freeze(1))
		return;			/* the reader holds the page: keep it */
	m_clear_slot();
	m_free(M.inc);
}

/*
 * a3) two readers, and a remover that expects the page cache's reference
 * and its own (freeze(2), as reclaim expects 1 + the isolation reference).
 */
static void a3_setup(void *arg)
{
	a_setup(arg);
	M.held[2] = 2;
	M.held_inc[2] = 1;
	M.held[1] = 0;
	atomic_set(&PAGE->_refcount, 2);
}

static void a_remover3(void *arg)
{
	if (!m_freeze(2))
		return;
	m_clear_slot();
	m_free(M.inc);
}

/* a2) the same reader against a freeze that is undone (split/migration fails) */
static void a2_remover(void *arg)
{
	if (m_freeze(1))
		m_unfreeze(1);
}

static struct checker_scenario sc_a = SCENARIO(
	.name = "a) reader try_get+put vs freeze(1)+free",
	.nthreads = 2, .thread = { a_reader, a_remover }, .thread_name = { "R", "M" },
	.setup = a_setup, .final = fin);

static struct checker_scenario sc_a3 = SCENARIO(
	.name = "a3) two readers vs freeze(2)+free",
	.nthreads = 3, .thread = { a_reader, a_reader, a_remover3 },
	.thread_name = { "R1", "R2", "M" }, .setup = a3_setup, .final = fin);

static struct checker_scenario sc_a2 = SCENARIO(
	.name = "a2) reader try_get+put vs freeze(1)+unfreeze(1)",
	.nthreads = 2, .thread = { a_reader, a2_remover }, .thread_name = { "R", "M" },
	.setup = a_setup, .final = fin);

/* --- b) two puts racing with a speculative get ----------------------------- */

static void b_setup(void *arg)
{
	model_reset(P_ALLOCATED, 2);
	M.slot = FOLIO;
	M.held[0] = M.held[1] = 1;	/* A: the page cache's reference; B: a user's */
	M.held_inc[0] = M.held_inc[1] = 1;
	end_free = true;
	end_undone = false;
}

static void b_cache_owner(void *arg)
{
	m_clear_slot();			/* delete from the page cache, then put */
	m_put();
}

static void b_user(void *arg)
{
	m_put();
}

static void b_getter(void *arg)
{
	if (!m_lookup() || !m_try_get())
		return;
	m_recheck();
	m_put();
}

static struct checker_scenario sc_b = SCENARIO(
	.name = "b) two puts vs a speculative get with recheck",
	.nthreads = 3, .thread = { b_cache_owner, b_user, b_getter },
	.thread_name = { "A", "B", "G" }, .setup = b_setup, .final = fin);

static struct checker_scenario __maybe_unused sc_b2 = SCENARIO(
	.name = "b2) two puts vs two speculative gets with recheck",
	.nthreads = 4, .thread = { b_cache_owner, b_user, b_getter, b_getter },
	.thread_name = { "A", "B", "G1", "G2" }, .setup = b_setup, .final = fin);

/* --- c) frozen-bit: the undo loop near the limit, with an allocation -------- */

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
static struct {
	unsigned long n, got, plain, garbage;
} ctally;

static void c_setup(void *arg)
{
	/* A free page on which 2^30 - 1 failed gets have piled up. */
	model_reset(P_FREE, (int)(PAGEREF_FROZEN_LIMIT - 1));
	M.looked_inc[0] = M.looked_inc[1] = 1;	/* stale lookups, made before the free */
	end_free = false;
	end_undone = true;
}

static void c_getter(void *arg)
{
	if (!m_try_get())
		return;
	m_recheck();			/* the slot is empty: fails */
	m_put();
}

static void c_allocator(void *arg)
{
	m_alloc();			/* keeps its reference */
}

static bool c_fin(void *arg, char *why, size_t len)
{
	if (!fin(arg, why, len))
		return false;
	ctally.n++;
	ctally.got += M.gets_ok[0] + M.gets_ok[1] > 0;
	ctally.plain += raw() == PAGEREF_FROZEN_BIT;
	ctally.garbage += M.state == P_FREE && raw() != PAGEREF_FROZEN_BIT;
	return true;
}

static struct checker_scenario sc_c = SCENARIO(
	.name = "c) two failing gets at FROZEN_LIMIT-1 vs an allocation",
	.nthreads = 3, .thread = { c_getter, c_getter, c_allocator },
	.thread_name = { "G1", "G2", "AL" }, .setup = c_setup, .final = c_fin);

static void c1_setup(void *arg)
{
	c_setup(arg);
	end_free = true;
}

static struct checker_scenario sc_c1 = SCENARIO(
	.name = "c1) two failing gets at FROZEN_LIMIT-1, no allocation",
	.nthreads = 2, .thread = { c_getter, c_getter },
	.thread_name = { "G1", "G2" }, .setup = c1_setup, .final = c_fin);
#endif

/* --- d) the named race ----------------------------------------------------- */

static struct {
	unsigned long n, t2_get_ok, t2_kept;
	unsigned long freed[3][NT];	/* [incarnation 1, 2][thread] */
	unsigned long aba[NT];		/* frees by a thread whose reference was older */
} tally;

static void d_setup(void *arg)
{
	model_reset(P_ALLOCATED, 1);
	M.held[0] = 1;			/* T1 owns incarnation 1 */
	M.held_inc[0] = 1;
	end_free = true;
	end_undone = false;
}

static void d_t1(void *arg)
{
	m_put();
}

static void d_t2(void *arg)
{
	if (m_try_get())
		m_put();
}

static void d_t3(void *arg)
{
	m_alloc();
	m_put();
}

static bool d_fin(void *arg, char *why, size_t len)
{
	if (!fin(arg, why, len))
		return false;
	tally.n++;
	tally.t2_get_ok += M.gets_ok[1] > 0;
	for (int i = 1; i <= 2 && i <= M.inc; i++) {
		if (M.freed_by[i] < 0)
			continue;
		tally.freed[i][M.freed_by[i]]++;
		if (M.freer_ref[i] != i)
			tally.aba[M.freed_by[i]]++;
	}
	return true;
}

static struct checker_scenario sc_d = SCENARIO(
	.name = "d) T1 put vs T2 speculative get+put vs T3 alloc+put",
	.nthreads = 3, .thread = { d_t1, d_t2, d_t3 },
	.thread_name = { "T1", "T2", "T3" }, .setup = d_setup, .final = d_fin);

/*
 * d2) the same with the page in a lookup slot: T1, the final owner, clears
 * the slot before its put, and T2 rechecks the slot after its get.
 */
static void d2_setup(void *arg)
{
	d_setup(arg);
	M.slot = FOLIO;
}

static void d2_t1(void *arg)
{
	m_clear_slot();
	m_put();
}

static void d2_t2(void *arg)
{
	if (!m_lookup() || !m_try_get())
		return;
	tally.t2_kept += m_recheck();
	m_put();
}

static struct checker_scenario sc_d2 = SCENARIO(
	.name = "d2) the same, T2 looks up and rechecks, T1 clears the slot first",
	.nthreads = 3, .thread = { d2_t1, d2_t2, d_t3 },
	.thread_name = { "T1", "T2", "T3" }, .setup = d2_setup, .final = d_fin);

/* d3) the named race with a second speculative getter, T4. */
static struct checker_scenario sc_d3 = SCENARIO(
	.name = "d3) the named race plus a second speculative get+put",
	.nthreads = 4, .thread = { d_t1, d_t2, d_t3, d_t2 },
	.thread_name = { "T1", "T2", "T3", "T4" }, .setup = d_setup, .final = d_fin);

/* --- running them ------------------------------------------------------------ */

static struct checker_result res;

static void explore(const struct checker_scenario *sc)
{
	cur = sc;
	checker_explore(sc, &res);
	diag("%s: %lu schedules explored (longest %d steps)%s%s", sc->name, res.executions,
	     res.longest, res.status ? ": " : "", res.status ? checker_status_name(res.status) : "");
}

static void expect_clean(const struct checker_scenario *sc)
{
	explore(sc);
	if (!ok(res.status == CHECKER_OK, "%s: no violation in any of %lu schedules", sc->name,
		res.executions))
		diag_trace(res.trace);
}

static void __maybe_unused expect_violation(const struct checker_scenario *sc, const char *what,
					   const char *or_what)
{
	explore(sc);
	ok(res.status == CHECKER_VIOLATION && res.nsteps > 0 && strstr(res.trace, "schedule ("),
	   "%s: the checker reports a violation with a trace", sc->name);
	ok(strstr(res.message, what) || (or_what && strstr(res.message, or_what)),
	   "  ... %s%s%s: %s", what, or_what ? " or " : "", or_what ? or_what : "", res.message);
	diag_trace(res.trace);
}

static const char *design(void)
{
	return MM_KERNEL_NAME;
}

/*
 * The named race, forced.  T1's first step is its put's decrement 1 -> 0;
 * it stops there, before its 0 -> frozen exchange.  T2 runs to its end
 * (speculative get, put, and the free if it wins).  T3 allocates (claim),
 * sets the count (init_page_count) and decrements 1 -> 0: three steps,
 * stopping before its own exchange.  Then T1 runs to its end, then T3.
 * Where the page is not free when T3 comes, T3 waits: its entry ends early
 * and T1 goes on first.
 */
static const struct checker_run named_race[] = {
	{ 0, 1 }, { 1, 0 }, { 2, 3 }, { 0, 0 }, { 2, 0 },
};

static void named_race_forced(void)
{
	cur = &sc_d;
	strict = true;
	checker_run_forced(&sc_d, named_race, ARRAY_SIZE(named_race), &res);
	diag("d) the named race, forced on %s: %s%s%s", design(), checker_status_name(res.status),
	     res.status ? ": " : "", res.message);
	diag_trace(res.trace);

#if MUTANT
	ok(res.status == CHECKER_VIOLATION && strstr(res.message, "not frozen"),
	   "d) forced, %s: violation: %s", design(), res.message);
	diag("d) %s: dec_and_test has no 0 -> frozen exchange, so T1's 1 -> 0 already "
	     "returns true, and T2's get takes the unfrozen 0 to 1: both will free", design());

	strict = false;		/* look past the unfrozen free page for the harm it does */
	checker_run_forced(&sc_d, named_race, ARRAY_SIZE(named_race), &res);
	ok(res.status == CHECKER_VIOLATION && strstr(res.message, "double free"),
	   "d) forced, %s, frozen-state checks off: %s", design(), res.message);
	diag_trace(res.trace);
	strict = true;
#else
	is_int(res.status, CHECKER_OK, "d) forced, %s: no violation", design());
	is_int(M.frees[1], 1, "d) %s: incarnation 1 freed exactly once", design());
	is_int(M.frees[2], 1, "d) %s: incarnation 2 freed exactly once", design());
	is_int(M.state, P_FREE, "d) %s: the page ends free", design());
	diag("d) %s: T2's get %s (refcount after it %#x); incarnation 1 freed by %s "
	     "(its reference: incarnation %d); incarnation 2 freed by %s (its reference: "
	     "incarnation %d); T3's dec_and_test returned %s; forced entries cut short: %d",
	     design(), M.gets_ok[1] ? "succeeded" : "failed", M.get_value[1], tn(M.freed_by[1]),
	     M.freer_ref[1], tn(M.freed_by[2]), M.freer_ref[2], M.puts_true[2] ? "true" : "false",
	     res.cut_short);
#if FROZEN_BIT
	is_int(res.cut_short, 0, "d) %s: the schedule ran exactly as forced", design());
	is_int(M.gets_ok[1], 1, "d) %s: T2's get succeeds on the transient 0", design());
	is_int(M.get_value[1], 1, "d) %s: ... taking it from 0 to 1", design());
	is_int(M.freed_by[1], 1, "d) %s: T2 wins the 0 -> frozen exchange and frees incarnation 1",
	       design());
	is_int(M.freed_by[2], 0, "d) %s: T1's delayed exchange succeeds on incarnation 2: T1 frees it",
	       design());
	is_int(M.freer_ref[2], 1, "d) %s: ... though T1's reference was to incarnation 1", design());
	is_int(M.puts_true[2], 0, "d) %s: T3's own exchange fails: T3 does not free", design());
	diag("d) %s: every incarnation is freed once and never while a reference is held, but "
	     "incarnation 2's destructor is run by T1, whose reference was to incarnation 1: "
	     "it is safe only if the destructor uses the page's own data, not what T1 knew",
	     design());
#else
	is_int(res.cut_short, 1, "d) %s: T3 had to wait for the free (its forced entry ended early)",
	       design());
	is_int(M.gets_ok[1], 0, "d) %s: T2's get fails: 0 is frozen", design());
	is_int(M.freed_by[1], 0, "d) %s: T1 alone frees incarnation 1", design());
	is_int(M.freed_by[2], 2, "d) %s: T3 frees incarnation 2", design());
	is_int(M.freer_ref[2], 2, "d) %s: ... with its own reference", design());
	diag("d) %s: T1's 1 -> 0 is itself the freeze, so T2 cannot take a reference and the "
	     "reallocation can only follow T1's free: the named race cannot happen", design());
#endif
#endif
}

static unsigned long __maybe_unused sum(const unsigned long *v, int n)
{
	unsigned long r = 0;

	for (int i = 0; i < n; i++)
		r += v[i];
	return r;
}

static void named_race_explored(const struct checker_scenario *sc, const char *l)
{
	memset(&tally, 0, sizeof(tally));
	strict = true;
#if MUTANT
	expect_violation(sc, "not frozen", NULL);
	strict = false;
	expect_violation(sc, "double free", "holds a reference");
	strict = true;
#else
	expect_clean(sc);
	is_int(tally.n, res.executions, "%s %s: every schedule reached the final check", l, design());
	diag("%s %s: over %lu schedules: T2's get succeeded in %lu; incarnation 1 freed by "
	     "T1 %lu, T2 %lu; incarnation 2 freed by T1 %lu, T2 %lu, T3 %lu%s; frees by a thread "
	     "whose reference was to an older incarnation: T1 %lu, T2 %lu", l, design(),
	     tally.n, tally.t2_get_ok, tally.freed[1][0], tally.freed[1][1], tally.freed[2][0],
	     tally.freed[2][1], tally.freed[2][2], sc->nthreads > 3 ? " (T4: see below)" : "",
	     tally.aba[0], tally.aba[1]);
	if (sc->nthreads > 3)
		diag("%s %s: T4 freed incarnation 1 in %lu, incarnation 2 in %lu schedules, "
		     "with an older reference in %lu", l, design(), tally.freed[1][3],
		     tally.freed[2][3], tally.aba[3]);
	if (sc == &sc_d2)
		diag("%s %s: T2's recheck passed (it kept the reference) in %lu schedules", l,
		     design(), tally.t2_kept);
	is_int(sum(tally.freed[1], NT), tally.n,
	       "%s %s: incarnation 1 freed exactly once in every schedule", l, design());
	is_int(sum(tally.freed[2], NT), tally.n,
	       "%s %s: incarnation 2 freed exactly once in every schedule", l, design());
#if FROZEN_BIT
	ok(sum(tally.aba, NT) > 0,
	   "%s %s: in %lu schedules an incarnation is freed by a thread whose reference was to "
	   "an older one", l, design(), sum(tally.aba, NT));
#else
	is_int(sum(tally.aba, NT), 0, "%s %s: every free is by a holder of that incarnation", l,
	       design());
#endif
#endif
}

int main(void)
{
	plan_no_plan();
	vm_warn_quiet = true;
	diag("exhaustive refcount interleavings, design %s%s", design(),
	     MUTANT ? " (mutant: dec_and_test without the 0 -> frozen exchange)" : "");
	diag("model: every shim atomic is one step; sequentially consistent interleavings only");

	expect_clean(&sc_a);
	expect_clean(&sc_a2);
	expect_clean(&sc_a3);

#if MUTANT
	expect_violation(&sc_b, "not frozen", NULL);
	strict = false;
	expect_violation(&sc_b, "double free", "holds a reference");
	strict = true;
#else
	expect_clean(&sc_b);
	expect_clean(&sc_b2);
#endif

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	memset(&ctally, 0, sizeof(ctally));
	expect_clean(&sc_c);
	diag("c) %s: a get succeeded (after the allocation) and was put back in %lu of %lu schedules",
	     design(), ctally.got, ctally.n);
	memset(&ctally, 0, sizeof(ctally));
	expect_clean(&sc_c1);
	diag("c1) %s: the page ends plain frozen (%#x: an undo ran last) in %lu schedules, "
	     "with one failed get's increment left in %lu", design(), PAGEREF_FROZEN_BIT,
	     ctally.plain, ctally.garbage);
	ok(ctally.plain > 0, "c1) %s: the undo loop ran and reset the counter to frozen", design());
#else
	diag("c) the undo loop exists only in the frozen-bit design: skipped on %s", design());
#endif

	named_race_forced();
	named_race_explored(&sc_d, "d)");
	named_race_explored(&sc_d2, "d2)");
	named_race_explored(&sc_d3, "d3)");
	return done_testing();
}
