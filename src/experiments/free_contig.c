/*
 * COST LEDGER (seed 001; docs/design/seed-001-free-contig-vmalloc.md, "Freeing contiguous order-0
 * ranges" and "The page allocator").
 *
 * Timed: with --mode split (the default), the whole loop of --iterations,
 * as the thread's test times it: alloc_pages(GFP_KERNEL, --order) from the
 * pcp lists or the buddy, split_page(), and __free_contig_range() (what
 * free_contig_range() calls; its return counts pages still referenced),
 * which frees the range per design.  With --mode frozen, only
 * __free_contig_frozen_range() of each --frozen-pages range; the
 * alloc_contig_frozen_range() that takes the range out of the buddy before
 * it is not timed.  Not timed: the boot, the census of free memory per
 * order afterwards and the allocator checks.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the size of the machine: pcp high and batch and the vmstat thresholds
 *    follow the CPUs at boot, one by default, while the thread's m7g.metal
 *    has 64.  --cpus 64 (the default at --scale full); the loop itself
 *    still runs on one CPU, so the zone lock is never contended.
 *  - the free-time page checks of free_pages_prepare(): off in the timed
 *    builds, as in a kernel without CONFIG_DEBUG_VM or page debugging.  No
 *    option: page poisoning, which turns them on, is not offered here.
 *  - page_owner, allocation tags, memcg and the KASAN hooks: not modelled,
 *    so preparing a page costs less than the kernel's, which narrows the
 *    gain chunk-prepare can show.  No option.
 *  - watermarks, reclaim, compaction and CMA: none; an allocation that
 *    finds nothing drains the pcp lists once and fails.  No option.
 *  - the memory system is the host's own: its caches, its prefetchers,
 *    its misses.  --machine m2-vm (seed 001's machine) or another preset
 *    predicts the loop on that machine in virtual time: plain code by its
 *    basic blocks, every access through the machine's caches, the
 *    ns_per_page counter per design.
 *
 * free-contig (seed 001, "Free contiguous order-0 pages efficiently"):
 * allocate an order-N block, split_page() it, free_contig_range() it,
 * repeated; total time of the loop per design.  --mode frozen runs the
 * follow-up's CMA-style test instead: free a frozen 16384-page range.
 *
 * Beside time, where the free memory is afterwards, per order, in the
 * buddy and on the pcp lists: David Hildenbrand's point that freeing page
 * by page lets pages be reallocated before they merge.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/workloads/free_contig.h>
#include "common.h"

static const struct exp_variant fc_variants[] = {
	{ "vanilla", "one __free_page() per order-0 page", &mm_kernel_vanilla_run },
	{ "batched", "v1: per-page put and prepare, runs freed as aligned chunks up to pageblock order",
	  &mm_kernel_contig_batched_run },
	{ "bulk", "merged design: chunks up to MAX_PAGE_ORDER, frozen ranges batched too, free_pages_bulk()",
	  &mm_kernel_contig_bulk_run },
	{ "chunk-prepare", "review's proposal: chunks prepared as a whole, one pass over their pages",
	  &mm_kernel_contig_chunk_prepare_run },
};

static const struct exp_option fc_options[] = {
	{ "order", OPT_INT, "order of the block allocated, split and freed (--mode split)",
	  { [SCALE_DEFAULT] = "9" }, 0, 10 },
	{ "iterations", OPT_INT, "loop iterations per sample (the thread: 100000)",
	  { [SCALE_TINY] = "500", [SCALE_DEFAULT] = "100000" }, 1, 100000000 },
	{ "mode", OPT_CHOICE, "split: alloc + split_page + free_contig_range; frozen: free a frozen range",
	  { [SCALE_DEFAULT] = "split" }, 0, 0, "split,frozen" },
	{ "frozen-pages", OPT_INT, "pages per frozen range (--mode frozen), a multiple of 1024",
	  { [SCALE_DEFAULT] = "16384" }, 1024, 1 << 22 },
	{ "cpus", OPT_INT, "CPUs the machine is sized for at boot (pcp high and batch, vmstat thresholds, lazy_max_pages); the loop runs on one",
	  { [SCALE_DEFAULT] = "1", [SCALE_FULL] = "64" }, 1, 256 },
};

struct fc_ctx {
	struct fc_params params;
};

static int fc_prepare(struct exp_ctx *ctx)
{
	struct fc_ctx *fc = calloc(1, sizeof(*fc));
	struct exp_point *p = &ctx->points[0];
	unsigned long long need;

	if (!fc || exp_check_cpus(ctx)) {
		free(fc);
		return -1;
	}
	fc->params.mode = exp_opt(ctx, "mode")->choice == 0 ? FC_SPLIT : FC_FROZEN;
	fc->params.order = (unsigned int)exp_opt(ctx, "order")->i;
	fc->params.iterations = (unsigned long)exp_opt(ctx, "iterations")->i;
	fc->params.frozen_pages = (unsigned long)exp_opt(ctx, "frozen-pages")->i;

	if (fc->params.mode == FC_FROZEN) {
		if (fc->params.frozen_pages % 1024) {
			fprintf(stderr, "mmlab: --frozen-pages %lu is not a multiple of 1024 (whole MAX_PAGE_ORDER blocks); "
				"valid: multiples of 1024 in 1024..%d\n", fc->params.frozen_pages, 1 << 22);
			free(fc);
			return -1;
		}
		need = (unsigned long long)fc->params.frozen_pages * 4096;
		if (need > ctx->mem_bytes / 2) {
			fprintf(stderr, "mmlab: --frozen-pages %lu needs %llu bytes, more than half of --mem (%llu bytes); "
				"valid range 1024..%llu at this --mem\n", fc->params.frozen_pages, need,
				ctx->mem_bytes, ctx->mem_bytes / 2 / 4096 / 1024 * 1024);
			free(fc);
			return -1;
		}
		p->arg = (long long)fc->params.frozen_pages;
		snprintf(p->json, sizeof(p->json), "{\"frozen_pages\": %lu}", fc->params.frozen_pages);
		snprintf(p->label, sizeof(p->label), "%lu pages", fc->params.frozen_pages);
	} else {
		p->arg = fc->params.order;
		snprintf(p->json, sizeof(p->json), "{\"order\": %u}", fc->params.order);
		snprintf(p->label, sizeof(p->label), "%u", fc->params.order);
	}
	ctx->nr_points = 1;
	ctx->priv = fc;
	return 0;
}

static void fc_counter_list(struct sample *out, const char *name, const unsigned long *v)
{
	char json[256];
	int n = snprintf(json, sizeof(json), "[");

	for (int o = 0; o < FC_NR_ORDERS; o++)
		n += snprintf(json + n, sizeof(json) - n, "%s%lu", o ? ", " : "", v[o]);
	snprintf(json + n, sizeof(json) - n, "]");
	sample_counter_json(out, name, json);
}

static int fc_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
		      struct exp_point *p, int rep, struct sample *out)
{
	struct fc_ctx *fc = ctx->priv;
	struct fc_result r;
	struct exp_run run = { .k = exp_build(ctx, v->impl), .params = &fc->params, .result = &r };
	unsigned long high_order_pages = 0, pcp_pages = 0;
	struct machine_stats st;

	(void)p;
	(void)rep;
	if (exp_boot_run(ctx, &run, v->name, (int)exp_opt(ctx, "cpus")->i, 0, &st, out))
		return -1;
	out->value = r.usec;
	/* The seed's "about 33 ns a page before, 2.7 after": the loop's time over its pages. */
	sample_counter(out, "ns_per_page", r.usec * 1000.0 / ((double)fc->params.iterations *
		       (fc->params.mode == FC_SPLIT ? 1ul << fc->params.order : fc->params.frozen_pages)));
	fc_counter_list(out, "free_pages_by_order", r.buddy_pages_by_order);
	fc_counter_list(out, "pcp_pages_by_order", r.pcp_pages_by_order);
	for (int o = FC_PAGEBLOCK_ORDER; o < FC_NR_ORDERS; o++)
		high_order_pages += r.buddy_pages_by_order[o];
	for (int o = 0; o < FC_NR_ORDERS; o++)
		pcp_pages += r.pcp_pages_by_order[o];
	sample_counter(out, "free_pages_pageblock_or_more", (double)high_order_pages);
	sample_counter(out, "pcp_pages", (double)pcp_pages);
	exp_run_end(ctx, &run, v->name, &st, (double)fc->params.iterations, out);
	return 0;
}

static void fc_finish(struct exp_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct experiment exp_free_contig = {
	.name = "free-contig",
	.seed = "001_f30f4b09299f9d59.txt",
	.desc = "alloc order-9, split_page, free_contig_range, repeated: time per variant",
	.options = fc_options,
	.nr_options = sizeof(fc_options) / sizeof(fc_options[0]),
	.variants = fc_variants,
	.nr_variants = sizeof(fc_variants) / sizeof(fc_variants[0]),
	.metric = "usec",
	.unit = "usec",
	.higher_is_better = false,
	.workload = "free_contig",
	.virtual_time = true,
	.point_header = "#order",
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 5 },
	.prepare = fc_prepare,
	.run_one = fc_run_one,
	.finish = fc_finish,
};
