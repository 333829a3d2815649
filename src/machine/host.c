// SPDX-License-Identifier: GPL-2.0
/*
 * The host machine (include/machine/machine.h): CPU i is a thread pinned to
 * host processor i % host_nr_cpus() (oversubscribed runs share processors),
 * registered as an RCU reader, with smp_processor_id() == i.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
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

/*
 * The machine's two globals every kernel build reads, each on a page of its
 * own: a simulated machine charges those reads and picks their sets by the
 * offset within the page, and without the alignment they would share a page
 * with whichever design's data the link put last (tools/vt-page-align.sh).
 */
__thread int cpu_number __attribute__((aligned(4096)));
int nr_cpu_ids __attribute__((aligned(4096))) = 1;

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

/* --- the host as a machine of the machine interface (machine/machine.h) ------------ */

int machine_check_cpus(const struct machine *m, const char *opt, long long n)
{
	if (n <= m->nr_cpus)
		return 0;
	fprintf(stderr, "mmlab: --%s: %lld is more than %s %d CPUs; valid: 1..%d%s\n",
		opt, n, m->cpus_what, m->nr_cpus, m->nr_cpus, m->cpus_more);
	return -1;
}

static int host_set_cpus(const struct machine *m, int nr_cpus)
{
	(void)m;
	return machine_set_nr_cpus(nr_cpus);
}

/* A host run: every worker waits for all to be ready, so that they start together. */
struct host_run {
	machine_thread_fn fn;
	void *const *args;
	int ready;
	int start;
};

struct host_worker {
	struct host_run *run;
	int i;
};

static void host_worker_main(void *p)
{
	struct host_worker *w = p;
	struct host_run *run = w->run;

	__atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&run->start, __ATOMIC_ACQUIRE))
		;
	run->fn(run->args[w->i]);
}

/*
 * The window: from the moment every worker is ready and told to start to
 * the stop (told after @stop->seconds of sleep), or to the last one's end.
 */
static int host_run(const struct machine *m, int n, machine_thread_fn fn, void *const *args,
		    const struct machine_stop *stop, struct machine_stats *st)
{
	struct host_run run = { .fn = fn, .args = args };
	struct host_worker *w = calloc((size_t)n, sizeof(*w));
	void **wargs = calloc((size_t)n, sizeof(*wargs));
	struct machine_threads *threads = NULL;
	double t0, t1;

	(void)m;
	memset(st, 0, sizeof(*st));
	if (w && wargs) {
		for (int i = 0; i < n; i++) {
			w[i] = (struct host_worker){ &run, i };
			wargs[i] = &w[i];
		}
		threads = machine_threads_start(n, host_worker_main, wargs);
	}
	if (!threads) {
		fprintf(stderr, "mmlab: cannot start %d threads: %s\n", n, strerror(errno ? errno : ENOMEM));
		free(wargs);
		free(w);
		return -1;
	}
	while (__atomic_load_n(&run.ready, __ATOMIC_ACQUIRE) < n)
		machine_sleep(0.0005);
	t0 = machine_now();
	__atomic_store_n(&run.start, 1, __ATOMIC_RELEASE);
	if (stop) {
		machine_sleep(stop->seconds);
		__atomic_store_n(stop->flag, 1, __ATOMIC_RELAXED);
		t1 = machine_now();
		machine_threads_join(threads);
	} else {
		machine_threads_join(threads);
		t1 = machine_now();
	}
	st->end_ns = (t1 - t0) * 1e9;
	if (stop)
		st->stop_ns = st->end_ns;
	free(wargs);
	free(w);
	return 0;
}

static int host_call(const struct machine *m, machine_thread_fn fn, void *arg, struct machine_stats *st)
{
	double t0 = machine_now();

	(void)m;
	memset(st, 0, sizeof(*st));
	fn(arg);
	st->end_ns = (machine_now() - t0) * 1e9;
	return 0;
}

static double host_delay_loops_per_ns(const struct machine *m)
{
	(void)m;
	return delay_loops_per_ns();
}

static const struct machine_ops host_ops = {
	.set_cpus = host_set_cpus,
	.run = host_run,
	.call = host_call,
	.delay_loops_per_ns = host_delay_loops_per_ns,
};

const struct machine machine_host = {
	.name = "host",
	.nr_cpus = NR_CPUS,
	.max_nr_cpu_ids = NR_CPUS,
	.cpus_what = "the host build's",
	.cpus_more = " (more with --machine)",
	.build = MACHINE_BUILD_RUN,
	.syscall_ns = -1,
	.tlb_flush_ns = -1,
	.tlbi_ns = -1,
	.first_touch_ns = -1,
	.host_noise = true,
	.ops = &host_ops,
};
