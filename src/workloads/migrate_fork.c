// SPDX-License-Identifier: GPL-2.0
/*
 * The migrate-fork workload, inside the kernel build: the RFC's test.
 *
 *	buf = mmap(size, anonymous, private); fault it all in on node 0;
 *	fork N children; each writes the first --cow share of buf (COW);
 *	mbind(buf, size, MPOL_BIND to node 1, MPOL_MF_MOVE)	(timed)
 *
 * "Processes" are mm_structs (dup_mm()), the writes go through the
 * model's page tables and faults.  Afterwards every process's every byte
 * is compared with what it wrote, every page table is searched for
 * migration entries, and the rmap census and the LRU are checked; the
 * caller then checks that every page is free once all have exited.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/guest_touch.h>
#include <linux/ktime.h>
#include <linux/migrate.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <linux/vmstat.h>
#include <mmlab/workloads/migrate_fork.h>
#include "workloads.h"

#define MF_BASE		0x7f0000000000UL	/* 2 MiB-aligned; the buffer starts p->offset past it */
#define MF_STAMP_OFF	64		/* where a child writes its number in each page it copies */
#define MF_THP_ORDER	9		/* HPAGE_PMD_ORDER on x86-64: a PMD maps 2 MiB */

struct mf_run {
	unsigned long base;		/* the buffer's address */
	const struct mf_params *p;
	struct mm_struct **mms;		/* [0] the parent, then the children */
	int nr_mms;
	unsigned long nr_pages;
	unsigned long nr_cow;		/* pages each child writes */
	int full_children;		/* the last children, whose copies run in full (mf_full_children()) */
};

/* The byte the parent wrote at every offset of page @n. */
static unsigned char mf_pattern(unsigned long n)
{
	return (unsigned char)(n * 37 + 11);
}

/* The page mapped at @addr of @mm, faulting it in (for a write if @write). */
static unsigned char *mf_touch(struct mm_struct *mm, unsigned long addr, bool write)
{
	for (int tries = 0; tries < 4; tries++) {
		unsigned char *p = mmu_access(mm, addr, write);
		vm_fault_t ret;

		if (p)
			return p;
		mmap_read_lock(mm);
		ret = handle_mm_fault(vma_lookup(mm, addr), addr, write ? FAULT_FLAG_WRITE : 0);
		mmap_read_unlock(mm);
		if (ret & VM_FAULT_ERROR)
			return NULL;
	}
	return NULL;
}

/*
 * The host backs the simulated memory lazily: the first write to a page
 * costs a host fault and zeroing that no kernel pays.  Take that cost
 * before the timed call for the pages the targets will come from: take
 * as many blocks of node 1, of the folios' order, as will move, write
 * them, give them back (the allocator hands the same blocks out again).
 */
static void mf_warm_target(struct mf_run *run)
{
	unsigned int order = run->p->folio_order;
	unsigned long nr = run->nr_pages >> order;
	struct page **pages = calloc(nr, sizeof(*pages));

	if (!pages)
		return;
	for (unsigned long i = 0; i < nr; i++) {
		pages[i] = alloc_pages_node(1, GFP_HIGHUSER_MOVABLE | __GFP_THISNODE | __GFP_NOWARN, order);
		if (!pages[i])
			break;
		memset(page_address(pages[i]), 0, PAGE_SIZE << order);
	}
	for (unsigned long i = nr; i-- > 0;)
		if (pages[i])
			__free_pages(pages[i], order);
	free(pages);
}

/*
 * How many of the last children copy in full on a simulated machine that
 * fast-forwards the rest of the set-up (--fast-forward on): enough that
 * their copies write at least twice the bytes its caches hold, so the
 * caches the timed call finds are what a full run leaves; all of them
 * if they write less (or nothing), or on the host.
 */
static int mf_full_children(const struct mf_run *run)
{
	unsigned long cache = machine_cache_bytes();
	unsigned long per_child = run->nr_cow << PAGE_SHIFT;
	unsigned long full;

	if (!run->p->fast_forward || !cache || !per_child)
		return run->p->children;
	full = (2 * cache + per_child - 1) / per_child;
	return full < (unsigned long)run->p->children ? (int)full : run->p->children;
}

static int mf_setup(struct mf_run *run, char *msg, size_t len)
{
	const struct mf_params *p = run->p;
	int first_full = p->children - run->full_children + 1;
	struct mm_struct *parent;

	if (first_full > 1)
		machine_fast_forward(true);
	parent = mm_alloc();
	if (!parent)
		goto oom;
	run->mms[run->nr_mms++] = parent;
	if (do_mmap(parent, NULL, run->base, (unsigned long)p->size, VM_READ | VM_WRITE, 0) != run->base) {
		snprintf(msg, len, "migrate-fork: mmap of the buffer failed");
		return -1;
	}
	/* The parent faults the buffer in on its own node (0) and fills it. */
	for (unsigned long n = 0; n < run->nr_pages; n++) {
		unsigned char *page = mf_touch(parent, run->base + (n << PAGE_SHIFT), true);

		if (!page)
			goto oom;
		if (n % (1UL << p->folio_order) == 0 &&
		    page_to_nid(virt_to_page(page)) != 0) {
			snprintf(msg, len, "migrate-fork: page %lu of the buffer faulted in on node %d, not 0",
				 n, page_to_nid(virt_to_page(page)));
			return -1;
		}
		memset(page, mf_pattern(n), PAGE_SIZE);
	}
	/* Fork them all, then each copies its share (the RFC's children memset it all). */
	for (int c = 1; c <= p->children; c++) {
		struct mm_struct *child = dup_mm(parent);

		if (!child)
			goto oom;
		run->mms[run->nr_mms++] = child;
	}
	for (int c = 1; c <= p->children; c++) {
		if (c == first_full)
			machine_fast_forward(false);
		for (unsigned long n = 0; n < run->nr_cow; n++) {
			unsigned char *page = mf_touch(run->mms[c], run->base + (n << PAGE_SHIFT), true);

			if (!page)
				goto oom;
			memcpy(page + MF_STAMP_OFF, &c, sizeof(c));
		}
	}
	lru_add_drain();
	/* Cold targets: node 1's frames untouched; a host beneath backs each at its first write, in the call. */
	if (!p->target_cold)
		mf_warm_target(run);
	return 0;
oom:
	snprintf(msg, len, "migrate-fork: out of memory setting up %d children of %llu bytes: raise --mem",
		 p->children, p->size);
	return -ENOMEM;
}

static void mf_teardown(struct mf_run *run)
{
	for (int i = 0; i < run->nr_mms; i++)
		mmput(run->mms[i]);
	lru_add_drain();
}

/* Does page @n of process @c (0: the parent) read what that process wrote? */
static bool mf_page_ok(struct mf_run *run, int c, unsigned long n, unsigned char *expect)
{
	unsigned char *page = mmu_access(run->mms[c], run->base + (n << PAGE_SHIFT), false);

	if (!page)
		return false;
	if (c && n < run->nr_cow)
		memcpy(expect + MF_STAMP_OFF, &c, sizeof(c));
	else
		memset(expect + MF_STAMP_OFF, mf_pattern(n), sizeof(c));
	return !memcmp(page, expect, PAGE_SIZE);
}

static int mf_check(struct mf_run *run, struct mf_result *r, char *msg, size_t len)
{
	static unsigned char expect[PAGE_SIZE];

	for (unsigned long n = 0; n < run->nr_pages; n++) {
		pte_t *ptep = mm_find_pte(run->mms[0], run->base + (n << PAGE_SHIFT));
		pte_t pte = ptep ? __ptep_get(ptep) : __pte(0);

		memset(expect, mf_pattern(n), PAGE_SIZE);
		for (int c = 0; c < run->nr_mms; c++) {
			pte_t *cp = mm_find_pte(run->mms[c], run->base + (n << PAGE_SHIFT));

			if (cp && is_swap_pte(__ptep_get(cp)) &&
			    is_migration_entry(pte_to_swp_entry(__ptep_get(cp))))
				r->entries_left++;
			else if (!mf_page_ok(run, c, n, expect))
				r->data_mismatches++;
		}
		if (pte_present(pte) && page_to_nid(pte_page(pte)) == 1)
			r->pages_on_target++;
	}
	if (rmap_check(run->mms, run->nr_mms, NULL, 0, msg, len) || lruvec_check(&node_lruvec, msg, len))
		return -1;
	return 0;
}

static int migrate_fork_run(const void *params, void *result, char *msg, size_t len)
{
	const struct mf_params *p = params;
	struct mf_result *r = result;
	struct mf_run run = { .p = p, .base = MF_BASE + p->offset };
	unsigned long events[NR_VM_EVENT_ITEMS], nr = 1UL << p->folio_order;
	double t0;
	int err;

	*r = (struct mf_result){ 0 };
	run.nr_pages = (unsigned long)(p->size >> PAGE_SHIFT);
	if (p->children < 0 || p->cow < 0 || p->cow > 1 || !run.nr_pages || run.nr_pages % nr ||
	    p->offset % (nr * PAGE_SIZE) || p->offset >= PMD_SIZE || nr_online_nodes < 2) {
		snprintf(msg, len, "migrate-fork: bad parameters");
		return -EINVAL;
	}
	/* Whole folios: a child copies a whole folio's pages or none. */
	run.nr_cow = (unsigned long)(p->cow * (double)run.nr_pages + 0.5);
	run.nr_cow = run.nr_cow / nr * nr;
	run.mms = calloc((size_t)p->children + 1, sizeof(*run.mms));
	if (!run.mms) {
		snprintf(msg, len, "migrate-fork: out of memory");
		return -ENOMEM;
	}
	/*
	 * Every process's copy is written: ask the host for huge pages behind
	 * the simulated memory, so that its first touches cost 512 times fewer
	 * host faults (setup time only; the timed call touches warmed pages).
	 */
	madvise(mem_arena, max_pfn << PAGE_SHIFT, MADV_HUGEPAGE);
	/* THP "always": a fault maps a 2 MiB folio where its aligned range fits the VMA. */
	anon_folio_order = p->thp ? MF_THP_ORDER : p->folio_order;
	if (p->target_cold && p->host_backs) {
		guest_touch = (struct guest_touch){ .host_order = p->host_page_order,
						    .fault_ns = p->first_touch_ns };
		guest_touch.backed = calloc((max_pfn >> p->host_page_order) / BITS_PER_LONG + 1,
					    sizeof(long));
		guest_touch.pending = calloc(max_pfn / BITS_PER_LONG + 1, sizeof(long));
		if (!guest_touch.backed || !guest_touch.pending) {
			free(guest_touch.backed);
			free(guest_touch.pending);
			free(run.mms);
			guest_touch = (struct guest_touch){ 0 };
			snprintf(msg, len, "migrate-fork: out of memory");
			return -ENOMEM;
		}
	}
	r->vmas = (unsigned long)p->children + 1;
	run.full_children = mf_full_children(&run);
	r->full_children = run.full_children;
	/* Moved: what no child shares any more, or everything with MOVE_ALL. */
	r->pages_expected = p->move_all || p->children == 0 ? run.nr_pages : run.nr_cow;
	err = mf_setup(&run, msg, len);
	if (!err) {
		unsigned long after[NR_VM_EVENT_ITEMS];

		all_vm_events(events);
		guest_touch.armed = true;
		lru_cache_disable_ns = p->lru_disable_ns;
		migrate_memcg_ns = p->memcg_ns;
		tlb_flush_loops = p->tlb_flush_loops;
		switch_mm_cpu(smp_processor_id(), run.mms[0]);	/* the parent calls mbind() */
		t0 = timed_begin();
		r->mbind_ret = do_mbind(run.mms[0], run.base, (unsigned long)p->size, 1,
					p->move_all ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE);
		r->usec = timed_end(t0);
		guest_touch.armed = false;
		lru_cache_disable_ns = 0;
		migrate_memcg_ns = 0;
		tlb_flush_loops = 0;
		r->host_faults = guest_touch.faults;
		all_vm_events(after);
		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
			after[i] -= events[i];
		r->pages_moved = after[PGMIGRATE_SUCCESS];
		r->pages_failed = after[PGMIGRATE_FAIL];
		if (p->vm_events)
			memcpy(p->vm_events, after, sizeof(after));
	}
	/* What no window measures runs fast-forwarded: the checks, the exits. */
	if (p->fast_forward)
		machine_fast_forward(true);
	if (!err)
		err = mf_check(&run, r, msg, len);
	free(guest_touch.backed);
	free(guest_touch.pending);
	guest_touch = (struct guest_touch){ 0 };
	mf_teardown(&run);
	anon_folio_order = 0;
	free(run.mms);
	return err;
}

MM_WORKLOAD(migrate_fork, .run = migrate_fork_run,
	    .params_size = sizeof(struct mf_params), .result_size = sizeof(struct mf_result));
