// SPDX-License-Identifier: GPL-2.0
/*
 * The virtual-time machine's runs (see include/machine/vt.h and
 * docs/design/virtual-time.md): the machine's state, a run from its
 * set-up to its counts, the timed windows inside one, and the kthreads
 * (agents) that run beside the machine's CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/smp.h>
#include <machine/vt.h>

#include "vt_int.h"

struct vt_state vt;

const char *const vt_dist_names[VT_NR_DIST] = {
	[VT_D_SMT] = "smt", [VT_D_L3] = "l3", [VT_D_SOCKET] = "socket", [VT_D_REMOTE] = "remote",
};
const char *const vt_order_names[VT_NR_ORDER] = {
	[VT_ORDER_FIFO] = "fifo", [VT_ORDER_FAR_FIRST] = "far-first", [VT_ORDER_NEAR_FIRST] = "near-first",
};
const char *const vt_cost_names[VT_NR_COST] = {
	[VT_C_HIT] = "hit", [VT_C_RMW] = "rmw", [VT_C_MEM] = "mem", [VT_C_BLOCK] = "block",
	[VT_C_PAUSE] = "pause",
};

static void vt_agent_main(void *arg);

int vt_set_nr_cpus(int nr_cpus)
{
	if (nr_cpus < 1 || nr_cpus > VT_MAX_CPUS)
		return -1;
	nr_cpu_ids = nr_cpus;
	vt_alloc_reset();
	return 0;
}

/* --- a run ------------------------------------------------------------------------ */

/* The two hardware threads of each core of @m among the run's first @n CPUs. */
static void vt_pair_siblings(const struct vt_machine *m, int n)
{
	int cores = m->sockets * m->l3_per_socket * m->cores_per_l3;

	for (int i = cores; i < n; i++) {
		vt.cpus[i].sibling = &vt.cpus[i - cores];
		vt.cpus[i - cores].sibling = &vt.cpus[i];
	}
}

int vt_run(const struct vt_machine *m, int n, vt_thread_fn fn, void *const *args,
	   int *stop, double stop_ns, struct vt_stats *stats)
{
	int ret = 0;

	if (n < 1 || n > m->nr_cpus || n + vt.nr_agents > VT_MAX_CPUS) {
		fprintf(stderr, "mmlab: vt: %d CPUs asked of %s, which has %d\n", n, m->name, m->nr_cpus);
		return -1;
	}
	if (vt.cur) {
		fprintf(stderr, "mmlab: vt: vt_run() inside a run\n");
		return -1;
	}
	memset(&vt.acc, 0, sizeof(vt.acc));
	memset(&vt.windows, 0, sizeof(vt.windows));
	vt.nr_windows = 0;
	vt.window_open = false;
	vt.windows_ps = 0;
	memset(vt.span_ps, 0, sizeof(vt.span_ps));
	memset(vt.window_span_ps, 0, sizeof(vt.window_span_ps));
	vt.m = m;
	for (int d = 0; d < VT_NR_DIST; d++)
		vt.lat[d] = ns_to_ps(m->lat_ns[d]);
	for (int k = 0; k < VT_NR_COST; k++)
		vt.cost[k] = ns_to_ps(m->cost_ns[k]);
	vt.wake = ns_to_ps(m->wake_ns);
	vt.rmw_beside = m->rmw_overlap && !m->rmw_hide_given;
	vt.rmw_share = m->rmw_hide_given ? m->rmw_hide : 0;
	vt.window_permille = (vt_ps)llround(m->line_window * 1000);
	vt_insn_start(m);
	vt.n = n + vt.nr_agents;
	vt.cpus = calloc(vt.n, sizeof(*vt.cpus));
	vt.heap = calloc(vt.n, sizeof(*vt.heap));
	/* Every run starts with a small table of fresh zero pages: no memset of a grown one. */
	if (vt.lines)
		munmap(vt.lines, vt_lines_bytes(vt.lines_bits));
	vt.lines_bits = VT_LINES_BITS_MIN;
	vt.lines = vt_lines_map(vt.lines_bits);
	vt.tags = vt.lines ? vt_lines_tags(vt.lines, vt.lines_bits) : NULL;
	if (!vt.cpus || !vt.heap || !vt.lines) {
		fprintf(stderr, "mmlab: vt: out of memory\n");
		free(vt.cpus);
		free(vt.heap);
		return -1;
	}
	memset(vt.lockq, 0, sizeof(vt.lockq));
	vt.nr_lockq = 0;
	vt.nr_lines = 0;
	vt.nr_gone = 0;
	vt.nheap = 0;
	vt.stop = stop;
	vt.stop_at = ns_to_ps(stop_ns);
	vt.stop_ps = 0;
	for (int i = 0; i < vt.n; i++) {
		struct vt_cpu *c = &vt.cpus[i];

		c->id = i;
		c->fall_slot = UINTPTR_MAX;	/* its first block was jumped to */
		if (i < n) {
			c->fn = fn;
			c->arg = args[i];
		} else {
			c->agent = true;
			c->fn = vt_agent_main;
			c->arg = &vt.agents[i - n];
		}
		/* An agent sits where its interrupts would land: the machine's last CPU. */
		vt_place(m, i < n ? i : m->nr_cpus - 1, &c->socket, &c->l3, &c->core);
		c->stack = mmap(NULL, VT_STACK, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (c->stack == MAP_FAILED) {
			fprintf(stderr, "mmlab: vt: cannot map a stack: %s\n", strerror(errno));
			c->stack = NULL;
			ret = -1;
			goto out;
		}
		vt_cpu_init_ctx(c);
		if (i)
			heap_push(c);
	}
	vt_pair_siblings(m, n);
	if (vt_hier_start(m) || vt_bp_start(m)) {
		fprintf(stderr, "mmlab: vt: out of memory for %s's caches and predictors\n", m->name);
		ret = -1;
		goto out;
	}
	vt.live = n;
	vt.saved_cpu_number = cpu_number;
	vt_switch(NULL, &vt.cpus[0]);
	/* Back here when every CPU has finished. */
	if (vt.live) {
		fprintf(stderr, "mmlab: vt: %d CPUs could not finish\n", vt.live);
		ret = -1;
	}
	if (vt.nr_windows) {
		/* The code marked what it times: report that alone. */
		vt.windows.st.stop_ns = 0;
		vt.windows.st.end_ns = vt.windows.st.cpu_ns = vt.windows_ps / 1000.0;
		vt.acc = vt.windows;
	}
	vt.acc.st.stop_ns = vt.stop_ps / 1000.0;
	vt.acc.st.transfer_ns = vt.acc.transfer_ps / 1000.0;
	vt.acc.st.queued_ns = vt.acc.queued_ps / 1000.0;
	vt.acc.st.lock_wait_ns = vt.acc.lock_wait_ps / 1000.0;
	vt.acc.st.poll_ns = vt.acc.poll_ps / 1000.0;
	vt.acc.st.delay_ns = vt.acc.delay_ps / 1000.0;
	vt.acc.st.code_ns = vt.acc.code_ps / 1000.0;
	vt.acc.st.mem_ns = vt.acc.mem_ps / 1000.0;
	vt.acc.st.rmw_ns = vt.acc.rmw_ps / 1000.0;
	vt.acc.st.branch_ns = vt.acc.branch_ps / 1000.0;
	vt.acc.st.hier = m->hier;
	for (int k = 0; k < VT_NR_SPANS; k++)
		vt.acc.st.span_ns[k] = (vt.nr_windows ? vt.window_span_ps[k] : vt.span_ps[k]) / 1000.0;
	if (stats)
		*stats = vt.acc.st;
out:
	vt_hier_stop();
	vt_bp_stop();
	for (int i = 0; i < vt.n; i++)
		if (vt.cpus[i].stack)
			munmap(vt.cpus[i].stack, VT_STACK);
	/* An agent still waiting is abandoned with its stack; its kthread_stop() returns 0. */
	for (int i = 0; i < vt.nr_agents; i++)
		vt.agents[i].ran = true;
	free(vt.cpus);
	free(vt.heap);
	vt.cpus = NULL;
	vt.heap = NULL;
	vt.cur = NULL;
	cpu_number = vt.saved_cpu_number;
	return ret;
}

/* --- timed windows ---------------------------------------------------------------------- */

/* @sum += @now - @then, count by count. */
static void vt_counts_add_delta(struct vt_counts *sum, const struct vt_counts *now,
				const struct vt_counts *then)
{
#define ADD(f)	(sum->f += now->f - then->f)
	ADD(st.events); ADD(st.blocks); ADD(st.transfers); ADD(st.remote_transfers);
	ADD(st.cas_fail); ADD(st.lock_acquires); ADD(st.lock_handoffs);
	ADD(transfer_ps); ADD(queued_ps); ADD(lock_wait_ps); ADD(poll_ps); ADD(delay_ps); ADD(code_ps);
	ADD(st.l1_miss); ADD(st.l2_miss); ADD(st.l3_miss); ADD(st.xdomain); ADD(st.mem_local);
	ADD(st.mem_remote); ADD(st.prefetches); ADD(mem_ps); ADD(rmw_ps);
	ADD(st.mispredicts); ADD(branch_ps); ADD(st.insns); ADD(st.taken);
#undef ADD
}

void vt_window_begin(void)
{
	struct vt_cpu *c = vt.cur;

	if (!c || vt.window_open)
		return;
	vt_fast_forward(false);		/* a window is always run in full */
	vt_charge_code(c);
	vt_drain_all(c);
	vt.window_open = true;
	vt.window_start = vt.acc;
	vt.window_clock = c->clock;
}

void vt_window_end(void)
{
	struct vt_cpu *c = vt.cur;

	if (!c || !vt.window_open)
		return;
	vt_charge_code(c);
	vt_drain_all(c);
	vt.window_open = false;
	vt_counts_add_delta(&vt.windows, &vt.acc, &vt.window_start);
	vt.windows_ps += c->clock - vt.window_clock;
	vt.nr_windows++;
}

/* --- kthreads: agents of the next run ---------------------------------------------------- */

static void vt_agent_main(void *arg)
{
	struct vt_agent *a = arg;

	a->ret = a->fn(a->data);
}

struct task_struct *vt_kthread_run(int (*fn)(void *data), void *data)
{
	struct vt_agent *a;

	if (vt.cur || vt.nr_agents == VT_MAX_AGENTS)
		return NULL;
	a = &vt.agents[vt.nr_agents++];
	*a = (struct vt_agent){ .fn = fn, .data = data };
	return (struct task_struct *)a;
}

int vt_kthread_stop(struct task_struct *k)
{
	struct vt_agent *a = (struct vt_agent *)k;
	bool all = true;

	a->stopped = true;
	for (int i = 0; i < vt.nr_agents; i++)
		all &= vt.agents[i].stopped;
	if (all)
		vt.nr_agents = 0;
	return a->ret;
}

