/*
 * A kernel build: the model's mm compiled for one design (see Makefile),
 * seen from the lab through this descriptor.  Entry points here are called
 * outside any measured loop; the measured loops themselves live inside the
 * build (src/workloads/), so they call the design's functions directly.
 */
#ifndef MMLAB_KERNEL_H
#define MMLAB_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A workload the build carries (src/workloads/<name>.c, its parameters and
 * results in include/mmlab/workloads/<name>.h), found by its name in the
 * build's table.  Single-threaded: run() is one sample on a booted
 * machine, from set-up to check.  Multi-threaded: setup() on a booted
 * machine, worker() on each of the run's CPUs (with its own thread
 * struct), teardown() after they all returned.  The measured loops are
 * inside; they call the design's functions directly.
 */
struct mm_workload {
	const char *name;		/* its file's name: "free_contig" */
	/*
	 * 0; -ENOMEM, -EBUSY or -EINVAL if it could not run (the machine is
	 * too small, the parameters do not fit), @msg saying why; or -1 with
	 * a failed check in @msg.
	 */
	int (*run)(const void *params, void *result, char *msg, size_t len);
	void *(*setup)(const void *params);	/* NULL if it cannot */
	/* Loops until *stop becomes non-zero (a workload of fixed work may ignore it). */
	void (*worker)(void *state, void *thread, const int *stop);
	/* Frees what setup() made; 0 or -1 with a failed check in @msg. */
	int (*teardown)(void *state, char *msg, size_t len);
	/*
	 * sizeof its parameters and (.run) its result: the runner hands the
	 * workload copies of them on pages of their own (src/experiments/common.c).
	 */
	size_t params_size, result_size;
};

/*
 * The kernel's preemption models (the preempt= boot parameter of a
 * PREEMPT_DYNAMIC kernel).  Under none and voluntary, cond_resched() calls
 * __cond_resched(); under full (and lazy) the scheduler preempts at
 * preempt_enable() and cond_resched() is a call that returns 0 at once (x86's
 * static call to __static_call_return0, arm64's static key).
 */
enum preempt_model {
	PREEMPT_MODEL_NONE,
	PREEMPT_MODEL_VOLUNTARY,
	PREEMPT_MODEL_FULL,
	NR_PREEMPT_MODELS
};

struct mm_kernel {
	const char *name;	/* the build: "vanilla", "refcount-frozen-bit", ... */
	bool events;		/* built with CONFIG_DEBUG_VM_EVENTS: the event build */

	/*
	 * The build's vm event counters (include/linux/vmstat.h), read by
	 * name: vm_event_names[nr_vm_events] as /proc/vmstat prints them.
	 * The event build has the model's instrumentation items too.
	 */
	const char *const *vm_event_names;
	int nr_vm_events;
	/* Every counter summed over all CPUs into @ret[nr_vm_events]. */
	void (*all_vm_events)(unsigned long *ret);
	/* Zero every CPU's counters; never while the machine's CPUs run. */
	void (*reset_vm_events)(void);
	/*
	 * The vt flavour's timed spans (linux/vm_time_list.h), by key: their
	 * virtual time is the machine's (struct vt_stats, span_ns[key]).
	 */
	const char *const *vt_span_names;
	int nr_vt_spans;

	int (*mem_init)(unsigned long long bytes);
	void (*mem_exit)(void);
	/*
	 * Whole-model check at the end of a run: allocator invariants and
	 * every page accounted for.  0, or -1 with a one-line reason in @msg.
	 */
	int (*mem_check)(char *msg, size_t len);

	/* Every workload of the build (src/workloads/), NULL-terminated. */
	const struct mm_workload *const *workloads;

	/*
	 * The build's number of NUMA nodes (nr_online_nodes): set before
	 * mem_init(), which gives each node its share of the memory; 1 unless
	 * an experiment asks for more, and back to 1 after its mem_exit().
	 */
	int *nr_online_nodes;
	/*
	 * The kernel's preemption model (enum preempt_model above, the
	 * preempt= boot parameter): set before every mem_init().
	 */
	int *preempt_model;
};

#define DECLARE_KERNEL(design) \
	extern const struct mm_kernel mm_kernel_##design##_run, mm_kernel_##design##_ev

DECLARE_KERNEL(vanilla);
DECLARE_KERNEL(refcount_frozen_bit);
DECLARE_KERNEL(refcount_cmpxchg_guess);
DECLARE_KERNEL(refcount_seqcount_read);
DECLARE_KERNEL(vanilla_v1base);
DECLARE_KERNEL(contig_batched);
DECLARE_KERNEL(contig_bulk);
DECLARE_KERNEL(contig_chunk_prepare);
DECLARE_KERNEL(ra_batched);
DECLARE_KERNEL(mgt_entry);
DECLARE_KERNEL(mgt_counter);
DECLARE_KERNEL(rmap_batched_referenced);
DECLARE_KERNEL(rmap_batched);
DECLARE_KERNEL(pcp_drain_batch);

/*
 * The virtual-time builds (the vt flavour, machine/vt.h) of every design,
 * for --machine (exp_build() picks it).
 */
extern const struct mm_kernel mm_kernel_vanilla_vt, mm_kernel_refcount_frozen_bit_vt,
	mm_kernel_refcount_cmpxchg_guess_vt, mm_kernel_refcount_seqcount_read_vt,
	mm_kernel_ra_batched_vt, mm_kernel_vanilla_v1base_vt, mm_kernel_contig_batched_vt,
	mm_kernel_contig_bulk_vt, mm_kernel_contig_chunk_prepare_vt, mm_kernel_mgt_entry_vt,
	mm_kernel_mgt_counter_vt, mm_kernel_rmap_batched_referenced_vt, mm_kernel_rmap_batched_vt,
	mm_kernel_pcp_drain_batch_vt;

/*
 * A design `make DESIGNS=...` leaves out of build/mmlab still has its three
 * descriptors, so that every experiment links: each one's mem_init() prints
 * one line naming the designs that are built and exits 2
 * (src/lab/designs.c, from the list the Makefile generates).  The runner
 * refuses such a variant before any sample (lab_variant_not_built()).
 */
extern const struct mm_kernel *const mm_kernels_not_built[];	/* NULL-terminated */
extern const char mm_designs_built[];				/* "vanilla contig-bulk" */

#endif
