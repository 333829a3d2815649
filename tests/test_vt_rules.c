/*
 * The virtual-time machine's rules (src/machine/vt_*.c), one at a time
 * (issue 23, item 16): what each access costs by the state of its line
 * (who owns it, who shares it), what an access leaves behind, how
 * spinlock queues are made, emptied and made again, and whom a write
 * wakes.  Each scenario is a script per CPU (at time T, do this to that
 * line) on a small machine with round latencies and no other costs, and
 * asserts what each step took.  test_vt.c has the scheduler, the queueing
 * of one line and its order, the line window, FIFO hand-off and agents;
 * test_vt_cache.c the hand-off's two transfers and the hierarchy.
 *
 * The machine: two sockets of one L3 with four cores each, no SMT.
 *
 *   socket 0: CPUs 0 1 2 3     socket 1: CPUs 4 5 6 7
 *   a transfer between two cores of a socket: 20 ns; across sockets: 60 ns;
 *   a line no cache holds, from memory: 80 ns; hits, RMWs, code: 0
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

#define NCPU		8
#define L3		20.0
#define REMOTE		60.0
#define MEM		80.0

static struct vt_machine mach;

static void make_machine(void)
{
	memset(&mach, 0, sizeof(mach));
	snprintf(mach.name, sizeof(mach.name), "rules");
	mach.sockets = 2;
	mach.l3_per_socket = 1;
	mach.cores_per_l3 = 4;
	mach.smt = 1;
	mach.nr_cpus = NCPU;
	mach.lat_ns[VT_D_SMT] = 5;
	mach.lat_ns[VT_D_L3] = L3;
	mach.lat_ns[VT_D_SOCKET] = 35;
	mach.lat_ns[VT_D_REMOTE] = REMOTE;
	mach.cost_ns[VT_C_MEM] = MEM;
	mach.line_window = VT_WINDOW_DEFAULT;
	mach.line_order = VT_ORDER_FIFO;
}

/* --- scripts ----------------------------------------------------------------- */

enum op { OP_END, OP_READ, OP_WRITE, OP_RELEASE, OP_LOCK, OP_UNLOCK, OP_TRYLOCK, OP_SLEEP };

/* At @at ns (or at once, if the CPU's clock is past it), do @op to @p. */
struct step {
	double at;
	enum op op;
	int *p;
};

#define MAX_STEPS	1024
static struct step script[NCPU][MAX_STEPS];
static double took[NCPU][MAX_STEPS];	/* what each step cost its CPU, ns */
static double done_at[NCPU][MAX_STEPS];	/* the CPU's clock after the step */
static int result[NCPU][MAX_STEPS];	/* a trylock's */
static int order[4096], nr_order;	/* who took a lock (OP_LOCK), in turn */

static void run_step(int cpu, int k)
{
	struct step *s = &script[cpu][k];
	double now = vt_clock_ns(), t0;

	if (s->at > now)
		vt_delay_ns((unsigned long)(s->at - now));
	t0 = vt_clock_ns();
	switch (s->op) {
	case OP_READ:
		vt_access(s->p, VT_READ);
		(void)__atomic_load_n(s->p, __ATOMIC_RELAXED);
		break;
	case OP_WRITE:
		vt_access(s->p, VT_WRITE);
		__atomic_store_n(s->p, cpu + 1, __ATOMIC_RELAXED);
		break;
	case OP_RELEASE:
		vt_access(s->p, VT_WRITE | VT_RELEASE);
		__atomic_store_n(s->p, cpu + 1, __ATOMIC_RELEASE);
		break;
	case OP_LOCK:
		vt_spin_lock(s->p);
		order[nr_order++] = cpu;
		break;
	case OP_UNLOCK:
		vt_spin_unlock(s->p);
		break;
	case OP_TRYLOCK:
		result[cpu][k] = vt_spin_trylock(s->p);
		break;
	case OP_SLEEP:
		vt_sleep();	/* on the line of the CPU's last access */
		break;
	case OP_END:
		break;
	}
	done_at[cpu][k] = vt_clock_ns();
	took[cpu][k] = done_at[cpu][k] - t0;
}

static void cpu_main(void *arg)
{
	int cpu = (int)(long)arg;

	for (int k = 0; k < MAX_STEPS && script[cpu][k].op != OP_END; k++)
		run_step(cpu, k);
}

static void clear_script(void)
{
	memset(script, 0, sizeof(script));
	memset(took, 0, sizeof(took));
	memset(done_at, 0, sizeof(done_at));
	memset(result, 0, sizeof(result));
	nr_order = 0;
}

static int nsteps[NCPU];

static void add(int cpu, double at, enum op op, int *p)
{
	script[cpu][nsteps[cpu]++] = (struct step){ at, op, p };
}

/* Run the script on every CPU; 0, or -1 (vt_run's) with nothing asserted. */
static int run_script(struct vt_stats *st)
{
	static void *args[NCPU];

	for (long i = 0; i < NCPU; i++)
		args[i] = (void *)i;
	return vt_run(&mach, NCPU, cpu_main, args, NULL, 0, st);
}

static void start(void)
{
	clear_script();
	memset(nsteps, 0, sizeof(nsteps));
}

/* The lines: each scenario its own, 64-byte aligned. */
static int line_a __attribute__((aligned(64)));
static int line_b __attribute__((aligned(64)));

/* --- the coherence model ------------------------------------------------------ */

/*
 * A write to a shared line pays for invalidating every copy: the latency
 * to the farthest sharer.
 *
 *   line A:  t=0 CPU 0 reads (memory)   t=100 CPU 4 reads (socket 1)
 *            t=200 CPU 1 writes: sharers 0 (20 ns away) and 4 (60): pays 60
 *   line B:  t=0 CPU 0 reads            t=100 CPU 2 reads
 *            t=200 CPU 1 writes: sharers 0 and 2, both 20 ns away: pays 20
 */
static void test_invalidation_cost(void)
{
	struct vt_stats st;

	start();
	add(0, 0, OP_READ, &line_a);
	add(4, 100, OP_READ, &line_a);
	add(1, 200, OP_WRITE, &line_a);
	add(0, 1000, OP_READ, &line_b);
	add(2, 1100, OP_READ, &line_b);
	add(1, 1200, OP_WRITE, &line_b);
	if (run_script(&st)) {
		ok(0, "invalidation: the run ends");
		return;
	}
	is_int(took[0][0], MEM, "a line no cache holds comes from memory (%.0f ns)", MEM);
	is_int(took[4][0], REMOTE, "CPU 4 reads CPU 0's copy from the other socket");
	is_int(took[1][0], REMOTE, "CPU 1's write to a line CPUs 0 and 4 share pays the farthest, CPU 4 (%.0f ns)",
	       REMOTE);
	is_int(took[1][1], L3, "CPU 1's write to a line CPUs 0 and 2 share pays %.0f ns", L3);
}

/*
 * After a write, the writer holds the line alone: the old sharers' next
 * reads miss.
 *
 *   t=0 CPU 0 reads, t=100 CPU 4 reads, t=200 CPU 1 writes (owner, alone)
 *   t=400 CPU 0 reads: a miss, from owner 1 (20 ns); 1 and 0 share it now
 *   t=500 CPU 4 reads: a miss, from its nearest sharer, 60 ns away
 *   t=600 CPU 0 reads: a hit (it shares the line again)
 */
static void test_write_invalidates(void)
{
	struct vt_stats st;

	start();
	add(0, 0, OP_READ, &line_a);
	add(4, 100, OP_READ, &line_a);
	add(1, 200, OP_WRITE, &line_a);
	add(0, 400, OP_READ, &line_a);
	add(4, 500, OP_READ, &line_a);
	add(0, 600, OP_READ, &line_a);
	if (run_script(&st)) {
		ok(0, "write invalidates: the run ends");
		return;
	}
	is_int(took[0][1], L3, "after CPU 1's write, CPU 0's copy is gone: its read misses (%.0f ns)", L3);
	is_int(took[4][1], REMOTE, "and so is CPU 4's: %.0f ns", REMOTE);
	is_int(took[0][2], 0, "CPU 0's next read hits");
	is_int((int)st.transfers, 5, "five transfers: memory, 4's read, the write, the two misses");
}

/*
 * A read of a line another CPU owns leaves both with a copy: the owner's
 * next read hits, its next write pays to invalidate the reader.
 *
 *   t=0 CPU 0 writes (memory, owner)    t=100 CPU 1 reads (from owner 0: 20 ns)
 *   t=200 CPU 0 reads: a hit            t=300 CPU 0 writes: invalidates 1, 20 ns
 */
static void test_read_shares_owned(void)
{
	struct vt_stats st;

	start();
	add(0, 0, OP_WRITE, &line_a);
	add(1, 100, OP_READ, &line_a);
	add(0, 200, OP_READ, &line_a);
	add(0, 300, OP_WRITE, &line_a);
	if (run_script(&st)) {
		ok(0, "read of an owned line: the run ends");
		return;
	}
	is_int(took[1][0], L3, "CPU 1 reads the line CPU 0 owns: %.0f ns", L3);
	is_int(took[0][1], 0, "CPU 0 keeps a copy: its read hits");
	is_int(took[0][2], L3, "CPU 0's write invalidates CPU 1's copy: %.0f ns", L3);
}

/*
 * The only copy of a line is its holder's to write: no transfer.  With a
 * second copy about, the write pays.
 *
 *   line A: t=0 CPU 0 reads (memory)   t=100 CPU 0 writes: a hit
 *   line B: t=0 CPU 2 reads            t=200 CPU 3 reads   t=300 CPU 2 writes: 20 ns
 */
static void test_silent_upgrade(void)
{
	struct vt_stats st;

	start();
	add(0, 0, OP_READ, &line_a);
	add(0, 100, OP_WRITE, &line_a);
	add(2, 0, OP_READ, &line_b);
	add(3, 200, OP_READ, &line_b);
	add(2, 300, OP_WRITE, &line_b);
	if (run_script(&st)) {
		ok(0, "silent upgrade: the run ends");
		return;
	}
	is_int(took[0][1], 0, "the only sharer writes without a transfer");
	is_int(took[2][1], L3, "a sharer writes a line another CPU shares: %.0f ns", L3);
	is_int((int)st.transfers, 4, "four transfers: two from memory, CPU 3's read, CPU 2's write");
}

/*
 * A read of a line several CPUs share comes from the nearest copy.
 *
 *   t=0 CPU 4 reads (memory)   t=100 CPU 0 reads (from 4: 60 ns)
 *   t=200 CPU 1 reads: copies at 4 (60 ns away) and 0 (20): 20 ns
 *   t=300 CPU 5 reads: copies at 4 (20 ns away), 0 and 1 (60): 20 ns
 */
static void test_read_nearest(void)
{
	struct vt_stats st;

	start();
	add(4, 0, OP_READ, &line_a);
	add(0, 100, OP_READ, &line_a);
	add(1, 200, OP_READ, &line_a);
	add(5, 300, OP_READ, &line_a);
	if (run_script(&st)) {
		ok(0, "nearest sharer: the run ends");
		return;
	}
	is_int(took[0][0], REMOTE, "CPU 0 reads CPU 4's copy: %.0f ns", REMOTE);
	is_int(took[1][0], L3, "CPU 1 reads the nearest of two copies: %.0f ns", L3);
	is_int(took[5][0], L3, "CPU 5 reads the nearest of three: %.0f ns", L3);
}

/*
 * Reads of a shared line do not queue: a copy answers each at once, even
 * when many come at the same time.
 *
 *   t=0 CPU 0 reads (memory)
 *   t=100 CPUs 1, 2, 3 read: each from a copy in its socket, 20 ns;
 *         CPUs 4..7 likewise, the first of them from socket 0 (60 ns),
 *         the others from whichever copy is nearest when they ask
 */
static void test_shared_reads_do_not_queue(void)
{
	struct vt_stats st;
	bool each = true;

	start();
	add(0, 0, OP_READ, &line_a);
	for (int cpu = 1; cpu < NCPU; cpu++)
		add(cpu, 100, OP_READ, &line_a);
	if (run_script(&st)) {
		ok(0, "shared reads: the run ends");
		return;
	}
	for (int cpu = 1; cpu < NCPU; cpu++)
		each &= took[cpu][0] == L3 || took[cpu][0] == REMOTE;
	ok(each, "each of seven simultaneous reads costs one transfer (CPU 1 %.0f, 4 %.0f, 7 %.0f ns)",
	   took[1][0], took[4][0], took[7][0]);
	ok(st.queued_ns == 0, "none waits for another (queued %.0f ns)", st.queued_ns);
	is_int((int)st.transfers, NCPU, "eight transfers: memory, then one per reader");
}

/* --- spinlock queues ---------------------------------------------------------- */

/*
 * A lock's queue is made when a CPU finds the lock held, and given up when
 * its last waiter is handed the lock; the next contention makes a new one.
 * Forty rounds, each on other CPUs and with the arrivals in another order:
 *
 *   round r (from t = 2000 r):  holder h = r mod 8 takes the lock at +0, lets go at +500
 *     (its lock word's line is its by +80: a request before the snoop reaches the line's
 *     last holder would let that one take the lock first, test_vt.c's line window)
 *     waiters h+1, h+2, h+3 arrive at +110, +120, +130 (reversed on odd rounds: +130, +120,
 *     +110), all queued long before +500; each lets go as soon as it has the lock
 *     the last of them holds it until +1200: the queue is empty meanwhile
 *     (three hand-offs of at most two 60 ns transfers each: by +860)
 *     a late waiter, h+4, arrives at +1000 and makes the queue anew
 *   each round: the lock goes h, then the waiters by arrival, then the late one
 */
#define ROUNDS	40
static int rq_lock __attribute__((aligned(64)));

static void test_lock_queue_reuse(void)
{
	struct vt_stats st;
	bool fifo = true;
	int want[5];

	start();
	for (int r = 0; r < ROUNDS; r++) {
		double t = 2000.0 * r;
		int h = r % NCPU;

		add(h, t, OP_LOCK, &rq_lock);
		add(h, t + 500, OP_UNLOCK, &rq_lock);
		for (int k = 1; k <= 3; k++) {
			int cpu = (h + k) % NCPU;
			int nth = r % 2 ? 4 - k : k;	/* its place in the queue */

			add(cpu, t + 100 + 10 * nth, OP_LOCK, &rq_lock);
			add(cpu, nth == 3 ? t + 1200 : t, OP_UNLOCK, &rq_lock);
		}
		add((h + 4) % NCPU, t + 1000, OP_LOCK, &rq_lock);
		add((h + 4) % NCPU, t + 1000, OP_UNLOCK, &rq_lock);
	}
	if (run_script(&st)) {
		ok(0, "lock queue reuse: the run ends (a waiter was lost)");
		return;
	}
	is_int(nr_order, 5 * ROUNDS, "every CPU of every round took the lock");
	for (int r = 0; r < ROUNDS && fifo; r++) {
		int h = r % NCPU;

		want[0] = h;
		for (int k = 1; k <= 3; k++)
			want[k] = (h + (r % 2 ? 4 - k : k)) % NCPU;
		want[4] = (h + 4) % NCPU;
		for (int k = 0; k < 5; k++)
			fifo &= order[5 * r + k] == want[k];
		if (!fifo)
			diag("round %d: got %d %d %d %d %d, want %d %d %d %d %d", r, order[5 * r],
			     order[5 * r + 1], order[5 * r + 2], order[5 * r + 3], order[5 * r + 4], want[0],
			     want[1], want[2], want[3], want[4]);
	}
	ok(fifo, "in each round the lock went to the holder, the waiters in their order, then the late one");
	is_int((int)st.lock_handoffs, 4 * ROUNDS, "four hand-offs a round: three queued, one late");
	is_int(rq_lock, 0, "the lock is free at the end");
}

/*
 * More locks are contended in a run, one after another, than the machine
 * has queues at once (256): each emptied queue is given up for the next.
 *
 *   lock i (of 300, each on its own line), from t = 400 i:  CPU i mod 4 takes it,
 *   CPU 4 + i mod 4 asks at +10 (queued by +70), the first lets go at +150,
 *   the second takes it (a hand-off) and lets go
 */
#define NLOCKS	300
static struct { int lock __attribute__((aligned(64))); } many_locks[NLOCKS];

static void test_many_lock_queues(void)
{
	struct vt_stats st;

	start();
	memset(many_locks, 0, sizeof(many_locks));
	for (int i = 0; i < NLOCKS; i++) {
		double t = 400.0 * i;

		add(i % 4, t, OP_LOCK, &many_locks[i].lock);
		add(i % 4, t + 150, OP_UNLOCK, &many_locks[i].lock);
		add(4 + i % 4, t + 10, OP_LOCK, &many_locks[i].lock);
		add(4 + i % 4, t + 10, OP_UNLOCK, &many_locks[i].lock);
	}
	if (run_script(&st)) {
		ok(0, "many lock queues: the run ends");
		return;
	}
	is_int((int)st.lock_handoffs, NLOCKS, "each of %d locks was handed over once", NLOCKS);
	is_int(nr_order, 2 * NLOCKS, "and taken twice");
}

/*
 * trylock takes a free lock and fails on a held one without waiting.
 *
 *   t=0 CPU 0 takes the lock     t=200 CPU 1 trylocks: fails after the lock word's transfer
 *   t=1000 CPU 0 lets go         t=1300 CPU 1 trylocks: takes it
 */
static int tl_lock __attribute__((aligned(64)));

static void test_trylock(void)
{
	struct vt_stats st;

	start();
	tl_lock = 0;
	add(0, 0, OP_LOCK, &tl_lock);
	add(0, 1000, OP_UNLOCK, &tl_lock);
	add(1, 200, OP_TRYLOCK, &tl_lock);
	add(1, 1300, OP_TRYLOCK, &tl_lock);
	add(1, 1400, OP_UNLOCK, &tl_lock);
	if (run_script(&st)) {
		ok(0, "trylock: the run ends");
		return;
	}
	ok(!result[1][0] && took[1][0] == L3,
	   "a trylock of a held lock fails after one transfer, without waiting for the lock (%.0f ns)",
	   took[1][0]);
	ok(result[1][1], "a trylock of a free lock takes it");
	is_int((int)st.cas_fail, 1, "one failed attempt counted");
	ok(st.lock_handoffs == 0 && st.lock_wait_ns == 0, "nothing queued on the lock");
}

/* --- wake-ups -------------------------------------------------------------------- */

/*
 * Sleepers on a line (vt_sleep(): folio_lock()'s wait) wake only for a
 * release write, one at a time, the one asleep longest first; a plain
 * write wakes none.  One nobody wakes gets up after 50 us.
 *
 *   t=10, 100, 200: CPUs 1, 2, 3 read line A, then sleep on it
 *   t=1000 CPU 0 writes A (plain): nobody wakes
 *   t=2000 CPU 0 writes A (release): CPU 1 wakes, one 20 ns transfer later
 *   t=3000 CPU 0 writes A (release): CPU 2 wakes
 *   CPU 3 wakes 50 us after it went to sleep
 */
static void test_release_wakes_oldest(void)
{
	struct vt_stats st;

	start();
	add(1, 10, OP_READ, &line_a);
	add(1, 10, OP_SLEEP, &line_a);
	add(2, 100, OP_READ, &line_a);
	add(2, 100, OP_SLEEP, &line_a);
	add(3, 200, OP_READ, &line_a);
	add(3, 200, OP_SLEEP, &line_a);
	add(0, 1000, OP_WRITE, &line_a);
	add(0, 2000, OP_RELEASE, &line_a);
	add(0, 3000, OP_RELEASE, &line_a);
	if (run_script(&st)) {
		ok(0, "sleepers: the run ends");
		return;
	}
	is_int(done_at[1][1], done_at[0][1] + L3,
	       "the first release write wakes CPU 1, asleep longest, %.0f ns later (the plain write did not)", L3);
	is_int(done_at[2][1], done_at[0][2] + L3, "the second wakes CPU 2");
	is_int(took[3][1], 50000, "CPU 3, never woken, gets up after 50 us");
}


/*
 * sched.wake: a woken sleeper runs the machine's wake-up latency after the
 * release write (the IPI, the idle exit, the switch), or one transfer if
 * that is longer; 0 is the transfer alone.  Per value of wake, CPU 1 (20 ns
 * from CPU 0) and CPU 4 (60 ns, the other socket) sleep on line A:
 *
 *   t=10 CPU 1 reads A, sleeps     t=20 CPU 4 reads A, sleeps
 *   t=2000 CPU 0 release-writes A: wakes CPU 1    t=3000 again: wakes CPU 4
 *
 *   wake     CPU 1 runs after    CPU 4 runs after
 *   0        20 (transfer)       60 (transfer)
 *   19       20                  60
 *   20       20                  60
 *   21       21                  60
 *   500      500                 500
 */
static void wake_case(double wake, double want1, double want4)
{
	struct vt_stats st;

	mach.wake_ns = wake;
	start();
	add(1, 10, OP_READ, &line_a);
	add(1, 10, OP_SLEEP, &line_a);
	add(4, 20, OP_READ, &line_a);
	add(4, 20, OP_SLEEP, &line_a);
	add(0, 2000, OP_RELEASE, &line_a);
	add(0, 3000, OP_RELEASE, &line_a);
	if (run_script(&st)) {
		ok(0, "sched.wake %.0f: the run ends", wake);
		mach.wake_ns = 0;
		return;
	}
	is_int(done_at[1][1] - done_at[0][0], want1, "sched.wake %.0f: CPU 1 (a 20 ns transfer away) runs %.0f ns "
	       "after the release", wake, want1);
	is_int(done_at[4][1] - done_at[0][1], want4, "sched.wake %.0f: CPU 4 (60 ns away) runs %.0f ns after",
	       wake, want4);
	mach.wake_ns = 0;
}

static void test_wake_latency(void)
{
	wake_case(0, L3, REMOTE);
	wake_case(L3 - 1, L3, REMOTE);
	wake_case(L3, L3, REMOTE);
	wake_case(L3 + 1, L3 + 1, REMOTE);
	wake_case(500, 500, 500);
}

/* --- rmw.overlap ----------------------------------------------------------------- */

/*
 * rmw.overlap: a locked RMW on a line the CPU holds completes beside the
 * code after it; the next locked RMW and a clock read wait for it, a
 * marked read does not, and an RMW that needs a transfer stalls as
 * always.  CPU 0 alone, cost.rmw 20 ns, a basic block 1 ns:
 *
 *   line A owned by CPU 0 (written first)
 *   10 times: RMW of A, then BLOCKS blocks     overlap: 10 x max(BLOCKS, 20)
 *                                              none:    10 x (BLOCKS + 20)
 *   RMW of A, read of A, 10 blocks, clock read  overlap: max(10, 20) = 20
 *   line B owned by CPU 1; RMW of B, 10 blocks  a 20 ns transfer, 20, 10: 50
 */
#define OV_RMW		20.0
static int ov_blocks;
static double ov_loop, ov_read, ov_remote;

void __sanitizer_cov_trace_pc(void);

static void ov_run_blocks(int n)
{
	for (int i = 0; i < n; i++)
		__sanitizer_cov_trace_pc();
}

static void ov_cpu(void *arg)
{
	double t0;

	if (arg) {			/* CPU 1: owns line B, then idles */
		vt_access(&line_b, VT_WRITE);
		return;
	}
	vt_delay_ns(1000);		/* after CPU 1's write */
	vt_access(&line_a, VT_WRITE);
	t0 = vt_clock_ns();
	for (int i = 0; i < 10; i++) {
		vt_access(&line_a, VT_RMW);
		ov_run_blocks(ov_blocks);
	}
	ov_loop = vt_clock_ns() - t0;
	t0 = vt_clock_ns();
	vt_access(&line_a, VT_RMW);
	vt_access(&line_a, VT_READ);
	ov_run_blocks(10);
	ov_read = vt_clock_ns() - t0;
	t0 = vt_clock_ns();
	vt_access(&line_b, VT_RMW);
	ov_run_blocks(10);
	ov_remote = vt_clock_ns() - t0;
}

/* CPU 0's loops under mach's rmw.overlap, cost.rmw 20 ns and a block 1 ns; false if the run failed. */
static bool ov_run(int blocks)
{
	static void *args[2] = { NULL, (void *)1 };
	struct vt_stats st;
	bool ran;

	mach.cost_ns[VT_C_RMW] = OV_RMW;
	mach.cost_ns[VT_C_BLOCK] = 1;
	ov_blocks = blocks;
	ov_loop = ov_read = ov_remote = -1;
	ran = !vt_run(&mach, 2, ov_cpu, args, NULL, 0, &st);
	mach.cost_ns[VT_C_RMW] = 0;
	mach.cost_ns[VT_C_BLOCK] = 0;
	return ran;
}

static void overlap_case(bool overlap, int blocks, double want)
{
	mach.rmw_overlap = overlap;
	if (!ov_run(blocks))
		ok(0, "rmw.overlap %s, %d blocks: the run ends", overlap ? "yes" : "no", blocks);
	else
		is_int(ov_loop, want, "rmw.overlap %s: 10 RMW hits each followed by %d blocks take %.0f ns",
		       overlap ? "yes" : "no", blocks, want);
	if (blocks == 20) {
		is_int(ov_read, overlap ? OV_RMW : OV_RMW + 10, "rmw.overlap %s: a marked read after the RMW %s "
		       "wait for it", overlap ? "yes" : "no", overlap ? "does not" : "does");
		is_int(ov_remote, L3 + OV_RMW + 10, "rmw.overlap %s: an RMW that needs a transfer stalls for "
		       "it and its cost.rmw before the code after it", overlap ? "yes" : "no");
	}
	mach.rmw_overlap = false;
}

/*
 * rmw.overlap as a share H of the code after a locked RMW (cost.rmw 20 ns,
 * a block 1 ns): the CPU stalls for the 20, and H of the BLOCKS up to the
 * next event ran under it, at most 20: 10 x (20 + BLOCKS - min(H BLOCKS, 20)).
 *   H 0.5:  39 blocks -> 395   40 -> 400   41 -> 410 (the whole 20 hidden)
 *   H 0: as no (5 -> 250); H 1: 5 -> 200, the code under the RMW
 *   RMW, a marked read, 10 blocks: the read waits for the RMW, and the
 *   code after the read is not under it: 30
 */
static void share_case(double hide, int blocks, double want)
{
	mach.rmw_hide_given = true;
	mach.rmw_hide = hide;
	if (!ov_run(blocks))
		ok(0, "rmw.overlap %g, %d blocks: the run ends", hide, blocks);
	else
		is_int(ov_loop, want, "rmw.overlap %g: 10 RMW hits each followed by %d blocks take %.0f ns",
		       hide, blocks, want);
	if (blocks == 40)
		is_int(ov_read, OV_RMW + 10, "rmw.overlap %g: a marked read after the RMW waits for it, and "
		       "the code after the read runs after it", hide);
	mach.rmw_hide_given = false;
	mach.rmw_hide = 0;
}

static void test_rmw_overlap(void)
{
	overlap_case(true, 19, 10 * OV_RMW);
	overlap_case(true, 20, 10 * OV_RMW);
	overlap_case(true, 21, 10 * 21);
	overlap_case(false, 19, 10 * (19 + OV_RMW));
	overlap_case(false, 20, 10 * (20 + OV_RMW));
	share_case(0.5, 39, 395);
	share_case(0.5, 40, 400);
	share_case(0.5, 41, 410);
	share_case(0, 5, 10 * (5 + OV_RMW));
	share_case(1, 5, 10 * OV_RMW);
}

/* --- work handed off (vt_async_ns(): arm64's broadcast TLBIs) -------------------- */

/*
 * A hand-off of 20 ns completes beside the code after it; the next
 * hand-off and vt_async_wait() wait for it, a clock read and a delay do
 * not, and the CPU's end does.  CPU 0 alone, a basic block 1 ns:
 *
 *   10 times: hand off 20 ns, then BLOCKS blocks; wait    10 x max(BLOCKS, 20)
 *   hand off 20 ns; clock read                            0
 *   hand off 20 ns; delay 5 ns; clock read; wait          5, then 20
 *   4 hand-offs of 20 ns back to back; clock read; wait   60, then 80
 *   hand off 100 ns; end                                  the run ends 100 ns later
 */
#define AS_WORK		20
static int as_blocks;
static double as_loop, as_read, as_delay, as_delay_wait, as_burst, as_burst_wait, as_end_start;

static void as_cpu(void *arg)
{
	double t0;

	(void)arg;
	t0 = vt_clock_ns();
	for (int i = 0; i < 10; i++) {
		vt_async_ns(AS_WORK);
		ov_run_blocks(as_blocks);
	}
	vt_async_wait();
	as_loop = vt_clock_ns() - t0;
	t0 = vt_clock_ns();
	vt_async_ns(AS_WORK);
	as_read = vt_clock_ns() - t0;
	vt_async_wait();
	t0 = vt_clock_ns();
	vt_async_ns(AS_WORK);
	vt_delay_ns(5);
	as_delay = vt_clock_ns() - t0;
	vt_async_wait();
	as_delay_wait = vt_clock_ns() - t0;
	t0 = vt_clock_ns();
	for (int i = 0; i < 4; i++)
		vt_async_ns(AS_WORK);
	as_burst = vt_clock_ns() - t0;
	vt_async_wait();
	as_burst_wait = vt_clock_ns() - t0;
	as_end_start = vt_clock_ns();
	vt_async_ns(100);
}

static void async_case(int blocks, double want)
{
	static void *args[1];
	struct vt_stats st;

	mach.cost_ns[VT_C_BLOCK] = 1;
	as_blocks = blocks;
	as_loop = -1;
	if (vt_run(&mach, 1, as_cpu, args, NULL, 0, &st)) {
		ok(0, "hand-offs, %d blocks: the run ends", blocks);
	} else {
		is_int(as_loop, want, "10 hand-offs of %d ns each followed by %d blocks, then a wait: %.0f ns",
		       AS_WORK, blocks, want);
		if (blocks == AS_WORK) {
			is_int(as_read, 0, "a clock read does not wait for a hand-off");
			is_int(as_delay, 5, "a delay does not wait for a hand-off");
			is_int(as_delay_wait, AS_WORK, "vt_async_wait() after the delay waits for the rest of it");
			is_int(as_burst, 3 * AS_WORK, "4 hand-offs back to back wait for the first 3");
			is_int(as_burst_wait, 4 * AS_WORK, "... and vt_async_wait() for the fourth");
			is_int(st.end_ns, as_end_start + 100, "a CPU that ends with a hand-off in flight ends when "
			       "it completes");
		}
	}
	mach.cost_ns[VT_C_BLOCK] = 0;
}

static void test_async(void)
{
	async_case(19, 10 * AS_WORK);
	async_case(20, 10 * AS_WORK);
	async_case(21, 10 * 21);
}

/*
 * calibrate's two verdicts, rmw.overlap and rmw.drain, at their boundaries:
 *   the code beside it: chained 2 ns, the heavy work 3 ns alone; with the
 *     decrement 3.99 (adds under 1 ns, half the chain): yes; 4.0, 4.01: no
 *   the misses across it: a 200 ns chase; with the adds 99.9 ns a load: they
 *     run on (rmw.drain no); 100, 100.1: drained; no chase measured: drained
 */
static void test_overlap_verdicts(void)
{
	struct vt_rmw_probe p = { .chain_ns = 2.0, .work_times = { 1, 4 },
				  .work_ns = { 1.0, 3.0 }, .locked_ns = { 2.5, 3.99 } };
	struct vt_rmw_miss_probe mp = { .alone_ns = 10, .locked_ns = 99.9, .chase_ns = 200 };

	ok(vt_probe_rmw_overlaps(&p), "the decrement adds 0.99 ns to 3 ns of work, chained 2: overlaps");
	p.locked_ns[1] = 4.0;
	ok(!vt_probe_rmw_overlaps(&p), "... adds 1.0 ns, half the chain: does not");
	p.locked_ns[1] = 4.01;
	ok(!vt_probe_rmw_overlaps(&p), "... adds 1.01 ns: does not");
	ok(vt_probe_rmw_misses_overlap(&mp), "loads with locked adds at 99.9 ns against a 200 ns chase: "
	   "the misses overlap");
	mp.locked_ns = 100;
	ok(!vt_probe_rmw_misses_overlap(&mp), "... at 100 ns, half the chase: drained");
	mp.locked_ns = 100.1;
	ok(!vt_probe_rmw_misses_overlap(&mp), "... at 100.1 ns: drained");
	mp.locked_ns = 10;
	mp.chase_ns = 0;
	ok(!vt_probe_rmw_misses_overlap(&mp), "no chase measured: not taken as overlapping");

	/* The share of the work under the decrement: (work + chain - locked) / work, work 3 ns, chain 2. */
	p.locked_ns[1] = 3.5;
	ok(fabs(vt_probe_rmw_hide(&p) - 0.5) < 1e-12, "3.5 ns with the decrement: 1.5 of the 3 ns of work "
	   "under it, 0.5 (got %g)", vt_probe_rmw_hide(&p));
	p.locked_ns[1] = 2.0;
	ok(fabs(vt_probe_rmw_hide(&p) - 1) < 1e-12, "... 2 ns, the chain alone: all the work under it (got %g)",
	   vt_probe_rmw_hide(&p));
	p.locked_ns[1] = 1.99;
	ok(fabs(vt_probe_rmw_hide(&p) - 1) < 1e-12, "... 1.99 ns: 1, not over (got %g)", vt_probe_rmw_hide(&p));
	p.locked_ns[1] = 5.0;
	ok(fabs(vt_probe_rmw_hide(&p)) < 1e-12, "... 5 ns, the sum: none under it (got %g)", vt_probe_rmw_hide(&p));
	p.locked_ns[1] = 5.01;
	ok(fabs(vt_probe_rmw_hide(&p)) < 1e-12, "... 5.01 ns: 0, not under (got %g)", vt_probe_rmw_hide(&p));
	p.locked_ns[1] = 3.5;
	p.chain_ns = 0;
	ok(vt_probe_rmw_hide(&p) == -1, "no chain measured: -1, not measured");
	p.chain_ns = 2.0;
	p.work_ns[1] = 0;
	ok(vt_probe_rmw_hide(&p) == -1, "no work measured: -1, not measured");
}

/*
 * pf.degree and core.l2mshr from a measured stream (vt_stream_settings()):
 * with memory 64 ns away, a stream of G GB/s keeps G lines in flight.
 *   lines:    0.49  0.5 | 31.99  32  32.01 | 86.4  86.5 | 255.6  256  256.01  300
 *   degree:    -     1  |  32    32   32   |  86    87  |  256   256   256    256
 *   l2mshr:    -    32  |  32    32   33   |  87    87  |  256   256   256    256
 */
static void stream_case(double gbs, int want_deg, int want_q)
{
	double lines;
	int deg = -1, q = -1, r = vt_stream_settings(gbs, 64, &lines, &deg, &q);

	if (want_deg < 0)
		ok(r == -1, "%.2f GB/s against 64 ns: %.2f lines in flight, under half a line: not measured",
		   gbs, lines);
	else
		ok(r == 0 && deg == want_deg && q == want_q && fabs(lines - gbs) < 1e-9,
		   "%.2f GB/s against 64 ns: %.2f lines in flight, pf.degree %d (want %d), core.l2mshr %d "
		   "(want %d)", gbs, lines, deg, want_deg, q, want_q);
}

static void test_stream_settings(void)
{
	double lines;
	int deg, q;

	stream_case(0.49, -1, -1);
	stream_case(0.5, 1, 32);
	stream_case(31.99, 32, 32);
	stream_case(32, 32, 32);
	stream_case(32.01, 32, 33);
	stream_case(86.4, 86, 87);
	stream_case(86.5, 87, 87);
	stream_case(255.6, 256, 256);
	stream_case(256, 256, 256);
	stream_case(256.01, 256, 256);
	stream_case(300, 256, 256);
	ok(vt_stream_settings(-1, 64, &lines, &deg, &q) == -1, "no stream measured (-1 GB/s): not measured");
	ok(vt_stream_settings(10, 0, &lines, &deg, &q) == -1, "no memory latency: not measured");
}

/*
 * cost.block from the code probe (vt_code_block_ns()): the median of the
 * shapes' ns a block, of those measured (ns > 0 and blocks > 0):
 *   ns a pass:  100  240  150   over 100 blocks each -> 1.0 2.4 1.5: median 1.5
 *   one shape not timed (0 ns), or of no blocks: the middle of the other two
 *   one left: its own; none: 0 (not measured)
 */
static void test_code_block_cost(void)
{
	double ns[VT_CODE_SHAPES] = { 100, 240, 150 };
	unsigned long blocks[VT_CODE_SHAPES] = { 100, 100, 100 };
	struct vt_code_probe p, q;

	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.5) < 1e-12, "1.0, 2.4 and 1.5 ns a block: the median, 1.5 "
	   "(got %g)", vt_code_block_ns(ns, blocks, 3));
	ns[2] = 0;
	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.7) < 1e-12, "the third not timed (0 ns): the mean of "
	   "1.0 and 2.4 (got %g)", vt_code_block_ns(ns, blocks, 3));
	ns[2] = 1e-9;
	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.0) < 1e-12, "the third timed at 1e-9 ns: counted, the "
	   "median 1.0 (got %g)", vt_code_block_ns(ns, blocks, 3));
	ns[2] = 150;
	blocks[1] = 0;
	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.25) < 1e-12, "the second of no blocks: the mean of 1.0 "
	   "and 1.5 (got %g)", vt_code_block_ns(ns, blocks, 3));
	blocks[1] = 1;
	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.5) < 1e-12, "the second of one block (240 ns): counted, "
	   "the median 1.5 (got %g)", vt_code_block_ns(ns, blocks, 3));
	blocks[0] = blocks[1] = 0;
	ok(fabs(vt_code_block_ns(ns, blocks, 3) - 1.5) < 1e-12, "one shape left: its 1.5 (got %g)",
	   vt_code_block_ns(ns, blocks, 3));
	blocks[2] = 0;
	ok(vt_code_block_ns(ns, blocks, 3) == 0, "none measured: 0, not measured");

	/* The counting copy: at least a block an element, the same count every time. */
	ok(vt_probe_code_blocks(&p) == 0 && vt_probe_code_blocks(&q) == 0,
	   "the probe's two copies of each shape compute the same");
	for (int s = 0; s < VT_CODE_SHAPES; s++)
		ok(p.blocks[s] >= VT_CODE_N && p.blocks[s] <= 16 * VT_CODE_N && p.blocks[s] == q.blocks[s],
		   "shape %s: %lu blocks a pass of %d elements, as many again the second time (%lu)",
		   vt_code_shape_names[s], p.blocks[s], VT_CODE_N, q.blocks[s]);
}

int main(void)
{
	plan_no_plan();
	make_machine();
	test_invalidation_cost();
	test_write_invalidates();
	test_read_shares_owned();
	test_silent_upgrade();
	test_read_nearest();
	test_shared_reads_do_not_queue();
	test_lock_queue_reuse();
	test_many_lock_queues();
	test_trylock();
	test_release_wakes_oldest();
	test_wake_latency();
	test_rmw_overlap();
	test_overlap_verdicts();
	test_stream_settings();
	test_code_block_cost();
	test_async();
	return done_testing();
}
