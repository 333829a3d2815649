/*
 * Worker threads as the model's CPUs (include/mmlab/cpu.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <mmlab/cpu.h>
#include <mmlab/spin.h>

__thread int mmlab_cpu_id;
int nr_cpu_ids = 1;

#ifdef __SANITIZE_THREAD__
/* The sync object of the grace-period annotation in linux/rcupdate.h. */
char rcu_tsan_grace_period;
#endif

struct lab_cpu {
	pthread_t thread;
	int id;
	lab_thread_fn fn;
	void *arg;
};

struct lab_threads {
	int n;
	struct lab_cpu cpu[];
};

int host_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

void lab_cpu_init(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	mmlab_cpu_id = 0;
	rcu_register_thread();
}

static void pin_to_host_cpu(int id)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(id % host_nr_cpus(), &set);
	/* Best effort: a restricted affinity mask is not an error. */
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *lab_cpu_main(void *p)
{
	struct lab_cpu *c = p;

	mmlab_cpu_id = c->id;
	pin_to_host_cpu(c->id);
	rcu_register_thread();
	c->fn(c->arg);
	rcu_unregister_thread();
	return NULL;
}

struct lab_threads *lab_threads_start(int n, lab_thread_fn fn, void *const *args)
{
	struct lab_threads *t = calloc(1, sizeof(*t) + n * sizeof(t->cpu[0]));
	int i, err;

	if (!t)
		return NULL;
	if (n > nr_cpu_ids)
		nr_cpu_ids = n;
	for (i = 0; i < n; i++) {
		t->cpu[i].id = i;
		t->cpu[i].fn = fn;
		t->cpu[i].arg = args[i];
		err = pthread_create(&t->cpu[i].thread, NULL, lab_cpu_main, &t->cpu[i]);
		if (err) {
			t->n = i;
			lab_threads_join(t);
			errno = err;
			return NULL;
		}
	}
	t->n = n;
	return t;
}

void lab_threads_join(struct lab_threads *t)
{
	for (int i = 0; i < t->n; i++)
		pthread_join(t->cpu[i].thread, NULL);
	free(t);
}

double lab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void lab_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

double spin_loops_per_ns(void)
{
	static double per_ns;
	const unsigned long loops = 20 * 1000 * 1000;
	double best = 0;

	if (per_ns)
		return per_ns;
	/* Best of a few runs: the fastest is the least disturbed. */
	for (int i = 0; i < 5; i++) {
		double t0 = lab_now(), t;

		spin_loops(loops);
		t = lab_now() - t0;
		if (t > 0 && loops / (t * 1e9) > best)
			best = loops / (t * 1e9);
	}
	per_ns = best;
	return per_ns;
}
