/*
 * readseq (src/workloads/readseq.c): as many files as threads, cold cache,
 * every read timed; each thread reads every file in turn (shared, as
 * db_bench --num_multi_db does) or only its own (private).
 */
#ifndef MMLAB_WORKLOADS_READSEQ_H
#define MMLAB_WORKLOADS_READSEQ_H

#include <stdbool.h>
#include <stdint.h>

struct lat_hist;

/* Who asks for readahead (--readahead). */
enum rsq_readahead {
	RSQ_RA_ONDEMAND,	/* the kernel's window, grown by the reads */
	RSQ_RA_SYSCALL,		/* readahead(2) of each window, one window ahead */
	RSQ_RA_ROCKSDB,		/* readahead(2) as RocksDB's iterator asks (rocksdb_prefetch.h) */
};

struct rsq_params {
	int nr_threads;
	unsigned long long file_size;	/* per thread */
	unsigned int value_size;	/* bytes per read */
	unsigned int ra_pages;		/* maximum readahead window */
	bool async_io;			/* a block device completes the reads */
	unsigned long long latency_ns;	/* device latency per request (async_io) */
	unsigned long long device_bytes_per_sec;	/* the device's channel (async_io); 0: unlimited */
	unsigned long latency_loops;	/* the same in __delay() loops (synchronous reads) */
	bool shared_files;		/* every thread reads every file, in the same order */
	enum rsq_readahead readahead;
	const int *fds;			/* the backing file of each thread */
	/* Expected Fletcher-style sums of each record of each thread's file. */
	const uint64_t *const *record_sums;
};

struct rsq_thread {
	int tid;
	unsigned long ops;
	unsigned long bad_records;	/* short, or bytes that differ from the file */
	struct lat_hist *hist;		/* per-operation latency, ns (lab-allocated) */
};

struct rsq_state;

#endif
