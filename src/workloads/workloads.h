/*
 * The workloads each kernel build carries, gathered by src/kernel.c into
 * the build's descriptor (include/mmlab/kernel.h).
 */
#ifndef MMLAB_WORKLOADS_H
#define MMLAB_WORKLOADS_H

#include <linux/ktime.h>
#include <mmlab/kernel.h>

#ifdef MMLAB_VT
#include <machine/vt.h>
#else
static inline void vt_window_begin(void) { }
static inline void vt_window_end(void) { }
#endif

/*
 * The timed part of a single-threaded workload, in microseconds of the
 * machine's clock: t0 = timed_begin(); ...; spent = timed_end(t0).  On a
 * simulated machine the window also bounds what the run's counters say.
 */
static inline double timed_begin(void)
{
	vt_window_begin();
	return ktime_get_ns() / 1e3;
}

static inline double timed_end(double t0)
{
	double spent = ktime_get_ns() / 1e3 - t0;

	vt_window_end();
	return spent;
}

struct rs_state *refcount_scale_setup(const struct rs_params *p);
void refcount_scale_worker(struct rs_state *s, struct rs_thread *t, const int *stop);
int refcount_scale_teardown(struct rs_state *s, char *msg, size_t len);

struct rsq_state *readseq_setup(const struct rsq_params *p);
void readseq_worker(struct rsq_state *s, struct rsq_thread *t);
int readseq_teardown(struct rsq_state *s, char *msg, size_t len);

int free_contig_run(const struct fc_params *p, struct fc_result *r, char *msg, size_t len);

int vmalloc_test_run(const struct vmalloc_test_params *p, struct vmalloc_test_result *r,
		     char *msg, size_t len);

int reclaim_large_run(const struct rl_params *p, struct rl_result *r, char *msg, size_t len);

int migrate_fork_run(const struct mf_params *p, struct mf_result *r, char *msg, size_t len);

#endif
