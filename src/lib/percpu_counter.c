// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters (include/linux/percpu_counter.h).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/cpumask.h>
#include <linux/percpu_counter.h>
#include <linux/smp.h>

#define PCPU_LINE	64

s32 percpu_counter_batch = 32;

void percpu_counter_startup(void)
{
	percpu_counter_batch = nr_cpu_ids * 2 > 32 ? nr_cpu_ids * 2 : 32;
}

static inline s32 *per_cpu_ptr_of(struct percpu_counter *fbc, int cpu)
{
	return (s32 *)((char *)fbc->counters + (size_t)fbc->stride * cpu);
}

int percpu_counter_init_many(struct percpu_counter *fbc, s64 amount, unsigned int nr)
{
	unsigned int stride = (nr * sizeof(s32) + PCPU_LINE - 1) / PCPU_LINE * PCPU_LINE;
	/* Every possible CPU: threads may raise nr_cpu_ids after the counter is made. */
	char *area = aligned_alloc(PCPU_LINE, (size_t)stride * NR_CPUS);

	if (!area)
		return -1;
	memset(area, 0, (size_t)stride * NR_CPUS);
	for (unsigned int i = 0; i < nr; i++) {
		spin_lock_init(&fbc[i].lock);
		fbc[i].count = amount;
		fbc[i].counters = (s32 *)(area + i * sizeof(s32));
		fbc[i].stride = stride;
	}
	return 0;
}

void percpu_counter_destroy_many(struct percpu_counter *fbc, unsigned int nr)
{
	if (!nr || !fbc[0].counters)
		return;
	free(fbc[0].counters);
	for (unsigned int i = 0; i < nr; i++)
		fbc[i].counters = NULL;
}

/*
 * x86's this_cpu_try_cmpxchg() is a cmpxchg without the lock prefix: only
 * this CPU writes its difference, so a plain read-modify-write here (the
 * relaxed atomics are for the sanitizer's sake, not locked instructions).
 */
void percpu_counter_add_batch(struct percpu_counter *fbc, s64 amount, s32 batch)
{
	s32 *pcount = per_cpu_ptr_of(fbc, smp_processor_id());
	s64 count = READ_ONCE(*pcount) + amount;

	if (unlikely(count >= batch || count <= -batch)) {
		spin_lock(&fbc->lock);
		count = READ_ONCE(*pcount);
		WRITE_ONCE(fbc->count, fbc->count + count + amount);
		WRITE_ONCE(*pcount, 0);
		spin_unlock(&fbc->lock);
		return;
	}
	WRITE_ONCE(*pcount, (s32)count);
}

s64 __percpu_counter_sum(struct percpu_counter *fbc)
{
	s64 ret;

	spin_lock(&fbc->lock);
	ret = fbc->count;
	for (int cpu = 0; cpu < nr_cpu_ids; cpu++)
		ret += READ_ONCE(*per_cpu_ptr_of(fbc, cpu));
	spin_unlock(&fbc->lock);
	return ret;
}
