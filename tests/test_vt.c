/*
 * The virtual-time machine (src/machine/vt_*.c) on its own: the scheduler's
 * determinism, the coherence model's costs against a preset, queueing on
 * one line, the FIFO hand-off of its spinlocks, an agent (a kthread) woken
 * by a CPU and left asleep at the end.  The scenarios call the
 * machine's hooks directly, as the vt flavour's shims do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

/* What the vt flavour's shims do around a memory operation. */
static int ld(int *p)
{
	vt_access(p, VT_READ);
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static int fetch_add(int *p, int v)
{
	vt_access(p, VT_RMW);
	return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

static bool cas(int *p, int *old, int new)
{
	bool ok;

	vt_access(p, VT_RMW);
	ok = __atomic_compare_exchange_n(p, old, new, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	vt_cas_result(ok);
	return ok;
}

/* A machine with only transfer latencies: every other cost 0. */
static void bare_machine(struct vt_machine *m, const struct vt_machine *from)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "bare");
	m->sockets = from ? from->sockets : 2;
	m->l3_per_socket = from ? from->l3_per_socket : 1;
	m->cores_per_l3 = from ? from->cores_per_l3 : 12;
	m->smt = from ? from->smt : 1;
	m->nr_cpus = m->sockets * m->l3_per_socket * m->cores_per_l3 * m->smt;
	for (int d = 0; d < VT_NR_DIST; d++)
		m->lat_ns[d] = from ? from->lat_ns[d] : 10 * (d + 1);
	m->line_window = VT_WINDOW_DEFAULT;
}

/* --- a line ping-ponged between two CPUs --------------------------------------- */

#define PP_ITERS	100
#define PP_PERIOD	1000	/* ns between two RMWs of one CPU: no queueing */
static int pp_line __attribute__((aligned(64)));

static void pp_thread(void *arg)
{
	long role = (long)arg;

	if (role < 0)
		return;		/* a CPU that takes no part */
	if (role == 1)
		vt_delay_ns(PP_PERIOD / 2);
	for (int i = 0; i < PP_ITERS; i++) {
		fetch_add(&pp_line, 1);
		vt_delay_ns(PP_PERIOD);
	}
}

/* CPUs @a < @b of @m ping-pong a line; the CPUs below @b run nothing. */
static void ping_pong(const struct vt_machine *m, int a, int b, enum vt_dist want)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;
	double lat = m->lat_ns[want];

	for (int i = 0; i <= b; i++)
		args[i] = (void *)-1L;
	args[a] = (void *)0L;
	args[b] = (void *)1L;
	pp_line = 0;
	ok(vt_distance(m, a, b) == want, "%s: CPUs %d and %d are at distance %s", m->name, a, b,
	   vt_dist_names[want]);
	is_int(vt_run(m, b + 1, pp_thread, args, NULL, 0, &st), 0, "the run ends");
	is_int(pp_line, 2 * PP_ITERS, "every RMW happened once");
	is_int((int)st.transfers, 2 * PP_ITERS - 1, "every RMW but the first moves the line");
	ok(st.queued_ns == 0, "no request waits for the line (queued %.1f ns)", st.queued_ns);
	ok(st.transfer_ns == (2 * PP_ITERS - 1) * lat,
	   "each transfer costs lat.%s, %.0f ns (%.1f ns in all)", vt_dist_names[want], lat,
	   st.transfer_ns);
	ok(st.end_ns == PP_PERIOD / 2 + PP_ITERS * (PP_PERIOD + lat),
	   "the later CPU ends at %.1f ns: its delays and one transfer per RMW", st.end_ns);
}

/* --- queueing: N CPUs ask for one line at the same moment ------------------------ */

static int q_line __attribute__((aligned(64)));

static void q_thread(void *arg)
{
	fetch_add(&q_line, 1);
}

static double queued_with(const struct vt_machine *m, int n)
{
	static void *args[VT_MAX_CPUS];
	struct vt_stats st;

	q_line = 0;
	if (vt_run(m, n, q_thread, args, NULL, 0, &st) || q_line != n)
		return -1;
	return st.queued_ns;
}

/*
 * --- the order a line serves its queue (line.order) ------------------------------
 *
 *   t=0   CPU 0 (socket 0) takes the line
 *   t=10  CPU 1 (socket 0) asks: in flight 0 -> 1
 *   t=20  CPU 2 (socket 0) asks      queue: 2
 *   t=25  CPU 12 (socket 1) asks     queue: 2 12
 *   t=30  CPU 3 (socket 0) asks      queue: 2 12 3
 *   t=35  CPU 13 (socket 1) asks     queue: 2 12 3 13
 *   t=350 CPU 14 (socket 1) asks, behind what is left
 *
 * fifo serves 1 2 12 3 13 14; far-first, the oldest from the other socket
 * first, 1 12 2 13 3 14 (13 leaves the queue's tail before 14 comes);
 * near-first, the holder's socket first, 1 2 3 12 13 14.
 */
#define LO_N	6
static int lo_line __attribute__((aligned(64)));
static int lo_order[LO_N];
static int lo_next;

static void lo_thread(void *arg)
{
	static const int at[15] = { [1] = 10, [2] = 20, [12] = 25, [3] = 30, [13] = 35, [14] = 350 };
	long me = (long)arg;

	if (me < 0)
		return;
	vt_delay_ns(at[me]);
	fetch_add(&lo_line, 1);
	if (me)
		lo_order[lo_next++] = (int)me;
}

/* The order CPUs 1, 2, 3, 12, 13, 14 got the line on @m; its transfers' time in @ns. */
static const char *line_order_on(const struct vt_machine *m, double *ns)
{
	static char buf[64];
	void *args[15];
	struct vt_stats st;

	for (long i = 0; i < 15; i++)
		args[i] = (void *)(i <= 3 || i >= 12 ? i : -1L);
	lo_line = lo_next = 0;
	if (vt_run(m, 15, lo_thread, args, NULL, 0, &st) || lo_next != LO_N)
		return "(the run failed)";
	snprintf(buf, sizeof(buf), "%d %d %d %d %d %d", lo_order[0], lo_order[1], lo_order[2], lo_order[3],
		 lo_order[4], lo_order[5]);
	*ns = st.transfer_ns;
	return buf;
}

/*
 * The holder keeps the line until the next request's snoop reaches it:
 *   t=0   CPU 0 takes the line; t=10 CPU 1 asks (arrives at 10 + L)
 *   t=20  CPU 2 asks: queued, granted when 1's copy arrives
 *   CPU 1 writes again 10 ns after its arrival (before the snoop, at half
 *   a transfer: a hit), then 30 ns after that (after it: it waits for 2's
 *   transfer, then its own back).
 */
static double sw_at[2];

static void sw_thread(void *arg)
{
	long me = (long)arg;

	if (me == 2)
		vt_delay_ns(20);
	if (me == 1)
		vt_delay_ns(10);
	fetch_add(&lo_line, 1);
	if (me != 1)
		return;
	vt_delay_ns(10);
	fetch_add(&lo_line, 1);
	sw_at[0] = vt_clock_ns();
	vt_delay_ns(30);
	fetch_add(&lo_line, 1);
	sw_at[1] = vt_clock_ns();
}

/*
 * The same three CPUs with the snoop at @w of the transfer (line.window):
 * CPU 1's writes 10 and 40 ns after its copy came hit while they come
 * before the snoop (at @w * L after its arrival); one after it waits for
 * 2's transfer and its own back (at 10 + 3L).
 */
static void test_line_window(struct vt_machine *m, double w, double l3)
{
	void *args[3] = { (void *)0L, (void *)1L, (void *)2L };
	double snoop = 10 + l3 + w * l3, want[2];
	struct vt_stats st;

	want[0] = 10 + l3 + 10 < snoop ? 10 + l3 + 10 : 10 + 3 * l3;
	want[1] = want[0] + 30 < snoop || want[0] > snoop ? want[0] + 30 : 10 + 3 * l3;
	m->line_window = w;
	lo_line = 0;
	is_int(vt_run(m, 3, sw_thread, args, NULL, 0, &st), 0, "line.window %.1f: the run ends", w);
	ok(sw_at[0] == want[0] && sw_at[1] == want[1], "line.window %.1f: CPU 1's writes done at %.0f and "
	   "%.0f ns (want %.0f and %.0f: snoop at %.1f ns)", w, sw_at[0], sw_at[1], want[0], want[1], snoop);
	is_int((int)st.transfers, want[1] == 10 + l3 + 40 ? 2 : 3,
	       "line.window %.1f: transfers 0 to 1, 1 to 2, and 2 to 1 if 1 wrote after the snoop", w);
	m->line_window = VT_WINDOW_DEFAULT;
}

static void test_line_order(const struct vt_machine *e5)
{
	static const char *const want[VT_NR_ORDER] = {
		[VT_ORDER_FIFO] = "1 2 12 3 13 14",
		[VT_ORDER_FAR_FIRST] = "1 12 2 13 3 14",
		[VT_ORDER_NEAR_FIRST] = "1 2 3 12 13 14",
	};
	struct vt_machine m;
	double l3 = e5->lat_ns[VT_D_L3], rem = e5->lat_ns[VT_D_REMOTE];
	const double want_ns[VT_NR_ORDER] = {
		[VT_ORDER_FIFO] = 3 * l3 + 3 * rem,
		[VT_ORDER_FAR_FIRST] = l3 + 5 * rem,
		[VT_ORDER_NEAR_FIRST] = 5 * l3 + rem,
	};

	bare_machine(&m, e5);
	for (int o = 0; o < VT_NR_ORDER; o++) {
		const char *got;
		double ns = 0;

		m.line_order = o;
		got = line_order_on(&m, &ns);
		ok(!strcmp(got, want[o]), "line.order %s serves the queue in its order: %s (want %s)",
		   vt_order_names[o], got, want[o]);
		ok(ns == want_ns[o], "... and its transfers cost what their distances say (%.0f ns)", ns);
	}

	m.line_order = VT_ORDER_FIFO;
	test_line_window(&m, VT_WINDOW_DEFAULT, l3);
	test_line_window(&m, 0.1, l3);
	test_line_window(&m, 1.0, l3);
}

/* --- spinlocks: FIFO hand-off in the order of arrival ----------------------------- */

#define SL_N	8
static int sl_lock __attribute__((aligned(64)));
static int sl_order[SL_N], sl_next;

static void sl_thread(void *arg)
{
	long me = (long)arg;

	/* CPU 0 takes the lock first; the others arrive in the reverse order of their ids. */
	if (me)
		vt_delay_ns(100 + (SL_N - me) * 10);
	vt_spin_lock(&sl_lock);
	sl_order[sl_next++] = (int)me;
	vt_delay_ns(me ? 50 : 1000);
	vt_spin_unlock(&sl_lock);
}

/* --- determinism: a mixed scenario run twice ----------------------------------------- */

#define DT_N		6
#define DT_ITERS	300
static int dt_counter __attribute__((aligned(64)));
static int dt_lock __attribute__((aligned(64)));
static int dt_locked_sum __attribute__((aligned(64)));
static int dt_private[DT_N * 16] __attribute__((aligned(64)));

static void dt_thread(void *arg)
{
	long me = (long)arg;

	for (int i = 0; i < DT_ITERS; i++) {
		int old = ld(&dt_counter);

		while (!cas(&dt_counter, &old, old + 1))
			;
		fetch_add(&dt_private[me * 16], 1);
		vt_spin_lock(&dt_lock);
		dt_locked_sum += 1;	/* plain: one CPU at a time, and under the lock */
		vt_delay_ns(30);	/* a critical section long enough to be waited for */
		vt_spin_unlock(&dt_lock);
		vt_delay_ns(20 + me * 3);
		if (i % 50 == 0)
			vt_wait();
	}
}

static int dt_run(const struct vt_machine *m, struct vt_stats *st)
{
	static void *args[DT_N];

	for (long i = 0; i < DT_N; i++)
		args[i] = (void *)i;
	dt_counter = dt_locked_sum = dt_lock = 0;
	memset(dt_private, 0, sizeof(dt_private));
	return vt_run(m, DT_N, dt_thread, args, NULL, 0, st);
}

/* --- the stop flag: a timed loop in virtual time ------------------------------------ */

static int stop_flag;
static long stop_loops[2];

static void stop_thread(void *arg)
{
	long me = (long)arg;

	while (!ld(&stop_flag)) {
		stop_loops[me]++;
		vt_delay_ns(me ? 300 : 100);
	}
}

/* --- plain code: the basic blocks the vt flavour counts (trace-pc) ---------------------- */

void __sanitizer_cov_trace_pc(void);

static double bl_seen_at[2];

static void bl_thread(void *arg)
{
	long me = (long)arg;

	/* What a kernel function compiled with -fsanitize-coverage=trace-pc does. */
	for (int i = 0; i < (me ? 300 : 1000); i++)
		__sanitizer_cov_trace_pc();
	bl_seen_at[me] = vt_clock_ns();
	for (int i = 0; i < 10; i++)
		__sanitizer_cov_trace_pc();
}

static void test_blocks(const struct vt_machine *from)
{
	struct vt_machine m;
	void *args[2] = { (void *)0L, (void *)1L };
	struct vt_stats st;

	bare_machine(&m, from);
	m.cost_ns[VT_C_BLOCK] = 0.5;
	is_int(vt_run(&m, 2, bl_thread, args, NULL, 0, &st), 0, "a run of plain code ends");
	ok(bl_seen_at[0] == 500 && bl_seen_at[1] == 150,
	   "a clock read sees the blocks run before it, cost.block each (%.1f and %.1f ns)",
	   bl_seen_at[0], bl_seen_at[1]);
	ok(st.blocks == 1320 && st.code_ns == 660 && st.end_ns == 505 && st.cpu_ns == 505 + 155,
	   "blocks run after the last event are charged at the CPU's end (%llu blocks, %.1f ns of code, "
	   "ends at %.1f)", st.blocks, st.code_ns, st.end_ns);
	__sanitizer_cov_trace_pc();
	is_int(vt_run(&m, 1, bl_thread, args, NULL, 0, &st), 0, "a block outside a run costs nothing");
	ok(st.blocks == 1010, "... and is not counted in the next run (%llu)", st.blocks);
}

/* --- timed windows: a run reports what happened inside them alone ------------------------ */

static int win_line __attribute__((aligned(64)));

static void win_thread(void *arg)
{
	(void)arg;
	fetch_add(&win_line, 1);
	vt_delay_ns(1000);
	for (int w = 0; w < 2; w++) {
		for (int i = 0; i < 100; i++)	/* set-up, right up to the window: not the sample's */
			__sanitizer_cov_trace_pc();
		vt_window_begin();
		for (int i = 0; i < 40; i++)
			__sanitizer_cov_trace_pc();
		fetch_add(&win_line, 1);
		vt_delay_ns(100);
		for (int i = 0; i < 20; i++)	/* run up to the window's end: the sample's */
			__sanitizer_cov_trace_pc();
		vt_window_end();
		vt_delay_ns(500);		/* between the timed parts */
	}
	fetch_add(&win_line, 1);		/* a check after: not the sample's */
}

static void test_windows(const struct vt_machine *from)
{
	struct vt_machine m;
	void *args[1] = { NULL };
	struct vt_stats st;

	bare_machine(&m, from);
	m.cost_ns[VT_C_BLOCK] = 0.5;
	m.cost_ns[VT_C_RMW] = 3;
	is_int(vt_run(&m, 1, win_thread, args, NULL, 0, &st), 0, "a run with two timed windows ends");
	ok(st.blocks == 120 && st.events == 2 && st.code_ns == 60 && st.delay_ns == 200,
	   "its counts are the windows' alone: %llu blocks, %llu events, %.1f ns of code, %.1f ns delayed",
	   st.blocks, st.events, st.code_ns, st.delay_ns);
	ok(st.end_ns == 2 * (30 + 3 + 100) && st.cpu_ns == st.end_ns,
	   "its time is the windows' length, summed (%.1f ns)", st.end_ns);
}

/* --- the line table grows: pointers into it stay right ------------------------------------- */

#define GR_LINES	300000	/* past the first table's 49152 lines, three doublings */
static int gr_flag __attribute__((aligned(64)));
static int gr_ping __attribute__((aligned(64)));
static char *gr_mem;
static double gr_seen_at, gr_written_at;
static long gr_pings_seen;

static void gr_thread(void *arg)
{
	long me = (long)arg;

	if (me == 0) {
		vt_delay_ns(100);
		for (long i = 0; i < GR_LINES; i++) {
			ld((int *)(gr_mem + i * 64));
			if (!(i % 16))
				fetch_add(&gr_ping, 1);
		}
		fetch_add(&gr_flag, 1);
		gr_written_at = vt_clock_ns();
	} else if (me == 1) {
		/* Waits on gr_flag's line (its last event) while the table moves under it. */
		while (!ld(&gr_flag))
			vt_wait();
		gr_seen_at = vt_clock_ns();
	} else {
		/* Its reads of the ping line are transfers in flight when the table moves. */
		while (!ld(&gr_flag)) {
			gr_pings_seen += ld(&gr_ping) != 0;
			vt_delay_ns(5);
		}
	}
}

static void test_lines_grow(const struct vt_machine *from)
{
	struct vt_machine m;
	void *args[3] = { (void *)0L, (void *)1L, (void *)2L };
	struct vt_stats st;

	bare_machine(&m, from);
	m.cost_ns[VT_C_MEM] = 1;
	gr_mem = aligned_alloc(64, (size_t)GR_LINES * 64);
	gr_flag = gr_ping = 0;
	is_int(vt_run(&m, 3, gr_thread, args, NULL, 0, &st), 0, "a run touching %d lines ends", GR_LINES);
	ok(st.events >= GR_LINES && st.transfers >= GR_LINES / 16,
	   "every line was an event (%llu) and the ping line moved (%llu transfers)", st.events,
	   st.transfers);
	ok(gr_seen_at > gr_written_at && gr_seen_at <= gr_written_at + 2 * m.lat_ns[VT_D_L3],
	   "the waiter saw the write one transfer after it (%.1f ns)", gr_seen_at - gr_written_at);
	ok(gr_pings_seen > 0, "the poller read the ping line as it moved (%ld reads saw it)", gr_pings_seen);
	free(gr_mem);
}

/* --- an agent (a kthread): woken by a CPU's write, not waited for at the end ------------- */

static unsigned int ag_seq;
static int ag_work;
static int ag_seen, ag_done;
static double ag_woken_at, ag_written_at;

static int ag_thread(void *data)
{
	(void)data;
	for (;;) {
		unsigned int seq = ld((int *)&ag_seq);

		if (ld(&ag_work)) {
			ag_seen++;
			ag_woken_at = vt_clock_ns();
			fetch_add(&ag_done, 1);
		}
		vt_wait_var_value(&ag_seq, seq);	/* sleeps for ever once nothing comes */
	}
	return 0;
}

static void ag_cpu(void *arg)
{
	(void)arg;
	vt_delay_ns(1000);
	fetch_add(&ag_work, 1);
	ag_written_at = vt_clock_ns();
	vt_access(&ag_seq, VT_RMW | VT_RELEASE);
	__atomic_fetch_add(&ag_seq, 1, __ATOMIC_RELEASE);
	while (!ld(&ag_done))
		vt_wait();
	vt_delay_ns(500);
}

static void ag_cpu_alone(void *arg)
{
	(void)arg;
	vt_delay_ns(100);
}

static void test_agent(const struct vt_machine *m)
{
	struct task_struct *k = vt_kthread_run(ag_thread, NULL);
	void *args[1] = { NULL };
	struct vt_stats st;

	ok(k != NULL, "a kthread registers as an agent of the next run");
	is_int(vt_run(m, 1, ag_cpu, args, NULL, 0, &st), 0,
	       "the run ends when its CPU does, with the agent asleep");
	is_int(ag_seen, 1, "the agent woke for the CPU's work, once");
	ok(ag_woken_at >= ag_written_at && ag_woken_at < ag_written_at + 1000,
	   "... when the CPU bumped the variable (%.0f ns after)", ag_woken_at - ag_written_at);
	ok(st.end_ns >= 1500 && st.end_ns < 3000 && st.cpu_ns == st.end_ns,
	   "the run's time is the CPU's alone (%.0f ns)", st.end_ns);
	is_int(vt_kthread_stop(k), 0, "kthread_stop() of an agent left asleep returns 0");
	k = vt_kthread_run(ag_thread, NULL);
	ok(k != NULL && vt_kthread_stop(k) == 0,
	   "an agent registered again and stopped before any run is gone");
	ag_seen = 0;
	is_int(vt_run(m, 1, ag_cpu_alone, args, NULL, 0, &st), 0, "a run after it has no agent");
	is_int(ag_seen, 0, "... nothing ran the agent's function");
}


/*
 * The agent is the block device, hardware watching its doorbell: the
 * machine's sched.wake (a task's wake-up) is not its to pay, even at 100 us.
 */
static void test_agent_wake(const struct vt_machine *m)
{
	struct vt_machine slow = *m;
	void *args[1] = { NULL };
	struct task_struct *k;
	struct vt_stats st;

	slow.wake_ns = 100000;
	ag_seen = 0;
	ag_done = 0;
	ag_work = 0;
	k = vt_kthread_run(ag_thread, NULL);
	is_int(vt_run(&slow, 1, ag_cpu, args, NULL, 0, &st), 0, "sched.wake 100 us: the run with an agent ends");
	ok(ag_seen == 1 && ag_woken_at >= ag_written_at && ag_woken_at < ag_written_at + 1000,
	   "... the agent woke for the write %.0f ns after it, one transfer, not the wake-up", ag_woken_at - ag_written_at);
	vt_kthread_stop(k);
}

int main(void)
{
	struct vt_machine e5, bare, epyc;
	struct vt_stats st1, st2;
	char err[512];
	double q[4];
	int ns[4] = { 2, 4, 8, 12 };

	plan_no_plan();

	/* Machine files. */
	ok(!vt_machine_load(&e5, "machines/e5-2690v3-2s.conf", err, sizeof(err)), "the e5-2690v3-2s preset loads: %s",
	   err);
	is_int(e5.nr_cpus, 24, "e5-2690v3-2s has 24 CPUs");
	ok(!vt_machine_load(&epyc, "machines/epyc-9654-2s.conf", err, sizeof(err)), "the epyc-9654-2s preset loads");
	is_int(epyc.nr_cpus, 384, "epyc-9654-2s has 384 CPUs");
	ok(vt_distance(&epyc, 0, 192) == VT_D_SMT && vt_distance(&epyc, 0, 7) == VT_D_L3 &&
	   vt_distance(&epyc, 0, 8) == VT_D_SOCKET && vt_distance(&epyc, 0, 96) == VT_D_REMOTE,
	   "epyc-9654-2s: CPU 192 is CPU 0's sibling, 7 in its CCX, 8 in the next, 96 on the other socket");
	/*
	 * rmw.drain as the presets give it: epyc-9654-2s says no (measured);
	 * e5-2690v3-2s leaves it out beside rmw.overlap no, so it drains.
	 */
	ok(!epyc.rmw_drain && epyc.rmw_overlap && epyc.rmw_drain_src[0],
	   "epyc-9654-2s: rmw.drain no, given, beside rmw.overlap yes");
	ok(e5.rmw_drain && !e5.rmw_overlap && !e5.rmw_drain_src[0],
	   "e5-2690v3-2s: no rmw.drain, so the opposite of its rmw.overlap no: it drains");
	ok(vt_machine_load(&bare, "tests/test_vt.c", err, sizeof(err)) && strstr(err, "line"),
	   "a file that is not a machine is refused with its line: %s", err);

	/* The coherence model against the preset's latencies (other costs zeroed). */
	bare_machine(&bare, &e5);
	snprintf(bare.name, sizeof(bare.name), "e5-2690v3-2s (latencies only)");
	ping_pong(&bare, 0, 1, VT_D_L3);
	ping_pong(&bare, 0, 12, VT_D_REMOTE);
	bare_machine(&bare, &epyc);
	snprintf(bare.name, sizeof(bare.name), "epyc-9654-2s (latencies only)");
	ping_pong(&bare, 0, 192, VT_D_SMT);
	ping_pong(&bare, 0, 3, VT_D_L3);
	ping_pong(&bare, 0, 8, VT_D_SOCKET);

	/* Queueing grows with the requesters: the k-th waits k-1 transfers. */
	bare_machine(&bare, &e5);
	for (int i = 0; i < 4; i++) {
		double lat = bare.lat_ns[VT_D_L3];

		q[i] = queued_with(&bare, ns[i]);
		ok(q[i] == lat * (ns[i] - 1) * (ns[i] - 2) / 2,
		   "%d CPUs at once on one line: %.0f ns queued in all (%.0f per transfer of %.0f ns)",
		   ns[i], q[i], ns[i] > 1 ? q[i] / (ns[i] - 1) : 0, lat);
		if (i)
			ok(q[i] / (ns[i] - 1) > q[i - 1] / (ns[i - 1] - 1) || ns[i - 1] == 2,
			   "the time queued per request grows from %d to %d requesters", ns[i - 1], ns[i]);
	}

	/* Spinlocks hand off first come, first served. */
	{
		void *args[SL_N];
		bool fifo = true;

		for (long i = 0; i < SL_N; i++)
			args[i] = (void *)i;
		sl_lock = sl_next = 0;
		is_int(vt_run(&e5, SL_N, sl_thread, args, NULL, 0, &st1), 0, "the spinlock run ends");
		is_int(sl_next, SL_N, "every CPU took the lock once");
		for (int i = 1; i < SL_N; i++)
			fifo &= sl_order[i] == SL_N - i;
		ok(sl_order[0] == 0 && fifo, "the waiters got the lock in the order they came (%d %d %d ... %d)",
		   sl_order[0], sl_order[1], sl_order[2], sl_order[SL_N - 1]);
		is_int((int)st1.lock_handoffs, SL_N - 1, "each waiter was handed the lock by its predecessor");
		is_int(sl_lock, 0, "the lock is free at the end");
	}

	/* Determinism: the same scenario twice gives the same clocks and counts. */
	is_int(dt_run(&e5, &st1), 0, "the mixed scenario runs");
	is_int(dt_counter, DT_N * DT_ITERS, "the CAS loop counted every increment");
	is_int(dt_locked_sum, DT_N * DT_ITERS, "the spinlock serialised the plain increments");
	is_int(dt_run(&e5, &st2), 0, "and runs again");
	ok(!memcmp(&st1, &st2, sizeof(st1)), "the two runs end at the same virtual time (%.1f and %.1f ns) with the "
	   "same counts (%llu and %llu transfers, %llu and %llu CAS failures)", st1.end_ns, st2.end_ns,
	   st1.transfers, st2.transfers, st1.cas_fail, st2.cas_fail);
	ok(st1.cas_fail > 0 && st1.lock_handoffs > 0 && st1.queued_ns > 0,
	   "the scenario contends: %llu CAS failures, %llu hand-offs, %.0f ns queued", st1.cas_fail,
	   st1.lock_handoffs, st1.queued_ns);

	/* A timed loop ends when every CPU's clock passes the stop time. */
	{
		void *args[2] = { (void *)0L, (void *)1L };

		stop_flag = 0;
		stop_loops[0] = stop_loops[1] = 0;
		is_int(vt_run(&e5, 2, stop_thread, args, &stop_flag, 30000, &st1), 0, "the timed run ends");
		ok(st1.stop_ns >= 30000 && st1.stop_ns < 30400, "the stop came at %.1f ns, just after 30000",
		   st1.stop_ns);
		ok(stop_loops[0] > 250 && stop_loops[0] < 310 && stop_loops[1] > 90 && stop_loops[1] < 103,
		   "each CPU looped for its own clock: %ld and %ld loops", stop_loops[0], stop_loops[1]);
	}
	test_agent(&e5);
	test_agent_wake(&e5);
	test_blocks(&e5);
	test_windows(&e5);
	test_lines_grow(&e5);
	test_line_order(&e5);
	return done_testing();
}
