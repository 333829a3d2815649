// SPDX-License-Identifier: GPL-2.0
/*
 * The machine interface (machine/machine.h) on the two machines this
 * flavour has: the interleaving checker (machine_checker) and the host
 * (machine_host, as the chk flavour builds it).  Workers loop until their
 * stop; a call runs on CPU 0.
 */
#include <linux/atomic.h>
#include <linux/smp.h>
#include <machine/checker.h>
#include <machine/machine.h>

#include "tap.h"

struct worker {
	const int *stop;
	atomic_t *shared;
	int cpu;
	unsigned long loops;
};

static void worker_fn(void *p)
{
	struct worker *w = p;

	w->cpu = smp_processor_id();
	while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
		atomic_inc(w->shared);
		w->loops++;
	}
}

static void call_fn(void *p)
{
	*(int *)p = smp_processor_id() + 100;
}

static void run_on(const struct machine *m, int n)
{
	struct worker w[4] = { 0 };
	void *args[4];
	atomic_t shared = ATOMIC_INIT(0);
	int stop = 0, sum = 0, cpus_ok = 1, called = 0;
	struct machine_stop when = { .flag = &stop, .seconds = 0.01, .virtual_ns = 1000 };
	struct machine_stats st;

	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ .stop = &stop, .shared = &shared, .cpu = -1 };
		args[i] = &w[i];
	}
	ok(machine_set_cpus(m, n) == 0, "%s: sized to %d CPUs", m->name, n);
	ok(machine_run(m, n, worker_fn, args, &when, &st) == 0, "%s: %d workers ran to their stop", m->name, n);
	for (int i = 0; i < n; i++) {
		sum += (int)w[i].loops;
		cpus_ok &= w[i].cpu == i;
	}
	ok(stop == 1 && sum == atomic_read(&shared) && sum > 0,
	   "%s: the stop was set, and every loop counted (%d)", m->name, sum);
	ok(cpus_ok, "%s: worker i ran as CPU i", m->name);
	ok(machine_window_ns(&st) > 0 && !st.counted, "%s: a window (%.0f), nothing counted", m->name,
	   machine_window_ns(&st));
	ok(machine_call(m, call_fn, &called, &st) == 0 && called == 100, "%s: a call runs as CPU 0", m->name);
	ok(machine_check_cpus(m, "threads", m->nr_cpus) == 0, "%s: its own CPU count fits", m->name);
}

int main(void)
{
	plan_no_plan();
	machine_init();
	run_on(&machine_checker, 2);
	run_on(&machine_host, 2);
	ok(machine_check_cpus(&machine_checker, "threads", CHECKER_MAX_THREADS + 1) == -1,
	   "more workers than the checker has are refused");
	return done_testing();
}
