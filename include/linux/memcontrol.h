/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory cgroups (mm/memcontrol.c): the charge of a folio to its task's
 * cgroup and the cgroup's statistics, as far as the paths the lab times
 * touch them.  A folio charged to a cgroup carries it in memcg_data; every
 * node statistic kept for such a folio (__lruvec_stat_mod_folio()) is kept
 * for its cgroup too: two per-CPU adds (the cgroup's and its lruvec's),
 * then memcg_rstat_updated(), which counts the update on this CPU at every
 * level up to the root and folds a level's count into a shared atomic once
 * it reaches MEMCG_CHARGE_BATCH.
 *
 * Only the tasks a workload puts in a cgroup (set_active_memcg()) charge
 * anything: the other experiments run as a kernel booted with
 * cgroup_disable=memory does.  Not modelled: the charge's limits,
 * reclaim by limit, the events, kmem, swap, v1.
 */
#ifndef _LINUX_MEMCONTROL_H
#define _LINUX_MEMCONTROL_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>

struct folio;
struct folio_batch;

/* Updates a CPU counts before it folds them into the cgroup's shared count. */
#define MEMCG_CHARGE_BATCH	64U

struct page_counter {
	atomic_long_t usage;		/* pages charged here and below */
	struct page_counter *parent;
};

/* A cgroup's shared statistics: what the per-CPU differences fold into. */
struct memcg_vmstats {
	atomic_long_t stats_updates;	/* updates folded, not yet flushed */
};

/* One CPU's part of a cgroup's statistics (the kernel's __percpu struct). */
struct memcg_vmstats_percpu {
	long state[NR_VM_NODE_STAT_ITEMS];
	unsigned int stats_updates;	/* updates on this CPU not yet folded */
	/* The parent's per-CPU parts (indexed by CPU as this one is); NULL at the root. */
	struct memcg_vmstats_percpu *parent_pcpu;
	struct memcg_vmstats *vmstats;
	/* css_rstat_updated(): this CPU is on the cgroup's updated list. */
	bool rstat_updated;
} __cacheline_aligned;

struct lruvec_stats_percpu {
	long state[NR_VM_NODE_STAT_ITEMS];
} __cacheline_aligned;

struct mem_cgroup_per_node {
	struct lruvec_stats_percpu *lruvec_stats_percpu;	/* [NR_CPUS] */
};

struct mem_cgroup {
	struct page_counter memory;	/* its parent's is memory.parent */
	struct memcg_vmstats vmstats;
	struct memcg_vmstats_percpu *vmstats_percpu;		/* [NR_CPUS] */
	struct mem_cgroup_per_node nodeinfo[MAX_NUMNODES];
};

/* A cgroup under @parent (NULL: a root); NULL if out of memory. */
struct mem_cgroup *mem_cgroup_alloc(struct mem_cgroup *parent);
void mem_cgroup_free(struct mem_cgroup *memcg);

/*
 * The cgroup of the task the model runs, which new page-cache folios are
 * charged to (the kernel's current task's cgroup); NULL: none.  Returns
 * the one it replaces.
 */
struct mem_cgroup *set_active_memcg(struct mem_cgroup *memcg);

/* Charge @folio to the active cgroup, if any (filemap_add_folio()). */
void mem_cgroup_charge(struct folio *folio);
/* Uncharge a folio about to be freed (__folio_put()). */
void mem_cgroup_uncharge(struct folio *folio);
/* Uncharge a batch of folios about to be freed (shrink_folio_list()). */
void mem_cgroup_uncharge_folios(struct folio_batch *fbatch);

/* A cgroup's statistic, summed over the CPUs (memcg_page_state() after a flush). */
long memcg_page_state(struct mem_cgroup *memcg, enum node_stat_item idx);
/* The same of the cgroup's lruvec on node @nid. */
long lruvec_page_state(struct mem_cgroup *memcg, int nid, enum node_stat_item idx);

#endif
