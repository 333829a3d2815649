// SPDX-License-Identifier: GPL-2.0
/*
 * The interleaving checker's deterministic scheduler (see
 * include/machine/checker.h for the model and the API).
 *
 * Memory model: each shim atomic is one indivisible step and the explored
 * executions are sequentially consistent interleavings of those steps;
 * weaker hardware orderings (e.g. the relaxed cmpxchg of the frozen-bit
 * dec_and_test, or a release store observed late) are not explored.
 *
 * Baton passing.  Exactly one scenario thread runs at any time.  Each has
 * its own semaphore; a thread that reaches a scheduling point runs the
 * scheduler itself (pick()), and if another thread is chosen, posts that
 * thread's semaphore and waits on its own.  Continuing the same thread
 * costs no context switch.  When an execution is over (every thread done,
 * a violation, a deadlock) the baton goes back to the calling thread, which
 * waits on main_sem.  The semaphores order every access to the state below
 * and to the scenario's shared state: at most one thread touches them.
 */
#define _GNU_SOURCE		/* sched_getcpu, pthread_setaffinity_np */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/smp.h>
#include <machine/checker.h>
#include <machine/machine.h>
#include <machine/yield.h>

enum tstate {
	T_IDLE,		/* not started in this execution (it can be chosen) */
	T_PARKED,	/* stopped at a scheduling point (or running from one) */
	T_DONE,		/* returned from its function */
};

struct cthread {
	pthread_t pt;
	sem_t go;
	int id;
	enum tstate st;
	bool waiting;		/* in checker_spin_wait(): not runnable for now */
	bool skip;		/* run through the next scheduling point */
};

/* One choice point of the current execution, kept for the depth-first search. */
struct decision {
	unsigned int enabled;	/* threads that could run this step (a read: its candidates) */
	unsigned int done;	/* choices already explored here */
	int tid;		/* the thread that ran this step (a read: the reader) */
	int preempts;		/* preemptions in decisions 0 .. this one */
	bool read;		/* weak memory: which entry a load reads, not who runs */
	int choice;		/* ... the history index it reads */
};

/* Weak memory: one location's history, and what each entry carries. */
struct wm_msg {
	long long val;
	unsigned char view[CHECKER_WM_LOCS];	/* the writer's view it publishes */
};

struct wm_loc {
	void *addr;
	int size;
	int n;					/* entries; the latest is n - 1 */
	struct wm_msg h[CHECKER_WM_HIST];
};

typedef unsigned char wm_view[CHECKER_WM_LOCS];

struct note {
	int step;		/* -1: before the first step */
	int tid;
	char text[CHECKER_NOTE_LEN];
};

static struct {
	const struct checker_scenario *sc;
	struct cthread th[CHECKER_MAX_THREADS];
	sem_t main_sem;
	cpu_set_t saved_cpus;	/* the caller's affinity, restored at the end */
	bool pinned;
	bool quit;		/* the pool is being torn down */
	bool in_cb;		/* inside a scenario callback: no scheduling */

	/* the current execution */
	int nsteps;		/* decisions taken so far */
	int replay;		/* decisions [0, replay) are replayed from dec[] */
	struct decision dec[CHECKER_MAX_STEPS];
	char state[CHECKER_MAX_STEPS][CHECKER_STATE_LEN];
	struct note notes[CHECKER_MAX_NOTES];
	int nnotes;
	enum checker_status status;
	char msg[256];

	/* a forced schedule */
	const struct checker_run *runs;
	int nruns, run_idx, run_used, cut_short;

	/* weak memory, reset before every execution */
	bool weak;
	int nlocs;
	struct wm_loc loc[CHECKER_WM_LOCS];
	wm_view view[CHECKER_MAX_THREADS];	/* the oldest entry each thread may read */
	wm_view relview[CHECKER_MAX_THREADS];	/* its view at its last release fence */
	wm_view acqpend[CHECKER_MAX_THREADS];	/* views its relaxed loads read, for an acquire fence */
	wm_view scview;				/* what the full barriers so far have seen */
} S;

static __thread struct cthread *self;

static const char *tname(int tid, char *buf, size_t len)
{
	if (tid < 0)
		return "--";
	if (S.sc->thread_name[tid])
		return S.sc->thread_name[tid];
	snprintf(buf, len, "T%d", tid);
	return buf;
}

static void set_status(enum checker_status st, const char *fmt, va_list ap)
{
	if (S.status != CHECKER_OK)
		return;		/* the first problem is the one reported */
	S.status = st;
	vsnprintf(S.msg, sizeof(S.msg), fmt, ap);
}

static void __attribute__((format(printf, 2, 3)))
stop(enum checker_status st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(st, fmt, ap);
	va_end(ap);
}

static void add_note(int tid, const char *fmt, va_list ap)
{
	struct note *n;

	if (S.nnotes >= CHECKER_MAX_NOTES)
		return;
	n = &S.notes[S.nnotes++];
	n->step = S.nsteps - 1;
	n->tid = tid;
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
}

static void __attribute__((format(printf, 1, 2))) sched_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(-1, fmt, ap);
	va_end(ap);
}

/* --- the scheduler --------------------------------------------------------- */

static bool preempt_at(int k, int c)
{
	int prev;

	if (k == 0)
		return false;
	prev = S.dec[k - 1].tid;
	return c != prev && (S.dec[k].enabled & (1u << prev));
}

/* The default choice: keep running the last thread if it can, else the lowest id. */
static int default_choice(unsigned int enabled)
{
	int last = S.nsteps ? S.dec[S.nsteps - 1].tid : -1;

	if (last >= 0 && (enabled & (1u << last)))
		return last;
	return __builtin_ctz(enabled);
}

static int forced_choice(unsigned int enabled)
{
	char nb[16];

	while (S.run_idx < S.nruns) {
		const struct checker_run *r = &S.runs[S.run_idx];
		bool can = r->tid >= 0 && r->tid < S.sc->nthreads &&
			   (enabled & (1u << r->tid));

		if (can && (r->steps == 0 || S.run_used < r->steps)) {
			S.run_used++;
			return r->tid;
		}
		if (!can && (r->steps ? S.run_used < r->steps
				      : r->tid < 0 || r->tid >= S.sc->nthreads ||
					S.th[r->tid].st != T_DONE)) {
			S.cut_short++;
			sched_note("forced entry %d (%s): cannot run, entry ends early",
				   S.run_idx, tname(r->tid, nb, sizeof(nb)));
		}
		S.run_idx++;
		S.run_used = 0;
	}
	return default_choice(enabled);
}

/* The step that just ended: wake spin waiters, record the state, check. */
static void end_step(void)
{
	const struct checker_scenario *sc = S.sc;
	char why[200] = "";
	bool ok = true;

	if (S.nsteps > 0) {
		int k = S.nsteps - 1, p = S.dec[k].tid;

		/* A step wakes the spin waiters unless it ended in a spin wait. */
		if (!S.th[p].waiting)
			for (int i = 0; i < sc->nthreads; i++)
				if (i != p)
					S.th[i].waiting = false;
		S.state[k][0] = '\0';
		if (sc->describe) {
			S.in_cb = true;
			sc->describe(sc->arg, S.state[k], CHECKER_STATE_LEN);
			S.in_cb = false;
		}
	}
	if (sc->invariant) {
		S.in_cb = true;
		ok = sc->invariant(sc->arg, why, sizeof(why));
		S.in_cb = false;
	}
	if (!ok)
		stop(CHECKER_VIOLATION, "invariant: %s", why);
}

/*
 * Called by the thread holding the baton at a scheduling point or at its
 * end.  Returns the thread to run the next step, or -1 if the execution
 * is over (all done, or S.status says why not).
 */
static int pick(void)
{
	unsigned int enabled = 0, live = 0;
	int k = S.nsteps, c;
	struct decision *d = &S.dec[k];

	end_step();
	if (S.status != CHECKER_OK)
		return -1;
	for (int i = 0; i < S.sc->nthreads; i++) {
		if (S.th[i].st != T_DONE)
			live |= 1u << i;
		if (S.th[i].st != T_DONE && !S.th[i].waiting)
			enabled |= 1u << i;
	}
	if (!enabled) {
		if (live)
			stop(CHECKER_DEADLOCK, "every live thread (mask %#x) is spin-waiting",
			     live);
		return -1;
	}
	if (k >= CHECKER_MAX_STEPS) {
		stop(CHECKER_ERROR, "execution longer than %d steps (livelock?)", CHECKER_MAX_STEPS);
		return -1;
	}
	if (k < S.replay) {
		if (d->enabled != enabled) {
			stop(CHECKER_ERROR, "nondeterministic scenario: step %d runnable %#x, was %#x",
			     k, enabled, d->enabled);
			return -1;
		}
		if (d->read) {
			stop(CHECKER_ERROR, "nondeterministic scenario: step %d was a load", k);
			return -1;
		}
		c = d->tid;
	} else {
		c = S.runs ? forced_choice(enabled) : default_choice(enabled);
		d->enabled = enabled;
		d->done = 1u << c;
		d->tid = c;
		d->read = false;
	}
	d->preempts = (k ? S.dec[k - 1].preempts : 0) + preempt_at(k, c);
	S.nsteps = k + 1;
	if (S.th[c].st == T_IDLE) {
		/* Its first step runs from its start through its first point. */
		S.th[c].st = T_PARKED;
		S.th[c].skip = true;
	}
	return c;
}

/* Give the baton to @c (or back to the caller of the checker if c < 0). */
static void hand_to(int c)
{
	sem_post(c >= 0 ? &S.th[c].go : &S.main_sem);
}

static void wait_turn(struct cthread *t)
{
	sem_wait(&t->go);
	if (S.quit)
		pthread_exit(NULL);	/* the search is over mid-execution */
}

static void park(struct cthread *t)
{
	int c;

	t->st = T_PARKED;
	c = pick();
	if (c == t->id)
		return;
	hand_to(c);
	wait_turn(t);
}

void checker_sched_point(void)
{
	struct cthread *t = self;

	if (!t || S.in_cb)
		return;
	if (t->skip) {
		t->skip = false;
		return;
	}
	park(t);
}

/*
 * The step that resumes a spin waiter runs through the waiter's next
 * scheduling point: the poll's re-read belongs to it, so a poll costs one
 * step, and a step that ends in a spin wait did nothing but poll.
 */
void checker_spin_wait(void)
{
	struct cthread *t = self;

	if (!t || S.in_cb)
		return;
	t->waiting = true;
	t->skip = false;
	park(t);
	t->skip = true;
}

void checker_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_note(self ? self->id : -1, fmt, ap);
	va_end(ap);
}

void checker_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_status(CHECKER_VIOLATION, fmt, ap);
	va_end(ap);
	if (self && !S.in_cb)
		park(self);	/* pick() sees the status: the execution ends */
}

int checker_self(void)
{
	return self ? self->id : -1;
}

/* --- weak memory ------------------------------------------------------------ */

static void wm_reset(void)
{
	S.nlocs = 0;
	memset(S.view, 0, sizeof(S.view));
	memset(S.relview, 0, sizeof(S.relview));
	memset(S.acqpend, 0, sizeof(S.acqpend));
	memset(S.scview, 0, sizeof(S.scview));
}

static long long mem_read(const void *p, int size, int order)
{
	if (size == 8)
		return __atomic_load_n((const long long *)p, order);
	return __atomic_load_n((const int *)p, order);
}

static void mem_write(void *p, int size, long long v, int order)
{
	if (size == 8)
		__atomic_store_n((long long *)p, v, order);
	else
		__atomic_store_n((int *)p, (int)v, order);
}

/* @v as a value of @size bytes: wrapped and sign-extended. */
static long long sized(long long v, int size)
{
	return size == 8 ? v : (long long)(int)(unsigned int)(unsigned long long)v;
}

static bool is_acquire(int order)
{
	return order == __ATOMIC_ACQUIRE || order == __ATOMIC_ACQ_REL ||
	       order == __ATOMIC_SEQ_CST || order == __ATOMIC_CONSUME;
}

static bool is_release(int order)
{
	return order == __ATOMIC_RELEASE || order == __ATOMIC_ACQ_REL || order == __ATOMIC_SEQ_CST;
}

/* Does this operation go through the model? Only scenario threads, in weak mode. */
static bool wm_active(void)
{
	return S.weak && self && !S.in_cb && S.status == CHECKER_OK;
}

static void join(wm_view to, const wm_view from)
{
	for (int i = 0; i < S.nlocs; i++)
		if (from[i] > to[i])
			to[i] = from[i];
}

/* The location of @p, entering it (with memory's value) on first use. */
static int wm_loc(const void *p, int size)
{
	struct wm_loc *l;
	long long now = mem_read(p, size, __ATOMIC_RELAXED);
	int i;

	for (i = 0; i < S.nlocs && S.loc[i].addr != p; i++)
		;
	if (i == S.nlocs) {
		if (i == CHECKER_WM_LOCS) {
			stop(CHECKER_ERROR, "weak memory: more than %d locations", CHECKER_WM_LOCS);
			return -1;
		}
		S.nlocs++;
		l = &S.loc[i];
		l->addr = (void *)p;
		l->size = size;
		l->n = 0;
	}
	l = &S.loc[i];
	/* A plain store (setup, a non-shim write) is the latest value, ordered by nothing. */
	if (!l->n || l->h[l->n - 1].val != now) {
		if (l->n == CHECKER_WM_HIST) {
			stop(CHECKER_ERROR, "weak memory: more than %d stores to one location",
			     CHECKER_WM_HIST);
			return -1;
		}
		memset(&l->h[l->n], 0, sizeof(l->h[0]));
		l->h[l->n].val = now;
		l->h[l->n].view[i] = (unsigned char)l->n;
		l->n++;
	}
	return i;
}

/* A load's choice of entry: a decision of the search; the latest by default. */
static int wm_choose(unsigned int cands)
{
	int k = S.nsteps, c = 31 - __builtin_clz(cands);
	struct decision *d = &S.dec[k];

	if (!(cands & (cands - 1)))
		return c;			/* one candidate: no choice */
	if (k >= CHECKER_MAX_STEPS) {
		stop(CHECKER_ERROR, "execution longer than %d steps (livelock?)", CHECKER_MAX_STEPS);
		return c;
	}
	if (k < S.replay) {
		if (!d->read || d->enabled != cands) {
			stop(CHECKER_ERROR, "nondeterministic scenario: step %d is not the same load", k);
			return c;
		}
		c = d->choice;
	} else {
		d->enabled = cands;
		d->done = 1u << c;
		d->read = true;
		d->choice = c;
	}
	d->tid = self->id;
	d->preempts = k ? S.dec[k - 1].preempts : 0;
	S.state[k][0] = '\0';
	S.nsteps = k + 1;
	return c;
}

/*
 * Full barriers are totally ordered (by the interleaving) and each sees what
 * every earlier one saw: they meet in one view, as C11's SC fences do.
 */
static void wm_full_fence(int t)
{
	join(S.scview, S.view[t]);
	join(S.view[t], S.acqpend[t]);
	join(S.view[t], S.scview);
	join(S.scview, S.view[t]);
	memcpy(S.relview[t], S.view[t], sizeof(wm_view));
}

/* Read entry @e of location @i in thread @t with @order. */
static long long wm_read(int t, int i, int e, int order)
{
	struct wm_loc *l = &S.loc[i];

	if (e > S.view[t][i])
		S.view[t][i] = (unsigned char)e;
	join(is_acquire(order) ? S.view[t] : S.acqpend[t], l->h[e].view);
	return l->h[e].val;
}

/* Append @v to location @i, published with @order (and the view of @cont, an RMW's read). */
static void wm_write(int t, int i, long long v, int order, const struct wm_msg *cont)
{
	struct wm_loc *l = &S.loc[i];
	struct wm_msg *m;

	if (l->n == CHECKER_WM_HIST) {
		stop(CHECKER_ERROR, "weak memory: more than %d stores to one location", CHECKER_WM_HIST);
		return;
	}
	m = &l->h[l->n];
	memcpy(m->view, is_release(order) ? S.view[t] : S.relview[t], sizeof(wm_view));
	if (cont)
		join(m->view, cont->view);
	m->view[i] = (unsigned char)l->n;
	m->val = v;
	S.view[t][i] = (unsigned char)l->n;
	l->n++;
	mem_write(l->addr, l->size, v, __ATOMIC_RELAXED);
}

long long checker_wm_load(const void *p, int size, int order)
{
	int t, i, e;
	unsigned int cands = 0;

	if (!wm_active() || (i = wm_loc(p, size)) < 0)
		return mem_read(p, size, order);
	t = self->id;
	if (order == __ATOMIC_SEQ_CST)
		wm_full_fence(t);
	for (e = S.view[t][i]; e < S.loc[i].n; e++)
		cands |= 1u << e;
	e = wm_choose(cands);
	if (e != S.loc[i].n - 1)
		checker_note("T%d reads an older value of %p: %lld (latest %lld)", t, p,
			     S.loc[i].h[e].val, S.loc[i].h[S.loc[i].n - 1].val);
	return wm_read(t, i, e, order);
}

void checker_wm_store(void *p, int size, long long v, int order)
{
	int t, i;

	if (!wm_active() || (i = wm_loc(p, size)) < 0) {
		mem_write(p, size, v, order);
		return;
	}
	t = self->id;
	if (order == __ATOMIC_SEQ_CST)
		wm_full_fence(t);
	wm_write(t, i, sized(v, size), order, NULL);
	if (order == __ATOMIC_SEQ_CST)
		wm_full_fence(t);
}

/* An RMW reads the latest entry (atomicity) and writes the next one. */
static long long wm_rmw(int t, int i, int order, long long (*op)(long long, long long),
			long long arg)
{
	struct wm_loc *l = &S.loc[i];
	struct wm_msg read;
	long long old;

	if (order == __ATOMIC_SEQ_CST)
		wm_full_fence(t);
	read = l->h[l->n - 1];
	old = wm_read(t, i, l->n - 1, order);
	wm_write(t, i, sized(op(old, arg), l->size), order, &read);
	if (order == __ATOMIC_SEQ_CST)
		wm_full_fence(t);
	return old;
}

static long long op_add(long long old, long long arg)
{
	return (long long)((unsigned long long)old + (unsigned long long)arg);
}

static long long op_xchg(long long old, long long arg)
{
	return arg;
}

static long long op_or(long long old, long long arg)
{
	return old | arg;
}

static long long op_and(long long old, long long arg)
{
	return old & arg;
}

static long long op_xor(long long old, long long arg)
{
	return old ^ arg;
}

/* The builtin of @op on @p, outside the weak-memory model. */
static long long mem_rmw(void *p, int size, int op, long long arg, int order)
{
	long long *q = p;
	int *w = p;

	switch (op) {
	case MACHINE_RMW_XCHG:
		return size == 8 ? __atomic_exchange_n(q, arg, order)
				 : __atomic_exchange_n(w, (int)arg, order);
	case MACHINE_RMW_OR:
		return size == 8 ? __atomic_fetch_or(q, arg, order)
				 : __atomic_fetch_or(w, (int)arg, order);
	case MACHINE_RMW_AND:
		return size == 8 ? __atomic_fetch_and(q, arg, order)
				 : __atomic_fetch_and(w, (int)arg, order);
	case MACHINE_RMW_XOR:
		return size == 8 ? __atomic_fetch_xor(q, arg, order)
				 : __atomic_fetch_xor(w, (int)arg, order);
	default:
		return size == 8 ? __atomic_fetch_add(q, arg, order)
				 : __atomic_fetch_add(w, (int)arg, order);
	}
}

long long checker_wm_rmw(void *p, int size, int op, long long arg, int order)
{
	static long long (*const ops[])(long long, long long) = {
		[MACHINE_RMW_ADD] = op_add, [MACHINE_RMW_XCHG] = op_xchg,
		[MACHINE_RMW_OR] = op_or, [MACHINE_RMW_AND] = op_and, [MACHINE_RMW_XOR] = op_xor,
	};
	int i;

	if (!wm_active() || (i = wm_loc(p, size)) < 0)
		return mem_rmw(p, size, op, arg, order);
	return wm_rmw(self->id, i, order, ops[op], arg);
}

bool checker_wm_cmpxchg(void *p, int size, long long *expected, long long v, int order,
			int fail_order)
{
	int t, i;
	long long latest;

	if (!wm_active() || (i = wm_loc(p, size)) < 0) {
		if (size == 8)
			return __atomic_compare_exchange_n((long long *)p, expected, v, false,
							   order, fail_order);
		int e = (int)*expected;
		bool ok = __atomic_compare_exchange_n((int *)p, &e, (int)v, false, order,
						      fail_order);

		*expected = e;
		return ok;
	}
	t = self->id;
	latest = S.loc[i].h[S.loc[i].n - 1].val;
	if (latest != sized(*expected, size)) {
		/* a failed compare-exchange is a load of the latest value, ordered by @fail_order */
		*expected = wm_read(t, i, S.loc[i].n - 1, fail_order);
		return false;
	}
	wm_rmw(t, i, order, op_xchg, sized(v, size));
	return true;
}

void checker_wm_fence(int order)
{
	int t;

	if (!wm_active()) {
		__atomic_thread_fence(order);
		return;
	}
	t = self->id;
	if (order == __ATOMIC_SEQ_CST) {
		wm_full_fence(t);
		return;
	}
	if (is_acquire(order))
		join(S.view[t], S.acqpend[t]);
	if (is_release(order))
		memcpy(S.relview[t], S.view[t], sizeof(wm_view));
}

/* --- threads and executions ---------------------------------------------- */

static void *worker(void *p)
{
	struct cthread *t = p;

	self = t;
	for (;;) {
		sem_wait(&t->go);
		if (S.quit)
			return NULL;
		S.sc->thread[t->id](S.sc->arg);
		t->st = T_DONE;
		t->skip = false;
		hand_to(pick());
	}
}

static int pool_start(const struct checker_scenario *sc)
{
	if (sc->nthreads < 1 || sc->nthreads > CHECKER_MAX_THREADS)
		return -1;
	S.sc = sc;
	S.quit = false;
	S.weak = sc->weak_memory;
	sem_init(&S.main_sem, 0, 0);
	/*
	 * Only one thread runs at a time: keeping them all on one CPU makes
	 * every hand-over a local wake-up (about twice as fast as waking a
	 * thread on another CPU).  Performance only; nothing depends on it.
	 */
	S.pinned = false;
	if (!pthread_getaffinity_np(pthread_self(), sizeof(S.saved_cpus), &S.saved_cpus)) {
		cpu_set_t one;
		int cpu = sched_getcpu();

		CPU_ZERO(&one);
		if (cpu >= 0 && CPU_ISSET(cpu, &S.saved_cpus)) {
			CPU_SET(cpu, &one);
			S.pinned = !pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
		}
	}
	for (int i = 0; i < sc->nthreads; i++) {
		S.th[i].id = i;
		sem_init(&S.th[i].go, 0, 0);
		if (pthread_create(&S.th[i].pt, NULL, worker, &S.th[i]))
			abort();
	}
	return 0;
}

static void pool_stop(void)
{
	S.quit = true;
	for (int i = 0; i < S.sc->nthreads; i++)
		sem_post(&S.th[i].go);
	for (int i = 0; i < S.sc->nthreads; i++) {
		pthread_join(S.th[i].pt, NULL);
		sem_destroy(&S.th[i].go);
	}
	sem_destroy(&S.main_sem);
	if (S.pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(S.saved_cpus), &S.saved_cpus);
}

/* One execution: replays dec[0 .. S.replay), then chooses as it goes. */
static void run_execution(void)
{
	const struct checker_scenario *sc = S.sc;
	char why[200] = "";
	int c;

	S.nsteps = 0;
	S.nnotes = 0;
	S.status = CHECKER_OK;
	S.msg[0] = '\0';
	S.run_idx = S.run_used = S.cut_short = 0;
	for (int i = 0; i < sc->nthreads; i++) {
		S.th[i].st = T_IDLE;
		S.th[i].waiting = false;
		S.th[i].skip = false;
	}
	wm_reset();
	if (sc->setup) {
		S.in_cb = true;
		sc->setup(sc->arg);
		S.in_cb = false;
	}

	c = pick();
	if (c >= 0) {
		hand_to(c);
		sem_wait(&S.main_sem);
	}

	if (S.status == CHECKER_OK && sc->final) {
		bool ok;

		S.in_cb = true;
		ok = sc->final(sc->arg, why, sizeof(why));
		S.in_cb = false;
		if (!ok)
			stop(CHECKER_VIOLATION, "final check: %s", why);
	}
}

/* Depth-first search: the deepest decision with an untried alternative. */
static bool backtrack(void)
{
	const struct checker_scenario *sc = S.sc;

	for (int j = S.nsteps - 1; j >= 0; j--) {
		struct decision *d = &S.dec[j];
		unsigned int todo = d->enabled & ~d->done;

		while (todo) {
			int c = __builtin_ctz(todo);

			todo &= todo - 1;
			d->done |= 1u << c;
			if (d->read) {
				d->choice = c;
				S.replay = j + 1;
				return true;
			}
			if (sc->bound_preemptions &&
			    (j ? S.dec[j - 1].preempts : 0) + preempt_at(j, c) > sc->max_preemptions)
				continue;
			d->tid = c;
			S.replay = j + 1;
			return true;
		}
	}
	return false;
}

static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*pos >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += (size_t)n;
	if (*pos >= len) {
		*pos = len;
		if (len > 16)
			strcpy(buf + len - 16, "\n[truncated]\n");
	}
}

/* Copy the current execution into the result, with its readable trace. */
static void report(struct checker_result *res)
{
	char *buf = res->trace, nb[16];
	size_t len = sizeof(res->trace), pos = 0;
	int n = 0;

	res->nsteps = S.nsteps;
	for (int k = 0; k < S.nsteps; k++)
		res->schedule[k] = (signed char)S.dec[k].tid;

	append(buf, len, &pos, "schedule (%d steps):", S.nsteps);
	for (int k = 0; k < S.nsteps; k++)
		append(buf, len, &pos, " %s", tname(S.dec[k].tid, nb, sizeof(nb)));
	append(buf, len, &pos, "\n");
	for (int k = -1; k < S.nsteps; k++) {
		if (k >= 0)
			append(buf, len, &pos, S.state[k][0] ? "%4d %-4s %s\n" : "%4d %s%s\n", k,
			       tname(S.dec[k].tid, nb, sizeof(nb)), S.state[k]);
		for (; n < S.nnotes && S.notes[n].step <= k; n++)
			append(buf, len, &pos, "          > %s\n", S.notes[n].text);
	}
	if (S.status != CHECKER_OK)
		append(buf, len, &pos, "%s: %s\n", checker_status_name(S.status), S.msg);
}

static enum checker_status finish(struct checker_result *res, bool keep_trace)
{
	res->status = S.status;
	snprintf(res->message, sizeof(res->message), "%s", S.msg);
	res->cut_short = S.cut_short;
	if (keep_trace || S.status != CHECKER_OK)
		report(res);
	pool_stop();
	S.runs = NULL;
	return res->status;
}

enum checker_status checker_explore(const struct checker_scenario *sc,
				    struct checker_result *res)
{
	unsigned long cap = sc->max_executions ? sc->max_executions : CHECKER_DEFAULT_CAP;

	memset(res, 0, sizeof(*res));
	if (pool_start(sc)) {
		res->status = CHECKER_ERROR;
		snprintf(res->message, sizeof(res->message), "bad thread count %d", sc->nthreads);
		return res->status;
	}
	S.runs = NULL;
	S.replay = 0;
	for (;;) {
		run_execution();
		res->executions++;
		if (S.nsteps > res->longest)
			res->longest = S.nsteps;
		if (S.status != CHECKER_OK || !backtrack())
			break;
		if (res->executions >= cap) {
			stop(CHECKER_CAPPED, "stopped after %lu executions, more remain", cap);
			break;
		}
	}
	return finish(res, false);
}

enum checker_status checker_run_forced(const struct checker_scenario *sc,
				       const struct checker_run *runs, int nruns,
				       struct checker_result *res)
{
	memset(res, 0, sizeof(*res));
	if (pool_start(sc)) {
		res->status = CHECKER_ERROR;
		snprintf(res->message, sizeof(res->message), "bad thread count %d", sc->nthreads);
		return res->status;
	}
	S.runs = runs;
	S.nruns = nruns;
	S.replay = 0;
	run_execution();
	res->executions = 1;
	res->longest = S.nsteps;
	return finish(res, true);
}

enum checker_status checker_run_schedule(const struct checker_scenario *sc,
					 const int *tids, int n,
					 struct checker_result *res)
{
	static struct checker_run runs[CHECKER_MAX_STEPS];

	if (n > CHECKER_MAX_STEPS)
		n = CHECKER_MAX_STEPS;
	for (int i = 0; i < n; i++)
		runs[i] = (struct checker_run){ .tid = tids[i], .steps = 1 };
	return checker_run_forced(sc, runs, n, res);
}

const char *checker_status_name(enum checker_status st)
{
	switch (st) {
	case CHECKER_OK:	return "ok";
	case CHECKER_VIOLATION:	return "violation";
	case CHECKER_DEADLOCK:	return "deadlock";
	case CHECKER_CAPPED:	return "capped";
	case CHECKER_ERROR:	return "error";
	}
	return "?";
}

/* --- the checker as a machine of the machine interface (machine/machine.h) --------- */

/*
 * A run is one execution of the default schedule (checker_run_forced()
 * with no forced entries): the workers are scenario threads, CPU i the
 * i-th; a stop is set once the execution has taken half of
 * CHECKER_MAX_STEPS steps, so that loops until a stop end within the cap.
 * There is no clock: the window is the steps taken, and nothing is counted.
 */
struct checker_machine_run {
	machine_thread_fn fn;
	void *const *args;
	int *stop;
	int steps;
};

static void checker_machine_worker(void *p)
{
	struct checker_machine_run *r = p;
	int i = checker_self();

	cpu_number = i;
	r->fn(r->args[i]);
}

static bool checker_machine_step(void *p, char *why, size_t len)
{
	struct checker_machine_run *r = p;

	(void)why;
	(void)len;
	if (r->stop && ++r->steps >= CHECKER_MAX_STEPS / 2)
		*r->stop = 1;
	return true;
}

static int checker_machine_run(const struct machine *m, int n, machine_thread_fn fn, void *const *args,
			       const struct machine_stop *stop, struct machine_stats *st)
{
	struct checker_machine_run r = { .fn = fn, .args = args, .stop = stop ? stop->flag : NULL };
	struct checker_scenario sc = {
		.name = "machine_run",
		.nthreads = n,
		.arg = &r,
		.invariant = checker_machine_step,
	};
	struct checker_result *res;
	enum checker_status status;

	(void)m;
	memset(st, 0, sizeof(*st));
	if (n < 1 || n > CHECKER_MAX_THREADS) {
		fprintf(stderr, "mmlab: checker: %d workers; valid: 1..%d\n", n, CHECKER_MAX_THREADS);
		return -1;
	}
	res = calloc(1, sizeof(*res));
	if (!res)
		return -1;
	if (n > nr_cpu_ids)
		nr_cpu_ids = n;
	for (int i = 0; i < n; i++)
		sc.thread[i] = checker_machine_worker;
	status = checker_run_forced(&sc, NULL, 0, res);
	if (status != CHECKER_OK)
		fprintf(stderr, "mmlab: checker: %s: %s\n", checker_status_name(status), res->message);
	st->end_ns = res->nsteps;
	free(res);
	return status == CHECKER_OK ? 0 : -1;
}

static int checker_machine_call(const struct machine *m, machine_thread_fn fn, void *arg,
				struct machine_stats *st)
{
	void *args[1] = { arg };

	return checker_machine_run(m, 1, fn, args, NULL, st);
}

static int checker_machine_set_cpus(const struct machine *m, int nr_cpus)
{
	(void)m;
	return machine_set_nr_cpus(nr_cpus);
}

static double checker_machine_delay_loops_per_ns(const struct machine *m)
{
	(void)m;
	return 1.0;
}

static const struct machine_ops checker_machine_ops = {
	.set_cpus = checker_machine_set_cpus,
	.run = checker_machine_run,
	.call = checker_machine_call,
	.delay_loops_per_ns = checker_machine_delay_loops_per_ns,
};

const struct machine machine_checker = {
	.name = "checker",
	.nr_cpus = CHECKER_MAX_THREADS,
	.max_nr_cpu_ids = NR_CPUS,
	.cpus_what = "the checker's",
	.cpus_more = "",
	.build = MACHINE_BUILD_RUN,	/* the chk builds, which tests link directly */
	.syscall_ns = 0,
	.tlb_flush_ns = -1,
	.tlbi_ns = -1,
	.first_touch_ns = -1,
	.ops = &checker_machine_ops,
};
