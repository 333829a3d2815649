/*
 * NUMA nodes (seed 003, part 2): a machine booted with nr_online_nodes = N
 * has N pglist_data, each with its own zone, free lists and per-CPU lists
 * over an equal span of whole MAX_PAGE_ORDER blocks; every page knows its
 * node (page_to_nid()); an allocation comes from the asking CPU's node,
 * else from the others in turn, never from another with __GFP_THISNODE;
 * alloc_pages_node() and __folio_alloc_node() prefer the node they name;
 * a freed page goes back to its own node's lists; the allocator checker
 * covers every node and catches a page that names the wrong node.  One
 * node (the default) is the machine every other test and experiment uses.
 *
 *   2 nodes, 64 MiB:   node 0: pfn 0 .. 8191      node 1: pfn 8192 .. 16383
 *   CPUs interleave:   cpu 0, 2, 4, ... -> node 0; cpu 1, 3, 5, ... -> node 1
 */
#include <string.h>

#include <linux/gfp.h>
#include <linux/mmzone.h>
#include <linux/rmap.h>
#include <linux/swap.h>
#include <linux/vmstat.h>
#include <machine/machine.h>

#include "mm_test.h"

#define MEM		(64ULL << 20)
#define NODE_PAGES	8192UL

static char msg[256];

static int check(struct page_alloc_report *r)
{
	int ret = page_alloc_check(r, msg, sizeof(msg));

	if (ret)
		diag("checker: %s", msg);
	return ret;
}

static struct zone *zone_of(int nid)
{
	return &NODE_DATA(nid)->node_zones[ZONE_NORMAL];
}

static unsigned long node_free(int nid)
{
	return zone_page_state_snapshot(zone_of(nid), NR_FREE_PAGES);
}

static void drain_nodes(void)
{
	lru_add_drain_all();
	for (int nid = 0; nid < nr_online_nodes; nid++)
		drain_all_pages(zone_of(nid));
}

static void boot(int nodes)
{
	nr_online_nodes = nodes;
	if (mem_init(MEM)) {
		printf("Bail out! mem_init failed\n");
		exit(1);
	}
}

static void test_boot_two_nodes(void)
{
	struct page_alloc_report r;

	boot(2);
	is_int(nr_online_nodes, 2, "boot: two nodes");
	ok(NODE_DATA(0)->node_start_pfn == 0 && NODE_DATA(0)->node_spanned_pages == NODE_PAGES &&
	   NODE_DATA(1)->node_start_pfn == NODE_PAGES && NODE_DATA(1)->node_spanned_pages == NODE_PAGES,
	   "boot: each node spans half the memory");
	ok(zone_of(0)->node == 0 && zone_of(1)->node == 1 &&
	   zone_of(1)->zone_start_pfn == NODE_PAGES, "boot: each node has its own zone");
	ok(page_to_nid(pfn_to_page(0)) == 0 && page_to_nid(pfn_to_page(NODE_PAGES - 1)) == 0 &&
	   page_to_nid(pfn_to_page(NODE_PAGES)) == 1 && page_to_nid(pfn_to_page(2 * NODE_PAGES - 1)) == 1,
	   "boot: page_to_nid() at both ends of both nodes");
	ok(page_zone(pfn_to_page(NODE_PAGES + 5)) == zone_of(1), "boot: page_zone() follows the node");
	ok(node_free(0) == NODE_PAGES && node_free(1) == NODE_PAGES, "boot: each node's pages free");
	is_int(nr_free_pages(), 2 * NODE_PAGES, "boot: nr_free_pages() sums the nodes");
	is_int(totalram_pages(), 2 * NODE_PAGES, "boot: totalram_pages() sums the nodes");
	ok(cpu_to_node(0) == 0 && cpu_to_node(1) == 1 && cpu_to_node(2) == 0 && cpu_to_node(3) == 1,
	   "boot: CPUs interleave over the nodes");
	ok(check(&r) == 0 && r.free == 2 * NODE_PAGES, "boot: the checker passes over both nodes");
	is_int(r.free_by_order[MAX_PAGE_ORDER], 16, "boot: 16 order-10 blocks in all");
}

static void test_node_allocations(void)
{
	struct page_alloc_report r;
	struct page *local, *remote;
	struct folio *folio;

	is_int(numa_node_id(), 0, "alloc: the test runs on CPU 0, node 0");
	local = alloc_pages(GFP_KERNEL, 0);
	ok(local && page_to_nid(local) == 0, "alloc: alloc_pages() takes the local node's page");
	remote = alloc_pages_node(1, GFP_KERNEL, 0);
	ok(remote && page_to_nid(remote) == 1, "alloc: alloc_pages_node(1) takes node 1's page");
	folio = __folio_alloc_node(GFP_HIGHUSER_MOVABLE, 3, 1);
	ok(folio && folio_nid(folio) == 1 && folio_order(folio) == 3 &&
	   page_to_nid(folio_page(folio, 7)) == 1, "alloc: an order-3 folio on node 1, every page");
	ok(folio_pgdat(folio) == NODE_DATA(1), "alloc: folio_pgdat() is node 1");
	__free_page(local);
	__free_page(remote);
	folio_put(folio);
	ok(zone_of(1)->per_cpu_pageset[0].count > 0,
	   "free: node 1's pages went to node 1's per-CPU list of this CPU");
	drain_nodes();
	ok(node_free(0) == NODE_PAGES && node_free(1) == NODE_PAGES, "free: each page back on its node");
	ok(check(&r) == 0, "free: the checker passes");
}

/*
 * Node 0 emptied with __GFP_THISNODE, one order-10 block at a time: the
 * next __GFP_THISNODE allocation fails, a plain one falls back to node 1.
 */
static void test_fallback_and_thisnode(void)
{
	struct page_alloc_report r;
	struct page *blocks[16], *page;
	int n = 0, on_node0 = 0;

	while (n < 16 && (page = alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN,
						   MAX_PAGE_ORDER))) {
		on_node0 += page_to_nid(page) == 0;
		blocks[n++] = page;
	}
	is_int(n, NODE_PAGES >> MAX_PAGE_ORDER, "THISNODE: node 0 gives exactly its 8 blocks");
	is_int(on_node0, n, "THISNODE: all of them node 0's");
	ok(!alloc_pages_node(0, GFP_KERNEL | __GFP_THISNODE | __GFP_NOWARN, 0),
	   "THISNODE: then nothing, not even one page");
	page = alloc_pages(GFP_KERNEL, 0);
	ok(page && page_to_nid(page) == 1, "fallback: a plain allocation on node 0 takes node 1's page");
	__free_page(page);
	while (n)
		__free_pages(blocks[--n], MAX_PAGE_ORDER);
	drain_nodes();
	ok(node_free(0) == NODE_PAGES && node_free(1) == NODE_PAGES, "fallback: everything back");
	ok(check(&r) == 0, "fallback: the checker passes");
}

/* The checker catches a page that names the wrong node, and a zone count off by one. */
static void test_checker_catches(void)
{
	struct page_alloc_report r;
	struct page *page = pfn_to_page(100);

	set_page_node(page, 1);
	ok(check(&r) != 0 && strstr(msg, "node"), "mutant: a page of node 0 that says node 1 is caught");
	set_page_node(page, 0);
	ok(check(&r) == 0, "mutant undone: the checker passes");
	__mod_zone_page_state(zone_of(1), NR_FREE_PAGES, 1);
	ok(check(&r) != 0 && strstr(msg, "node 1"), "mutant: node 1's free count off by one is caught");
	__mod_zone_page_state(zone_of(1), NR_FREE_PAGES, -1);
	ok(check(&r) == 0, "mutant undone: the checker passes");
}

/* An anonymous fault on node 0's CPU gets a node 0 folio; the mm's tables too. */
static void test_anon_fault_local(void)
{
	struct mm_struct *mm = mm_alloc();
	struct vm_area_struct *vma;
	unsigned long addr = 0x7f0000000000UL;
	struct page_alloc_report r;
	pte_t *ptep;

	do_mmap(mm, NULL, addr, 4 * PAGE_SIZE, VM_READ | VM_WRITE, 0);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	is_int(handle_mm_fault(vma, addr, FAULT_FLAG_WRITE), 0, "anon: a write fault");
	mmap_read_unlock(mm);
	ptep = mm_find_pte(mm, addr);
	ok(ptep && pte_present(*ptep) && page_to_nid(pte_page(*ptep)) == 0,
	   "anon: the folio is on the faulting CPU's node");
	mmput(mm);
	drain_nodes();
	ok(check(&r) == 0 && r.allocated == 0, "anon: everything free again on both nodes");
}

static void test_one_node_default(void)
{
	struct page_alloc_report r;

	boot(1);
	ok(nr_online_nodes == 1 && NODE_DATA(0)->node_spanned_pages == 2 * NODE_PAGES,
	   "one node: it spans all memory");
	ok(page_to_nid(pfn_to_page(2 * NODE_PAGES - 1)) == 0 && cpu_to_node(1) == 0,
	   "one node: every page and CPU on node 0");
	ok(check(&r) == 0 && r.free == 2 * NODE_PAGES, "one node: the checker passes");
	boot(4);
	ok(nr_online_nodes == 4 && NODE_DATA(3)->node_start_pfn == 3 * NODE_PAGES / 2,
	   "four nodes: a quarter each");
	ok(check(&r) == 0, "four nodes: the checker passes");
	nr_online_nodes = 1;
}

int main(void)
{
	plan_no_plan();
	machine_init();
	test_boot_two_nodes();
	test_node_allocations();
	test_fallback_and_thisnode();
	test_checker_catches();
	test_anon_fault_local();
	test_one_node_default();
	mem_exit();
	return done_testing();
}
