/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated machine's memory: an arena of PAGE_SIZE pages and its
 * memmap of struct page, with the kernel's pfn <-> page <-> address
 * conversions, compound pages (folios) and folio reference helpers.
 */
#ifndef _LINUX_MM_H
#define _LINUX_MM_H

#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/log2.h>
#include <linux/mm_types.h>
#include <linux/page-flags.h>
#include <linux/page_ref.h>
#include <linux/mmdebug.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

#define MAX_PAGE_ORDER		10
#define NR_PAGE_ORDERS		(MAX_PAGE_ORDER + 1)
#define MAX_ORDER_NR_PAGES	(1UL << MAX_PAGE_ORDER)
#define pageblock_order		9
#define pageblock_nr_pages	(1UL << pageblock_order)
#define PAGE_ALLOC_COSTLY_ORDER	3

/* Memory sections (SPARSEMEM): 128 MiB on x86-64. */
#define SECTION_SIZE_BITS	27
#define PAGES_PER_SECTION	(1UL << (SECTION_SIZE_BITS - PAGE_SHIFT))

/* The machine: memmap[0 .. max_pfn) describes arena[0 .. max_pfn * PAGE_SIZE). */
extern struct page *mem_map;
extern unsigned long max_pfn;
extern char *mem_arena;

/* Boot and tear down the simulated memory (mm/memmap.c). */
int mem_init(unsigned long long bytes);
void mem_exit(void);

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + pfn;
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map);
}

static inline bool pfn_valid(unsigned long pfn)
{
	return pfn < max_pfn;
}

static inline void *page_address(const struct page *page)
{
	return mem_arena + (page_to_pfn(page) << PAGE_SHIFT);
}

static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page((unsigned long)((const char *)addr - mem_arena) >> PAGE_SHIFT);
}

static inline struct page *compound_head(const struct page *page)
{
	unsigned long head = READ_ONCE(page->compound_head);

	if (unlikely(head & 1))
		return (struct page *)(head - 1);
	return (struct page *)page;
}

#define page_folio(p)		((struct folio *)compound_head(p))
#define folio_page(folio, n)	(&(folio)->page + (n))

static inline bool PageAnon(const struct page *page)
{
	return folio_test_anon(page_folio(page));
}

static inline unsigned int folio_order(const struct folio *folio)
{
	if (!folio_test_large(folio))
		return 0;
	return folio->_flags_1 & 0xff;
}

static inline unsigned long folio_nr_pages(const struct folio *folio)
{
	return 1UL << folio_order(folio);
}

static inline size_t folio_size(const struct folio *folio)
{
	return PAGE_SIZE << folio_order(folio);
}

static inline unsigned long folio_pfn(const struct folio *folio)
{
	return page_to_pfn(&folio->page);
}

static inline void *folio_address(const struct folio *folio)
{
	return page_address(&folio->page);
}

static inline pgoff_t folio_next_index(const struct folio *folio)
{
	return folio->index + folio_nr_pages(folio);
}

/* Compound pages (mm/page_alloc.c). */
void prep_compound_page(struct page *page, unsigned int order);
void destroy_compound_page(struct page *page, unsigned int order);

static inline int page_count(const struct page *page)
{
	return folio_ref_count(page_folio(page));
}

/*
 * Mapcounts, as the kernel keeps them with CONFIG_PAGE_MAPCOUNT: each page
 * counts the page-table entries mapping it in _mapcount (-1: none); a large
 * folio also counts all of its pages' mappings in _large_mapcount and how
 * many of its pages are mapped at all in _nr_pages_mapped.
 */
static inline int folio_large_mapcount(const struct folio *folio)
{
	return atomic_read(&folio->_large_mapcount) + 1;
}

/*
 * A small folio's count is its page's _mapcount + 1, read as 0 while the
 * word holds a page type (design mgt-entry types an unmapped folio under
 * migration; a reader that raced with the last unmap sees no mapping).
 */
static inline int folio_mapcount(const struct folio *folio)
{
	int mapcount;

	if (likely(!folio_test_large(folio))) {
		mapcount = atomic_read(&folio->_mapcount) + 1;
		if (page_mapcount_is_type((unsigned int)mapcount))
			mapcount = 0;
		return mapcount;
	}
	return folio_large_mapcount(folio);
}

static inline int page_mapcount(const struct page *page)
{
	int mapcount = atomic_read(&page->_mapcount) + 1;

	return page_mapcount_is_type((unsigned int)mapcount) ? 0 : mapcount;
}

static inline bool folio_mapped(const struct folio *folio)
{
	return folio_mapcount(folio) > 0;
}

/* --- references ---------------------------------------------------------- */

static inline void folio_get(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_ref_count(folio) <= 0, folio);
	folio_ref_inc(folio);
}

static inline void get_page(struct page *page)
{
	folio_get(page_folio(page));
}

static inline bool folio_put_testzero(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio_ref_count(folio) == 0, folio);
	return folio_ref_dec_and_test(folio);
}

static inline bool put_page_testzero(struct page *page)
{
	return folio_put_testzero(page_folio(page));
}

/* Frees a folio whose last reference is gone (mm/swap.c in the kernel). */
void __folio_put(struct folio *folio);

static inline void folio_put(struct folio *folio)
{
	if (folio_put_testzero(folio))
		__folio_put(folio);
}

static inline void folio_put_refs(struct folio *folio, int refs)
{
	if (folio_ref_sub_and_test(folio, refs))
		__folio_put(folio);
}

static inline void put_page(struct page *page)
{
	folio_put(page_folio(page));
}


/* --- VMAs and address spaces (mm/mmap.c) ------------------------------------ */

#define VM_NONE		0x00000000UL
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_MAYREAD	0x00000010UL
#define VM_MAYWRITE	0x00000020UL
#define VM_MAYEXEC	0x00000040UL
#define VM_MAYSHARE	0x00000080UL
#define VM_LOCKED	0x00002000UL

static inline unsigned long vma_pages(const struct vm_area_struct *vma)
{
	return (vma->vm_end - vma->vm_start) >> PAGE_SHIFT;
}

/* The file page offset that @address of @vma maps. */
static inline pgoff_t linear_page_index(const struct vm_area_struct *vma, unsigned long address)
{
	return ((address - vma->vm_start) >> PAGE_SHIFT) + vma->vm_pgoff;
}

static inline bool vma_is_anonymous(const struct vm_area_struct *vma)
{
	return !vma->vm_file;
}

/* A new, empty address space with its PGD; NULL if memory runs out. */
struct mm_struct *mm_alloc(void);
/*
 * Fork: a new address space with a copy of @oldmm's VMAs (dup_mmap()):
 * anonymous VMAs are linked into the parent's anon_vmas and their entries
 * copied (copy_page_range(): COW mappings write-protected on both sides);
 * file VMAs are faulted in afresh.  NULL if memory runs out.
 */
struct mm_struct *dup_mm(struct mm_struct *oldmm);
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm);
/* Copy the entries of @src_vma into @dst_vma's page tables (fork); 0 or -ENOMEM. */
int copy_page_range(struct vm_area_struct *dst_vma, struct vm_area_struct *src_vma);
/* Unmap every VMA, free the page tables and the mm (the last mmput()). */
void mmput(struct mm_struct *mm);

/*
 * Map @len bytes of @file from page @pgoff at exactly @addr
 * (MAP_FIXED_NOREPLACE): @vm_flags among VM_READ, VM_WRITE, VM_EXEC,
 * VM_SHARED, VM_LOCKED.  @file NULL maps private anonymous memory
 * (@pgoff ignored: an anonymous VMA's vm_pgoff is @addr >> PAGE_SHIFT;
 * VM_SHARED, which would be shmem, is refused).  Nothing is faulted in.
 * Returns @addr, or -EINVAL (unaligned, empty, shared anonymous), -EEXIST
 * (overlaps a VMA), -ENOMEM, as an unsigned long.
 */
unsigned long do_mmap(struct mm_struct *mm, struct file *file, unsigned long addr,
		      unsigned long len, unsigned long vm_flags, pgoff_t pgoff);
/*
 * Unmap [@start, @start + @len), which must be exactly one VMA (the model
 * does not split VMAs): 0 or -EINVAL.  mmap_lock not held.
 */
int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len);
/* Split @vma at @addr (mmap_lock held for writing): 0, -EINVAL, -ENOMEM (__split_vma()). */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr);

/* The VMA containing @addr, or the first one above it; NULL if none. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);

static inline struct vm_area_struct *vma_lookup(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
}

static inline void mmap_read_lock(struct mm_struct *mm)		{ down_read(&mm->mmap_lock); }
static inline void mmap_read_unlock(struct mm_struct *mm)	{ up_read(&mm->mmap_lock); }
static inline void mmap_write_lock(struct mm_struct *mm)	{ down_write(&mm->mmap_lock); }
static inline void mmap_write_unlock(struct mm_struct *mm)	{ up_write(&mm->mmap_lock); }

/* --- RSS counters ---------------------------------------------------------------- */

/* Per-CPU counters, as since v6.2: the read is the folded count only. */
static inline unsigned long get_mm_counter(struct mm_struct *mm, int member)
{
	return (unsigned long)percpu_counter_read_positive(&mm->rss_stat[member]);
}

/* Exact: every CPU's difference added under the counter's lock. */
static inline unsigned long get_mm_counter_sum(struct mm_struct *mm, int member)
{
	return (unsigned long)percpu_counter_sum_positive(&mm->rss_stat[member]);
}

static inline void add_mm_counter(struct mm_struct *mm, int member, long value)
{
	percpu_counter_add(&mm->rss_stat[member], value);
}

static inline void inc_mm_counter(struct mm_struct *mm, int member) { add_mm_counter(mm, member, 1); }
static inline void dec_mm_counter(struct mm_struct *mm, int member) { add_mm_counter(mm, member, -1); }

static inline unsigned long get_mm_rss(struct mm_struct *mm)
{
	return get_mm_counter(mm, MM_FILEPAGES) + get_mm_counter(mm, MM_ANONPAGES) +
	       get_mm_counter(mm, MM_SHMEMPAGES);
}

/*
 * Racy by design, as in the kernel (the rmap of another mm updates it
 * while fork sets it): READ_ONCE/WRITE_ONCE so the model's race is benign
 * to ThreadSanitizer too.
 */
static inline void update_hiwater_rss(struct mm_struct *mm)
{
	unsigned long rss = get_mm_rss(mm);

	if (READ_ONCE(mm->hiwater_rss) < rss)
		WRITE_ONCE(mm->hiwater_rss, rss);
}

/* Which counter a file folio's mappings count in (no shmem in the model). */
static inline int mm_counter_file(const struct folio *folio)
{
	(void)folio;
	return MM_FILEPAGES;
}

/* --- faults (mm/memory.c) ------------------------------------------------------------- */

typedef unsigned int vm_fault_t;

#define VM_FAULT_OOM		0x000001
#define VM_FAULT_SIGBUS		0x000002
#define VM_FAULT_NOPAGE		0x000100
#define VM_FAULT_ERROR		(VM_FAULT_OOM | VM_FAULT_SIGBUS)

#define FAULT_FLAG_WRITE	0x01

/*
 * The order of the folios anonymous faults allocate where the aligned range
 * fits the VMA and is unmapped (0: small folios only).  The model's stand-in
 * for the mTHP sysfs controls, with one size enabled; set outside any
 * measured loop.
 */
extern unsigned int anon_folio_order;

/*
 * Resolve a fault at @address of @vma (FAULT_FLAG_WRITE for a store): a
 * file VMA maps the page-cache folio there (the whole folio when it fits in
 * the VMA and in one page table; writes are SIGBUS); an anonymous VMA maps
 * a new zeroed folio, or resolves a write to a write-protected entry by
 * reusing or copying the page (COW).  mmap_lock held for read.  0 or
 * VM_FAULT_*.
 */
vm_fault_t handle_mm_fault(struct vm_area_struct *vma, unsigned long address, unsigned int flags);

/*
 * The model's stand-in for the MMU: a load (or store with @write) at
 * @address walks the page tables as the hardware walker does, without
 * locks, and sets the accessed (and dirty) bit of the PTE it uses.
 * Returns the byte's address in the arena, or NULL where the access would
 * fault.
 */
void *mmu_access(struct mm_struct *mm, unsigned long address, bool write);

#endif
