/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counters (lib/percpu_counter.c): a global count under a lock plus
 * a small difference per CPU.  An add changes only this CPU's difference
 * (no locked instruction) until it would reach the batch; then the lock is
 * taken and the difference folded into the count.  percpu_counter_read()
 * is the count alone (off by up to batch x CPUs); percpu_counter_sum() adds
 * every CPU's difference under the lock.
 *
 * Each CPU's differences of the counters made together by
 * percpu_counter_init_many() sit in one cache line of their own, as in the
 * kernel's per-CPU areas: CPUs never share a line through a counter.
 */
#ifndef _LINUX_PERCPU_COUNTER_H
#define _LINUX_PERCPU_COUNTER_H

#include <linux/compiler.h>
#include <linux/spinlock.h>

struct percpu_counter {
	spinlock_t lock;
	s64 count;
	s32 *counters;		/* CPU 0's difference; CPU n's is stride x n bytes on */
	unsigned int stride;
};

/* max(32, 2 x nr_cpu_ids), set when the machine boots (percpu_counter_startup). */
extern s32 percpu_counter_batch;

void percpu_counter_startup(void);

/* @nr counters starting at @amount; -1 if out of memory. */
int percpu_counter_init_many(struct percpu_counter *fbc, s64 amount, unsigned int nr);
void percpu_counter_destroy_many(struct percpu_counter *fbc, unsigned int nr);

void percpu_counter_add_batch(struct percpu_counter *fbc, s64 amount, s32 batch);
s64 __percpu_counter_sum(struct percpu_counter *fbc);

static inline void percpu_counter_add(struct percpu_counter *fbc, s64 amount)
{
	percpu_counter_add_batch(fbc, amount, percpu_counter_batch);
}

static inline s64 percpu_counter_read(struct percpu_counter *fbc)
{
	return READ_ONCE(fbc->count);
}

/* The count can be briefly negative while CPUs' differences are positive. */
static inline s64 percpu_counter_read_positive(struct percpu_counter *fbc)
{
	s64 ret = READ_ONCE(fbc->count);

	return ret >= 0 ? ret : 0;
}

static inline s64 percpu_counter_sum_positive(struct percpu_counter *fbc)
{
	s64 ret = __percpu_counter_sum(fbc);

	return ret >= 0 ? ret : 0;
}

#endif
