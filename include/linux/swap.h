/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRU lists and page reclaim (the classic two-list LRU; MGLRU is not
 * modelled).  One node, no memory cgroups: one lruvec holds every folio,
 * and memory_reclaim() plays memory.reclaim of the root cgroup.
 */
#ifndef _LINUX_SWAP_H
#define _LINUX_SWAP_H

#include <linux/mm.h>
#include <linux/list.h>
#include <linux/spinlock.h>

enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS,
};

#define LRU_ACTIVE	1

/* File folios age on the file lists; anonymous (swap-backed) ones on the anon lists. */
static inline bool folio_is_file_lru(const struct folio *folio)
{
	return !folio_test_swapbacked(folio);
}

struct lruvec {
	spinlock_t lru_lock;
	struct list_head lists[NR_LRU_LISTS];
	unsigned long nr_pages[NR_LRU_LISTS];	/* under lru_lock */
	/* Pages activated or evicted: the clock of refault distances (workingset.c). */
	atomic_long_t nonresident_age;
};

extern struct lruvec node_lruvec;

#define SWAP_CLUSTER_MAX	32UL
#define DEF_PRIORITY		12
#define MAX_RECLAIM_RETRIES	16

void lruvec_init(struct lruvec *lruvec);

/* Link and unlink under lru_lock, by the folio's PG_active / PG_unevictable. */
void update_lru_size(struct lruvec *lruvec, enum lru_list lru, long nr_pages);
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio);

/*
 * Put a new folio (a reference held) on the inactive or, if PG_active,
 * active list: through this CPU's lru_add batch, which holds a reference
 * of its own until it is moved (31 folios, or a large folio, or a drain).
 */
void folio_add_lru(struct folio *folio);
/* The same for a folio a fault maps in @vma (no mlock in the model: folio_add_lru). */
static inline void folio_add_lru_vma(struct folio *folio, struct vm_area_struct *vma)
{
	(void)vma;
	folio_add_lru(folio);
}
void folio_mark_accessed(struct folio *folio);

/* mm/workingset.c: a folio was activated; the lruvec's non-resident age advances. */
void workingset_age_nonresident(struct lruvec *lruvec, unsigned long nr_pages);
void workingset_activation(struct folio *folio);

/* Move this CPU's batches, one CPU's, or every CPU's (those CPUs quiescent). */
void lru_add_drain(void);
/* While disabled (migration under way), additions move at once, unbatched. */
void lru_cache_disable(void);
extern unsigned long lru_cache_disable_ns;	/* the drain on every CPU and RCU, not run (swap.c) */
void lru_cache_enable(void);
extern atomic_t lru_disable_count;
static inline bool lru_cache_disabled(void)
{
	return atomic_read(&lru_disable_count) != 0;
}
void lru_add_drain_cpu(int cpu);
void lru_add_drain_all(void);

/* A boot: every CPU's batches empty (what they held went with the old memory). */
void lru_batches_init(void);

/* Folios sitting in some CPU's batch (for the checkers). */
unsigned int lru_batched_folios(void);

/*
 * Take a folio whose last reference is gone off its LRU list (the
 * kernel's __page_cache_release(), from __folio_put()).
 */
void folio_lru_release(struct folio *folio);

struct reclaim_stat {
	unsigned long nr_scanned;	/* pages isolated and looked at */
	unsigned long nr_reclaimed;	/* pages freed */
	unsigned long nr_activate;	/* pages moved to the active list */
	unsigned long nr_keep;		/* pages put back inactive (referenced once, locked, busy) */
	unsigned long nr_unmap_fail;
	unsigned long nr_referenced_calls;
	unsigned long nr_unmap_calls;
};

struct scan_control {
	unsigned long nr_to_reclaim;
	int priority;
	unsigned long nr_reclaimed;
	struct reclaim_stat *stat;	/* the caller's, added to */
};

/*
 * Reclaim @nr_pages from the file LRU of one node, as a write of that many
 * bytes to memory.reclaim does: repeated try_to_free_pages() passes of
 * falling priority until the target is met.  Returns the pages reclaimed
 * (0 with @stat filled in is a failure: -EAGAIN in the kernel).
 */
unsigned long memory_reclaim(unsigned long nr_pages, struct reclaim_stat *stat);

/*
 * Reclaim folios the caller isolated (folio_isolate_lru()), as MADV_PAGEOUT
 * does (mm/internal.h's reclaim_pages()); what is not reclaimed goes back
 * on the LRU.  Returns the pages reclaimed.
 */
unsigned long reclaim_pages(struct list_head *folio_list, bool ignore_references);

/*
 * The LRU's invariants: every folio on a list carries PG_lru, is on the
 * list its PG_active says, and the counts add up.  0, or -1 and @msg.
 */
int lruvec_check(struct lruvec *lruvec, char *msg, size_t len);

#endif
