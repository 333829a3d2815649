// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the interleaving checker's scheduler (src/machine/checker.c) on
 * small programs whose schedules can be counted by hand.
 */
#include <string.h>

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <machine/checker.h>

#include "tap.h"

static unsigned long binom(int n, int k)
{
	unsigned long r = 1;

	for (int i = 1; i <= k; i++)
		r = r * (unsigned long)(n - k + i) / (unsigned long)i;
	return r;
}

/* --- a lost update: increments as atomic_read + atomic_set ------------------ */

static atomic_t x;
static int incs;		/* increments per thread */
static bool use_rmw;		/* atomic_inc instead of read + set */
static bool demand_exact;	/* final check: x == 2 * incs */
static unsigned long outcome[16];

static void inc_thread(void *arg)
{
	for (int i = 0; i < incs; i++) {
		if (use_rmw) {
			atomic_inc(&x);
		} else {
			int v = atomic_read(&x);

			checker_note("T%d: read %d", checker_self(), v);
			atomic_set(&x, v + 1);
			checker_note("T%d: set %d", checker_self(), v + 1);
		}
	}
}

static void inc_setup(void *arg)
{
	atomic_set(&x, 0);
}

static void inc_describe(void *arg, char *buf, size_t len)
{
	snprintf(buf, len, "x = %d", atomic_read(&x));
}

static bool inc_final(void *arg, char *why, size_t len)
{
	int v = atomic_read(&x);

	if (v >= 0 && v < 16)
		outcome[v]++;
	if (demand_exact && v != 2 * incs) {
		snprintf(why, len, "lost update: x = %d, expected %d", v, 2 * incs);
		return false;
	}
	return true;
}

static struct checker_scenario inc_sc = {
	.name = "increments",
	.nthreads = 2,
	.thread = { inc_thread, inc_thread },
	.setup = inc_setup,
	.final = inc_final,
	.describe = inc_describe,
};

static struct checker_result res, res2;

static void test_lost_update(void)
{
	int n;

	/* Every schedule: two threads of n = 2 * incs steps each. */
	incs = 3;
	n = 2 * incs;
	use_rmw = false;
	demand_exact = false;
	memset(outcome, 0, sizeof(outcome));
	checker_explore(&inc_sc, &res);
	is_int(res.status, CHECKER_OK, "read+set increments, no final assertion: search completes");
	is_int(res.executions, binom(2 * n, n),
	       "two threads of %d steps: exactly C(%d,%d) = %lu schedules", n, 2 * n, n,
	       binom(2 * n, n));
	is_int(res.longest, 2 * n, "every schedule has %d steps", 2 * n);
	ok(outcome[2 * incs] > 0 && outcome[2 * incs] < res.executions,
	   "some but not all schedules end with x = %d", 2 * incs);
	diag("final x over %lu schedules: x=2: %lu, x=3: %lu, x=4: %lu, x=5: %lu, x=6: %lu",
	     res.executions, outcome[2], outcome[3], outcome[4], outcome[5], outcome[6]);
	is_int(outcome[0] + outcome[1], 0, "x never ends below 2");

	/* The same, asserting x == 6: the checker must find the lost update. */
	demand_exact = true;
	checker_explore(&inc_sc, &res);
	is_int(res.status, CHECKER_VIOLATION, "the lost update is found");
	ok(strstr(res.message, "lost update") != NULL, "message: %s", res.message);
	ok(res.nsteps > 0 && strstr(res.trace, "schedule (") != NULL, "with a trace");
	diag("first violating schedule, after %lu executions:", res.executions);
	diag_trace(res.trace);

	/* Replaying the reported schedule reproduces it. */
	{
		int tids[CHECKER_MAX_STEPS];

		for (int i = 0; i < res.nsteps; i++)
			tids[i] = res.schedule[i];
		checker_run_schedule(&inc_sc, tids, res.nsteps, &res2);
		is_int(res2.status, CHECKER_VIOLATION, "replaying the schedule reproduces the violation");
		ok(!strcmp(res2.message, res.message), "with the same message");
		is_int(res2.cut_short, 0, "and every forced step could run");
	}

	/* A real RMW: no lost update, C(2k, k) schedules. */
	use_rmw = true;
	checker_explore(&inc_sc, &res);
	is_int(res.status, CHECKER_OK, "atomic_inc increments: no violation");
	is_int(res.executions, binom(2 * incs, incs), "C(%d,%d) = %lu schedules", 2 * incs, incs,
	       binom(2 * incs, incs));
	use_rmw = false;

	/* Preemption bounds: 0 gives the 2 serial orders, 1 gives 2n. */
	demand_exact = false;
	inc_sc.bound_preemptions = true;
	inc_sc.max_preemptions = 0;
	checker_explore(&inc_sc, &res);
	is_int(res.executions, 2, "preemption bound 0: 2 schedules");
	inc_sc.max_preemptions = 1;
	checker_explore(&inc_sc, &res);
	is_int(res.executions, 2 * n, "preemption bound 1: 2n = %d schedules", 2 * n);
	inc_sc.max_preemptions = 2;
	demand_exact = true;
	checker_explore(&inc_sc, &res);
	is_int(res.status, CHECKER_VIOLATION, "preemption bound 2 still finds the lost update");
	inc_sc.bound_preemptions = false;

	/* The cap on executions is an error. */
	inc_sc.max_executions = 5;
	demand_exact = false;
	checker_explore(&inc_sc, &res);
	is_int(res.status, CHECKER_CAPPED, "max_executions = 5: reported as capped");
	is_int(res.executions, 5, "after 5 executions");
	inc_sc.max_executions = 0;

	/* Forced schedules. */
	{
		static const int lost[] = { 0, 1, 0, 1 };
		static const struct checker_run serial[] = { { 1, 0 }, { 0, 0 } };

		incs = 1;
		demand_exact = true;
		checker_run_schedule(&inc_sc, lost, 4, &res);
		is_int(res.status, CHECKER_VIOLATION, "forced 0 1 0 1: the lost update");
		ok(strstr(res.trace, "schedule (4 steps): T0 T1 T0 T1") != NULL, "trace shows it");
		checker_run_forced(&inc_sc, serial, 2, &res);
		is_int(res.status, CHECKER_OK, "forced T1 to its end, then T0: no lost update");
		is_int(res.schedule[0], 1, "T1 ran first");
		is_int(res.schedule[2], 0, "then T0");
		diag_trace(res.trace);
	}
}

/* --- spin locks: mutual exclusion, spin waits, and an ABBA deadlock --------- */

static spinlock_t la, lb;
static int inside, plain_counter;
static bool abba;

static void lock_thread(void *arg)
{
	int me = checker_self();
	spinlock_t *first = (abba && me == 1) ? &lb : &la;
	spinlock_t *second = (abba && me == 1) ? &la : &lb;

	spin_lock(first);
	if (abba)
		spin_lock(second);
	checker_sched_point();
	inside++;
	checker_sched_point();
	plain_counter++;
	checker_sched_point();
	inside--;
	if (abba)
		spin_unlock(second);
	spin_unlock(first);
}

static void lock_setup(void *arg)
{
	spin_lock_init(&la);
	spin_lock_init(&lb);
	inside = plain_counter = 0;
}

static bool lock_invariant(void *arg, char *why, size_t len)
{
	if (inside > 1) {
		snprintf(why, len, "%d threads in the critical section", inside);
		return false;
	}
	return true;
}

static bool lock_final(void *arg, char *why, size_t len)
{
	if (plain_counter != 2 || spin_is_locked(&la) || spin_is_locked(&lb)) {
		snprintf(why, len, "counter %d, locks %d %d", plain_counter,
			 spin_is_locked(&la), spin_is_locked(&lb));
		return false;
	}
	return true;
}

static void lock_describe(void *arg, char *buf, size_t len)
{
	snprintf(buf, len, "la=%d lb=%d inside=%d counter=%d", atomic_read(&la.locked),
		 atomic_read(&lb.locked), inside, plain_counter);
}

static struct checker_scenario lock_sc = {
	.name = "spinlock",
	.nthreads = 2,
	.thread = { lock_thread, lock_thread },
	.setup = lock_setup,
	.invariant = lock_invariant,
	.final = lock_final,
	.describe = lock_describe,
};

static void test_spinlock(void)
{
	abba = false;
	checker_explore(&lock_sc, &res);
	is_int(res.status, CHECKER_OK, "spin_lock: mutual exclusion and no lost update in %lu schedules",
	       res.executions);
	if (res.status)
		diag_trace(res.trace);

	abba = true;
	checker_explore(&lock_sc, &res);
	is_int(res.status, CHECKER_DEADLOCK, "ABBA locking: the deadlock is found (after %lu executions)",
	       res.executions);
	diag_trace(res.trace);
}

/* --- spin waits on a flag; a nondeterministic scenario ----------------------- */

static atomic_t flag, y;
static bool set_flag;
static unsigned long runs_seen;

static void waiter(void *arg)
{
	while (!atomic_read(&flag))
		checker_spin_wait();
	atomic_inc(&x);
}

static void setter(void *arg)
{
	atomic_inc(&y);
	atomic_inc(&y);
	if (set_flag)
		atomic_set(&flag, 1);
}

static void flag_setup(void *arg)
{
	atomic_set(&flag, 0);
	atomic_set(&x, 0);
	atomic_set(&y, 0);
}

static bool flag_final(void *arg, char *why, size_t len)
{
	snprintf(why, len, "x = %d", atomic_read(&x));
	return atomic_read(&x) == 1;
}

static void flaky_setup(void *arg)
{
	runs_seen++;
}

static void flaky(void *arg)
{
	/*
	 * Steps: thread 0 one, or two every other execution (not
	 * replayable); thread 1 two; thread 2 one.  The first execution runs
	 * 0 1 1 2, the second replays 0 1 1 then takes 2, and finds thread 0
	 * still runnable at step 1, where it had finished.
	 */
	int me = checker_self();

	if (me == 1 || (me == 0 && runs_seen % 2 == 0))
		atomic_inc(&y);
	atomic_inc(&y);
}

static void test_flag(void)
{
	struct checker_scenario sc = {
		.name = "flag",
		.nthreads = 2,
		.thread = { waiter, setter },
		.setup = flag_setup,
		.final = flag_final,
	};

	set_flag = true;
	checker_explore(&sc, &res);
	is_int(res.status, CHECKER_OK, "a spin waiter on a flag that gets set: no deadlock (%lu schedules)",
	       res.executions);
	/*
	 * The waiter's first read comes after 0, 1, 2 or 3 of the setter's
	 * steps.  While it waits, each setter step wakes it, and it either
	 * polls (sees 0, waits again) or lets the setter go on: after 0 it
	 * may poll between s1-s2 and s2-s3 (4 ways), after 1 between s2-s3
	 * (2), after 2 or 3 in one way each: 8 schedules.
	 */
	is_int(res.executions, 8, "exactly the 8 schedules counted by hand");
	set_flag = false;
	checker_explore(&sc, &res);
	is_int(res.status, CHECKER_DEADLOCK, "a spin waiter on a flag nobody sets: deadlock");
	diag_trace(res.trace);

	sc.nthreads = 3;
	sc.thread[0] = sc.thread[1] = sc.thread[2] = flaky;
	sc.final = NULL;
	sc.setup = flaky_setup;
	runs_seen = 0;
	checker_explore(&sc, &res);
	is_int(res.status, CHECKER_ERROR, "a scenario that does not replay: reported as an error");
	diag("%s", res.message);
}

int main(void)
{
	plan_no_plan();
	diag("interleaving checker self-test, kernel build %s", MM_KERNEL_NAME);
	test_lost_update();
	test_spinlock();
	test_flag();
	return done_testing();
}
