/*
 * Booting, checking and reading the counters of a kernel build, the same
 * way for every experiment (src/experiments/common.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/machine.h>

#include "common.h"

int exp_mem_boot(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_cpus)
{
	int err;

	/* A vt build's per-CPU arrays are VT_MAX_CPUS long (linux/cpumask.h): its machine's bound. */
	if (machine_set_cpus(ctx->machine, nr_cpus)) {
		fprintf(stderr, "mmlab: cannot size the machine to %d CPUs (valid: 1..%d)\n",
			nr_cpus, ctx->machine->max_nr_cpu_ids);
		return -1;
	}
	*k->preempt_model = ctx->preempt;
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

int exp_check_threads(const struct exp_ctx *ctx)
{
	for (int i = 0; i < ctx->nr_points; i++)
		if (machine_check_cpus(ctx->machine, "threads", ctx->points[i].arg))
			return -1;
	return 0;
}

double exp_machine_span_ns(const struct mm_kernel *k, const struct machine_stats *st, const char *name)
{
	for (int i = 0; i < k->nr_vt_spans; i++)
		if (!strcmp(k->vt_span_names[i], name))
			return st->span_ns[i];
	fprintf(stderr, "mmlab: the %s build times no span \"%s\" in virtual time\n", k->name, name);
	abort();
}

int exp_check_cpus(const struct exp_ctx *ctx)
{
	return machine_check_cpus(ctx->machine, "cpus", exp_opt(ctx, "cpus")->i);
}

bool exp_event_run(const struct exp_ctx *ctx, bool asked)
{
	return asked && !ctx->machine->counts;
}

double exp_delay_loops_per_ns(const struct exp_ctx *ctx)
{
	return machine_delay_loops_per_ns(ctx->machine);
}

void exp_machine_counters(struct sample *out, const struct machine_stats *st, double ops,
			  const char *delay_counter)
{
	bool predicted = st->branch_ns > 0 || st->mispredicts;	/* core.mispredict */

	if (!st->counted)
		return;
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
	if (predicted)
		sample_counter(out, "mispredicts_per_op", st->mispredicts / ops);
	if (st->insns) {	/* core.insn */
		sample_counter(out, "insns_per_op", st->insns / ops);
		sample_counter(out, "taken_per_op", st->taken / ops);
	}
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
		sample_counter(out, "share_rmw_pct", st->rmw_ns * pct);
		if (predicted)
			sample_counter(out, "share_branch_pct", st->branch_ns * pct);
		if (st->hier)
			sample_counter(out, "share_mem_pct", st->mem_ns * pct);
	}
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

/*
 * What a workload reads of the runner's and writes back (its parameters,
 * its result, the threads' structs) goes on pages of its own: a simulated
 * machine charges those reads and writes like any memory, and on fresh
 * pages they lie at the same offsets whatever the runner's frame and heap
 * look like, so a sample does not move when the runner's code or the set
 * of designs linked (make DESIGNS=...) changes.  The page is numbered by
 * the machine at its first touch, like every page it sees.
 */
#define EXP_IO_ALIGN	4096UL

static void *exp_io_get(const void *from, size_t size)
{
	size_t bytes = (size + EXP_IO_ALIGN - 1) & ~(EXP_IO_ALIGN - 1);
	void *io = aligned_alloc(EXP_IO_ALIGN, bytes ? bytes : EXP_IO_ALIGN);

	if (!io) {
		fprintf(stderr, "mmlab: out of memory for a workload's parameters (%zu bytes)\n", size);
		exit(1);
	}
	memset(io, 0, bytes ? bytes : EXP_IO_ALIGN);
	if (from && size)
		memcpy(io, from, size);
	return io;
}

/* A workload's entry must say how big its parameters and result are. */
static void exp_io_sizes_check(const struct mm_kernel *k, const struct mm_workload *w)
{
	if (w->params_size && (w->run ? w->result_size : 1))
		return;
	fprintf(stderr, "mmlab: workload %s of the %s build gives no .params_size%s in its MM_WORKLOAD() "
		"(sizeof its parameters%s)\n", w->name, k->name, w->run ? " or .result_size" : "",
		w->run ? " and of its result" : "");
	exit(2);
}

struct exp_run_call {
	const struct mm_workload *w;
	struct exp_run *run;
	const void *params;
	void *result;
};

static void exp_run_call(void *arg)
{
	struct exp_run_call *c = arg;

	c->run->err = c->w->run(c->params, c->result, c->run->msg, sizeof(c->run->msg));
}

static void exp_run_exit(struct exp_run *run)
{
	run->k->mem_exit();
	*run->k->nr_online_nodes = 1;
}

int exp_boot_run(struct exp_ctx *ctx, struct exp_run *run, const char *who, int nr_cpus, int nodes,
		 struct machine_stats *st, struct sample *out)
{
	const struct mm_kernel *k = run->k;
	const struct mm_workload *w = exp_workload(k, ctx->exp->workload);
	struct exp_run_call call = { w, run, NULL, NULL };
	int ret;

	exp_io_sizes_check(k, w);
	run->err = 0;
	run->msg[0] = 0;
	if (nodes)
		*k->nr_online_nodes = nodes;
	if (exp_mem_boot(ctx, k, nr_cpus)) {
		*k->nr_online_nodes = 1;
		return -1;
	}
	call.params = exp_io_get(run->params, w->params_size);
	call.result = exp_io_get(run->result, w->result_size);
	ret = machine_call(ctx->machine, exp_run_call, &call, st);
	memcpy(run->result, call.result, w->result_size);
	free((void *)call.params);
	free(call.result);
	if (ret) {
		exp_run_exit(run);
		return -1;
	}
	if (run->err == -ENOMEM || run->err == -EBUSY || run->err == -EINVAL) {
		fprintf(stderr, "mmlab: %s\n", run->msg);
		exp_run_exit(run);
		return -1;
	}
	if (run->err)
		sample_fail(out, false, "%s: %s", who, run->msg);
	return 0;
}

void exp_run_end(struct exp_ctx *ctx, struct exp_run *run, const char *who,
		 const struct machine_stats *st, double ops, struct sample *out)
{
	(void)ctx;
	exp_machine_counters(out, st, ops, "share_delay_pct");
	exp_mem_check_exit(run->k, who, out);
	*run->k->nr_online_nodes = 1;
}

struct exp_worker {
	const struct mm_workload *w;
	void *state;
	void *thread;
	const int *stop;
};

/* On each CPU: the workload's worker, called once (the loop is inside). */
static void exp_worker_main(void *arg)
{
	struct exp_worker *a = arg;

	a->w->worker(a->state, a->thread, a->stop);
}

int exp_boot_threads(struct exp_ctx *ctx, struct exp_threads *t, struct sample *out)
{
	const struct mm_kernel *k = t->k;
	const struct mm_workload *w = exp_workload(k, ctx->exp->workload);
	struct exp_worker *args = calloc((size_t)t->nr, sizeof(*args));
	void **argv = calloc((size_t)t->nr, sizeof(*argv));
	int stop = 0, ret = -1;
	struct machine_stop when = { .flag = &stop, .seconds = t->seconds, .virtual_ns = t->virtual_ns };
	char msg[256];
	void *state, *params = NULL, *threads = NULL;

	exp_io_sizes_check(k, w);
	if (!args || !argv)
		goto out;
	if (exp_mem_boot(ctx, k, t->nr))
		goto out;
	params = exp_io_get(t->params, w->params_size);
	threads = exp_io_get(t->threads, (size_t)t->nr * t->thread_size);
	state = w->setup(params);
	if (!state) {
		fprintf(stderr, "mmlab: %s: cannot set up the workload (out of simulated memory?)\n",
			ctx->exp->name);
		k->mem_exit();
		goto out;
	}
	for (int i = 0; i < t->nr; i++) {
		args[i] = (struct exp_worker){ w, state, (char *)threads + i * t->thread_size, &stop };
		argv[i] = &args[i];
	}
	if (t->vm_events)
		k->reset_vm_events();
	if (machine_run(ctx->machine, t->nr, exp_worker_main, argv,
			t->seconds > 0 || t->virtual_ns > 0 ? &when : NULL, &t->st)) {
		w->teardown(state, msg, sizeof(msg));
		k->mem_exit();
		goto out;
	}
	if (t->vm_events)
		k->all_vm_events(t->vm_events);
	if (w->teardown(state, msg, sizeof(msg)))
		sample_fail(out, false, "%s: %s", t->who, msg);
	memcpy(t->threads, threads, (size_t)t->nr * t->thread_size);
	exp_mem_check_exit(k, t->who, out);
	ret = 0;
out:
	free(threads);
	free(params);
	free(argv);
	free(args);
	return ret;
}
