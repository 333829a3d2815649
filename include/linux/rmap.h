/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reverse mapping: from a folio to the page-table entries that map it.
 * File folios are found through their mapping's i_mmap tree of VMAs,
 * anonymous folios through their anon_vma's tree of anon_vma_chains; in
 * each VMA, page_vma_mapped_walk() visits the entries that map the folio.
 */
#ifndef _LINUX_RMAP_H
#define _LINUX_RMAP_H

#include <errno.h>

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/pgtable.h>

/* --- the anon rmap (mm/rmap.c, the model's mm/anon_vma.c) ------------------------------ */

#include <linux/rcupdate.h>

/*
 * An anon_vma: the set of VMAs (through their anon_vma_chains, in an
 * interval tree by page offset) where the anonymous folios that point to
 * it may be mapped.  A VMA faults new folios into its own anon_vma
 * (vma->anon_vma); fork links the child's VMA into every anon_vma of the
 * parent's VMA and gives it one of its own (or reuses an old one), so a
 * folio created before a fork is found in the children too.  All the
 * anon_vmas of one family share the root's rwsem.
 */
struct anon_vma {
	struct anon_vma *root;		/* root of this anon_vma tree */
	struct rw_semaphore rwsem;	/* the root's protects the whole family */
	/*
	 * Pins the anon_vma beyond the VMAs (folio_get_anon_vma(), a child
	 * pinning its root); the tree's own reference is dropped by
	 * unlink_anon_vmas() when the tree empties.
	 */
	atomic_t refcount;
	/* Under the root's rwsem, written: fork's anon_vma reuse rules. */
	unsigned long num_children;	/* anon_vmas whose parent this is (the root counts itself) */
	unsigned long num_active_vmas;	/* VMAs whose vma->anon_vma this is */
	struct anon_vma *parent;	/* the parent VMA's anon_vma at fork */
	struct rb_root rb_root;		/* anon_vma_chains, by page offset */
	struct rcu_head rcu;		/* freed after a grace period (SLAB_TYPESAFE_BY_RCU) */
};

/*
 * One link between a VMA and an anon_vma: on the VMA's anon_vma_chain
 * list (same_vma) and in the anon_vma's tree (rb).
 */
struct anon_vma_chain {
	struct vm_area_struct *vma;
	struct anon_vma *anon_vma;
	struct list_head same_vma;	/* under mmap_lock and the root's rwsem */
	struct rb_node rb;		/* under the root's rwsem */
	unsigned long rb_subtree_last;
};

static inline void anon_vma_lock_write(struct anon_vma *anon_vma)	{ down_write(&anon_vma->root->rwsem); }
static inline void anon_vma_unlock_write(struct anon_vma *anon_vma)	{ up_write(&anon_vma->root->rwsem); }
static inline void anon_vma_lock_read(struct anon_vma *anon_vma)	{ down_read(&anon_vma->root->rwsem); }
static inline bool anon_vma_trylock_read(struct anon_vma *anon_vma)	{ return down_read_trylock(&anon_vma->root->rwsem); }
static inline void anon_vma_unlock_read(struct anon_vma *anon_vma)	{ up_read(&anon_vma->root->rwsem); }

static inline void get_anon_vma(struct anon_vma *anon_vma)
{
	atomic_inc(&anon_vma->refcount);
}

void __put_anon_vma(struct anon_vma *anon_vma);

static inline void put_anon_vma(struct anon_vma *anon_vma)
{
	if (atomic_dec_and_test(&anon_vma->refcount))
		__put_anon_vma(anon_vma);
}

/* The anon_vma a folio points to, or NULL for a file folio. */
static inline struct anon_vma *folio_anon_vma(const struct folio *folio)
{
	unsigned long mapping = (unsigned long)READ_ONCE(folio->mapping);

	if ((mapping & FOLIO_MAPPING_FLAGS) != FOLIO_MAPPING_ANON)
		return NULL;
	return (struct anon_vma *)(mapping - FOLIO_MAPPING_ANON);
}

/* Give @vma an anon_vma before its first anonymous folio; 0 or -ENOMEM. */
int __anon_vma_prepare(struct vm_area_struct *vma);

static inline int anon_vma_prepare(struct vm_area_struct *vma)
{
	if (likely(vma->anon_vma))
		return 0;
	return __anon_vma_prepare(vma);
}

/* Link @dst into every anon_vma of @src, maybe reusing one; 0 or -ENOMEM. */
int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src);
/* Fork: clone @pvma's chains into @vma and give it its own anon_vma; 0 or -ENOMEM. */
int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma);
/* Unlink @vma from every anon_vma, freeing those left empty. */
void unlink_anon_vmas(struct vm_area_struct *vma);

void anon_vma_interval_tree_insert(struct anon_vma_chain *node, struct rb_root *root);
void anon_vma_interval_tree_remove(struct anon_vma_chain *node, struct rb_root *root);
struct anon_vma_chain *anon_vma_interval_tree_iter_first(struct rb_root *root,
							 unsigned long start, unsigned long last);
struct anon_vma_chain *anon_vma_interval_tree_iter_next(struct anon_vma_chain *node,
							unsigned long start, unsigned long last);

#define anon_vma_interval_tree_foreach(avc, root, start, last)			\
	for (avc = anon_vma_interval_tree_iter_first(root, start, last);	\
	     avc; avc = anon_vma_interval_tree_iter_next(avc, start, last))

/* Live anon_vmas (model: for tests and the checkers). */
extern atomic_long_t nr_anon_vmas;

/* --- mapcounts (mm/rmap.c) ----------------------------------------------------------- */

/* rmap_t flags */
typedef int rmap_t;
#define RMAP_NONE	((rmap_t)0)
#define RMAP_EXCLUSIVE	((rmap_t)1)	/* the pages are PageAnonExclusive */

/*
 * A new anonymous folio (not yet visible to anyone) is mapped whole at
 * @address of @vma: its mapping, index, swapbacked flag, mapcounts and, with
 * RMAP_EXCLUSIVE, PageAnonExclusive.
 */
void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma,
			     unsigned long address, rmap_t flags);
/* @nr pages from @page of an existing anonymous @folio are now mapped at @address. */
void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma, unsigned long address, rmap_t flags);
#define folio_add_anon_rmap_pte(folio, page, vma, address, flags) \
	folio_add_anon_rmap_ptes(folio, page, 1, vma, address, flags)
/*
 * Fork: @nr pages from @page, mapped in @src_vma, are now mapped in
 * @dst_vma too; PageAnonExclusive is cleared (the pages are shared).  0, or
 * -EBUSY where a page may be pinned and must be copied (never, here: the
 * model has no GUP pins).
 */
int folio_try_dup_anon_rmap_ptes(struct folio *folio, struct page *page, int nr,
				 struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
#define folio_try_dup_anon_rmap_pte(folio, page, dst_vma, src_vma) \
	folio_try_dup_anon_rmap_ptes(folio, page, 1, dst_vma, src_vma)
/* The folio (locked, exclusive) now belongs to @vma's own anon_vma. */
void folio_move_anon_rmap(struct folio *folio, struct vm_area_struct *vma);
/*
 * Before an exclusive page's entry becomes a migration entry (already
 * cleared): it is no longer exclusive.  0, or -EBUSY where it may be pinned
 * (never, in the model).
 */
static inline int folio_try_share_anon_rmap_pte(struct folio *folio, struct page *page)
{
	(void)folio;
	ClearPageAnonExclusive(page);
	return 0;
}

/* @nr pages from @page of @folio are now mapped by PTEs of @vma. */
void folio_add_file_rmap_ptes(struct folio *folio, struct page *page, int nr,
			      struct vm_area_struct *vma);
void folio_remove_rmap_ptes(struct folio *folio, struct page *page, int nr,
			    struct vm_area_struct *vma);
#define folio_remove_rmap_pte(folio, page, vma) folio_remove_rmap_ptes(folio, page, 1, vma)

/*
 * The node's NR_FILE_MAPPED and NR_ANON_MAPPED (pages of file and of
 * anonymous folios mapped at least once) are node statistics
 * (linux/vmstat.h), changed per CPU by the rmap functions.
 */

/* --- the walk of one VMA (mm/page_vma_mapped.c) ---------------------------------------- */

/* page_vma_mapped_walk() flags */
#define PVMW_SYNC	(1 << 0)	/* take the page table lock even where nothing matches */
#define PVMW_MIGRATION	(1 << 1)	/* look for migration entries, not present ones */

struct page_vma_mapped_walk {
	unsigned long pfn;		/* the folio's first pfn */
	unsigned long nr_pages;
	pgoff_t pgoff;			/* the folio's first file page */
	struct vm_area_struct *vma;
	unsigned long address;		/* where the current entry maps */
	pmd_t *pmd;
	pte_t *pte;			/* the current entry, ptl held */
	spinlock_t *ptl;
	unsigned int flags;
};

#define DEFINE_FOLIO_VMA_WALK(name, _folio, _vma, _address, _flags)	\
	struct page_vma_mapped_walk name = {				\
		.pfn = folio_pfn(_folio),				\
		.nr_pages = folio_nr_pages(_folio),			\
		.pgoff = folio_index(_folio),				\
		.vma = _vma,						\
		.address = _address,					\
		.flags = _flags,					\
	}

/*
 * Step to the next present entry of the VMA that maps a page of the folio,
 * from pvmw->address (the first call) or past the current entry.  Returns
 * true with pvmw->pte pointing at it and its table's lock held, false when
 * there are no more (every lock dropped).
 */
bool page_vma_mapped_walk(struct page_vma_mapped_walk *pvmw);

static inline void page_vma_mapped_walk_done(struct page_vma_mapped_walk *pvmw)
{
	if (pvmw->pte)
		pte_unmap(pvmw->pte);
	if (pvmw->ptl)
		spin_unlock(pvmw->ptl);
}

/* The user address where @vma maps file page @pgoff (which it must cover). */
static inline unsigned long vma_address(const struct vm_area_struct *vma, pgoff_t pgoff,
					unsigned long nr_pages)
{
	unsigned long address;

	if (pgoff >= vma->vm_pgoff) {
		address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
		/* A wrapped address, or one past the VMA: not mapped here. */
		if (address < vma->vm_start || address >= vma->vm_end)
			address = (unsigned long)-EFAULT;
	} else if (pgoff + nr_pages - 1 >= vma->vm_pgoff) {
		/* The folio starts below the VMA: its first mapped page is at vm_start. */
		address = vma->vm_start;
	} else {
		address = (unsigned long)-EFAULT;
	}
	return address;
}

/* Where the folio's mapping in the walk's VMA ends. */
static inline unsigned long vma_address_end(const struct page_vma_mapped_walk *pvmw)
{
	const struct vm_area_struct *vma = pvmw->vma;
	pgoff_t pgoff = pvmw->pgoff + pvmw->nr_pages;
	unsigned long address;

	if (pvmw->nr_pages == 1)
		return pvmw->address + PAGE_SIZE;
	address = vma->vm_start + ((pgoff - vma->vm_pgoff) << PAGE_SHIFT);
	if (address < vma->vm_start || address > vma->vm_end)
		address = vma->vm_end;
	return address;
}

/* --- rmap walks (mm/rmap.c) ------------------------------------------------------------- */

struct rmap_walk_control {
	void *arg;
	bool try_lock;		/* give up (contended) rather than wait for the rmap lock */
	bool contended;
	/* Visit one VMA; false stops the walk. */
	bool (*rmap_one)(struct folio *folio, struct vm_area_struct *vma,
			 unsigned long addr, void *arg);
	/* After each VMA: true when there is nothing left to do. */
	bool (*done)(struct folio *folio);
	bool (*invalid_vma)(struct vm_area_struct *vma, void *arg);
	/* After the walk, still under the rmap lock (NULL: nothing). */
	void (*exit)(struct folio *folio, void *arg);
	/* Lock the anon_vma of an anonymous folio (default: rmap_walk_anon_lock). */
	struct anon_vma *(*anon_lock)(const struct folio *folio, struct rmap_walk_control *rwc);
};

/* The folio must be locked. */
void rmap_walk(struct folio *folio, struct rmap_walk_control *rwc);
/* The same with the rmap lock (i_mmap_rwsem or the anon_vma's) already held. */
void rmap_walk_locked(struct folio *folio, struct rmap_walk_control *rwc);

/*
 * Lock the anon_vma of a folio that need not be locked, for reading:
 * NULL if the folio is not anonymous or no longer mapped.  Tries the root's
 * rwsem first; if that fails, gives up with @rwc->try_lock (contended), or
 * pins the anon_vma and sleeps on the rwsem.  Unlock with
 * anon_vma_unlock_read().
 */
struct anon_vma *folio_lock_anon_vma_read(const struct folio *folio,
					  struct rmap_walk_control *rwc);

/*
 * Test and clear the accessed bits of every entry mapping @folio (locked).
 * Returns how many VMAs had a young entry, or -1 if the rmap lock was
 * contended; *@vm_flags collects those VMAs' flags (VM_LOCKED if the folio
 * is mlocked in one).
 */
int folio_referenced(struct folio *folio, int is_locked, void *memcg, unsigned long *vm_flags);

enum ttu_flags {
	TTU_IGNORE_MLOCK	= 0x8,
	TTU_BATCH_FLUSH		= 0x40,	/* defer the TLB flush: try_to_unmap_flush() */
	TTU_RMAP_LOCKED		= 0x80,	/* the caller holds the rmap lock */
};

/* Unmap every entry mapping @folio (locked); afterwards check folio_mapped(). */
void try_to_unmap(struct folio *folio, enum ttu_flags flags);

/*
 * Replace every entry mapping @folio (locked, anonymous) with a migration
 * entry: writable, read-exclusive or readable as the entry and the page's
 * PageAnonExclusive say, keeping young and dirty.  Stops once the folio is
 * no longer mapped; afterwards check folio_mapped().
 */
void try_to_migrate(struct folio *folio, enum ttu_flags flags);

/* Pin @folio's anon_vma while it is mapped (migration); NULL if unmapped. */
struct anon_vma *folio_get_anon_vma(const struct folio *folio);

/* remove_migration_ptes() flags */
#define RMP_LOCKED	(1 << 0)	/* the caller holds the rmap lock */

/*
 * Replace every migration entry for @src with an entry mapping the
 * corresponding page of @dst (@src itself on the undo path); walks every
 * VMA of the rmap, without stopping early, as upstream does.
 */
void remove_migration_ptes(struct folio *src, struct folio *dst, int flags);

/*
 * How many entries from pvmw->pte one batch may cover for @folio: the run
 * of present entries mapping its consecutive pages, within the VMA and the
 * page table (mm/internal.h's folio_pte_batch()).
 */
unsigned int folio_pte_batch(struct folio *folio, pte_t *ptep, pte_t pte, unsigned int max_nr);

/*
 * The model's checker of address spaces against folios (mm/rmap_check.c),
 * everything quiescent: every present PTE of @mms maps, in a file VMA, a
 * page of a folio cached in its VMA's file at the index the VMA maps
 * there, and in an anonymous VMA, a page of an anonymous folio whose
 * anon_vma the VMA is linked into (so rmap finds it), at the index the VMA
 * maps there, writable only if PageAnonExclusive; non-present entries are
 * migration entries naming a page of an allocated anonymous folio, as many
 * as the design's count says (linux/migrate.h: exact for mgt-counter, not
 * fewer for a typed mgt-entry folio); contiguous blocks are aligned, whole and map
 * consecutive pages of one folio; each page's _mapcount, each folio's
 * _large_mapcount and _nr_pages_mapped, each mm's MM_FILEPAGES and
 * MM_ANONPAGES, the nodes' NR_FILE_MAPPED and NR_ANON_MAPPED equal what the page
 * tables say (of @mms: pass every mm that maps anonymous memory); an
 * exclusive page is mapped at most once; each cached folio of @mappings
 * holds at least its cache and PTE references, each anonymous folio its
 * PTE references.  0, or -1 and the first violation in @msg.
 */
int rmap_check(struct mm_struct *const *mms, int nr_mms,
	       struct address_space *const *mappings, int nr_mappings, char *msg, size_t len);

/* --- where reclaim's time goes (CONFIG_DEBUG_VM_EVENTS) --------------------------------- */

#ifdef CONFIG_DEBUG_VM_EVENTS
unsigned long rmap_clock_ns(void);
static inline unsigned long rmap_time_start(void)
{
	return rmap_clock_ns();
}
#define rmap_time_add(item, start)	count_vm_events(item, rmap_clock_ns() - (start))
#elif defined(MMLAB_VT)
/*
 * Virtual time: the machine sums each span's virtual time under its item
 * (machine/machine.h, vt_span_add()), at no cost to the model, so a run on
 * a simulated machine says where reclaim's and migration's time went.
 */
static inline unsigned long rmap_time_start(void)
{
	return vt_span_clock();
}
#define rmap_time_add(item, start)	vt_span_add(item, start)
#else
static inline unsigned long rmap_time_start(void)
{
	return 0;
}
#define rmap_time_add(item, start)	do { (void)(start); } while (0)
#endif

#endif
