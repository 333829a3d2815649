// SPDX-License-Identifier: GPL-2.0
/*
 * The block device (include/linux/blkdev.h): per-CPU submission queues
 * drained by a device thread that does the reads, so that the data reaches
 * the folios without the reading CPU copying it.
 */
#include <stdlib.h>

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/blkdev.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/page-flags.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/vmstat.h>
#include <linux/wait_bit.h>
#include "internal.h"

static bool blk_queue_empty(struct blk_hw_queue *q)
{
	return q->head == __atomic_load_n(&q->tail, __ATOMIC_SEQ_CST);
}

static bool blk_queues_empty(struct block_device *bdev)
{
	for (int i = 0; i < bdev->nr_queues; i++)
		if (!blk_queue_empty(&bdev->queues[i]))
			return false;
	return true;
}

/*
 * The device's latency: wait until @due_ns.  On the host it yields its
 * processor meanwhile; in virtual time it is an agent whose clock jumps to
 * the moment (a timer, not work of the machine's CPUs).
 */
#ifdef MMLAB_VT
static void blk_wait_until(uint64_t due_ns)
{
	uint64_t now = ktime_get_ns();

	if (now < due_ns)
		ndelay(due_ns - now);
}
#else
static void blk_wait_until(uint64_t due_ns)
{
	while (ktime_get_ns() < due_ns)
		schedule();
}
#endif

/* The device finishes a request: the data is in, the folios are unlocked (folio_end_read). */
static void blk_complete(struct blk_request *rq)
{
	bool ok = backing_fill_folios(rq->bf, rq->folios, rq->nr);

	for (unsigned int i = 0; i < rq->nr; i++) {
		if (ok)
			folio_mark_uptodate(rq->folios[i]);
		folio_unlock(rq->folios[i]);
	}
}

/*
 * When @rq's data is in: its latency from submission, then its bytes at
 * the channel's rate once the request before it has crossed.
 */
static uint64_t blk_request_done_ns(struct block_device *bdev, const struct blk_request *rq)
{
	uint64_t bytes = 0;

	if (!bdev->bytes_per_sec)
		return rq->due_ns;
	for (unsigned int i = 0; i < rq->nr; i++)
		bytes += folio_size(rq->folios[i]);
	bdev->channel_free_ns = blk_channel_done_ns(bdev->channel_free_ns, rq->due_ns, bytes,
						    bdev->bytes_per_sec);
	return bdev->channel_free_ns;
}

/* Serve what queue @q holds; how many requests that was. */
static unsigned int blk_serve_queue(struct block_device *bdev, struct blk_hw_queue *q)
{
	unsigned int head = q->head, n = 0;

	while (head != __atomic_load_n(&q->tail, __ATOMIC_ACQUIRE)) {
		struct blk_request *rq = &q->rq[head % BLK_QUEUE_DEPTH];

		blk_wait_until(blk_request_done_ns(bdev, rq));
		blk_complete(rq);
		/* The slot is the submitter's again only once the folios are done with. */
		__atomic_store_n(&q->head, ++head, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

/*
 * The device's sleep: announce it, then look at the queues again, so that a
 * submitter either sees idle set (and wakes us) or its request is seen here.
 */
static void blk_idle_wait(struct block_device *bdev)
{
	unsigned int seq = __atomic_load_n(&bdev->wake_seq, __ATOMIC_SEQ_CST);

	__atomic_store_n(&bdev->idle, 1, __ATOMIC_SEQ_CST);
	if (blk_queues_empty(bdev) && !__atomic_load_n(&bdev->stopping, __ATOMIC_SEQ_CST))
		wait_var_value(&bdev->wake_seq, seq);
	__atomic_store_n(&bdev->idle, 0, __ATOMIC_SEQ_CST);
}

static int blk_device_thread(void *data)
{
	struct block_device *bdev = data;

	for (;;) {
		unsigned long served = 0;

		for (int i = 0; i < bdev->nr_queues; i++)
			served += blk_serve_queue(bdev, &bdev->queues[i]);
		WRITE_ONCE(bdev->completed, bdev->completed + served);
		if (served)
			continue;
		if (__atomic_load_n(&bdev->stopping, __ATOMIC_SEQ_CST) && blk_queues_empty(bdev))
			return 0;
		blk_idle_wait(bdev);
	}
}

static void blk_wake_device(struct block_device *bdev)
{
	__atomic_fetch_add(&bdev->wake_seq, 1, __ATOMIC_SEQ_CST);
	wake_up_var(&bdev->wake_seq);
}

void blk_submit_read(struct backing_file *bf, struct folio **folios, unsigned int nr)
{
	struct block_device *bdev = bf->bdev;
	struct blk_hw_queue *q = &bdev->queues[smp_processor_id()];
	unsigned int tail = q->tail;
	struct blk_request *rq;

	VM_WARN_ON_ONCE(!nr || nr > BLK_MAX_FOLIOS);
	/* A full queue: wait for a free tag, as blk-mq does. */
	while (tail - __atomic_load_n(&q->head, __ATOMIC_ACQUIRE) == BLK_QUEUE_DEPTH)
		io_schedule();
	rq = &q->rq[tail % BLK_QUEUE_DEPTH];
	rq->bf = bf;
	rq->nr = nr;
	for (unsigned int i = 0; i < nr; i++)
		rq->folios[i] = folios[i];
	rq->due_ns = ktime_get_ns() + bdev->latency_ns;
	count_debug_vm_event(FILEMAP_READ_REQUESTS);
	/* Ring the doorbell; a sleeping device needs a wake-up as well. */
	__atomic_store_n(&q->tail, tail + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&bdev->idle, __ATOMIC_SEQ_CST))
		blk_wake_device(bdev);
}

struct block_device *blkdev_create(uint64_t latency_ns, uint64_t bytes_per_sec)
{
	struct block_device *bdev = calloc(1, sizeof(*bdev));

	if (!bdev)
		return NULL;
	bdev->nr_queues = nr_cpu_ids;
	bdev->latency_ns = latency_ns;
	bdev->bytes_per_sec = bytes_per_sec;
	bdev->queues = aligned_alloc(64, sizeof(*bdev->queues) * (size_t)nr_cpu_ids);
	if (!bdev->queues) {
		free(bdev);
		return NULL;
	}
	for (int i = 0; i < nr_cpu_ids; i++)
		bdev->queues[i].head = bdev->queues[i].tail = 0;
	bdev->thread = kthread_run(blk_device_thread, bdev, "mmlab-blkdev");
	if (!bdev->thread) {
		free(bdev->queues);
		free(bdev);
		return NULL;
	}
	return bdev;
}

unsigned long blkdev_destroy(struct block_device *bdev)
{
	unsigned long completed;

	__atomic_store_n(&bdev->stopping, true, __ATOMIC_SEQ_CST);
	blk_wake_device(bdev);
	kthread_stop(bdev->thread);
	completed = bdev->completed;
	free(bdev->queues);
	free(bdev);
	return completed;
}
