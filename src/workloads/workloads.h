/*
 * The workloads each kernel build carries, gathered by src/kernel.c into
 * the build's table of workloads (struct mm_workload, include/mmlab/kernel.h).
 */
#ifndef MMLAB_WORKLOADS_H
#define MMLAB_WORKLOADS_H

#include <linux/ktime.h>
#include <mmlab/kernel.h>

#include <machine/machine.h>

/*
 * The timed part of a single-threaded workload, in microseconds of the
 * machine's clock: t0 = timed_begin(); ...; spent = timed_end(t0).  On a
 * simulated machine the window also bounds what the run's counters say.
 */
static inline double timed_begin(void)
{
	machine_window_begin();
	return ktime_get_ns() / 1e3;
}

static inline double timed_end(double t0)
{
	double spent = ktime_get_ns() / 1e3 - t0;

	machine_window_end();
	return spent;
}

/*
 * A workload's entry in the build's table, named after its file:
 * src/workloads/free_contig.c says
 *
 *	MM_WORKLOAD(free_contig, .run = free_contig_run,
 *		    .params_size = sizeof(struct fc_params), .result_size = sizeof(struct fc_result));
 *
 * and the Makefile lists every src/workloads/<name>.c for src/kernel.c
 * (build/gen/mm_workloads.h), so a new file is in the table without more.
 * The functions take the struct mm_workload types (const void *params,
 * void *result): no wrapper runs between the runner and the workload.
 */
#define MM_WORKLOAD(ident, ...) \
	const struct mm_workload ident##_workload = { .name = #ident, __VA_ARGS__ }

#endif
