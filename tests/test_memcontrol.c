// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the memory cgroup's charge and statistics
 * (include/linux/memcontrol.h, src/mm/memcontrol.c), on CPU 0:
 *
 *   root <- test
 *   file A, 4 pages of order 0: pages 0 and 1 read-faulted with "test" active,
 *       each cached and charged to test (and so to root) and mapped; then 2 and 3
 *   file B, 2 pages, faulted with no cgroup active: cached, charged to none
 *
 *   [A0 A1 .. ..]  test: usage 2, NR_FILE_PAGES 2, NR_FILE_MAPPED 2
 *   [A0 A1 A2 A3]  test: usage 4, NR_FILE_PAGES 4, NR_FILE_MAPPED 4
 *   [B0 B1]        the node's counts only
 *
 * memcg_rstat_updated(), a fresh root <- test, updates of 1 at a time:
 *   63 updates: 63 waiting on CPU 0 at each level, nothing folded
 *   64: folded at both levels (64 each), none waiting
 *   65: 1 waiting
 *   the shared count past MEMCG_CHARGE_BATCH x CPUs: the walk stops there
 * on x86-64 and on arm64 (whose per-CPU operations are atomics) alike.
 * Uncharging a batch of A's folios gives their pages back at both levels.
 */
#include <linux/memcontrol.h>

#include <machine/machine.h>

#include "rmap_test.h"

static struct mem_cgroup *root, *test;

static struct mem_cgroup *alloc_or_bail(struct mem_cgroup *parent)
{
	struct mem_cgroup *m = mem_cgroup_alloc(parent);

	if (!m) {
		printf("Bail out! mem_cgroup_alloc failed\n");
		exit(1);
	}
	return m;
}

static long usage(struct mem_cgroup *m)
{
	return atomic_long_read(&m->memory.usage);
}

static void test_charge(void)
{
	struct rt_file a, b;
	struct mm_struct *mm = rt_mm_alloc();
	long node_cached;
	struct folio *folio;
	struct folio_batch fbatch;

	root = alloc_or_bail(NULL);
	test = alloc_or_bail(root);
	rt_file_init(&a, RT_PAGES(4), 0);
	rt_file_init(&b, RT_PAGES(2), 0);
	rt_mmap(mm, &a, RT_BASE, 4, VM_READ, 0);
	rt_mmap(mm, &b, RT_BASE + RT_PAGES(16), 2, VM_READ, 0);

	is_int(set_active_memcg(test), 0, "no cgroup was active");
	is_int(rt_fault_range(mm, RT_BASE, 2), 0, "read faults of A's pages 0 and 1 in test");
	is_int(usage(test), 2, "A's 2 pages are charged to test");
	is_int(usage(root), 2, "... and to root, its parent");
	is_int(memcg_page_state(test, NR_FILE_PAGES), 2, "test's NR_FILE_PAGES is 2");
	is_int(memcg_page_state(test, NR_FILE_MAPPED), 2, "test's NR_FILE_MAPPED is 2");
	is_int(rt_fault_range(mm, RT_BASE + RT_PAGES(2), 2), 0, "read faults of A's pages 2 and 3");
	ok(set_active_memcg(NULL) == test, "set_active_memcg returns the one it replaces");
	is_int(a.mapping.nrpages, 4, "A is all cached");
	is_int(usage(test), 4, "A's 4 pages are charged to test");
	is_int(usage(root), 4, "... and to root");
	folio = xa_load(&a.mapping.i_pages, 3);
	ok(folio && folio->memcg_data == (unsigned long)test, "A's page 3 carries test");
	is_int(memcg_page_state(test, NR_FILE_PAGES), 4, "test's NR_FILE_PAGES is 4");
	is_int(lruvec_page_state(test, 0, NR_FILE_PAGES), 4, "... and its lruvec's on node 0");
	is_int(memcg_page_state(test, NR_FILE_MAPPED), 4, "test's NR_FILE_MAPPED is 4");
	is_int(memcg_page_state(root, NR_FILE_PAGES), 0, "root's own statistics are not test's");

	node_cached = (long)node_page_state_snapshot(&contig_node, NR_FILE_PAGES);
	is_int(rt_fault_range(mm, RT_BASE + RT_PAGES(16), 2), 0, "read faults of B's 2 pages, no cgroup");
	is_int((long)node_page_state_snapshot(&contig_node, NR_FILE_PAGES) - node_cached, 2,
	       "the node counted B's 2 pages");
	is_int(usage(test), 4, "test's charge did not move");
	is_int(memcg_page_state(test, NR_FILE_PAGES), 4, "... nor its NR_FILE_PAGES");
	folio = xa_load(&b.mapping.i_pages, 1);
	ok(folio && !folio->memcg_data, "B's page 1 carries no cgroup");

	mmput(mm);
	is_int(memcg_page_state(test, NR_FILE_MAPPED), 0, "all unmapped: test's NR_FILE_MAPPED 0");
	is_int(lruvec_page_state(test, 0, NR_FILE_MAPPED), 0, "... and its lruvec's");

	/* Two of A's folios, batched as reclaim frees them, and one of B's (no cgroup). */
	folio_batch_init(&fbatch);
	folio_batch_add(&fbatch, xa_load(&a.mapping.i_pages, 0));
	folio_batch_add(&fbatch, xa_load(&b.mapping.i_pages, 0));
	folio_batch_add(&fbatch, xa_load(&a.mapping.i_pages, 1));
	mem_cgroup_uncharge_folios(&fbatch);
	is_int(usage(test), 2, "uncharging a batch with 2 of A's pages: test's usage 2");
	is_int(usage(root), 2, "... root's 2");
	folio = xa_load(&a.mapping.i_pages, 1);
	ok(!folio->memcg_data, "... and the folios carry no cgroup");
	folio = xa_load(&a.mapping.i_pages, 2);
	ok(folio->memcg_data == (unsigned long)test, "A's page 2, not in the batch, still does");
	/* Truncation puts the last references: __folio_put() uncharges the rest. */
	rt_file_destroy(&a);
	rt_file_destroy(&b);
	is_int(usage(test), 0, "A truncated: nothing charged to test");
	is_int(usage(root), 0, "... nor to root");
	mem_cgroup_free(test);
	mem_cgroup_free(root);
}

/* @n updates of 1 to test's NR_FILE_MAPPED on node 0. */
static void updates(int n)
{
	for (int i = 0; i < n; i++)
		__mod_memcg_lruvec_state(test, 0, NR_FILE_MAPPED, 1);
}

static unsigned int waiting(struct mem_cgroup *m)
{
	return m->vmstats_percpu[smp_processor_id()].stats_updates;
}

static long folded(struct mem_cgroup *m)
{
	return atomic_long_read(&m->vmstats.stats_updates);
}

static void test_rstat(enum mmu_arch arch, const char *name)
{
	long limit;

	mmu_arch = arch;
	root = alloc_or_bail(NULL);
	test = alloc_or_bail(root);
	updates(63);
	ok(waiting(test) == 63 && waiting(root) == 63 && folded(test) == 0 && folded(root) == 0,
	   "%s: 63 updates wait on this CPU at both levels, none folded (%u, %u, %ld, %ld)", name,
	   waiting(test), waiting(root), folded(test), folded(root));
	updates(1);
	ok(waiting(test) == 0 && waiting(root) == 0 && folded(test) == 64 && folded(root) == 64,
	   "%s: the 64th folds both levels' 64 (%u, %u, %ld, %ld)", name,
	   waiting(test), waiting(root), folded(test), folded(root));
	updates(1);
	ok(waiting(test) == 1 && folded(test) == 64, "%s: the 65th waits (%u, %ld)", name,
	   waiting(test), folded(test));
	is_int(memcg_page_state(test, NR_FILE_MAPPED), 65, "%s: the statistic has all 65", name);
	is_int(lruvec_page_state(test, 0, NR_FILE_MAPPED), 65, "%s: ... and the lruvec's", name);

	/* Past MEMCG_CHARGE_BATCH x CPUs folded, test is due a flush: the walk stops at it. */
	limit = (long)MEMCG_CHARGE_BATCH * (nr_cpu_ids < NR_CPUS ? nr_cpu_ids : NR_CPUS);
	atomic_long_set(&test->vmstats.stats_updates, limit);
	updates(1);
	ok(waiting(test) == 2, "%s: at the flush threshold (%ld folded) the update still counts (%u)",
	   name, limit, waiting(test));
	atomic_long_set(&test->vmstats.stats_updates, limit + 1);
	updates(1);
	ok(waiting(test) == 2 && waiting(root) == 2, "%s: one past it the walk stops at test (%u, "
	   "root's %u unchanged)", name, waiting(test), waiting(root));
	is_int(memcg_page_state(test, NR_FILE_MAPPED), 67, "%s: the statistic itself still counts", name);
	mem_cgroup_free(test);
	mem_cgroup_free(root);
	mmu_arch = MMU_X86_64;
}

int main(void)
{
	plan_no_plan();
	rt_boot(16ULL << 20);
	test_charge();
	test_rstat(MMU_X86_64, "x86-64");
	test_rstat(MMU_ARM64, "arm64");
	done_testing();
}
