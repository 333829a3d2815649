/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model's block device: reads are submitted by the CPU that wants them
 * and completed by the device, as with a real disk and DMA.
 *
 * Each CPU has a submission queue of its own (a hardware queue per CPU, as
 * NVMe has), a ring of BLK_QUEUE_DEPTH requests with one producer (that CPU)
 * and one consumer (the device).  The device is a kernel thread: it takes
 * requests in submission order per queue, waits until each is due (submit
 * time + the modelled latency), fills the folios from the backing file and
 * completes them (uptodate, unlocked).  With a bandwidth, the data of each
 * request then crosses one channel at that rate, a request after the one
 * before it (a datasheet's sequential read rate is the device's whole, not
 * a queue's).  The submitting CPU spends only the submission; what the
 * device does costs no model CPU.
 */
#ifndef _LINUX_BLKDEV_H
#define _LINUX_BLKDEV_H

#include <stdbool.h>
#include <stdint.h>

struct folio;
struct backing_file;
struct task_struct;

#define BLK_QUEUE_DEPTH		8
#define BLK_MAX_FOLIOS		1024	/* = RA_BATCH_MAX: a request is one read_pages() batch */

struct blk_request {
	struct backing_file *bf;
	uint64_t due_ns;
	unsigned int nr;
	struct folio *folios[BLK_MAX_FOLIOS];
};

struct blk_hw_queue {
	unsigned int head __attribute__((aligned(64)));	/* next to complete (device) */
	unsigned int tail __attribute__((aligned(64)));	/* next free slot (the CPU) */
	struct blk_request rq[BLK_QUEUE_DEPTH];
};

struct block_device {
	struct blk_hw_queue *queues;	/* one per CPU, nr_cpu_ids at creation */
	int nr_queues;
	uint64_t latency_ns;
	uint64_t bytes_per_sec;		/* 0: no bandwidth limit */
	uint64_t channel_free_ns;	/* when the last request's data is in (the device writes it) */
	unsigned int idle __attribute__((aligned(64)));	/* the device sleeps */
	unsigned int wake_seq;
	bool stopping;
	struct task_struct *thread;
	unsigned long completed;	/* requests completed (the device writes it) */
};

/*
 * When a request due at @due_ns (its latency since submission passed) has
 * its @bytes in, over a channel of @bytes_per_sec (0: unlimited) that the
 * request before it leaves free at @free_ns.
 */
static inline uint64_t blk_channel_done_ns(uint64_t free_ns, uint64_t due_ns, uint64_t bytes,
					   uint64_t bytes_per_sec)
{
	uint64_t start = due_ns > free_ns ? due_ns : free_ns;

	if (!bytes_per_sec)
		return due_ns;
	return start + bytes * 1000000000ull / bytes_per_sec;
}

/*
 * Start a device with @latency_ns per request and a channel of
 * @bytes_per_sec (0: unlimited); NULL if out of memory.
 */
struct block_device *blkdev_create(uint64_t latency_ns, uint64_t bytes_per_sec);

/*
 * Complete every request submitted so far, then stop the device and free
 * it; the number of requests it completed in its life.
 */
unsigned long blkdev_destroy(struct block_device *bdev);

/*
 * Queue a read of @nr locked folios covering consecutive offsets of @bf
 * (which names this device).  The device marks them uptodate (if the read
 * succeeded) and unlocks them; the caller keeps no reference for it: the
 * page cache's keeps each folio alive and its lock keeps it in the cache.
 */
void blk_submit_read(struct backing_file *bf, struct folio **folios, unsigned int nr);

#endif
