/*
 * COST LEDGER (seed 004; docs/design/seed-004-reclaim-large.md, "Address spaces, page tables and
 * rmap" and "Reclaim").
 *
 * Timed: one memory_reclaim(--reclaim) call, a write to memory.reclaim:
 * rounds of try_to_free_pages() over the LRU, lru_add_drain(), isolation,
 * folio_referenced() and try_to_unmap(TTU_BATCH_FLUSH) over each folio
 * (an rmap walk of --processes address spaces), __remove_mapping(), and
 * per batch the deferred TLB flush and the free.  Not timed: the boot,
 * mapping the file, faulting it in and touching every page, the checks
 * and digests after the call, and the event build's separate counting
 * run (--events), whose clock reads give referenced_usec and unmap_usec.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the TLB: there is none, and no IPI is ever sent.  A synchronous flush
 *    (flush_tlb_range(), the unfold of a contiguous block, reclaim's final
 *    flush of a batch where some CPU must flush) is a busy loop of
 *    --tlb-flush-ns.  On x86 that final flush interrupts only a CPU still
 *    running a mapping process: --mapper sleeping (the default: each
 *    process ran on a CPU of its own and went to sleep there, lazy TLB)
 *    makes it free, --mapper running a shootdown per batch.  An arm64 TLBI
 *    issued without waiting costs --tlbi-ns, one per page unless
 *    --tlbi-range on.  Both default to the machine file's tlb.flush and
 *    tlb.tlbi where it gives them, else to 1000 and 50 ns (assumed).
 *    --tlb-flush-ns 0 --tlbi-ns 0 shows the CPU work alone.  The per-call
 *    bookkeeping of a deferred flush is charged (the locked increments,
 *    the CPU-mask merge).
 *  - contiguous PTE blocks: --contpte on (arm64) and off (x86-64), one
 *    point each.  Re-folding after a partial change (contpte_try_fold) and
 *    BBML2 are not modelled.  No option.
 *  - memcg: memory.reclaim is a cgroup file, and the series' test ran in
 *    a cgroup: with --memcg on (the default) the file is charged to one
 *    under the root, every statistic kept for its folios is the cgroup's
 *    too (linux/memcontrol.h), and the freed batches are uncharged.  Its
 *    LRU is still the node's (one list, the same walk), and reclaim by
 *    limit, events and the stat flush are not modelled.  --memcg off.
 *  - the folios' sizes: the faults read ahead as filemap_fault() does, so
 *    readahead sizes them (order 5 past the first windows at --ra-kb 128,
 *    at most --folio-order); the mmap_miss throttle is not modelled.
 *    --ra-kb 0 makes every folio of --folio-order instead.
 *  - MGLRU: not modelled, the classic two-list LRU runs.  No option.
 *  - writeback, swap, PG_reclaim and throttling: none; the file is clean,
 *    as in the series' test.
 *  - the size of the machine: pcp lists and vmstat thresholds follow the
 *    CPUs at boot, two by default (the reclaiming one and the one the
 *    mapping process ran on).  --cpus N; reclaim runs on one CPU.
 *  - the memory system is the host's own.  --machine yitian710-32c or
 *    xeon-8369b-2s (seed 004's machines) predicts the call in virtual
 *    time, the TLB delays then virtual; the event build is not run there.
 *
 * reclaim-large (seed 004, "support batch checking of references and
 * unmapping for large folios"): map a file of clean large folios, fault
 * it all in, and ask memory_reclaim() for most of it, as the series' own
 * test does through memory.reclaim; time of that call per design.
 * Reclaim runs folio_referenced() and try_to_unmap() over every folio: one
 * PTE at a time before the series, one run of PTEs at a time after it, with
 * contiguous PTE blocks (arm64) or without (x86-64).
 *
 * Every design starts from the same state and must end in the same one:
 * the digest of what is cached and of every PTE after reclaim is compared
 * across variants at each point.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <machine/machine.h>
#include <mmlab/data_file.h>
#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/lab.h>
#include <mmlab/workloads/reclaim_large.h>
#include "common.h"

#define RL_PAGE_SIZE	4096ULL
/*
 * What --mem must hold besides the file's pages, estimated: 1/32 of them
 * more and a fixed part.  More processes need more page tables: rl_run()
 * says -ENOMEM if they do not fit.
 */
#define RL_MEM_FIXED	(64ULL << 20)
#define RL_MAP_MIN	(2ULL << 20)	/* a multiple of every folio size up to order 9 */
/* The TLB costs where neither the option nor the machine gives one: assumed. */
#define RL_TLB_FLUSH_NS	1000
#define RL_TLBI_NS	50

struct rl_impl {
	const struct mm_kernel *timed;
	const struct mm_kernel *events;
};

static const struct rl_impl impl_vanilla = { &mm_kernel_vanilla_run, &mm_kernel_vanilla_ev };
static const struct rl_impl impl_referenced = { &mm_kernel_rmap_batched_referenced_run,
						&mm_kernel_rmap_batched_referenced_ev };
static const struct rl_impl impl_batched = { &mm_kernel_rmap_batched_run, &mm_kernel_rmap_batched_ev };

static const struct exp_variant rl_variants[] = {
	{ "vanilla", "folio_referenced_one and try_to_unmap_one one PTE at a time", &impl_vanilla },
	{ "batched-referenced", "patches 1-4: young bits of a folio's PTE run tested and cleared at once "
	  "(clear_flush_young_ptes, contpte-aware)", &impl_referenced },
	{ "batched", "whole series: also unmaps a file folio's PTE run at once (folio_unmap_pte_batch), "
	  "counters by nr", &impl_batched },
};

static const struct exp_option rl_options[] = {
	{ "folio-order", OPT_INT, "the file's largest folio order (9, PMD-sized, is the kernel's "
	  "MAX_PAGECACHE_ORDER with 4 KiB pages); with --ra-kb 0 the order of every folio",
	  { [SCALE_DEFAULT] = "9" }, 0, 9 },
	{ "ra-kb", OPT_INT, "the file's read_ahead_kb: the faults read ahead as mmap does and readahead "
	  "sizes the folios, at most ilog2 of the window (128 gives order 5, 128 KiB); 0: no readahead, "
	  "every folio of --folio-order; a multiple of 4",
	  { [SCALE_DEFAULT] = "128" }, 0, 4096 },
	{ "map-size", OPT_SIZE, "bytes of the file mapped and faulted in",
	  { [SCALE_TINY] = "64M", [SCALE_DEFAULT] = "1G", [SCALE_FULL] = "10G" }, RL_MAP_MIN, 64ULL << 30 },
	{ "reclaim", OPT_SIZE, "bytes asked of memory_reclaim()",
	  { [SCALE_TINY] = "48M", [SCALE_DEFAULT] = "800M", [SCALE_FULL] = "8G" }, 4096, 64ULL << 30 },
	{ "contpte", OPT_CHOICE_LIST, "contiguous PTE blocks: on (arm64) or off (x86-64), one point each",
	  { [SCALE_DEFAULT] = "on,off" }, 0, 0, "on,off" },
	{ "tlb-flush-ns", OPT_INT, "cost of one synchronous TLB flush (IPI shootdown / TLBI+DSB); auto: the "
	  "machine file's tlb.flush where it gives one, else 1000 (assumed)",
	  { [SCALE_DEFAULT] = "auto" }, 0, 1000000, "auto" },
	{ "tlbi-ns", OPT_INT, "cost of one arm64 TLBI issued without waiting; auto: the machine file's "
	  "tlb.tlbi where it gives one, else 50 (assumed)",
	  { [SCALE_DEFAULT] = "auto" }, 0, 100000, "auto" },
	{ "tlbi-range", OPT_CHOICE, "arm64 range TLBI (FEAT_TLBIRANGE): on, one TLBI per range; off, one per page",
	  { [SCALE_DEFAULT] = "off" }, 0, 0, "off,on" },
	{ "processes", OPT_INT, "address spaces mapping the whole file (rmap walk length)",
	  { [SCALE_DEFAULT] = "1" }, 1, 64 },
	{ "data", OPT_CHOICE, "on: the file has contents, compared with the pages still mapped after reclaim",
	  { [SCALE_DEFAULT] = "on", [SCALE_FULL] = "off" }, 0, 0, "on,off" },
	{ "events", OPT_CHOICE, "run the event build once per point for the rmap counters",
	  { [SCALE_DEFAULT] = "on" }, 0, 0, "on,off" },
	{ "memcg", OPT_CHOICE, "on: the file is charged to a cgroup, as the series' test ran in one (every "
	  "mapped-page statistic is the cgroup's too); off: no cgroup (cgroup_disable=memory)",
	  { [SCALE_DEFAULT] = "on" }, 0, 0, "on,off" },
	{ "mapper", OPT_CHOICE, "where the mapping processes are while reclaim runs: sleeping (each ran on a CPU "
	  "of its own and went to sleep; x86's deferred flush interrupts no one) or running (each deferred "
	  "x86 flush is a shootdown of their CPUs)",
	  { [SCALE_DEFAULT] = "sleeping" }, 0, 0, "sleeping,running" },
	{ "cpus", OPT_INT, "CPUs the machine is sized for at boot (pcp lists, vmstat thresholds); reclaim runs on one, "
	  "the mapping processes ran on the others",
	  { [SCALE_DEFAULT] = "2" }, 2, 256 },
};

/* The end state of the first sample at a point, which every other must reach. */
struct rl_digest {
	bool set;
	uint64_t value;
	const char *variant;
};

struct rl_ctx {
	struct rl_params p;		/* all but contpte, which is the point's */
	bool events;
	struct rl_digest digest[MAX_POINTS];
};

/*
 * The file's pages, 1/32 more for the first process's page tables and the
 * rest, a fixed part, and for every further process its own page tables
 * (a PTE table per 2 MiB: 1/512, counted twice over for safety) and upper
 * levels.
 */
#define RL_MEM_PER_MM	(64ULL << 10)

static unsigned long long rl_mem_needed(unsigned long long map_size, int processes)
{
	unsigned long long more = (unsigned long long)(processes - 1);

	return map_size + map_size / 32 + RL_MEM_FIXED + more * (map_size / 256 + RL_MEM_PER_MM);
}

/* The largest --map-size @mem holds for @processes, in whole RL_MAP_MIN; 0 if none. */
static unsigned long long rl_max_map_size(unsigned long long mem, int processes)
{
	unsigned long long more = (unsigned long long)(processes - 1);
	unsigned long long fixed = RL_MEM_FIXED + more * RL_MEM_PER_MM;

	if (mem < fixed)
		return 0;
	return (mem - fixed) / (264 + more) * 256 / RL_MAP_MIN * RL_MAP_MIN;
}

static int rl_check_mem(const struct exp_ctx *ctx, const struct rl_params *p)
{
	unsigned long long max = rl_max_map_size(ctx->mem_bytes, p->nr_processes);
	char need[64], mem[64], valid[96], procs[64] = "";

	if (rl_mem_needed(p->map_size, p->nr_processes) <= ctx->mem_bytes)
		return 0;
	if (max >= RL_MAP_MIN) {
		lab_format_size(need, sizeof(need), max);
		snprintf(valid, sizeof(valid), "--map-size up to %s", need);
	} else {
		lab_format_size(need, sizeof(need), rl_mem_needed(RL_MAP_MIN, p->nr_processes));
		snprintf(valid, sizeof(valid), "none: --mem must be at least %s", need);
	}
	if (p->nr_processes > 1)
		snprintf(procs, sizeof(procs), " + page tables of %d more processes", p->nr_processes - 1);
	lab_format_size(need, sizeof(need), rl_mem_needed(p->map_size, p->nr_processes));
	lab_format_size(mem, sizeof(mem), ctx->mem_bytes);
	fprintf(stderr, "mmlab: --map-size %s needs --mem of at least %s (map-size + map-size/32 + 64M%s), "
		"more than --mem %s; valid at this --mem: %s\n", exp_opt(ctx, "map-size")->text, need, procs,
		mem, valid);
	return -1;
}

/*
 * The order of the file's folios past its first windows: readahead grows
 * them two orders a window up to ilog2 of the window, at most the
 * mapping's largest; without readahead, the mapping's order throughout.
 */
static unsigned int rl_folio_order(const struct rl_params *p)
{
	unsigned int order = 0;

	if (!p->ra_pages)
		return p->folio_order;
	while (order < p->folio_order && (2U << order) <= p->ra_pages)
		order++;
	return order;
}

static int rl_check_sizes(const struct exp_ctx *ctx, const struct rl_params *p)
{
	unsigned long long folio_size = RL_PAGE_SIZE << rl_folio_order(p);

	if (p->reclaim_size > p->map_size) {
		fprintf(stderr, "mmlab: --reclaim %s is more than --map-size %s: only the mapped file can be "
			"reclaimed; valid: --reclaim up to --map-size\n", exp_opt(ctx, "reclaim")->text,
			exp_opt(ctx, "map-size")->text);
		return -1;
	}
	if (exp_opt(ctx, "ra-kb")->i % 4) {
		fprintf(stderr, "mmlab: --ra-kb %s is not a whole number of 4 KiB pages; valid: a multiple "
			"of 4 in 0..4096\n", exp_opt(ctx, "ra-kb")->text);
		return -1;
	}
	if (p->map_size % folio_size) {
		fprintf(stderr, "mmlab: --map-size %s is not a multiple of the folio size (order %u of "
			"--folio-order %u and --ra-kb %s: %llu bytes); valid: whole folios\n",
			exp_opt(ctx, "map-size")->text, rl_folio_order(p), p->folio_order,
			exp_opt(ctx, "ra-kb")->text, folio_size);
		return -1;
	}
	return rl_check_mem(ctx, p);
}

/*
 * A TLB cost in ns: the option's number, or with auto the machine's figure
 * where its description gives one, else the assumed @fallback.
 */
static double rl_tlb_ns(const struct exp_ctx *ctx, const char *opt, double machine_ns, double fallback)
{
	const struct opt_value *v = exp_opt(ctx, opt);

	if (v->choice != 0)
		return (double)v->i;
	return machine_ns >= 0 ? machine_ns : fallback;
}

static void rl_read_params(const struct exp_ctx *ctx, struct rl_params *p)
{
	double loops_per_ns = exp_delay_loops_per_ns(ctx);

	p->folio_order = (unsigned int)exp_opt(ctx, "folio-order")->i;
	p->ra_pages = (unsigned int)(exp_opt(ctx, "ra-kb")->i / 4);
	p->map_size = (unsigned long long)exp_opt(ctx, "map-size")->i;
	p->reclaim_size = (unsigned long long)exp_opt(ctx, "reclaim")->i;
	p->tlb_flush_loops = (unsigned long)(rl_tlb_ns(ctx, "tlb-flush-ns", ctx->machine->tlb_flush_ns,
						       RL_TLB_FLUSH_NS) * loops_per_ns);
	p->tlbi_loops = (unsigned long)(rl_tlb_ns(ctx, "tlbi-ns", ctx->machine->tlbi_ns, RL_TLBI_NS) *
					loops_per_ns);
	p->tlbi_range = exp_opt(ctx, "tlbi-range")->choice == 1;
	p->nr_processes = (int)exp_opt(ctx, "processes")->i;
	p->memcg = exp_opt(ctx, "memcg")->choice == 0;
	p->mappers_running = exp_opt(ctx, "mapper")->choice == 1;
	p->fd = -1;
}

/* One point per --contpte word, each at most once: on is choice 0. */
static int rl_add_points(struct exp_ctx *ctx)
{
	const struct opt_value *contpte = exp_opt(ctx, "contpte");

	for (int i = 0; i < contpte->nr_list; i++) {
		struct exp_point *p = &ctx->points[i];
		bool on = contpte->list[i] == 0;

		for (int j = 0; j < i; j++) {
			if (ctx->points[j].arg == on) {
				fprintf(stderr, "mmlab: --contpte %s names '%s' twice; valid: on, off or on,off\n",
					contpte->text, on ? "on" : "off");
				return -1;
			}
		}
		p->arg = on;
		snprintf(p->json, sizeof(p->json), "{\"contpte\": \"%s\"}", on ? "on" : "off");
		snprintf(p->label, sizeof(p->label), "%s", on ? "on (arm64)" : "off (x86-64)");
	}
	ctx->nr_points = contpte->nr_list;
	return 0;
}

static int rl_prepare(struct exp_ctx *ctx)
{
	struct rl_ctx *rc = calloc(1, sizeof(*rc));

	if (!rc || exp_check_cpus(ctx)) {
		free(rc);
		return -1;
	}
	rl_read_params(ctx, &rc->p);
	rc->events = exp_opt(ctx, "events")->choice == 0;
	if (rl_check_sizes(ctx, &rc->p) || rl_add_points(ctx)) {
		free(rc);
		return -1;
	}
	if (exp_opt(ctx, "data")->choice == 0) {
		rc->p.fd = data_file_create("reclaim-large", rc->p.map_size, ctx->seed, 0);
		if (rc->p.fd < 0) {
			free(rc);
			return -1;
		}
	}
	ctx->priv = rc;
	return 0;
}

/* The checks of one finished rl_run() against what was asked of it. */
static void rl_check_result(const struct rl_params *p, const struct rl_result *r,
			    const char *who, struct sample *out)
{
	unsigned long long asked = p->reclaim_size / RL_PAGE_SIZE;

	if (p->fd >= 0 && r->data_mismatches)
		sample_fail(out, true, "%s: %lu of %lu pages still mapped differ from the backing file",
			    who, r->data_mismatches, r->mapped_pages);
	if (r->reclaimed_pages < asked)
		sample_fail(out, false, "%s: reclaim fell short: %lu pages reclaimed of %llu asked for "
			    "(%lu scanned, %lu activated, %lu kept)", who, r->reclaimed_pages, asked,
			    r->scanned_pages, r->activated_pages, r->kept_pages);
}

/*
 * Where reclaim's time goes: each counter and the timed span behind it
 * (include/linux/vm_time_list.h), read from the machine's span clock under
 * --machine and from the event build's vm events on the host.
 */
static const struct { const char *counter, *span; } rl_phases[] = {
	{ "referenced_usec", "rmap_referenced_ns" }, { "unmap_usec", "rmap_unmap_ns" },
	{ "isolate_usec", "reclaim_isolate_ns" }, { "remove_usec", "reclaim_remove_ns" },
	{ "free_usec", "reclaim_free_ns" }, { "putback_usec", "reclaim_putback_ns" },
	{ "list_usec", "reclaim_list_ns" },
};

/*
 * Boot @k's machine, run one sample on it, check the machine, shut it
 * down.  @vm_events (NULL: not counted) gets the vm events of the
 * memory_reclaim() call.  0, 1 if rl_run() failed a check (recorded in
 * @out), or -1 if the sample could not run.
 */
static int rl_boot_run(struct exp_ctx *ctx, const struct exp_variant *v, const struct mm_kernel *k,
		       const struct rl_params *params, struct rl_result *r, unsigned long *vm_events,
		       struct sample *out)
{
	struct rl_params p = *params;
	const char *who = k->events ? sample_name("%s (event build)", v->name) : v->name;
	struct exp_run run = { .k = k, .params = &p, .result = r };
	struct machine_stats st;

	memset(r, 0, sizeof(*r));
	p.vm_events = vm_events;
	if (exp_boot_run(ctx, &run, who, (int)exp_opt(ctx, "cpus")->i, 0, &st, out))
		return -1;
	if (!run.err)
		rl_check_result(&p, r, who, out);
	exp_run_end(ctx, &run, who, &st, (double)(r->reclaimed_pages >> rl_folio_order(&p)), out);
	if (st.counted)
		for (size_t i = 0; i < sizeof(rl_phases) / sizeof(rl_phases[0]); i++)
			sample_counter(out, rl_phases[i].counter,
				       exp_machine_span_ns(k, &st, rl_phases[i].span) / 1e3);
	return run.err ? 1 : 0;
}

static void rl_add_counters(struct sample *out, const struct rl_result *r)
{
	sample_counter(out, "reclaimed_pages", (double)r->reclaimed_pages);
	sample_counter(out, "scanned_pages", (double)r->scanned_pages);
	sample_counter(out, "activated_pages", (double)r->activated_pages);
	sample_counter(out, "kept_pages", (double)r->kept_pages);
	sample_counter(out, "mapped_pages", (double)r->mapped_pages);
	sample_counter(out, "referenced_calls", (double)r->referenced_calls);
	sample_counter(out, "unmap_calls", (double)r->unmap_calls);
	sample_counter(out, "tlb_flushes", (double)r->tlb_flushes);
	sample_counter(out, "tlb_pages_flushed", (double)r->tlb_pages_flushed);
	sample_counter(out, "tlb_syncs", (double)r->tlb_syncs);
	sample_counter(out, "tlb_shootdowns", (double)r->tlb_shootdowns);
}

static void rl_add_event_counters(struct sample *out, const struct mm_kernel *k,
				  const unsigned long *ev)
{
	sample_counter(out, "ptes_visited", (double)exp_vm_event(k, ev, "pte_rmw"));
	sample_counter(out, "rmap_walks", (double)exp_vm_event(k, ev, "rmap_walks"));
	sample_counter(out, "rmap_vmas", (double)exp_vm_event(k, ev, "rmap_vmas"));
	sample_counter(out, "pvmw_hits", (double)exp_vm_event(k, ev, "rmap_pvmw_hits"));
	sample_counter(out, "batches", (double)exp_vm_event(k, ev, "rmap_batches"));
	for (size_t i = 0; i < sizeof(rl_phases) / sizeof(rl_phases[0]); i++)
		sample_counter(out, rl_phases[i].counter, exp_vm_event(k, ev, rl_phases[i].span) / 1e3);
}

/* Every design, from the same state and seed, must leave the same pages and PTEs. */
static void rl_check_digest(struct rl_digest *d, const struct exp_variant *v,
			    const struct rl_result *r, struct sample *out)
{
	if (!d->set) {
		*d = (struct rl_digest){ true, r->digest, v->name };
		return;
	}
	if (r->digest != d->value)
		sample_fail(out, false, "%s: digest %016llx of the cached pages and PTEs after reclaim "
			    "differs from %s's %016llx", v->name, (unsigned long long)r->digest,
			    d->variant, (unsigned long long)d->value);
}

static int rl_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
		      struct exp_point *p, int rep, struct sample *out)
{
	const struct rl_impl *impl = v->impl;
	struct rl_ctx *rc = ctx->priv;
	struct rl_params params = rc->p;
	struct rl_digest *digest = &rc->digest[p - ctx->points];
	struct rl_result r, ev;
	/* Where the machine counts (virtual time), its counters replace the event build's. */
	bool have_events = rep == 0 && exp_event_run(ctx, rc->events);
	unsigned long *vm_events = NULL;
	int ret;

	params.contpte = p->arg;
	/* Event counters come from a separate, untimed run of the event build. */
	if (have_events) {
		vm_events = exp_vm_events_alloc(impl->events);
		ret = vm_events ? rl_boot_run(ctx, v, impl->events, &params, &ev, vm_events, out) : -1;
		if (ret < 0)
			goto out;
		if (!ret)
			rl_check_digest(digest, v, &ev, out);
	}
	ret = rl_boot_run(ctx, v, exp_build(ctx, impl->timed), &params, &r, NULL, out);
	if (ret < 0)
		goto out;
	out->value = r.usec;
	/* The seed's own numbers are seconds to reclaim 8 GiB: time a page reclaimed. */
	sample_counter(out, "ns_per_reclaimed_page",
		       r.reclaimed_pages ? r.usec * 1000.0 / (double)r.reclaimed_pages : 0);
	rl_add_counters(out, &r);
	if (have_events)
		rl_add_event_counters(out, impl->events, vm_events);
	if (!ret)
		rl_check_digest(digest, v, &r, out);
	ret = 0;
out:
	free(vm_events);
	return ret < 0 ? -1 : 0;
}

static void rl_finish(struct exp_ctx *ctx)
{
	struct rl_ctx *rc = ctx->priv;

	if (rc->p.fd >= 0)
		close(rc->p.fd);
	free(rc);
	ctx->priv = NULL;
}

const struct experiment exp_reclaim_large = {
	.name = "reclaim-large",
	.seed = "004_d709c66f3e505c38.txt",
	.desc = "reclaim most of a large set of mapped, clean file-backed large folios: time per variant",
	.options = rl_options,
	.nr_options = sizeof(rl_options) / sizeof(rl_options[0]),
	.variants = rl_variants,
	.nr_variants = sizeof(rl_variants) / sizeof(rl_variants[0]),
	.metric = "usec",
	.unit = "usec",
	.higher_is_better = false,
	.workload = "reclaim_large",
	.virtual_time = true,
	.point_header = "#contpte",
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 5 },
	.default_mem = { [SCALE_TINY] = "256M", [SCALE_DEFAULT] = "1536M", [SCALE_FULL] = "11G" },
	.prepare = rl_prepare,
	.run_one = rl_run_one,
	.finish = rl_finish,
};
