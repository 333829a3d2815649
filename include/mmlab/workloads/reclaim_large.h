/*
 * reclaim-large (src/workloads/reclaim_large.c): map a large file of large
 * folios, fault it in, and time one memory_reclaim() of most of it.
 */
#ifndef MMLAB_WORKLOADS_RECLAIM_LARGE_H
#define MMLAB_WORKLOADS_RECLAIM_LARGE_H

#include <stdbool.h>
#include <stdint.h>

struct rl_params {
	unsigned int folio_order;	/* the file's largest folio order; every folio's with ra_pages 0 */
	unsigned int ra_pages;		/* the file's readahead window (read_ahead_kb / 4); 0: none */
	unsigned long long map_size;	/* bytes of the file mapped (and faulted in) */
	unsigned long long reclaim_size;	/* bytes memory_reclaim() is asked for */
	bool contpte;			/* arm64-like with contiguous blocks; else x86-like */
	unsigned long tlb_flush_loops;	/* __delay() per synchronous TLB flush */
	unsigned long tlbi_loops;	/* __delay() per arm64 TLBI issued without waiting */
	bool tlbi_range;		/* FEAT_TLBIRANGE: one TLBI per range, not per page */
	int fd;				/* the backing file, or -1: folios carry no data */
	int nr_processes;		/* address spaces mapping the whole file */
	bool memcg;			/* the file's folios charged to a cgroup under the root */
	/*
	 * Where the mapping processes are while reclaim runs: each ran on a
	 * CPU other than the reclaiming one, round robin over the others,
	 * and went to sleep (that CPU idles in lazy TLB mode), or is still
	 * running there (each deferred x86 flush interrupts it).
	 */
	bool mappers_running;
	/*
	 * NULL, or the caller's room for the build's nr_vm_events counters,
	 * where the vm events of the memory_reclaim() call go.
	 */
	unsigned long *vm_events;
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
	unsigned long tlb_shootdowns;	/* x86 deferred flushes some CPU had to do */
	unsigned long mapped_pages;	/* file pages still mapped after reclaim (all processes) */
	unsigned long data_mismatches;	/* mapped pages whose bytes differ from the file (fd >= 0) */
	/*
	 * Which file pages are still cached, and each PTE's present, young
	 * and cont bits after reclaim, hashed: equal for every design started
	 * from the same state.
	 */
	uint64_t digest;
};

#endif
