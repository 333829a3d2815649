// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters (include/linux/percpu_counter.h): an add below the batch
 * changes only this CPU's difference, so the folded count does not move
 * and no other CPU's line is written; reaching the batch folds this CPU's
 * difference into the count under the lock; the sum is exact; counters
 * made together keep each CPU's differences in a line of their own.
 */
#include <machine/machine.h>

#include <linux/percpu_counter.h>
#include <linux/smp.h>

#include "tap.h"

#define NR_TEST_CPUS	3

static struct percpu_counter ctr[2];

static void add_on_cpu(void *arg)
{
	long n = (long)arg;

	for (long i = 0; i < n; i++)
		percpu_counter_add(&ctr[0], 1);
	percpu_counter_add(&ctr[1], -5);
}

int main(void)
{
	void *args[NR_TEST_CPUS];
	struct machine_threads *t;
	s32 batch;

	plan_no_plan();
	machine_init();
	machine_set_nr_cpus(NR_TEST_CPUS);
	percpu_counter_startup();
	batch = percpu_counter_batch;
	is_int(batch, 32, "batch: max(32, 2 x %d CPUs)", NR_TEST_CPUS);
	ok(percpu_counter_init_many(ctr, 0, 2) == 0, "two counters made together");
	ok(ctr[0].stride % 64 == 0 && ctr[0].stride >= 2 * sizeof(s32),
	   "each CPU's differences take whole cache lines (stride %u)", ctr[0].stride);
	ok((char *)ctr[1].counters - (char *)ctr[0].counters == sizeof(s32),
	   "a CPU's differences of both counters share its line");

	percpu_counter_add(&ctr[0], batch - 1);
	is_int(percpu_counter_read(&ctr[0]), 0, "below the batch: the folded count is untouched");
	is_int(*ctr[0].counters, batch - 1, "the add went to CPU 0's difference");
	is_int(__percpu_counter_sum(&ctr[0]), batch - 1, "the sum sees it");
	percpu_counter_add(&ctr[0], 1);
	is_int(percpu_counter_read(&ctr[0]), batch, "reaching the batch folds the difference");
	is_int(*ctr[0].counters, 0, "and zeroes it");
	percpu_counter_add(&ctr[0], -batch);
	is_int(percpu_counter_read(&ctr[0]), 0, "a negative batch folds too");

	for (int i = 0; i < NR_TEST_CPUS; i++)
		args[i] = (void *)(long)(10 + i);
	t = machine_threads_start_at(0, NR_TEST_CPUS, add_on_cpu, args);
	ok(t != NULL, "start %d CPUs", NR_TEST_CPUS);
	if (t)
		machine_threads_join(t);
	is_int(__percpu_counter_sum(&ctr[0]), 10 + 11 + 12, "the sum adds every CPU's difference");
	is_int(percpu_counter_read(&ctr[0]), 0, "no CPU reached the batch: nothing folded");
	is_int(*(s32 *)((char *)ctr[0].counters + 2 * ctr[0].stride), 12, "CPU 2 counted its own 12");
	is_int(__percpu_counter_sum(&ctr[1]), -15, "second counter: -5 from each CPU");
	is_int(percpu_counter_read_positive(&ctr[1]), 0, "read_positive never goes below 0");
	percpu_counter_destroy_many(ctr, 2);
	ok(ctr[0].counters == NULL && ctr[1].counters == NULL, "destroyed");
	return done_testing();
}
