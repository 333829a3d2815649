// SPDX-License-Identifier: GPL-2.0
/*
 * The readseq workload, inside the kernel build: db_bench readseq in shape.
 * There are as many files as threads, cold in the page cache.  With shared
 * files (db_bench --num_multi_db) every thread reads every file from start
 * to end, all in the same order, so threads meet in the same page cache,
 * the same xa_lock and on the same folios being read; with private files
 * each thread reads only its own.  Reads are records of value_size bytes
 * through filemap_read(), so every miss goes through readahead and folio
 * insertion.  Each read is timed (as db_bench times each operation) and
 * checksummed against the file.  Each thread opens each file itself: its
 * own struct file and readahead state.  Reads go to one block device with
 * a submission queue per CPU (async_io), or are done by the reader itself.
 * Readahead is the kernel's on-demand window, or the reader's own
 * readahead(2): a window at a time, kept one window ahead of its reads as a
 * prefetching reader does (RSQ_RA_SYSCALL), or as RocksDB's iterator asks
 * for it (RSQ_RA_ROCKSDB); either is timed with the read that issues it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/blkdev.h>
#include <linux/ktime.h>
#include <linux/pagemap.h>
#include <mmlab/hist.h>
#include <mmlab/record_sum.h>
#include <mmlab/workloads/readseq.h>
#include <mmlab/workloads/rocksdb_prefetch.h>
#include "workloads.h"

/*
 * One file's page cache on cache lines of its own: the kernel's mapping is
 * in the file's inode, a slab object of its own, so two files' xa_locks
 * never share a line.  (Packed in an array they did, and in virtual time
 * the throughput at 32 threads then moved by half with where the array
 * happened to start.)
 */
struct rsq_mapping {
	struct address_space mapping;
} __attribute__((aligned(64)));

struct rsq_state {
	struct rsq_params p;
	struct rsq_mapping *mappings;
	struct backing_file *backing;
	struct block_device *bdev;	/* NULL: readers read synchronously */
};

static void *readseq_setup(const void *params)
{
	const struct rsq_params *p = params;
	struct rsq_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->p = *p;
	s->mappings = aligned_alloc(64, (size_t)p->nr_threads * sizeof(*s->mappings));
	if (s->mappings)
		memset(s->mappings, 0, (size_t)p->nr_threads * sizeof(*s->mappings));
	s->backing = calloc((size_t)p->nr_threads, sizeof(*s->backing));
	if (p->async_io)
		s->bdev = blkdev_create(p->latency_ns, p->device_bytes_per_sec);
	if (!s->mappings || !s->backing || (p->async_io && !s->bdev)) {
		if (s->bdev)
			blkdev_destroy(s->bdev);
		free(s->mappings);
		free(s->backing);
		free(s);
		return NULL;
	}
	for (int i = 0; i < p->nr_threads; i++) {
		s->backing[i].fd = p->fds[i];
		s->backing[i].bdev = s->bdev;
		if (!p->async_io)
			s->backing[i].latency_loops = p->latency_loops;
		address_space_init(&s->mappings[i].mapping);
		s->mappings[i].mapping.i_size = (loff_t)p->file_size;
		s->mappings[i].mapping.backing = &s->backing[i];
	}
	return s;
}

static uint64_t now_ns(void)
{
	return ktime_get_ns();
}

typedef void (*readseq_file_fn)(struct rsq_state *s, struct rsq_thread *t, int f, char *buf);

static void readseq_open(struct rsq_state *s, struct file *file, int f)
{
	*file = (struct file){ .f_mapping = &s->mappings[f].mapping };
	file_ra_state_init(&file->f_ra);
	file->f_ra.ra_pages = s->p.ra_pages;
}

/*
 * The record at @pos, its time started at @t0 (before any readahead(2) the
 * reader asked for first): read, timed and checked; 1 if it came back short
 * or wrong.
 */
static inline unsigned long readseq_record(struct rsq_state *s, struct rsq_thread *t, struct file *file,
					   loff_t pos, uint64_t t0, char *buf, int f, unsigned long rec)
{
	const size_t size = s->p.value_size;
	ssize_t n = filemap_read(file, pos, size, buf);

	lat_hist_record(t->hist, now_ns() - t0);
	return unlikely(n != (ssize_t)size || record_differs(buf, size, s->p.record_sums, f, rec));
}

/* Read file @f from start to end, every record timed and checked. */
static void readseq_file(struct rsq_state *s, struct rsq_thread *t, int f, char *buf)
{
	const size_t size = s->p.value_size;
	const loff_t end = (loff_t)s->p.file_size;
	unsigned long rec = 0, bad = 0;
	struct file file;

	readseq_open(s, &file, f);
	for (loff_t pos = 0; pos + (loff_t)size <= end; pos += (loff_t)size, rec++)
		bad += readseq_record(s, t, &file, pos, now_ns(), buf, f, rec);
	t->ops += rec;
	t->bad_records += bad;
}

/* The same; a read that reaches the last window asked for asks for the one after it. */
static void readseq_file_syscall(struct rsq_state *s, struct rsq_thread *t, int f, char *buf)
{
	const size_t size = s->p.value_size;
	const size_t window = max((size_t)s->p.ra_pages << PAGE_SHIFT, size);
	const loff_t end = (loff_t)s->p.file_size;
	unsigned long rec = 0, bad = 0;
	loff_t ahead = 0;
	struct file file;

	readseq_open(s, &file, f);
	for (loff_t pos = 0; pos + (loff_t)size <= end; pos += (loff_t)size, rec++) {
		uint64_t t0 = now_ns();

		while (pos + (loff_t)size > ahead - (loff_t)window) {
			ksys_readahead(&file, ahead, window);
			ahead += (loff_t)window;
		}
		bad += readseq_record(s, t, &file, pos, t0, buf, f, rec);
	}
	t->ops += rec;
	t->bad_records += bad;
}

/* The same; before each record, readahead(2) where RocksDB's iterator would ask for it. */
static void readseq_file_rocksdb(struct rsq_state *s, struct rsq_thread *t, int f, char *buf)
{
	const size_t size = s->p.value_size;
	const loff_t end = (loff_t)s->p.file_size;
	unsigned long rec = 0, bad = 0;
	struct rocksdb_prefetcher pf;
	struct file file;

	readseq_open(s, &file, f);
	rocksdb_prefetcher_init(&pf);
	for (loff_t pos = 0; pos + (loff_t)size <= end; pos += (loff_t)size, rec++) {
		uint64_t t0 = now_ns(), ahead = rocksdb_prefetch_if_needed(&pf, (uint64_t)pos, size);

		if (ahead)
			ksys_readahead(&file, pos, ahead);
		bad += readseq_record(s, t, &file, pos, t0, buf, f, rec);
	}
	t->ops += rec;
	t->bad_records += bad;
}

/* The runner's copy of a reader's results lives in its heap: moved uncharged. */
static __lab_uncharged void rsq_thread_move(struct rsq_thread *to, const struct rsq_thread *from)
{
	*to = *from;
}

/* Reads every file once: @stop is not needed. */
static void readseq_worker(void *state, void *thread, const int *stop)
{
	struct rsq_state *s = state;
	struct rsq_thread *out = thread;
	static const readseq_file_fn read_files[] = {
		[RSQ_RA_ONDEMAND] = readseq_file,
		[RSQ_RA_SYSCALL] = readseq_file_syscall,
		[RSQ_RA_ROCKSDB] = readseq_file_rocksdb,
	};
	readseq_file_fn read_file = read_files[s->p.readahead];
	char *buf = malloc(s->p.value_size);
	struct rsq_thread t;

	rsq_thread_move(&t, out);
	t.ops = 0;
	t.bad_records = buf ? 0 : 1;
	if (buf && s->p.shared_files) {
		for (int f = 0; f < s->p.nr_threads; f++)
			read_file(s, &t, f, buf);
	} else if (buf) {
		read_file(s, &t, t.tid, buf);
	}
	free(buf);
	rsq_thread_move(out, &t);
}

static int readseq_teardown(void *state, char *msg, size_t len)
{
	struct rsq_state *s = state;
	int ret = 0;

	/* Asynchronous readahead may still be in flight past the readers' end. */
	if (s->bdev)
		blkdev_destroy(s->bdev);

	for (int i = 0; i < s->p.nr_threads; i++) {
		if (!ret && filemap_check(&s->mappings[i].mapping, msg, len))
			ret = -1;
		truncate_inode_pages(&s->mappings[i].mapping);
		address_space_destroy(&s->mappings[i].mapping);
	}
	free(s->mappings);
	free(s->backing);
	free(s);
	return ret;
}

MM_WORKLOAD(readseq, .setup = readseq_setup, .worker = readseq_worker, .teardown = readseq_teardown,
	    .params_size = sizeof(struct rsq_params));
