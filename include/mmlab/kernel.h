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

/* --- refcount-scale (src/workloads/refcount_scale.c) ----------------------- */

enum rs_event {
	RS_TRYGET,
	RS_TRYGET_FAIL,
	RS_CAS_RETRY,
	RS_UNDO_LOOP,
	RS_PUT_RACE,
	RS_SEQ_FALLBACK,	/* seqcount-read: fell back to the refcounted path */
	NR_RS_EVENTS,
};

struct rs_params {
	int nr_pages;		/* distinct file pages the threads spread over */
	int read_size;		/* bytes per read */
	int nr_threads;
	uint64_t seed;		/* file contents */
	unsigned long syscall_loops;	/* spin_loops() after each read: the rest of pread(2) */
};

struct rs_thread {
	int tid;
	unsigned long ops;
	unsigned long mismatches;	/* reads whose bytes differ from the file */
	unsigned long events[NR_RS_EVENTS];	/* event builds only */
};

struct rs_state;

/* --- free-contig (src/workloads/free_contig.c) ------------------------------- */

enum fc_mode {
	FC_SPLIT,	/* alloc order N, split_page, free_contig_range: the thread's test */
	FC_FROZEN,	/* alloc_contig_frozen_range, __free_contig_frozen_range: the CMA test */
};

struct fc_params {
	enum fc_mode mode;
	unsigned int order;		/* FC_SPLIT */
	unsigned long frozen_pages;	/* FC_FROZEN: pages per range */
	unsigned long iterations;
};

#define FC_NR_ORDERS		11	/* MAX_PAGE_ORDER + 1 */
#define FC_PAGEBLOCK_ORDER	9	/* pageblock_order */

struct fc_result {
	double usec;			/* the measured loop */
	unsigned long not_freed;	/* pages __free_contig_range reported still in use */
	/* Where the free memory is after the loop, in pages per order. */
	unsigned long buddy_pages_by_order[FC_NR_ORDERS];
	unsigned long pcp_pages_by_order[FC_NR_ORDERS];
};

/* --- readseq (src/workloads/readseq.c) ------------------------------------------ */

struct lat_hist;

enum rsq_event {
	RSQ_XA_LOCK_ADD,	/* xa_lock acquisitions to insert folios */
	RSQ_XA_LOCK_NS,		/* time it was held */
	RSQ_FOLIOS_ADDED,
	RSQ_READ_REQUESTS,	/* requests to the backing store */
	RSQ_RA_FALLBACK,	/* batched readahead fell back to single insertion */
	NR_RSQ_EVENTS,
};

struct rsq_params {
	int nr_threads;
	unsigned long long file_size;	/* per thread */
	unsigned int value_size;	/* bytes per read */
	unsigned int ra_pages;		/* maximum readahead window */
	unsigned long latency_loops;	/* device latency per request, in spin_loops() */
	const int *fds;			/* the backing file of each thread */
	/* Expected Fletcher-style sums of each record of each thread's file. */
	const uint64_t *const *record_sums;
};

struct rsq_thread {
	int tid;
	unsigned long ops;
	unsigned long bad_records;	/* short, or bytes that differ from the file */
	struct lat_hist *hist;		/* per-operation latency, ns (lab-allocated) */
	unsigned long events[NR_RSQ_EVENTS];	/* event builds only */
};

struct rsq_state;

/* --- vmalloc (src/workloads/vmalloc_test.c) ----------------------------------- */

struct vmalloc_test_params;	/* include/mmlab/vmalloc_test.h */
struct vmalloc_test_result;

/* --- reclaim-large (src/workloads/reclaim_large.c) ------------------------------ */

enum rl_event {
	RL_PTES_VISITED,	/* PTEs whose young bit was tested or that were cleared */
	RL_RMAP_WALKS,		/* rmap walks (folio_referenced, try_to_unmap) */
	RL_RMAP_VMAS,		/* VMAs those walks visited */
	RL_PVMW_HITS,		/* entries page_vma_mapped_walk() stopped at */
	RL_BATCHES,		/* young-bit or unmap operations, one per run of entries */
	RL_REFERENCED_NS,	/* time in folio_referenced() (the event run's own clock) */
	RL_UNMAP_NS,		/* time in try_to_unmap() */
	NR_RL_EVENTS,
};

struct rl_params {
	unsigned int folio_order;	/* of the file's folios */
	unsigned long long map_size;	/* bytes of the file mapped (and faulted in) */
	unsigned long long reclaim_size;	/* bytes memory_reclaim() is asked for */
	bool contpte;			/* arm64-like with contiguous blocks; else x86-like */
	unsigned long tlb_flush_loops;	/* spin_loops() per synchronous TLB flush */
	unsigned long tlbi_loops;	/* spin_loops() per arm64 TLBI issued without waiting */
	int fd;				/* the backing file, or -1: folios carry no data */
	int nr_processes;		/* address spaces mapping the whole file */
};

struct rl_result {
	double usec;			/* the memory_reclaim() call */
	unsigned long reclaimed_pages;
	unsigned long scanned_pages;
	unsigned long activated_pages;
	unsigned long kept_pages;
	unsigned long referenced_calls;	/* folio_referenced() calls */
	unsigned long unmap_calls;	/* try_to_unmap() calls */
	unsigned long tlb_flushes;	/* invalidation requests, waited for or not */
	unsigned long tlb_pages_flushed;
	unsigned long tlb_syncs;	/* waits for completion */
	unsigned long events[NR_RL_EVENTS];	/* event builds only */
	unsigned long mapped_pages;	/* file pages still mapped after reclaim (all processes) */
	unsigned long data_mismatches;	/* mapped pages whose bytes differ from the file (fd >= 0) */
	/*
	 * Which file pages are still cached, and each PTE's present, young
	 * and cont bits after reclaim, hashed: equal for every design started
	 * from the same state.
	 */
	uint64_t digest;
};

struct mm_kernel {
	const char *name;	/* the build: "vanilla", "refcount-frozen-bit", ... */
	bool events;		/* built with CONFIG_PAGEREF_EVENTS */

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
};

#define DECLARE_KERNEL(design) \
	extern const struct mm_kernel mm_kernel_##design##_run, mm_kernel_##design##_ev

DECLARE_KERNEL(vanilla);
DECLARE_KERNEL(refcount_frozen_bit);
DECLARE_KERNEL(refcount_cmpxchg_guess);
DECLARE_KERNEL(refcount_seqcount_read);
DECLARE_KERNEL(contig_batched);
DECLARE_KERNEL(contig_bulk);
DECLARE_KERNEL(contig_chunk_prepare);
DECLARE_KERNEL(ra_batched);
DECLARE_KERNEL(rmap_referenced);
DECLARE_KERNEL(rmap_batched);

#endif
