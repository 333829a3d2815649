/*
 * alloc-free: the page allocator's round trip, alloc_pages(GFP_KERNEL,
 * --order) then __free_pages(), repeated --iterations times on one CPU;
 * the loop's time per variant and order.  No seed: the smallest complete
 * single-threaded experiment (docs/PORTING.md, "A new experiment").
 *
 * Timed: the loop, through the pcp lists (orders up to 3, and 9) or the
 * buddy.  Not timed: the boot, the allocator and page checks afterwards.
 * The free's last put differs per design: vanilla's decrement to 0, and
 * frozen-bit's decrement then its compare-exchange from 0 to frozen.
 */
#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <workloads/alloc_free.h>
#include "common.h"

static const struct exp_variant af_variants[] = {
	{ "vanilla", "the last put decrements _refcount to 0, frozen already", &mm_kernel_vanilla_run },
	{ "frozen-bit", "seed 000's series: the last put also moves _refcount from 0 to frozen (a cmpxchg)",
	  &mm_kernel_refcount_frozen_bit_run },
};

static const struct exp_option af_options[] = {
	{ "order", OPT_INT_LIST, "orders allocated and freed, one point each",
	  { [SCALE_DEFAULT] = "0,3,9" }, 0, 10 },
	{ "iterations", OPT_INT, "alloc and free pairs per sample",
	  { [SCALE_TINY] = "200", [SCALE_DEFAULT] = "100000", [SCALE_FULL] = "1000000" }, 1, 100000000 },
	{ "cpus", OPT_INT, "CPUs the machine is sized for at boot (pcp high and batch, vmstat thresholds); the loop runs on one",
	  { [SCALE_DEFAULT] = "1", [SCALE_FULL] = "64" }, 1, 256 },
};

static int af_prepare(struct exp_ctx *ctx)
{
	if (exp_check_cpus(ctx))
		return -1;
	return exp_points_from_list(ctx, "order", "order");
}

static int af_run_one(struct exp_ctx *ctx, const struct exp_variant *v, struct exp_point *p,
		      int rep, struct sample *out)
{
	struct af_params params = { (unsigned int)p->arg, (unsigned long)exp_opt(ctx, "iterations")->i };
	struct af_result r;
	struct exp_run run = { .k = exp_build(ctx, v->impl), .params = &params, .result = &r };
	struct machine_stats st;

	if (exp_boot_run(ctx, &run, v->name, (int)exp_opt(ctx, "cpus")->i, 0, &st, out))
		return -1;
	out->value = r.usec;
	sample_counter(out, "ns_per_op", r.usec * 1000.0 / (double)params.iterations);
	exp_run_end(ctx, &run, v->name, &st, (double)params.iterations, out);
	return 0;
}

const struct experiment exp_alloc_free = {
	.name = "alloc-free",
	.desc = "alloc_pages() and __free_pages() of one order, repeated: time per variant and order",
	.options = af_options,
	.nr_options = sizeof(af_options) / sizeof(af_options[0]),
	.variants = af_variants,
	.nr_variants = sizeof(af_variants) / sizeof(af_variants[0]),
	.metric = "usec",
	.unit = "usec",
	.higher_is_better = false,
	.workload = "alloc_free",
	.virtual_time = true,
	.point_header = "#order",
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 5 },
	.prepare = af_prepare,
	.run_one = af_run_one,
};
