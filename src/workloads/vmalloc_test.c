// SPDX-License-Identifier: GPL-2.0
/*
 * The vmalloc workload, inside the kernel build: the cases of the kernel's
 * lib/test_vmalloc.c, each timed as a whole (set-up and tear-down
 * included) as the module times it, on one CPU.  A write through a
 * vmalloc address goes through the page tables (vmalloc_access()), as the
 * MMU would translate it.
 *
 * Not here: the kvfree_rcu cases (the kernel's kvfree_rcu() batching into
 * per-CPU pages drained by a worker after a grace period is not modelled,
 * and liburcu's call_rcu() per object would measure liburcu), and
 * pcpu_alloc_test (no per-CPU allocator).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/ktime.h>
#include <linux/mmzone.h>
#include <linux/vmalloc.h>
#include <mmlab/random.h>
#include <mmlab/workloads/vmalloc_test.h>
#include "workloads.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE	23
#endif

struct vt_ctx {
	const struct vmalloc_test_params *p;
	unsigned long loops;
	uint64_t rnd;
};

/* --- get_random_*(): splitmix64 from the seed ------------------------------------- */

static uint64_t get_random_u64(struct vt_ctx *c)
{
	return splitmix64_next(&c->rnd);
}

static uint8_t get_random_u8(struct vt_ctx *c)
{
	return (uint8_t)get_random_u64(c);
}

static uint32_t get_random_u32_inclusive(struct vt_ctx *c, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(get_random_u64(c) % ((uint64_t)hi - lo + 1));
}

/* *((u8 *)addr) = v, through the kernel page table. */
static inline void write_byte(void *addr, uint8_t v)
{
	*(uint8_t *)vmalloc_access(addr) = v;
}

/* --- the cases ------------------------------------------------------------------------- */

static int fix_size_alloc_test(struct vt_ctx *c)
{
	const unsigned long size = (unsigned long)c->p->nr_pages * PAGE_SIZE;
	const bool use_huge = c->p->use_huge;

	for (unsigned long i = 0; i < c->loops; i++) {
		void *ptr = use_huge ? vmalloc_huge(size, GFP_KERNEL) : vmalloc(size);

		if (!ptr)
			return -1;
		write_byte(ptr, 0);
		vfree(ptr);
	}
	return 0;
}

static int full_fit_alloc_test(struct vt_ctx *c)
{
	int junk_length = fls((unsigned int)num_online_cpus()) * (32 * 1024 * 1024 / (int)PAGE_SIZE);
	void **ptr = calloc(junk_length, sizeof(void *));
	void **junk_ptr = calloc(junk_length, sizeof(void *));
	/* The kernel keeps its two arrays in vmalloc memory: take the same. */
	void *ptr_area = vmalloc(sizeof(void *) * junk_length);
	void *junk_area = vmalloc(sizeof(void *) * junk_length);
	int rv = -1, i;

	if (!ptr || !junk_ptr || !ptr_area || !junk_area)
		goto out;
	for (i = 0; i < junk_length; i++) {
		ptr[i] = vmalloc(1 * PAGE_SIZE);
		junk_ptr[i] = vmalloc(1 * PAGE_SIZE);
	}
	for (i = 0; i < junk_length; i++)
		vfree(junk_ptr[i]);
	for (unsigned long l = 0; l < c->loops; l++) {
		void *tmp = vmalloc(1 * PAGE_SIZE);

		if (!tmp)
			goto error;
		write_byte(tmp, 1);
		vfree(tmp);
	}
	rv = 0;
error:
	for (i = 0; i < junk_length; i++)
		vfree(ptr[i]);
out:
	vfree(ptr_area);
	vfree(junk_area);
	free(ptr);
	free(junk_ptr);
	return rv;
}

#define LONG_BUSY_AREAS	15000

static int long_busy_list_alloc_test(struct vt_ctx *c)
{
	void **ptr = calloc(LONG_BUSY_AREAS, sizeof(void *));
	void *ptr_area = vmalloc(sizeof(void *) * LONG_BUSY_AREAS);
	int rv = -1, i;

	if (!ptr || !ptr_area)
		goto out;
	for (i = 0; i < LONG_BUSY_AREAS; i++)
		ptr[i] = vmalloc(1 * PAGE_SIZE);
	for (unsigned long l = 0; l < c->loops; l++) {
		void *ptr_1 = vmalloc(100 * PAGE_SIZE), *ptr_2;

		if (!ptr_1)
			goto leave;
		ptr_2 = vmalloc(1 * PAGE_SIZE);
		if (!ptr_2) {
			vfree(ptr_1);
			goto leave;
		}
		write_byte(ptr_1, 0);
		write_byte(ptr_2, 1);
		vfree(ptr_1);
		vfree(ptr_2);
	}
	rv = 0;
leave:
	for (i = 0; i < LONG_BUSY_AREAS; i++)
		vfree(ptr[i]);
out:
	vfree(ptr_area);
	free(ptr);
	return rv;
}

static int random_size_alloc_test(struct vt_ctx *c)
{
	for (unsigned long i = 0; i < c->loops; i++) {
		unsigned int n = get_random_u32_inclusive(c, 1, 100);
		void *p = vmalloc((unsigned long)n * PAGE_SIZE);

		if (!p)
			return -1;
		write_byte(p, 1);
		vfree(p);
	}
	return 0;
}

/*
 * THREAD_ALIGN << 1: THREAD_ALIGN is THREAD_SIZE (16 KiB) on x86-64 and
 * 2 * THREAD_SIZE (32 KiB) on arm64 with vmapped stacks.
 */
static unsigned long fix_align(const struct vmalloc_test_params *p)
{
	return (p->cont_pte ? 32UL << 10 : 16UL << 10) << 1;
}

static int fix_align_alloc_test(struct vt_ctx *c)
{
	const unsigned long align = fix_align(c->p);

	for (unsigned long i = 0; i < c->loops; i++) {
		void *ptr = __vmalloc_node(5 * PAGE_SIZE, align, GFP_KERNEL | __GFP_ZERO, 0,
					   __builtin_return_address(0));

		if (!ptr)
			return -1;
		vfree(ptr);
	}
	return 0;
}

static int random_size_align_alloc_test(struct vt_ctx *c)
{
	for (unsigned long i = 0; i < c->loops; i++) {
		uint8_t rnd = get_random_u8(c);
		unsigned long align = 1UL << (rnd % 23);	/* up to 1024 pages */
		unsigned long size = ((rnd % 10) + 1) * PAGE_SIZE;	/* up to 10 pages */
		void *ptr = __vmalloc_node(size, align, GFP_KERNEL | __GFP_ZERO, 0,
					   __builtin_return_address(0));

		if (!ptr)
			return -1;
		vfree(ptr);
	}
	return 0;
}

/* Once through every alignment of a long: the large ones must fail. */
static int align_shift_alloc_test(struct vt_ctx *c)
{
	(void)c;
	for (int i = 0; i < BITS_PER_LONG; i++) {
		void *ptr = __vmalloc_node(PAGE_SIZE, 1UL << i, GFP_KERNEL | __GFP_ZERO, 0,
					   __builtin_return_address(0));

		if (!ptr)
			return -1;
		vfree(ptr);
	}
	return 0;
}

static int vm_map_ram_test(struct vt_ctx *c)
{
	unsigned int map_nr_pages = c->p->nr_pages ? c->p->nr_pages : 1;
	struct page **pages = calloc(map_nr_pages, sizeof(struct page *));
	unsigned long nr_allocated;
	int rv = -1;

	if (!pages)
		return -1;
	nr_allocated = alloc_pages_bulk(GFP_KERNEL, map_nr_pages, pages);
	if (nr_allocated != map_nr_pages)
		goto cleanup;
	for (unsigned long i = 0; i < c->loops; i++) {
		unsigned char *v_ptr = vm_map_ram(pages, map_nr_pages, NUMA_NO_NODE);

		if (!v_ptr)
			goto cleanup;
		write_byte(v_ptr, 'a');
		vm_unmap_ram(v_ptr, map_nr_pages);
	}
	rv = 0;
cleanup:
	for (unsigned long i = 0; i < nr_allocated; i++)
		__free_page(pages[i]);
	free(pages);
	return rv;
}

static int (*const test_cases[NR_VMALLOC_TESTS])(struct vt_ctx *c) = {
	[VT_FIX_SIZE]		= fix_size_alloc_test,
	[VT_FULL_FIT]		= full_fit_alloc_test,
	[VT_LONG_BUSY_LIST]	= long_busy_list_alloc_test,
	[VT_RANDOM_SIZE]	= random_size_alloc_test,
	[VT_FIX_ALIGN]		= fix_align_alloc_test,
	[VT_RANDOM_SIZE_ALIGN]	= random_size_align_alloc_test,
	[VT_ALIGN_SHIFT]	= align_shift_alloc_test,
	[VT_VM_MAP_RAM]		= vm_map_ram_test,
};

/* --- one sample ---------------------------------------------------------------------- */

/*
 * The kernel's memory is resident; the model's arena is faulted in by the
 * host on first touch, which would charge a design for every page it
 * touches first (a design that recycles fewer pages would look faster).
 * Fault it all in before the timing, in 2 MiB pages where the host allows
 * (as the kernel's direct map is): 128 faults for 256 MiB instead of
 * 65536.  A fresh arena's contents are zero and stay so.
 */
static void prefault_arena(void)
{
	size_t len = (size_t)max_pfn << PAGE_SHIFT;

	madvise(mem_arena, len, MADV_HUGEPAGE);
	if (madvise(mem_arena, len, MADV_POPULATE_WRITE) == 0)
		return;
	for (size_t off = 0; off < len; off += PAGE_SIZE)
		((volatile char *)mem_arena)[off] = 0;
}

static void vt_collect(struct vmalloc_test_result *r, const struct tlb_flush_stats *tlb0,
		       const struct vmap_stats *vs0)
{
	struct page_alloc_report rep;
	char msg[128];

	r->tlb_flushes = tlb_flush_stats_read().flushes - tlb0->flushes;
	r->tlb_pages_flushed = tlb_flush_stats_read().pages - tlb0->pages;
	r->purges = vmap_stats.purges - vs0->purges;
	r->purged_areas = vmap_stats.purged_areas - vs0->purged_areas;
	r->huge_fallbacks = vmap_stats.huge_fallbacks - vs0->huge_fallbacks;
	r->pgtable_pages = (unsigned long)atomic_long_read(&init_mm.nr_pgtable_pages);
	if (page_alloc_check(&rep, msg, sizeof(msg)))
		return;		/* the final mem_check will report it */
	for (int o = 0; o < VT_NR_ORDERS; o++) {
		r->free_pages_by_order[o] = rep.free_by_order[o] << o;
		r->pcp_pages_by_order[o] = rep.pcp_by_order[o] << o;
	}
}

static int vmalloc_test_run(const void *params, void *result, char *msg, size_t len)
{
	const struct vmalloc_test_params *p = params;
	struct vmalloc_test_result *r = result;
	struct vt_ctx c = { .p = p, .loops = p->loops, .rnd = p->seed };
	struct tlb_flush_stats tlb0;
	struct vmap_stats vs0;
	char scratch[256];
	double t0;
	int ret;

	*r = (struct vmalloc_test_result){ 0 };
	if ((unsigned int)p->test >= NR_VMALLOC_TESTS) {
		snprintf(msg, len, "vmalloc: no test case %d", (int)p->test);
		return -EINVAL;
	}
	if (p->prefault)
		prefault_arena();
	if (vmalloc_init()) {
		snprintf(msg, len, "vmalloc: vmalloc_init() is out of memory");
		return -ENOMEM;
	}
	vmap_cont_pte_supported = p->cont_pte;
	tlb_flush_loops = p->tlb_flush_loops;
	tlb0 = tlb_flush_stats_read();
	vs0 = vmap_stats;

	t0 = timed_begin();
	r->failed = test_cases[p->test](&c) != 0;
	r->usec = timed_end(t0);

	vt_collect(r, &tlb0, &vs0);
	ret = vmalloc_check(msg, len);
	if (vmalloc_exit(ret ? scratch : msg, ret ? sizeof(scratch) : len))
		ret = -1;
	tlb_flush_loops = 0;
	vmap_cont_pte_supported = false;
	drain_all_pages(&contig_zone);
	return ret;
}

MM_WORKLOAD(vmalloc_test, .run = vmalloc_test_run,
	    .params_size = sizeof(struct vmalloc_test_params), .result_size = sizeof(struct vmalloc_test_result));
