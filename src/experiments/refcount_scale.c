/*
 * refcount-scale (seed 000, "mm: improve folio refcount scalability"):
 * N pinned threads loop a small read at offset 0 of one page-cache page,
 * will-it-scale style, for a fixed time; ops/s per thread count.
 *
 * The model's designs each run in their own kernel build.  host-pread runs
 * the same loop on the host kernel, with pread(2) of a tmpfs file, so the
 * real thing is measured in the same run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/cpumask.h>
#include <machine/machine.h>
#include <machine/vt.h>
#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/workloads/refcount_scale.h>
#include "common.h"

#define RS_PAGE_SIZE	4096

struct rs_impl {
	const struct mm_kernel *timed;		/* NULL: host-pread */
	const struct mm_kernel *events;
	const struct mm_kernel *vt;		/* the virtual-time build, for --machine */
};

static const struct rs_impl impl_vanilla = { &mm_kernel_vanilla_run, &mm_kernel_vanilla_ev, &mm_kernel_vanilla_vt };
static const struct rs_impl impl_frozen_bit = { &mm_kernel_refcount_frozen_bit_run, &mm_kernel_refcount_frozen_bit_ev,
						&mm_kernel_refcount_frozen_bit_vt };
static const struct rs_impl impl_cmpxchg_guess = { &mm_kernel_refcount_cmpxchg_guess_run, &mm_kernel_refcount_cmpxchg_guess_ev,
						   &mm_kernel_refcount_cmpxchg_guess_vt };
static const struct rs_impl impl_seqcount_read = { &mm_kernel_refcount_seqcount_read_run, &mm_kernel_refcount_seqcount_read_ev,
						   &mm_kernel_refcount_seqcount_read_vt };
static const struct rs_impl impl_host_pread = { NULL, NULL, NULL };

static const struct exp_variant rs_variants[] = {
	{ "vanilla", "zero means frozen; folio_try_get() is a compare-exchange loop", &impl_vanilla },
	{ "frozen-bit", "the series: bit 31 means frozen; folio_try_get() is one fetch-add", &impl_frozen_bit },
	{ "cmpxchg-guess", "Linus's alternative: try_cmpxchg guessing the count is 1", &impl_cmpxchg_guess },
	{ "seqcount-read", "Kirill Shutemov's short reads: no refcount, a deletion seqcount checks the copy", &impl_seqcount_read },
	{ "host-pread", "reference: the same loop with pread(2) of a tmpfs file on the host kernel", &impl_host_pread,
	  .host_only = true },
};

static const struct exp_option rs_options[] = {
	{ "threads", OPT_INT_LIST, "thread counts to measure (oversubscription allowed); at most 256 on the "
	  "host, the machine's CPUs with --machine",
	  { [SCALE_TINY] = "1,2", [SCALE_DEFAULT] = "nproc" }, 1, VT_MAX_CPUS },
	{ "seconds", OPT_DOUBLE, "measured time of one sample",
	  { [SCALE_TINY] = "0.05", [SCALE_DEFAULT] = "0.5", [SCALE_FULL] = "5" }, 0.01, 3600 },
	{ "read-size", OPT_INT, "bytes per read, at offset 0 of the thread's page",
	  { [SCALE_DEFAULT] = "64" }, 1, RS_PAGE_SIZE },
	{ "pages", OPT_INT, "distinct file pages the threads spread over (thread i reads page i % pages)",
	  { [SCALE_DEFAULT] = "1" }, 1, 1 << 20 },
	{ "syscall-ns", OPT_INT, "modelled cost of the rest of pread(2) around the page-cache read (busy loop, "
	  "model variants only); auto: host-pread's time per read at 1 thread minus the model's, measured first",
	  { [SCALE_DEFAULT] = "auto" }, 0, 100000, "auto" },
	{ "syscall-jitter", OPT_INT, "the rest of pread(2) varies per read, uniformly within this % of "
	  "--syscall-ns either way (seeded, repetition r from seed + r: the same every run, and with "
	  "--machine each repetition another interleaving); 0: a constant delay",
	  { [SCALE_DEFAULT] = "10" }, 0, 50 },
	{ "copy-ns", OPT_INT, "of --syscall-ns, the part spent copying to the user buffer (copy_to_user()), "
	  "between the read's page-cache get and put instead of after the put; a read costs the same",
	  { [SCALE_DEFAULT] = "0" }, 0, 100000 },
	{ "events-seconds", OPT_DOUBLE, "length of the separate counting run (event build) per point; 0 = none",
	  { [SCALE_TINY] = "0.02", [SCALE_DEFAULT] = "0.2", [SCALE_FULL] = "1" }, 0, 60 },
	{ "virtual-us", OPT_DOUBLE, "with --machine: the measured virtual time of one sample, in microseconds",
	  { [SCALE_TINY] = "200", [SCALE_DEFAULT] = "10000", [SCALE_FULL] = "50000" }, 10, 1000000 },
	{ "read-path", OPT_CHOICE, "tmpfs: shmem_file_read_iter() (folio lock and unlock, mark accessed), as the "
	  "seed's tmpfs file and host-pread; filemap: filemap_read() of a disk file system",
	  { [SCALE_DEFAULT] = "tmpfs" }, 0, 0, "tmpfs,filemap" },
};

struct rs_ctx {
	double seconds, events_seconds;
	double virtual_ns;		/* --virtual-us, with --machine */
	double syscall_ns;		/* --syscall-ns, given or derived */
	double copy_ns;			/* --copy-ns: the part of it inside the copy to user memory */
	int jitter_pct;			/* --syscall-jitter */
	struct rs_params params;
};

static int rs_calibrate_syscall(struct exp_ctx *ctx, struct rs_ctx *rc);

/*
 * The rest of pread(2) as delay loops: --copy-ns of it inside the copy to
 * user memory, between the page-cache get and put (never more than the
 * whole), the remainder after the put, varying by --syscall-jitter.  On a
 * simulated machine a loop is a virtual nanosecond.
 */
static int rs_set_delays(struct exp_ctx *ctx, struct rs_ctx *rc)
{
	double per_ns;

	if (rc->copy_ns > rc->syscall_ns) {
		fprintf(stderr, "mmlab: --copy-ns %.0f is more than the rest of pread(2), --syscall-ns %.0f; "
			"valid: 0..%.0f\n", rc->copy_ns, rc->syscall_ns, rc->syscall_ns);
		return -1;
	}
	/* No calibration of the host's delay loop for a delay of nothing. */
	per_ns = rc->syscall_ns > 0 ? exp_delay_loops_per_ns(ctx) : 0;
	rc->params.syscall_loops = (unsigned long)llround((rc->syscall_ns - rc->copy_ns) * per_ns);
	rc->params.copy_loops = (unsigned long)llround(rc->copy_ns * per_ns);
	rc->params.jitter_loops = rc->params.syscall_loops * (unsigned long)rc->jitter_pct / 100;
	return 0;
}

/*
 * With --machine: every point must fit the simulated machine, and the rest
 * of pread(2) is the machine file's figure unless given (auto never
 * measures the host there, so that every preset's numbers are the same on
 * any host).  In the vt build a delay loop is one virtual nanosecond.
 */
static int rs_prepare_vt(struct exp_ctx *ctx, struct rs_ctx *rc)
{
	if (exp_vt_check_threads(ctx)) {
		ctx->priv = NULL;
		free(rc);
		return -1;
	}
	if (exp_opt(ctx, "syscall-ns")->choice == 0)
		rc->syscall_ns = ctx->vt->syscall_ns;
	if (rs_set_delays(ctx, rc)) {
		ctx->priv = NULL;
		free(rc);
		return -1;
	}
	return 0;
}

static int rs_prepare(struct exp_ctx *ctx)
{
	struct rs_ctx *rc = calloc(1, sizeof(*rc));
	unsigned long long need;

	if (!rc)
		return -1;
	rc->seconds = exp_opt(ctx, "seconds")->d;
	rc->events_seconds = exp_opt(ctx, "events-seconds")->d;
	rc->params.read_size = (int)exp_opt(ctx, "read-size")->i;
	rc->params.nr_pages = (int)exp_opt(ctx, "pages")->i;
	rc->params.read_path = exp_opt(ctx, "read-path")->choice == 0 ? RS_READ_TMPFS : RS_READ_FILEMAP;
	rc->params.seed = ctx->seed;
	rc->syscall_ns = (double)exp_opt(ctx, "syscall-ns")->i;
	rc->copy_ns = (double)exp_opt(ctx, "copy-ns")->i;
	rc->jitter_pct = (int)exp_opt(ctx, "syscall-jitter")->i;
	rc->virtual_ns = exp_opt(ctx, "virtual-us")->d * 1000;

	/* The file must fit in the simulated memory with room to spare. */
	need = (unsigned long long)rc->params.nr_pages * RS_PAGE_SIZE;
	if (need > ctx->mem_bytes / 2) {
		fprintf(stderr, "mmlab: --pages %d needs %llu bytes, more than half of --mem (%llu bytes); "
			"valid range 1..%llu at this --mem\n", rc->params.nr_pages, need,
			ctx->mem_bytes, ctx->mem_bytes / 2 / RS_PAGE_SIZE);
		free(rc);
		return -1;
	}
	if (exp_points_from_list(ctx, "threads", "threads")) {
		free(rc);
		return -1;
	}
	ctx->priv = rc;
	if (ctx->vt)
		return rs_prepare_vt(ctx, rc);
	for (int i = 0; i < ctx->nr_points; i++)
		if (ctx->points[i].arg > NR_CPUS) {
			fprintf(stderr, "mmlab: --threads: %lld is more than the host build's %d CPUs; valid: "
				"1..%d (more with --machine)\n", (long long)ctx->points[i].arg, NR_CPUS, NR_CPUS);
			ctx->priv = NULL;
			free(rc);
			return -1;
		}
	if (exp_opt(ctx, "syscall-ns")->choice == 0 && rs_calibrate_syscall(ctx, rc)) {
		ctx->priv = NULL;
		free(rc);
		return -1;
	}
	if (rs_set_delays(ctx, rc)) {
		ctx->priv = NULL;
		free(rc);
		return -1;
	}
	return 0;
}

/* --- one timed run of N threads --------------------------------------------- */

struct rs_run {
	int nr_threads;
	int ready;
	int start;
	int stop;
	const struct mm_kernel *k;	/* NULL: host */
	const struct mm_workload *w;	/* its workload */
	struct rs_state *state;
	const char *host_path;
	const unsigned char *host_contents;
	int read_size;
	int nr_pages;
};

struct rs_worker_arg {
	struct rs_run *run;
	struct rs_thread t;
	int host_fd;		/* host-pread: this thread's own open of the file */
};

static void rs_wait_start(struct rs_run *run)
{
	__atomic_fetch_add(&run->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&run->start, __ATOMIC_ACQUIRE))
		;
}

/*
 * host-pread: the same loop against the host kernel's page cache.  Each
 * thread reads through its own open file, as will-it-scale's workers do,
 * so that they share the page but not a struct file.
 */
static void rs_host_worker(struct rs_run *run, struct rs_thread *t, int fd)
{
	const size_t size = (size_t)run->read_size;
	const off_t pos = (off_t)(t->tid % run->nr_pages) * RS_PAGE_SIZE;
	const unsigned char *expect = run->host_contents + pos;
	unsigned long ops = 0, mismatches = 0;
	char buf[RS_PAGE_SIZE];

	while (!__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) {
		ssize_t n = pread(fd, buf, size, pos);

		if (n != (ssize_t)size || memcmp(buf, expect, size))
			mismatches++;
		ops++;
	}
	t->ops = ops;
	t->mismatches = mismatches;
}

static void rs_thread_main(void *p)
{
	struct rs_worker_arg *a = p;
	struct rs_run *run = a->run;

	if (!run->k)
		a->host_fd = open(run->host_path, O_RDONLY);
	rs_wait_start(run);
	if (run->k)
		run->w->worker(run->state, &a->t, &run->stop);
	else if (a->host_fd >= 0)
		rs_host_worker(run, &a->t, a->host_fd);
}

/* Start the threads, let them run @seconds, stop them; returns elapsed seconds. */
static double rs_run_threads(struct rs_run *run, struct rs_worker_arg *args, double seconds)
{
	void *argv[1024];
	struct machine_threads *threads;
	double t0, t1;

	for (int i = 0; i < run->nr_threads; i++) {
		args[i] = (struct rs_worker_arg){ .run = run, .t = { .tid = i }, .host_fd = -1 };
		argv[i] = &args[i];
	}
	threads = machine_threads_start(run->nr_threads, rs_thread_main, argv);
	if (!threads)
		return -1;
	while (__atomic_load_n(&run->ready, __ATOMIC_ACQUIRE) < run->nr_threads)
		machine_sleep(0.0005);
	t0 = machine_now();
	__atomic_store_n(&run->start, 1, __ATOMIC_RELEASE);
	machine_sleep(seconds);
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
	t1 = machine_now();
	machine_threads_join(threads);
	return t1 - t0;
}

static void rs_sum(const struct rs_worker_arg *args, int n, struct rs_thread *total)
{
	*total = (struct rs_thread){ 0 };
	for (int i = 0; i < n; i++) {
		total->ops += args[i].t.ops;
		total->mismatches += args[i].t.mismatches;
	}
}

/*
 * Boot @k sized for @nr_threads and set the file up; NULL (and the kernel
 * shut down) on failure.  Repetition @rep of a point draws its syscall
 * jitter (and the file's bytes) from seed + rep: on the host the samples
 * stay independent draws; in virtual time, where nothing else differs,
 * the repetitions are different interleavings of the same workload.
 */
static void *rs_boot_setup(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_threads, int rep)
{
	struct rs_ctx *rc = ctx->priv;
	struct rs_params p = rc->params;
	void *state;

	p.nr_threads = nr_threads;
	p.seed += (uint64_t)rep;
	if (exp_mem_boot(ctx, k, nr_threads))
		return NULL;
	state = exp_workload(k, ctx->exp->workload)->setup(&p);
	if (!state) {
		fprintf(stderr, "mmlab: refcount-scale: cannot set up the file (out of simulated memory?)\n");
		k->mem_exit();
	}
	return state;
}

/*
 * Boot the kernel build, run, tear down and check everything is accounted
 * for.  @vm_events (NULL: not counted) gets the vm events the threads
 * counted, from their start to the join.
 */
static int rs_run_model(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_threads, int rep,
			double seconds, struct rs_thread *total, unsigned long *vm_events,
			double *elapsed, struct sample *out)
{
	struct rs_worker_arg *args = calloc(nr_threads, sizeof(*args));
	struct rs_run run = { .nr_threads = nr_threads, .k = k, .w = exp_workload(k, ctx->exp->workload) };
	char msg[200];
	int ret = -1;

	if (!args)
		return -1;
	run.state = rs_boot_setup(ctx, k, nr_threads, rep);
	if (!run.state)
		goto out;
	k->reset_vm_events();
	*elapsed = rs_run_threads(&run, args, seconds);
	if (vm_events)
		k->all_vm_events(vm_events);
	if (run.w->teardown(run.state, msg, sizeof(msg)))
		sample_fail(out, false, "%s: %s", k->name, msg);
	if (*elapsed < 0) {
		fprintf(stderr, "mmlab: cannot start %d threads: %s\n", nr_threads, strerror(errno));
		k->mem_exit();
		goto out;
	}
	exp_mem_check_exit(k, k->name, out);
	rs_sum(args, nr_threads, total);
	ret = 0;
out:
	free(args);
	return ret;
}

/* --- virtual time --------------------------------------------------------------- */

static void rs_vt_thread_main(void *p)
{
	struct rs_worker_arg *a = p;

	a->run->w->worker(a->run->state, &a->t, &a->run->stop);
}

/*
 * One sample on the simulated machine: the vt build boots and sets up the
 * file as on the host (outside virtual time), then N virtual CPUs loop
 * reads until every one's clock has passed --virtual-us.  ops/s is the
 * reads completed over that virtual time; the counters say where it went.
 */
static int rs_run_vt(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_threads, int rep,
		     struct sample *out)
{
	struct rs_ctx *rc = ctx->priv;
	struct rs_worker_arg *args = calloc(nr_threads, sizeof(*args));
	void **argv = calloc(nr_threads, sizeof(*argv));
	struct rs_run run = { .nr_threads = nr_threads, .k = k, .w = exp_workload(k, ctx->exp->workload) };
	struct rs_thread total;
	struct vt_stats st;
	char msg[200];
	double ops, secs;
	int ret = -1;

	if (!args || !argv)
		goto out;
	run.state = rs_boot_setup(ctx, k, nr_threads, rep);
	if (!run.state)
		goto out;
	for (int i = 0; i < nr_threads; i++) {
		args[i] = (struct rs_worker_arg){ .run = &run, .t = { .tid = i }, .host_fd = -1 };
		argv[i] = &args[i];
	}
	if (vt_run(ctx->vt, nr_threads, rs_vt_thread_main, argv, &run.stop, rc->virtual_ns, &st)) {
		run.w->teardown(run.state, msg, sizeof(msg));
		k->mem_exit();
		goto out;
	}
	if (run.w->teardown(run.state, msg, sizeof(msg)))
		sample_fail(out, false, "%s: %s", k->name, msg);
	exp_mem_check_exit(k, k->name, out);
	rs_sum(args, nr_threads, &total);
	/*
	 * Each CPU's last read started before the stop and ends after it:
	 * the reads done within the measured virtual time are the others.
	 */
	secs = st.stop_ns * 1e-9;
	ops = total.ops ? (double)total.ops : 1;
	out->value = secs > 0 && total.ops > (unsigned long)nr_threads ?
		(total.ops - nr_threads) / secs : 0;
	sample_counter(out, "ops", (double)total.ops);
	sample_counter(out, "syscall_ns", rc->syscall_ns);
	sample_counter(out, "copy_ns", rc->copy_ns);
	sample_counter(out, "syscall_jitter_pct", rc->jitter_pct);
	sample_counter(out, "mismatched_reads", (double)total.mismatches);
	if (total.mismatches)
		sample_fail(out, true, "%s: %lu of %lu reads returned bytes that differ from the file",
			    k->name, total.mismatches, total.ops);
	sample_counter(out, "virtual_ns", st.stop_ns);
	sample_counter(out, "ns_per_op_per_cpu", st.stop_ns * nr_threads / ops);
	exp_vt_counters(out, &st, ops, "share_syscall_pct");
	ret = 0;
out:
	free(argv);
	free(args);
	return ret;
}

/* kcmp(2)'s KCMP_FILE (include/uapi/linux/kcmp.h): do two descriptors share a struct file? */
#define RS_KCMP_FILE	0

/*
 * How many distinct struct files the threads' descriptors refer to, asked
 * with kcmp(2) after the run; -1 if the host does not let us ask.
 */
static int rs_count_open_files(const struct rs_worker_arg *args, int n)
{
	pid_t pid = getpid();
	int distinct = 0;

	for (int i = 0; i < n; i++) {
		bool shared = false;

		for (int j = 0; j < i && !shared; j++) {
			long r = syscall(SYS_kcmp, pid, pid, RS_KCMP_FILE, args[i].host_fd, args[j].host_fd);

			if (r < 0)
				return -1;
			shared = r == 0;
		}
		distinct += !shared;
	}
	return distinct;
}

static int rs_run_host(struct exp_ctx *ctx, int nr_threads, double seconds,
		       struct rs_thread *total, double *elapsed, int *nr_files)
{
	struct rs_ctx *rc = ctx->priv;
	size_t size = (size_t)rc->params.nr_pages * RS_PAGE_SIZE;
	struct rs_worker_arg *args = calloc(nr_threads, sizeof(*args));
	struct rs_run run = {
		.nr_threads = nr_threads,
		.read_size = rc->params.read_size,
		.nr_pages = rc->params.nr_pages,
	};
	unsigned char *contents = malloc(size);
	char path[] = "/dev/shm/mmlab-refcount-XXXXXX";
	int ret = -1, fd;

	if (!args || !contents)
		goto out;
	for (size_t i = 0; i < size; i++)
		contents[i] = (unsigned char)(i * 131 + ctx->seed);
	fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "mmlab: host-pread needs a tmpfs file in /dev/shm: %s\n", strerror(errno));
		goto out;
	}
	if (write(fd, contents, size) != (ssize_t)size) {
		fprintf(stderr, "mmlab: host-pread: cannot write the tmpfs file: %s\n", strerror(errno));
		goto out_unlink;
	}
	run.host_path = path;
	run.host_contents = contents;
	*elapsed = rs_run_threads(&run, args, seconds);
	if (*elapsed < 0)
		goto out_unlink;
	for (int i = 0; i < nr_threads; i++) {
		if (args[i].host_fd < 0) {
			fprintf(stderr, "mmlab: host-pread: thread %d cannot open the tmpfs file\n", i);
			goto out_unlink;
		}
	}
	rs_sum(args, nr_threads, total);
	if (nr_files)
		*nr_files = rs_count_open_files(args, nr_threads);
	ret = 0;
out_unlink:
	for (int i = 0; i < nr_threads; i++)
		if (args[i].host_fd >= 0)
			close(args[i].host_fd);
	close(fd);
	unlink(path);
out:
	free(contents);
	free(args);
	return ret;
}

/* The event build's counters, per read of the counting run. */
static void rs_add_event_counters(struct sample *out, const struct mm_kernel *k,
				  const struct rs_thread *total, const unsigned long *ev)
{
	double ops = total->ops ? (double)total->ops : 1;

	sample_counter(out, "events_ops", (double)total->ops);
	sample_counter(out, "cas_retries_per_op", exp_vm_event(k, ev, "pgref_cas_retry") / ops);
	sample_counter(out, "undo_loops_per_op", exp_vm_event(k, ev, "pgref_undo_loop") / ops);
	sample_counter(out, "tryget_fail_per_op", exp_vm_event(k, ev, "pgref_tryget_fail") / ops);
	sample_counter(out, "put_races_per_op", exp_vm_event(k, ev, "pgref_put_race") / ops);
	sample_counter(out, "seq_fallbacks_per_op", exp_vm_event(k, ev, "filemap_fast_fallback") / ops);
}

static int rs_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
		      struct exp_point *p, int rep, struct sample *out)
{
	const struct rs_impl *impl = v->impl;
	struct rs_ctx *rc = ctx->priv;
	int nr_threads = (int)p->arg;
	struct rs_thread total, ev;
	int host_files = 0;
	double elapsed;
	int ret;

	if (ctx->vt)
		return rs_run_vt(ctx, impl->vt, nr_threads, rep, out);
	if (impl->timed)
		ret = rs_run_model(ctx, impl->timed, nr_threads, rep, rc->seconds, &total, NULL,
				   &elapsed, out);
	else
		ret = rs_run_host(ctx, nr_threads, rc->seconds, &total, &elapsed, &host_files);
	if (ret)
		return -1;

	out->value = total.ops / elapsed;
	sample_counter(out, "ops", (double)total.ops);
	if (impl->timed) {
		sample_counter(out, "syscall_ns", rc->syscall_ns);
		sample_counter(out, "copy_ns", rc->copy_ns);
		sample_counter(out, "syscall_jitter_pct", rc->jitter_pct);
	} else {
		sample_counter(out, "host_open_files", host_files);
	}
	sample_counter(out, "mismatched_reads", (double)total.mismatches);
	if (total.mismatches)
		sample_fail(out, true, "%s: %lu of %lu reads returned bytes that differ from the file",
			    v->name, total.mismatches, total.ops);

	/* Counters come from a separate, untimed run of the event build. */
	if (rep == 0 && impl->events && rc->events_seconds > 0) {
		unsigned long *vm_events = exp_vm_events_alloc(impl->events);
		double ev_elapsed;

		if (!vm_events || rs_run_model(ctx, impl->events, nr_threads, 0, rc->events_seconds,
					       &ev, vm_events, &ev_elapsed, out)) {
			free(vm_events);
			return -1;
		}
		rs_add_event_counters(out, impl->events, &ev, vm_events);
		free(vm_events);
		if (ev.mismatches)
			sample_fail(out, true, "%s (event build): %lu reads differ from the file",
				    v->name, ev.mismatches);
	}
	return 0;
}

/*
 * --syscall-ns auto: what a real pread(2) costs beyond the model's read.
 * host-pread and the vanilla build each read at one thread, a few short
 * runs of each, the fastest kept (the least disturbed); the difference per
 * read, never below zero, is the busy loop after each model read.  It is
 * the only figure taken from the host: every other point is the model's.
 */
#define RS_CAL_RUNS	3

static int rs_calibrate_syscall(struct exp_ctx *ctx, struct rs_ctx *rc)
{
	double seconds = rc->seconds / RS_CAL_RUNS, host_ns = 0, model_ns = 0, elapsed;
	struct sample scratch = { 0 };
	struct rs_thread t;

	for (int i = 0; i < RS_CAL_RUNS; i++) {
		if (rs_run_host(ctx, 1, seconds, &t, &elapsed, NULL))
			return -1;
		if (t.ops && (!host_ns || elapsed * 1e9 / t.ops < host_ns))
			host_ns = elapsed * 1e9 / t.ops;
		if (rs_run_model(ctx, &mm_kernel_vanilla_run, 1, 0, seconds, &t, NULL, &elapsed, &scratch))
			return -1;
		if (t.ops && (!model_ns || elapsed * 1e9 / t.ops < model_ns))
			model_ns = elapsed * 1e9 / t.ops;
	}
	if (scratch.invariants_failed || scratch.data_failed) {
		fprintf(stderr, "mmlab: refcount-scale: --syscall-ns auto: the calibration run failed a check: %s\n",
			scratch.failure);
		return -1;
	}
	if (!host_ns || !model_ns) {
		fprintf(stderr, "mmlab: refcount-scale: --syscall-ns auto: no read completed; give a number\n");
		return -1;
	}
	rc->syscall_ns = host_ns > model_ns ? host_ns - model_ns : 0;
	fprintf(stderr, "refcount-scale: --syscall-ns auto = %.0f ns: host-pread %.0f ns per read at 1 thread, "
		"the model's vanilla read %.0f ns\n", rc->syscall_ns, host_ns, model_ns);
	return 0;
}

static void rs_finish(struct exp_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct experiment exp_refcount_scale = {
	.name = "refcount-scale",
	.seed = "000_e9374adfdd9a9d66.txt",
	.desc = "lockless page-cache read of 64 bytes from N pinned threads: ops/s per N",
	.options = rs_options,
	.nr_options = sizeof(rs_options) / sizeof(rs_options[0]),
	.variants = rs_variants,
	.nr_variants = sizeof(rs_variants) / sizeof(rs_variants[0]),
	.metric = "ops_per_sec",
	.unit = "ops/s",
	.higher_is_better = true,
	.point_header = "#threads",
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 10 },
	.prepare = rs_prepare,
	.run_one = rs_run_one,
	.finish = rs_finish,
	.workload = "refcount_scale",
	.virtual_time = true,
	.vt_default_repeat = 5,
};
