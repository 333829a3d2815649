/*
 * The virtual-time machine's branch predictor (src/machine/vt_bpred.c) on
 * its own: the scenarios enter "blocks" as the vt flavour's trace-pc does
 * (each blk_*() below is one call site of __sanitizer_cov_trace_pc(), so
 * one block, in blk_*()'s own frame: blocks called from one frame share a
 * stack pointer, one called deeper is a call).  This file is not
 * instrumented: the choices the harness makes between blocks are the
 * program's data, invisible to the predictor.
 *
 *   a branch:            S ---> A     (S's successor is the branch scored)
 *                          \--> B
 *
 *   calls, by a coin:    S1 -call f-> F1 -ret-> N1     or, a frame deeper,
 *                                                       S2 -call f-> F1 -ret-> N2
 *   after_call(coin):    S -call f-> F1 -ret-> N1 or N2 (S's branch, by the coin)
 *
 * One CPU, no memory hierarchy, cost.block 1 ns, core.mispredict 10 ns:
 * a run's time is its blocks plus 10 ns a misprediction, nothing else.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

void __sanitizer_cov_trace_pc(void);

#define PENALTY_NS	10.0
#define N		4000

static struct vt_machine mach;

static void machine(double penalty)
{
	memset(&mach, 0, sizeof(mach));
	snprintf(mach.name, sizeof(mach.name), "bp");
	mach.sockets = mach.l3_per_socket = mach.cores_per_l3 = mach.smt = 1;
	mach.nr_cpus = 1;
	for (int d = 0; d < VT_NR_DIST; d++)
		mach.lat_ns[d] = 10;
	mach.cost_ns[VT_C_MEM] = 100;
	mach.cost_ns[VT_C_BLOCK] = 1;
	mach.line_window = VT_WINDOW_DEFAULT;
	mach.rmw_drain = true;
	mach.mispredict_ns = penalty;
}

#define BLOCK(name) static __attribute__((noinline)) void name(void) \
	{ __sanitizer_cov_trace_pc(); __asm__ volatile("" ::: "memory"); }
BLOCK(blk_s)
BLOCK(blk_a)
BLOCK(blk_b)
BLOCK(blk_x)
BLOCK(blk_xa)
BLOCK(blk_xb)
BLOCK(blk_y)
BLOCK(blk_ya)
BLOCK(blk_yb)
BLOCK(blk_s1)
BLOCK(blk_s2)
BLOCK(blk_f1)
BLOCK(blk_n1)
BLOCK(blk_n2)

static unsigned int rnd = 1;

/* The harness's data: a pseudo-random bit (xorshift), the same every run. */
static int coin(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 17;
	rnd ^= rnd << 5;
	return rnd & 1;
}

static int pattern;

/* S then A or B, N times, as @pattern says. */
static void branchy(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++) {
		int way;

		switch (pattern) {
		case 0: way = 0; break;			/* always A */
		case 1: way = i & 1; break;		/* A B A B ... */
		case 2: way = i % 3 == 2; break;	/* A A B A A B ... */
		default: way = coin(); break;		/* the data's own */
		}
		blk_s();
		way ? blk_b() : blk_a();
	}
}

/* X goes by a coin, then Y the same way as X (@same) or by a coin of its own. */
static int same;

static void correlated(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++) {
		int x = coin(), y = same ? x : coin();

		blk_x();
		x ? blk_xb() : blk_xa();
		blk_y();
		y ? blk_yb() : blk_ya();
	}
}

/*
 * F1 is called from two sites in the order of a coin; each site's next
 * block is its own.  Site 2 runs a frame deeper (site_deeper()), so that
 * the harness's coin between the sites is a call or a return, never a
 * branch scored or a bit of history: nothing says which site F1 returns
 * to but the return itself.
 */
static __attribute__((noinline)) void f(void)
{
	blk_f1();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void site(int which)
{
	which ? blk_s2() : blk_s1();
	f();
	which ? blk_n2() : blk_n1();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void site_deeper(void)
{
	site(1);
	__asm__ volatile("" ::: "memory");
}

/* S calls F1, then goes to N1 or N2 by a coin: the caller's own branch, after the return. */
static __attribute__((noinline)) void after_call(int way)
{
	blk_s();
	f();
	way ? blk_n2() : blk_n1();
	__asm__ volatile("" ::: "memory");
}

static void calls_then_branch(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++)
		after_call(coin());
}

static void calls(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++) {
		if (coin())
			site_deeper();
		else
			site(0);
	}
}

static struct vt_stats st;

static int run(void (*fn)(void *))
{
	static void *args[1];

	rnd = 1;
	if (vt_run(&mach, 1, fn, args, NULL, 0, &st))
		return -1;
	return 0;
}

static void test_patterns(void)
{
	static const char *const name[] = { "always A", "A B alternating", "A A B repeating", "by a coin" };

	machine(PENALTY_NS);
	for (pattern = 0; pattern < 4; pattern++) {
		ok(!run(branchy), "%s: the run ran", name[pattern]);
		diag("%s: %llu mispredicts of %d branches, %llu blocks, %.0f ns",
		     name[pattern], st.mispredicts, N, st.blocks, st.end_ns);
		is_int((long)st.blocks, 2 * N, "%s: %d blocks", name[pattern], 2 * N);
		/* the whole cost: a block each, and the penalty for each misprediction */
		ok(fabs(st.end_ns - (st.blocks + PENALTY_NS * st.mispredicts)) < 0.01,
		   "%s: %.0f ns is %llu blocks + %.0f ns x %llu mispredicts", name[pattern],
		   st.end_ns, st.blocks, PENALTY_NS, st.mispredicts);
		ok(fabs(st.branch_ns - PENALTY_NS * st.mispredicts) < 0.01,
		   "%s: branch time %.0f ns is the refills'", name[pattern], st.branch_ns);
		ok(fabs(st.code_ns - st.blocks) < 0.01, "%s: code time %.0f ns is the blocks' alone",
		   name[pattern], st.code_ns);
		switch (pattern) {
		case 0:
			is_int((long)st.mispredicts, 0, "a branch that always goes one way is never mispredicted");
			break;
		case 1:
		case 2:
			/* history learns a period: only the first rounds go wrong */
			ok(st.mispredicts >= 1 && st.mispredicts <= N / 100,
			   "%s: %llu mispredicts, learned (1..%d)", name[pattern], st.mispredicts, N / 100);
			break;
		default:
			ok(st.mispredicts >= 0.4 * N && st.mispredicts <= 0.6 * N,
			   "a coin's branch: %llu mispredicts of %d, about half", st.mispredicts, N);
		}
	}
}

static void test_correlated(void)
{
	unsigned long long alone, with;

	machine(PENALTY_NS);
	same = 0;
	run(correlated);
	alone = st.mispredicts;
	same = 1;
	run(correlated);
	with = st.mispredicts;
	diag("two coins: %llu mispredicts; Y as X went: %llu (of %d pairs)", alone, with, N);
	ok(alone >= 0.8 * N && alone <= 1.2 * N, "two coins: %llu mispredicts of %d pairs, about one a pair",
	   alone, N);
	/* Y's way is in the global history X left: predicted, X's coin alone goes wrong */
	ok(with >= 0.4 * N && with <= 0.6 * N, "Y as X went: %llu mispredicts, about half a pair", with);
}

static void test_calls(void)
{
	machine(PENALTY_NS);
	ok(!run(calls), "calls: the run ran");
	diag("calls from two sites by a coin: %llu mispredicts, %llu blocks", st.mispredicts, st.blocks);
	is_int((long)st.blocks, 3 * N, "calls: %d blocks", 3 * N);
	/*
	 * After F1 returns, the caller's block chooses: S1 -> N1 and S2 -> N2
	 * always.  Scored from F1 instead, F1 -> N1 or N2 follows the coin,
	 * which no history shows: about one a call in two.
	 */
	ok(st.mispredicts <= N / 100,
	   "a return goes back to its caller, whose next block is its own: %llu mispredicts of %d calls "
	   "(at most %d)", st.mispredicts, N, N / 100);
	/* S -> N1 or N2 across the call is S's branch: the coin's, scored when the call returns */
	ok(!run(calls_then_branch), "a branch after a call: the run ran");
	diag("S, a call, then a coin: %llu mispredicts", st.mispredicts);
	ok(st.mispredicts >= 0.4 * N && st.mispredicts <= 0.6 * N,
	   "the caller's branch after its call returns is scored: %llu mispredicts of %d, about half",
	   st.mispredicts, N);
}

/*
 * Two SMT siblings of one core (the memory hierarchy's settings, smt.share
 * 0.5), each running the coin's branch.  CPU 0 runs first, its sibling not
 * yet done: its blocks at half speed; CPU 1 then alone.  A refill is the
 * core's latency, not its issue width: unscaled on both.
 */
static void test_smt(void)
{
	static const double v[VT_NR_HIER] = {
		[VT_H_L1D_SIZE] = 32, [VT_H_L1D_WAYS] = 8, [VT_H_L2_SIZE] = 256, [VT_H_L2_WAYS] = 8,
		[VT_H_L2_LAT] = 5, [VT_H_L3_SIZE] = 1024, [VT_H_L3_WAYS] = 8, [VT_H_L3_LAT] = 20,
		[VT_H_MEM_REMOTE] = 200, [VT_H_ROB] = 200, [VT_H_MSHR] = 10, [VT_H_L2MSHR] = 20,
		[VT_H_PF_DEGREE] = 0, [VT_H_SMT_SHARE] = 0.5,
	};
	static void *args[2] = { (void *)1L, (void *)1L };

	for (int on = 0; on < 2; on++) {
		machine(on ? PENALTY_NS : 0);
		mach.smt = 2;
		mach.nr_cpus = 2;
		mach.hier = true;
		memcpy(mach.hier_val, v, sizeof(v));
		pattern = 3;
		rnd = 1;
		ok(!vt_run(&mach, 2, branchy, args, NULL, 0, &st), "SMT siblings%s: the run ran",
		   on ? "" : " without a predictor");
		diag("two siblings: %llu mispredicts, %.0f ns of CPU time", st.mispredicts, st.cpu_ns);
		/* 2N blocks at 2 ns (the sibling waiting its turn) and 2N at 1 ns */
		ok(fabs(st.cpu_ns - (6.0 * N + PENALTY_NS * st.mispredicts)) < 0.01,
		   "SMT siblings%s: %.0f ns is 6 x %d ns of blocks + %.0f ns x %llu refills, unscaled",
		   on ? "" : " without a predictor", st.cpu_ns, N, PENALTY_NS, st.mispredicts);
		if (on)
			ok(st.mispredicts >= 0.8 * N && st.mispredicts <= 1.2 * N,
			   "SMT siblings: %llu mispredicts, about half of each one's coins", st.mispredicts);
		else
			is_int((long)st.mispredicts, 0, "SMT siblings without a predictor: none");
	}
}

static void test_off(void)
{
	machine(0);
	pattern = 3;
	ok(!run(branchy), "no core.mispredict: the run ran");
	is_int((long)st.mispredicts, 0, "no core.mispredict: no branch predicted, none mispredicted");
	ok(fabs(st.end_ns - 2 * N) < 0.01 && st.branch_ns == 0,
	   "no core.mispredict: %.0f ns, the blocks alone", st.end_ns);
}

int main(void)
{
	plan_no_plan();
	test_patterns();
	test_correlated();
	test_calls();
	test_smt();
	test_off();
	return done_testing();
}
