/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page migration (mm/migrate.c) and the mbind()/move_pages() style entry
 * points (mm/mempolicy.c, mm/migrate.c's do_pages_move()).  The model
 * migrates anonymous folios only.
 */
#ifndef _LINUX_MIGRATE_H
#define _LINUX_MIGRATE_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/pgtable.h>

enum migrate_mode {
	MIGRATE_ASYNC,		/* never block: trylock only, TLB flushes deferred */
	MIGRATE_SYNC_LIGHT,
	MIGRATE_SYNC,		/* block on folio locks */
};

enum migrate_reason {
	MR_SYSCALL,		/* move_pages() */
	MR_MEMPOLICY_MBIND,
	MR_TYPES
};

#define MIGRATEPAGE_SUCCESS	0
#define MIGRATEPAGE_UNMAP	1

/* The kernel's batch and pass limits (mm/migrate.c). */
#define NR_MAX_BATCHED_MIGRATION	512	/* pages per batch */
#define NR_MAX_MIGRATE_PAGES_RETRY	10
#define NR_MAX_MIGRATE_ASYNC_RETRY	3
#define NR_MAX_MIGRATE_SYNC_RETRY	(NR_MAX_MIGRATE_PAGES_RETRY - NR_MAX_MIGRATE_ASYNC_RETRY)

typedef struct folio *new_folio_t(struct folio *folio, unsigned long private);
typedef void free_folio_t(struct folio *folio, unsigned long private);

/*
 * Migrate the isolated folios on @from (linked by their lru) to folios
 * @get_new_folio makes.  Returns how many could not be migrated (left on
 * @from, for putback_movable_pages()), or a negative error.  Migrated
 * folios are freed; *@ret_succeeded (if given) counts them.
 */
int migrate_pages(struct list_head *from, new_folio_t get_new_folio, free_folio_t put_new_folio,
		  unsigned long private, enum migrate_mode mode, int reason,
		  unsigned int *ret_succeeded);

/* Give isolated folios back to the LRU, dropping the isolation reference. */
void putback_movable_pages(struct list_head *l);

/* Take a folio off the LRU with a reference (false if it was not on it). */
bool folio_isolate_lru(struct folio *folio);
/* Back onto the LRU, dropping the isolation reference. */
void folio_putback_lru(struct folio *folio);

/* A new folio like @src on node @private (alloc_migration_target()). */
struct folio *alloc_migration_target(struct folio *src, unsigned long private);

/*
 * A fault found a migration entry at @address: wait (without the page
 * table lock) until the folio it names is unlocked, that is until the
 * migration has restored the entries; the access then retries.
 */
void migration_entry_wait(struct mm_struct *mm, pmd_t *pmd, unsigned long address);

/* --- entry points -------------------------------------------------------------------- */

#define MPOL_MF_MOVE		(1 << 1)	/* move the folios of this mm only */
#define MPOL_MF_MOVE_ALL	(1 << 2)	/* move folios mapped by other mms too */

/*
 * mbind(@start, @len, MPOL_BIND to node @nid, @flags) of @mm: every
 * anonymous folio mapped in the range and not on @nid is isolated (not
 * one that may be mapped by another process, unless MPOL_MF_MOVE_ALL) and
 * migrated there, MIGRATE_SYNC.  0, -EIO if some could not be moved,
 * -EINVAL.  The mmap_lock is taken for writing.
 */
long do_mbind(struct mm_struct *mm, unsigned long start, unsigned long len, int nid,
	      unsigned int flags);

/*
 * move_pages(@mm, @nr, @pages, @nodes, @status, @flags): move the folio
 * mapped at each address to the node given for it; @status[i] is the
 * folio's node afterwards, or -EFAULT (nothing mapped), -EACCES (shared,
 * without MPOL_MF_MOVE_ALL).  0 or a negative error.
 */
long do_pages_move(struct mm_struct *mm, unsigned long nr, const unsigned long *pages,
		   const int *nodes, int *status, unsigned int flags);

/* --- counting migration entries (seed 003's designs) ---------------------------------- */

/*
 * Each design is one set of these helpers; the kernel functions call them
 * the same way in every build (Makefile: KCFG_mgt-*).
 *
 *  folio_migration_entries_add(folio, nr)  @nr entries naming @folio were
 *        made (nr > 0: try_to_migrate_one(), copy_nonpresent_pte()) or
 *        removed (nr < 0: remove_migration_pte(), zap_nonpresent_ptes());
 *        called under the page table lock of the entries
 *  try_to_migrate_entry_made(folio, &n)    try_to_migrate_one() made one
 *  try_to_migrate_exit                     rmap_walk_control.exit of
 *        try_to_migrate(): runs under the rmap lock after the walk
 *  folio_migration_entries_remain(folio)   may an entry naming @folio be
 *        left?  false ends remove_migration_ptes()' walk
 *  folio_migration_entries_forget(folio)   stop counting (undo; the end
 *        of remove_migration_ptes())
 *  folio_migration_entries_agree(folio, n, &counted)   for rmap_check():
 *        does the count (-1: none kept) agree with the @n entries naming
 *        @folio in the page tables?
 */
struct try_to_migrate_arg {
	unsigned int flags;	/* enum ttu_flags */
	int nr_entries;		/* made by this walk (mgt-entry) */
};

#if defined(CONFIG_MGT_COUNTER)
/*
 * mgt-counter (David Hildenbrand's proposal): a counter of its own, kept
 * outside struct page (page_ext, like the kernel's optional per-page
 * data), counted when each entry is made and removed, for folios of any
 * order: the entries naming any page of the folio.
 */
atomic_t *folio_migration_entries(const struct folio *folio);

/*
 * Release: whoever drops an entry (a zap reads the folio for its RSS
 * counter) is done with the folio before a restore that reads the count
 * 0 (acquire) stops and lets the migration free it.  Vanilla's walk gets
 * that order from the page table lock of every VMA it visits.
 */
static inline void folio_migration_entries_add(struct folio *folio, int nr)
{
	atomic_fetch_add_release(nr, folio_migration_entries(folio));
}

static inline void try_to_migrate_entry_made(struct folio *folio, int *nr_entries)
{
	(void)nr_entries;
	folio_migration_entries_add(folio, 1);
}

#define try_to_migrate_exit	NULL

static inline bool folio_migration_entries_remain(struct folio *folio)
{
	return atomic_read_acquire(folio_migration_entries(folio)) > 0;
}

static inline void folio_migration_entries_forget(struct folio *folio)
{
	(void)folio;
}

/* rmap_check(): exact, whoever forked or exited. */
static inline bool folio_migration_entries_agree(struct folio *folio, int n, int *counted)
{
	*counted = atomic_read(folio_migration_entries(folio));
	return *counted == n;
}

#elif defined(CONFIG_MGT_ENTRY)
/*
 * mgt-entry (the RFC): once try_to_migrate() has unmapped a small folio,
 * its page_type (the mapcount's word, unused while the folio is unmapped)
 * becomes PGTY_mgt_entry with the number of entries the walk made; fork
 * and zap adjust it only while the type is set.
 */
/* Release and acquire as for mgt-counter: the count replaces the walk's PTE locks. */
static inline void folio_migration_entries_add(struct folio *folio, int nr)
{
	if (PageMgtEntry(&folio->page))
		atomic_fetch_add_release(nr, &folio->_mapcount);
}

static inline void try_to_migrate_entry_made(struct folio *folio, int *nr_entries)
{
	(void)folio;
	(*nr_entries)++;
}

/* Under the rmap lock, after the walk: record the count if the folio is unmapped. */
static inline void try_to_migrate_exit(struct folio *folio, void *arg)
{
	struct try_to_migrate_arg *ttm = arg;

	if (folio_test_large(folio) || folio_mapped(folio) || !ttm->nr_entries)
		return;
	atomic_set(&folio->_mapcount,
		   (int)((unsigned int)PGTY_mgt_entry << PAGE_TYPE_SHIFT | (unsigned int)ttm->nr_entries));
}

static inline bool folio_migration_entries_remain(struct folio *folio)
{
	unsigned int t = (unsigned int)atomic_read_acquire(&folio->_mapcount);

	return t >> PAGE_TYPE_SHIFT != PGTY_mgt_entry || (t & PAGE_TYPE_VALUE_MASK);
}

/* Back to an unmapped mapcount (-1): the undo path maps the source again. */
static inline void folio_migration_entries_forget(struct folio *folio)
{
	if (PageMgtEntry(&folio->page))
		atomic_set(&folio->_mapcount, -1);
}

/*
 * rmap_check(): while typed, never below the entries (an entry zapped
 * before the exit hook typed the folio was never counted, so above is
 * possible and only costs the early stop).
 */
static inline bool folio_migration_entries_agree(struct folio *folio, int n, int *counted)
{
	unsigned int t = (unsigned int)atomic_read(&folio->_mapcount);

	if (t >> PAGE_TYPE_SHIFT != PGTY_mgt_entry) {
		*counted = -1;
		return true;
	}
	*counted = (int)(t & PAGE_TYPE_VALUE_MASK);
	return *counted >= n;
}

#else
/* vanilla: nothing counts, every restore walk visits every VMA. */
static inline void folio_migration_entries_add(struct folio *folio, int nr)
{
	(void)folio;
	(void)nr;
}

static inline void try_to_migrate_entry_made(struct folio *folio, int *nr_entries)
{
	(void)folio;
	(void)nr_entries;
}

#define try_to_migrate_exit	NULL

static inline bool folio_migration_entries_remain(struct folio *folio)
{
	(void)folio;
	return true;
}

static inline void folio_migration_entries_forget(struct folio *folio)
{
	(void)folio;
}

static inline bool folio_migration_entries_agree(struct folio *folio, int n, int *counted)
{
	(void)folio;
	(void)n;
	*counted = -1;
	return true;
}
#endif

/* Allocate / free the designs' per-page data at boot (page_ext.c); 0 or -ENOMEM. */
int page_ext_init(unsigned long nr_pages);
void page_ext_exit(void);

/* mem_cgroup_migrate()'s cost per folio, migrate-fork charging no cgroup (migrate.c) */
extern unsigned long migrate_memcg_ns;

#endif
