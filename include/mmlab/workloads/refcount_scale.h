/*
 * refcount-scale (src/workloads/refcount_scale.c): threads looping a short
 * read of one page-cache page.
 */
#ifndef MMLAB_WORKLOADS_REFCOUNT_SCALE_H
#define MMLAB_WORKLOADS_REFCOUNT_SCALE_H

#include <stdint.h>

/* Which kernel read path a read takes. */
enum rs_read_path {
	RS_READ_TMPFS,		/* shmem_file_read_iter(): the seed's file is on tmpfs */
	RS_READ_FILEMAP,	/* filemap_read(): a disk file system's cached page */
};

struct rs_params {
	int nr_pages;		/* distinct file pages the threads spread over */
	int read_size;		/* bytes per read */
	int nr_threads;
	uint64_t seed;		/* file contents */
	unsigned long syscall_loops;	/* __delay() after each read: the rest of pread(2) */
	unsigned long copy_loops;	/* __delay() in its copy to user memory (copy_user_loops) */
	unsigned long jitter_loops;	/* syscall_loops varies by up to this either way, per read */
	enum rs_read_path read_path;
};

struct rs_thread {
	int tid;
	unsigned long ops;
	unsigned long mismatches;	/* reads whose bytes differ from the file */
};

struct rs_state;

#endif
