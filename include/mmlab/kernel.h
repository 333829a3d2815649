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

#include <mmlab/workloads/free_contig.h>
#include <mmlab/workloads/migrate_fork.h>
#include <mmlab/workloads/readseq.h>
#include <mmlab/workloads/reclaim_large.h>
#include <mmlab/workloads/refcount_scale.h>
#include <mmlab/workloads/vmalloc_test.h>

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

	struct rs_state *(*rs_setup)(const struct rs_params *p);
	/* Loops reads until *stop becomes non-zero. */
	void (*rs_worker)(struct rs_state *s, struct rs_thread *t, const int *stop);
	/* Removes the file from the page cache and frees it; 0 or -1 + @msg. */
	int (*rs_teardown)(struct rs_state *s, char *msg, size_t len);

	/* readseq: one reader per thread over its own file, cold cache. */
	struct rsq_state *(*rsq_setup)(const struct rsq_params *p);
	void (*rsq_worker)(struct rsq_state *s, struct rsq_thread *t);
	int (*rsq_teardown)(struct rsq_state *s, char *msg, size_t len);

	/*
	 * One free-contig sample on a booted machine: 0, -ENOMEM if the loop
	 * could not allocate, or -1 with a failed check in @msg.
	 */
	int (*fc_run)(const struct fc_params *p, struct fc_result *r, char *msg, size_t len);

	/* One test_vmalloc case on a booted machine; 0 or -1 with @msg. */
	int (*vmalloc_test_run)(const struct vmalloc_test_params *p,
				struct vmalloc_test_result *r, char *msg, size_t len);

	/*
	 * One reclaim-large sample on a booted machine: map, fault in, touch,
	 * reclaim (timed), check, tear down.  0, -ENOMEM if the machine is too
	 * small for the mapping, or -1 with a failed check in @msg.
	 */
	int (*rl_run)(const struct rl_params *p, struct rl_result *r, char *msg, size_t len);

	/*
	 * The build's number of NUMA nodes (nr_online_nodes): set before
	 * mem_init(), which gives each node its share of the memory; 1 unless
	 * an experiment asks for more, and back to 1 after its mem_exit().
	 */
	int *nr_online_nodes;

	/*
	 * One migrate-fork sample on a booted machine of at least 2 nodes:
	 * map, fault in, fork, COW, mbind (timed), check, tear down.  0,
	 * -ENOMEM if the machine is too small, or -1 with a failed check in @msg.
	 */
	int (*mf_run)(const struct mf_params *p, struct mf_result *r, char *msg, size_t len);
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
DECLARE_KERNEL(rmap_referenced);
DECLARE_KERNEL(rmap_batched);

/*
 * The virtual-time builds (the vt flavour, machine/vt.h) of every design,
 * for --machine (exp_build() picks it).
 */
extern const struct mm_kernel mm_kernel_vanilla_vt, mm_kernel_refcount_frozen_bit_vt,
	mm_kernel_refcount_cmpxchg_guess_vt, mm_kernel_refcount_seqcount_read_vt,
	mm_kernel_ra_batched_vt, mm_kernel_vanilla_v1base_vt, mm_kernel_contig_batched_vt,
	mm_kernel_contig_bulk_vt, mm_kernel_contig_chunk_prepare_vt, mm_kernel_mgt_entry_vt,
	mm_kernel_mgt_counter_vt, mm_kernel_rmap_referenced_vt, mm_kernel_rmap_batched_vt;

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
