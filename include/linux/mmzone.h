/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Nodes and zones: nr_online_nodes NUMA nodes (1 unless set before boot),
 * each a pglist_data with one zone (ZONE_NORMAL) holding a contiguous
 * range of the machine's pfns, with the buddy allocator's free lists per
 * order and migratetype, the pageblock migratetypes, and the per-CPU page
 * lists.  A page's node is kept in the top bits of its flags, as the
 * kernel keeps it (page_to_nid()).
 */
#ifndef _LINUX_MMZONE_H
#define _LINUX_MMZONE_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/vmstat.h>

enum migratetype {
	MIGRATE_UNMOVABLE,
	MIGRATE_MOVABLE,
	MIGRATE_RECLAIMABLE,
	MIGRATE_PCPTYPES,	/* the number of types on the pcp lists */
	MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES,
	MIGRATE_ISOLATE,	/* can't allocate from here */
	MIGRATE_TYPES
};

static inline bool is_migrate_isolate(int mt)
{
	return mt == MIGRATE_ISOLATE;
}

/*
 * Zone statistics (enum zone_stat_item in linux/vmstat.h), kept as the
 * kernel keeps them: a global atomic per item, and per CPU a small signed
 * difference folded into it only when it passes the CPU's threshold.
 */
struct per_cpu_zonestat {
	s8 vm_stat_diff[NR_VM_ZONE_STAT_ITEMS];
	s8 stat_threshold;
} __cacheline_aligned;

struct free_area {
	struct list_head free_list[MIGRATE_TYPES];
	unsigned long nr_free;		/* blocks of this order, all types */
};

static inline bool free_area_empty(struct free_area *area, int migratetype)
{
	return list_empty(&area->free_list[migratetype]);
}

/*
 * Per-CPU lists hold orders 0..PAGE_ALLOC_COSTLY_ORDER for each pcp
 * migratetype, plus two lists for the pageblock (THP) order: movable, and
 * unmovable with reclaimable.
 */
#define NR_LOWORDER_PCP_LISTS	(MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1))
#define NR_PCP_THP		2
#define NR_PCP_LISTS		(NR_LOWORDER_PCP_LISTS + NR_PCP_THP)

/* The kernel's CONFIG_PCP_BATCH_SCALE_MAX default. */
#define PCP_BATCH_SCALE_MAX	5

#define PCPF_PREV_FREE_HIGH_ORDER	BIT(0)	/* the previous free was high-order */
#define PCPF_FREE_HIGH_BATCH		BIT(1)	/* cache slice holds > 3 batches */

struct per_cpu_pages {
	spinlock_t lock;		/* protects everything below */
	int count;			/* pages on the lists */
	int high;			/* free to the buddy above this; tuned between: */
	int high_min, high_max;
	int batch;			/* chunk size for buddy add/remove */
	unsigned char flags;		/* PCPF_* */
	unsigned char alloc_factor;	/* refill batch scale, 0..PCP_BATCH_SCALE_MAX */
	short free_count;		/* pages freed recently without allocating */
	struct list_head lists[NR_PCP_LISTS];
} __cacheline_aligned;

/* The model's nodes have one zone each. */
enum zone_type {
	ZONE_NORMAL,
	MAX_NR_ZONES
};

#define MAX_NUMNODES	8
#define NODES_SHIFT	3
/* A page's node, in page->flags above every page flag (the kernel's NODES_PGSHIFT). */
#define NODES_PGSHIFT	56
#define NODES_MASK	((1UL << NODES_SHIFT) - 1)

static inline int page_to_nid(const struct page *page)
{
	return (int)((READ_ONCE(page->flags) >> NODES_PGSHIFT) & NODES_MASK);
}

static inline int folio_nid(const struct folio *folio)
{
	return page_to_nid(&folio->page);
}

/* At boot, before the page is in use. */
static inline void set_page_node(struct page *page, int nid)
{
	page->flags = (page->flags & ~(NODES_MASK << NODES_PGSHIFT)) |
		      ((unsigned long)nid << NODES_PGSHIFT);
}

struct zone {
	spinlock_t lock;
	int node;			/* the node this zone belongs to */
	unsigned long zone_start_pfn;
	unsigned long spanned_pages;
	unsigned long managed_pages;
	unsigned long watermark_min, watermark_low, watermark_high;
	atomic_long_t vm_stat[NR_VM_ZONE_STAT_ITEMS];
	atomic_long_t leaked_pages;	/* bad pages taken out of use */
	struct free_area free_area[NR_PAGE_ORDERS];
	struct per_cpu_pages per_cpu_pageset[NR_CPUS];
	struct per_cpu_zonestat per_cpu_zonestats[NR_CPUS];
} __cacheline_aligned;

static inline unsigned long zone_end_pfn(const struct zone *zone)
{
	return zone->zone_start_pfn + zone->spanned_pages;
}

static inline bool zone_spans_pfn(const struct zone *zone, unsigned long pfn)
{
	return zone->zone_start_pfn <= pfn && pfn < zone_end_pfn(zone);
}

struct per_cpu_nodestat {
	s8 vm_node_stat_diff[NR_VM_NODE_STAT_ITEMS];
	s8 stat_threshold;
} __cacheline_aligned;

/* A NUMA node: its zone, its span of pfns and its statistics. */
typedef struct pglist_data {
	struct zone node_zones[MAX_NR_ZONES];
	int node_id;
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages;
	atomic_long_t vm_stat[NR_VM_NODE_STAT_ITEMS];
	struct per_cpu_nodestat per_cpu_nodestats[NR_CPUS];
} pg_data_t;

extern struct pglist_data node_data[MAX_NUMNODES];
#define NODE_DATA(nid)		(&node_data[(nid)])

/*
 * How many nodes the machine has: set before mem_init() (default 1), which
 * splits memory into that many equal spans of whole MAX_PAGE_ORDER blocks.
 */
extern int nr_online_nodes;

/*
 * Node 0's zone and node under the names the one-node model used: with one
 * node, every page is there.
 */
#define contig_zone	(node_data[0].node_zones[ZONE_NORMAL])
#define contig_node	(node_data[0])

/* Which node each CPU belongs to (numa_node_id()): interleaved, cpu % nodes, set at boot. */
extern unsigned char cpu_node_map[NR_CPUS];

static inline int cpu_to_node(int cpu)
{
	return cpu_node_map[cpu];
}

static inline int numa_node_id(void)
{
	return cpu_to_node(smp_processor_id());
}

static inline struct pglist_data *folio_pgdat(const struct folio *folio)
{
	return NODE_DATA(folio_nid(folio));
}

struct mem_cgroup;
/* The statistic of @memcg and of its lruvec on node @nid (mm/memcontrol.c). */
void __mod_memcg_lruvec_state(struct mem_cgroup *memcg, int nid, enum node_stat_item idx, long val);

/*
 * A folio's node statistic, and its cgroup's where it is charged to one
 * (linux/memcontrol.h); a folio charged to none changes its node's only.
 */
static inline void __lruvec_stat_mod_folio(struct folio *folio, enum node_stat_item idx, long val)
{
	struct mem_cgroup *memcg = (struct mem_cgroup *)folio->memcg_data;

	__mod_node_page_state(folio_pgdat(folio), idx, val);
	if (memcg)
		__mod_memcg_lruvec_state(memcg, folio_nid(folio), idx, val);
}

static inline struct zone *page_zone(const struct page *page)
{
	return &NODE_DATA(page_to_nid(page))->node_zones[ZONE_NORMAL];
}

/*
 * Pageblock migratetypes, one byte per pageblock of the whole machine (the
 * kernel keeps them per memory section); every zone's pageblock_mt points
 * here.
 */
extern unsigned char *pageblock_mt;

static inline int get_pfnblock_migratetype(const struct page *page, unsigned long pfn)
{
	(void)page;
	return READ_ONCE(pageblock_mt[pfn >> pageblock_order]);
}

static inline int get_pageblock_migratetype(const struct page *page)
{
	return get_pfnblock_migratetype(page, page_to_pfn(page));
}

void set_pageblock_migratetype(struct page *page, int migratetype);

static inline bool pcp_allowed_order(unsigned int order)
{
	return order <= PAGE_ALLOC_COSTLY_ORDER || order == pageblock_order;
}

static inline unsigned int order_to_pindex(int migratetype, unsigned int order)
{
	if (order > PAGE_ALLOC_COSTLY_ORDER)
		return NR_LOWORDER_PCP_LISTS + (migratetype == MIGRATE_MOVABLE);
	return (MIGRATE_PCPTYPES * order) + migratetype;
}

static inline unsigned int pindex_to_order(unsigned int pindex)
{
	if (pindex >= NR_LOWORDER_PCP_LISTS)
		return pageblock_order;
	return pindex / MIGRATE_PCPTYPES;
}

/*
 * Called by mem_init(): split the memmap's pages between nr_online_nodes
 * nodes and hand them to each node's buddy allocator.
 */
void page_alloc_init(unsigned long start_pfn, unsigned long nr_pages);
void page_alloc_exit(void);

/* Pages the buddy allocator manages on every node (totalram_pages()). */
unsigned long totalram_pages(void);

/* Return every CPU's pcp pages to the buddy (drain_all_pages). */
void drain_all_pages(struct zone *zone);
/* ... this CPU's pcp pages of @zone only. */
void drain_local_pages(struct zone *zone);

/*
 * drain_all_pages(), and every CPU's list back to its boot tuning (high at
 * high_min, no streak of frees, alloc_factor 0), so that what follows
 * allocates and frees as after a boot: for the interleaving checker, whose
 * executions must each start from the same state.  Not a kernel function.
 */
void zone_pcp_retune(struct zone *zone);

/* What the allocator's checker found (mm/page_alloc_check.c). */
struct page_alloc_report {
	unsigned long free;		/* pages in buddy free blocks */
	unsigned long free_listed;	/* ... counted from the free lists */
	unsigned long isolated;		/* of which on MIGRATE_ISOLATE lists */
	unsigned long free_blocks;	/* of which not isolated, in blocks >= pageblock_order */
	unsigned long pcp;		/* pages on per-CPU lists */
	unsigned long allocated;	/* pages neither free nor leaked */
	unsigned long leaked;		/* pages leaked by bad_page() */
	unsigned long free_by_order[NR_PAGE_ORDERS];	/* buddy blocks */
	unsigned long pcp_by_order[NR_PAGE_ORDERS];	/* pcp blocks */
};

/*
 * Check every allocator invariant over the whole memmap and every node;
 * 0, or -1 with a one-line description of the first violation in @msg.
 * Takes every pcp lock and zone lock: the allocator must be quiescent or
 * at least not mid-way through an operation on another thread.
 */
int page_alloc_check(struct page_alloc_report *r, char *msg, size_t len);

/*
 * Fill freed pages with PAGE_POISON so that use-after-free reads show, and
 * check every freed page (the kernel's page_poisoning_enabled_static() and
 * check_pages_enabled static keys).  The tests set page_poisoning_on at run
 * time.  In virtual time it is off for good: a static key that is off is a
 * NOP in the kernel, where a test of a global would be a charged block.
 */
extern bool page_poisoning_on;

static inline bool page_poisoning_enabled(void)
{
#ifdef MMLAB_VT
	return false;
#else
	return page_poisoning_on;
#endif
}
#define PAGE_POISON	0xaa

/*
 * Online CPUs, for pcp high/batch sizing at boot (the kernel's
 * num_online_cpus()); the lab sets nr_cpu_ids before mem_init().
 */
static inline int num_online_cpus(void)
{
	return nr_cpu_ids;
}

#endif
