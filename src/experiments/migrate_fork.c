/*
 * COST LEDGER (seed 003; docs/design/seed-003-migrate-fork.md, "The cost
 * ledger", has the evidence).
 *
 * Timed: do_mbind(parent, buffer, node 1, MPOL_MF_MOVE) alone, from
 * lru_cache_disable() to lru_cache_enable(): queue_pages_range() (PTE lock
 * per table, folio_isolate_lru() per folio under the LRU lock),
 * migrate_pages() (alloc_migration_target() from node 1's pcp and buddy
 * lists, folio locks, folio_get_anon_vma(), try_to_migrate() with its rmap
 * walk and batched flush, move_to_new_folio() with the copy through the
 * machine's memory hierarchy, remove_migration_ptes(), the source freed).
 * Not timed: the setup (faults, forks, COW) and the checks.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the first touch of a target frame in a fresh KVM guest (EPT violation,
 *    host fault, host page zeroed): mf_warm_target() used to pre-touch them.
 *    --target-touch cold (default: the RFC's fresh QEMU guest) charges it at
 *    the copy, the target's first write: --first-touch-ns per host page
 *    (default machine: the machine file's mem.first_touch, qemu-2node's 2000
 *    assumed, VM exit and entry plus KVM's and the host's fault path, about
 *    1 us each; machines/SOURCES.md "qemu-2node") plus the host's zeroing of
 *    the host page, a memset through the memory model; --host-page (default
 *    machine: mem.backing, qemu-2node's 2M: QEMU madvises guest RAM
 *    MADV_HUGEPAGE in ram_block_add(), and the host's THP default, "always"
 *    upstream and "madvise" on Ubuntu, honours it) or 4K.  A machine file
 *    without the keys has its RAM backed from the start: nothing to pay.
 *    On the host the lab's own memory is backed at its first touch for
 *    real, so nothing is added there (host-model's mem.first_touch is that
 *    touch, measured by mmlab calibrate).  --target-touch warm: free.
 *  - lru_cache_disable(): synchronize_rcu_expedited() and
 *    __lru_add_drain_all(true), a drain queued on and flushed from every CPU
 *    with batched folios; the model drains in place.  --lru-disable-ns
 *    (default 30000, assumed: an expedited grace period's IPIs to 3 other
 *    vCPUs, each a VM exit, plus 4 queue_work_on()/flush_work() round trips
 *    with kworker wake-ups, each some microseconds in a guest), once a call.
 *  - mem_cgroup_migrate() in folio_migrate_flags() and the uncharge when the
 *    source is freed: no cgroup is charged here.  --memcg-ns per folio
 *    (default 200, assumed: two short paths of per-CPU counter updates with
 *    interrupts off, about 100 ns each; a systemd guest runs the test in a
 *    memory cgroup).
 *  - THP: the model faults small folios unless --thp always (default never:
 *    the RFC's test does not madvise, Ubuntu's kernels default THP to
 *    "madvise", and CONFIG_TRANSPARENT_HUGEPAGE is off by default); always
 *    maps 2 MiB folios (PTE-mapped: the model has no PMD mappings) where a
 *    whole one fits: 2 of the 5 MiB buffer at a 2 MiB-aligned address
 *    (--offset 0, the default, as mmap() aligned it from 6.7 to 6.12), 1
 *    where it starts less than 1 MiB past a boundary (--offset, since 6.13
 *    a 5 MiB mapping is not aligned: one or two by where it lands).
 *  - the TLB: there is none, and no IPI is sent.  The parent runs on the
 *    migrating CPU and no other CPU has its mm, so x86 does not defer the
 *    unmap's flush (should_defer_flush()): each entry is flushed at once, a
 *    local one-page flush in the kernel.  --tlb-flush-ns per flush waited
 *    for; 0, the default, charges none.
 *  - Modelled, not left out: folio_mc_copy() as memcpy
 *    (on x86 copy_mc_to_kernel() is rep movs unless the CPU needs
 *    copy_mc_fragile), the PTE and anon_vma locks uncontended.
 *  - Still left out, no option: perf's own sampling overhead in the RFC's
 *    runs, the guest's two-dimensional page walks on TLB misses, other
 *    guest activity.
 *
 * migrate-fork (seed 003, "introduce PGTY_mgt_entry page_type"): the RFC's
 * test.  A parent faults in an anonymous buffer on node 0 and forks many
 * children, each of which writes (copies) a share of it; then the parent
 * moves the buffer to node 1 with mbind(MPOL_MF_MOVE).  Time of that call
 * per design.  After a full COW each parent folio is mapped once but its
 * anon_vma tree holds every child's VMA: try_to_migrate() stops after the
 * parent's, vanilla's remove_migration_ptes() visits all of them, the
 * designs stop once no migration entry is left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/lab.h>
#include <mmlab/workloads/migrate_fork.h>
#include "common.h"

#define MF_PAGE_SIZE	4096ULL
#define MF_MEM_FIXED	(64ULL << 20)
#define MF_MEM_PER_MM	(64ULL << 10)	/* page tables and the rest of one process */

struct mf_impl {
	const struct mm_kernel *timed;
	const struct mm_kernel *events;
};

static const struct mf_impl impl_vanilla = { &mm_kernel_vanilla_run, &mm_kernel_vanilla_ev };
static const struct mf_impl impl_mgt_entry = { &mm_kernel_mgt_entry_run, &mm_kernel_mgt_entry_ev };
static const struct mf_impl impl_mgt_counter = { &mm_kernel_mgt_counter_run, &mm_kernel_mgt_counter_ev };

static const struct exp_variant mf_variants[] = {
	{ "vanilla", "remove_migration_ptes visits every VMA of the anon_vma tree", &impl_vanilla },
	{ "mgt-entry", "the RFC: PGTY_mgt_entry in the unmapped small folio's mapcount counts its "
	  "migration entries; the restore stops at 0", &impl_mgt_entry },
	{ "mgt-counter", "David Hildenbrand's shape: a separate counter (page_ext), kept as each entry "
	  "is made and removed, large folios too; the restore stops at 0", &impl_mgt_counter },
};

static const struct exp_option mf_options[] = {
	{ "size", OPT_SIZE, "bytes of the parent's anonymous buffer",
	  { [SCALE_TINY] = "1M", [SCALE_DEFAULT] = "5M" }, 64 << 10, 1ULL << 30 },
	{ "children", OPT_INT_LIST, "children forked after the buffer is faulted in, one point each",
	  { [SCALE_TINY] = "10", [SCALE_DEFAULT] = "1000" }, 0, 4000 },
	{ "cow", OPT_DOUBLE, "share of the buffer each child writes (copies), from its start",
	  { [SCALE_DEFAULT] = "1" }, 0, 1 },
	{ "folio-order", OPT_INT, "order of the anonymous folios (mgt-entry counts only order 0)",
	  { [SCALE_DEFAULT] = "0" }, 0, 9 },
	{ "nodes", OPT_INT, "NUMA nodes of the machine (the buffer moves from node 0 to node 1)",
	  { [SCALE_DEFAULT] = "2" }, 2, 8 },
	{ "move-all", OPT_CHOICE, "MPOL_MF_MOVE_ALL: the pages still shared with children move too",
	  { [SCALE_DEFAULT] = "off" }, 0, 0, "off,on" },
	{ "thp", OPT_CHOICE, "transparent huge pages for the parent's buffer: never, or always (2 MiB "
	  "folios, PTE-mapped, where a whole one fits)", { [SCALE_DEFAULT] = "never" }, 0, 0, "never,always" },
	{ "offset", OPT_SIZE, "where the buffer starts past a 2 MiB boundary (its mmap() address modulo "
	  "2 MiB; with --thp always it decides how many whole 2 MiB ranges the buffer holds)",
	  { [SCALE_DEFAULT] = "0" }, 0, (2ULL << 20) - MF_PAGE_SIZE },
	{ "target-touch", OPT_CHOICE, "node 1's frames before the call: cold (untouched: where a host "
	  "beneath backs them, a first touch is charged at the copy) or warm (free)",
	  { [SCALE_DEFAULT] = "cold" }, 0, 0, "cold,warm" },
	{ "host-page", OPT_CHOICE, "the host page backing guest RAM, one first touch each; machine: the "
	  "machine file's mem.backing", { [SCALE_DEFAULT] = "machine" }, 0, 0, "machine,2M,4K" },
	{ "first-touch-ns", OPT_INT, "ns of a cold target's first touch per host page besides its zeroing "
	  "(EPT violation, host fault); machine: the machine file's mem.first_touch, none on the host, whose "
	  "first touches are real, or on a machine file without it, whose RAM is backed from the start",
	  { [SCALE_DEFAULT] = "machine" }, 0, 1000000, "machine" },
	{ "lru-disable-ns", OPT_INT, "ns of lru_cache_disable()'s expedited RCU grace period and drain on "
	  "every CPU, once a call (assumed)", { [SCALE_DEFAULT] = "30000" }, 0, 100000000 },
	{ "memcg-ns", OPT_INT, "ns of mem_cgroup_migrate() and the uncharge, per folio (assumed)",
	  { [SCALE_DEFAULT] = "200" }, 0, 100000 },
	{ "tlb-flush-ns", OPT_INT, "ns of each TLB flush the call waits for: x86 flushes each unmapped "
	  "entry of the parent at once, its mm being on the migrating CPU alone (0: not charged)",
	  { [SCALE_DEFAULT] = "0" }, 0, 100000 },
	{ "fast-forward", OPT_CHOICE, "under --machine, run the set-up without the caches until the last "
	  "children's copies, which write at least twice the caches' bytes and run in full, so the timed "
	  "call finds the caches as a full run leaves them (off: the whole set-up in full)",
	  { [SCALE_DEFAULT] = "on" }, 0, 0, "on,off" },
	{ "events", OPT_CHOICE, "run the event build once per point (on the host) for the walk counters and times (under --machine the walk counters only)",
	  { [SCALE_DEFAULT] = "on" }, 0, 0, "on,off" },
};

struct mf_ctx {
	struct mf_params p;		/* all but children, which is the point's */
	int nodes;
};

/*
 * Who backs a cold target at its first write, and at what cost: the
 * machine's mem.first_touch and mem.backing unless the options say.  On
 * the host (which gives neither) the first touches are real and nothing
 * is added; a simulated machine without the keys has its RAM backed from
 * the start.
 */
static int mf_host_backing(const struct exp_ctx *ctx, struct mf_params *p)
{
	const struct opt_value *ft = exp_opt(ctx, "first-touch-ns"), *hp = exp_opt(ctx, "host-page");
	const struct machine *m = ctx->machine;
	double ns = ft->choice == 0 ? m->first_touch_ns : (double)ft->i;

	p->host_backs = ns >= 0;
	if (!p->host_backs)
		return 0;
	p->first_touch_ns = (unsigned long)ns;
	if (hp->choice != 0) {
		p->host_page_order = hp->choice == 1 ? 9 : 0;
	} else if (m->first_touch_ns >= 0) {
		p->host_page_order = (unsigned int)m->backing_order;
	} else {
		fprintf(stderr, "mmlab: --host-page machine: %s gives no mem.backing for --first-touch-ns %s; "
			"valid: 2M or 4K\n", m->name, ft->text);
		return -1;
	}
	return 0;
}

/* Every process's copy plus the parent's buffer, the target's, page tables, a fixed part. */
static unsigned long long mf_mem_needed(const struct mf_params *p, int children, int nodes)
{
	unsigned long long copies = (unsigned long long)children * (unsigned long long)(p->cow * (double)p->size);
	unsigned long long need = copies + 2 * p->size + (unsigned long long)(children + 1) * MF_MEM_PER_MM +
				  MF_MEM_FIXED;

	/* Each node gets 1/nodes of --mem; node 1 must still hold the buffer. */
	(void)nodes;
	return need + need / 16;
}

static int mf_prepare(struct exp_ctx *ctx)
{
	struct mf_ctx *mc = calloc(1, sizeof(*mc));
	const struct opt_value *children;
	unsigned long long folio_size;
	char need[64], mem[64];

	if (!mc)
		return -1;
	mc->p.size = (unsigned long long)exp_opt(ctx, "size")->i;
	mc->p.cow = exp_opt(ctx, "cow")->d;
	mc->p.folio_order = (unsigned int)exp_opt(ctx, "folio-order")->i;
	mc->p.move_all = exp_opt(ctx, "move-all")->choice == 1;
	mc->nodes = (int)exp_opt(ctx, "nodes")->i;
	mc->p.thp = exp_opt(ctx, "thp")->choice == 1;
	mc->p.offset = (unsigned long)exp_opt(ctx, "offset")->i;
	if (mc->p.offset % MF_PAGE_SIZE) {
		fprintf(stderr, "mmlab: --offset %s is not a whole number of pages; valid: a multiple of "
			"4K in 0..%lluK\n", exp_opt(ctx, "offset")->text, ((2ULL << 20) - MF_PAGE_SIZE) >> 10);
		goto fail;
	}
	mc->p.target_cold = exp_opt(ctx, "target-touch")->choice == 0;
	if (mc->p.target_cold && mf_host_backing(ctx, &mc->p))
		goto fail;
	mc->p.lru_disable_ns = (unsigned long)exp_opt(ctx, "lru-disable-ns")->i;
	mc->p.memcg_ns = (unsigned long)exp_opt(ctx, "memcg-ns")->i;
	mc->p.tlb_flush_loops = (unsigned long)((double)exp_opt(ctx, "tlb-flush-ns")->i *
						exp_delay_loops_per_ns(ctx));
	mc->p.fast_forward = exp_opt(ctx, "fast-forward")->choice == 0;
	if (mc->p.thp && mc->p.folio_order) {
		fprintf(stderr, "mmlab: --thp always with --folio-order %u; valid: --folio-order 0 with "
			"--thp always (THP sets the parent's folios)\n", mc->p.folio_order);
		goto fail;
	}
	folio_size = MF_PAGE_SIZE << mc->p.folio_order;
	if (mc->p.offset % folio_size) {
		fprintf(stderr, "mmlab: --offset %s is not a multiple of the folio size (--folio-order %u: %llu "
			"bytes); valid: whole folios\n", exp_opt(ctx, "offset")->text, mc->p.folio_order, folio_size);
		goto fail;
	}
	if (mc->p.size % folio_size) {
		fprintf(stderr, "mmlab: --size %s is not a multiple of the folio size (--folio-order %u: %llu "
			"bytes); valid: whole folios\n", exp_opt(ctx, "size")->text, mc->p.folio_order, folio_size);
		goto fail;
	}
	if (exp_points_from_list(ctx, "children", "children"))
		goto fail;
	children = exp_opt(ctx, "children");
	for (int i = 0; i < children->nr_list; i++) {
		unsigned long long n = mf_mem_needed(&mc->p, (int)children->list[i], mc->nodes);

		if (n > ctx->mem_bytes) {
			lab_format_size(need, sizeof(need), n);
			lab_format_size(mem, sizeof(mem), ctx->mem_bytes);
			fprintf(stderr, "mmlab: --children %lld with --size %s and --cow %s needs --mem of at "
				"least %s, more than --mem %s; valid: fewer children, a smaller --size or --cow, "
				"or a larger --mem\n", children->list[i], exp_opt(ctx, "size")->text,
				exp_opt(ctx, "cow")->text, need, mem);
			goto fail;
		}
	}
	ctx->priv = mc;
	return 0;
fail:
	free(mc);
	return -1;
}

static void mf_check_result(const struct mf_result *r, const char *who, struct sample *out)
{
	if (r->data_mismatches)
		sample_fail(out, true, "%s: %lu pages (of %lu processes) differ from what their process wrote",
			    who, r->data_mismatches, r->vmas);
	if (r->entries_left)
		sample_fail(out, false, "%s: %lu migration entries left in the page tables", who, r->entries_left);
	if (r->mbind_ret || r->pages_failed || r->pages_moved != r->pages_expected ||
	    r->pages_on_target != r->pages_expected)
		sample_fail(out, false, "%s: mbind returned %ld: %lu pages moved, %lu failed, %lu of the "
			    "parent's on node 1, %lu expected", who, r->mbind_ret, r->pages_moved,
			    r->pages_failed, r->pages_on_target, r->pages_expected);
}

/*
 * Boot @k's machine with the experiment's nodes, run one sample, check the
 * machine (every page free), shut it down.  0, 1 if a check failed
 * (recorded in @out), -1 if the sample could not run.
 */
/* Where the migration's time went: remove_migration_ptes() against move_to_new_folio(). */
static void mf_add_times(struct sample *out, double restore_ns, double move_ns)
{
	sample_counter(out, "restore_usec", restore_ns / 1e3);
	sample_counter(out, "move_usec", move_ns / 1e3);
	sample_counter(out, "restore_pct", restore_ns + move_ns > 0 ?
		       100 * restore_ns / (restore_ns + move_ns) : 0);
}

static int mf_boot_run(struct exp_ctx *ctx, const struct exp_variant *v, const struct mm_kernel *k,
		       const struct mf_params *params, int nodes, struct mf_result *r,
		       unsigned long *vm_events, struct sample *out)
{
	struct mf_params p = *params;
	const char *who = k->events ? sample_name("%s (event build)", v->name) : v->name;
	struct exp_run run = { .k = k, .params = &p, .result = r };
	struct machine_stats st;

	memset(r, 0, sizeof(*r));
	p.vm_events = vm_events;
	if (exp_boot_run(ctx, &run, who, 1, nodes, &st, out))
		return -1;
	if (!run.err)
		mf_check_result(r, who, out);
	exp_run_end(ctx, &run, who, &st, (double)(r->pages_moved >> p.folio_order), out);
	if (st.counted)
		mf_add_times(out, exp_machine_span_ns(k, &st, "migrate_restore_ns"),
			     exp_machine_span_ns(k, &st, "migrate_move_ns"));
	return run.err ? 1 : 0;
}

/*
 * The event build's counters.  Its walks are the timed build's, on any
 * machine; its times are the host's, so a run on a simulated machine takes
 * the walk counts alone (and its times from the machine: mf_boot_run()).
 */
static void mf_add_event_counters(struct sample *out, const struct mm_kernel *k, const unsigned long *ev,
				  bool host_times)
{
	sample_counter(out, "unmap_vmas_visited", (double)exp_vm_event(k, ev, "migrate_unmap_vmas"));
	sample_counter(out, "restore_vmas_visited", (double)exp_vm_event(k, ev, "migrate_restore_vmas"));
	sample_counter(out, "ptl_taken", (double)exp_vm_event(k, ev, "pvmw_ptl"));
	sample_counter(out, "pt_walks", (double)exp_vm_event(k, ev, "pvmw_walks"));
	sample_counter(out, "migration_entries_made", (double)exp_vm_event(k, ev, "migrate_entries_made"));
	sample_counter(out, "migration_entries_removed",
		       (double)exp_vm_event(k, ev, "migrate_entries_removed"));
	if (!host_times)
		return;
	mf_add_times(out, (double)exp_vm_event(k, ev, "migrate_restore_ns"),
		     (double)exp_vm_event(k, ev, "migrate_move_ns"));
}

static int mf_run_one(struct exp_ctx *ctx, const struct exp_variant *v, struct exp_point *p, int rep,
		      struct sample *out)
{
	const struct mf_impl *impl = v->impl;
	struct mf_ctx *mc = ctx->priv;
	struct mf_params params = mc->p;
	/* The event build runs on the host, on a simulated machine too (for its walk counts). */
	bool have_events = rep == 0 && exp_opt(ctx, "events")->choice == 0;
	struct exp_ctx host = *ctx;
	unsigned long *vm_events = NULL, nr = 1UL << params.folio_order;
	struct mf_result r, ev;
	int ret;

	params.children = (int)p->arg;
	if (have_events) {
		vm_events = exp_vm_events_alloc(impl->events);
		host.machine = &machine_host;
		ret = vm_events ? mf_boot_run(&host, v, impl->events, &params, mc->nodes, &ev, vm_events, out) : -1;
		if (ret < 0)
			goto out;
	}
	ret = mf_boot_run(ctx, v, exp_build(ctx, impl->timed), &params, mc->nodes, &r, NULL, out);
	if (ret < 0)
		goto out;
	out->value = r.usec;
	sample_counter(out, "folios_moved", (double)(r.pages_moved / nr));
	sample_counter(out, "folios_failed", (double)(r.pages_failed / nr));
	sample_counter(out, "vmas", (double)r.vmas);
	sample_counter(out, "host_faults", (double)r.host_faults);
	sample_counter(out, "full_children", (double)r.full_children);
	if (have_events)
		mf_add_event_counters(out, impl->events, vm_events, exp_event_run(ctx, true));
	ret = 0;
out:
	free(vm_events);
	return ret < 0 ? -1 : 0;
}

static void mf_finish(struct exp_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct experiment exp_migrate_fork = {
	.name = "migrate-fork",
	.seed = "003_2593601936e87257.txt",
	.desc = "migrate a buffer shared with many forked COW children: time per variant",
	.options = mf_options,
	.nr_options = sizeof(mf_options) / sizeof(mf_options[0]),
	.variants = mf_variants,
	.nr_variants = sizeof(mf_variants) / sizeof(mf_variants[0]),
	.metric = "usec",
	.unit = "usec",
	.higher_is_better = false,
	.workload = "migrate_fork",
	.virtual_time = true,
	.point_header = "#children",
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 4, [SCALE_FULL] = 8 },
	.default_mem = { [SCALE_TINY] = "256M", [SCALE_DEFAULT] = "6G" },
	.prepare = mf_prepare,
	.run_one = mf_run_one,
	.finish = mf_finish,
};
