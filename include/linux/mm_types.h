/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct page and struct folio, laid out as the kernel lays them out on a
 * 64-bit machine: struct page is 64 bytes, and a folio overlays its first
 * pages, so fields of the head page and of the first tail page can be read
 * through one struct folio.
 */
#ifndef _LINUX_MM_TYPES_H
#define _LINUX_MM_TYPES_H

#include <linux/percpu_counter.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/compiler.h>
#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <asm/pgtable_types.h>

typedef unsigned long pgoff_t;

struct address_space;

struct page {
	unsigned long flags;		/* enum pageflags, atomic bit ops */
	union {
		/* Free pages on buddy/pcp lists, folios on the LRU. */
		struct list_head lru;
		/* Tail pages of a compound page: head pointer | 1. */
		struct {
			unsigned long compound_head;
			unsigned long __tail_pad;
		};
	};
	struct address_space *mapping;
	pgoff_t index;			/* offset within mapping, in pages */
	unsigned long private;		/* buddy: the order of a free block */
	union {
		atomic_t _mapcount;	/* -1: not mapped */
		unsigned int page_type;	/* top byte: PGTY_*, when not mapped */
	};
	atomic_t _refcount;		/* see page_ref.h for what values mean */
	unsigned long memcg_data;
};

struct folio {
	union {
		struct {
			unsigned long flags;
			struct list_head lru;
			struct address_space *mapping;
			pgoff_t index;
			void *private;
			atomic_t _mapcount;
			atomic_t _refcount;
			unsigned long memcg_data;
		};
		struct page page;
	};
	/* The first tail page. */
	union {
		struct {
			unsigned long _flags_1;		/* low byte: folio order */
			unsigned long _head_1;
			atomic_t _large_mapcount;
			atomic_t _nr_pages_mapped;
			atomic_t _entire_mapcount;
			atomic_t _pincount;
			unsigned int _folio_nr_pages;
		};
		struct page __page_1;
	};
};

/* --- address spaces -------------------------------------------------------- */

/*
 * A swap-format entry: what a non-present, non-none PTE holds (a swap slot,
 * or a migration entry naming a pfn).  linux/swapops.h encodes and decodes.
 */
typedef struct {
	unsigned long val;
} swp_entry_t;

struct file;
struct anon_vma;
struct mmu_notifier_subscriptions;

/* RSS counters (the kernel keeps them per CPU; here one atomic each). */
enum {
	MM_FILEPAGES,
	MM_ANONPAGES,
	MM_SWAPENTS,
	MM_SHMEMPAGES,
	NR_MM_COUNTERS,
};

/*
 * One mapping of a range of an address space.  The model keeps VMAs in an
 * rbtree by address (the kernel did until v6.1, before the maple tree),
 * and file VMAs in their file's i_mmap interval tree by page offset.
 */
struct vm_area_struct {
	unsigned long vm_start;		/* first byte */
	unsigned long vm_end;		/* first byte after */
	struct mm_struct *vm_mm;
	pgprot_t vm_page_prot;
	unsigned long vm_flags;
	struct rb_node vm_rb;		/* mm->mm_rb */
	struct {
		struct rb_node rb;
		unsigned long rb_subtree_last;
	} shared;			/* mapping->i_mmap */
	unsigned long vm_pgoff;		/* offset in the file, in pages; anon: vm_start >> PAGE_SHIFT */
	struct file *vm_file;		/* NULL: anonymous */
	/*
	 * The anon rmap (linux/rmap.h): every anon_vma this VMA's anonymous
	 * folios may belong to, one anon_vma_chain each (newest first), and the
	 * one new folios go to.  Changed under mmap_lock for writing and the
	 * root anon_vma's rwsem; set on first fault under page_table_lock.
	 */
	struct list_head anon_vma_chain;
	struct anon_vma *anon_vma;
};

struct mm_struct {
	pgd_t *pgd;
	struct rb_root mm_rb;		/* VMAs by vm_start, under mmap_lock */
	int map_count;
	struct rw_semaphore mmap_lock;
	spinlock_t page_table_lock;	/* populating upper levels */
	atomic_long_t nr_pgtable_pages;	/* model: tables allocated, pgd included */
	struct percpu_counter rss_stat[NR_MM_COUNTERS];
	unsigned long hiwater_rss;
	struct mmu_notifier_subscriptions *notifier_subscriptions;
	atomic_t tlb_flush_batched;	/* deferred flushes: pending and flushed generations */
	atomic_long_t tlb_gen;		/* x86 mm->context.tlb_gen */
	/*
	 * mm_cpumask(): the CPUs that may cache the mm's entries, set by
	 * switch_mm_cpu() (linux/pgtable.h) where a workload says its
	 * process ran.  x86 decides from it whether an unmap defers its
	 * flush and whom the deferred flush interrupts.
	 */
	unsigned long cpu_bitmap[NR_CPUS / BITS_PER_LONG];
};

#define FOLIO_MATCH(pg, fl) \
	_Static_assert(offsetof(struct page, pg) == offsetof(struct folio, fl), #fl)
FOLIO_MATCH(flags, flags);
FOLIO_MATCH(lru, lru);
FOLIO_MATCH(mapping, mapping);
FOLIO_MATCH(index, index);
FOLIO_MATCH(private, private);
FOLIO_MATCH(_mapcount, _mapcount);
FOLIO_MATCH(_refcount, _refcount);
FOLIO_MATCH(memcg_data, memcg_data);
#undef FOLIO_MATCH
#define FOLIO_MATCH(pg, fl) \
	_Static_assert(offsetof(struct folio, fl) == \
		       offsetof(struct page, pg) + sizeof(struct page), #fl)
FOLIO_MATCH(flags, _flags_1);
FOLIO_MATCH(compound_head, _head_1);
#undef FOLIO_MATCH

_Static_assert(sizeof(struct page) == 64, "struct page is 64 bytes");
_Static_assert(sizeof(struct folio) == 2 * sizeof(struct page), "folio overlays two pages");

#endif
