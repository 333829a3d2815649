/*
 * The model's CPUs: worker threads, CPU i pinned to host processor
 * i % host_nr_cpus() (so oversubscribed runs share processors), each
 * registered as an RCU reader, each with smp_processor_id() == i.
 */
#ifndef MMLAB_CPU_H
#define MMLAB_CPU_H

#include <stdbool.h>

int host_nr_cpus(void);

/* Make the calling (main) thread CPU 0 and an RCU reader. Idempotent. */
void lab_cpu_init(void);

typedef void (*lab_thread_fn)(void *arg);
struct lab_threads;

/*
 * Start @n threads running fn(args[i]) as CPU i.  Returns NULL (with errno)
 * if a thread could not be created; the ones already started are joined.
 */
struct lab_threads *lab_threads_start(int n, lab_thread_fn fn, void *const *args);
void lab_threads_join(struct lab_threads *t);

/* Monotonic time in seconds. */
double lab_now(void);
void lab_sleep(double seconds);

#endif
