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
 *   storm (test_useful): P's 128 ways learned, 60,000 coins over 64 blocks, P again
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
BLOCK(blk_p)
BLOCK(blk_pa)
BLOCK(blk_pb)
BLOCK(blk_qa)
BLOCK(blk_qb)
/* the storm's branches: 64 blocks, each its own entries in every table */
BLOCK(q00) BLOCK(q01) BLOCK(q02) BLOCK(q03) BLOCK(q04) BLOCK(q05) BLOCK(q06) BLOCK(q07)
BLOCK(q08) BLOCK(q09) BLOCK(q10) BLOCK(q11) BLOCK(q12) BLOCK(q13) BLOCK(q14) BLOCK(q15)
BLOCK(q16) BLOCK(q17) BLOCK(q18) BLOCK(q19) BLOCK(q20) BLOCK(q21) BLOCK(q22) BLOCK(q23)
BLOCK(q24) BLOCK(q25) BLOCK(q26) BLOCK(q27) BLOCK(q28) BLOCK(q29) BLOCK(q30) BLOCK(q31)
BLOCK(q32) BLOCK(q33) BLOCK(q34) BLOCK(q35) BLOCK(q36) BLOCK(q37) BLOCK(q38) BLOCK(q39)
BLOCK(q40) BLOCK(q41) BLOCK(q42) BLOCK(q43) BLOCK(q44) BLOCK(q45) BLOCK(q46) BLOCK(q47)
BLOCK(q48) BLOCK(q49) BLOCK(q50) BLOCK(q51) BLOCK(q52) BLOCK(q53) BLOCK(q54) BLOCK(q55)
BLOCK(q56) BLOCK(q57) BLOCK(q58) BLOCK(q59) BLOCK(q60) BLOCK(q61) BLOCK(q62) BLOCK(q63)
static void (*const blk_q[64])(void) = {
	q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15,
	q16, q17, q18, q19, q20, q21, q22, q23, q24, q25, q26, q27, q28, q29, q30, q31,
	q32, q33, q34, q35, q36, q37, q38, q39, q40, q41, q42, q43, q44, q45, q46, q47,
	q48, q49, q50, q51, q52, q53, q54, q55, q56, q57, q58, q59, q60, q61, q62, q63,
};

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

/*
 * The useful bits.  P learns a sequence of 128 ways drawn once (a period
 * only a history of several of its own ways tells apart, half of it
 * against what P's own entry would guess); then a storm: 64 blocks Q0..Q63
 * in turn, each going to QA or QB by a coin, mispredicted at least half
 * the time, each misprediction taking an entry in the tagged tables; then
 * P again.  The entries of P's that predicted right where the shorter
 * ones would not are marked useful and kept through the storm: P after it
 * mispredicts only while the history still holds the storm's ways.  Were
 * they not kept, P would learn its sequence again.
 *
 *   phase 1: P x P_N        phase 2: Q0..Q63 x STORM (coins)        phase 3: P x P_N
 */
#define P_N	2000
#define STORM	60000		/* with 2 x P_N: under the 2^18 scored branches of a reset */

static int phases;		/* 2: phases 1 and 2; 3: all three */
static unsigned char p_ways[128];

static void p_rounds(void)
{
	for (int i = 0; i < P_N; i++) {
		blk_p();
		p_ways[i % 128] ? blk_pb() : blk_pa();
	}
}

static void storm(void *arg)
{
	(void)arg;
	for (int i = 0; i < 128; i++)
		p_ways[i] = (unsigned char)coin();
	p_rounds();
	for (int i = 0; i < STORM; i++) {
		blk_q[i % 64]();
		coin() ? blk_qb() : blk_qa();
	}
	if (phases == 3)
		p_rounds();
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

static void test_useful(void)
{
	unsigned long long two, three;

	machine(PENALTY_NS);
	phases = 2;
	ok(!run(storm), "P, then the storm: the run ran");
	two = st.mispredicts;
	phases = 3;
	ok(!run(storm), "P, the storm, P again: the run ran");
	three = st.mispredicts;
	diag("useful bits: %llu mispredicts through the storm, %llu with P after it", two, three);
	ok(two >= 0.4 * STORM, "the storm: %llu mispredicts, at least about half of %d coins", two, STORM);
	/* 9 here; 46 with the useful bits inverted */
	ok(three >= two && three - two <= 24,
	   "P after the storm: %llu mispredicts (at most 24): its useful entries were kept", three - two);
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
	test_useful();
	test_off();
	return done_testing();
}
