// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim-large workload, inside the kernel build: the series' test.
 *
 *	map the file (clean, large folios) in N processes, fault it all in
 *	and touch every page, so every entry is young;
 *	echo SIZE > memory.reclaim		(timed: memory_reclaim())
 *
 * then check everything (rmap census, LRU, page cache, data) and hash the
 * outcome: which file pages are still cached and every entry's present,
 * young and cont bits, which must not depend on the design.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/vmstat.h>
#include <mmlab/random.h>
#include <mmlab/workloads/reclaim_large.h>
#include "workloads.h"

/* Where each process maps the file: 1 GiB aligned, so PMDs line up with the file. */
#define RL_MAP_BASE	0x7f0000000000UL
#define RL_MAX_MMS	64

struct rl_run {
	const struct rl_params *p;
	struct address_space mapping;
	struct backing_file backing;
	struct file file;
	struct mm_struct *mms[RL_MAX_MMS];
	int nr_mms;
	unsigned long nr_pages;
	/* With p->memcg: the root cgroup and the test's, which the file is charged to. */
	struct mem_cgroup *root_memcg, *memcg;
};

/* The entry mapping @addr, read without setting any bit; none if unmapped. */
static pte_t rl_pte(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep = mm_find_pte(mm, addr);

	return ptep ? __ptep_get(ptep) : __pte(0);
}

/* Fault in and touch every page of every process's mapping. */
static int rl_populate(struct rl_run *run, char *msg, size_t len)
{
	for (int i = 0; i < run->nr_mms; i++) {
		struct mm_struct *mm = run->mms[i];

		mmap_read_lock(mm);
		for (unsigned long n = 0; n < run->nr_pages; n++) {
			unsigned long addr = RL_MAP_BASE + (n << PAGE_SHIFT);
			vm_fault_t ret;

			if (mmu_access(mm, addr, false))
				continue;
			ret = handle_mm_fault(vma_lookup(mm, addr), addr, 0);
			if (ret & VM_FAULT_ERROR || !mmu_access(mm, addr, false)) {
				mmap_read_unlock(mm);
				snprintf(msg, len, "reclaim-large: the fault at page %lu of process %d failed (%s)",
					 n, i, ret & VM_FAULT_OOM ? "out of memory: raise --mem" : "SIGBUS");
				return ret & VM_FAULT_OOM ? -ENOMEM : -1;
			}
		}
		mmap_read_unlock(mm);
	}
	return 0;
}

/* The CPU mapping process @i ran on: round robin over the CPUs but the reclaiming one. */
static int rl_mapper_cpu(int i)
{
	int cpu = i % (nr_cpu_ids - 1);

	return cpu >= smp_processor_id() ? cpu + 1 : cpu;
}

/*
 * Each mapping process ran on its CPU (the faults are taken here, on the
 * reclaiming CPU, which keeps their cache footprint where the old runs
 * had it) and sleeps there unless it is still running.  The reclaiming
 * CPU runs a task of its own (memory.reclaim's writer).
 */
static void rl_place_mappers(struct rl_run *run)
{
	for (int i = 0; i < run->nr_mms; i++) {
		int cpu = rl_mapper_cpu(i);

		switch_mm_cpu(cpu, run->mms[i]);
		if (!run->p->mappers_running)
			enter_lazy_tlb_cpu(cpu);
	}
	switch_mm_cpu(smp_processor_id(), NULL);
}

static int rl_setup(struct rl_run *run, char *msg, size_t len)
{
	const struct rl_params *p = run->p;
	int err;

	address_space_init(&run->mapping);
	run->mapping.i_size = (loff_t)p->map_size;
	run->mapping.folio_order = p->folio_order;
	if (p->fd >= 0) {
		run->backing.fd = p->fd;
		run->mapping.backing = &run->backing;
	}
	run->file.f_mapping = &run->mapping;
	file_ra_state_init(&run->file.f_ra);
	run->file.f_ra.ra_pages = p->ra_pages;	/* the faults read ahead and size the folios */
	for (run->nr_mms = 0; run->nr_mms < p->nr_processes; run->nr_mms++) {
		struct mm_struct *mm = mm_alloc();
		unsigned long addr;

		if (!mm) {
			snprintf(msg, len, "reclaim-large: out of memory for an mm");
			return -ENOMEM;
		}
		run->mms[run->nr_mms] = mm;
		addr = do_mmap(mm, &run->file, RL_MAP_BASE, p->map_size, VM_READ, 0);
		if (addr != RL_MAP_BASE) {
			run->nr_mms++;
			snprintf(msg, len, "reclaim-large: mmap failed (%ld)", (long)addr);
			return -ENOMEM;
		}
	}
	if (p->memcg) {
		run->root_memcg = mem_cgroup_alloc(NULL);
		run->memcg = run->root_memcg ? mem_cgroup_alloc(run->root_memcg) : NULL;
		if (!run->memcg) {
			snprintf(msg, len, "reclaim-large: out of memory for a cgroup");
			return -ENOMEM;
		}
	}
	set_active_memcg(run->memcg);	/* the faults charge the file's folios to it */
	err = rl_populate(run, msg, len);
	set_active_memcg(NULL);
	if (!err)
		rl_place_mappers(run);
	return err;
}

static void rl_teardown(struct rl_run *run)
{
	for (int i = 0; i < run->nr_mms; i++)
		mmput(run->mms[i]);
	truncate_inode_pages(&run->mapping);
	address_space_destroy(&run->mapping);
	mem_cgroup_free(run->memcg);
	mem_cgroup_free(run->root_memcg);
}

/*
 * The cgroup's books against the node's: every page still cached is
 * charged to it (at both levels), and its mapped-file count is the node's
 * (the file is all there is).
 */
static int memcg_check(struct rl_run *run, char *msg, size_t len)
{
	long cached = (long)run->mapping.nrpages;
	long mapped = (long)node_page_state_snapshot(&contig_node, NR_FILE_MAPPED);
	long m_cached = memcg_page_state(run->memcg, NR_FILE_PAGES);
	long m_mapped = memcg_page_state(run->memcg, NR_FILE_MAPPED);
	long l_mapped = lruvec_page_state(run->memcg, 0, NR_FILE_MAPPED);

	if (atomic_long_read(&run->memcg->memory.usage) != cached ||
	    atomic_long_read(&run->root_memcg->memory.usage) != cached || m_cached != cached ||
	    m_mapped != mapped || l_mapped != mapped) {
		snprintf(msg, len, "reclaim-large: the cgroup's books: %ld and %ld pages charged, "
			 "NR_FILE_PAGES %ld, NR_FILE_MAPPED %ld (lruvec %ld); cached %ld, mapped %ld",
			 atomic_long_read(&run->memcg->memory.usage),
			 atomic_long_read(&run->root_memcg->memory.usage), m_cached, m_mapped,
			 l_mapped, cached, mapped);
		return -1;
	}
	return 0;
}

/* Which file pages are cached, and every entry's present, young and cont bits. */
static uint64_t rl_digest(struct rl_run *run)
{
	uint64_t h = 0x6d6d6c6162ULL;

	for (unsigned long n = 0; n < run->nr_pages; n++) {
		struct folio *folio = xa_load(&run->mapping.i_pages, n);
		uint64_t v = folio && !xa_is_value(folio);

		for (int i = 0; i < run->nr_mms; i++) {
			pte_t pte = rl_pte(run->mms[i], RL_MAP_BASE + (n << PAGE_SHIFT));

			v = v << 3 | (uint64_t)pte_present(pte) << 2 | (uint64_t)pte_young(pte) << 1 |
			    (uint64_t)pte_cont(pte);
		}
		h = splitmix64_next(&h) ^ v ^ n;
	}
	return h;
}

/* Compare every still-mapped page of the first process with the file. */
static unsigned long rl_check_data(struct rl_run *run)
{
	unsigned long bad = 0;
	char buf[PAGE_SIZE];

	if (run->p->fd < 0)
		return 0;
	for (unsigned long n = 0; n < run->nr_pages; n++) {
		pte_t pte = rl_pte(run->mms[0], RL_MAP_BASE + (n << PAGE_SHIFT));

		if (!pte_present(pte))
			continue;
		if (pread(run->p->fd, buf, PAGE_SIZE, (off_t)(n << PAGE_SHIFT)) != PAGE_SIZE ||
		    memcmp(buf, page_address(pte_page(pte)), PAGE_SIZE))
			bad++;
	}
	return bad;
}

/* The vm events counted since @start was taken, into @events if asked. */
static void rl_vm_events_since(unsigned long *events, const unsigned long *start)
{
	if (!events)
		return;
	all_vm_events(events);
	for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
		events[i] -= start[i];
}

static void rl_reclaim(struct rl_run *run, struct rl_result *r)
{
	unsigned long want = (unsigned long)(run->p->reclaim_size >> PAGE_SHIFT);
	struct tlb_flush_stats tlb0 = tlb_flush_stats_read();
	unsigned long events[NR_VM_EVENT_ITEMS];
	struct reclaim_stat stat;
	double t0;

	all_vm_events(events);
	t0 = timed_begin();
	memory_reclaim(want, &stat);
	r->usec = timed_end(t0);
	rl_vm_events_since(run->p->vm_events, events);
	r->reclaimed_pages = stat.nr_reclaimed;
	r->scanned_pages = stat.nr_scanned;
	r->activated_pages = stat.nr_activate;
	r->kept_pages = stat.nr_keep;
	r->referenced_calls = stat.nr_referenced_calls;
	r->unmap_calls = stat.nr_unmap_calls;
	r->tlb_flushes = tlb_flush_stats_read().flushes - tlb0.flushes;
	r->tlb_pages_flushed = tlb_flush_stats_read().pages - tlb0.pages;
	r->tlb_syncs = tlb_flush_stats_read().syncs - tlb0.syncs;
	r->tlb_shootdowns = tlb_flush_stats_read().shootdowns - tlb0.shootdowns;
}

static int rl_check(struct rl_run *run, struct rl_result *r, char *msg, size_t len)
{
	struct address_space *mappings[1] = { &run->mapping };

	if (rmap_check(run->mms, run->nr_mms, mappings, 1, msg, len) ||
	    lruvec_check(&node_lruvec, msg, len) || filemap_check(&run->mapping, msg, len) ||
	    (run->memcg && memcg_check(run, msg, len)))
		return -1;
	r->mapped_pages = node_page_state_snapshot(&contig_node, NR_FILE_MAPPED);
	r->digest = rl_digest(run);
	r->data_mismatches = rl_check_data(run);
	return 0;
}

int reclaim_large_run(const void *params, void *result, char *msg, size_t len)
{
	const struct rl_params *p = params;
	struct rl_result *r = result;
	struct rl_run *run = calloc(1, sizeof(*run));
	int err;

	*r = (struct rl_result){ 0 };
	if (!run || p->nr_processes < 1 || p->nr_processes > RL_MAX_MMS || nr_cpu_ids < 2) {
		free(run);
		snprintf(msg, len, "reclaim-large: bad parameters");
		return -EINVAL;
	}
	run->p = p;
	run->nr_pages = (unsigned long)(p->map_size >> PAGE_SHIFT);
	mmu_arch = p->contpte ? MMU_ARM64 : MMU_X86_64;
	tlb_flush_loops = p->tlb_flush_loops;
	tlbi_loops = p->tlbi_loops;
	tlbi_range = p->tlbi_range;

	err = rl_setup(run, msg, len);
	if (!err) {
		rl_reclaim(run, r);
		err = rl_check(run, r, msg, len);
	}
	rl_teardown(run);
	mmu_arch = MMU_X86_64;
	tlb_flush_loops = 0;
	tlbi_loops = 0;
	tlbi_range = false;
	free(run);
	return err;
}

MM_WORKLOAD(reclaim_large, .run = reclaim_large_run,
	    .params_size = sizeof(struct rl_params), .result_size = sizeof(struct rl_result));
