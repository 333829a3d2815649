// SPDX-License-Identifier: GPL-2.0
/*
 * The interleaving checker's weak-memory mode (include/machine/checker.h,
 * "Weak memory") on the shims' orderings and on the refcount protocol,
 * every design.  For each ordering the correct code passes in every
 * schedule and every choice of values its loads may read, and the same
 * code with that ordering weakened is caught:
 *
 *  litmus tests of the shims: message passing needs the release store and
 *    the acquire load (each weakened to relaxed is caught); store buffering
 *    needs smp_mb() on both sides; a relaxed RMW orders nothing;
 *  release: what a freezer wrote while the folio was frozen is seen by a
 *    reader whose folio_try_get() succeeds after page_ref_unfreeze() (an
 *    unfreeze by a relaxed atomic_set is caught);
 *  acquire: ... only because the successful try-get orders the reader's
 *    later loads (a relaxed try-get is caught);
 *  fully ordered: whoever's folio_ref_dec_and_test() returns true sees what
 *    every other holder wrote before its put (a relaxed, a release-only and
 *    an acquire-only decrement are each caught);
 *  the migration-entry count (mgt-entry, mgt-counter: linux/migrate.h): a
 *    restore that reads the count 0 (folio_migration_entries_remain(),
 *    acquire) and stops, so that the migration frees the source, sees what
 *    every process that dropped an entry (folio_migration_entries_add(-1),
 *    release) did before: the count replaces the PTE lock of every VMA that
 *    vanilla's walk takes.  A relaxed add and a relaxed read are each caught;
 *  the spinlock (linux/spinlock.h, every lock of the model): a critical
 *    section sees the one before it (the unlock's release store, the
 *    trylock's acquire exchange: each weakened to relaxed is caught, as a
 *    lost update of a counter both sections increment);
 *  the folio lock (linux/pagemap.h): the same for folio_trylock() (an
 *    acquire test_and_set_bit_lock()) and folio_unlock() (the release xor
 *    that also reports PG_waiters);
 *  PG_uptodate (linux/page-flags.h): what was written into a folio before
 *    folio_mark_uptodate() (release; the kernel's smp_wmb() before the
 *    set_bit()) is seen by a reader whose folio_test_uptodate() saw the
 *    flag (acquire; the kernel's smp_rmb() after the test_bit()): a relaxed
 *    mark and a relaxed test are each caught.
 *
 * The scenario's own data is a pair of atomic_t written with atomic_set()
 * and read with atomic_read() (relaxed, so only the orderings under test
 * order them).
 */
#include <string.h>

#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/page-flags.h>
#include <linux/page_ref.h>
#include <linux/pagemap.h>
#include <linux/spinlock.h>
#include <machine/checker.h>

#include "tap.h"

static atomic_t data, data2, flag, x, y;
static int r0, r1;

static struct folio folios[1];
#define FOLIO	(&folios[0])
#define PAGE	(&folios[0].page)

static struct {
	bool froze;		/* the freezer's freeze succeeded */
	bool got_after;		/* the reader's try-get succeeded after the freeze */
	int seen;		/* what the reader read of the frozen owner's write */
	int freed_sees;		/* what the destructor read: one bit per holder's write */
	int frees;
} M;

static void reset(void *arg)
{
	atomic_set(&data, 0);
	atomic_set(&data2, 0);
	atomic_set(&flag, 0);
	atomic_set(&x, 0);
	atomic_set(&y, 0);
	r0 = r1 = -1;
	memset(&M, 0, sizeof(M));
}

/* --- litmus: message passing ---------------------------------------------------- */

static void mp_writer(void *arg)
{
	atomic_set(&data, 1);
	atomic_set_release(&flag, 1);
}

static void mp_writer_relaxed(void *arg)
{
	atomic_set(&data, 1);
	atomic_set(&flag, 1);
}

static void mp_reader(void *arg)
{
	if (atomic_read_acquire(&flag))
		r0 = atomic_read(&data);
}

static void mp_reader_relaxed(void *arg)
{
	if (atomic_read(&flag))
		r0 = atomic_read(&data);
}

/* The writer's barrier pairs with the reader's: smp_wmb() / smp_rmb(). */
static void mp_writer_wmb(void *arg)
{
	atomic_set(&data, 1);
	smp_wmb();
	atomic_set(&flag, 1);
}

static void mp_reader_rmb(void *arg)
{
	if (atomic_read(&flag)) {
		smp_rmb();
		r0 = atomic_read(&data);
	}
}

static bool mp_ok(void *arg, char *why, size_t len)
{
	if (r0 == 0) {
		snprintf(why, len, "the reader saw the flag but not the data");
		return false;
	}
	return true;
}

/* --- litmus: store buffering ----------------------------------------------------- */

static void sb_t0_mb(void *arg)
{
	atomic_set(&x, 1);
	smp_mb();
	r0 = atomic_read(&y);
}

static void sb_t1_mb(void *arg)
{
	atomic_set(&y, 1);
	smp_mb();
	r1 = atomic_read(&x);
}

static void sb_t1_nomb(void *arg)
{
	atomic_set(&y, 1);
	r1 = atomic_read(&x);
}

/* A relaxed RMW is no barrier: the store buffering outcome stays possible. */
static void sb_t1_relaxed_rmw(void *arg)
{
	atomic_set(&y, 1);
	atomic_fetch_add_relaxed(0, &flag);
	r1 = atomic_read(&x);
}

/* ... a fully ordered one is (atomic_add_return). */
static void sb_t1_full_rmw(void *arg)
{
	atomic_set(&y, 1);
	atomic_add_return(0, &flag);
	r1 = atomic_read(&x);
}

static bool sb_ok(void *arg, char *why, size_t len)
{
	if (r0 == 0 && r1 == 0) {
		snprintf(why, len, "both threads read the other's variable as 0");
		return false;
	}
	return true;
}

/* --- the refcount protocol: release and acquire ------------------------------------- */

static void frozen_setup(void *arg)
{
	reset(arg);
	atomic_set(&PAGE->_refcount, 1);
}

/* Migration's shape: freeze at the expected count, change the folio, unfreeze. */
static void freezer(void *arg)
{
	if (!folio_ref_freeze(FOLIO, 1))
		return;
	M.froze = true;
	atomic_set(&data, 1);
	folio_ref_unfreeze(FOLIO, 1);
}

/* The same, with the unfreeze's release store weakened to a relaxed one. */
static void freezer_relaxed(void *arg)
{
	if (!folio_ref_freeze(FOLIO, 1))
		return;
	M.froze = true;
	atomic_set(&data, 1);
	atomic_set(&PAGE->_refcount, 1);
}

static void getter(void *arg)
{
	if (!folio_try_get(FOLIO))
		return;
	M.got_after = M.froze;	/* in the get's step: frozen, it could only fail */
	M.seen = atomic_read(&data);
	page_ref_dec(PAGE);
}

/* folio_try_get() with its ordering weakened to relaxed, in this design's encoding. */
static bool try_get_relaxed(void)
{
#ifdef CONFIG_REFCOUNT_FROZEN_BIT
	return !(atomic_add_return_relaxed(1, &PAGE->_refcount) & PAGEREF_FROZEN_BIT);
#else
	int old = atomic_read(&PAGE->_refcount);

	do {
		if (!old)
			return false;
	} while (!atomic_try_cmpxchg_relaxed(&PAGE->_refcount, &old, old + 1));
	return true;
#endif
}

static void getter_relaxed(void *arg)
{
	if (!try_get_relaxed())
		return;
	M.got_after = M.froze;	/* in the get's step: frozen, it could only fail */
	M.seen = atomic_read(&data);
	page_ref_dec(PAGE);
}

static bool unfreeze_published(void *arg, char *why, size_t len)
{
	if (M.got_after && M.seen != 1) {
		snprintf(why, len, "a get after the unfreeze did not see what the freezer wrote");
		return false;
	}
	return true;
}

/* --- the refcount protocol: fully ordered puts --------------------------------------- */

static void two_holders(void *arg)
{
	reset(arg);
	atomic_set(&PAGE->_refcount, 2);
}

/* The destructor: it must see every holder's writes. */
static void destroy(void)
{
	M.frees++;
	M.freed_sees = atomic_read(&data) | atomic_read(&data2) << 1;
}

static atomic_t *my_data(void)
{
	return checker_self() ? &data2 : &data;
}

static void holder(void *arg)
{
	atomic_set(my_data(), 1);
	if (folio_ref_dec_and_test(FOLIO))
		destroy();
}

static void holder_relaxed(void *arg)
{
	atomic_set(my_data(), 1);
	if (atomic_fetch_add_relaxed(-1, &PAGE->_refcount) == 1)
		destroy();
}

static void holder_release(void *arg)
{
	atomic_set(my_data(), 1);
	if (atomic_fetch_add_release(-1, &PAGE->_refcount) == 1)
		destroy();
}

static void holder_acquire(void *arg)
{
	atomic_set(my_data(), 1);
	if (atomic_fetch_add_acquire(-1, &PAGE->_refcount) == 1)
		destroy();
}

static bool put_ordered(void *arg, char *why, size_t len)
{
	if (M.frees != 1) {
		snprintf(why, len, "freed %d times", M.frees);
		return false;
	}
	if (M.freed_sees != 3) {
		snprintf(why, len, "the destructor missed a holder's write (saw %#x)", M.freed_sees);
		return false;
	}
	return true;
}

/* --- the spinlock ----------------------------------------------------------------------- */

static spinlock_t lock;

static void lock_setup(void *arg)
{
	reset(arg);
	spin_lock_init(&lock);
}

/* A read-modify-write of the scenario's data by relaxed accesses: only the lock orders it. */
static void section(void)
{
	int v = atomic_read(&data);

	atomic_set(&data, v + 1);
	if (checker_self())
		r1 = v;
	else
		r0 = v;
}

/*
 * spin_lock()'s slow path polls the word with a relaxed read before its
 * exchange; this model has no eventual visibility, so a poll may read the
 * stale "locked" forever once the holder is gone (a deadlock report, not a
 * bug).  The lock is therefore taken by spin_trylock() in a loop: the same
 * acquire exchange both of spin_lock()'s paths end with, and a failed one
 * reads the latest value.
 */
static void take_lock(void)
{
	while (!spin_trylock(&lock))
		cpu_relax();
}

static void locker(void *arg)
{
	take_lock();
	section();
	spin_unlock(&lock);
}

/* spin_lock() with the acquire of its exchange weakened to relaxed. */
static void locker_relaxed_lock(void *arg)
{
	int unlocked;

	for (;;) {
		unlocked = 0;
		if (atomic_try_cmpxchg_relaxed(&lock.locked, &unlocked, 1))
			break;
		cpu_relax();
	}
	section();
	spin_unlock(&lock);
}

/* spin_unlock() as a relaxed store. */
static void locker_relaxed_unlock(void *arg)
{
	take_lock();
	section();
	atomic_set(&lock.locked, 0);
}

static bool sections_ordered(void *arg, char *why, size_t len)
{
	if (!((r0 == 0 && r1 == 1) || (r0 == 1 && r1 == 0))) {
		snprintf(why, len, "the critical sections read %d and %d: an update was lost", r0, r1);
		return false;
	}
	return true;
}

/* --- the folio lock ---------------------------------------------------------------------- */

/*
 *	L0: folio_trylock (loop) ; data = data + 1 ; folio_unlock
 *	L1: folio_trylock (loop) ; data = data + 1 ; folio_unlock
 * Each section must read the other's increment or none: 0 and 1, in some order.
 */
static struct folio lfolios[1];
#define LFOLIO	(&lfolios[0])

static void folio_lock_setup(void *arg)
{
	reset(arg);
	LFOLIO->flags = 0;
}

/* As take_lock(): folio_lock()'s sleeping path polls, which this model may starve. */
static void take_folio_lock(void)
{
	while (!folio_trylock(LFOLIO))
		cpu_relax();
}

static void folio_locker(void *arg)
{
	take_folio_lock();
	section();
	folio_unlock(LFOLIO);
}

/* folio_trylock() with test_and_set_bit_lock()'s acquire weakened to relaxed. */
static void folio_locker_relaxed_lock(void *arg)
{
	for (;;) {
		__atomic_step();
		if (!((__shim_fetch_or(&LFOLIO->flags, BIT(PG_locked), __ATOMIC_RELAXED) >>
		       PG_locked) & 1))
			break;
		cpu_relax();
	}
	section();
	folio_unlock(LFOLIO);
}

/* folio_unlock() with its xor's release weakened to relaxed. */
static void folio_locker_relaxed_unlock(void *arg)
{
	take_folio_lock();
	section();
	__atomic_step();
	(void)__shim_fetch_xor(&LFOLIO->flags, BIT(PG_locked), __ATOMIC_RELAXED);
}

/* --- PG_uptodate ------------------------------------------------------------------------- */

/*
 *	W: data = 1 (the folio's contents) ; folio_mark_uptodate
 *	R: if folio_test_uptodate: r0 = data
 * A reader that sees the flag must read 1.
 */
static struct folio ufolios[1];
#define UFOLIO	(&ufolios[0])

static void uptodate_setup(void *arg)
{
	reset(arg);
	UFOLIO->flags = 0;
}

static void filler(void *arg)
{
	atomic_set(&data, 1);
	folio_mark_uptodate(UFOLIO);
}

/* folio_mark_uptodate() without its release (the kernel's smp_wmb() left out). */
static void filler_relaxed(void *arg)
{
	atomic_set(&data, 1);
	set_bit(PG_uptodate, &UFOLIO->flags);
}

static void uptodate_reader(void *arg)
{
	checker_sched_point();
	if (folio_test_uptodate(UFOLIO))
		r0 = atomic_read(&data);
}

/* folio_test_uptodate() without its acquire (the kernel's smp_rmb() left out). */
static void uptodate_reader_relaxed(void *arg)
{
	checker_sched_point();
	if (test_bit(PG_uptodate, &UFOLIO->flags))
		r0 = atomic_read(&data);
}

static unsigned long uptodate_seen;	/* executions in which the reader saw the flag */

static bool uptodate_ok(void *arg, char *why, size_t len)
{
	uptodate_seen += r0 != -1;
	return mp_ok(arg, why, len);
}

/* --- the migration-entry count (seed 003's designs) ---------------------------------- */

#if defined(CONFIG_MGT_COUNTER) || defined(CONFIG_MGT_ENTRY)
#define MIGRATION_COUNT
/*
 * The source folio of a migration, unmapped, with two migration entries
 * naming it: the migrating process's own (restored by the restore walk) and
 * another process's (zapped by its exit or munmap, under its PTE lock only).
 * The restore walk stops when the count reads 0, without taking the
 * zapper's PTE lock, and the migration then frees the source.
 *
 * What the zapper does to the folio before it drops its entry is a read
 * (zap_nonpresent_ptes(): mm_counter(folio)), and the free writes the
 * folio: a read-then-write order, which this model's views never break (a
 * load cannot read a store made after it in the interleaving).  The
 * scenario's zapper writes instead, the access the model can see: the same
 * release/acquire edge is what orders both in C11, and without it the
 * restorer's read of the zapper's write is stale.
 */
static struct folio mfolios[1];
#define MFOLIO	(&mfolios[0])

static atomic_t *mig_count(void)
{
#ifdef CONFIG_MGT_COUNTER
	return folio_migration_entries(MFOLIO);
#else
	return &MFOLIO->_mapcount;
#endif
}

static void two_entries(void *arg)
{
	reset(arg);
#ifdef CONFIG_MGT_COUNTER
	atomic_set(mig_count(), 2);
#else
	/* what try_to_migrate_exit() sets once the walk has unmapped the folio */
	atomic_set(mig_count(), (int)((unsigned int)PGTY_mgt_entry << PAGE_TYPE_SHIFT | 2));
#endif
}

/* remove_migration_ptes(): restore our entry, then ask whether any is left. */
static void restorer(void *arg)
{
	folio_migration_entries_add(MFOLIO, -1);	/* remove_migration_pte() */
	if (!folio_migration_entries_remain(MFOLIO)) {
		M.froze = true;				/* stopped early: the source is freed */
		M.seen = atomic_read(&data);
	}
}

/* ... with folio_migration_entries_remain()'s acquire weakened to relaxed. */
static bool remain_relaxed(void)
{
	unsigned int t = (unsigned int)atomic_read(mig_count());

#ifdef CONFIG_MGT_COUNTER
	return (int)t > 0;
#else
	return t >> PAGE_TYPE_SHIFT != PGTY_mgt_entry || (t & PAGE_TYPE_VALUE_MASK);
#endif
}

static void restorer_relaxed(void *arg)
{
	folio_migration_entries_add(MFOLIO, -1);
	if (!remain_relaxed()) {
		M.froze = true;
		M.seen = atomic_read(&data);
	}
}

/* zap_nonpresent_ptes(): done with the folio, drop the entry (release). */
static void zapper(void *arg)
{
	atomic_set(&data, 1);
	folio_migration_entries_add(MFOLIO, -1);
}

/* ... with the add's release weakened to relaxed. */
static void zapper_relaxed(void *arg)
{
	atomic_set(&data, 1);
	atomic_fetch_add_relaxed(-1, mig_count());
}

static unsigned long early_stops;	/* executions in which the restore stopped at 0 */

static bool stop_sees_zap(void *arg, char *why, size_t len)
{
	early_stops += M.froze;
	if (M.froze && M.seen != 1) {
		snprintf(why, len, "the restore stopped at 0 without seeing what the zapper did");
		return false;
	}
	return true;
}
#endif

/* --- running them --------------------------------------------------------------------- */

#define WEAK(...)	{ .weak_memory = true, .setup = reset, __VA_ARGS__ }

static const struct checker_scenario litmus_ok[] = {
	WEAK(.name = "MP: release store, acquire load", .nthreads = 2,
	     .thread = { mp_writer, mp_reader }, .final = mp_ok),
	WEAK(.name = "MP: smp_wmb, smp_rmb", .nthreads = 2,
	     .thread = { mp_writer_wmb, mp_reader_rmb }, .final = mp_ok),
	WEAK(.name = "SB: smp_mb on both sides", .nthreads = 2,
	     .thread = { sb_t0_mb, sb_t1_mb }, .final = sb_ok),
	WEAK(.name = "SB: smp_mb, and a fully ordered RMW", .nthreads = 2,
	     .thread = { sb_t0_mb, sb_t1_full_rmw }, .final = sb_ok),
};

static const struct checker_scenario litmus_bad[] = {
	WEAK(.name = "MP: the release store weakened to relaxed", .nthreads = 2,
	     .thread = { mp_writer_relaxed, mp_reader }, .final = mp_ok),
	WEAK(.name = "MP: the acquire load weakened to relaxed", .nthreads = 2,
	     .thread = { mp_writer, mp_reader_relaxed }, .final = mp_ok),
	WEAK(.name = "MP: smp_rmb left out", .nthreads = 2,
	     .thread = { mp_writer_wmb, mp_reader_relaxed }, .final = mp_ok),
	WEAK(.name = "SB: one smp_mb left out", .nthreads = 2,
	     .thread = { sb_t0_mb, sb_t1_nomb }, .final = sb_ok),
	WEAK(.name = "SB: smp_mb against a relaxed RMW", .nthreads = 2,
	     .thread = { sb_t0_mb, sb_t1_relaxed_rmw }, .final = sb_ok),
};

#define REF(...)	{ .weak_memory = true, __VA_ARGS__ }

static const struct checker_scenario ref_ok[] = {
	REF(.name = "freeze+unfreeze(release) vs folio_try_get", .nthreads = 2,
	    .thread = { freezer, getter }, .setup = frozen_setup, .final = unfreeze_published),
	REF(.name = "two holders' folio_ref_dec_and_test (fully ordered)", .nthreads = 2,
	    .thread = { holder, holder }, .setup = two_holders, .final = put_ordered),
};

static const struct checker_scenario ref_bad[] = {
	REF(.name = "release: page_ref_unfreeze as a relaxed store", .nthreads = 2,
	    .thread = { freezer_relaxed, getter }, .setup = frozen_setup,
	    .final = unfreeze_published),
	REF(.name = "acquire: folio_try_get relaxed", .nthreads = 2,
	    .thread = { freezer, getter_relaxed }, .setup = frozen_setup,
	    .final = unfreeze_published),
	REF(.name = "fully ordered: the put's decrement relaxed", .nthreads = 2,
	    .thread = { holder_relaxed, holder_relaxed }, .setup = two_holders,
	    .final = put_ordered),
	REF(.name = "fully ordered: the put's decrement release only", .nthreads = 2,
	    .thread = { holder_release, holder_release }, .setup = two_holders,
	    .final = put_ordered),
	REF(.name = "fully ordered: the put's decrement acquire only", .nthreads = 2,
	    .thread = { holder_acquire, holder_acquire }, .setup = two_holders,
	    .final = put_ordered),
};

static const struct checker_scenario lock_ok[] = {
	REF(.name = "spinlock: two critical sections", .nthreads = 2,
	    .thread = { locker, locker }, .setup = lock_setup, .final = sections_ordered),
};

static const struct checker_scenario lock_bad[] = {
	REF(.name = "spinlock: the lock's exchange relaxed", .nthreads = 2,
	    .thread = { locker_relaxed_lock, locker_relaxed_lock }, .setup = lock_setup,
	    .final = sections_ordered),
	REF(.name = "spinlock: the unlock a relaxed store", .nthreads = 2,
	    .thread = { locker_relaxed_unlock, locker_relaxed_unlock }, .setup = lock_setup,
	    .final = sections_ordered),
};

static const struct checker_scenario folio_lock_ok[] = {
	REF(.name = "folio lock: two critical sections", .nthreads = 2,
	    .thread = { folio_locker, folio_locker }, .setup = folio_lock_setup,
	    .final = sections_ordered),
};

static const struct checker_scenario folio_lock_bad[] = {
	REF(.name = "folio lock: folio_trylock relaxed", .nthreads = 2,
	    .thread = { folio_locker_relaxed_lock, folio_locker_relaxed_lock },
	    .setup = folio_lock_setup, .final = sections_ordered),
	REF(.name = "folio lock: folio_unlock's xor relaxed", .nthreads = 2,
	    .thread = { folio_locker_relaxed_unlock, folio_locker_relaxed_unlock },
	    .setup = folio_lock_setup, .final = sections_ordered),
};

static const struct checker_scenario uptodate_ok_sc[] = {
	REF(.name = "uptodate: folio_mark_uptodate vs folio_test_uptodate", .nthreads = 2,
	    .thread = { filler, uptodate_reader }, .setup = uptodate_setup, .final = uptodate_ok),
};

static const struct checker_scenario uptodate_bad[] = {
	REF(.name = "uptodate: the mark relaxed (no smp_wmb)", .nthreads = 2,
	    .thread = { filler_relaxed, uptodate_reader }, .setup = uptodate_setup,
	    .final = uptodate_ok),
	REF(.name = "uptodate: the test relaxed (no smp_rmb)", .nthreads = 2,
	    .thread = { filler, uptodate_reader_relaxed }, .setup = uptodate_setup,
	    .final = uptodate_ok),
};

#ifdef MIGRATION_COUNT
static const struct checker_scenario mig_ok[] = {
	REF(.name = "migration count: restore (add -1, remain) vs zap (add -1)", .nthreads = 2,
	    .thread = { restorer, zapper }, .setup = two_entries, .final = stop_sees_zap),
};

static const struct checker_scenario mig_bad[] = {
	REF(.name = "migration count: the zap's add relaxed", .nthreads = 2,
	    .thread = { restorer, zapper_relaxed }, .setup = two_entries,
	    .final = stop_sees_zap),
	REF(.name = "migration count: the restore's remain relaxed", .nthreads = 2,
	    .thread = { restorer_relaxed, zapper }, .setup = two_entries,
	    .final = stop_sees_zap),
};
#endif

static struct checker_result res;

static void expect(const struct checker_scenario *sc, enum checker_status want)
{
	checker_explore(sc, &res);
	diag("%s: %s, %lu executions (longest %d decisions)%s%s", sc->name,
	     checker_status_name(res.status), res.executions, res.longest,
	     res.status ? ": " : "", res.message);
	if (!ok(res.status == want, "%s [%s]: %s", sc->name, MM_KERNEL_NAME,
		want == CHECKER_OK ? "passes in every execution" : "caught"))
		diag_trace(res.trace);
	else if (want != CHECKER_OK)
		diag_trace(res.trace);
}

/* The same scenarios, sequentially consistent: the weakened forms pass there. */
static void expect_sc_blind(const struct checker_scenario *sc)
{
	struct checker_scenario seq = *sc;

	seq.weak_memory = false;
	checker_explore(&seq, &res);
	ok(res.status == CHECKER_OK, "%s: passes without the weak-memory mode (%lu schedules)",
	   sc->name, res.executions);
}

int main(void)
{
	plan_no_plan();
	vm_warn_quiet = true;
	diag("the checker's weak-memory mode, design %s", MM_KERNEL_NAME);
	for (size_t i = 0; i < ARRAY_SIZE(litmus_ok); i++)
		expect(&litmus_ok[i], CHECKER_OK);
	for (size_t i = 0; i < ARRAY_SIZE(litmus_bad); i++) {
		expect(&litmus_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&litmus_bad[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ref_ok); i++)
		expect(&ref_ok[i], CHECKER_OK);
	for (size_t i = 0; i < ARRAY_SIZE(ref_bad); i++) {
		expect(&ref_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&ref_bad[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(lock_ok); i++)
		expect(&lock_ok[i], CHECKER_OK);
	for (size_t i = 0; i < ARRAY_SIZE(lock_bad); i++) {
		expect(&lock_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&lock_bad[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(folio_lock_ok); i++)
		expect(&folio_lock_ok[i], CHECKER_OK);
	for (size_t i = 0; i < ARRAY_SIZE(folio_lock_bad); i++) {
		expect(&folio_lock_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&folio_lock_bad[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(uptodate_ok_sc); i++) {
		uptodate_seen = 0;
		expect(&uptodate_ok_sc[i], CHECKER_OK);
		ok(uptodate_seen > 0, "%s: the reader sees the flag (%lu executions)",
		   uptodate_ok_sc[i].name, uptodate_seen);
	}
	for (size_t i = 0; i < ARRAY_SIZE(uptodate_bad); i++) {
		expect(&uptodate_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&uptodate_bad[i]);
	}
#ifdef MIGRATION_COUNT
#ifdef CONFIG_MGT_COUNTER
	mem_map = &MFOLIO->page;	/* the count lives in page_ext, at the folio's pfn (0) */
	if (!ok(page_ext_init(1) == 0, "page_ext for one folio"))
		return done_testing();
#endif
	for (size_t i = 0; i < ARRAY_SIZE(mig_ok); i++) {
		early_stops = 0;
		expect(&mig_ok[i], CHECKER_OK);
		ok(early_stops > 0, "%s: the restore stops at 0 (%lu executions)", mig_ok[i].name,
		   early_stops);
	}
	for (size_t i = 0; i < ARRAY_SIZE(mig_bad); i++) {
		expect(&mig_bad[i], CHECKER_VIOLATION);
		expect_sc_blind(&mig_bad[i]);
	}
#endif
	is_int(vm_warn_count, 0, "no VM_WARN fired");
	return done_testing();
}
