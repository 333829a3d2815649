/*
 * What every experiment does with a kernel build around its samples:
 * boot its machine, check and shut it down, read its vm events by name.
 */
#ifndef MMLAB_EXPERIMENTS_COMMON_H
#define MMLAB_EXPERIMENTS_COMMON_H

#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <machine/machine.h>

/*
 * Size the machine to @nr_cpus CPUs, then boot @k's memory with --mem:
 * 0, or -1 with the reason printed.  Per-CPU sizing at boot (pcp high and
 * batch, vmstat thresholds, lazy purge limits) sees the point's machine,
 * never an earlier sample's.
 */
int exp_mem_boot(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_cpus);

/*
 * The end of a sample: check that the allocator is sound and every page
 * is accounted for (a failure is recorded in @out, as "@who: reason"),
 * then shut the machine down.
 */
void exp_mem_check_exit(const struct mm_kernel *k, const char *who, struct sample *out);

/* Room for @k's vm event counters, zeroed; NULL if out of memory. */
unsigned long *exp_vm_events_alloc(const struct mm_kernel *k);

/*
 * The counter called @name (as in /proc/vmstat) in @events, read from @k.
 * Asking for a name the build does not count is a bug of the experiment:
 * it aborts.
 */
unsigned long exp_vm_event(const struct mm_kernel *k, const unsigned long *events,
			   const char *name);

/*
 * Every point's thread count fits the machine (ctx->machine); 0, or -1
 * with one line naming the point and the machine's range.
 */
int exp_check_threads(const struct exp_ctx *ctx);

/*
 * The CPUs a single-threaded experiment sizes its boot for (its --cpus)
 * fit the machine; 0, or -1 with one line.
 */
/*
 * Time a simulated machine spent inside the kernel model's spans @name (one
 * of linux/vm_time_list.h, timed by rmap_time_add()), in ns.
 */
double exp_machine_span_ns(const struct mm_kernel *k, const struct machine_stats *st, const char *name);
int exp_check_cpus(const struct exp_ctx *ctx);

/*
 * What the machine counted in a run, per operation (@ops of them, summed
 * over the CPUs), where it counts (st->counted: a simulated machine): line
 * transfers (and those across sockets), time in transfers and queued for a
 * busy line, failed compare-exchanges, spinlock hand-offs and waits,
 * polling, events, and the share of all the CPUs' virtual time in
 * transfers, queueing, waits, modelled delays (@delay_counter, a string
 * that outlives the sample: "share_syscall_pct") and the code between
 * events.  Nothing where the machine does not count (the host).
 */
void exp_machine_counters(struct sample *out, const struct machine_stats *st, double ops,
			  const char *delay_counter);

/*
 * Whether a separate run of the event build is wanted for its counters
 * (@asked: the experiment's option): where the machine counts itself, the
 * machine's counters say why instead, and the event build's times (the
 * host's) would mislead.
 */
bool exp_event_run(const struct exp_ctx *ctx, bool asked);

/* The build a sample runs: @k's design, built for the machine (its run or vt build). */
const struct mm_kernel *exp_build(const struct exp_ctx *ctx, const struct mm_kernel *k);

/* Iterations of __delay() a nanosecond of the machine's clock: 1 on a simulated machine. */
double exp_delay_loops_per_ns(const struct exp_ctx *ctx);

/* @k's workload called @name (the experiment's ->workload); a missing one aborts. */
const struct mm_workload *exp_workload(const struct mm_kernel *k, const char *name);

/*
 * One sample of a single-threaded experiment's workload (exp->workload),
 * from boot to shut-down:
 *
 *	struct exp_run run = { .k = exp_build(ctx, v->impl), .params = &params, .result = &r };
 *	struct machine_stats st;
 *
 *	if (exp_boot_run(ctx, &run, v->name, nr_cpus, 0, &st, out))
 *		return -1;
 *	(the sample's value and counters, from r; run.err says if it failed)
 *	exp_run_end(ctx, &run, v->name, &st, ops, out);
 *
 * exp_boot_run() sizes the machine for @nr_cpus CPUs and @nodes NUMA nodes
 * (0: one), boots @k and runs the workload on the machine's one CPU, what
 * the machine counted in @st.  -1 if the sample could not run (the
 * workload said -ENOMEM, -EBUSY or -EINVAL: its reason printed, the
 * machine shut down); else 0 with the machine up, and @err the workload's
 * value: 0, or a failed check recorded in @out as "@who: reason".
 * exp_run_end() adds what the machine counted per @ops operations, checks
 * the allocator and every page, and shuts the machine down.
 *
 * The workload sees copies of @params and @result on pages of their own
 * (the sizes its MM_WORKLOAD() gives), @result copied back after the run:
 * a simulated machine charges the workload's reads and writes of them like
 * any memory, and a run_one() may keep them wherever it likes without
 * moving a sample.
 */
struct exp_run {
	const struct mm_kernel *k;
	const void *params;
	void *result;
	/* Set by exp_boot_run(): */
	char msg[256];
	int err;
};

int exp_boot_run(struct exp_ctx *ctx, struct exp_run *run, const char *who, int nr_cpus, int nodes,
		 struct machine_stats *st, struct sample *out);
void exp_run_end(struct exp_ctx *ctx, struct exp_run *run, const char *who,
		 const struct machine_stats *st, double ops, struct sample *out);

/*
 * One sample of a multi-threaded experiment's workload (exp->workload):
 * boot @k sized for @nr CPUs, set the workload up with @params, run its
 * worker on each CPU (worker i with the i-th of the @nr thread structs of
 * @thread_size bytes at @threads), stopped after @seconds on the host or
 * @virtual_ns on a simulated machine (both 0: each runs to its end), tear
 * down, check and shut down.  @vm_events (NULL: not counted) gets the vm
 * events of the run.  The machine's statistics in @st (the window:
 * st.stop_ns, st.end_ns).  0 (a failed check recorded in @out as "@who: reason"),
 * or -1 if the sample could not run (the reason printed).
 */
struct exp_threads {
	const struct mm_kernel *k;
	const char *who;
	int nr;
	const void *params;
	void *threads;
	size_t thread_size;
	double seconds, virtual_ns;
	unsigned long *vm_events;
	/* Set by exp_boot_threads(): */
	struct machine_stats st;
};

int exp_boot_threads(struct exp_ctx *ctx, struct exp_threads *t, struct sample *out);

#endif
