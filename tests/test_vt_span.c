/*
 * Timed spans in virtual time (src/machine/vt_span.c): what the vt
 * flavour's rmap_time_start()/rmap_time_add() read and sum.  A bare machine,
 * cost.block 0.5 ns, an RMW 3 ns; one CPU:
 *
 *   run A (no windows):
 *     100 blocks | t0 | 40 blocks, delay 100, RMW, 20 blocks | add(2, t0)   = 20+100+3+10 = 133
 *                  t1 = clock before the delay ........... add(0, t1) after it = 100
 *                  add(NR-1, t0) at the same moment as key 2                  = 133
 *                  add(NR, t0), add(-1, t0): ignored (no key, nothing else moves)
 *   run B (two windows, one span in each, one outside both):
 *     | window: t | 10 blocks, delay 50 | add(1, t) | end | t | delay 70 | add(1, t), add(NR, t)
 *     | window: t | delay 30 | add(1, t) | end
 *     key 1 = (5 + 50) + 30 = 85: the span outside the windows is not the sample's
 *   run C: | t | delay 100, RMW, delay 100 | add(4, t) = 203, while an agent (a kthread, not one of the
 *     machine's CPUs) runs a span of its own under key 3: not counted; nothing of A and B is left.
 *   outside any run: the clock reads 0 and an add does nothing.
 */
#include <stdio.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

/* What the vt flavour's trace-pc instrumentation calls at each basic block. */
void __sanitizer_cov_trace_pc(void);

static int rmw_line __attribute__((aligned(64)));

static void rmw(void)
{
	vt_access(&rmw_line, VT_RMW);
	__atomic_fetch_add(&rmw_line, 1, __ATOMIC_SEQ_CST);
}

static void blocks(int n)
{
	for (int i = 0; i < n; i++)
		__sanitizer_cov_trace_pc();
}

static void bare_machine(struct vt_machine *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "bare");
	m->sockets = 1;
	m->l3_per_socket = 1;
	m->cores_per_l3 = 4;
	m->smt = 1;
	m->nr_cpus = 4;
	for (int d = 0; d < VT_NR_DIST; d++)
		m->lat_ns[d] = 10 * (d + 1);
	m->line_window = VT_WINDOW_DEFAULT;
	m->cost_ns[VT_C_BLOCK] = 0.5;
	m->cost_ns[VT_C_RMW] = 3;
}

static void run_a(void *arg)
{
	unsigned long t0, t1;

	(void)arg;
	blocks(100);
	t0 = vt_span_clock();
	blocks(40);
	t1 = vt_span_clock();
	vt_delay_ns(100);
	vt_span_add(0, t1);
	rmw();
	blocks(20);
	vt_span_add(2, t0);
	vt_span_add(VT_NR_SPANS - 1, t0);
	vt_span_add(VT_NR_SPANS, t0);
	vt_span_add(-1, t0);
}

static void run_b(void *arg)
{
	unsigned long t;

	(void)arg;
	vt_window_begin();
	t = vt_span_clock();
	blocks(10);
	vt_delay_ns(50);
	vt_span_add(1, t);
	vt_window_end();
	t = vt_span_clock();
	vt_delay_ns(70);
	vt_span_add(1, t);
	vt_span_add(VT_NR_SPANS, t);
	vt_window_begin();
	t = vt_span_clock();
	vt_delay_ns(30);
	vt_span_add(1, t);
	vt_window_end();
}

static unsigned int ag_seq;
static int ag_ran;

static int agent(void *data)
{
	unsigned long t = vt_span_clock();

	(void)data;
	vt_delay_ns(40);
	vt_span_add(3, t);
	ag_ran = 1;
	for (;;)
		vt_wait_var_value(&ag_seq, 0);
	return 0;
}

static void run_c(void *arg)
{
	unsigned long t = vt_span_clock();

	(void)arg;
	vt_delay_ns(100);
	rmw();			/* a scheduling point: the agent, behind in time, runs first */
	vt_delay_ns(100);
	vt_span_add(4, t);
}

/* Every key but those in @want (key, ns pairs, ended by -1) is 0. */
static bool only(const struct vt_stats *st, const int *keys, const double *ns, int n)
{
	for (int k = 0; k < VT_NR_SPANS; k++) {
		double want = 0;

		for (int i = 0; i < n; i++)
			if (keys[i] == k)
				want = ns[i];
		if (st->span_ns[k] != want) {
			diag("span %d: %.3f ns, want %.3f", k, st->span_ns[k], want);
			return false;
		}
	}
	return true;
}

int main(void)
{
	struct vt_machine m;
	struct vt_stats st;
	void *args[1] = { NULL };
	struct task_struct *k;

	plan_no_plan();
	bare_machine(&m);

	is_int(vt_run(&m, 1, run_a, args, NULL, 0, &st), 0, "run A ends");
	ok(st.span_ns[2] == 133, "a span counts the blocks before its end, a delay and an RMW (%.3f ns)",
	   st.span_ns[2]);
	ok(st.span_ns[0] == 100, "a span inside another counts only its own time (%.3f ns)", st.span_ns[0]);
	ok(st.span_ns[VT_NR_SPANS - 1] == 133, "the last key, %d, is counted (%.3f ns)", VT_NR_SPANS - 1,
	   st.span_ns[VT_NR_SPANS - 1]);
	ok(only(&st, (const int[]){ 0, 2, VT_NR_SPANS - 1 }, (const double[]){ 100, 133, 133 }, 3),
	   "keys %d and -1 are ignored: no other key moves", VT_NR_SPANS);
	ok(st.end_ns == 50 + 20 + 100 + 3 + 10, "reading the span clock costs nothing (%.3f ns)", st.end_ns);

	is_int(vt_run(&m, 1, run_b, args, NULL, 0, &st), 0, "run B, with two timed windows, ends");
	ok(only(&st, (const int[]){ 1 }, (const double[]){ 85 }, 1),
	   "with windows, only the spans inside them count (key 1: %.3f ns, want 85)", st.span_ns[1]);

	k = vt_kthread_run(agent, NULL);
	ok(k != NULL, "an agent for run C registers");
	is_int(vt_run(&m, 1, run_c, args, NULL, 0, &st), 0, "run C ends");
	ok(ag_ran, "the agent ran its span");
	ok(only(&st, (const int[]){ 4 }, (const double[]){ 203 }, 1),
	   "an agent's span is not the run's, and nothing of the runs before is left (key 4: %.3f ns)",
	   st.span_ns[4]);
	is_int(vt_kthread_stop(k), 0, "the agent, left asleep, stops");

	ok(vt_span_clock() == 0, "outside a run the span clock reads 0");
	vt_span_add(2, 0);
	is_int(vt_run(&m, 1, run_c, args, NULL, 0, &st), 0, "a run after an add outside any run ends");
	ok(only(&st, (const int[]){ 4 }, (const double[]){ 203 }, 1),
	   "... and the add outside the run counted nowhere");
	return done_testing();
}
