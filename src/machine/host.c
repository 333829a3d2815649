// SPDX-License-Identifier: GPL-2.0
/*
 * The host machine (include/machine/machine.h): CPU i is a thread pinned to
 * host processor i % host_nr_cpus() (oversubscribed runs share processors),
 * registered as an RCU reader, with smp_processor_id() == i.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/wait_bit.h>
#include <machine/machine.h>

__thread int cpu_number;
int nr_cpu_ids = 1;

#ifdef __SANITIZE_THREAD__
/* The sync object of the grace-period annotation in linux/rcupdate.h. */
char rcu_tsan_grace_period;
#endif

/* Set while a machine thread runs as that CPU (CPU 0: the main thread, never set). */
static bool cpu_running[NR_CPUS];

bool machine_cpu_running(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS && __atomic_load_n(&cpu_running[cpu], __ATOMIC_ACQUIRE);
}

struct machine_cpu {
	pthread_t thread;
	int id;
	machine_thread_fn fn;
	void *arg;
};

struct machine_threads {
	int n;
	struct machine_cpu cpu[];
};

int host_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

void machine_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	cpu_number = 0;
	rcu_register_thread();
}

int machine_set_nr_cpus(int nr_cpus)
{
	if (nr_cpus < 1 || nr_cpus > NR_CPUS)
		return -1;
	nr_cpu_ids = nr_cpus;
	return 0;
}

static void pin_to_host_cpu(int id)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(id % host_nr_cpus(), &set);
	/* Best effort: a restricted affinity mask is not an error. */
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *machine_cpu_main(void *p)
{
	struct machine_cpu *c = p;

	cpu_number = c->id;
	pin_to_host_cpu(c->id);
	rcu_register_thread();
	c->fn(c->arg);
	rcu_unregister_thread();
	/* What this CPU left in its per-CPU state is now the caller's to look at. */
	__atomic_store_n(&cpu_running[c->id], false, __ATOMIC_RELEASE);
	return NULL;
}

struct machine_threads *machine_threads_start(int n, machine_thread_fn fn, void *const *args)
{
	return machine_threads_start_at(0, n, fn, args);
}

struct machine_threads *machine_threads_start_at(int first, int n, machine_thread_fn fn,
						 void *const *args)
{
	struct machine_threads *t;
	int i, err;

	if (first < 0 || n < 0 || first + n > NR_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t) + n * sizeof(t->cpu[0]));
	if (!t)
		return NULL;
	if (first + n > nr_cpu_ids)
		nr_cpu_ids = first + n;
	for (i = 0; i < n; i++) {
		t->cpu[i].id = first + i;
		t->cpu[i].fn = fn;
		t->cpu[i].arg = args[i];
		__atomic_store_n(&cpu_running[first + i], true, __ATOMIC_RELAXED);
		err = pthread_create(&t->cpu[i].thread, NULL, machine_cpu_main, &t->cpu[i]);
		if (err) {
			__atomic_store_n(&cpu_running[first + i], false, __ATOMIC_RELAXED);
			t->n = i;
			machine_threads_join(t);
			errno = err;
			return NULL;
		}
	}
	t->n = n;
	return t;
}

void machine_threads_join(struct machine_threads *t)
{
	for (int i = 0; i < t->n; i++)
		pthread_join(t->cpu[i].thread, NULL);
	free(t);
}

double machine_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void machine_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A kthread: a host thread with no CPU id (cpu_number -1), an RCU reader. */
struct task_struct {
	pthread_t thread;
	int (*fn)(void *data);
	void *data;
	int ret;
};

static void *kthread_main(void *p)
{
	struct task_struct *k = p;

	cpu_number = -1;
	rcu_register_thread();
	k->ret = k->fn(k->data);
	rcu_unregister_thread();
	return NULL;
}

struct task_struct *kthread_run(int (*threadfn)(void *data), void *data, const char *name)
{
	struct task_struct *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->fn = threadfn;
	k->data = data;
	if (pthread_create(&k->thread, NULL, kthread_main, k)) {
		free(k);
		return NULL;
	}
	pthread_setname_np(k->thread, name);
	return k;
}

int kthread_stop(struct task_struct *k)
{
	int ret;

	pthread_join(k->thread, NULL);
	ret = k->ret;
	free(k);
	return ret;
}

void wait_var_value(unsigned int *var, unsigned int seq)
{
	syscall(SYS_futex, var, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
}

void wake_up_var(unsigned int *var)
{
	syscall(SYS_futex, var, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
