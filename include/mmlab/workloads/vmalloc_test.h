/*
 * The vmalloc experiment's interface to a kernel build: one case of the
 * kernel's lib/test_vmalloc.c, run on a booted machine
 * (src/workloads/vmalloc_test.c), and what it reports.
 */
#ifndef MMLAB_WORKLOADS_VMALLOC_TEST_H
#define MMLAB_WORKLOADS_VMALLOC_TEST_H

#include <stdbool.h>
#include <stdint.h>

enum vmalloc_test_id {
	VT_FIX_SIZE,		/* fix_size_alloc_test: vmalloc(p pages) or vmalloc_huge, write, vfree */
	VT_FULL_FIT,		/* full_fit_alloc_test */
	VT_LONG_BUSY_LIST,	/* long_busy_list_alloc_test */
	VT_RANDOM_SIZE,		/* random_size_alloc_test: 1..100 pages */
	VT_FIX_ALIGN,		/* fix_align_alloc_test: 5 pages at 32 KiB, zeroed */
	VT_RANDOM_SIZE_ALIGN,	/* random_size_align_alloc_test */
	VT_ALIGN_SHIFT,		/* align_shift_alloc_test: expected to fail */
	VT_VM_MAP_RAM,		/* vm_map_ram_test */
	NR_VMALLOC_TESTS,
};

/* The kernel's names of the cases, as its benchmark rows print them. */
static inline const char *vmalloc_test_name(enum vmalloc_test_id id)
{
	switch (id) {
	case VT_FIX_SIZE:		return "fix_size_alloc_test";
	case VT_FULL_FIT:		return "full_fit_alloc_test";
	case VT_LONG_BUSY_LIST:		return "long_busy_list_alloc_test";
	case VT_RANDOM_SIZE:		return "random_size_alloc_test";
	case VT_FIX_ALIGN:		return "fix_align_alloc_test";
	case VT_RANDOM_SIZE_ALIGN:	return "random_size_align_alloc_test";
	case VT_ALIGN_SHIFT:		return "align_shift_alloc_test";
	case VT_VM_MAP_RAM:		return "vm_map_ram_test";
	default:			return "?";
	}
}

/* A case whose failure is the expected outcome (test_vmalloc's xfail). */
static inline bool vmalloc_test_xfail(enum vmalloc_test_id id)
{
	return id == VT_ALIGN_SHIFT;
}

struct vmalloc_test_params {
	enum vmalloc_test_id test;
	unsigned int nr_pages;		/* fix_size_alloc_test, vm_map_ram_test: the "p:" */
	bool use_huge;			/* fix_size_alloc_test: vmalloc_huge(), the "h:" */
	unsigned long loops;		/* test_loop_count, the "l:" */
	uint64_t seed;			/* get_random_*() of the random cases */
	unsigned long tlb_flush_loops;	/* __delay() per TLB flush (--tlb-flush-ns) */
	bool cont_pte;			/* arm64: vmalloc_huge() < 2 MiB uses contiguous PTEs */
	bool prefault;			/* touch the arena first: host page faults out of the timing */
};

#define VT_NR_ORDERS	11		/* MAX_PAGE_ORDER + 1 */

struct vmalloc_test_result {
	double usec;			/* the whole case, as test_vmalloc times it */
	bool failed;			/* the case returned -1 (an allocation failed) */
	unsigned long tlb_flushes;	/* flush_tlb_kernel_range() calls */
	unsigned long tlb_pages_flushed;
	unsigned long purges;		/* lazy purges that freed areas */
	unsigned long purged_areas;
	unsigned long huge_fallbacks;	/* vmalloc_huge() retried with small pages */
	unsigned long pgtable_pages;	/* kernel page-table pages at the end of the case */
	/* Free pages (not blocks) per order after the case, before teardown. */
	unsigned long free_pages_by_order[VT_NR_ORDERS];	/* buddy */
	unsigned long pcp_pages_by_order[VT_NR_ORDERS];		/* per-CPU lists */
};

#endif
