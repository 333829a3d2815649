/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interleaving checker: a deterministic scheduler that runs the real
 * code (the kernel shims in include/linux/, built with -DMMLAB_CHECKER) on
 * real threads, one thread at a time, and explores every schedule.
 *
 * Memory model assumed.  Every shim atomic (include/linux/atomic.h) is one
 * indivisible step, and the executions explored are the sequentially
 * consistent interleavings of those steps.  Weaker hardware orderings (a
 * relaxed cmpxchg, a release store seen late by another CPU) are NOT
 * explored: a bug that needs reordering is out of reach of this checker.
 *
 * Steps.  checker_sched_point() (called by every shim atomic before it
 * acts) is where a thread stops and the scheduler chooses who runs next.
 * A step of a thread is its code from one scheduling point to the next
 * (or to its end): the atomic that follows the point, then any local code
 * up to the next point.  A thread's first step runs from its start through
 * its first point (its first atomic) to the second, so a thread with n
 * scheduling points takes n steps.  Scenario code that touches shared plain
 * memory (a model of an allocator, a lookup slot) calls
 * checker_sched_point() itself right before, so that access is a step of
 * its own (or, at a thread's start, part of its first step).
 *
 * Exploration.  Depth-first search over the choice points with replay of a
 * prefix (stateless model checking, as CHESS and dscheck do): an execution
 * records the runnable set and the choice at every step; the next one
 * replays the choices up to the deepest step that has an untried runnable
 * alternative, takes that alternative, and continues with the default
 * choice (the thread that ran last, if it still can, else the lowest id).
 * Nothing depends on timing.  There is no partial-order reduction: two
 * threads of n steps each give exactly C(2n, n) executions.
 *
 * Scenario threads are pthreads created once per checker call and reused
 * for every execution; thread-local state is not reset between executions.
 *
 * Weak memory (a scenario's weak_memory).  The shims' operations
 * (linux/atomic.h: atomic_t, atomic_long_t, smp_* barriers,
 * smp_load_acquire/smp_store_release) then go through a view-based model
 * of release/acquire memory in the manner of C11's operational semantics:
 * every location touched keeps the history of values stored to it in the
 * order the interleaving made them; each thread has a view, the oldest
 * entry of each location it may still read.  A load reads any entry from
 * its view on (the latest first; older ones are alternatives the search
 * explores) and raises its view of that location.  A release store (or a
 * store after a release fence) carries the writer's view, which an acquire
 * load reading it (or a relaxed load followed by an acquire fence) joins;
 * an RMW reads the latest entry and continues the release sequence of the
 * one it read.  Full barriers (smp_mb, and each fully ordered RMW, before
 * and after) are ordered by the interleaving and meet in one view: each
 * publishes its thread's view there and takes in what every earlier one
 * published, as C11's SC fences.  The page-flag bit operations
 * (linux/page-flags.h) go through the model too: folio_mark_uptodate()'s
 * release, folio_test_uptodate()'s acquire, the folio lock's acquire and
 * release.  Plain C accesses and READ_ONCE/WRITE_ONCE stay sequentially
 * consistent (so only what the shims order is weakened).  Histories hold at most CHECKER_WM_HIST entries
 * for CHECKER_WM_LOCS locations per execution (more is an error).  A
 * property stated in terms of the interleaving's order ("the slot held the
 * folio at that moment") is not meaningful under this mode: stores become
 * visible later than the interleaving makes them.
 */
#ifndef MMLAB_CHECKER_H
#define MMLAB_CHECKER_H

#include <stdbool.h>
#include <stddef.h>

#define CHECKER_MAX_THREADS	8
#define CHECKER_MAX_STEPS	1024	/* longer executions are an error (livelock?) */
#define CHECKER_MAX_NOTES	512
#define CHECKER_NOTE_LEN	120
#define CHECKER_STATE_LEN	120
#define CHECKER_TRACE_LEN	32768
#define CHECKER_DEFAULT_CAP	1000000UL
#define CHECKER_WM_LOCS		32	/* weak memory: locations per execution */
#define CHECKER_WM_HIST		16	/* ... values kept per location */

enum checker_status {
	CHECKER_OK,		/* every schedule explored (or the forced one ran), no violation */
	CHECKER_VIOLATION,	/* an invariant, the final check or checker_fail() */
	CHECKER_DEADLOCK,	/* every live thread is in checker_spin_wait() */
	CHECKER_CAPPED,		/* max_executions reached before the search ended */
	CHECKER_ERROR,		/* too many steps, nondeterministic scenario, ... */
};

struct checker_scenario {
	const char *name;
	int nthreads;
	void (*thread[CHECKER_MAX_THREADS])(void *arg);
	const char *thread_name[CHECKER_MAX_THREADS];	/* for traces; NULL: "T<i>" */
	void *arg;

	/* Before every execution, in the calling thread: reset all state. */
	void (*setup)(void *arg);
	/*
	 * At every scheduling point (the initial state and after every step),
	 * in whichever thread holds the baton.  Return false and say why to
	 * report a violation.  May read shared state with the shims: they are
	 * not scheduling points inside the callbacks.
	 */
	bool (*invariant)(void *arg, char *why, size_t len);
	/* After all threads have finished, in the calling thread. */
	bool (*final)(void *arg, char *why, size_t len);
	/* One line of state, recorded after every step for the traces. */
	void (*describe)(void *arg, char *buf, size_t len);

	/*
	 * Weak-memory mode (see "Weak memory" above): loads through the shims
	 * may read older values than the latest, within what the orderings
	 * of the shims allow; which value each load reads is a choice the
	 * search explores like a scheduling choice.
	 */
	bool weak_memory;

	/* Optional preemption bound (off by default). */
	bool bound_preemptions;
	int max_preemptions;
	/* Cap on executions (0: CHECKER_DEFAULT_CAP); reaching it is an error. */
	unsigned long max_executions;
};

/* One entry of a forced schedule: run @tid for @steps steps (0: until it ends). */
struct checker_run {
	int tid;
	int steps;
};

struct checker_result {
	enum checker_status status;
	unsigned long executions;	/* executions run, the last one included */
	int longest;			/* most steps in one execution */
	int cut_short;			/* forced runs: entries whose thread could not go on */
	char message[256];		/* why it stopped, when status != CHECKER_OK */
	/* The reported execution: the failing one, or the forced one. */
	int nsteps;
	signed char schedule[CHECKER_MAX_STEPS];	/* thread id of every step */
	char trace[CHECKER_TRACE_LEN];			/* readable, one line per step */
};

/* Explore every schedule (within the preemption bound, if any). */
enum checker_status checker_explore(const struct checker_scenario *sc,
				    struct checker_result *res);

/*
 * Run one forced schedule.  Each entry runs its thread for its steps; an
 * entry whose thread cannot run (finished, or waiting in checker_spin_wait)
 * ends there and counts in res->cut_short.  After the last entry the
 * default choice runs the threads to their end.  The trace is always kept.
 */
enum checker_status checker_run_forced(const struct checker_scenario *sc,
				       const struct checker_run *runs, int nruns,
				       struct checker_result *res);

/* The same, with one thread id per step. */
enum checker_status checker_run_schedule(const struct checker_scenario *sc,
					 const int *tids, int n,
					 struct checker_result *res);

/* Called by the shims; a no-op outside scenario threads and callbacks. */
void checker_sched_point(void);

/*
 * The caller cannot make progress until another thread takes a step (it
 * polls a lock or a flag).  It yields, and is not scheduled again until some
 * other thread has taken a step that did not itself end in a spin wait.
 * The step that resumes it runs through its next scheduling point, which
 * must be the poll's re-read (an atomic, or checker_sched_point() before a
 * plain read), so one poll is one step; such a step must not change shared
 * state when it ends here again.  If every live thread is waiting, the
 * execution is a deadlock.
 */
void checker_spin_wait(void);

/* Annotate the current step of the calling thread in traces. */
void checker_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Report a violation.  From a scenario thread the execution stops at once
 * (the call does not return); from a callback it is reported when the
 * callback returns.
 */
void checker_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Index of the calling scenario thread, or -1. */
int checker_self(void);

const char *checker_status_name(enum checker_status st);

#endif /* MMLAB_CHECKER_H */
