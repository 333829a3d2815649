/*
 * The virtual-time machine's memory hierarchy (src/machine/vt_cache.c) on
 * its own: the scenarios call the entry points the vt flavour's TSan
 * instrumentation calls (__tsan_read8() and friends, vt_memcpy()), on a
 * small machine whose every level is easy to overflow:
 *
 *   socket 0                                   socket 1
 *   +-------- L3 domain 0 -------+ +-- 1 --+   +-- 2 --+ +-- 3 --+
 *   | core 0        core 1       | | 2   3 |   | 4   5 | | 6   7 |
 *   | CPU 0, 8      CPU 1, 9     | | ...   |   |  ...  | |  ...  |
 *   | L1 4K/4w L2 32K/8w  each   | |       |   |       | |       |
 *   +--- L3 256K/8w -------------+ +-------+   +-------+ +-------+
 *
 *   latencies: L2 5 ns, L3 20 ns, memory 100 ns (200 from socket 1's),
 *   core to core: SMT 2, same L3 30, same socket 60, other socket 120.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

void __tsan_read8(void *p);
void __tsan_write8(void *p);
void __tsan_read4(void *p);
void __sanitizer_cov_trace_pc(void);
void *vt_memcpy(void *d, const void *s, size_t n);

#define L1_KIB	4
#define L2_KIB	32
#define L3_KIB	256
#define LAT_L2	5.0
#define LAT_L3	20.0
#define LAT_MEM	100.0

static struct vt_machine mach;

static void small_machine(struct vt_machine *m, double degree, double share)
{
	static const double v[VT_NR_HIER] = {
		[VT_H_L1D_SIZE] = L1_KIB, [VT_H_L1D_WAYS] = 4, [VT_H_L2_SIZE] = L2_KIB,
		[VT_H_L2_WAYS] = 8, [VT_H_L2_LAT] = LAT_L2, [VT_H_L3_SIZE] = L3_KIB,
		[VT_H_L3_WAYS] = 8, [VT_H_L3_LAT] = LAT_L3, [VT_H_MEM_REMOTE] = 2 * LAT_MEM,
		[VT_H_ROB] = 200, [VT_H_MSHR] = 10, [VT_H_L2MSHR] = 20,
	};

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "small");
	m->sockets = 2;
	m->l3_per_socket = 2;
	m->cores_per_l3 = 2;
	m->smt = 2;
	m->nr_cpus = 16;
	m->lat_ns[VT_D_SMT] = 2;
	m->lat_ns[VT_D_L3] = 30;
	m->lat_ns[VT_D_SOCKET] = 60;
	m->lat_ns[VT_D_REMOTE] = 120;
	m->cost_ns[VT_C_MEM] = LAT_MEM;
	m->cost_ns[VT_C_BLOCK] = 1;
	m->line_window = VT_WINDOW_DEFAULT;
	m->hier = true;
	memcpy(m->hier_val, v, sizeof(v));
	m->hier_val[VT_H_PF_DEGREE] = degree;
	m->hier_val[VT_H_SMT_SHARE] = share;
	m->rmw_drain = true;		/* a file without rmw.overlap or rmw.drain */
}

static char *arena;		/* 4 MiB, 4 KiB aligned: every scenario's memory */
#define ARENA	(4 << 20)

static void (*run_fn)(void *);

static void run_tramp(void *arg)
{
	if (arg)
		run_fn(arg);
}

/* A run where CPU @cpu does @fn and the CPUs below it nothing; its end time. */
static double run_on(int cpu, void (*fn)(void *), struct vt_stats *st)
{
	static void *args[VT_MAX_CPUS];

	run_fn = fn;
	for (int i = 0; i <= cpu; i++)
		args[i] = i == cpu ? (void *)1L : NULL;
	if (vt_run(&mach, cpu + 1, run_tramp, args, NULL, 0, st))
		return -1;
	return st->end_ns;
}

/* --- one CPU: a dependent chase over a working set ----------------------------------- */

static size_t chase_bytes;
static int chase_laps;
static double lap_ns;

/*
 * A pointer chase through every line of the first @chase_bytes of the
 * arena in a shuffled order, each line's first word pointing to the next:
 * every load depends on the one before, so no miss overlaps another.
 */
static void chase_build(size_t bytes, size_t stride)
{
	size_t n = bytes / stride;
	size_t *order = malloc(n * sizeof(*order));
	unsigned int r = 12345;

	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j;

		r = r * 1103515245 + 12345;
		j = (r >> 8) % (i + 1);
		size_t t = order[i]; order[i] = order[j]; order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(char **)(arena + order[i] * stride) = arena + order[(i + 1) % n] * stride;
	free(order);
	chase_bytes = bytes;
}

static void chase(void *arg)
{
	size_t n = chase_bytes / 64;
	char *p = arena;
	double t0 = 0;

	for (int lap = 0; lap < chase_laps; lap++) {
		if (lap == chase_laps - 1)
			t0 = vt_clock_ns();
		for (size_t i = 0; i < n; i++) {
			__tsan_read8(p);
			p = *(char **)p;
		}
	}
	lap_ns = (vt_clock_ns() - t0) / n;
}

static double chase_ns(size_t bytes)
{
	struct vt_stats st;

	chase_build(bytes, 64);
	chase_laps = 3;
	run_on(0, chase, &st);
	return lap_ns;
}

static void test_levels(void)
{
	small_machine(&mach, 0, 1);
	/* A working set that fits a level hits there, lap after lap. */
	ok(chase_ns(L1_KIB * 1024 / 2) == 0, "half the L1: every load hits it (%.2f ns a load)",
	   chase_ns(L1_KIB * 1024 / 2));
	ok(chase_ns(L1_KIB * 1024) == 0, "the whole L1: every load hits it (%.2f ns)",
	   chase_ns(L1_KIB * 1024));
	double l2 = chase_ns(L1_KIB * 1024 * 2);
	ok(l2 > 0.5 * LAT_L2 && l2 <= LAT_L2, "twice the L1: served by the L2, %.2f ns a load (l2.lat %.0f)",
	   l2, LAT_L2);
	l2 = chase_ns(L2_KIB * 1024);
	ok(l2 > 0.9 * LAT_L2 && l2 <= LAT_L2, "the whole L2: %.2f ns a load, the L2's latency", l2);
	double l3 = chase_ns(L2_KIB * 1024 * 2);
	ok(l3 > 0.5 * LAT_L3 && l3 <= LAT_L3, "twice the L2: served by the L3, %.2f ns a load (l3.lat %.0f)",
	   l3, LAT_L3);
	l3 = chase_ns(L3_KIB * 1024);
	ok(l3 > 0.9 * LAT_L3 && l3 <= LAT_L3, "the whole L3: %.2f ns a load, the L3's latency", l3);
	double mem = chase_ns(L3_KIB * 1024 * 4);
	ok(mem > 0.7 * LAT_MEM && mem <= LAT_MEM, "four times the L3: from memory, %.2f ns a load (cost.mem %.0f)",
	   mem, LAT_MEM);
}

/* --- the prefetcher and overlapping misses -------------------------------------------- */

static size_t walk_stride, walk_n;
static bool walk_dependent, walk_atomic;

/* A cold walk of @walk_n lines @walk_stride apart: a chase, or independent loads. */
static void walk(void *arg)
{
	double t0 = vt_clock_ns();
	char *p = arena;

	for (size_t i = 0; i < walk_n; i++) {
		char *q = arena + (i + 1) * walk_stride;

		if (walk_atomic) {
			vt_access(arena + i * walk_stride, VT_RMW);	/* a locked add on each line */
		} else if (walk_dependent) {
			__tsan_read8(p);
			p = *(char **)p;
		} else {
			__tsan_read4(arena + i * walk_stride);
			__sanitizer_cov_trace_pc();
		}
		(void)q;
	}
	lap_ns = (vt_clock_ns() - t0) / walk_n;
}

/* walk() of 256 lines @stride apart on the machine in mach: ns a line. */
static double walk_on_mach(size_t stride, bool dependent, struct vt_stats *st)
{
	walk_stride = stride;
	walk_n = 256;
	walk_dependent = dependent;
	for (size_t i = 0; i < walk_n; i++)
		*(char **)(arena + i * stride) = arena + (i + 1) * stride;
	run_on(0, walk, st);
	return lap_ns;
}

static double walk_ns(size_t stride, bool dependent, double degree, struct vt_stats *st)
{
	small_machine(&mach, degree, 1);
	return walk_on_mach(stride, dependent, st);
}

static void test_prefetch(void)
{
	struct vt_stats st;
	double seq, far;

	seq = walk_ns(64, true, 8, &st);
	ok(seq < 0.35 * LAT_MEM, "a chase through consecutive lines is prefetched: %.1f ns a line", seq);
	ok(st.prefetches > 200, "... the streamer brought %llu of its 256 lines", st.prefetches);
	seq = walk_ns(128, true, 8, &st);
	ok(seq < 0.5 * LAT_MEM, "every other line: still a stream, %.1f ns a line", seq);
	far = walk_ns(64 * 3, true, 8, &st);
	ok(far > 0.9 * LAT_MEM && st.prefetches == 0,
	   "a stride of three lines defeats it: %.1f ns a line, %llu prefetches", far, st.prefetches);
	far = walk_ns(4096 + 64, true, 8, &st);
	ok(far > 0.9 * LAT_MEM && st.prefetches == 0,
	   "a stride of a page and a line defeats it: %.1f ns a line, %llu prefetches", far, st.prefetches);
	seq = walk_ns(64, true, 0, &st);
	ok(seq > 0.9 * LAT_MEM && st.prefetches == 0, "pf.degree 0: no prefetcher, %.1f ns a line", seq);
	/*
	 * Locked adds on consecutive lines: each misses its L1 and asks the L2,
	 * which trains the streamer as loads do; a stride of three lines, not.
	 */
	walk_atomic = true;
	seq = walk_ns(64, false, 8, &st);
	ok(seq < 0.35 * LAT_MEM && st.prefetches > 200,
	   "locked adds on consecutive lines are prefetched: %.1f ns a line, %llu prefetches", seq, st.prefetches);
	far = walk_ns(64 * 3, false, 8, &st);
	ok(far > 0.9 * LAT_MEM && st.prefetches == 0,
	   "locked adds three lines apart are not: %.1f ns a line, %llu prefetches", far, st.prefetches);
	walk_atomic = false;
	/* Independent misses overlap, up to core.mshr at a time. */
	far = walk_ns(4096 + 64, false, 0, &st);
	ok(far < 0.15 * LAT_MEM && far > LAT_MEM / 10 * 0.9,
	   "independent misses overlap ten at a time: %.1f ns a line (dependent: %.0f)", far, LAT_MEM);
	ok(st.l3_miss == 256 && st.mem_local == 256, "... each missed to memory (%llu, %llu)",
	   st.l3_miss, st.mem_local);
}

/*
 * pf.span: a chase through 1024 consecutive lines (16 pages of 4 KiB),
 * pf.degree 8.  A stream that stops at each 4 KiB page starts again on each
 * (two demand misses to train it); one that may run through 8 KiB starts
 * again every other page; through 2 MiB, once.
 */
static unsigned long long span_misses(int span_kib, double *ns)
{
	struct vt_stats st;

	small_machine(&mach, 8, 1);
	mach.pf_span_kib = span_kib;
	walk_stride = 64;
	walk_n = 1024;
	walk_dependent = true;
	for (size_t i = 0; i < walk_n; i++)
		*(char **)(arena + i * 64) = arena + (i + 1) * 64;
	if (run_on(0, walk, &st) < 0)
		return ~0ull;
	*ns = lap_ns;
	return st.l3_miss;
}

static void test_prefetch_span(void)
{
	double n4, n8, n2m;
	unsigned long long m4 = span_misses(0, &n4), m8 = span_misses(8, &n8), m2m = span_misses(2048, &n2m);

	ok(m4 >= 32 && m4 <= 48, "no pf.span (4 KiB): the stream starts again on each of 16 pages, %llu demand "
	   "misses (%.1f ns a line)", m4, n4);
	ok(m8 >= 16 && m8 <= 27 && m8 < m4, "pf.span 8: on every other page, %llu (%.1f ns a line)", m8, n8);
	ok(m2m <= 3, "pf.span 2048: once, %llu (%.1f ns a line)", m2m, n2m);
	ok(n2m < n8 && n8 < n4, "... and the chase runs faster as the span grows");
}

/*
 * pf.degree past a page: independent loads through 4096 consecutive lines
 * (64 pages), pf.span 2048, core.l2mshr 256, a tenth of a nanosecond of
 * code a line, memory 100 ns away.  The streamer keeps pf.degree lines in
 * flight, so a line costs about memory's latency over pf.degree (Little's
 * law): 1.56 ns at 64, 0.78 at 128, a stream running two pages ahead.  At
 * 256 the L1's ten fill buffers bound it instead: each line still misses the
 * L1 and waits 5 ns for the L2, ten at a time, so no faster than 0.5 ns.
 */
static double degree_ns(int degree, struct vt_stats *st)
{
	small_machine(&mach, degree, 1);
	mach.pf_span_kib = 2048;
	mach.hier_val[VT_H_L2MSHR] = 256;
	mach.cost_ns[VT_C_BLOCK] = 0.1;
	walk_stride = 64;
	walk_n = 4096;
	walk_dependent = false;
	if (run_on(0, walk, st) < 0)
		return -1;
	return lap_ns;
}

static void test_prefetch_degree(void)
{
	struct vt_stats st;
	double ns128 = 0, ns;

	for (int d = 64; d <= 128; d *= 2) {
		double want = LAT_MEM / d;

		ns = degree_ns(d, &st);
		ok(ns > 0.9 * want && ns < 1.15 * want, "pf.degree %d: %.2f ns a line streamed, memory's "
		   "latency over %d (%.2f); %llu prefetches", d, ns, d, want, st.prefetches);
		ns128 = ns;
	}
	ns = degree_ns(256, &st);
	ok(ns >= LAT_L2 / 10 && ns < 0.9 * ns128, "pf.degree 256: %.2f ns a line, faster than at 128 and "
	   "bound by the L1's fill buffers (%.2f)", ns, LAT_L2 / 10);
}

/*
 * pf.stride and pf.ahead: a dependent chase of 256 steps @stride bytes
 * apart, one load instruction, memory 100 ns away, one block (1 ns) a step:
 *
 *	line  0      32     64     96  ...	(a 2 KiB stride: 32 lines a step)
 *	      |------|------|------|---	the load's addresses, a constant stride
 *	after two equal strides the prefetcher fetches @ahead strides on
 *
 * Without it every step misses to memory (the streamer follows only one or
 * two lines); with it, about memory's latency over @ahead a step.
 */
static double stride_ns(size_t stride, int max, int ahead, struct vt_stats *st)
{
	small_machine(&mach, 8, 1);
	mach.pf_stride = max;
	mach.pf_ahead = ahead;
	return walk_on_mach(stride, true, st);
}

static void test_prefetch_stride(void)
{
	struct vt_stats st;
	double ns, ns1;

	ns = stride_ns(2048, 0, 0, &st);
	ok(ns > 0.9 * LAT_MEM && st.prefetches == 0,
	   "no pf.stride: a 2 KiB-stride chase misses every step, %.1f ns, %llu prefetches", ns, st.prefetches);
	ns = stride_ns(2048, 2048, 4, &st);
	ok(ns < 0.35 * LAT_MEM && st.prefetches > 240,
	   "pf.stride 2048, pf.ahead 4: the same chase, %.1f ns a step, %llu lines prefetched", ns, st.prefetches);
	ok(st.mem_local < 16, "... and no more than the training steps miss to memory (%llu)", st.mem_local);
	ns = stride_ns(2048, 2047, 4, &st);
	ok(ns > 0.9 * LAT_MEM && st.prefetches == 0, "pf.stride 2047, a byte short of the stride: not followed "
	   "(%.1f ns)", ns);
	ns = stride_ns(2048, 2049, 4, &st);
	ok(ns < 0.35 * LAT_MEM, "pf.stride 2049: followed (%.1f ns)", ns);
	ns1 = stride_ns(2048, 2048, 1, &st);
	ok(ns1 > 0.9 * LAT_MEM && ns1 < 1.1 * LAT_MEM, "pf.ahead 1: one stride ahead is asked for a step "
	   "before it is wanted and hides about nothing, %.1f ns", ns1);
	ns = stride_ns(2048, 2048, 0, &st);
	ok(fabs(ns - ns1) < 1e-9, "pf.ahead not given: one stride ahead, as pf.ahead 1 (%.1f ns)", ns);
	ns = stride_ns(2048, 2048, 2, &st);
	ok(ns > 0.4 * LAT_MEM && ns < 0.6 * LAT_MEM, "pf.ahead 2: about half of memory's latency, %.1f ns", ns);
	ns = stride_ns(192, 2048, 4, &st);
	ok(ns < 0.35 * LAT_MEM && st.prefetches > 0, "three lines a step, which the streamer does not follow, "
	   "it does: %.1f ns", ns);
	ns = stride_ns(8192, 8192, 4, &st);
	ok(ns < 0.35 * LAT_MEM, "8 KiB a step, across pages, at pf.stride 8192: %.1f ns", ns);
}

/* --- l1d.lat: a chase through the L1 pays the load-to-use latency, independent hits do not -- */

/*
 * Half the L1 (32 lines), warmed by eight laps, then timed over eight, one
 * basic block (1 ns) a step.  A chase at 1.25 ns a load falls behind the
 * code by 0.25 ns a step from the first lap of hits until it is core.rob's
 * 40 blocks (40 ns) behind, 160 steps later, and stalls the core from then
 * on: the timed laps see the chase's own rate.
 *
 *   chase:        p = *(p + skew): each line holds the next line's address minus @skew, so a
 *                 load lies @skew bytes past the pointer it follows; followed below 256 bytes
 *   independent:  load line i of a second region holding no pointers: nothing to wait for
 */
static bool l1_indep;
static size_t l1_skew;
#define L1_OTHER	(1 << 20)	/* the independent loads' region, past the chase's */
#define L1_WARM		8
#define L1_TIMED	8

static void l1_walk(void *arg)
{
	size_t n = chase_bytes / 64;
	char *p = arena - l1_skew;
	double t0 = 0;

	for (int lap = 0; lap < L1_WARM + L1_TIMED; lap++) {
		if (lap == L1_WARM)
			t0 = vt_clock_ns();
		for (size_t i = 0; i < n; i++) {
			__sanitizer_cov_trace_pc();
			if (l1_indep) {
				__tsan_read8(arena + L1_OTHER + 64 * i);
			} else {
				__tsan_read8(p + l1_skew);
				p = *(char **)(p + l1_skew);
			}
		}
	}
	lap_ns = (vt_clock_ns() - t0) / n / L1_TIMED;
}

static double l1_ns(double l1_lat, bool indep, size_t skew)
{
	struct vt_stats st;

	small_machine(&mach, 8, 1);
	mach.l1_lat_ns = l1_lat;
	chase_build(L1_KIB * 1024 / 2, 64);
	for (size_t i = 0; i < chase_bytes / 64; i++)
		*(char **)(arena + 64 * i) -= skew;
	l1_indep = indep;
	l1_skew = skew;
	run_on(0, l1_walk, &st);
	return lap_ns;
}

static void test_l1_latency(void)
{
	double ns;

	ns = l1_ns(0, false, 0);
	ok(fabs(ns - 1) < 1e-9, "l1d.lat unset: a chase through the L1 costs its block alone (%.3f ns a load)",
	   ns);
	ns = l1_ns(1.25, false, 0);
	ok(fabs(ns - 1.25) < 1e-9, "l1d.lat 1.25: the same chase costs 1.25 ns a load (%.3f)", ns);
	ns = l1_ns(0.5, false, 0);
	ok(fabs(ns - 1) < 1e-9, "l1d.lat 0.5, below the step's block: the block is the step (%.3f ns)", ns);
	ns = l1_ns(1.25, true, 0);
	ok(fabs(ns - 1) < 1e-9, "independent hits do not wait: their block alone, 1 ns a load (%.3f)", ns);
	ns = l1_ns(1.25, false, 255);
	ok(fabs(ns - 1.25) < 1e-9, "a load 255 bytes past the pointer it follows waits for it (%.3f ns)", ns);
	ns = l1_ns(1.25, false, 256);
	ok(fabs(ns - 1) < 1e-9, "one 256 bytes past is not taken to follow it (%.3f ns)", ns);
}

/*
 * The chase above, once around the 32 lines to bring them into the L1 (the
 * last miss leaves the core caught up), then @steps steps of hits, timed,
 * l1d.lat 1.25 ns, one block (1 ns) a step, core.rob 200 (40 blocks: 40 ns
 * of code):
 *
 *   step j:  the code is at j ns, the chase's data at 1.25 j (the first hit's
 *            address is the last miss's data, there at 0, and the hit issues
 *            in that miss's shadow)
 *   stall:   only once the chase is more than 40 ns behind: at step j the
 *            load waits for step j - 1's data, 1.25 (j - 1) against j + 40,
 *            so from step 166; then the core waits until it is 40 ns behind,
 *            and goes at the chase's 1.25 ns a step
 */
static unsigned long l1_steps;

static void l1_chain_walk(void *arg)
{
	size_t n = chase_bytes / 64;
	char *p = arena;
	double t0;

	for (size_t i = 0; i < n; i++) {
		__sanitizer_cov_trace_pc();
		__tsan_read8(p);
		p = *(char **)p;
	}
	t0 = vt_clock_ns();
	for (unsigned long i = 0; i < l1_steps; i++) {
		__sanitizer_cov_trace_pc();
		__tsan_read8(p);
		p = *(char **)p;
	}
	lap_ns = vt_clock_ns() - t0;
}

/* CPU 8, CPU 0's SMT sibling: code throughout the chase and past it, at smt.share 1 (no slower). */
static void l1_chain_sibling(void *arg)
{
	if ((long)arg == 2) {		/* 100 us of code, an event every 10 blocks */
		for (int i = 0; i < 10000; i++) {
			for (int j = 0; j < 10; j++)
				__sanitizer_cov_trace_pc();
			vt_access(arena + (3 << 20), VT_READ);
		}
		return;
	}
	if (arg)
		l1_chain_walk(NULL);
}

static double l1_chain_ns(unsigned long steps, bool sibling)
{
	static void *args[9];
	struct vt_stats st;

	small_machine(&mach, 8, 1);
	mach.l1_lat_ns = 1.25;
	chase_build(L1_KIB * 1024 / 2, 64);
	l1_steps = steps;
	if (!sibling) {
		run_on(0, l1_chain_walk, &st);
		return lap_ns;
	}
	memset(args, 0, sizeof(args));
	args[0] = (void *)1L;
	args[8] = (void *)2L;
	lap_ns = -1;
	if (vt_run(&mach, 9, l1_chain_sibling, args, NULL, 0, &st))
		return -1;
	return lap_ns;
}

static void test_l1_chain_rob(void)
{
	static const struct { unsigned long steps; double want; const char *why; } cases[] = {
		{ 100, 100, "100 steps, under 25 ns behind: the core goes on, its blocks alone" },
		{ 165, 165, "165 steps, the last one's address 40 ns behind: no stall" },
		{ 166, 166.25, "166 steps, 40.25 ns behind: the core waits 0.25 ns" },
		{ 170, 171.25, "170 steps: from there on the chase's 1.25 ns a step" },
		{ 400, 458.75, "400 steps: step 399's data (498.75 ns) less the 40 ns the window holds" },
	};

	/*
	 * With CPU 8, its SMT sibling, running code all along, the thread has
	 * half the reorder buffer, 20 blocks: the core waits once the chase is
	 * 20 ns behind, from step 86.
	 */
	static const struct { unsigned long steps; double want; const char *why; } smt[] = {
		{ 85, 85, "85 steps, the last one's address 20 ns behind: no stall" },
		{ 86, 86.25, "86 steps, 20.25 ns behind: the core waits 0.25 ns" },
		{ 400, 478.75, "400 steps: step 399's data (498.75 ns) less the 20 ns half the window holds" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double ns = l1_chain_ns(cases[i].steps, false);

		ok(fabs(ns - cases[i].want) < 1e-9, "l1d.lat behind core.rob: %s (%.3f ns, want %.2f)",
		   cases[i].why, ns, cases[i].want);
	}
	for (size_t i = 0; i < sizeof(smt) / sizeof(smt[0]); i++) {
		double ns = l1_chain_ns(smt[i].steps, true);

		ok(fabs(ns - smt[i].want) < 1e-9, "l1d.lat, the SMT sibling busy: %s (%.3f ns, want %.2f)",
		   smt[i].why, ns, smt[i].want);
	}
}

/*
 * A miss whose address a hit brought, the hit's own address from a miss:
 *
 *   C0 -> H0 -> C1 -> H1 -> ... -> C255 -> H255 -> C0
 *
 *   C: 256 lines, 16 KiB: never in the 4 KiB L1 (a cycle through 16 per set), always in the
 *      L2 (5 ns)
 *   H: 256 words, word i at line i % 32, word i / 32 of a 2 KiB region: 2 lines a set, each
 *      read every 64 steps, always in the L1
 *
 * Every step is one basic block (1 ns).  The next C's address is known only
 * once H's data is there, l1d.lat after H's load, and H's once C's miss
 * is: a step pair costs the miss, the hit's latency and nothing overlaps.
 */
#define HC_COLD		256
#define HC_HOT_AT	(1 << 20)

static char *hc_hot(int i)
{
	return arena + HC_HOT_AT + 64 * (i % 32) + 8 * (i / 32);
}

static void hc_build(void)
{
	for (int i = 0; i < HC_COLD; i++) {
		*(char **)(arena + 64 * i) = hc_hot(i);
		*(char **)hc_hot(i) = arena + 64 * ((i + 1) % HC_COLD);
	}
}

static void hc_walk(void *arg)
{
	char *p = arena;
	double t0 = 0;

	for (int lap = 0; lap < 3; lap++) {
		if (lap == 2)
			t0 = vt_clock_ns();
		for (int i = 0; i < 2 * HC_COLD; i++) {
			__sanitizer_cov_trace_pc();
			__tsan_read8(p);
			p = *(char **)p;
		}
	}
	lap_ns = (vt_clock_ns() - t0) / HC_COLD;
}

/*
 * Two misses a step, the second on a pointer read from a hit:
 *
 *   X_i:  line i % 128 of an 8 KiB region (an index, no pointer): an L1 miss, an L2 hit
 *   H:    one line, in the L1: the step writes C_i's address into it and reads it back
 *   C_i:  C's line i, at the address H held: an L1 miss, an L2 hit
 *
 * Nothing waits for X_i, and H's address is no load's data: H issues in the
 * shadow of the misses in flight, and C_i, which waits only for H, with it.
 * The steps overlap one another as independent misses do: well under one L2
 * latency a step, where a C that waited for the X before it would cost
 * both latencies and H's.
 */
#define HC_X_AT		(HC_HOT_AT + (64 << 10))

static void hc_indep_walk(void *arg)
{
	char **h = (char **)(arena + HC_HOT_AT);
	double t0 = 0;

	for (int lap = 0; lap < 3; lap++) {
		if (lap == 2)
			t0 = vt_clock_ns();
		for (int i = 0; i < HC_COLD; i++) {
			__sanitizer_cov_trace_pc();
			__tsan_read8(arena + HC_X_AT + 64 * (i % 128));
			__tsan_write8(h);
			*h = arena + 64 * i + 8;
			__tsan_read8(h);
			__tsan_read8(*h);
		}
	}
	lap_ns = (vt_clock_ns() - t0) / HC_COLD;
}

/*
 * A line in flight: the model fills the L1 at the miss, but a second load of
 * the same line gets its data only when the line arrives.
 *
 *   X_i --word 1--> C_i --word 0--> X_(i+1)     X: 128 lines at HC_X_AT, C: 128 lines at 0
 *
 * X_i's miss brings the line; its word 1 (an L1 "hit" at X_i + 8) holds
 * C_i's address, so C_i's miss cannot issue before X_i's data is there and
 * that load's latency has passed: 5 + 1.25 + 5 ns a step.
 */
static void hc_fill_walk(void *arg)
{
	char *p = arena + HC_X_AT;
	double t0 = 0;

	for (int lap = 0; lap < 3; lap++) {
		if (lap == 2)
			t0 = vt_clock_ns();
		for (int i = 0; i < 128; i++) {
			char *c;

			__sanitizer_cov_trace_pc();
			__tsan_read8(p);
			__tsan_read8(p + 8);
			c = *(char **)(p + 8);
			__tsan_read8(c);
			p = *(char **)c;
		}
	}
	lap_ns = (vt_clock_ns() - t0) / 128;
}

static void hc_fill_build(void)
{
	for (int i = 0; i < 128; i++) {
		char *x = arena + HC_X_AT + 64 * i, *c = arena + 64 * i;

		*(char **)x = NULL;
		*(char **)(x + 8) = c;
		*(char **)c = arena + HC_X_AT + 64 * ((i + 1) % 128);
	}
}

static double hc_ns(double l1_lat, void (*walk)(void *))
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	mach.l1_lat_ns = l1_lat;
	if (walk == hc_fill_walk)
		hc_fill_build();
	else
		hc_build();
	run_on(0, walk, &st);
	return lap_ns;
}

static void test_hit_then_miss(void)
{
	double ns = hc_ns(1.25, hc_walk);

	/* the two blocks of a pair run under the chain's latencies */
	ok(fabs(ns - (LAT_L2 + 1.25)) < 0.05,
	   "a miss on a pointer a hit brought waits for the hit: %.2f ns a C-H pair (want %.2f)", ns,
	   LAT_L2 + 1.25);
	ns = hc_ns(1.25, hc_indep_walk);
	ok(ns >= 1 && ns < LAT_L2 / 2,
	   "an independent hit issues in the shadow of the misses in flight, and so does the miss on "
	   "its pointer: %.2f ns a step (want 1, its block, to %.1f)", ns, LAT_L2 / 2);
	ns = hc_ns(1.25, hc_fill_walk);
	ok(fabs(ns - (2 * LAT_L2 + 1.25)) < 0.05,
	   "a second load of a line in flight has its data when the line arrives: %.2f ns a step (want %.2f)",
	   ns, 2 * LAT_L2 + 1.25);
}

/* --- SMT siblings share a core ------------------------------------------------------------- */

static char *own_line[VT_MAX_CPUS];

/* 100 rounds of 100 basic blocks, each round ending in an event (a scheduling point). */
static void spin_code(void *arg)
{
	long cpu = (long)arg - 1;

	if (cpu < 0)
		return;
	for (int r = 0; r < 100; r++) {
		for (int i = 0; i < 100; i++)
			__sanitizer_cov_trace_pc();
		vt_access(own_line[cpu], VT_READ);
	}
}

/* CPUs @a and @b each run 10000 blocks at 1 ns, after a first touch of 100 ns: when they end. */
static double code_end(int a, int b, double share)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;

	small_machine(&mach, 0, share);
	for (int i = 0; i < VT_MAX_CPUS; i++) {
		args[i] = NULL;
		own_line[i] = arena + (1 << 21) + 4096 * i;
	}
	args[a] = (void *)(long)(a + 1);
	args[b] = (void *)(long)(b + 1);
	if (vt_run(&mach, (a > b ? a : b) + 1, spin_code, args, NULL, 0, &st))
		return -1;
	return st.end_ns;
}

static void near(double got, double want, const char *what)
{
	ok(got >= want * 0.99 && got <= want * 1.01, "%s: %.0f ns (want %.0f)", what, got, want);
}

static void test_smt(void)
{
	ok(vt_distance(&(struct vt_machine){ .sockets = 2, .l3_per_socket = 2, .cores_per_l3 = 2,
					   .smt = 2 }, 0, 8) == VT_D_SMT, "CPUs 0 and 8 are one core's two threads");
	near(code_end(0, 1, 0.5), 100 + 10000, "two cores each run their 10000 blocks at full speed");
	near(code_end(0, 8, 0.5), 100 + 20000, "two busy siblings at smt.share 0.5 take twice as long");
	near(code_end(0, 8, 0.8), 100 + 12500, "... at smt.share 0.8, 1/0.8 as long");
	near(code_end(0, 8, 1), 100 + 10000, "... at smt.share 1, no longer");
	near(code_end(0, 9, 0.5), 100 + 10000, "CPUs 0 and 9 are on two cores: full speed");
}

/* --- lines other cores hold ------------------------------------------------------------------ */

static char *line_x;
static double read_ns;
static bool second_writes;	/* the second CPU's access is a marked store, not a read */
static bool second_marked_load;	/* ... a marked load (READ_ONCE()), not a plain one */

static void writer_then_reader(void *arg)
{
	long role = (long)arg;
	double t0;

	if (role == 1) {
		__tsan_write8(line_x);
	} else if (role == 2) {
		vt_delay_ns(1000);
		t0 = vt_clock_ns();
		if (second_writes)
			vt_access(line_x, VT_WRITE);
		else if (second_marked_load)
			vt_access(line_x, VT_READ | VT_LOAD | VT_WORD);
		else
			__tsan_read8(line_x);
		read_ns = vt_clock_ns() - t0;
	}
}

/* CPU @w writes a line, then CPU @r reads it: what the read costs. */
static double handoff(int w, int r)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;
	int n = (w > r ? w : r) + 1;

	small_machine(&mach, 0, 1);
	for (int i = 0; i < n; i++)
		args[i] = NULL;
	args[w] = (void *)1L;
	args[r] = (void *)2L;
	line_x = arena + 64 * 1000;
	if (vt_run(&mach, n, writer_then_reader, args, NULL, 0, &st))
		return -1;
	return read_ns;
}

/* CPU 0 writes a line then streams through more than its L2; CPU 1 reads the line. */
static void evict_then_read(void *arg)
{
	long role = (long)arg;

	if (role == 1) {
		__tsan_write8(line_x);
		for (size_t a = 0; a < 2 * L2_KIB * 1024; a += 64)
			__tsan_read4(arena + (1 << 20) + a);
	} else if (role == 2) {
		double t0;

		vt_delay_ns(1000000);
		t0 = vt_clock_ns();
		__tsan_read8(line_x);
		read_ns = vt_clock_ns() - t0;
	}
}

static void test_sharing(void)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;

	is_int((int)handoff(0, 8), 0, "a line the sibling wrote: in their core's L1, a hit");
	is_int((int)handoff(0, 1), 30, "a line a core of the same L3 wrote: lat.l3 (30 ns)");
	is_int((int)handoff(0, 2), 60, "a line a core of another L3 domain wrote: lat.socket (60 ns)");
	is_int((int)handoff(0, 4), 120, "a line a core of the other socket wrote: lat.remote (120 ns)");
	/* Once the writer's L2 has let it go, the L3 serves it. */
	small_machine(&mach, 0, 1);
	line_x = arena + 64 * 1000;
	args[0] = (void *)1L;
	args[1] = (void *)2L;
	vt_run(&mach, 2, evict_then_read, args, NULL, 0, &st);
	is_int((int)read_ns, (int)LAT_L3, "a line the writer's L2 evicted: from the L3 (l3.lat 20 ns)");
}

/* A write to a line three other CPUs read invalidates every copy. */
static void readers_then_writer(void *arg)
{
	long role = (long)arg;
	double t0;

	if (role == 1) {
		__tsan_read8(line_x);
		vt_delay_ns(2000);
		/*
		 * Plain hits are no scheduling points: an event lets the CPUs
		 * behind in virtual time (the writer) run first.
		 */
		vt_access(arena + (3 << 20), VT_READ);
		t0 = vt_clock_ns();
		__tsan_read8(line_x);	/* the writer has it now */
		read_ns = vt_clock_ns() - t0;
	} else if (role == 2) {
		__tsan_read8(line_x);
	} else if (role == 3) {
		vt_delay_ns(1000);
		__tsan_write8(line_x);
	}
}

static void test_invalidate(void)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	line_x = arena + 64 * 2000;
	for (int i = 0; i < 5; i++)
		args[i] = (void *)2L;
	args[0] = (void *)1L;
	args[4] = (void *)3L;
	vt_run(&mach, 5, readers_then_writer, args, NULL, 0, &st);
	is_int((int)read_ns, 120, "a reader whose copy a write on the other socket took: lat.remote again");
	ok(st.transfers >= 2, "the write and the re-read each moved the line (%llu transfers)", st.transfers);
}

/* --- a contended spinlock's hand-off ----------------------------------------------------------- */

static int ho_lock __attribute__((aligned(64)));
static double ho_unlocked, ho_got;

/* CPU 0 holds the lock 1 us; the other CPU asks for it meanwhile and waits in its queue. */
static void handoff_thread(void *arg)
{
	if ((long)arg == 1) {
		vt_spin_lock(&ho_lock);
		vt_delay_ns(1000);
		vt_spin_unlock(&ho_lock);
		ho_unlocked = vt_clock_ns();
	} else if ((long)arg == 2) {
		vt_delay_ns(100);
		vt_spin_lock(&ho_lock);
		ho_got = vt_clock_ns();
		vt_spin_unlock(&ho_lock);
	}
}

static void test_lock_handoff(void)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	for (int w = 1; w <= 4; w *= 2) {
		int n = w + 1;
		double lat = w == 1 ? 30 : w == 2 ? 60 : 120;

		for (int i = 0; i < n; i++)
			args[i] = NULL;
		args[0] = (void *)1L;
		args[w] = (void *)2L;
		ho_lock = 0;
		vt_run(&mach, n, handoff_thread, args, NULL, 0, &st);
		near(ho_got - ho_unlocked, 2 * lat, w == 1 ? "a waiter in the same L3 takes the lock two "
		     "transfers after the unlock (its read, then its write)" : w == 2 ?
		     "... from another L3 domain, two lat.socket" : "... from the other socket, two lat.remote");
		is_int((int)st.lock_handoffs, 1, "... handed over once");
	}
}

/* --- copies -------------------------------------------------------------------------------- */

static void copy_page(void *arg)
{
	vt_memcpy(arena + (2 << 20), arena + (3 << 20), 4096);
}

static void test_copy(void)
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	run_on(0, copy_page, &st);
	is_int((int)st.l1_miss, 128, "a 4 KiB memcpy misses on its 64 source and 64 destination lines");
	is_int((int)st.mem_local, 128, "... all of them from memory");
	ok(memcmp(arena + (2 << 20), arena + (3 << 20), 4096) == 0, "... and copies the bytes");
	ok(st.end_ns >= 128 / 10 * LAT_MEM && st.end_ns < 64 * LAT_MEM,
	   "... ten misses at a time: %.0f ns", st.end_ns);
}


/* --- the L3's replacement: a hit is a use ----------------------------------------------- */

/*
 * A hot working set twice the L2 (64 KiB, 2 lines of each of the L3's 512
 * sets), chased lap after lap in one order (so every load misses the L2),
 * with 32 KiB of fresh lines written between laps (1 a set): the L3 keeps
 * the 2 hot lines of each set, hit every lap, and lets the stream's oldest
 * go.  An L3 that did not count its hits as
 * uses would drop the hot lines every 7th lap, once 6 newer ones had come
 * into their set, and fetch them from memory again.
 *
 *   L3 set s:  [hot hot | stream x 6]   (8 ways)
 *               hit each lap  1 new a lap, the oldest leaves
 */
#define LRU_HOT		(2 * L2_KIB * 1024)
#define LRU_STREAM	(L2_KIB * 1024)
#define LRU_LAPS	16
static double lru_worst_lap;	/* ns a load, the slowest lap after the first */

static void hot_and_stream(void *arg)
{
	size_t n = LRU_HOT / 64;
	char *p = arena;

	for (int lap = 0; lap < LRU_LAPS; lap++) {
		double t0 = vt_clock_ns();

		for (size_t i = 0; i < n; i++) {
			__tsan_read8(p);
			p = *(char **)p;
		}
		if (lap && (vt_clock_ns() - t0) / n > lru_worst_lap)
			lru_worst_lap = (vt_clock_ns() - t0) / n;
		for (size_t off = 0; off < LRU_STREAM; off += 64)
			__tsan_write8(arena + (1 << 20) + lap * LRU_STREAM + off);
	}
}

static void test_l3_lru(void)
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	chase_build(LRU_HOT, 64);
	lru_worst_lap = 0;
	run_on(0, hot_and_stream, &st);
	ok(lru_worst_lap > 0.9 * LAT_L3 && lru_worst_lap <= LAT_L3,
	   "a hot set hit in the L3 every lap stays there while 16 laps of fresh lines pass: "
	   "%.2f ns a load on its slowest lap after the first (l3.lat %.0f)", lru_worst_lap, LAT_L3);
}

/* --- fast-forward --------------------------------------------------------------------- */

static bool ff_ret[8];
static double ff_ns[4];
static unsigned long ff_bytes;

/* Read one line: its cost now. */
static double line_read_ns(char *p)
{
	double t0 = vt_clock_ns();

	__tsan_read8(p);
	return vt_clock_ns() - t0;
}

static void ff_solo(void *arg)
{
	char *x = arena + (2 << 20);

	ff_bytes = vt_cache_bytes();
	ff_ns[0] = line_read_ns(x);		/* cold: memory */
	ff_ns[1] = line_read_ns(x);		/* then an L1 hit */
	ff_ret[0] = vt_fast_forward(true);
	ff_ret[1] = vt_fast_forward(true);	/* already on */
	{
		double t0 = vt_clock_ns();

		for (size_t off = 0; off < (1 << 20); off += 64)
			__tsan_read8(arena + off);
		ff_ns[2] = vt_clock_ns() - t0;	/* a MiB read without caches: free */
	}
	ff_ret[2] = vt_fast_forward(false);
	ff_ret[3] = vt_fast_forward(false);	/* already off */
	ff_ns[3] = line_read_ns(x);		/* the caches were emptied */
	vt_window_begin();
	ff_ret[4] = vt_fast_forward(true);	/* not inside a window */
	vt_window_end();
	ff_ret[5] = vt_fast_forward(true);
	vt_window_begin();			/* ... and a window ends it */
	ff_ret[6] = vt_fast_forward(false);
	vt_window_end();
}

/* Every CPU of the run tries: did any get a fast-forward? */
static void ff_pair(void *arg)
{
	ff_ret[7] |= vt_fast_forward(true);
	ff_bytes = vt_cache_bytes();
}

static void test_fast_forward(void)
{
	struct vt_stats st;
	static void *two[2] = { (void *)1L, (void *)1L };

	small_machine(&mach, 0, 1);
	ok(!vt_fast_forward(true) && vt_cache_bytes() == 0, "outside a run: no fast-forward, no caches");
	run_on(0, ff_solo, &st);
	is_int((int)ff_bytes, (L1_KIB + L2_KIB + L3_KIB) * 1024,
	       "one CPU's caches: its L1d, its L2 and its domain's L3");
	ok(ff_ns[0] == LAT_MEM && ff_ns[1] == 0, "a line read cold costs memory's latency, then hits (%.0f, %.0f)",
	   ff_ns[0], ff_ns[1]);
	ok(ff_ret[0] && !ff_ret[1], "one CPU with caches: fast-forward starts, once");
	ok(ff_ns[2] == 0, "a MiB read fast-forwarded costs nothing (%.0f ns)", ff_ns[2]);
	ok(ff_ret[2] && !ff_ret[3], "it ends, once");
	ok(ff_ns[3] == LAT_MEM, "after it the caches are empty: the line read again costs %.0f ns", ff_ns[3]);
	ok(!ff_ret[4], "no fast-forward inside a window");
	ok(ff_ret[5] && !ff_ret[6], "opening a window ends a fast-forward");
	ff_ret[7] = false;
	run_fn = ff_pair;
	vt_run(&mach, 2, run_tramp, two, NULL, 0, &st);
	ok(!ff_ret[7], "two CPUs: no fast-forward");
	is_int((int)ff_bytes, (2 * (L1_KIB + L2_KIB) + L3_KIB) * 1024,
	       "two cores of one domain: two L1ds and L2s, one L3");
	mach.hier = false;
	ff_ret[7] = false;
	run_on(0, ff_pair, &st);
	ok(!ff_ret[7] && ff_bytes == 0, "a machine without caches: no fast-forward, no bytes");
}

/* --- a marked access costs what a plain one does ------------------------------------------ */

/*
 * With the hierarchy, READ_ONCE() and WRITE_ONCE() are the loads and stores
 * plain code makes: one that finds its line here costs nothing beyond its
 * block, whatever cost.hit says; without the hierarchy (the coherence
 * model alone) each costs cost.hit.  CPU 0, cost.hit 3 ns:
 *
 *   a marked read of line A (from memory), then 10 marked reads and 10
 *   marked writes of A, timed: 0 ns with the hierarchy, 60 without
 */
static double marked_ns;

static void marked_hits(void *arg)
{
	volatile int *a = (volatile int *)(arena + 8192);
	double t0;

	vt_access(a, VT_READ);
	t0 = vt_clock_ns();
	for (int i = 0; i < 10; i++)
		vt_access(a, VT_READ);
	for (int i = 0; i < 10; i++)
		vt_access(a, VT_WRITE);
	marked_ns = vt_clock_ns() - t0;
}

static void test_marked_hit(void)
{
	struct vt_stats st;

	for (int hier = 1; hier >= 0; hier--) {
		small_machine(&mach, 4, 1);
		mach.hier = hier;
		mach.cost_ns[VT_C_HIT] = 3;
		marked_ns = -1;
		if (run_on(0, marked_hits, &st) < 0) {
			ok(0, "marked hits, hierarchy %s: the run ends", hier ? "on" : "off");
			continue;
		}
		ok(fabs(marked_ns - (hier ? 0 : 60)) < 1e-9, "hierarchy %s: 20 marked accesses to a line "
		   "the CPU holds cost %s (%.3f ns)", hier ? "on" : "off",
		   hier ? "nothing beyond their code" : "cost.hit each, 60 ns", marked_ns);
	}
}

/* --- core.sb: stores that miss wait in the store buffer ------------------------------------ */

/*
 * CPU 0 (its core's other thread idle: the whole buffer), no prefetcher,
 * one basic block (1 ns) before each store:
 *
 *   N stores to cold lines a page and a line apart, then a clock read
 *       core.sb 32:  N <= 32: the core never waits, N ns; N = 33: the 33rd waits for
 *                    the 1st (about 100 ns); the run ends when the last is written, the
 *                    fills ten at a time (core.mshr): N = 32 about 400 ns
 *       no core.sb:  each store stalls as a load does, ten overlapped at a time
 *   the same with CPU 8, its sibling, busy: half the buffer each, the 17th waits
 *   8 stores, then a locked RMW of a line the CPU holds: it waits for them (about 100 ns)
 *   8 marked stores (WRITE_ONCE()) to cold lines: buffered as plain ones are
 *   CPU 1 owns line X; CPU 0's marked store to X: still a transfer (lat.l3 30 ns)
 *   a load that misses: still its whole latency (100 ns)
 */
#define SB_STRIDE	(4096 + 64)
static int sb_n;
static bool sb_marked, sb_rmw;
static double sb_t0, sb_issue_ns, sb_rmw_ns;

static void sb_stores(void *arg)
{
	double t0;

	if (!arg)
		return;
	if ((long)arg == 2) {		/* the busy sibling: code, and an event to meet CPU 0 at */
		for (int i = 0; i < 500; i++) {
			for (int j = 0; j < 10; j++)
				__sanitizer_cov_trace_pc();
			vt_access(arena + (3 << 20) + 4096, VT_READ);
		}
		return;
	}
	vt_access(arena + (3 << 20), VT_READ);		/* the RMW's line, held from here on */
	t0 = sb_t0 = vt_clock_ns();
	for (int i = 0; i < sb_n; i++) {
		__sanitizer_cov_trace_pc();
		if (sb_marked)
			vt_access(arena + i * SB_STRIDE, VT_WRITE);
		else
			__tsan_write8(arena + i * SB_STRIDE);
	}
	sb_issue_ns = vt_clock_ns() - t0;
	if (sb_rmw) {
		vt_access(arena + (3 << 20), VT_RMW);
		sb_rmw_ns = vt_clock_ns() - t0;
	}
}

static double sb_case(int entries, int n, bool marked, bool rmw, bool sibling, struct vt_stats *st)
{
	static void *args[9];

	small_machine(&mach, 0, 1);
	mach.sb_entries = entries;
	sb_n = n;
	sb_marked = marked;
	sb_rmw = rmw;
	sb_issue_ns = sb_rmw_ns = -1;
	if (!sibling)
		return run_on(0, sb_stores, st) - sb_t0;
	memset(args, 0, sizeof(args));
	args[0] = (void *)1L;
	args[8] = (void *)2L;
	if (vt_run(&mach, 9, sb_stores, args, NULL, 0, st))
		return -1;
	return st->end_ns - sb_t0;
}

static void sb_load(void *arg)
{
	double t0 = vt_clock_ns();

	(void)arg;
	__tsan_read8(arena + (2 << 20));
	sb_issue_ns = vt_clock_ns() - t0;
}

static double sb_stream_ns;

/* 256 stores to consecutive cold lines, one block before each. */
static void sb_stream(void *arg)
{
	double t0 = vt_clock_ns();

	(void)arg;
	for (int i = 0; i < 256; i++) {
		__sanitizer_cov_trace_pc();
		__tsan_write8(arena + (1 << 20) + i * 64);
	}
	vt_access(arena + (3 << 20), VT_RMW);	/* waits for them all */
	sb_stream_ns = vt_clock_ns() - t0;
}

static void test_store_buffer(void)
{
	static void *args[2] = { (void *)2L, (void *)1L };
	struct vt_stats st;
	double end;

	end = sb_case(32, 8, false, false, false, &st);
	ok(fabs(sb_issue_ns - 8) < 1e-9, "core.sb 32: 8 stores that miss cost the core their code, 8 ns (%.1f)",
	   sb_issue_ns);
	ok(end >= LAT_MEM && end < LAT_MEM + 20, "... and the CPU ends once they are written: %.1f ns after the "
	   "first", end);
	end = sb_case(32, 32, false, false, false, &st);
	ok(fabs(sb_issue_ns - 32) < 1e-9, "32 stores, the whole buffer: no wait (%.1f ns)", sb_issue_ns);
	ok(end >= 4 * LAT_MEM && end < 4 * LAT_MEM + 40,
	   "... written ten fills at a time (core.mshr 10): %.1f ns", end);
	is_int((int)st.mem_local, 33, "... each a line from memory (and the RMW's line)");
	sb_case(32, 33, false, false, false, &st);
	ok(sb_issue_ns >= LAT_MEM && sb_issue_ns < LAT_MEM + 40,
	   "33 stores: the 33rd waits for the first to be written (%.1f ns)", sb_issue_ns);
	sb_case(33, 33, false, false, false, &st);
	ok(fabs(sb_issue_ns - 33) < 1e-9, "core.sb 33: 33 stores do not wait (%.1f ns)", sb_issue_ns);
	sb_case(0, 32, false, false, false, &st);
	ok(sb_issue_ns > 3 * LAT_MEM, "no core.sb: 32 stores that miss stall as loads do, ten at a time "
	   "(%.1f ns)", sb_issue_ns);
	sb_case(32, 16, false, false, true, &st);
	ok(fabs(sb_issue_ns - 16) < 1e-9, "the sibling busy: 16 stores, half the buffer, do not wait (%.1f ns)",
	   sb_issue_ns);
	sb_case(32, 17, false, false, true, &st);
	ok(sb_issue_ns >= LAT_MEM && sb_issue_ns < LAT_MEM + 40,
	   "... the 17th waits for the first (%.1f ns)", sb_issue_ns);
	sb_case(32, 8, false, true, false, &st);
	ok(sb_rmw_ns >= LAT_MEM && sb_rmw_ns < LAT_MEM + 20,
	   "a locked RMW after 8 buffered stores waits for them: %.1f ns", sb_rmw_ns);
	sb_case(32, 8, true, false, false, &st);
	ok(fabs(sb_issue_ns - 8) < 1e-9, "8 marked stores to lines no other CPU holds are buffered too (%.1f ns)",
	   sb_issue_ns);
	sb_case(0, 8, true, false, false, &st);
	ok(sb_issue_ns >= 8 * LAT_MEM, "... and without core.sb fetched one after another (%.1f ns)",
	   sb_issue_ns);
	/*
	 * A stream the prefetcher runs ahead of: its lines are already on the
	 * way, and only the fetches the stores start themselves wait for a
	 * fill buffer.  Without the prefetcher each waits: 25.6 x 100 ns.
	 */
	small_machine(&mach, 8, 1);
	mach.sb_entries = 32;
	sb_stream_ns = -1;
	run_on(0, sb_stream, &st);
	ok(sb_stream_ns > 0 && sb_stream_ns < 0.7 * 256 / 10 * LAT_MEM,
	   "256 stores to consecutive lines, prefetched: %.0f ns, under 0.7 of ten fills at a time",
	   sb_stream_ns);
	small_machine(&mach, 0, 1);
	mach.sb_entries = 32;
	sb_stream_ns = -1;
	run_on(0, sb_stream, &st);
	ok(sb_stream_ns >= 256 / 10 * LAT_MEM, "... not prefetched (pf.degree 0): ten fills at a time, "
	   "%.0f ns", sb_stream_ns);
	small_machine(&mach, 0, 1);
	mach.sb_entries = 32;
	sb_issue_ns = -1;
	run_on(0, sb_load, &st);
	ok(fabs(sb_issue_ns - LAT_MEM) < 1e-9, "with core.sb a load that misses still waits for its line "
	   "(%.1f ns)", sb_issue_ns);
	small_machine(&mach, 0, 1);
	mach.sb_entries = 32;
	line_x = arena + 64 * 1000;
	read_ns = -1;
	second_writes = true;
	if (vt_run(&mach, 2, writer_then_reader, args, NULL, 0, &st))
		ok(0, "a marked store to a line CPU 1 owns: the run ends");
	else
		ok(fabs(read_ns - 30) < 1e-9,
		   "a marked store to a line another CPU owns waits for its transfer, as before: %.1f ns",
		   read_ns);
	second_writes = false;
}

/* --- marked loads: the load the compiler makes of them -------------------------------------- */

/*
 * CPU 0, no prefetcher, core.mshr 10, one basic block (1 ns) before each
 * load, the lines a page and a line apart (no two in one stream or set):
 *
 *   N marked loads (VT_LOAD) of cold lines, then a clock read
 *       N = 9, 10:  all overlap the first: 100 ns and the blocks
 *       N = 11:     the 11th waits for a fill buffer: about 200 ns
 *   the same 8 without VT_LOAD (the coherence model's path): one after another, 800 ns
 *   8 plain loads: as the marked ones
 *   a chase: each line holds the next one's address, loaded as 8 bytes
 *       VT_LOAD | VT_WORD:  each waits for the one before: 800 ns
 *       VT_LOAD, 4 bytes:   nothing says they depend: they overlap
 *   CPU 1 owns line X; CPU 0's marked load of X: a transfer (lat.l3 30 ns), one event, as before
 */
#define ML_STRIDE	(4096 + 64)
enum ml_how { ML_MARKED, ML_SEQUENCE, ML_PLAIN, ML_CHASE_WORD, ML_CHASE_INT };
static enum ml_how ml_how;
static int ml_n;
static double ml_ns;

static void ml_loads(void *arg)
{
	double t0 = vt_clock_ns();
	char *p = arena;

	(void)arg;
	for (int i = 0; i < ml_n; i++) {
		__sanitizer_cov_trace_pc();
		switch (ml_how) {
		case ML_MARKED:
			vt_access(arena + i * ML_STRIDE, VT_READ | VT_LOAD);
			break;
		case ML_SEQUENCE:
			vt_access(arena + i * ML_STRIDE, VT_READ);
			break;
		case ML_PLAIN:
			__tsan_read4(arena + i * ML_STRIDE);
			break;
		case ML_CHASE_WORD:
			vt_access(p, VT_READ | VT_LOAD | VT_WORD);
			p = *(char **)p;
			break;
		case ML_CHASE_INT:
			vt_access(p, VT_READ | VT_LOAD);
			p = *(char **)p;
			break;
		}
	}
	ml_ns = vt_clock_ns() - t0;
}

static double ml_case(enum ml_how how, int n)
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	ml_how = how;
	ml_n = n;
	ml_ns = -1;
	if (run_on(0, ml_loads, &st) < 0)
		return -1;
	return ml_ns;
}

static void test_marked_loads(void)
{
	static void *args[2] = { (void *)2L, (void *)1L };
	struct vt_stats st;
	double t;

	for (int i = 0; i < 12; i++)	/* the chase: line i holds line i+1's address */
		*(char **)(arena + i * ML_STRIDE) = arena + (i + 1) * ML_STRIDE;
	t = ml_case(ML_MARKED, 9);
	ok(fabs(t - (LAT_MEM + 9)) < 1.5, "9 marked loads of cold lines overlap: %.1f ns (want 109)", t);
	t = ml_case(ML_MARKED, 10);
	ok(fabs(t - (LAT_MEM + 10)) < 1.5, "10, core.mshr's count: all overlap, %.1f ns (want 110)", t);
	t = ml_case(ML_MARKED, 11);
	ok(t > 2 * LAT_MEM - 1 && t < 2 * LAT_MEM + 12,
	   "11: the 11th waits for a fill buffer, %.1f ns (want about 200)", t);
	t = ml_case(ML_SEQUENCE, 8);
	ok(t >= 8 * LAT_MEM, "8 marked loads without VT_LOAD: one after another, %.1f ns", t);
	t = ml_case(ML_PLAIN, 8);
	ok(fabs(t - ml_case(ML_MARKED, 8)) < 1e-9, "8 plain loads cost what 8 marked ones do (%.1f ns)", t);
	t = ml_case(ML_CHASE_WORD, 8);
	ok(t >= 8 * LAT_MEM, "a chase of 8 marked 8-byte loads: each waits for the last, %.1f ns", t);
	t = ml_case(ML_CHASE_INT, 8);
	ok(t < 2 * LAT_MEM, "the same chase not flagged 8 bytes: nothing says they depend, %.1f ns", t);

	small_machine(&mach, 0, 1);
	line_x = arena + 64 * 1000;
	read_ns = -1;
	second_marked_load = true;
	if (vt_run(&mach, 2, writer_then_reader, args, NULL, 0, &st))
		ok(0, "a marked load of a line CPU 1 owns: the run ends");
	else
		ok(fabs(read_ns - 30) < 1e-9 && st.events == 1,
		   "a marked load of a line another CPU owns is its transfer, as before: %.1f ns, "
		   "one event (%llu)", read_ns, st.events);
	second_marked_load = false;
}

/* --- page-table entries: what waits for a walk's load ----------------------------------- */

/*
 * CPU 0, no prefetcher, core.rob 200 (40 blocks), core.mshr 10, every line
 * cold.  The arena is the model's memory for vt_frames(): pfn N is arena
 * page N, its struct page pt_memmap + N * 64.  The entry sits at arena
 * page 0; a basic block (1 ns) before each access:
 *
 *   arena:   [ page 0: entry ][ ... ][ page 5: frame 5 ][ page 6 ]
 *   memmap:  [ sp 0 ] ... [ sp 5 ][ sp 6 ]
 *
 *   entry = pfn 5 | present, then a load in frame 5     waits: about 200 ns
 *                            ... in frame 6               overlaps: about 100 ns
 *                            ... of struct page 5         waits
 *                            ... of struct page 6         overlaps
 *   entry = pfn 5, not present (a swap or migration entry), frame 5: overlaps
 *   with 16 frames announced: entry = pfn 15, a load in frame 15: waits;
 *                             entry = pfn 16 (past the memory), arena page 16: overlaps
 *   the same walk, entry loaded without VT_ENTRY: frame 5 overlaps
 */
/* linux/pgtable.h's format: present is bit 0, the pfn bits 12..51 */
#define PT_PFN_MASK	(((1ULL << 52) - 1) & ~4095ULL)
static char *pt_memmap;
static char *pt_target;
static int pt_kind;
static double pt_ns;

static void pt_walk(void *arg)
{
	double t0 = vt_clock_ns();

	(void)arg;
	__sanitizer_cov_trace_pc();
	vt_access(arena, VT_READ | VT_LOAD | pt_kind);
	__sanitizer_cov_trace_pc();
	__tsan_read8(pt_target);
	pt_ns = vt_clock_ns() - t0;
}

static double pt_case(unsigned long long entry, int kind, char *target)
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	*(unsigned long long *)arena = entry;
	pt_kind = kind;
	pt_target = target;
	pt_ns = -1;
	if (run_on(0, pt_walk, &st) < 0)
		return -1;
	return pt_ns;
}

/*
 * A dependent miss begins an interval of its own: CPU 0 loads pointer A
 * (a miss), 30 blocks later B, which A points to (a miss that waits for
 * A), 20 blocks later C, independent: 51 blocks past A, beyond core.rob's
 * 40, but 20 past B, so it overlaps B.  39 past B it still overlaps; 40
 * past B, core.rob's reach, it waits for B.
 *
 *   t:   0      100          200  220 221
 *        A------>|            |    |   |
 *                B----------->|    |   |
 *                 C (from B's issue + 21 blocks) --->| done at 221
 */
static char *dm_c;
static int dm_gap;
static double dm_ns;

static void dep_then_independent(void *arg)
{
	double t0 = vt_clock_ns();
	char *b;

	(void)arg;
	__sanitizer_cov_trace_pc();
	vt_access(arena, VT_READ | VT_LOAD | VT_WORD);
	b = *(char **)arena;
	for (int i = 0; i < 30; i++)
		__sanitizer_cov_trace_pc();
	__tsan_read8(b);
	for (int i = 0; i < dm_gap; i++)
		__sanitizer_cov_trace_pc();
	__tsan_read8(dm_c);
	dm_ns = vt_clock_ns() - t0;
}

/*
 * A locked RMW between two independent misses, its line already the CPU's:
 * with rmw.drain no the second miss still starts in the first's shadow
 * (about 100 ns); with yes, the RMW drains what is in flight (about 200 ns).
 * rmw.overlap (the code after the RMW) does not decide it.
 */
static char *ro_line;
static double ro_ns;

static void miss_rmw_miss(void *arg)
{
	double t0;

	(void)arg;
	vt_access(ro_line, VT_RMW);	/* the line is the CPU's from here */
	__sanitizer_cov_trace_pc();
	t0 = vt_clock_ns();
	__tsan_read8(arena + 8 * 4096);
	__sanitizer_cov_trace_pc();
	vt_access(ro_line, VT_RMW);
	__sanitizer_cov_trace_pc();
	__tsan_read8(arena + 9 * 4096 + 64);
	ro_ns = vt_clock_ns() - t0;
}

static double ro_case(bool overlap, bool drain)
{
	struct vt_stats st;

	small_machine(&mach, 0, 1);
	mach.rmw_overlap = overlap;
	mach.rmw_drain = drain;
	ro_ns = -1;
	if (run_on(0, miss_rmw_miss, &st) < 0)
		return -1;
	return ro_ns;
}

static void test_entries_and_intervals(void)
{
	unsigned long long present = (5ULL << 12) | 1, absent = 5ULL << 12;
	unsigned long long last = (15ULL << 12) | 1, past = (16ULL << 12) | 1;
	char *frame5 = arena + 5 * 4096 + 8 * 37, *frame6 = arena + 6 * 4096 + 8 * 37;
	struct vt_stats st;
	double t;

	pt_memmap = aligned_alloc(4096, 1024 * 64);
	memset(pt_memmap, 0, 1024 * 64);
	vt_frames(arena, pt_memmap, ARENA / 4096, 4096, 64, 1, PT_PFN_MASK, 12);
	t = pt_case(present, VT_ENTRY, frame5);
	ok(t > 2 * LAT_MEM && t < 2 * LAT_MEM + 5,
	   "a load in the frame a present entry names waits for the entry: %.1f ns (want 201)", t);
	t = pt_case(present, VT_ENTRY, frame6);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "a load in the next frame overlaps it: %.1f ns (want 102)", t);
	t = pt_case(present, VT_ENTRY, pt_memmap + 5 * 64 + 8);
	ok(t > 2 * LAT_MEM && t < 2 * LAT_MEM + 5,
	   "a load of the named frame's struct page waits: %.1f ns (want 201)", t);
	t = pt_case(present, VT_ENTRY, pt_memmap + 6 * 64 + 8);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "the next struct page overlaps: %.1f ns", t);
	t = pt_case(absent, VT_ENTRY, frame5);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "an entry not present names no frame: %.1f ns", t);
	vt_frames(arena, pt_memmap, 16, 4096, 64, 1, PT_PFN_MASK, 12);
	t = pt_case(last, VT_ENTRY, arena + 15 * 4096 + 8 * 37);
	ok(t > 2 * LAT_MEM && t < 2 * LAT_MEM + 5, "16 frames: the last, pfn 15, is a frame: %.1f ns (want 201)", t);
	t = pt_case(past, VT_ENTRY, arena + 16 * 4096 + 8 * 37);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "... pfn 16, past the memory, names no frame: %.1f ns (want 102)", t);
	vt_frames(arena, pt_memmap, ARENA / 4096, 4096, 64, 1, PT_PFN_MASK, 12);
	t = pt_case(present, 0, frame5);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "the same load without VT_ENTRY: nothing says it waits, %.1f ns", t);
	vt_frames(NULL, NULL, 0, 0, 0, 0, 0, 0);
	t = pt_case(present, VT_ENTRY, frame5);
	ok(t > LAT_MEM && t < LAT_MEM + 5, "with no frames announced nothing waits: %.1f ns", t);
	free(pt_memmap);

	*(char **)arena = arena + 3 * 4096 + 128;
	dm_c = arena + 12 * 4096 + 192;
	for (int gap = 20; gap <= 40; gap += gap == 20 ? 19 : 1) {
		/* C is gap blocks after B, which was issued at 100 ns */
		double want = 2 * LAT_MEM + gap + 1 + (gap < 40 ? 0 : LAT_MEM);

		small_machine(&mach, 0, 1);
		dm_gap = gap;
		dm_ns = -1;
		if (run_on(0, dep_then_independent, &st) < 0)
			ok(0, "a dependent miss, then an independent one: the run ends");
		else
			ok(fabs(dm_ns - want) < 0.5, "a miss %d blocks after a dependent one (%d after the "
			   "first; core.rob 40 blocks): %.1f ns (want %.0f)", gap, gap + 30, dm_ns, want);
	}

	ro_line = arena + 2 * 4096;
	for (int k = 0; k < 4; k++) {
		bool overlap = k & 1, drain = k & 2;

		t = ro_case(overlap, drain);
		if (drain)
			ok(t > 2 * LAT_MEM && t < 2 * LAT_MEM + 5, "rmw.drain yes (rmw.overlap %s): the RMW "
			   "drains the miss before it, %.1f ns (want 202)", overlap ? "yes" : "no", t);
		else
			ok(t > LAT_MEM && t < LAT_MEM + 5, "rmw.drain no (rmw.overlap %s): a miss after a "
			   "locked RMW overlaps the one before it, %.1f ns (want 102)", overlap ? "yes" : "no", t);
	}
}

int main(void)
{
	plan_no_plan();
	arena = aligned_alloc(4096, ARENA);
	memset(arena, 0x5a, ARENA);
	test_levels();
	test_prefetch();
	test_prefetch_span();
	test_prefetch_degree();
	test_prefetch_stride();
	test_l1_latency();
	test_l1_chain_rob();
	test_hit_then_miss();
	test_smt();
	test_sharing();
	test_invalidate();
	test_lock_handoff();
	test_copy();
	test_l3_lru();
	test_marked_loads();
	test_entries_and_intervals();
	test_fast_forward();
	test_marked_hit();
	test_store_buffer();
	return done_testing();
}
