// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/linux/page_ref.h and of the reference helpers of
 * include/linux/mm.h (folio_get, folio_put, ...), single-threaded, for the
 * one design this program is built for (see KCFG_* in the Makefile):
 *
 *   vanilla, seqcount-read	0 means frozen
 *   cmpxchg-guess		0 means frozen, try-get guesses a count of 1
 *   frozen-bit			bit 31 means frozen, fetch-add try-get + undo loop
 *   frozen-bit-nocas		mutant: dec_and_test does not move 0 to frozen
 *
 * Every assertion states what this design really does, so it fails if the
 * design's code changes behaviour.  Pages are a static array; the model's
 * memory (mem_init) is not used.
 *
 * The PGREF_* vm events (CONFIG_DEBUG_VM_EVENTS, on in the dbg flavour)
 * count the loops: CAS retries, the frozen-bit undo loop.
 */
#ifndef CONFIG_DEBUG_VM_EVENTS
#error "test_page_ref asserts the PGREF_* vm events: build it in the dbg flavour"
#endif

#include <limits.h>
#include <string.h>

#include <linux/mm.h>

#include "tap.h"

#ifndef MM_KERNEL_NAME
#define MM_KERNEL_NAME "unknown"
#endif

/* --- what this design must do ---------------------------------------------- */

#if defined(CONFIG_REFCOUNT_FROZEN_BIT) && defined(CONFIG_PAGEREF_MUTANT_NO_FROZEN_CAS)
#define DESIGN_MUTANT_NOCAS	1
#endif

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
#define FROZEN_RAW		INT_MIN		/* 0x80000000 */
#define ZERO_IS_FROZEN		0		/* 0 is the transient no-owner state */
#else
#define FROZEN_RAW		0
#define ZERO_IS_FROZEN		1
#endif

/* The raw counter a final dec_and_test/sub_and_test leaves behind. */
#if defined(DESIGN_MUTANT_NOCAS)
#define RAW_AFTER_LAST_PUT	0		/* the mutant's bug: left unfrozen */
#define FROZEN_AFTER_LAST_PUT	0
#elif defined(CONFIG_REFCOUNT_FROZEN_BIT)
#define RAW_AFTER_LAST_PUT	INT_MIN
#define FROZEN_AFTER_LAST_PUT	1
#else
#define RAW_AFTER_LAST_PUT	0
#define FROZEN_AFTER_LAST_PUT	1
#endif

/* Warnings a misuse fires: the checks exist only with CONFIG_DEBUG_VM. */
#ifdef CONFIG_DEBUG_VM
#define WARNS(n)	(n)
#else
#define WARNS(n)	0
#endif

/* raw + d without signed overflow (frozen-bit counters live near INT_MIN) */
static inline int raw_plus(int raw, int d)
{
	return (int)((unsigned int)raw + (unsigned int)d);
}

/* --- event counters ------------------------------------------------------------ */

static void ev_reset(void)
{
	reset_vm_events();
}

static long long EV(enum vm_event_item item)
{
	unsigned long events[NR_VM_EVENT_ITEMS];

	all_vm_events(events);
	return (long long)events[item];
}

/* --- __folio_put: a counting stand-in, unless the kernel's is linked in ------ */

static unsigned long folio_put_calls;
static struct folio *folio_put_last;

static void test_folio_put(struct folio *folio)
{
	folio_put_calls++;
	folio_put_last = folio;
}

/*
 * Weak: nothing here pulls src/mm/swap.o out of libmm.a, but if some other
 * reference ever does, the kernel's __folio_put wins silently; then the
 * tests that drop a folio to zero through folio_put are skipped (the real
 * one would hand a static page to the page allocator).
 */
void __folio_put(struct folio *folio) __attribute__((weak, alias("test_folio_put")));

static bool own_folio_put(void)
{
	void (*volatile fp)(struct folio *) = __folio_put;

	return fp == test_folio_put;
}

/* --- pages ---------------------------------------------------------------------- */

#define NR_TEST_PAGES	8
static struct page pages[NR_TEST_PAGES] __aligned(64);

/*
 * pages[0]	the page under test (p)
 * pages[2..3]	a folio (f) overlaying a head page and its first tail page
 * pages[4..5]	a compound page: head and a tail page pointing at it
 * the rest	sentinels: their counters must never change
 */
static struct page *const p = &pages[0];
static struct folio *const f = (struct folio *)&pages[2];
static struct page *const chead = &pages[4];
static struct page *const ctail = &pages[5];

#define SENTINEL(i)	(0x5a5a0000 + (i))

static void reset_pages(void)
{
	memset(pages, 0, sizeof(pages));
	for (int i = 0; i < NR_TEST_PAGES; i++)
		atomic_set(&pages[i]._refcount, SENTINEL(i));
	ctail->compound_head = (unsigned long)chead | 1;
	ev_reset();
	folio_put_calls = 0;
	folio_put_last = NULL;
}

/* Pages a group may write to: 0 (p), 2 (f), 4 (chead). */
static void check_sentinels(const char *group)
{
	static const int untouched[] = { 1, 3, 5, 6, 7 };
	int bad = -1;

	for (size_t i = 0; i < ARRAY_SIZE(untouched); i++) {
		int k = untouched[i];

		if (page_ref_raw(&pages[k]) != SENTINEL(k)) {
			bad = k;
			break;
		}
	}
	ok(bad < 0, "%s: neighbouring pages' counters untouched", group);
	if (bad >= 0)
		diag("page %d raw %#x, expected %#x", bad,
		     (unsigned int)page_ref_raw(&pages[bad]), SENTINEL(bad));
}

static unsigned long warn_base;

static void warn_mark(void)
{
	warn_base = __atomic_load_n(&vm_warn_count, __ATOMIC_RELAXED);
}

static long long warns_since(void)
{
	return (long long)(__atomic_load_n(&vm_warn_count, __ATOMIC_RELAXED) - warn_base);
}

/* --- the design under test -------------------------------------------------- */

static bool streq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

static void test_design(void)
{
	const char *name = MM_KERNEL_NAME;
	bool fb = false, mutant = false, guess = false, seq = false;

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	fb = true;
#endif
#ifdef DESIGN_MUTANT_NOCAS
	mutant = true;
#endif
#ifdef CONFIG_REFCOUNT_CMPXCHG_GUESS
	guess = true;
#endif
#ifdef CONFIG_REFCOUNT_SEQCOUNT_READ
	seq = true;
#endif
	diag("design %s", name);
	ok(!streq(name, "vanilla") || (!fb && !guess && !seq), "the vanilla build has no page_ref config");
	ok(streq(name, "refcount-frozen-bit") == (fb && !mutant), "frozen-bit iff CONFIG_REFCOUNT_FROZEN_BIT");
	ok(streq(name, "refcount-frozen-bit-nocas") == mutant, "frozen-bit-nocas iff the mutant's config");
	ok(streq(name, "refcount-cmpxchg-guess") == guess, "cmpxchg-guess iff CONFIG_REFCOUNT_CMPXCHG_GUESS");
	ok(streq(name, "refcount-seqcount-read") == seq, "seqcount-read iff CONFIG_REFCOUNT_SEQCOUNT_READ");
	ok(!streq(name, "unknown"), "the build names its design");

	is_int(PAGEREF_FROZEN_VALUE, FROZEN_RAW, "PAGEREF_FROZEN_VALUE");
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	is_int((unsigned int)PAGEREF_FROZEN_BIT, 0x80000000u, "PAGEREF_FROZEN_BIT is bit 31");
	is_int(PAGEREF_FROZEN_LIMIT, 0xc0000000u, "PAGEREF_FROZEN_LIMIT is bit 31 | bit 30");
#endif
}

/* --- reading and setting the count ------------------------------------------ */

static void test_count_basics(void)
{
	static const struct { int raw; bool frozen; } vals[] = {
		{ 0,		ZERO_IS_FROZEN },
		{ 1,		false },
		{ 2,		false },
		{ INT_MAX,	false },
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
		{ INT_MIN,	true },
		{ INT_MIN + 1,	true },
		{ -1,		true },
		{ (int)0xc0000000u, true },
#else
		{ INT_MIN,	false },
		{ -1,		false },
#endif
	};

	reset_pages();
	warn_mark();

	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		int v = vals[i].raw;

		ok(__page_count_is_frozen(v) == vals[i].frozen,
		   "__page_count_is_frozen(%#x) is %d", (unsigned int)v, vals[i].frozen);
		set_page_count(p, v);
		is_int(page_ref_raw(p), v, "set_page_count(%#x): raw value", (unsigned int)v);
		ok(__page_is_frozen(p) == vals[i].frozen, "__page_is_frozen at raw %#x", (unsigned int)v);
		is_int(page_ref_count(p), vals[i].frozen ? 0 : v,
		       "page_ref_count at raw %#x", (unsigned int)v);
	}

	set_page_count(p, 5);
	is_int(page_ref_count(p), 5, "set_page_count(5): count 5");
	init_page_count(p);
	is_int(page_ref_raw(p), 1, "init_page_count: raw 1");
	is_int(page_ref_count(p), 1, "init_page_count: count 1");
	ok(!__page_is_frozen(p), "init_page_count: not frozen");

	set_page_count_frozen(p);
	is_int(page_ref_raw(p), FROZEN_RAW, "set_page_count_frozen: raw value");
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	ok(page_ref_raw(p) & (int)BIT(31), "set_page_count_frozen: bit 31 set");
#endif
	is_int(page_ref_count(p), 0, "frozen page: page_ref_count 0");
	is_int(page_count(p), 0, "frozen page: page_count 0");
	ok(__page_is_frozen(p), "set_page_count_frozen: frozen");
	init_page_count(p);
	is_int(page_ref_raw(p), 1, "init_page_count on a frozen page: raw 1");

	/* the folio accessors read and write the head page's counter */
	set_page_count(&f->page, 9);
	is_int(folio_ref_count(f), 9, "folio_ref_count reads the head page");
	folio_init_count(f);
	is_int(page_ref_raw(&f->page), 1, "folio_init_count: head raw 1");
	set_page_count_frozen(&f->page);
	is_int(folio_ref_count(f), 0, "frozen folio: folio_ref_count 0");
	is_int(page_ref_raw(&f->page), FROZEN_RAW, "frozen folio: raw value");

	/* page_count of a tail page is its head's */
	set_page_count(chead, 3);
	is_int(page_count(chead), 3, "page_count of a compound head");
	is_int(page_count(ctail), 3, "page_count of a tail page reads the head");
	ok(page_folio(ctail) == (struct folio *)chead, "page_folio(tail) is the head");

	ev_reset();
	count_debug_vm_event(PGREF_UNDO_LOOP);
	count_debug_vm_event(PGREF_UNDO_LOOP);
	count_debug_vm_event(PGREF_CAS_RETRY);
	is_int(EV(PGREF_UNDO_LOOP), 2, "count_debug_vm_event counts its event");
	is_int(EV(PGREF_CAS_RETRY), 1, "count_debug_vm_event counts each event apart");
	is_int(EV(PGREF_TRYGET), 0, "count_debug_vm_event leaves other events");

	is_int(warns_since(), 0, "reading and setting counts: no warning");
	check_sentinels("count basics");
}

/* --- modifying an owned counter --------------------------------------------- */

static void test_modify_owned(void)
{
	reset_pages();
	warn_mark();

	set_page_count(p, 3);
	page_ref_add(p, 4);
	is_int(page_ref_count(p), 7, "page_ref_add(4): 3 -> 7");
	page_ref_sub(p, 2);
	is_int(page_ref_count(p), 5, "page_ref_sub(2): 7 -> 5");
	page_ref_inc(p);
	is_int(page_ref_count(p), 6, "page_ref_inc: 5 -> 6");
	page_ref_dec(p);
	is_int(page_ref_count(p), 5, "page_ref_dec: 6 -> 5");
	is_int(page_ref_inc_return(p), 6, "page_ref_inc_return returns the new count");
	is_int(page_ref_raw(p), 6, "page_ref_inc_return: raw 6");
	is_int(page_ref_dec_return(p), 5, "page_ref_dec_return returns the new count");
	is_int(page_ref_raw(p), 5, "page_ref_dec_return: raw 5");
	is_int(page_ref_sub_return(p, 3), 2, "page_ref_sub_return(3) returns the new count");
	is_int(page_ref_raw(p), 2, "page_ref_sub_return: raw 2");
	ok(!__page_is_frozen(p), "owned page stays unfrozen");

	/* page_ref_dec to 0 is not a put: no free, no freeze step */
	set_page_count(p, 1);
	page_ref_dec(p);
	is_int(page_ref_raw(p), 0, "page_ref_dec 1 -> raw 0 (no freeze step)");
	set_page_count(p, 1);
	is_int(page_ref_dec_return(p), 0, "page_ref_dec_return 1 -> 0 returns 0");
	is_int(page_ref_raw(p), 0, "page_ref_dec_return to 0: raw 0, no freeze step");

	set_page_count(&f->page, 3);
	folio_ref_add(f, 10);
	is_int(folio_ref_count(f), 13, "folio_ref_add(10): 3 -> 13");
	folio_ref_sub(f, 4);
	is_int(folio_ref_count(f), 9, "folio_ref_sub(4): 13 -> 9");
	folio_ref_inc(f);
	is_int(folio_ref_count(f), 10, "folio_ref_inc: 9 -> 10");
	folio_ref_dec(f);
	is_int(folio_ref_count(f), 9, "folio_ref_dec: 10 -> 9");
	is_int(folio_ref_inc_return(f), 10, "folio_ref_inc_return");
	is_int(folio_ref_dec_return(f), 9, "folio_ref_dec_return");
	is_int(folio_ref_sub_return(f, 7), 2, "folio_ref_sub_return(7)");
	is_int(page_ref_raw(&f->page), 2, "folio ops act on the head page's counter");

	is_int(warns_since(), 0, "modifying owned counters: no warning");
	check_sentinels("modify owned");
}

/* --- dec_and_test / sub_and_test ---------------------------------------------- */

static void test_and_test(void)
{
	reset_pages();
	warn_mark();

	set_page_count(p, 3);
	ok(!page_ref_dec_and_test(p), "dec_and_test 3 -> 2 is false");
	is_int(page_ref_raw(p), 2, "dec_and_test 3 -> 2: raw 2");
	ok(!page_ref_dec_and_test(p), "dec_and_test 2 -> 1 is false");
	is_int(page_ref_raw(p), 1, "dec_and_test 2 -> 1: raw 1");
	ok(page_ref_dec_and_test(p), "dec_and_test 1 -> 0 is true");
	is_int(page_ref_raw(p), RAW_AFTER_LAST_PUT, "dec_and_test to zero: raw value"
#ifdef DESIGN_MUTANT_NOCAS
	       " (mutant: left 0, not frozen)"
#endif
	       );
	is_int(page_ref_count(p), 0, "dec_and_test to zero: count 0");
	ok(__page_is_frozen(p) == FROZEN_AFTER_LAST_PUT, "dec_and_test to zero: frozen is %d",
	   FROZEN_AFTER_LAST_PUT);

	/* after the last put, a speculative get must fail (except in the mutant) */
	ev_reset();
#ifdef DESIGN_MUTANT_NOCAS
	ok(page_ref_add_unless_frozen(p, 1), "mutant: try-get after the last put succeeds (the bug)");
	is_int(page_ref_raw(p), 1, "mutant: the freed page is owned again");
#else
	ok(!page_ref_add_unless_frozen(p, 1), "try-get after the last put fails");
	ok(__page_is_frozen(p), "try-get after the last put: still frozen");
	is_int(page_ref_count(p), 0, "try-get after the last put: count 0");
	is_int(EV(PGREF_TRYGET_FAIL), 1, "try-get after the last put: one failed try-get");
#endif

	set_page_count(p, 5);
	ok(!page_ref_sub_and_test(p, 2), "sub_and_test(2) 5 -> 3 is false");
	is_int(page_ref_raw(p), 3, "sub_and_test(2): raw 3");
	ok(!page_ref_sub_and_test(p, 2), "sub_and_test(2) 3 -> 1 is false");
	is_int(page_ref_raw(p), 1, "sub_and_test(2): raw 1");
	set_page_count(p, 4);
	ok(page_ref_sub_and_test(p, 4), "sub_and_test(4) 4 -> 0 is true");
	is_int(page_ref_raw(p), RAW_AFTER_LAST_PUT, "sub_and_test to zero: raw value");
	is_int(page_ref_count(p), 0, "sub_and_test to zero: count 0");

	set_page_count(&f->page, 2);
	ok(!folio_ref_dec_and_test(f), "folio_ref_dec_and_test 2 -> 1 is false");
	ok(folio_ref_dec_and_test(f), "folio_ref_dec_and_test 1 -> 0 is true");
	is_int(page_ref_raw(&f->page), RAW_AFTER_LAST_PUT, "folio_ref_dec_and_test to zero: raw");
	set_page_count(&f->page, 6);
	ok(!folio_ref_sub_and_test(f, 5), "folio_ref_sub_and_test(5) 6 -> 1 is false");
	is_int(folio_ref_count(f), 1, "folio_ref_sub_and_test(5): count 1");
	ok(folio_ref_sub_and_test(f, 1), "folio_ref_sub_and_test(1) 1 -> 0 is true");
	is_int(page_ref_raw(&f->page), RAW_AFTER_LAST_PUT, "folio_ref_sub_and_test to zero: raw");

	/*
	 * The 0 -> frozen step alone.  A counter still 0 is frozen by the
	 * put; a counter a racing try-get took to 1 makes the frozen-bit
	 * put lose (that getter's put frees the page).
	 */
	ev_reset();
	set_page_count(p, 0);
	ok(page_ref_zero_to_frozen(p), "page_ref_zero_to_frozen from 0: the put frees");
	is_int(page_ref_raw(p), RAW_AFTER_LAST_PUT, "page_ref_zero_to_frozen from 0: raw value");
	set_page_count(p, 1);
#if defined(CONFIG_REFCOUNT_FROZEN_BIT) && !defined(DESIGN_MUTANT_NOCAS)
	ok(!page_ref_zero_to_frozen(p), "page_ref_zero_to_frozen after a racing get: put loses");
	is_int(EV(PGREF_PUT_RACE), 1, "a lost 0 -> frozen exchange counts a PUT_RACE");
#else
	ok(page_ref_zero_to_frozen(p), "page_ref_zero_to_frozen has no exchange in this design");
	is_int(EV(PGREF_PUT_RACE), 0, "no PUT_RACE event in this design");
#endif
	is_int(page_ref_raw(p), 1, "page_ref_zero_to_frozen leaves a nonzero counter alone");

	is_int(warns_since(), 0, "dec_and_test/sub_and_test of owned pages: no warning");
	check_sentinels("and_test");
}

/* --- freezing ------------------------------------------------------------------ */

static void test_freeze(void)
{
	reset_pages();
	warn_mark();

	set_page_count(p, 3);
	ok(!page_ref_freeze(p, 2), "freeze(2) at count 3 fails");
	is_int(page_ref_raw(p), 3, "failed freeze(2) leaves raw 3");
	ok(!page_ref_freeze(p, 4), "freeze(4) at count 3 fails");
	is_int(page_ref_raw(p), 3, "failed freeze(4) leaves raw 3");
	ok(!page_ref_freeze(p, 0), "freeze(0) at count 3 fails");
	is_int(page_ref_raw(p), 3, "failed freeze(0) leaves raw 3");
	ok(page_ref_freeze(p, 3), "freeze(3) at count 3 succeeds");
	is_int(page_ref_raw(p), FROZEN_RAW, "freeze: raw is the frozen value");
	is_int(page_ref_count(p), 0, "frozen by freeze: count 0");
	ok(__page_is_frozen(p), "frozen by freeze: frozen");
	ok(!page_ref_freeze(p, 3), "freeze(3) again on the frozen page fails");
	is_int(page_ref_raw(p), FROZEN_RAW, "second freeze leaves the frozen value");

	page_ref_unfreeze(p, 5);
	is_int(page_ref_raw(p), 5, "unfreeze(5): raw 5");
	is_int(page_ref_count(p), 5, "unfreeze(5): count 5");
	ok(!__page_is_frozen(p), "unfreeze: not frozen");

	set_page_count(p, 1);
	ok(page_ref_freeze(p, 1), "freeze(1) at count 1 succeeds");
	ok(!page_ref_add_unless_frozen(p, 1), "try-get on a page frozen by freeze fails");
	ok(__page_is_frozen(p), "... and leaves it frozen");
	page_ref_unfreeze(p, 1);
	is_int(page_ref_raw(p), 1, "unfreeze(1) after failed try-gets: raw exactly 1");
	ok(page_ref_add_unless_frozen(p, 1), "try-get after unfreeze succeeds");
	is_int(page_ref_count(p), 2, "try-get after unfreeze: count 2");

#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	/* unfreeze overwrites the garbage of failed try-gets */
	set_page_count(p, raw_plus(INT_MIN, 9));
	page_ref_unfreeze(p, 2);
	is_int(page_ref_raw(p), 2, "unfreeze of a frozen counter with garbage: raw exactly 2");
	/* freeze compares the whole counter: the transient 0 is not 'count 0 frozen' */
	set_page_count(p, 0);
	ok(page_ref_freeze(p, 0), "freeze(0) from the transient 0 succeeds");
	is_int(page_ref_raw(p), INT_MIN, "freeze(0) from 0: raw frozen bit");
#endif

	set_page_count(&f->page, 4);
	ok(!folio_ref_freeze(f, 3), "folio_ref_freeze(3) at count 4 fails");
	is_int(folio_ref_count(f), 4, "failed folio_ref_freeze leaves count 4");
	ok(folio_ref_freeze(f, 4), "folio_ref_freeze(4) at count 4 succeeds");
	is_int(page_ref_raw(&f->page), FROZEN_RAW, "folio_ref_freeze: raw frozen value");
	ok(!folio_try_get(f), "folio_try_get on a frozen folio fails");
	folio_ref_unfreeze(f, 3);
	is_int(page_ref_raw(&f->page), 3, "folio_ref_unfreeze(3): raw 3");

	is_int(warns_since(), 0, "freeze/unfreeze used correctly: no warning");
	check_sentinels("freeze");
}

/* --- speculative references ------------------------------------------------ */

enum tryget_fn { TG_PAGE, TG_GET_PAGE_UNLESS_ZERO, TG_FOLIO_ADD, TG_FOLIO_TRY_GET, TG_FOLIO_TRY_ADD };

static const char *const tg_name[] = {
	"page_ref_add_unless_frozen", "get_page_unless_zero",
	"folio_ref_add_unless_frozen", "folio_try_get", "folio_ref_try_add",
};

/* Calls one try-get form on the page under test; returns nr through *nr. */
static bool tryget(enum tryget_fn fn, struct page *page, int *nr)
{
	struct folio *folio = (struct folio *)page;

	switch (fn) {
	case TG_PAGE:			*nr = 3; return page_ref_add_unless_frozen(page, 3);
	case TG_GET_PAGE_UNLESS_ZERO:	*nr = 1; return get_page_unless_zero(page);
	case TG_FOLIO_ADD:		*nr = 2; return folio_ref_add_unless_frozen(folio, 2);
	case TG_FOLIO_TRY_GET:		*nr = 1; return folio_try_get(folio);
	case TG_FOLIO_TRY_ADD:		*nr = 4; return folio_ref_try_add(folio, 4);
	}
	return false;
}

static void test_try_get(void)
{
	reset_pages();
	warn_mark();

	for (int fn = TG_PAGE; fn <= TG_FOLIO_TRY_ADD; fn++) {
		struct page *page = &f->page;
		const char *name = tg_name[fn];
		int nr = 0;

		/* owned: 1 and larger */
		for (int c = 1; c <= 6; c += 5) {
			set_page_count(page, c);
			ev_reset();
			ok(tryget(fn, page, &nr), "%s at count %d succeeds", name, c);
			is_int(page_ref_raw(page), c + nr, "%s at count %d: count + %d", name, c, nr);
			is_int(EV(PGREF_TRYGET), 1, "%s: one TRYGET event", name);
			is_int(EV(PGREF_TRYGET_FAIL), 0, "%s: no TRYGET_FAIL on success", name);
		}

		/* frozen: fails, stays frozen; frozen-bit keeps the increment */
		set_page_count_frozen(page);
		ev_reset();
		ok(!tryget(fn, page, &nr), "%s on a frozen page fails", name);
		ok(__page_is_frozen(page), "%s on a frozen page: still frozen", name);
		is_int(page_ref_count(page), 0, "%s on a frozen page: count 0", name);
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
		is_int(page_ref_raw(page), raw_plus(INT_MIN, nr),
		       "%s on a frozen page: frozen raw grew by %d", name, nr);
		ok(!tryget(fn, page, &nr), "%s again on the frozen page fails", name);
		is_int(page_ref_raw(page), raw_plus(INT_MIN, 2 * nr),
		       "%s again: frozen raw grew by %d more", name, nr);
		is_int(page_ref_count(page), 0, "%s on a grown frozen counter: count 0", name);
		is_int(EV(PGREF_TRYGET_FAIL), 2, "%s: two TRYGET_FAIL events", name);
#else
		is_int(page_ref_raw(page), 0, "%s on a frozen page: raw stays 0", name);
		is_int(EV(PGREF_TRYGET_FAIL), 1, "%s: one TRYGET_FAIL event", name);
#endif

		/* the transient 0 of frozen-bit is not frozen: a get revives it */
		set_page_count(page, 0);
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
		ok(tryget(fn, page, &nr), "%s at the transient 0 succeeds", name);
		is_int(page_ref_raw(page), nr, "%s at the transient 0: count %d", name, nr);
#else
		ok(!tryget(fn, page, &nr), "%s at 0 fails", name);
		is_int(page_ref_raw(page), 0, "%s at 0: raw stays 0", name);
#endif
	}

	is_int(warns_since(), 0, "try-gets, failed or not: no warning");
	check_sentinels("try-get");
}

/*
 * cmpxchg-guess guesses a count of 1: one exchange when right, one failed
 * exchange (a CAS_RETRY) then a second when the count is larger.  The
 * others never retry single-threaded: vanilla reads the count first,
 * frozen-bit does not compare at all.
 */
static void test_guess(void)
{
#ifdef CONFIG_REFCOUNT_CMPXCHG_GUESS
	const long long retry_if_larger = 1;
#else
	const long long retry_if_larger = 0;
#endif

	reset_pages();
	warn_mark();

	set_page_count(p, 1);
	ev_reset();
	ok(page_ref_add_unless_frozen(p, 1), "guess right (count 1): try-get succeeds");
	is_int(page_ref_raw(p), 2, "guess right: 1 -> 2");
	is_int(EV(PGREF_CAS_RETRY), 0, "guess right: no CAS retry");

	set_page_count(p, 7);
	ev_reset();
	ok(page_ref_add_unless_frozen(p, 1), "guess wrong (count 7): try-get succeeds");
	is_int(page_ref_raw(p), 8, "guess wrong: 7 -> 8, not 2");
	is_int(EV(PGREF_CAS_RETRY), retry_if_larger, "guess wrong: CAS retries");

	set_page_count(p, 1);
	ev_reset();
	ok(folio_ref_try_add((struct folio *)p, 5), "guess right, add 5: succeeds");
	is_int(page_ref_raw(p), 6, "guess right, add 5: 1 -> 6");
	is_int(EV(PGREF_CAS_RETRY), 0, "guess right, add 5: no CAS retry");

	set_page_count(p, 2);
	ev_reset();
	ok(folio_ref_try_add((struct folio *)p, 5), "guess wrong (count 2), add 5: succeeds");
	is_int(page_ref_raw(p), 7, "guess wrong, add 5: 2 -> 7");
	is_int(EV(PGREF_CAS_RETRY), retry_if_larger, "guess wrong, add 5: CAS retries");

	set_page_count(p, INT_MAX - 1);
	ev_reset();
	ok(page_ref_add_unless_frozen(p, 1), "try-get at INT_MAX - 1 succeeds");
	is_int(page_ref_raw(p), INT_MAX, "try-get at INT_MAX - 1: INT_MAX");

	set_page_count_frozen(p);
	ev_reset();
	ok(!page_ref_add_unless_frozen(p, 1), "frozen: try-get fails");
	is_int(page_ref_count(p), 0, "frozen: count 0");
	is_int(EV(PGREF_CAS_RETRY), 0, "frozen: the failure is not counted as a retry");
	is_int(EV(PGREF_TRYGET_FAIL), 1, "frozen: one TRYGET_FAIL");

	is_int(warns_since(), 0, "guess paths: no warning");
	check_sentinels("guess");
}

/* --- frozen-bit: the undo loop -------------------------------------------------- */

static void test_undo_loop(void)
{
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	const int limit = (int)PAGEREF_FROZEN_LIMIT;
	static const int below[] = { 1, 2, 1000 };	/* limit - k: a get stays below */
	static const int from[] = { -1, 0, 1, 5, 1000, 0x3ffffff0 };	/* limit + k */

	reset_pages();
	warn_mark();

	for (size_t i = 0; i < ARRAY_SIZE(below); i++) {
		int start = raw_plus(limit, -below[i] - 1);

		set_page_count(p, start);
		ev_reset();
		ok(!page_ref_add_unless_frozen(p, 1), "raw LIMIT - %d: try-get fails", below[i] + 1);
		is_int(page_ref_raw(p), raw_plus(start, 1),
		       "raw LIMIT - %d: below the limit, the increment stays", below[i] + 1);
		is_int(EV(PGREF_UNDO_LOOP), 0, "raw LIMIT - %d: no undo", below[i] + 1);
	}

	for (size_t i = 0; i < ARRAY_SIZE(from); i++) {
		int start = raw_plus(limit, from[i]);

		set_page_count(p, start);
		ev_reset();
		ok(!page_ref_add_unless_frozen(p, 1), "raw LIMIT%+d: try-get fails", from[i]);
		is_int(page_ref_raw(p), PAGEREF_FROZEN_BIT,
		       "raw LIMIT%+d: undone to exactly PAGEREF_FROZEN_BIT", from[i]);
		is_int(page_ref_count(p), 0, "raw LIMIT%+d: count 0", from[i]);
		/*
		 * The seed's loop goes round once more after its successful
		 * exchange: that returns the old value, still >= the limit,
		 * and the next exchange fails, finding PAGEREF_FROZEN_BIT.
		 */
		is_int(EV(PGREF_UNDO_LOOP), 2,
		       "raw LIMIT%+d: the exchange and its re-check", from[i]);
	}

	/* a larger try-add that crosses the limit */
	set_page_count(&f->page, raw_plus(limit, -4));
	ok(!folio_ref_try_add(f, 8), "try-add 8 at LIMIT - 4 fails");
	is_int(page_ref_raw(&f->page), PAGEREF_FROZEN_BIT, "try-add 8 across the limit: undone");
	set_page_count(&f->page, raw_plus(limit, -9));
	ok(!folio_ref_try_add(f, 8), "try-add 8 at LIMIT - 9 fails");
	is_int(page_ref_raw(&f->page), raw_plus(limit, -1), "try-add 8 to LIMIT - 1: kept");

	/* after an undo the page unfreezes normally */
	page_ref_unfreeze(&f->page, 1);
	is_int(page_ref_raw(&f->page), 1, "unfreeze after garbage: raw 1");

	is_int(warns_since(), 0, "undo loop: no warning");
	check_sentinels("undo loop");
#else
	diag("no undo loop in design %s", MM_KERNEL_NAME);
#endif
}

/* --- mm.h: folio_get, folio_put and friends -------------------------------- */

static void test_mm_helpers(void)
{
	bool own = own_folio_put();

	reset_pages();
	warn_mark();

	if (!own)
		diag("the kernel's __folio_put is linked in: puts to zero through folio_put skipped");

	folio_init_count(f);
	folio_get(f);
	is_int(folio_ref_count(f), 2, "folio_get: 1 -> 2");
	get_page(&f->page);
	is_int(folio_ref_count(f), 3, "get_page: 2 -> 3");
	ok(!folio_put_testzero(f), "folio_put_testzero 3 -> 2 is false");
	ok(!put_page_testzero(&f->page), "put_page_testzero 2 -> 1 is false");
	is_int(folio_ref_count(f), 1, "testzero puts: count 1");
	ok(put_page_testzero(&f->page), "put_page_testzero 1 -> 0 is true");
	is_int(page_ref_raw(&f->page), RAW_AFTER_LAST_PUT, "put_page_testzero to 0: raw value");

	folio_init_count(f);
	folio_ref_add(f, 3);
	folio_put(f);
	is_int(folio_ref_count(f), 3, "folio_put 4 -> 3");
	put_page(&f->page);
	is_int(folio_ref_count(f), 2, "put_page 3 -> 2");
	folio_put_refs(f, 1);
	is_int(folio_ref_count(f), 1, "folio_put_refs(1) 2 -> 1");
	is_int(folio_put_calls, 0, "puts above zero do not free");
	if (own) {
		folio_put(f);
		is_int(folio_put_calls, 1, "folio_put 1 -> 0 frees once");
		ok(folio_put_last == f, "folio_put frees this folio");
		is_int(page_ref_raw(&f->page), RAW_AFTER_LAST_PUT, "folio_put to 0: raw value");

		folio_init_count(f);
		folio_ref_add(f, 2);
		folio_put_refs(f, 3);
		is_int(folio_put_calls, 2, "folio_put_refs(3) 3 -> 0 frees");
		is_int(page_ref_raw(&f->page), RAW_AFTER_LAST_PUT, "folio_put_refs to 0: raw value");
	}

	/* references to a tail page land on the head */
	set_page_count(chead, 2);
	get_page(ctail);
	is_int(page_ref_raw(chead), 3, "get_page(tail) takes a reference on the head");
	ok(!put_page_testzero(ctail), "put_page_testzero(tail) 3 -> 2 is false");
	is_int(page_ref_raw(chead), 2, "put_page_testzero(tail) drops the head's count");
	is_int(page_ref_raw(ctail), SENTINEL(5), "the tail's own counter is untouched");
	if (own) {
		put_page(ctail);
		put_page(ctail);
		is_int(folio_put_calls, 3, "put_page(tail) to 0 frees");
		ok(folio_put_last == (struct folio *)chead, "put_page(tail) frees the head's folio");
	}

	is_int(warns_since(), 0, "folio_get/folio_put used correctly: no warning");
	check_sentinels("mm helpers");
}

/* --- debug checks ------------------------------------------------------------ */

/*
 * A whole life of a page used correctly: allocation, references taken and
 * dropped in every form, a failed speculative get on a frozen page, a
 * freeze and unfreeze (migration), the last put.  No check may fire.
 */
static void test_silent_sequence(void)
{
	bool own = own_folio_put();

	reset_pages();
	warn_mark();

	set_page_count_frozen(&f->page);		/* a free page */
	ok(!folio_try_get(f), "sequence: speculative get of the free page fails");
	folio_init_count(f);				/* allocated */
	folio_get(f);
	ok(folio_try_get(f), "sequence: speculative get of the owned page");
	folio_ref_add(f, 4);
	folio_ref_sub(f, 2);
	folio_ref_inc(f);
	folio_ref_dec(f);
	page_ref_inc_return(&f->page);
	page_ref_dec_return(&f->page);
	folio_ref_sub_return(f, 1);
	ok(!folio_ref_sub_and_test(f, 1), "sequence: sub_and_test above zero");
	ok(folio_ref_try_add(f, 3), "sequence: try-add");
	folio_put_refs(f, 4);
	is_int(folio_ref_count(f), 2, "sequence: count 2 before the freeze");
	ok(folio_ref_freeze(f, 2), "sequence: freeze at the expected count");
	ok(!get_page_unless_zero(&f->page), "sequence: get of the frozen page fails");
	ok(!folio_ref_try_add(f, 2), "sequence: try-add of the frozen page fails");
	folio_ref_unfreeze(f, 2);
	put_page(&f->page);
	if (own)
		folio_put(f);				/* the last put frees */
	else
		ok(folio_ref_dec_and_test(f), "sequence: last put");
	is_int(page_ref_count(&f->page), 0, "sequence: count 0 at the end");
	is_int(folio_put_calls, own ? 1 : 0, "sequence: freed once");
	is_int(warns_since(), 0, "a whole sequence of correct uses: no warning");
	check_sentinels("silent sequence");
}

enum misuse {
	M_ADD, M_SUB, M_INC, M_DEC,
	M_FOLIO_ADD, M_FOLIO_SUB, M_FOLIO_INC, M_FOLIO_DEC,
	M_INC_RETURN, M_DEC_RETURN, M_SUB_RETURN,
	M_FOLIO_INC_RETURN, M_FOLIO_DEC_RETURN, M_FOLIO_SUB_RETURN,
	M_DEC_AND_TEST, M_SUB_AND_TEST, M_FOLIO_DEC_AND_TEST, M_FOLIO_SUB_AND_TEST,
	NR_MISUSE,
};

static const struct { const char *name; int delta; } misuse_info[NR_MISUSE] = {
	[M_ADD]			= { "page_ref_add(2)",		 2 },
	[M_SUB]			= { "page_ref_sub(2)",		-2 },
	[M_INC]			= { "page_ref_inc",		 1 },
	[M_DEC]			= { "page_ref_dec",		-1 },
	[M_FOLIO_ADD]		= { "folio_ref_add(3)",		 3 },
	[M_FOLIO_SUB]		= { "folio_ref_sub(3)",		-3 },
	[M_FOLIO_INC]		= { "folio_ref_inc",		 1 },
	[M_FOLIO_DEC]		= { "folio_ref_dec",		-1 },
	[M_INC_RETURN]		= { "page_ref_inc_return",	 1 },
	[M_DEC_RETURN]		= { "page_ref_dec_return",	-1 },
	[M_SUB_RETURN]		= { "page_ref_sub_return(2)",	-2 },
	[M_FOLIO_INC_RETURN]	= { "folio_ref_inc_return",	 1 },
	[M_FOLIO_DEC_RETURN]	= { "folio_ref_dec_return",	-1 },
	[M_FOLIO_SUB_RETURN]	= { "folio_ref_sub_return(2)",	-2 },
	[M_DEC_AND_TEST]	= { "page_ref_dec_and_test",	-1 },
	[M_SUB_AND_TEST]	= { "page_ref_sub_and_test(2)",	-2 },
	[M_FOLIO_DEC_AND_TEST]	= { "folio_ref_dec_and_test",	-1 },
	[M_FOLIO_SUB_AND_TEST]	= { "folio_ref_sub_and_test(2)", -2 },
};

/* Does one misuse on the (frozen) folio; returns what it returned, or 0. */
static long long do_misuse(enum misuse m)
{
	struct page *page = &f->page;

	switch (m) {
	case M_ADD:		page_ref_add(page, 2); return 0;
	case M_SUB:		page_ref_sub(page, 2); return 0;
	case M_INC:		page_ref_inc(page); return 0;
	case M_DEC:		page_ref_dec(page); return 0;
	case M_FOLIO_ADD:	folio_ref_add(f, 3); return 0;
	case M_FOLIO_SUB:	folio_ref_sub(f, 3); return 0;
	case M_FOLIO_INC:	folio_ref_inc(f); return 0;
	case M_FOLIO_DEC:	folio_ref_dec(f); return 0;
	case M_INC_RETURN:	return page_ref_inc_return(page);
	case M_DEC_RETURN:	return page_ref_dec_return(page);
	case M_SUB_RETURN:	return page_ref_sub_return(page, 2);
	case M_FOLIO_INC_RETURN: return folio_ref_inc_return(f);
	case M_FOLIO_DEC_RETURN: return folio_ref_dec_return(f);
	case M_FOLIO_SUB_RETURN: return folio_ref_sub_return(f, 2);
	case M_DEC_AND_TEST:	return page_ref_dec_and_test(page);
	case M_SUB_AND_TEST:	return page_ref_sub_and_test(page, 2);
	case M_FOLIO_DEC_AND_TEST: return folio_ref_dec_and_test(f);
	case M_FOLIO_SUB_AND_TEST: return folio_ref_sub_and_test(f, 2);
	case NR_MISUSE:		break;
	}
	return 0;
}

static void test_misuse_warnings(void)
{
	reset_pages();

	for (int m = 0; m < NR_MISUSE; m++) {
		const char *name = misuse_info[m].name;
		int want_raw = raw_plus(FROZEN_RAW, misuse_info[m].delta);
		long long ret;

		/* twice: the first fire prints (once per site), both count */
		for (int round = 1; round <= 2; round++) {
			set_page_count_frozen(&f->page);
			warn_mark();
			ret = do_misuse(m);
			is_int(warns_since(), WARNS(1), "%s of a frozen page warns (%s time)",
			       name, round == 1 ? "first" : "second");
		}
		/* the operation itself still happens, as in the kernel */
		is_int(page_ref_raw(&f->page), want_raw, "%s of a frozen page: raw after", name);
		if (m >= M_INC_RETURN && m <= M_FOLIO_SUB_RETURN)
			is_int(ret, want_raw, "%s of a frozen page: returns the raw result", name);
		if (m >= M_DEC_AND_TEST)
			ok(!ret, "%s of a frozen page does not report zero", name);
	}

	/* unfreeze of a page that is not frozen; unfreeze to 0 */
	set_page_count(&f->page, 2);
	warn_mark();
	page_ref_unfreeze(&f->page, 3);
	is_int(warns_since(), WARNS(1), "page_ref_unfreeze of an unfrozen page warns");
	is_int(page_ref_raw(&f->page), 3, "page_ref_unfreeze of an unfrozen page: stored");
	set_page_count(&f->page, 2);
	warn_mark();
	folio_ref_unfreeze(f, 1);
	is_int(warns_since(), WARNS(1), "folio_ref_unfreeze of an unfrozen folio warns");
	set_page_count_frozen(&f->page);
	warn_mark();
	page_ref_unfreeze(&f->page, 0);
	is_int(warns_since(), WARNS(1), "page_ref_unfreeze to count 0 warns");
	is_int(page_ref_raw(&f->page), 0, "page_ref_unfreeze to 0: raw 0");
	/* both checks at once: not frozen and count 0 */
	set_page_count(&f->page, 4);
	warn_mark();
	page_ref_unfreeze(&f->page, 0);
	is_int(warns_since(), WARNS(2), "unfreeze of an unfrozen page to 0 fires both checks");

	/* mm.h: get and put of a frozen folio fire their own check too */
	set_page_count_frozen(&f->page);
	warn_mark();
	folio_get(f);
	is_int(warns_since(), WARNS(2), "folio_get of a frozen folio: folio_get's and folio_ref_inc's checks");
	set_page_count_frozen(&f->page);
	warn_mark();
	ok(!folio_put_testzero(f), "folio_put_testzero of a frozen folio is false");
	is_int(warns_since(), WARNS(2), "folio_put_testzero of a frozen folio: both checks fire");
	set_page_count_frozen(&f->page);
	warn_mark();
	folio_put(f);
	is_int(warns_since(), WARNS(2), "folio_put of a frozen folio warns");
	is_int(folio_put_calls, 0, "folio_put of a frozen folio does not free");

	/* the checks look at the state, not at the operation: owned pages are quiet */
	set_page_count(&f->page, 5);
	warn_mark();
	for (int m = 0; m < NR_MISUSE; m++) {
		set_page_count(&f->page, 5);
		do_misuse(m);
	}
	is_int(warns_since(), 0, "the same operations on an owned page: no warning");
	check_sentinels("misuse");
}

int main(void)
{
	plan_no_plan();
	vm_warn_quiet = true;

	test_design();
	test_count_basics();
	test_modify_owned();
	test_and_test();
	test_freeze();
	test_try_get();
	test_guess();
	test_undo_loop();
	test_mm_helpers();
	test_silent_sequence();
	test_misuse_warnings();

	return done_testing();
}
