/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seqcount_t: readers sample an even sequence, read, and retry if it
 * moved; writers (serialised by a lock of their own) make it odd, write,
 * make it even again.
 */
#ifndef _LINUX_SEQLOCK_H
#define _LINUX_SEQLOCK_H

#include <linux/atomic.h>

typedef struct {
	unsigned int sequence;
} seqcount_t;

static inline void seqcount_init(seqcount_t *s)
{
	s->sequence = 0;
}

/* Sample without waiting for an even value; the caller checks (seq & 1). */
static inline unsigned int raw_read_seqcount(const seqcount_t *s)
{
	__atomic_step();
	return __atomic_load_n(&s->sequence, __ATOMIC_ACQUIRE);
}

static inline unsigned int read_seqcount_begin(const seqcount_t *s)
{
	unsigned int seq;

	while ((seq = raw_read_seqcount(s)) & 1)
		;
	return seq;
}

/* True if a writer ran since @start was sampled: the reader must retry. */
static inline bool read_seqcount_retry(const seqcount_t *s, unsigned int start)
{
	smp_rmb();
	__atomic_step();
	return __atomic_load_n(&s->sequence, __ATOMIC_RELAXED) != start;
}

static inline void write_seqcount_begin(seqcount_t *s)
{
	__atomic_step();
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
	smp_wmb();
}

static inline void write_seqcount_end(seqcount_t *s)
{
	smp_wmb();
	__atomic_step();
	__atomic_store_n(&s->sequence, s->sequence + 1, __ATOMIC_RELAXED);
}

#endif
