/*
 * COST LEDGER (seed 002; docs/design/seed-002-readseq.md, "Readahead and the backing
 * store" and "readseq").
 *
 * Timed: every read of --value-size bytes on its own, a clock read before
 * and after it, as db_bench times each operation: filemap_read() with its
 * page-cache lookups, the on-demand readahead that allocates and inserts
 * folios (one xa_lock hold per folio in vanilla, one per window batched)
 * and submits them to the device, waits on folios still under I/O, and the
 * copy to the reader's buffer.  With --readahead syscall the readahead(2)
 * call a read issues is inside that read's time.  ops/s is every record
 * over the time from the start flag until the last reader ends.  Not
 * timed: the boot, writing the host files, each record's check against
 * the file (after the second clock read), the teardown and checks, and the
 * event build's separate counting run (--events).
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the device's latency: zero by default, a request done as soon as one
 *    host thread's preadv(2) fills it.  --device-latency US per request
 *    (requests in flight overlap).
 *  - the device's bandwidth: unlimited by default.  --device-mbps MB/s
 *    sends each request's data over one channel at that rate, after its
 *    latency and after the request before it (async only).
 *  - the data transfer: the device thread fills the folios (DMA in the
 *    kernel), never charged to the reader.  --io sync makes the reader
 *    copy from the host file itself and spend the device latency (the
 *    reader-copies point).
 *  - the device's parallelism: one thread serves every CPU's queue in
 *    turn, where an NVMe device works on many queues at once.  No option.
 *  - RocksDB's shared descriptor: every reader opens each file itself, its
 *    own struct file and readahead state, where db_bench's threads share a
 *    table file's f_ra.  No option.
 *  - db_bench's own user-space work per record: not modelled.  No option.
 *  - reclaim: none; the files must fit in --mem.
 *  - on the host, made dearer: the device thread takes processor time
 *    from the readers when there are fewer processors than readers + 1,
 *    and waking an idle device is a futex wake-up a doorbell does not pay
 *    (about a microsecond, at most once per idle period).  --machine
 *    removes both: the device is an agent of the run with latency only.
 *  - the memory system is the host's own.  --machine icelake-32v (seed
 *    002's server, latencies estimated) or another preset predicts the run
 *    in virtual time; what a sleep and its wake-up cost there is one line
 *    transfer (docs/design/virtual-time.md).
 *
 * readseq (seed 002, "mm/readahead: batch folio insertion"): db_bench
 * readseq in shape.  T threads read T files (each every file, or each its
 * own) sequentially in records of --value-size bytes, from a cold page
 * cache, through readahead and a device that completes reads on its own;
 * throughput and per-read latency percentiles, vanilla (one xa_lock hold
 * per inserted folio) against batched insertion (one per window).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <machine/machine.h>
#include <mmlab/data_file.h>
#include <mmlab/experiment.h>
#include <mmlab/hist.h>
#include <mmlab/kernel.h>
#include <mmlab/workloads/readseq.h>
#include <mmlab/record_sum.h>
#include "common.h"

struct rsq_impl {
	const struct mm_kernel *timed;
	const struct mm_kernel *events;
};

static const struct rsq_impl impl_vanilla = { &mm_kernel_vanilla_run, &mm_kernel_vanilla_ev };
static const struct rsq_impl impl_batched = { &mm_kernel_ra_batched_run, &mm_kernel_ra_batched_ev };

static const struct exp_variant rsq_variants[] = {
	{ "vanilla", "one xa_lock hold per folio inserted by readahead", &impl_vanilla },
	{ "batched", "the series, reshaped: folios allocated first, one xa_lock hold per window",
	  &impl_batched },
};

static const struct exp_metric rsq_metrics[] = { LAT_HIST_METRICS("lat") };

static const struct exp_option rsq_options[] = {
	{ "threads", OPT_INT_LIST, "reader threads and files (db_bench --threads, --num_multi_db)",
	  { [SCALE_DEFAULT] = "nproc" }, 1, 256 },
	{ "files", OPT_CHOICE, "shared: every thread reads every file in the same order (the seed's "
	  "--num_multi_db); private: each thread reads only its own",
	  { [SCALE_DEFAULT] = "shared" }, 0, 0, "shared,private" },
	{ "file-size", OPT_SIZE, "size of each file",
	  { [SCALE_TINY] = "4M", [SCALE_DEFAULT] = "64M", [SCALE_FULL] = "256M" }, 1 << 16, 1ULL << 40 },
	{ "value-size", OPT_INT, "bytes per read (db_bench --value_size)",
	  { [SCALE_DEFAULT] = "8192" }, 64, 1 << 20 },
	{ "io", OPT_CHOICE, "async: a device thread fills the folios and completes the reads, the "
	  "reader waits only on a folio still under I/O (the kernel's way); sync: the reader copies "
	  "from the host file itself and spends the device latency",
	  { [SCALE_DEFAULT] = "async" }, 0, 0, "async,sync" },
	{ "device-latency", OPT_DOUBLE, "modelled device latency per read request, microseconds",
	  { [SCALE_DEFAULT] = "0" }, 0, 100000 },
	{ "device-mbps", OPT_INT, "the device's read bandwidth in MB/s (10^6 bytes a second): each "
	  "request's data crosses one channel at this rate after its latency (a datasheet's "
	  "sequential read rate); 0: unlimited; --io async only",
	  { [SCALE_DEFAULT] = "0" }, 0, 1000000 },
	{ "readahead", OPT_CHOICE, "rocksdb: each reader calls readahead(2) as db_bench's RocksDB "
	  "iterator does on buffered files (from the third sequential record, the record and 8 KiB "
	  "after it, doubling to 256 KiB), and the kernel's window serves the rest; ondemand: the "
	  "kernel's window alone, grown by the reads; syscall: each reader calls readahead(2) for "
	  "the next window before reading it (force_page_cache_ra)",
	  { [SCALE_DEFAULT] = "rocksdb" }, 0, 0, "ondemand,syscall,rocksdb" },
	{ "ra-pages", OPT_INT, "maximum readahead window in pages (the kernel's default 32 = 128 KiB)",
	  { [SCALE_DEFAULT] = "32" }, 1, 1024 },
	{ "events", OPT_CHOICE, "run the event build once per point for the lock counters (host only: "
	  "with --machine the machine's own counters say why)",
	  { [SCALE_DEFAULT] = "on" }, 0, 0, "on,off" },
};

struct rsq_ctx {
	struct rsq_params p;
	int *fds;
	uint64_t **sums;
	int max_threads;
	bool events;
};

/* The checksum of each record of a thread's file, from the stream it was written with. */
static int rsq_sum_records(struct rsq_ctx *rc, int tid, uint64_t seed)
{
	unsigned long nr_records = (unsigned long)(rc->p.file_size / rc->p.value_size);
	unsigned char *buf = malloc(rc->p.value_size);
	struct data_stream s;

	rc->sums[tid] = calloc(nr_records + 1, sizeof(uint64_t));
	if (!buf || !rc->sums[tid]) {
		fprintf(stderr, "mmlab: readseq: out of memory for the checksums of %lu records\n", nr_records);
		free(buf);
		return -1;
	}
	data_stream_init(&s, seed, tid);
	for (unsigned long rec = 0; rec < nr_records; rec++) {
		data_stream_fill(&s, buf, rc->p.value_size);
		rc->sums[tid][rec] = record_sum(buf, rc->p.value_size);
	}
	free(buf);
	return 0;
}

/* Write a thread's backing file and the checksum of each of its records. */
static int rsq_make_file(struct rsq_ctx *rc, int tid, uint64_t seed)
{
	rc->fds[tid] = data_file_create("readseq", rc->p.file_size, seed, tid);
	if (rc->fds[tid] < 0)
		return -1;
	return rsq_sum_records(rc, tid, seed);
}

static void rsq_free(struct rsq_ctx *rc)
{
	for (int i = 0; i < rc->max_threads; i++) {
		if (rc->fds && rc->fds[i] >= 0)
			close(rc->fds[i]);
		if (rc->sums)
			free(rc->sums[i]);
	}
	free(rc->fds);
	free(rc->sums);
	free(rc);
}

static int rsq_prepare(struct exp_ctx *ctx)
{
	const struct opt_value *threads = exp_opt(ctx, "threads");
	struct rsq_ctx *rc = calloc(1, sizeof(*rc));
	unsigned long long need;

	if (!rc)
		return -1;
	rc->p.file_size = (unsigned long long)exp_opt(ctx, "file-size")->i;
	rc->p.value_size = (unsigned int)exp_opt(ctx, "value-size")->i;
	rc->p.ra_pages = (unsigned int)exp_opt(ctx, "ra-pages")->i;
	rc->p.async_io = exp_opt(ctx, "io")->choice == 0;
	rc->p.latency_ns = (unsigned long long)(exp_opt(ctx, "device-latency")->d * 1000);
	rc->p.device_bytes_per_sec = (unsigned long long)exp_opt(ctx, "device-mbps")->i * 1000000;
	/* In virtual time a delay loop is a virtual nanosecond. */
	rc->p.latency_loops = (unsigned long)(exp_opt(ctx, "device-latency")->d * 1000 *
					      exp_delay_loops_per_ns(ctx));
	/* Where the machine counts (virtual time), its counters say why, not an event build's. */
	rc->events = exp_event_run(ctx, exp_opt(ctx, "events")->choice == 0);
	rc->p.shared_files = exp_opt(ctx, "files")->choice == 0;
	rc->p.readahead = (enum rsq_readahead)exp_opt(ctx, "readahead")->choice;
	for (int i = 0; i < threads->nr_list; i++)
		if (threads->list[i] > rc->max_threads)
			rc->max_threads = (int)threads->list[i];

	if (rc->p.device_bytes_per_sec && !rc->p.async_io) {
		fprintf(stderr, "mmlab: --device-mbps %lld needs --io async (a synchronous reader spends "
			"only --device-latency); valid: --device-mbps 0 with --io sync\n",
			exp_opt(ctx, "device-mbps")->i);
		free(rc);
		return -1;
	}
	if (rc->p.file_size % rc->p.value_size || rc->p.value_size % 8) {
		fprintf(stderr, "mmlab: --file-size %llu must be a multiple of --value-size %u, itself a multiple of 8\n",
			rc->p.file_size, rc->p.value_size);
		free(rc);
		return -1;
	}
	/* The page cache must hold every file: there is no reclaim. */
	need = rc->p.file_size * (unsigned long long)rc->max_threads;
	if (need > ctx->mem_bytes / 10 * 9) {
		fprintf(stderr, "mmlab: --threads %d x --file-size %llu needs %llu bytes of page cache, more than "
			"90%% of --mem (%llu bytes); valid: threads x file-size <= %llu\n", rc->max_threads,
			rc->p.file_size, need, ctx->mem_bytes, ctx->mem_bytes / 10 * 9);
		free(rc);
		return -1;
	}
	if (exp_points_from_list(ctx, "threads", "threads")) {
		free(rc);
		return -1;
	}
	/*
	 * The readers are the machine's CPUs.  A simulated machine follows
	 * each cache line touched: a struct page per page cached, and more.
	 */
	if (exp_check_threads(ctx)) {
		free(rc);
		return -1;
	}
	if (ctx->machine->max_page_cache && need > ctx->machine->max_page_cache) {
		fprintf(stderr, "mmlab: --threads %d x --file-size %llu: more page cache than the simulated "
			"machine follows; valid with --machine: threads x file-size <= %llu\n",
			rc->max_threads, rc->p.file_size, ctx->machine->max_page_cache);
		free(rc);
		return -1;
	}
	rc->fds = malloc(sizeof(int) * (size_t)rc->max_threads);
	rc->sums = calloc((size_t)rc->max_threads, sizeof(uint64_t *));
	if (!rc->fds || !rc->sums) {
		rsq_free(rc);
		return -1;
	}
	for (int i = 0; i < rc->max_threads; i++)
		rc->fds[i] = -1;
	for (int i = 0; i < rc->max_threads; i++) {
		if (rsq_make_file(rc, i, ctx->seed)) {
			rsq_free(rc);
			return -1;
		}
	}
	rc->p.fds = rc->fds;
	rc->p.record_sums = (const uint64_t *const *)rc->sums;
	ctx->priv = rc;
	return 0;
}

/*
 * Boot @k for @nr readers, make the files, read every file once with the
 * readers (on a simulated machine with --io async the device is an agent
 * of the run, its kthread), tear down, check.  @vm_events (NULL: not
 * counted) gets the vm events the readers counted; the window in @st.
 */
static int rsq_run_model(struct exp_ctx *ctx, const struct mm_kernel *k, int nr,
			 struct rsq_thread *threads, unsigned long *vm_events,
			 struct machine_stats *st, struct sample *out)
{
	struct rsq_ctx *rc = ctx->priv;
	struct rsq_params p = rc->p;
	struct exp_threads t = {
		.k = k, .who = k->name, .nr = nr, .params = &p,
		.threads = threads, .thread_size = sizeof(*threads), .vm_events = vm_events,
	};

	p.nr_threads = nr;
	for (int i = 0; i < nr; i++) {
		lat_hist_reset(threads[i].hist);
		threads[i] = (struct rsq_thread){ .tid = i, .hist = threads[i].hist };
	}
	if (exp_boot_threads(ctx, &t, out))
		return -1;
	*st = t.st;
	return 0;
}

static void rsq_add_event_counters(struct sample *out, const struct mm_kernel *k,
				   const unsigned long *ev)
{
	unsigned long lock_adds = exp_vm_event(k, ev, "filemap_xa_lock_add");
	unsigned long folios = exp_vm_event(k, ev, "filemap_folios_added");

	sample_counter(out, "xa_lock_acquisitions", (double)lock_adds);
	sample_counter(out, "xa_lock_held_ns", (double)exp_vm_event(k, ev, "filemap_xa_lock_ns"));
	sample_counter(out, "folios_inserted", (double)folios);
	sample_counter(out, "folios_per_lock_hold", lock_adds ? (double)folios / lock_adds : 0);
	sample_counter(out, "read_requests", (double)exp_vm_event(k, ev, "filemap_read_requests"));
	sample_counter(out, "ra_fallbacks", (double)exp_vm_event(k, ev, "filemap_ra_fallback"));
}

static int rsq_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
		       struct exp_point *p, int rep, struct sample *out)
{
	const struct rsq_impl *impl = v->impl;
	struct rsq_ctx *rc = ctx->priv;
	int nr = (int)p->arg;
	struct rsq_thread *threads = calloc((size_t)nr, sizeof(*threads));
	struct lat_hist *total = lat_hist_new();
	unsigned long *vm_events = NULL, ops = 0, bad = 0;
	struct machine_stats st;
	int ret = -1;

	if (!threads || !total)
		goto out;
	for (int i = 0; i < nr; i++)
		if (!(threads[i].hist = lat_hist_new()))
			goto out;
	if (rsq_run_model(ctx, exp_build(ctx, impl->timed), nr, threads, NULL, &st, out))
		goto out;
	for (int i = 0; i < nr; i++) {
		ops += threads[i].ops;
		bad += threads[i].bad_records;
		lat_hist_merge(total, threads[i].hist);
	}
	out->value = ops / (st.end_ns * 1e-9);
	sample_latency_metrics(out, total, "lat");
	sample_counter(out, "ops", (double)ops);
	sample_counter(out, "bad_records", (double)bad);
	if (bad)
		sample_fail(out, true, "%s: %lu of %lu records differ from the backing file", v->name, bad, ops);
	if (st.counted)
		sample_counter(out, "virtual_ns", st.end_ns);
	exp_machine_counters(out, &st, (double)ops, "share_device_pct");

	/* Lock counters come from a separate, untimed run of the event build. */
	if (rep == 0 && rc->events) {
		vm_events = exp_vm_events_alloc(impl->events);
		if (!vm_events || rsq_run_model(ctx, impl->events, nr, threads, vm_events, &st, out))
			goto out;
		rsq_add_event_counters(out, impl->events, vm_events);
	}
	ret = 0;
out:
	free(vm_events);
	if (threads)
		for (int i = 0; i < nr; i++)
			lat_hist_free(threads[i].hist);
	lat_hist_free(total);
	free(threads);
	return ret;
}

static void rsq_finish(struct exp_ctx *ctx)
{
	rsq_free(ctx->priv);
	ctx->priv = NULL;
}

const struct experiment exp_readseq = {
	.name = "readseq",
	.seed = "002_f78720821c8dd90a.txt",
	.desc = "sequential reads through readahead and the page cache: ops/s and latency percentiles",
	.options = rsq_options,
	.nr_options = sizeof(rsq_options) / sizeof(rsq_options[0]),
	.variants = rsq_variants,
	.nr_variants = sizeof(rsq_variants) / sizeof(rsq_variants[0]),
	.metric = "ops_per_sec",
	.unit = "ops/s",
	.higher_is_better = true,
	.extra_metrics = rsq_metrics,
	.nr_extra_metrics = sizeof(rsq_metrics) / sizeof(rsq_metrics[0]),
	.point_header = "#threads",
	.workload = "readseq",
	.virtual_time = true,
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 10 },
	.prepare = rsq_prepare,
	.run_one = rsq_run_one,
	.finish = rsq_finish,
};
