/*
 * COST LEDGER (seed 000; docs/design/seed-000-refcount.md, "Page reference counts", "The
 * page cache" and "refcount-scale").
 *
 * Timed: N pinned threads, each looping one read of --read-size bytes at
 * offset 0 of its page (shmem_file_read() by default, filemap_read() with
 * --read-path filemap: the lookup, folio_try_get(), the copy to the
 * thread's buffer, folio_put()), the comparison of the bytes read with the
 * file, then the rest-of-syscall delay below, for --seconds.  ops/s is
 * every thread's reads over the time between the start and stop flags;
 * with --machine, the reads completed within --virtual-us of virtual time.
 * Not timed: the boot, setting the file up, starting and joining the
 * threads, the teardown and the allocator checks.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the rest of pread(2): syscall entry and exit, fdget, the iov_iter,
 *    touch_atime.  A busy loop of --syscall-ns after each read; its
 *    default, auto, is host-pread's time per read at one thread minus
 *    vanilla's, measured first in the same run (with --machine, the
 *    machine file's syscall figure); --syscall-ns 0 leaves the page-cache
 *    part alone.  Its spread: --syscall-jitter (default 10%).  The part of
 *    it that is copy_to_user(), between the get and the put: --copy-ns
 *    (default 0, all of it after the put).
 *  - the rest of the syscall's own shared lines (the inode, its atime):
 *    the delay is private to each CPU.  No option.
 *  - processes: the readers are threads of one process.  No option; the
 *    seed found both alike.
 *  - one page for all: --pages spreads the threads over more pages.
 *  - the lab's own counting (CAS retries, undo loops, failed gets, put
 *    races, seqcount fallbacks) is not in the timed builds; a separate
 *    untimed run of the event build counts them: --events-seconds
 *    (0: none).
 *  - the kernel as a whole: host-pread runs the same loop with pread(2) of
 *    a tmpfs file on the host kernel, in the same run, as the reference.
 *  - the memory system is the host's own, on as many cores as it has.
 *    --machine e5-2690v3-2s or epyc-9654-2s (seed 000's platforms)
 *    predicts the loop on up to the machine's CPUs in virtual time; there
 *    a sleep and its wake-up cost one line transfer, not an IPI and a
 *    context switch.
 *
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
#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/workloads/refcount_scale.h>
#include "common.h"

#define RS_PAGE_SIZE	4096

struct rs_impl {
	const struct mm_kernel *timed;		/* NULL: host-pread */
	const struct mm_kernel *events;
};

static const struct rs_impl impl_vanilla = { &mm_kernel_vanilla_run, &mm_kernel_vanilla_ev };
static const struct rs_impl impl_frozen_bit = { &mm_kernel_refcount_frozen_bit_run, &mm_kernel_refcount_frozen_bit_ev };
static const struct rs_impl impl_cmpxchg_guess = { &mm_kernel_refcount_cmpxchg_guess_run,
						   &mm_kernel_refcount_cmpxchg_guess_ev };
static const struct rs_impl impl_seqcount_read = { &mm_kernel_refcount_seqcount_read_run,
						   &mm_kernel_refcount_seqcount_read_ev };
static const struct rs_impl impl_host_pread = { NULL, NULL };

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
	  { [SCALE_TINY] = "1,2", [SCALE_DEFAULT] = "nproc" }, 1, MACHINE_MAX_CPUS },
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
	if (exp_check_threads(ctx))
		goto fail;
	/*
	 * --syscall-ns auto: the machine's figure where its description gives
	 * one (a simulated machine's file: so that every preset's numbers are
	 * the same on any host), else measured on the host.
	 */
	if (exp_opt(ctx, "syscall-ns")->choice == 0) {
		if (ctx->machine->syscall_ns >= 0)
			rc->syscall_ns = ctx->machine->syscall_ns;
		else if (rs_calibrate_syscall(ctx, rc))
			goto fail;
	}
	if (rs_set_delays(ctx, rc))
		goto fail;
	return 0;
fail:
	ctx->priv = NULL;
	free(rc);
	return -1;
}

/* --- one timed run of N threads --------------------------------------------- */

static void rs_sum(const struct rs_thread *threads, int n, struct rs_thread *total)
{
	*total = (struct rs_thread){ 0 };
	for (int i = 0; i < n; i++) {
		total->ops += threads[i].ops;
		total->mismatches += threads[i].mismatches;
	}
}

/*
 * Boot @k sized for @nr_threads, set the file up, run the readers on the
 * machine for --seconds (the host) or --virtual-us (a simulated machine),
 * tear down and check everything is accounted for.  @vm_events (NULL: not
 * counted) gets the vm events the readers counted.  Repetition @rep of a
 * point draws its syscall jitter (and the file's bytes) from seed + rep:
 * on the host the samples stay independent draws; in virtual time, where
 * nothing else differs, the repetitions are different interleavings of
 * the same workload.
 */
static int rs_run_model(struct exp_ctx *ctx, const struct mm_kernel *k, int nr_threads, int rep,
			double seconds, struct rs_thread *total, unsigned long *vm_events,
			struct machine_stats *st, struct sample *out)
{
	struct rs_ctx *rc = ctx->priv;
	struct rs_params p = rc->params;
	struct rs_thread *threads = calloc((size_t)nr_threads, sizeof(*threads));
	struct exp_threads t = {
		.k = k, .who = k->name, .nr = nr_threads, .params = &p,
		.threads = threads, .thread_size = sizeof(*threads),
		.seconds = seconds, .virtual_ns = rc->virtual_ns, .vm_events = vm_events,
	};
	int ret = -1;

	p.nr_threads = nr_threads;
	p.seed += (uint64_t)rep;
	if (threads) {
		for (int i = 0; i < nr_threads; i++)
			threads[i].tid = i;
		ret = exp_boot_threads(ctx, &t, out);
	}
	if (!ret) {
		rs_sum(threads, nr_threads, total);
		*st = t.st;
	}
	free(threads);
	return ret;
}

/* --- host-pread ------------------------------------------------------------------- */

struct rs_host_reader {
	struct rs_thread t;
	int fd;			/* this reader's own open of the file */
	size_t size;
	off_t pos;
	const unsigned char *expect;
	const int *stop;
};

/*
 * host-pread: the same loop against the host kernel's page cache.  Each
 * reader reads through its own open file, as will-it-scale's workers do,
 * so that they share the page but not a struct file.
 */
static void rs_host_worker(void *p)
{
	struct rs_host_reader *r = p;
	unsigned long ops = 0, mismatches = 0;
	char buf[RS_PAGE_SIZE];

	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		ssize_t n = pread(r->fd, buf, r->size, r->pos);

		if (n != (ssize_t)r->size || memcmp(buf, r->expect, r->size))
			mismatches++;
		ops++;
	}
	r->t.ops = ops;
	r->t.mismatches = mismatches;
}

/* kcmp(2)'s KCMP_FILE (include/uapi/linux/kcmp.h): do two descriptors share a struct file? */
#define RS_KCMP_FILE	0

/*
 * How many distinct struct files the readers' descriptors refer to, asked
 * with kcmp(2) after the run; -1 if the host does not let us ask.
 */
static int rs_count_open_files(const struct rs_host_reader *r, int n)
{
	pid_t pid = getpid();
	int distinct = 0;

	for (int i = 0; i < n; i++) {
		bool shared = false;

		for (int j = 0; j < i && !shared; j++) {
			long ret = syscall(SYS_kcmp, pid, pid, RS_KCMP_FILE, r[i].fd, r[j].fd);

			if (ret < 0)
				return -1;
			shared = ret == 0;
		}
		distinct += !shared;
	}
	return distinct;
}

/* host-pread's sample: @nr_threads readers of a tmpfs file on the host, for @seconds. */
static int rs_run_host(struct exp_ctx *ctx, int nr_threads, double seconds,
		       struct rs_thread *total, struct machine_stats *st, int *nr_files)
{
	struct rs_ctx *rc = ctx->priv;
	size_t size = (size_t)rc->params.nr_pages * RS_PAGE_SIZE;
	struct rs_host_reader *r = calloc((size_t)nr_threads, sizeof(*r));
	void **argv = calloc((size_t)nr_threads, sizeof(*argv));
	unsigned char *contents = malloc(size);
	char path[] = "/dev/shm/mmlab-refcount-XXXXXX";
	int ret = -1, fd, stop = 0;
	struct machine_stop when = { .flag = &stop, .seconds = seconds };

	if (!r || !argv || !contents)
		goto out;
	for (int i = 0; i < nr_threads; i++)
		r[i].fd = -1;
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
	for (int i = 0; i < nr_threads; i++) {
		r[i] = (struct rs_host_reader){
			.t = { .tid = i },
			.fd = open(path, O_RDONLY),
			.size = (size_t)rc->params.read_size,
			.pos = (off_t)(i % rc->params.nr_pages) * RS_PAGE_SIZE,
			.stop = &stop,
		};
		r[i].expect = contents + r[i].pos;
		argv[i] = &r[i];
		if (r[i].fd < 0) {
			fprintf(stderr, "mmlab: host-pread: reader %d cannot open the tmpfs file\n", i);
			goto out_unlink;
		}
	}
	/* It measures the host itself: on the host machine, whatever --machine says. */
	if (machine_run(&machine_host, nr_threads, rs_host_worker, argv, &when, st))
		goto out_unlink;
	*total = (struct rs_thread){ 0 };
	for (int i = 0; i < nr_threads; i++) {
		total->ops += r[i].t.ops;
		total->mismatches += r[i].t.mismatches;
	}
	if (nr_files)
		*nr_files = rs_count_open_files(r, nr_threads);
	ret = 0;
out_unlink:
	for (int i = 0; i < nr_threads; i++)
		if (r[i].fd >= 0)
			close(r[i].fd);
	close(fd);
	unlink(path);
out:
	free(contents);
	free(argv);
	free(r);
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
	struct machine_stats st;
	unsigned long late;
	int host_files = 0;
	double secs, ops;
	int ret;

	if (impl->timed)
		ret = rs_run_model(ctx, exp_build(ctx, impl->timed), nr_threads, rep, rc->seconds, &total,
				   NULL, &st, out);
	else
		ret = rs_run_host(ctx, nr_threads, rc->seconds, &total, &st, &host_files);
	if (ret)
		return -1;

	/*
	 * Each reader's last read started before the stop and ends after it:
	 * where the machine stops exactly (it counts: virtual time), the reads
	 * done within the measured time are the others.
	 */
	late = st.counted ? (unsigned long)nr_threads : 0;
	secs = st.stop_ns * 1e-9;
	ops = total.ops ? (double)total.ops : 1;
	out->value = secs > 0 && total.ops > late ? (total.ops - late) / secs : 0;
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
	if (st.counted) {
		sample_counter(out, "virtual_ns", st.stop_ns);
		sample_counter(out, "ns_per_op_per_cpu", st.stop_ns * nr_threads / ops);
	}
	exp_machine_counters(out, &st, ops, "share_syscall_pct");

	/* Counters come from a separate, untimed run of the event build. */
	if (rep == 0 && impl->events && exp_event_run(ctx, rc->events_seconds > 0)) {
		unsigned long *vm_events = exp_vm_events_alloc(impl->events);
		struct machine_stats ev_st;

		if (!vm_events || rs_run_model(ctx, impl->events, nr_threads, 0, rc->events_seconds,
					       &ev, vm_events, &ev_st, out)) {
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
	double seconds = rc->seconds / RS_CAL_RUNS, host_ns = 0, model_ns = 0;
	struct sample scratch = { 0 };
	struct machine_stats st;
	struct rs_thread t;

	/* Both on the host, which is what is measured. */
	for (int i = 0; i < RS_CAL_RUNS; i++) {
		if (rs_run_host(ctx, 1, seconds, &t, &st, NULL))
			return -1;
		if (t.ops && (!host_ns || st.stop_ns / t.ops < host_ns))
			host_ns = st.stop_ns / t.ops;
		if (rs_run_model(ctx, &mm_kernel_vanilla_run, 1, 0, seconds, &t, NULL, &st, &scratch))
			return -1;
		if (t.ops && (!model_ns || st.stop_ns / t.ops < model_ns))
			model_ns = st.stop_ns / t.ops;
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
