/*
 * COST LEDGER (seed 001; docs/design/seed-001-free-contig-vmalloc.md, "vmalloc (seed 001)").
 *
 * Timed: each test_vmalloc case whole, as lib/test_vmalloc.c times it,
 * its set-up and tear-down included, for --loops iterations
 * (fix_size_alloc_test with p >= 64 a fifth of them) on one CPU: the
 * search of the free address space, vm_area_alloc_pages() (large orders
 * split, then alloc_pages_bulk()), the page-table mapping, vfree()'s page
 * freeing per design, and the lazy purge with its TLB flush when the lazy
 * total passes lazy_max_pages().  Not timed: the boot, the population of
 * the arena before timing (MADV_POPULATE_WRITE, so that the host's first
 * touch of its memory, which no kernel pays, is not counted), the census
 * of free memory per order and the checks.
 *
 * Kernel costs the model leaves out or makes free, and what restores each:
 *  - the TLB: there is none.  A purge's kernel-range flush (an IPI to
 *    every CPU on x86, a broadcast TLBI and DSB on arm64) is a busy loop of
 *    --tlb-flush-ns (default 3000); --tlb-flush-ns 0 shows the CPU work
 *    alone.
 *  - the size of the machine: lazy_max_pages() (fls(CPUs) * 32 MiB), pcp
 *    high and batch and the vmstat thresholds follow the CPUs at boot, one
 *    by default, while the thread's m7g.metal has 64.  --cpus 64 (the
 *    default at --scale full).
 *  - the mapping: --arch arm64 (the default, the thread's machine) maps
 *    vmalloc_huge() areas below 2 MiB with contiguous-PTE blocks; --arch
 *    x86-64 maps PMD leaves only.
 *  - memcg: the later mod_lruvec_page_state() form of the vmalloc page
 *    count is not modelled.  No option.
 *  - the vmap structures: one vmap node and no per-CPU vmap blocks
 *    (vm_map_ram() always takes the large-area path), and the pages[]
 *    array and the bookkeeping come from the host's malloc, not the slab.
 *    No option.
 *  - made dearer, not free: the purge runs in the freeing thread, where the
 *    kernel queues it to a worker.  No option.
 *  - left out entirely: the kvfree_rcu cases (the kernel's batching is not
 *    modelled) and pcpu_alloc_test (no per-CPU allocator).
 *  - the memory system is the host's own.  --machine m2-vm (seed 001's
 *    machine) or another preset predicts each case on that machine in
 *    virtual time, the TLB flush then a virtual delay.
 *
 * vmalloc (seed 001, "vmalloc: Optimize vfree"): the kernel's
 * lib/test_vmalloc.c benchmark cases on one CPU, total usec of a case of
 * test_loop_count iterations, per design of vfree()'s page freeing:
 *
 *   vanilla        per page: statistics, __free_page()
 *   vanilla-v1base the same at v1's base: the page count one atomic per area
 *   batched        v1: runs of consecutive pfns to __free_contig_range(),
 *                  on v1's base and compared with vanilla-v1base
 *   bulk           merged design: statistics, then free_pages_bulk()
 *   chunk-prepare  bulk, with chunks prepared as a whole
 *
 * Every design allocates the same way: large orders from the buddy, split
 * to order 0 (the v6.19 change that caused the regressions the series
 * fixes); only the vmalloc page count differs between the two bases.  Rows are the thread's: "fix_size_alloc_test: p:512, h:1,
 * l:100000 (usec)".  Beside time: TLB flushes, purges, and where the free
 * memory is afterwards per order (freeing page by page lets pages be
 * reallocated before they merge).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/smp.h>
#include <machine/machine.h>
#include <mmlab/experiment.h>
#include <mmlab/kernel.h>
#include <mmlab/workloads/vmalloc_test.h>
#include "common.h"

#define VM_PAGE_SIZE		4096ULL
#define VM_PAGEBLOCK_ORDER	9

static const struct exp_variant vm_variants[] = {
	{ "vanilla", "vfree: per page, statistics and __free_page()", &mm_kernel_vanilla_run },
	{ "vanilla-v1base", "at v1's base: vfree per page __free_page(), the count once (atomic)",
	  &mm_kernel_vanilla_v1base_run },
	{ "batched", "v1: vfree frees runs of consecutive pfns with __free_contig_range()",
	  &mm_kernel_contig_batched_run, "vanilla-v1base" },
	{ "bulk", "merged design: statistics first, then free_pages_bulk() over the page array",
	  &mm_kernel_contig_bulk_run },
	{ "chunk-prepare", "bulk, with each chunk prepared as a whole",
	  &mm_kernel_contig_chunk_prepare_run },
};

/* --tests: the cases "all" runs, in the thread's table order, then the others. */
#define VM_TEST_CHOICES	"all,fix_size_alloc_test,fix_align_alloc_test,random_size_alloc_test," \
			"random_size_align_alloc_test,long_busy_list_alloc_test,full_fit_alloc_test," \
			"vm_map_ram_test,align_shift_alloc_test"

static const enum vmalloc_test_id vm_choice_tests[] = {
	VT_FIX_SIZE, VT_FIX_ALIGN, VT_RANDOM_SIZE, VT_RANDOM_SIZE_ALIGN,
	VT_LONG_BUSY_LIST, VT_FULL_FIT, VT_VM_MAP_RAM, VT_ALIGN_SHIFT,
};

/*
 * --tlb-flush-ns default: a purge flushes the whole lazily freed range of
 * the kernel's address space on every CPU (x86: flush_tlb_all() by IPI to
 * each CPU and waiting for them; arm64: a broadcast TLBI VMALLE1IS and
 * DSB).  Either costs a few microseconds on a small machine, more on a
 * large one; 3 us is taken.  Purges are rare (one per 32 MiB * fls(CPUs)
 * of freed address space), so the result is insensitive to it.
 */
static const struct exp_option vm_options[] = {
	{ "tests", OPT_CHOICE_LIST, "the test_vmalloc cases to run, or all (all but the expected failure align_shift_alloc_test)",
	  { [SCALE_DEFAULT] = "all" }, 0, 0, VM_TEST_CHOICES },
	{ "loops", OPT_INT, "test_loop_count (the \"l:\"); fix_size_alloc_test with p >= 64 runs a fifth of it, "
	  "as the thread's 500000 and 100000",
	  { [SCALE_TINY] = "50", [SCALE_DEFAULT] = "50000", [SCALE_FULL] = "500000" }, 1, 100000000 },
	{ "pages", OPT_INT_LIST, "fix_size_alloc_test sizes in pages (the \"p:\"); those >= 16 also run with vmalloc_huge (h:1)",
	  { [SCALE_DEFAULT] = "1,4,16,64,256,512" }, 1, 4096 },
	{ "tlb-flush-ns", OPT_INT, "modelled cost of one kernel TLB flush of a purge (busy loop)",
	  { [SCALE_DEFAULT] = "3000" }, 0, 1000000 },
	{ "arch", OPT_CHOICE, "arm64 (the thread's m7g.metal): vmalloc_huge < 2 MiB maps order-4 blocks with "
	  "contiguous PTEs, THREAD_ALIGN 32 KiB; x86-64: PMD mappings only, THREAD_ALIGN 16 KiB",
	  { [SCALE_DEFAULT] = "arm64" }, 0, 0, "arm64,x86-64" },
	{ "cpus", OPT_INT, "CPUs the machine is sized for at boot (pcp high and batch, vmstat thresholds, "
	  "lazy_max_pages; m7g.metal: 64); the cases run on one",
	  { [SCALE_DEFAULT] = "1", [SCALE_FULL] = "64" }, 1, 256 },
};

struct vm_point {
	enum vmalloc_test_id test;
	unsigned int nr_pages;
	bool use_huge;
	unsigned long loops;
};

struct vm_ctx {
	struct vmalloc_test_params params;	/* what every point shares */
	struct vm_point points[MAX_POINTS];
};

/* --- points --------------------------------------------------------------------------- */

/* "fix_size_alloc_test" -> "fix_size"; "vm_map_ram_test" -> "vm_map_ram". */
static void short_name(char *buf, size_t len, const char *name)
{
	size_t n = strlen(name);

	if (n > 11 && !strcmp(name + n - 11, "_alloc_test"))
		n -= 11;
	else if (n > 5 && !strcmp(name + n - 5, "_test"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, name);
}

static int vm_add_point(struct exp_ctx *ctx, const struct vm_point *vp)
{
	struct vm_ctx *vc = ctx->priv;
	struct exp_point *p = &ctx->points[ctx->nr_points];
	const char *name = vmalloc_test_name(vp->test);
	char label[96], shortn[32];

	if (ctx->nr_points >= MAX_POINTS) {
		fprintf(stderr, "mmlab: more than %d points; give fewer --pages\n", MAX_POINTS);
		return -1;
	}
	vc->points[ctx->nr_points] = *vp;
	p->priv = &vc->points[ctx->nr_points];
	p->arg = ctx->nr_points;
	snprintf(p->json, sizeof(p->json), "{\"test\": \"%s\", \"pages\": %u, \"huge\": %d}",
		 name, vp->nr_pages, vp->use_huge);
	/*
	 * The thread's row label ("fix_size_alloc_test: p:512, h:1, l:100000")
	 * if a point label can hold them all, else a short one for every row.
	 */
	if (sizeof(p->label) >= 48) {
		snprintf(label, sizeof(label), "%s: p:%u, h:%d, l:%lu", name, vp->nr_pages,
			 vp->use_huge, vp->loops);
	} else {
		short_name(shortn, sizeof(shortn), name);
		snprintf(label, sizeof(label), "%s p:%u h:%d", shortn, vp->nr_pages, vp->use_huge);
	}
	snprintf(p->label, sizeof(p->label), "%.*s", (int)sizeof(p->label) - 1, label);
	ctx->nr_points++;
	return 0;
}

static int vm_add_fix_size(struct exp_ctx *ctx, unsigned long loops)
{
	const struct opt_value *pages = exp_opt(ctx, "pages");

	for (int i = 0; i < pages->nr_list; i++) {
		struct vm_point vp = {
			.test = VT_FIX_SIZE,
			.nr_pages = (unsigned int)pages->list[i],
			.loops = pages->list[i] >= 64 ? (loops + 4) / 5 : loops,
		};

		if (vm_add_point(ctx, &vp))
			return -1;
		/* h:1 changes nothing below a contiguous-PTE block (64 KiB). */
		if (vp.nr_pages < 16)
			continue;
		vp.use_huge = true;
		if (vm_add_point(ctx, &vp))
			return -1;
	}
	return 0;
}

/* Pages a case needs at most, to check --mem up front. */
static unsigned long long vm_pages_needed(const struct vm_point *vp, int nr_cpus)
{
	unsigned long long cpus_fls = 0;

	for (int n = nr_cpus; n; n >>= 1)
		cpus_fls++;
	switch (vp->test) {
	case VT_FIX_SIZE:
		return vp->use_huge ? (vp->nr_pages + 511ULL) / 512 * 512 : vp->nr_pages;
	case VT_FULL_FIT:
		return 2 * cpus_fls * 8192 + 64;
	case VT_LONG_BUSY_LIST:
		return 15000 + 30 + 101;
	case VT_RANDOM_SIZE:
		return 100;
	default:
		return 1024;
	}
}

static int vm_check_mem(struct exp_ctx *ctx)
{
	/* Page tables and pcp lists need room besides the case's own pages. */
	unsigned long long have = ctx->mem_bytes / VM_PAGE_SIZE * 9 / 10;

	for (int i = 0; i < ctx->nr_points; i++) {
		const struct vm_point *vp = ctx->points[i].priv;
		unsigned long long need = vm_pages_needed(vp, (int)exp_opt(ctx, "cpus")->i);

		if (need > have) {
			fprintf(stderr, "mmlab: %s with p:%u h:%d needs about %llu MiB of simulated memory, "
				"more than 90%% of --mem (%llu MiB); valid: --mem of at least %llu MiB\n",
				vmalloc_test_name(vp->test), vp->nr_pages, vp->use_huge,
				need * VM_PAGE_SIZE >> 20, ctx->mem_bytes >> 20,
				(need * VM_PAGE_SIZE * 10 / 9 >> 20) + 4);
			return -1;
		}
	}
	return 0;
}

static int vm_prepare(struct exp_ctx *ctx)
{
	struct vm_ctx *vc = calloc(1, sizeof(*vc));
	const struct opt_value *tests = exp_opt(ctx, "tests");
	unsigned int chosen = 0;	/* bit i + 1: vm_choice_tests[i]; bit 0: all */
	unsigned long loops = (unsigned long)exp_opt(ctx, "loops")->i;
	unsigned long long ns = (unsigned long long)exp_opt(ctx, "tlb-flush-ns")->i;

	if (!vc || exp_check_cpus(ctx)) {
		free(vc);
		return -1;
	}
	ctx->priv = vc;
	vc->params.seed = ctx->seed;
	vc->params.tlb_flush_loops = (unsigned long)(ns * exp_delay_loops_per_ns(ctx));
	vc->params.cont_pte = exp_opt(ctx, "arch")->choice == 0;
	vc->params.prefault = true;

	for (int i = 0; i < tests->nr_list; i++)
		chosen |= 1U << tests->list[i];
	for (size_t i = 0; i < sizeof(vm_choice_tests) / sizeof(vm_choice_tests[0]); i++) {
		enum vmalloc_test_id t = vm_choice_tests[i];
		struct vm_point vp = { .test = t, .nr_pages = 1, .loops = loops };
		int ret;

		if (!(chosen & (1U << (i + 1))) && (!(chosen & 1) || vmalloc_test_xfail(t)))
			continue;
		if (t == VT_FIX_SIZE)
			ret = vm_add_fix_size(ctx, loops);
		else
			ret = vm_add_point(ctx, &vp);
		if (ret)
			return -1;
	}
	return vm_check_mem(ctx);
}

/* --- one sample ------------------------------------------------------------------------ */

static void vm_counter_list(struct sample *out, const char *name, const unsigned long *v)
{
	char json[256];
	int n = snprintf(json, sizeof(json), "[");

	for (int o = 0; o < VT_NR_ORDERS; o++)
		n += snprintf(json + n, sizeof(json) - n, "%s%lu", o ? ", " : "", v[o]);
	snprintf(json + n, sizeof(json) - n, "]");
	sample_counter_json(out, name, json);
}

static void vm_counters(struct sample *out, const struct vm_point *vp,
			const struct vmalloc_test_result *r)
{
	unsigned long high = 0, pcp = 0;

	for (int o = VM_PAGEBLOCK_ORDER; o < VT_NR_ORDERS; o++)
		high += r->free_pages_by_order[o];
	for (int o = 0; o < VT_NR_ORDERS; o++)
		pcp += r->pcp_pages_by_order[o];
	sample_counter(out, "loops", (double)vp->loops);
	sample_counter(out, "usec_per_loop", r->usec / (double)vp->loops);
	sample_counter(out, "tlb_flushes", (double)r->tlb_flushes);
	sample_counter(out, "tlb_pages_flushed", (double)r->tlb_pages_flushed);
	sample_counter(out, "purges", (double)r->purges);
	sample_counter(out, "purged_areas", (double)r->purged_areas);
	sample_counter(out, "huge_fallbacks", (double)r->huge_fallbacks);
	sample_counter(out, "pgtable_pages", (double)r->pgtable_pages);
	sample_counter(out, "test_failed", r->failed);
	vm_counter_list(out, "free_pages_by_order", r->free_pages_by_order);
	vm_counter_list(out, "pcp_pages_by_order", r->pcp_pages_by_order);
	sample_counter(out, "free_pages_pageblock_or_more", (double)high);
	sample_counter(out, "pcp_pages", (double)pcp);
}

static int vm_run_one(struct exp_ctx *ctx, const struct exp_variant *v,
		      struct exp_point *p, int rep, struct sample *out)
{
	const struct vm_point *vp = p->priv;
	struct vm_ctx *vc = ctx->priv;
	struct vmalloc_test_params params = vc->params;
	struct vmalloc_test_result r;
	struct exp_run run = { .k = exp_build(ctx, v->impl), .params = &params, .result = &r };
	struct machine_stats st;

	(void)rep;
	params.test = vp->test;
	params.nr_pages = vp->nr_pages;
	params.use_huge = vp->use_huge;
	params.loops = vp->loops;
	if (exp_boot_run(ctx, &run, v->name, (int)exp_opt(ctx, "cpus")->i, 0, &st, out))
		return -1;
	if (r.failed && !vmalloc_test_xfail(vp->test))
		sample_fail(out, false, "%s: %s: an allocation failed (out of simulated memory?)",
			    v->name, vmalloc_test_name(vp->test));
	out->value = r.usec;
	vm_counters(out, vp, &r);
	exp_run_end(ctx, &run, v->name, &st, (double)vp->loops, out);
	return 0;
}

static void vm_finish(struct exp_ctx *ctx)
{
	free(ctx->priv);
	ctx->priv = NULL;
}

const struct experiment exp_vmalloc = {
	.name = "vmalloc",
	.seed = "001_f30f4b09299f9d59.txt",
	.desc = "the test_vmalloc cases (fix_size, fix_align, random_size, long_busy_list, full_fit, ...)",
	.options = vm_options,
	.nr_options = sizeof(vm_options) / sizeof(vm_options[0]),
	.variants = vm_variants,
	.nr_variants = sizeof(vm_variants) / sizeof(vm_variants[0]),
	.metric = "usec",
	.unit = "usec",
	.higher_is_better = false,
	.workload = "vmalloc_test",
	.virtual_time = true,
	.point_header = "test_vmalloc benchmark",
	.mark_ri = true,
	.default_repeat = { [SCALE_TINY] = 2, [SCALE_DEFAULT] = 5, [SCALE_FULL] = 5 },
	.prepare = vm_prepare,
	.run_one = vm_run_one,
	.finish = vm_finish,
};
