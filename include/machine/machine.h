/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine the kernel model runs on, as the runner and the tests see it.
 *
 * The kernel model sees the machine only through kernel-named headers:
 * linux/smp.h and linux/cpumask.h (CPU ids, nr_cpu_ids), linux/ktime.h
 * (the clock), linux/delay.h (busy waits), asm/processor.h (cpu_relax),
 * linux/sched.h (schedule) and linux/rcupdate.h (RCU), all built on
 * machine/yield.h.  This header is the other side: what a runner or a test
 * does to the machine (size it, start CPUs, read the wall clock).
 *
 * The host machine (src/machine/host.c): a CPU is a thread pinned to a
 * host processor.  The interleaving checker (src/machine/checker.c, the chk
 * flavour) schedules those threads one at a time at the yield points.  The
 * simulated machine in virtual time (machine/vt.h, src/machine/vt_*.c) runs
 * the vt flavour's kernel on virtual CPUs with vt_run(); nothing in the
 * kernel model changes with it.
 *
 * The three are one interface to a runner (struct machine, below: set the
 * CPUs, run N workers with a stop, call one, read the window and its
 * statistics), chosen once when the options are resolved: an experiment
 * or a workload never asks which machine it runs on.
 */
#ifndef MACHINE_MACHINE_H
#define MACHINE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

/* The most CPUs any machine has (a simulated one's: machine/vt.h's VT_MAX_CPUS). */
#define MACHINE_MAX_CPUS	512

/* Processors of the host this program runs on. */
int host_nr_cpus(void);

/*
 * The host memory behind the simulated frames (src/machine/arena.c): @bytes
 * whose untouched pages cost nothing, NULL if the host has none.  With
 * machine_arena_reuse(true) (virtual time: the runner) an arena given back
 * with machine_arena_put() is handed out again to the next request of its
 * size, its contents as they were; otherwise, and after
 * machine_arena_drop(), it goes back to the host.
 */
#include <stddef.h>
void machine_arena_reuse(bool on);
void *machine_arena_get(size_t bytes);
void machine_arena_put(void *p, size_t bytes);
void machine_arena_drop(void);

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

/* --- one interface to every machine a run can have ------------------------------ */

/*
 * What a run did (machine_run(), machine_call()), summed over its CPUs.
 * The measured window (end_ns, stop_ns) is set on every machine, in ns of
 * its clock: from the workers' start to the last one's end, and to the
 * stop; where the run's code marks windows (a workload's timed_begin() and
 * timed_end()), a simulated machine's counts are theirs.  The rest only
 * where @counted: a simulated machine counts where its time went (virtual
 * nanoseconds), the host does not.
 */
/* Keys of timed spans (linux/vm_time_list.h) fit below this. */
#define MACHINE_NR_SPANS	16

struct machine_stats {
	double end_ns;			/* the latest clock when the last CPU finished */
	double cpu_ns;			/* every CPU's clock at its end, summed */
	double stop_ns;			/* when *stop was set (0: never) */
	unsigned long long events;	/* vt_access() calls */
	unsigned long long blocks;	/* basic blocks of plain code run */
	unsigned long long transfers;	/* line transfers: misses and ownership requests */
	unsigned long long remote_transfers;	/* ... of them across sockets */
	double transfer_ns;		/* time in transfers, queueing excluded */
	double queued_ns;		/* time waiting for a line busy with another request */
	unsigned long long cas_fail;	/* failed compare-exchanges */
	unsigned long long lock_acquires;	/* spin_lock() and successful trylocks */
	unsigned long long lock_handoffs;	/* unlocks that handed the lock to a waiter */
	double lock_wait_ns;		/* time queued on spinlocks */
	double poll_ns;			/* time in polling waits (cpu_relax, schedule) */
	double delay_ns;		/* time in ndelay()/__delay(): modelled work */
	double code_ns;			/* time charged for plain code: its basic blocks */
	unsigned long long mispredicts;	/* branches of it mispredicted (core.mispredict) */
	unsigned long long insns;	/* its ops (core.insn; 0: not given) */
	unsigned long long taken;	/* its blocks a branch was taken to (core.insn) */
	double branch_ns;		/* time in their refills */
	double rmw_ns;			/* time in the coherence model's own instructions: locked RMWs, hits */
	bool counted;			/* the counts here are set */
	/* The memory hierarchy (machine files with caches; hier set): demand line accesses that missed */
	bool hier;
	unsigned long long l1_miss;	/* ... the core's L1d */
	unsigned long long l2_miss;	/* ... its L2 too */
	unsigned long long l3_miss;	/* ... and its domain's L3: memory or another core */
	unsigned long long xdomain;	/* served by a core of another L3 domain */
	unsigned long long mem_local;	/* served by the local node's memory */
	unsigned long long mem_remote;	/* ... by another node's */
	unsigned long long prefetches;	/* lines the stream prefetcher brought in */
	double mem_ns;			/* time the CPUs stalled on their own misses (after overlap) */
	/*
	 * Virtual time inside the kernel model's timed spans (vt_span_add()),
	 * summed by the span's key (the vt flavour's enum vm_time_item).  In the
	 * timed windows alone when the run marks them.
	 */
	double span_ns[MACHINE_NR_SPANS];
};

/* The measured window's length: to the stop, or to the last CPU's end. */
static inline double machine_window_ns(const struct machine_stats *st)
{
	return st->stop_ns > 0 ? st->stop_ns : st->end_ns;
}

/* When the workers of a run are told to stop (NULL: each runs to its end). */
struct machine_stop {
	int *flag;			/* set to 1: the workers poll it */
	/*
	 * After this long: @seconds of a real clock (the host), or once every
	 * CPU's virtual clock has passed @virtual_ns (a simulated machine,
	 * whose runs take what they take on the host); the interleaving
	 * checker, which has no clock, after half its steps.
	 */
	double seconds;
	double virtual_ns;
};

struct machine;

struct machine_ops {
	/* Size the machine to @nr_cpus CPUs before booting the model; -1 if out of range. */
	int (*set_cpus)(const struct machine *m, int nr_cpus);
	/*
	 * Run fn(args[i]) as CPU i, for i < @n, started together, stopped by
	 * @stop; the statistics in @st.  0, or -1 with the reason on stderr.
	 */
	int (*run)(const struct machine *m, int n, machine_thread_fn fn, void *const *args,
		   const struct machine_stop *stop, struct machine_stats *st);
	/*
	 * Run fn(@arg) as the machine's one CPU, CPU 0 (the host's calling
	 * thread itself); the window is the call, or the windows its code
	 * marks.  0, or -1 with the reason on stderr.
	 */
	int (*call)(const struct machine *m, machine_thread_fn fn, void *arg, struct machine_stats *st);
	/* Iterations of __delay() per nanosecond of the machine's clock. */
	double (*delay_loops_per_ns)(const struct machine *m);
};

/* Which build of a design runs on it: indexes a design's builds (src/lab). */
enum machine_build {
	MACHINE_BUILD_RUN,		/* the timed build (the `run` flavour) */
	MACHINE_BUILD_VT,		/* the virtual-time build (the `vt` flavour) */
	MACHINE_NR_BUILDS,
};

/*
 * A machine: one of the host (machine_host, src/machine/host.c), the
 * interleaving checker (machine_checker, src/machine/checker.c, chk
 * flavour) or a simulated machine in virtual time (machine_vt(),
 * src/machine/vt_iface.c), chosen once when the options are resolved.  What
 * a run needs to know of it is data here; what it does, its ops.
 */
struct machine {
	const char *name;		/* "host", "checker", a machine file's name */
	int nr_cpus;			/* the most CPUs a run may have */
	int max_nr_cpu_ids;		/* machine_set_cpus()' bound: NR_CPUS of its builds */
	const char *cpus_what;		/* in messages: "the host build's", "m2-vm's" */
	const char *cpus_more;		/* what allows more: " (more with --machine)", "" */
	enum machine_build build;
	/*
	 * The rest of a pread(2) beyond the model, in ns, as the machine's
	 * description gives it; < 0: not given (measure it).
	 */
	double syscall_ns;
	/*
	 * Its TLB flushes in ns as its description gives them (a machine
	 * file's tlb.flush, tlb.tlbi); < 0: not given (the experiment's default).
	 */
	double tlb_flush_ns, tlbi_ns;
	/*
	 * The first write to a page of its RAM that nothing beneath it has
	 * backed (a machine file's mem.first_touch, zeroing left out) and the
	 * order of the page that backs (mem.backing); < 0: not given, its RAM
	 * is backed from the start, or, on the host, its first touches are real.
	 */
	double first_touch_ns;
	int backing_order;
	/* Page cache the machine can follow line by line, in bytes; 0: any. */
	unsigned long long max_page_cache;
	/*
	 * Its runs share the host with everything else: a sample's host noise
	 * (steal, migrations) is measured.  A simulated machine's is not.
	 */
	bool host_noise;
	/*
	 * It counts where its time went (machine_stats.counted): an event
	 * build's counters, whose times are the host's, are left out or keep
	 * their counts alone.
	 */
	bool counts;
	const struct machine_ops *ops;
	const void *priv;		/* the implementation's (a struct vt_machine) */
	char name_buf[64];
	char what_buf[80];
};

extern const struct machine machine_host;
/* The chk flavour's machine library only. */
extern const struct machine machine_checker;
struct vt_machine;
/*
 * The simulated machine @vm (which must outlive it) as a machine; one at a
 * time (src/machine/vt_iface.c holds it).
 */
const struct machine *machine_vt(const struct vt_machine *vm);

static inline int machine_set_cpus(const struct machine *m, int nr_cpus)
{
	return m->ops->set_cpus(m, nr_cpus);
}

static inline int machine_run(const struct machine *m, int n, machine_thread_fn fn, void *const *args,
			      const struct machine_stop *stop, struct machine_stats *st)
{
	return m->ops->run(m, n, fn, args, stop, st);
}

static inline int machine_call(const struct machine *m, machine_thread_fn fn, void *arg,
			       struct machine_stats *st)
{
	return m->ops->call(m, fn, arg, st);
}

static inline double machine_delay_loops_per_ns(const struct machine *m)
{
	return m->ops->delay_loops_per_ns(m);
}

/*
 * @n CPUs, asked for by option --@opt, fit @m: 0, or -1 with one line
 * ("mmlab: --threads: 600 is more than m2-vm's 4 CPUs; valid: 1..4").
 */
int machine_check_cpus(const struct machine *m, const char *opt, long long n);

/* --- the kernel model's side ------------------------------------------------------ */

/*
 * What kernel-named headers (include/linux, include/asm) see of the
 * machine, all of it here: the yield points of the checker (machine/yield.h),
 * the vt flavour's hooks on every atomic (machine/vt_hooks.h), and the vt
 * flavour's clock, delays, locks, sleeps, RCU, kthreads and timed spans
 * (src/machine/vt_sched.c, vt_sync.c, vt_run.c, vt_span.c).
 * A measured window (machine_window_begin()/end()): on a simulated machine
 * it bounds what a run's statistics count; elsewhere it is nothing.
 */
#include <machine/yield.h>
#include <machine/vt_hooks.h>

#ifdef MMLAB_VT
uint64_t vt_now_ns(void);
void vt_delay_ns(unsigned long ns);
void vt_async_ns(unsigned long ns);
void vt_async_wait(void);
void vt_sleep(void);
void vt_wait(void);
bool vt_spin_trylock(int *lock);
void vt_spin_lock(int *lock);
void vt_spin_unlock(int *lock);
void vt_rcu_read_lock(void);
void vt_rcu_read_unlock(void);
void vt_synchronize_rcu(void);
struct task_struct;
struct task_struct *vt_kthread_run(int (*fn)(void *data), void *data);
int vt_kthread_stop(struct task_struct *k);
void vt_wait_var_value(unsigned int *var, unsigned int seq);
void vt_window_begin(void);
void vt_window_end(void);
/* Timed spans (linux/rmap.h's rmap_time_add()): the virtual clock, summed by key. */
unsigned long vt_span_clock(void);
void vt_span_add(int key, unsigned long start);

static inline void machine_window_begin(void)
{
	vt_window_begin();
}

static inline void machine_window_end(void)
{
	vt_window_end();
}

/*
 * A single-threaded workload's set-up on a simulated machine, fast-forwarded
 * (vt_fast_forward(), include/machine/vt.h): the caches are empty when it
 * ends, so write at least twice machine_cache_bytes() through them before
 * the timed window.  Returns whether it took effect.
 */
bool vt_fast_forward(bool on);
unsigned long vt_cache_bytes(void);

static inline bool machine_fast_forward(bool on)
{
	return vt_fast_forward(on);
}

static inline unsigned long machine_cache_bytes(void)
{
	return vt_cache_bytes();
}
#else
static inline void machine_window_begin(void)
{
}

static inline void machine_window_end(void)
{
}

static inline bool machine_fast_forward(bool on)
{
	(void)on;
	return false;
}

static inline unsigned long machine_cache_bytes(void)
{
	return 0;
}
#endif

#endif
