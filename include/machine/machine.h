/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine the kernel model runs on, as the runner and the tests see it.
 *
 * The kernel model sees the machine only through kernel-named headers:
 * linux/smp.h and linux/cpumask.h (CPU ids, nr_cpu_ids), linux/ktime.h
 * (the clock), linux/delay.h (busy waits), asm/processor.h (cpu_relax),
 * linux/sched.h (cond_resched) and linux/rcupdate.h (RCU), all built on
 * machine/yield.h.  This header is the other side: what a runner or a test
 * does to the machine (size it, start CPUs, read the wall clock).
 *
 * The host machine (src/machine/host.c): a CPU is a thread pinned to a
 * host processor.  The interleaving checker (src/machine/checker.c, the chk
 * flavour) schedules those threads one at a time at the yield points.  The
 * simulated machine in virtual time (machine/vt.h, src/machine/vt.c) runs
 * the vt flavour's kernel on virtual CPUs with vt_run(); nothing in the
 * kernel model changes with it.
 */
#ifndef MACHINE_MACHINE_H
#define MACHINE_MACHINE_H

#include <stdbool.h>

/* Processors of the host this program runs on. */
int host_nr_cpus(void);

/*
 * Make the calling (main) thread CPU 0 and an RCU reader.  Idempotent.
 * nr_cpu_ids starts at 1.
 */
void machine_init(void);

/*
 * Size the machine: nr_cpu_ids = @nr_cpus (1..NR_CPUS).  Per-CPU state the
 * kernel model sizes at boot (pcp lists, high marks, lazy limits) reads it,
 * so set it before booting the model; -1 if out of range.
 */
int machine_set_nr_cpus(int nr_cpus);

typedef void (*machine_thread_fn)(void *arg);
struct machine_threads;

/*
 * Start @n threads running fn(args[i]) as CPU i.  nr_cpu_ids is raised to
 * @n if it is smaller.  Returns NULL (with errno) if a thread could not be
 * created; the ones already started are joined.
 *
 * The calling thread is CPU 0 too.  A caller that goes on running kernel
 * code while the threads run must start them at CPU 1 with
 * machine_threads_start_at(): two threads must never be one CPU at once,
 * or per-CPU state (vm events, statistics differences, pcp and LRU
 * batches, percpu counters) is raced on as no kernel CPU can race itself.
 */
struct machine_threads *machine_threads_start(int n, machine_thread_fn fn, void *const *args);

/* The same, as CPUs @first .. @first + @n - 1 (nr_cpu_ids raised to cover them). */
struct machine_threads *machine_threads_start_at(int first, int n, machine_thread_fn fn,
						 void *const *args);
void machine_threads_join(struct machine_threads *t);

/*
 * Is a started thread running as @cpu now?  Work the kernel would queue on
 * another CPU (lru_add_drain_all()) is done by the caller itself only for
 * CPUs not running.
 */
bool machine_cpu_running(int cpu);

/* Wall-clock (monotonic) time in seconds, for the runner. */
double machine_now(void);
void machine_sleep(double seconds);

/* Iterations of __delay() per nanosecond (calibrated once, best of a few). */
double delay_loops_per_ns(void);

#endif
