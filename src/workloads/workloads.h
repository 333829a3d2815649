/*
 * The workloads each kernel build carries, gathered by src/kernel.c into
 * the build's descriptor (include/mmlab/kernel.h).
 */
#ifndef MMLAB_WORKLOADS_H
#define MMLAB_WORKLOADS_H

#include <mmlab/kernel.h>

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
