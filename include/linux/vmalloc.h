/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmalloc (mm/vmalloc.c): virtually contiguous kernel memory made of
 * order-0 pages mapped through the kernel page table (linux/pgtable.h) in
 * x86-64's vmalloc range.
 *
 * Addresses returned by vmalloc() are the model's virtual addresses, not
 * host addresses: dereferencing one faults.  Reach the memory through the
 * page tables, as the MMU would: vmalloc_to_page(), or vmalloc_access()
 * for a byte's direct-map alias.
 *
 * The machine must be booted (mem_init()) and vmalloc_init() called before
 * use; vmalloc_exit() purges, frees the address-space bookkeeping and the
 * page tables, and reports anything still allocated.
 */
#ifndef _LINUX_VMALLOC_H
#define _LINUX_VMALLOC_H

#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/pgtable.h>
#include <linux/rbtree.h>

/* vm_struct.flags */
#define VM_IOREMAP		0x00000001
#define VM_ALLOC		0x00000002	/* vmalloc() */
#define VM_MAP			0x00000004	/* vmap() */
#define VM_USERMAP		0x00000008
#define VM_DMA_COHERENT		0x00000010
#define VM_UNINITIALIZED	0x00000020	/* pages not yet all there */
#define VM_NO_GUARD		0x00000040	/* no guard page after the area */
#define VM_KASAN		0x00000080
#define VM_FLUSH_RESET_PERMS	0x00000100
#define VM_MAP_PUT_PAGES	0x00000200	/* vmap(): pages put on vfree() */
#define VM_ALLOW_HUGE_VMAP	0x00000400	/* vmalloc_huge(): PMD/contiguous mappings allowed */

/* x86-64 with 4-level paging: 32 TiB of vmalloc space. */
#define VMALLOC_START		0xffffc90000000000UL
#define VMALLOC_SIZE_TB		32UL
#define VMALLOC_END		(VMALLOC_START + (VMALLOC_SIZE_TB << 40) - 1)

#define NUMA_NO_NODE		(-1)

struct vm_struct {
	struct vm_struct *next;
	void *addr;
	unsigned long size;		/* bytes, the guard page included */
	unsigned long flags;
	struct page **pages;		/* nr_pages order-0 pages */
	unsigned int page_order;	/* of the mapping: 0, or huge */
	unsigned int nr_pages;
	const void *caller;
};

struct vmap_area {
	unsigned long va_start;
	unsigned long va_end;		/* exclusive */
	struct rb_node rb_node;		/* in the free, busy or lazy tree */
	struct list_head list;		/* that tree's address-sorted list */
	union {
		unsigned long subtree_max_size;	/* free tree: largest area below */
		struct vm_struct *vm;		/* busy tree: NULL for vm_map_ram */
	};
	unsigned long flags;
};

static inline size_t get_vm_area_size(const struct vm_struct *area)
{
	return area->size - ((area->flags & VM_NO_GUARD) ? 0 : PAGE_SIZE);
}

void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void *vmalloc_huge(unsigned long size, gfp_t gfp_mask);
void *__vmalloc(unsigned long size, gfp_t gfp_mask);
void *__vmalloc_node(unsigned long size, unsigned long align, gfp_t gfp_mask,
		     int node, const void *caller);
void *__vmalloc_node_range(unsigned long size, unsigned long align,
			   unsigned long start, unsigned long end, gfp_t gfp_mask,
			   pgprot_t prot, unsigned long vm_flags, int node,
			   const void *caller);
void vfree(const void *addr);

/* Map @count existing pages / unmap them (the large-area path only). */
void *vm_map_ram(struct page **pages, unsigned int count, int node);
void vm_unmap_ram(const void *mem, unsigned int count);

/* Purge the lazily freed areas now, flushing the TLB once. */
void vm_unmap_aliases(void);

struct page *vmalloc_to_page(const void *addr);
unsigned long vmalloc_to_pfn(const void *addr);
struct vm_struct *find_vm_area(const void *addr);

static inline bool is_vmalloc_addr(const void *x)
{
	unsigned long addr = (unsigned long)x;

	return addr >= VMALLOC_START && addr < VMALLOC_END;
}

/*
 * The page the MMU reaches at a vmalloc address: vmalloc_to_page()'s walk
 * with each entry read as the hardware reads it (no contpte_ptep_get()).
 */
struct page *vmalloc_mmu_page(const void *addr);

/* The direct-map alias of the byte at a vmalloc address, as a load or store reaches it (NULL if unmapped). */
static inline void *vmalloc_access(const void *addr)
{
	struct page *page = vmalloc_mmu_page(addr);

	return page ? (char *)page_address(page) + offset_in_page(addr) : NULL;
}

/* Pages held by vmalloc areas now (the kernel's vmalloc_nr_pages()). */
unsigned long vmalloc_nr_pages(void);

/*
 * arm64 maps vmalloc_huge() areas of at least CONT_PTE_SIZE that are
 * smaller than a PMD with contiguous PTEs over order-4 pages
 * (arch_vmap_pte_supported_shift()); x86-64 does not.  Set before use.
 */
extern bool vmap_cont_pte_supported;

/* The model's counters of the lazy-free machinery. */
struct vmap_stats {
	unsigned long purges;		/* __purge_vmap_area_lazy() runs that freed areas */
	unsigned long purged_areas;
	unsigned long purged_pages;	/* guard pages included */
	unsigned long huge_fallbacks;	/* huge attempts retried with small pages */
};
extern struct vmap_stats vmap_stats;

/* Boot and tear down vmalloc on a booted machine; 0 or -ENOMEM / -1 + @msg. */
int vmalloc_init(void);
int vmalloc_exit(char *msg, size_t len);

/*
 * Check the address space over every tree and the page tables: the free
 * tree's red-black and augmented invariants, sorted non-overlapping
 * lists, free, busy and lazy areas tiling the address space, every busy
 * area's pages mapped where they should be and its guard page unmapped,
 * the lazy and page counters.  0, or -1 with the first problem in @msg.
 */
int vmalloc_check(char *msg, size_t len);

#endif
