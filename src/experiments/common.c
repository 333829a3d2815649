/*
 * Booting, checking and reading the counters of a kernel build, the same
 * way for every experiment (src/experiments/common.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/cpumask.h>
#include <machine/machine.h>
#include <machine/vt.h>

#include "common.h"

int exp_mem_boot(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_cpus)
{
	int err, max = ctx->vt ? VT_MAX_CPUS : NR_CPUS;

	/* A vt build's per-CPU arrays are VT_MAX_CPUS long (linux/cpumask.h). */
	if (ctx->vt ? vt_set_nr_cpus(nr_cpus) : machine_set_nr_cpus(nr_cpus)) {
		fprintf(stderr, "mmlab: cannot size the machine to %d CPUs (valid: 1..%d)\n",
			nr_cpus, max);
		return -1;
	}
	err = k->mem_init(ctx->mem_bytes);
	if (err) {
		fprintf(stderr, "mmlab: cannot boot %llu bytes of simulated memory: %s\n",
			ctx->mem_bytes, strerror(-err));
		return -1;
	}
	return 0;
}

void exp_mem_check_exit(const struct mm_kernel *k, const char *who, struct sample *out)
{
	char msg[256];

	if (k->mem_check(msg, sizeof(msg)))
		sample_fail(out, false, "%s: %s", who, msg);
	k->mem_exit();
}

unsigned long *exp_vm_events_alloc(const struct mm_kernel *k)
{
	return calloc((size_t)k->nr_vm_events, sizeof(unsigned long));
}

unsigned long exp_vm_event(const struct mm_kernel *k, const unsigned long *events,
			   const char *name)
{
	for (int i = 0; i < k->nr_vm_events; i++)
		if (!strcmp(k->vm_event_names[i], name))
			return events[i];
	fprintf(stderr, "mmlab: the %s%s build counts no vm event \"%s\"\n",
		k->name, k->events ? " event" : "", name);
	abort();
}

/* @n CPUs, asked for by @opt, fit the simulated machine: 0, or -1 with one line. */
static int vt_fits(const struct exp_ctx *ctx, const char *opt, long long n)
{
	if (n <= ctx->vt->nr_cpus)
		return 0;
	fprintf(stderr, "mmlab: --%s: %lld is more than %s's %d CPUs; valid: 1..%d\n",
		opt, n, ctx->vt->name, ctx->vt->nr_cpus, ctx->vt->nr_cpus);
	return -1;
}

int exp_vt_check_threads(const struct exp_ctx *ctx)
{
	for (int i = 0; i < ctx->nr_points; i++)
		if (vt_fits(ctx, "threads", ctx->points[i].arg))
			return -1;
	return 0;
}

void exp_vt_counters(struct sample *out, const struct vt_stats *st, double ops,
		     const char *delay_counter)
{
	ops = ops > 0 ? ops : 1;
	sample_counter(out, "events_per_op", st->events / ops);
	sample_counter(out, "blocks_per_op", st->blocks / ops);
	sample_counter(out, "line_transfers_per_op", st->transfers / ops);
	sample_counter(out, "remote_transfers_per_op", st->remote_transfers / ops);
	sample_counter(out, "transfer_ns_per_op", st->transfer_ns / ops);
	sample_counter(out, "queued_ns_per_op", st->queued_ns / ops);
	sample_counter(out, "cas_retries_per_op", st->cas_fail / ops);
	sample_counter(out, "lock_handoffs_per_op", st->lock_handoffs / ops);
	sample_counter(out, "lock_wait_ns_per_op", st->lock_wait_ns / ops);
	sample_counter(out, "poll_ns_per_op", st->poll_ns / ops);
	if (st->hier) {
		sample_counter(out, "l1_misses_per_op", st->l1_miss / ops);
		sample_counter(out, "l2_misses_per_op", st->l2_miss / ops);
		sample_counter(out, "l3_misses_per_op", st->l3_miss / ops);
		sample_counter(out, "other_domain_per_op", st->xdomain / ops);
		sample_counter(out, "mem_local_per_op", st->mem_local / ops);
		sample_counter(out, "mem_remote_per_op", st->mem_remote / ops);
		sample_counter(out, "prefetches_per_op", st->prefetches / ops);
		sample_counter(out, "mem_stall_ns_per_op", st->mem_ns / ops);
	}
	/* Where the CPUs' virtual time went, in % of all of it. */
	if (st->cpu_ns > 0) {
		double pct = 100 / st->cpu_ns;

		sample_counter(out, "share_transfer_pct", st->transfer_ns * pct);
		sample_counter(out, "share_queued_pct", st->queued_ns * pct);
		sample_counter(out, "share_wait_pct", (st->poll_ns + st->lock_wait_ns) * pct);
		sample_counter(out, delay_counter, st->delay_ns * pct);
		sample_counter(out, "share_code_pct", st->code_ns * pct);
		if (st->hier)
			sample_counter(out, "share_mem_pct", st->mem_ns * pct);
	}
}

int exp_vt_check_cpus(const struct exp_ctx *ctx)
{
	return ctx->vt ? vt_fits(ctx, "cpus", exp_opt(ctx, "cpus")->i) : 0;
}

double exp_delay_loops_per_ns(const struct exp_ctx *ctx)
{
	return ctx->vt ? 1.0 : delay_loops_per_ns();
}

int exp_call(const struct exp_ctx *ctx, void (*fn)(void *), void *arg, struct vt_stats *st)
{
	void *args[1] = { arg };

	if (!ctx->vt) {
		fn(arg);
		return 0;
	}
	return vt_run(ctx->vt, 1, fn, args, NULL, 0, st);
}

const struct mm_workload *exp_workload(const struct mm_kernel *k, const char *name)
{
	for (const struct mm_workload *const *w = k->workloads; w && *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	/* Every src/workloads/<name>.c is in every build: a missing one is a bug of the lab. */
	fprintf(stderr, "mmlab: the %s build has no workload \"%s\" (src/workloads/%s.c)\n",
		k->name, name, name);
	abort();
}

struct exp_run_call {
	const struct mm_workload *w;
	struct exp_run *run;
};

static void exp_run_call(void *arg)
{
	struct exp_run_call *c = arg;

	c->run->err = c->w->run(c->run->params, c->run->result, c->run->msg, sizeof(c->run->msg));
}

static void exp_run_exit(struct exp_run *run)
{
	run->k->mem_exit();
	*run->k->nr_online_nodes = 1;
}

int exp_boot_run(struct exp_ctx *ctx, struct exp_run *run, struct sample *out)
{
	const struct mm_kernel *k = run->k;
	struct exp_run_call call = { exp_workload(k, ctx->exp->workload), run };

	run->err = 0;
	run->msg[0] = 0;
	if (run->nodes)
		*k->nr_online_nodes = run->nodes;
	if (exp_mem_boot(ctx, k, run->nr_cpus)) {
		*k->nr_online_nodes = 1;
		return -1;
	}
	if (exp_call(ctx, exp_run_call, &call, &run->st)) {
		exp_run_exit(run);
		return -1;
	}
	if (run->err == -ENOMEM || run->err == -EBUSY || run->err == -EINVAL) {
		fprintf(stderr, "mmlab: %s\n", run->msg);
		exp_run_exit(run);
		return -1;
	}
	if (run->err)
		sample_fail(out, false, "%s: %s", run->who, run->msg);
	return 0;
}

void exp_run_end(struct exp_ctx *ctx, struct exp_run *run, double ops, struct sample *out)
{
	if (ctx->vt)
		exp_vt_counters(out, &run->st, ops, "share_delay_pct");
	exp_mem_check_exit(run->k, run->who, out);
	*run->k->nr_online_nodes = 1;
}
