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

#endif
