// SPDX-License-Identifier: GPL-2.0
/*
 * The folio lock's sleeping path under the interleaving checker: the real
 * folio_lock() (trylock, then folio_wait_bit_common(): the hashed wait
 * queue's lock, PG_waiters, the last try, the queue, the sleep) and
 * folio_unlock() (the xor that reports PG_waiters, folio_wake_bit() and its
 * hand-off), on two or three CPUs that each take the lock.  Every spinlock
 * operation, every load of a waiter's flags and every store of them is a
 * step; a waiter's sleep is a wait for another CPU's step.
 *
 * What must hold in every explored schedule:
 *  - at most one CPU is inside the lock;
 *  - no wake-up is lost: a CPU asleep while nobody holds the lock and no
 *    other CPU can run is a deadlock, which the checker reports;
 *  - at the end the lock is free, nobody is queued, and PG_waiters is clear
 *    unless a non-exclusive waiter set it and found the lock free.
 * With sysctl_page_lock_unfairness 0 every waiter asks for a hand-off at
 * once, so the waker's test_and_set_bit on the waiter's behalf is explored
 * too.  A CPU in folio_wait_locked() (a non-exclusive waiter) must not
 * return while the lock stays held, and is woken with the exclusive ones.  The folio-lock-late-waiters mutant marks PG_waiters only once it
 * is queued, outside the queue's lock: the checker must find the lost
 * wake-up.
 *
 *   CPU0: lock ........ unlock          CPU1: lock (taken: queue, sleep) ... woken
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "mm_test.h"

#ifdef CONFIG_FILEMAP_MUTANT_LATE_WAITERS
#define LATE_WAITERS	1
#else
#define LATE_WAITERS	0
#endif

#define MAX_PREEMPT	3

static struct model {
	struct folio *folio;
	int inside;		/* CPUs between their folio_lock() and folio_unlock() */
	int taken;		/* lock acquisitions */
	int released;		/* ... and releases (counted as the holder leaves) */
	bool queued;		/* a waiter was queued in this execution */
	bool shared;		/* a folio_wait_locked() ran: it may leave PG_waiters set */
	bool was_locked;	/* PG_locked after the previous step */
	int unlocks;		/* steps after which PG_locked went from set to clear */
} M;

static unsigned long queued_schedules;

static void setup(void *arg)
{
	memset(&M, 0, sizeof(M));
	M.folio = (struct folio *)arg;
	/* A failed execution may have left them: every execution starts from the same state. */
	folio_clear_locked(M.folio);
	folio_clear_waiters(M.folio);
	sysctl_page_lock_unfairness = 5;
}

static void setup_handoff(void *arg)
{
	setup(arg);
	sysctl_page_lock_unfairness = 0;
}

static void critical(void)
{
	if (++M.inside != 1)
		checker_fail("CPU%d is inside the folio lock with %d others", checker_self(), M.inside - 1);
	M.taken++;
	checker_sched_point();	/* the lock is held across a step */
	M.inside--;
	M.released++;
}

static void locker(void *arg)
{
	checker_sched_point();	/* a thread's first step runs through its first point: not this one */
	folio_lock(M.folio);
	critical();
	folio_unlock(M.folio);
}

static void locker_twice(void *arg)
{
	locker(arg);
	locker(arg);
}

/* folio_wait_locked(): must not return while the lock stays held throughout. */
static void waiter(void *arg)
{
	int unlocks0;
	bool held0;

	checker_sched_point();
	M.shared = true;
	/*
	 * The unlock is a step of its own (folio_unlock()'s xor), after the
	 * holder has left its critical section: "held throughout" is told by
	 * the bit itself, whose every release the invariant counts.
	 */
	unlocks0 = M.unlocks;
	held0 = folio_test_locked(M.folio);
	folio_wait_locked(M.folio);
	if (held0 && folio_test_locked(M.folio) && M.unlocks == unlocks0)
		checker_fail("W returned from folio_wait_locked() while the lock stayed held");
}

static bool inv(void *arg, char *why, size_t len)
{
	bool locked = folio_test_locked(M.folio);

	if (M.was_locked && !locked)
		M.unlocks++;
	M.was_locked = locked;
	if (folio_wait_queued(M.folio))
		M.queued = true;
	return true;
}

static bool fin(void *arg, char *why, size_t len)
{
	struct folio *folio = M.folio;

	/*
	 * A shared waiter that finds the lock free after setting PG_waiters
	 * leaves it set with nobody queued, as in the kernel: the next unlock
	 * clears it.  Lockers alone always leave it clear.
	 */
	if (folio_test_locked(folio) || (folio_test_waiters(folio) && !M.shared) ||
	    folio_wait_queued(folio)) {
		snprintf(why, len, "at the end the folio is%s%s%s", folio_test_locked(folio) ? " locked" : "",
			 folio_test_waiters(folio) ? " marked PG_waiters" : "",
			 folio_wait_queued(folio) ? " with a waiter queued" : "");
		return false;
	}
	queued_schedules += M.queued;
	return true;
}

static void describe(void *arg, char *buf, size_t len)
{
	snprintf(buf, len, "locked %d  waiters %d  queued %d  inside %d", folio_test_locked(M.folio),
		 folio_test_waiters(M.folio), folio_wait_queued(M.folio), M.inside);
}

#define SCENARIO(...)	{ .setup = setup, .invariant = inv, .final = fin, .describe = describe, \
			  __VA_ARGS__ }

static struct checker_scenario sc_two = SCENARIO(
	.name = "a) two CPUs take the lock once", .nthreads = 2,
	.thread = { locker, locker }, .thread_name = { "C0", "C1" });
static struct checker_scenario sc_twice = SCENARIO(
	.name = "b) two CPUs take the lock twice", .nthreads = 2,
	.thread = { locker_twice, locker_twice }, .thread_name = { "C0", "C1" },
	.bound_preemptions = true, .max_preemptions = MAX_PREEMPT);
static struct checker_scenario sc_three = SCENARIO(
	.name = "c) three CPUs take the lock once", .nthreads = 3,
	.thread = { locker, locker, locker }, .thread_name = { "C0", "C1", "C2" },
	.bound_preemptions = true, .max_preemptions = MAX_PREEMPT);
static struct checker_scenario sc_handoff = {
	.name = "d) two CPUs take the lock twice, every waiter asking for a hand-off",
	.setup = setup_handoff, .invariant = inv, .final = fin, .describe = describe, .nthreads = 2,
	.thread = { locker_twice, locker_twice }, .thread_name = { "C0", "C1" },
	.bound_preemptions = true, .max_preemptions = MAX_PREEMPT };

static struct checker_scenario sc_shared = SCENARIO(
	.name = "e) a CPU takes the lock twice, another waits for it to be released", .nthreads = 2,
	.thread = { locker_twice, waiter }, .thread_name = { "C0", "W" });
static struct checker_scenario sc_mixed = SCENARIO(
	.name = "f) two CPUs take the lock, a third waits for it to be released", .nthreads = 3,
	.thread = { locker, locker, waiter }, .thread_name = { "C0", "C1", "W" },
	.bound_preemptions = true, .max_preemptions = MAX_PREEMPT);

static struct checker_result res;

static void explore(struct checker_scenario *sc, struct folio *folio, int takes)
{
	sc->arg = folio;
	queued_schedules = 0;
	checker_explore(sc, &res);
	diag("%s: %s, %lu schedules (longest %d steps), %lu with a waiter queued%s%s", sc->name,
	     checker_status_name(res.status), res.executions, res.longest, queued_schedules,
	     res.status ? ": " : "", res.message);
	if (LATE_WAITERS) {
		ok(res.status == CHECKER_DEADLOCK, "%s: the checker finds the lost wake-up (%s)", sc->name,
		   checker_status_name(res.status));
		diag_trace(res.trace);
		return;
	}
	if (!ok(res.status == CHECKER_OK, "%s: mutual exclusion and no lost wake-up in any schedule",
		sc->name))
		diag_trace(res.trace);
	ok(queued_schedules > 0, "%s: in %lu schedules a CPU queued and slept", sc->name, queued_schedules);
	is_int(M.taken, takes, "%s: the last schedule took the lock %d times", sc->name, takes);
}

int main(void)
{
	struct folio *folio;

	plan_no_plan();
	machine_init();
	diag("the folio lock's wait queue under the interleaving checker%s",
	     LATE_WAITERS ? " (mutant: PG_waiters set only once queued)" : "");
	if (!ok(mem_init(16ULL << 20) == 0, "boot 16 MiB"))
		return done_testing();
	folio = folio_alloc(GFP_KERNEL, 0);
	if (!ok(folio != NULL, "a folio to lock"))
		return done_testing();

	explore(&sc_two, folio, 2);
	if (!LATE_WAITERS) {
		explore(&sc_twice, folio, 4);
		explore(&sc_three, folio, 3);
		explore(&sc_handoff, folio, 4);
		explore(&sc_shared, folio, 2);
		explore(&sc_mixed, folio, 2);
	}
	folio_put(folio);
	mem_exit();
	return done_testing();
}
