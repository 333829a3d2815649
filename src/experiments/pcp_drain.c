/*
 * COST LEDGER (docs/design/model.md, "The pcp-drain-batch design").
 *
 * Timed: each drain_local_pages() of this CPU's lists, summed over
 * --iterations: drain_pages_zone()'s holds of the pcp lock and the zone
 * lock and free_pcppages_bulk() of every page on the lists into the
 * buddy, per design.  Not timed: the --pages allocations and frees that
 * fill the lists before each drain (what spills to the buddy meanwhile
 * included), the boot and the allocator checks.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the drain runs on the CPU whose lists it drains, as drain_local_pages()
 *    does from drain_all_pages()' work item; the work item, its IPI and the
 *    wait for it are not modelled.  No option.
 *  - contention: one CPU, so no one waits for the locks the drain holds,
 *    and what the design buys (others get the locks every pcp->batch pages)
 *    does not show in the time, only its cost does; the holds show in the
 *    machine's events_per_op in virtual time.  No option.
 *  - pcp->batch and high follow the memory and the CPUs at boot: --mem
 *    (1 GiB by default, batch 63 as on any zone of 1 GiB or more) and
 *    --cpus.
 *
 * pcp-drain (Joshua Hahn, "mm/page_alloc: Perform appropriate batching in
 * drain_pages_zone", September 2025): free --pages order-0 pages onto
 * this CPU's lists, then drain them; time per drain per design.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <workloads/pcp_drain.h>
#include "common.h"

static const struct exp_variant pd_variants[] = {
	{ "vanilla", "at most pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX pages per lock hold",
	  &mm_kernel_vanilla_run },
	{ "drain-batch", "at most pcp->batch pages per lock hold (Joshua Hahn, 2025)",
	  &mm_kernel_pcp_drain_batch_run },
};

static const struct exp_option pd_options[] = {
	{ "pages", OPT_INT_LIST, "order-0 pages allocated, then freed onto the lists, before each drain",
	  { [SCALE_TINY] = "256,4096", [SCALE_DEFAULT] = "64,256,1024,4096" }, 1, 1 << 20 },
	{ "iterations", OPT_INT, "drains per sample",
	  { [SCALE_TINY] = "20", [SCALE_DEFAULT] = "200" }, 1, 10000000 },
	{ "cpus", OPT_INT, "CPUs the machine is sized for at boot (pcp high and batch); the drain runs on one",
	  { [SCALE_DEFAULT] = "1" }, 1, 256 },
};

static int pd_prepare(struct exp_ctx *ctx)
{
	if (exp_check_cpus(ctx))
		return -1;
	for (int i = 0; i < exp_opt(ctx, "pages")->nr_list; i++) {
		unsigned long long need = (unsigned long long)exp_opt(ctx, "pages")->list[i] * 4096;

		if (need > ctx->mem_bytes / 2) {
			fprintf(stderr, "mmlab: --pages %lld needs %llu bytes, more than half of --mem (%llu bytes); "
				"valid range 1..%llu at this --mem\n", exp_opt(ctx, "pages")->list[i], need,
				ctx->mem_bytes, ctx->mem_bytes / 2 / 4096);
			return -1;
		}
	}
	return exp_points_from_list(ctx, "pages", "pages");
}

static int pd_run_one(struct exp_ctx *ctx, const struct exp_variant *v, struct exp_point *p,
		      int rep, struct sample *out)
{
	struct pd_params params = { (unsigned long)p->arg, (unsigned long)exp_opt(ctx, "iterations")->i };
	struct pd_result r;
	struct exp_run run = { .k = exp_build(ctx, v->impl), .params = &params, .result = &r };
	struct machine_stats st;

	(void)rep;
	if (exp_boot_run(ctx, &run, v->name, (int)exp_opt(ctx, "cpus")->i, 0, &st, out))
		return -1;
	out->value = r.usec / (double)params.iterations;
	sample_counter(out, "pages_drained", (double)r.drained / (double)params.iterations);
	sample_counter(out, "pcp_batch", (double)r.batch);
	exp_run_end(ctx, &run, v->name, &st, (double)params.iterations, out);
	return 0;
}

const struct experiment exp_pcp_drain = {
	.name = "pcp-drain",
	.desc = "free order-0 pages onto this CPU's pcp lists, drain them: time per drain per variant",
	.options = pd_options,
	.nr_options = sizeof(pd_options) / sizeof(pd_options[0]),
	.variants = pd_variants,
	.nr_variants = sizeof(pd_variants) / sizeof(pd_variants[0]),
	.metric = "usec",
	.unit = "usec per drain",
	.higher_is_better = false,
	.workload = "pcp_drain",
	.virtual_time = true,
	.point_header = "#pages",
	.default_repeat = { [SCALE_TINY] = 4, [SCALE_DEFAULT] = 9, [SCALE_FULL] = 9 },
	.default_mem = { [SCALE_DEFAULT] = "1G" },
	.prepare = pd_prepare,
	.run_one = pd_run_one,
};
