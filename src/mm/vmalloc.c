// SPDX-License-Identifier: GPL-2.0
/*
 * vmalloc (mm/vmalloc.c) with one vmap node:
 *
 *  - the address space: free areas in an rbtree sorted by address and
 *    augmented with the largest free size below each node, plus an
 *    address-sorted list; an allocation takes the lowest-addressed area
 *    that fits (find_vmap_lowest_match) and clips it (va_clip);
 *  - allocated areas in the node's busy tree, for vfree()'s lookup;
 *  - freed areas are unmapped at once but their addresses are kept in the
 *    lazy tree, without a TLB flush, until lazy_max_pages() worth pile up;
 *    then one flush covers them all and they merge back into the free
 *    tree (__purge_vmap_area_lazy);
 *  - pages come from the page allocator, in large orders where possible
 *    since "mm/vmalloc: request large order pages from buddy allocator",
 *    split to order 0, and are mapped one PTE each (or one PMD per 512
 *    pages, or contiguous PTEs, for vmalloc_huge()).
 *
 * How vfree() gives the pages back is the design under study (seed 001):
 *  vanilla			per page: statistics, __free_page()
 *  CONFIG_CONTIG_BATCHED	runs of consecutive pfns to __free_contig_range()
 *  CONFIG_CONTIG_BULK	statistics, then free_pages_bulk() over the array
 *
 * and on which base: CONFIG_VMALLOC_ATOMIC_NR_PAGES is the kernel before
 * "mm: vmalloc: streamline vmalloc memory accounting" (v1's base), where
 * the vmalloc page count is one atomic updated once per area; without it
 * it is the node statistic NR_VMALLOC, updated per page at free and per
 * block at allocation.
 *
 * The vmap nodes (since 6.9): one per CPU up to 128, each with its busy and
 * lazy trees (an area lives in the node of its address, 16 pages a stripe)
 * and pools of purged areas of up to 1 MiB by size, which serve the next
 * allocation of that size from the allocating CPU's node without the global
 * free tree; with one CPU, one node and no pools.
 *
 * Departures (docs/design/seed-001-free-contig-vmalloc.md): the purge runs in the freeing thread
 * instead of a worker, and the nodes' purges one after another, never in helpers;
 * the pages[] array and the bookkeeping objects come from malloc() (the
 * kernel uses kmalloc, or a nested vmalloc above one page of pointers);
 * vm_map_ram() always takes the large-area path (no per-CPU vmap blocks);
 * no KASAN, kmemleak, memcg, NUMA or permission resets.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mmzone.h>
#include <linux/rbtree_augmented.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#if defined(CONFIG_CONTIG_BATCHED) && !defined(CONFIG_VMALLOC_ATOMIC_NR_PAGES)
#error "v1 (CONFIG_CONTIG_BATCHED) applies to v1's base: CONFIG_VMALLOC_ATOMIC_NR_PAGES"
#endif
#if defined(CONFIG_CONTIG_BULK) && defined(CONFIG_VMALLOC_ATOMIC_NR_PAGES)
#error "the merged design (CONFIG_CONTIG_BULK) applies to the base with NR_VMALLOC"
#endif

#define IS_ERR_VALUE(x)	unlikely((unsigned long)(x) >= (unsigned long)-4095)

bool vmap_cont_pte_supported;
struct vmap_stats vmap_stats;

/* --- the vmalloc page count -------------------------------------------------------- */

/*
 * nr_vmalloc_pages takes bulk updates directly; per-page updates go to a
 * per-CPU delta folded into it past a threshold, as the kernel's node
 * vmstat item NR_VMALLOC does (mod_node_page_state()), so a per-page
 * update is not a shared atomic.
 */
static atomic_long_t nr_vmalloc_pages;

struct vmstat_pcp {
	long diff;
} __cacheline_aligned;

static struct vmstat_pcp vmalloc_stat_pcp[NR_CPUS];
static int vmstat_threshold;

/* mm/vmstat.c calculate_normal_threshold(), for the one zone. */
static int calculate_normal_threshold(void)
{
	unsigned long mem = contig_zone.managed_pages >> (27 - PAGE_SHIFT);
	int threshold = 2 * fls((unsigned int)num_online_cpus()) * (1 + fls((unsigned int)mem));

	return min(threshold, 125);
}

/* The kernel's mod_node_page_state(page_pgdat(page), NR_VMALLOC, delta). */
static inline void mod_vmalloc_page_state(struct page *page, long delta)
{
	struct vmstat_pcp *pcp = &vmalloc_stat_pcp[smp_processor_id() % NR_CPUS];
	long x = READ_ONCE(pcp->diff) + delta;

	(void)page;
	if (unlikely(x > vmstat_threshold || x < -vmstat_threshold)) {
		atomic_long_add(x, &nr_vmalloc_pages);
		x = 0;
	}
	WRITE_ONCE(pcp->diff, x);
}

#ifdef CONFIG_VMALLOC_ATOMIC_NR_PAGES
/* v1's base: __vmalloc_area_node() counts the area's pages at once. */
static inline void account_vmalloc_pages(struct page *page, long nr)
{
}

static inline void account_vmalloc_area(struct vm_struct *area)
{
	atomic_long_add(area->nr_pages, &nr_vmalloc_pages);
}
#else
/* vm_area_alloc_pages() counts each block as it comes from the allocator. */
static inline void account_vmalloc_pages(struct page *page, long nr)
{
	mod_vmalloc_page_state(page, nr);
}

static inline void account_vmalloc_area(struct vm_struct *area)
{
}
#endif

unsigned long vmalloc_nr_pages(void)
{
	long n = atomic_long_read(&nr_vmalloc_pages);

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		n += READ_ONCE(vmalloc_stat_pcp[cpu].diff);
	return (unsigned long)n;
}

/* --- the trees ---------------------------------------------------------------------- */

struct rb_list {
	struct rb_root root;
	struct list_head head;
	spinlock_t lock;
};

/* A pool holds purged areas of one size, up to 1 MiB; pool[i] those of i + 1 pages. */
#define MAX_VA_SIZE_PAGES	256
#define VMAP_NODES_MAX		128

struct vmap_pool {
	struct list_head head;
	unsigned long len;
};

struct vmap_node {
	struct vmap_pool pool[MAX_VA_SIZE_PAGES];
	spinlock_t pool_lock;
	bool skip_populate;		/* this purge gives areas back to the free tree */
	struct rb_list busy;
	struct rb_list lazy;
	struct list_head purge_list;	/* the lazy areas one purge takes */
	unsigned long nr_purged;
};

static struct vmap_node single_vmap_node;
static struct vmap_node *vmap_nodes = &single_vmap_node;
static unsigned int nr_vmap_nodes = 1;
static unsigned long vmap_zone_size = PAGE_SIZE;

#define for_each_vmap_node(vn)	for ((vn) = &vmap_nodes[0]; (vn) < &vmap_nodes[nr_vmap_nodes]; (vn)++)

static DEFINE_SPINLOCK(free_vmap_area_lock);
static struct rb_root free_vmap_area_root;
static struct list_head free_vmap_area_list;

static atomic_long_t vmap_lazy_nr;
static DEFINE_SPINLOCK(vmap_purge_lock);	/* a mutex in the kernel */
static bool vmap_initialized;

static inline unsigned long va_size(struct vmap_area *va)
{
	return va->va_end - va->va_start;
}

/* --- the vmap nodes ------------------------------------------------------------------ */

/* A busy or lazy area lives in the node of its start address. */
static inline unsigned int addr_to_node_id(unsigned long addr)
{
	return (unsigned int)((addr / vmap_zone_size) % nr_vmap_nodes);
}

static inline struct vmap_node *addr_to_node(unsigned long addr)
{
	return &vmap_nodes[addr_to_node_id(addr)];
}

static inline struct vmap_node *id_to_node(unsigned int id)
{
	return &vmap_nodes[id % nr_vmap_nodes];
}

/*
 * The node an area was asked for is kept in its flags (bits 8 and up,
 * plus one), so that its purge returns it to that node's pool.
 */
static inline unsigned long encode_vn_id(unsigned int node_id)
{
	return node_id < nr_vmap_nodes ? (unsigned long)(node_id + 1) << 8 : 0;
}

static inline unsigned int decode_vn_id(unsigned long flags)
{
	unsigned int node_id = (unsigned int)(flags >> 8) - 1;

	return node_id < nr_vmap_nodes ? node_id : nr_vmap_nodes;
}

static inline bool is_vn_id_valid(unsigned int node_id)
{
	return node_id < nr_vmap_nodes;
}

static struct vmap_pool *size_to_va_pool(struct vmap_node *vn, unsigned long size)
{
	unsigned long idx = (size - 1) / PAGE_SIZE;

	return idx < MAX_VA_SIZE_PAGES ? &vn->pool[idx] : NULL;
}

static bool node_pool_add_va(struct vmap_node *vn, struct vmap_area *va)
{
	struct vmap_pool *vp = size_to_va_pool(vn, va_size(va));

	if (!vp)
		return false;
	spin_lock(&vn->pool_lock);
	list_add(&va->list, &vp->head);
	WRITE_ONCE(vp->len, vp->len + 1);
	spin_unlock(&vn->pool_lock);
	return true;
}

/*
 * The first pooled area of exactly @size, if it is aligned as asked;
 * an unaligned one goes to the back, so the pool is never scanned.
 */
static struct vmap_area *node_pool_del_va(struct vmap_node *vn, unsigned long size,
					  unsigned long align, unsigned long vstart,
					  unsigned long vend)
{
	struct vmap_area *va = NULL;
	struct vmap_pool *vp = size_to_va_pool(vn, size);

	/*
	 * The kernel peeks at the list without the lock; the model peeks at
	 * the length, which is written marked, where its list's pointers are not.
	 */
	if (!vp || !READ_ONCE(vp->len))
		return NULL;
	spin_lock(&vn->pool_lock);
	if (!list_empty(&vp->head)) {
		va = list_first_entry(&vp->head, struct vmap_area, list);
		if (IS_ALIGNED(va->va_start, align)) {
			if (!VM_WARN_ON(va_size(va) != size || va->va_start < vstart ||
					va->va_end > vend)) {
				list_del_init(&va->list);
				WRITE_ONCE(vp->len, vp->len - 1);
			} else {
				va = NULL;
			}
		} else {
			list_move_tail(&va->list, &vp->head);
			va = NULL;
		}
	}
	spin_unlock(&vn->pool_lock);
	return va;
}

/*
 * An area from the allocating CPU's pool, for the whole vmalloc range
 * only and only with several nodes; *@vn_id says which node asked, so
 * that an area the global tree gives instead comes back to its pool.
 */
static struct vmap_area *node_alloc(unsigned long size, unsigned long align,
				    unsigned long vstart, unsigned long vend,
				    unsigned long *addr, unsigned long *vn_id)
{
	unsigned int id;
	struct vmap_area *va;

	*vn_id = 0;
	*addr = (unsigned long)-EINVAL;
	if (vstart != VMALLOC_START || vend != VMALLOC_END || nr_vmap_nodes == 1)
		return NULL;
	id = (unsigned int)smp_processor_id() % nr_vmap_nodes;
	va = node_pool_del_va(id_to_node(id), size, align, vstart, vend);
	*vn_id = encode_vn_id(id);
	if (va)
		*addr = va->va_start;
	return va;
}

static inline unsigned long get_subtree_max_size(struct rb_node *node)
{
	return node ? rb_entry(node, struct vmap_area, rb_node)->subtree_max_size : 0;
}

RB_DECLARE_CALLBACKS_MAX(static, free_vmap_area_rb_augment_cb, struct vmap_area, rb_node,
			 unsigned long, subtree_max_size, va_size);

static struct vmap_area *vmap_area_alloc(void)
{
	return malloc(sizeof(struct vmap_area));
}

static void vmap_area_free(struct vmap_area *va)
{
	free(va);
}

static inline void list_replace_init(struct list_head *old, struct list_head *new)
{
	if (list_empty(old)) {
		INIT_LIST_HEAD(new);
		return;
	}
	*new = *old;
	new->next->prev = new;
	new->prev->next = new;
	INIT_LIST_HEAD(old);
}

/*
 * Where @va goes in the tree, searching from @from (or the root): the link
 * to fill, and its parent in *@parent.  NULL if @va overlaps an area
 * already there, which would be a bug.
 */
static struct rb_node **find_va_links(struct vmap_area *va, struct rb_root *root,
				      struct rb_node *from, struct rb_node **parent)
{
	struct rb_node **link = from ? &from : &root->rb_node;

	*parent = NULL;
	while (*link) {
		struct vmap_area *tmp = rb_entry(*link, struct vmap_area, rb_node);

		*parent = *link;
		if (va->va_end <= tmp->va_start)
			link = &(*link)->rb_left;
		else if (va->va_start >= tmp->va_end)
			link = &(*link)->rb_right;
		else
			return NULL;
	}
	return link;
}

/* The list entry after the position @link below @parent. */
static struct list_head *get_va_next_sibling(struct rb_node *parent, struct rb_node **link,
					     struct list_head *head)
{
	struct list_head *list;

	if (!parent)
		return head;
	list = &rb_entry(parent, struct vmap_area, rb_node)->list;
	return link == &parent->rb_right ? list->next : list;
}

static void link_va(struct vmap_area *va, struct rb_root *root, struct rb_node *parent,
		    struct rb_node **link, struct list_head *head, bool augment)
{
	struct list_head *next = get_va_next_sibling(parent, link, head);

	rb_link_node(&va->rb_node, parent, link);
	if (augment) {
		/* The path down to the new leaf must be right before rotations. */
		va->subtree_max_size = va_size(va);
		free_vmap_area_rb_augment_cb.propagate(parent, NULL);
		rb_insert_augmented(&va->rb_node, root, &free_vmap_area_rb_augment_cb);
	} else {
		rb_insert_color(&va->rb_node, root);
	}
	list_add_tail(&va->list, next);
}

static void unlink_va(struct vmap_area *va, struct rb_root *root, bool augment)
{
	if (augment)
		rb_erase_augmented(&va->rb_node, root, &free_vmap_area_rb_augment_cb);
	else
		rb_erase(&va->rb_node, root);
	RB_CLEAR_NODE(&va->rb_node);
	list_del_init(&va->list);
}

static void insert_vmap_area(struct vmap_area *va, struct rb_root *root, struct list_head *head)
{
	struct rb_node *parent, **link = find_va_links(va, root, NULL, &parent);

	if (!VM_WARN_ON(!link))
		link_va(va, root, parent, link, head, false);
}

static void insert_vmap_area_augment(struct vmap_area *va, struct rb_node *from,
				     struct rb_root *root, struct list_head *head)
{
	struct rb_node *parent, **link = find_va_links(va, root, from, &parent);

	if (!VM_WARN_ON(!link))
		link_va(va, root, parent, link, head, true);
}

static inline void augment_tree_propagate_from(struct vmap_area *va)
{
	free_vmap_area_rb_augment_cb.propagate(&va->rb_node, NULL);
}

static struct vmap_area *__find_vmap_area(unsigned long addr, struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	while (n) {
		struct vmap_area *va = rb_entry(n, struct vmap_area, rb_node);

		if (addr < va->va_start)
			n = n->rb_left;
		else if (addr >= va->va_end)
			n = n->rb_right;
		else
			return va;
	}
	return NULL;
}

/*
 * Give a freed area back to a tree of free areas, coalescing it with the
 * areas just below and just above it: the global free tree (augmented), or
 * a pool decay's local one (not).
 */
static struct vmap_area *__merge_or_add_vmap_area(struct vmap_area *va, struct rb_root *root,
						  struct list_head *head, bool augment)
{
	struct rb_node *parent, **link = find_va_links(va, root, NULL, &parent);
	struct list_head *next;
	struct vmap_area *sibling;
	bool merged = false;

	if (VM_WARN_ON(!link))
		return NULL;
	next = get_va_next_sibling(parent, link, head);
	if (next != head) {
		sibling = list_entry(next, struct vmap_area, list);
		if (sibling->va_start == va->va_end) {
			sibling->va_start = va->va_start;
			vmap_area_free(va);
			va = sibling;
			merged = true;
		}
	}
	if (next->prev != head) {
		sibling = list_entry(next->prev, struct vmap_area, list);
		if (sibling->va_end == va->va_start) {
			/* Take the upper one out before the lower one grows over it. */
			if (merged)
				unlink_va(va, root, augment);
			sibling->va_end = va->va_end;
			vmap_area_free(va);
			va = sibling;
			merged = true;
		}
	}
	if (!merged)
		link_va(va, root, parent, link, head, augment);
	else if (augment)
		augment_tree_propagate_from(va);
	return va;
}

static struct vmap_area *merge_or_add_vmap_area(struct vmap_area *va, struct rb_root *root,
						struct list_head *head)
{
	return __merge_or_add_vmap_area(va, root, head, false);
}

static struct vmap_area *merge_or_add_vmap_area_augment(struct vmap_area *va,
							 struct rb_root *root,
							 struct list_head *head)
{
	return __merge_or_add_vmap_area(va, root, head, true);
}

/* --- allocating addresses ---------------------------------------------------------- */

static inline bool is_within_this_va(struct vmap_area *va, unsigned long size,
				     unsigned long align, unsigned long vstart)
{
	unsigned long nva_start_addr = ALIGN(va->va_start > vstart ? va->va_start : vstart, align);

	/* ALIGN or the end may wrap around for huge sizes and alignments. */
	if (nva_start_addr < vstart || nva_start_addr + size < nva_start_addr)
		return false;
	return nva_start_addr + size <= va->va_end;
}

/*
 * The lowest-addressed free area that holds @size bytes at @align at or
 * above @vstart: an in-order walk that enters only subtrees whose largest
 * area is at least @length (@size, plus @align - 1 when the alignment may
 * cost that much) and left subtrees only if they can reach above @vstart.
 */
static struct vmap_area *find_vmap_lowest_match(struct rb_root *root, unsigned long size,
						unsigned long align, unsigned long vstart,
						bool adjust_search_size)
{
	unsigned long length = adjust_search_size ? size + align - 1 : size;
	struct rb_node *node = root->rb_node;

	while (node) {
		struct vmap_area *va = rb_entry(node, struct vmap_area, rb_node);

		if (get_subtree_max_size(node->rb_left) >= length && vstart < va->va_start) {
			node = node->rb_left;
			continue;
		}
		if (is_within_this_va(va, size, align, vstart))
			return va;
		if (get_subtree_max_size(node->rb_right) >= length) {
			node = node->rb_right;
			continue;
		}
		/* Back up to the nearest ancestor whose left subtree we were in. */
		for (;;) {
			struct rb_node *child = node;

			node = rb_parent(node);
			if (!node)
				return NULL;
			if (child != node->rb_left)
				continue;
			va = rb_entry(node, struct vmap_area, rb_node);
			if (is_within_this_va(va, size, align, vstart))
				return va;
			if (get_subtree_max_size(node->rb_right) >= length) {
				node = node->rb_right;
				break;
			}
		}
	}
	return NULL;
}

enum fit_type {
	NOTHING_FIT,
	FL_FIT_TYPE,	/* full fit: the whole area */
	LE_FIT_TYPE,	/* left edge */
	RE_FIT_TYPE,	/* right edge */
	NE_FIT_TYPE,	/* no edge: the area splits in two */
};

static enum fit_type classify_va_fit_type(struct vmap_area *va, unsigned long nva_start_addr,
					  unsigned long size)
{
	if (nva_start_addr < va->va_start || nva_start_addr + size > va->va_end)
		return NOTHING_FIT;
	if (va->va_start == nva_start_addr)
		return va->va_end == nva_start_addr + size ? FL_FIT_TYPE : LE_FIT_TYPE;
	return va->va_end == nva_start_addr + size ? RE_FIT_TYPE : NE_FIT_TYPE;
}

/* Cut [nva_start_addr, +size) out of the free area @va. */
static int va_clip(struct rb_root *root, struct list_head *head, struct vmap_area *va,
		   unsigned long nva_start_addr, unsigned long size)
{
	struct vmap_area *lva = NULL;

	switch (classify_va_fit_type(va, nva_start_addr, size)) {
	case FL_FIT_TYPE:
		unlink_va(va, root, true);
		vmap_area_free(va);
		return 0;
	case LE_FIT_TYPE:
		va->va_start += size;
		break;
	case RE_FIT_TYPE:
		va->va_end = nva_start_addr;
		break;
	case NE_FIT_TYPE:
		lva = vmap_area_alloc();
		if (!lva)
			return -ENOMEM;
		lva->va_start = va->va_start;
		lva->va_end = nva_start_addr;
		va->va_start = nva_start_addr + size;
		break;
	default:
		return -EINVAL;
	}
	augment_tree_propagate_from(va);
	if (lva)
		insert_vmap_area_augment(lva, &va->rb_node, root, head);
	return 0;
}

/* Returns the start of the new area, or an error value. */
static unsigned long __alloc_vmap_area(struct rb_root *root, struct list_head *head,
				       unsigned long size, unsigned long align,
				       unsigned long vstart, unsigned long vend)
{
	bool adjust_search_size = align > PAGE_SIZE && vend - vstart != size;
	unsigned long nva_start_addr;
	struct vmap_area *va;
	int ret;

	va = find_vmap_lowest_match(root, size, align, vstart, adjust_search_size);
	if (unlikely(!va))
		return (unsigned long)-ENOENT;
	nva_start_addr = ALIGN(va->va_start > vstart ? va->va_start : vstart, align);
	if (nva_start_addr + size > vend || nva_start_addr + size < nva_start_addr)
		return (unsigned long)-ERANGE;
	ret = va_clip(root, head, va, nva_start_addr, size);
	if (VM_WARN_ON(ret))
		return (unsigned long)ret;
	return nva_start_addr;
}

static bool __purge_vmap_area_lazy(unsigned long start, unsigned long end, bool full_pool_decay);

/* Nothing fits: everything lazy and everything pooled goes back to the free tree. */
static void reclaim_and_purge_vmap_areas(void)
{
	spin_lock(&vmap_purge_lock);
	__purge_vmap_area_lazy(ULONG_MAX, 0, true);
	spin_unlock(&vmap_purge_lock);
}

/*
 * Allocate @size bytes of address space at @align in [vstart, vend),
 * purging the lazy areas once if nothing fits; the area goes into the
 * busy tree, tied to @vm if given.
 */
static struct vmap_area *alloc_vmap_area(unsigned long size, unsigned long align,
					 unsigned long vstart, unsigned long vend,
					 struct vm_struct *vm)
{
	struct vmap_node *vn;
	struct vmap_area *va;
	unsigned long addr, vn_id;
	bool purged = false;

	if (unlikely(!size || offset_in_page(size) || !is_power_of_2(align)))
		return NULL;
	/*
	 * A pooled area of this size, ready to go; else one from the global
	 * tree, marked with the asking node so that it goes to that pool later.
	 */
	va = node_alloc(size, align, vstart, vend, &addr, &vn_id);
	if (!va) {
		va = vmap_area_alloc();
		if (unlikely(!va))
			return NULL;
	}
retry:
	if (IS_ERR_VALUE(addr)) {
		spin_lock(&free_vmap_area_lock);
		addr = __alloc_vmap_area(&free_vmap_area_root, &free_vmap_area_list, size, align,
					 vstart, vend);
		spin_unlock(&free_vmap_area_lock);
	}
	if (IS_ERR_VALUE(addr)) {
		if (!purged) {
			reclaim_and_purge_vmap_areas();
			purged = true;
			goto retry;
		}
		vmap_area_free(va);
		return NULL;
	}
	va->va_start = addr;
	va->va_end = addr + size;
	va->vm = vm;
	va->flags = vn_id;
	if (vm) {
		vm->addr = (void *)va->va_start;
		vm->size = va_size(va);
	}
	vn = addr_to_node(va->va_start);
	spin_lock(&vn->busy.lock);
	insert_vmap_area(va, &vn->busy.root, &vn->busy.head);
	spin_unlock(&vn->busy.lock);
	return va;
}

/* --- freeing addresses lazily ---------------------------------------------------- */

/* fls(CPUs) * 32 MiB of freed addresses are kept before one flush covers them. */
static unsigned long lazy_max_pages(void)
{
	return (unsigned long)fls((unsigned int)num_online_cpus()) * (32UL * 1024 * 1024 / PAGE_SIZE);
}

/* Give a list of areas back to the global free tree. */
static void reclaim_list_global(struct list_head *head)
{
	struct vmap_area *va, *n;

	if (list_empty(head))
		return;
	spin_lock(&free_vmap_area_lock);
	list_for_each_entry_safe(va, n, head, list) {
		list_del_init(&va->list);
		RB_CLEAR_NODE(&va->rb_node);
		merge_or_add_vmap_area_augment(va, &free_vmap_area_root, &free_vmap_area_list);
	}
	spin_unlock(&free_vmap_area_lock);
}

/*
 * Give about a quarter of each of the node's pools back to the free tree
 * (all of it when @full_decay), merged among themselves first, so that
 * pools a workload stopped asking for drain away over a few purges.
 */
static void decay_va_pool_node(struct vmap_node *vn, bool full_decay)
{
	struct rb_root decay_root = RB_ROOT;
	struct vmap_area *va, *nva;
	LIST_HEAD(decay_list);

	for (int i = 0; i < MAX_VA_SIZE_PAGES; i++) {
		unsigned long n_decay, pool_len;
		LIST_HEAD(tmp_list);

		if (!READ_ONCE(vn->pool[i].len))	/* the kernel: list_empty(), unlocked */
			continue;
		spin_lock(&vn->pool_lock);
		list_replace_init(&vn->pool[i].head, &tmp_list);
		spin_unlock(&vn->pool_lock);
		pool_len = n_decay = vn->pool[i].len;
		WRITE_ONCE(vn->pool[i].len, 0);
		if (!full_decay)
			n_decay >>= 2;
		pool_len -= n_decay;
		list_for_each_entry_safe(va, nva, &tmp_list, list) {
			if (!n_decay--)
				break;
			list_del_init(&va->list);
			merge_or_add_vmap_area(va, &decay_root, &decay_list);
		}
		/* Nobody else fills a pool during a purge: put the rest back as it was. */
		if (!list_empty(&tmp_list)) {
			spin_lock(&vn->pool_lock);
			list_replace_init(&tmp_list, &vn->pool[i].head);
			WRITE_ONCE(vn->pool[i].len, pool_len);
			spin_unlock(&vn->pool_lock);
		}
	}
	reclaim_list_global(&decay_list);
}

/* A node's purged areas: to the pool of the node that asked for them, else global. */
static void purge_vmap_node(struct vmap_node *vn)
{
	unsigned long nr_purged_pages = 0;
	struct vmap_area *va, *n_va;
	LIST_HEAD(local_list);

	vn->nr_purged = 0;
	list_for_each_entry_safe(va, n_va, &vn->purge_list, list) {
		unsigned long nr = va_size(va) >> PAGE_SHIFT;
		unsigned int vn_id = decode_vn_id(va->flags);

		list_del_init(&va->list);
		nr_purged_pages += nr;
		vn->nr_purged++;
		if (is_vn_id_valid(vn_id) && !vn->skip_populate && node_pool_add_va(vn, va))
			continue;
		list_add(&va->list, &local_list);
	}
	atomic_long_sub((long)nr_purged_pages, &vmap_lazy_nr);
	vmap_stats.purged_areas += vn->nr_purged;
	vmap_stats.purged_pages += nr_purged_pages;
	reclaim_list_global(&local_list);
}

/*
 * Every node's pools decay, then its lazy areas are taken, one flush covers
 * them all, and each node's go to its pools or back to the free tree.
 */
static bool __purge_vmap_area_lazy(unsigned long start, unsigned long end, bool full_pool_decay)
{
	unsigned long nr_purged_areas = 0;
	unsigned int nr_purge_nodes = 0;
	struct vmap_node *vn;

	for_each_vmap_node(vn) {
		INIT_LIST_HEAD(&vn->purge_list);
		vn->skip_populate = full_pool_decay;
		decay_va_pool_node(vn, full_pool_decay);
		/* The kernel tests the root without the lock; the model's tree writes are plain. */
		spin_lock(&vn->lazy.lock);
		if (RB_EMPTY_ROOT(&vn->lazy.root)) {
			spin_unlock(&vn->lazy.lock);
			continue;
		}
		WRITE_ONCE(vn->lazy.root.rb_node, NULL);
		list_replace_init(&vn->lazy.head, &vn->purge_list);
		spin_unlock(&vn->lazy.lock);
		/* Each lazy list is sorted by address. */
		start = min(start, list_first_entry(&vn->purge_list, struct vmap_area, list)->va_start);
		end = max(end, list_last_entry(&vn->purge_list, struct vmap_area, list)->va_end);
		nr_purge_nodes++;
	}
	if (!nr_purge_nodes)
		return false;
	flush_tlb_kernel_range(start, end);
	for_each_vmap_node(vn) {
		if (list_empty(&vn->purge_list))
			continue;
		purge_vmap_node(vn);
		nr_purged_areas += vn->nr_purged;
	}
	vmap_stats.purges++;
	return nr_purged_areas > 0;
}

static void purge_vmap_area_lazy(void)
{
	spin_lock(&vmap_purge_lock);
	__purge_vmap_area_lazy(ULONG_MAX, 0, false);
	spin_unlock(&vmap_purge_lock);
}

void vm_unmap_aliases(void)
{
	purge_vmap_area_lazy();
}

/*
 * The area is unmapped but its addresses may still be in some CPU's TLB:
 * keep them out of use until a purge has flushed.  The kernel hands the
 * purge to a worker; the model runs it here.
 */
static void free_vmap_area_noflush(struct vmap_area *va)
{
	unsigned long nr_lazy_max = lazy_max_pages();
	unsigned long nr_lazy;

	unsigned int vn_id = decode_vn_id(va->flags);
	struct vmap_node *vn;

	nr_lazy = (unsigned long)atomic_long_add_return((long)(va_size(va) >> PAGE_SHIFT),
							&vmap_lazy_nr);
	/* An area a node asked for goes back to that node, for its pool. */
	vn = is_vn_id_valid(vn_id) ? id_to_node(vn_id) : addr_to_node(va->va_start);
	spin_lock(&vn->lazy.lock);
	insert_vmap_area(va, &vn->lazy.root, &vn->lazy.head);
	spin_unlock(&vn->lazy.lock);
	if (unlikely(nr_lazy > nr_lazy_max))
		purge_vmap_area_lazy();
}

/* --- page tables: map and unmap ------------------------------------------------------ */

/*
 * arm64's arch_vmap_pte_range_unmap_size(): a valid contiguous entry goes
 * with its whole block, which costs arm64 a look at every entry it unmaps;
 * x86's generic one is PAGE_SIZE, no look.
 */
static unsigned long arch_vmap_pte_range_unmap_size(unsigned long addr, pte_t *ptep)
{
	pte_t pte;

	(void)addr;
	if (!vmap_cont_pte_supported)
		return PAGE_SIZE;
	pte = __ptep_get(ptep);
	return pte_present(pte) && pte_cont(pte) ? CONT_PTE_SIZE : PAGE_SIZE;
}

/* arm64's huge_ptep_get_and_clear() of a kernel contiguous block: each entry cleared. */
static pte_t huge_ptep_get_and_clear(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
				     unsigned long sz)
{
	pte_t orig = __ptep_get_and_clear(mm, addr, ptep);

	for (unsigned long i = 1; i < sz >> PAGE_SHIFT; i++)
		__ptep_get_and_clear(mm, addr + i * PAGE_SIZE, ptep + i);
	return orig;
}

static void vunmap_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end)
{
	pte_t *pte = pte_offset_kernel(pmd, addr);
	unsigned long size;

	do {
		pte_t ptent;

		size = arch_vmap_pte_range_unmap_size(addr, pte);
		if (size != PAGE_SIZE) {
			VM_WARN_ON(!IS_ALIGNED(addr, size) || end - addr < size);
			ptent = huge_ptep_get_and_clear(&init_mm, addr, pte, size);
		} else {
			ptent = ptep_get_and_clear(&init_mm, addr, pte);
		}
		VM_WARN_ON(!pte_none(ptent) && !pte_present(ptent));
	} while (pte += size >> PAGE_SHIFT, addr += size, addr != end);
}

static void vunmap_pmd_range(pud_t *pud, unsigned long addr, unsigned long end)
{
	pmd_t *pmd = pmd_offset(pud, addr);
	unsigned long next;

	do {
		pmd_t e = pmdp_get(pmd);

		next = pmd_addr_end(addr, end);
		if (pmd_leaf(e)) {
			/* A huge mapping goes as a whole (pmd_clear_huge()). */
			VM_WARN_ON(next - addr < PMD_SIZE);
			pmd_clear(pmd);
			continue;
		}
		if (pmd_none(e))
			continue;
		vunmap_pte_range(pmd, addr, next);
	} while (pmd++, addr = next, addr != end);
}

static void vunmap_pud_range(pgd_t *pgd, unsigned long addr, unsigned long end)
{
	pud_t *pud = pud_offset(pgd, addr);
	unsigned long next;

	do {
		next = pud_addr_end(addr, end);
		if (pud_none(pudp_get(pud)))
			continue;
		vunmap_pmd_range(pud, addr, next);
	} while (pud++, addr = next, addr != end);
}

/* Clear the mappings of [start, end); the TLB is left to the caller. */
static void vunmap_range_noflush(unsigned long start, unsigned long end)
{
	pgd_t *pgd = pgd_offset_k(start);
	unsigned long addr = start, next;

	do {
		next = pgd_addr_end(addr, end);
		if (pgd_none(pgdp_get(pgd)))
			continue;
		vunmap_pud_range(pgd, addr, next);
	} while (pgd++, addr = next, addr != end);
}

/*
 * arm64's arch_vmap_pte_range_map_size(): a contiguous block where the
 * mapping allows it (vmalloc_huge() under a PMD) and the block is whole and
 * aligned in both address spaces; PAGE_SIZE otherwise, and always on x86,
 * whose huge mappings are PMDs only.
 */
static unsigned long arch_vmap_pte_range_map_size(unsigned long addr, unsigned long end,
						  unsigned long pfn, unsigned int max_page_shift)
{
	if (max_page_shift < CONT_PTE_SHIFT || end - addr < CONT_PTE_SIZE ||
	    !IS_ALIGNED(addr, CONT_PTE_SIZE) || !IS_ALIGNED(pfn, CONT_PTES))
		return PAGE_SIZE;
	return CONT_PTE_SIZE;
}

/*
 * arm64's set_huge_pte_at() of a fresh kernel contiguous block: break
 * before make only if the first entry was valid (never, for a new vmalloc
 * mapping), then the block's entries in one loop (__set_ptes_anysz()).
 */
static void set_huge_pte_at(struct mm_struct *mm, unsigned long addr, pte_t *ptep, pte_t pte,
			    unsigned long sz)
{
	(void)mm;
	(void)addr;
	VM_WARN_ON(pte_present(__ptep_get(ptep)));
	for (unsigned long i = 0; i < sz >> PAGE_SHIFT; i++) {
		set_pte(ptep + i, pte);
		pte = pte_advance_pfn(pte, 1);
	}
}

/* Map [addr, end) to consecutive pfns from @pfn: contiguous blocks where allowed. */
static int vmap_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end,
			  unsigned long pfn, pgprot_t prot, unsigned int max_page_shift)
{
	pte_t *pte = pte_alloc_kernel(pmd, addr);
	unsigned long size;

	if (!pte)
		return -ENOMEM;
	do {
		if (VM_WARN_ON(!pte_none(ptep_get(pte))))
			return -EBUSY;
		size = arch_vmap_pte_range_map_size(addr, end, pfn, max_page_shift);
		if (size != PAGE_SIZE) {
			set_huge_pte_at(&init_mm, addr, pte, pte_mkcont(pfn_pte(pfn, prot)), size);
			pfn += size >> PAGE_SHIFT;
			continue;
		}
		set_pte_at(&init_mm, addr, pte, pfn_pte(pfn, prot));
		pfn++;
	} while (pte += size >> PAGE_SHIFT, addr += size, addr != end);
	return 0;
}

/* x86's and the generic vmap_try_huge_pmd(): one PMD for an aligned 2 MiB. */
static int vmap_try_huge_pmd(pmd_t *pmd, unsigned long addr, unsigned long end,
			     unsigned long pfn, pgprot_t prot, unsigned int max_page_shift)
{
	if (max_page_shift < PMD_SHIFT || end - addr != PMD_SIZE)
		return 0;
	if (!IS_ALIGNED(addr, PMD_SIZE) || !IS_ALIGNED(pfn, PTRS_PER_PTE))
		return 0;
	if (pmd_present(pmdp_get(pmd)) && !pmd_free_pte_page(pmd, addr))
		return 0;
	return pmd_set_huge(pmd, pfn, prot);
}

static int vmap_pmd_range(pud_t *pud, unsigned long addr, unsigned long end,
			  unsigned long pfn, pgprot_t prot, unsigned int max_page_shift)
{
	pmd_t *pmd = pmd_alloc(&init_mm, pud, addr);
	unsigned long next;

	if (!pmd)
		return -ENOMEM;
	do {
		next = pmd_addr_end(addr, end);
		if (vmap_try_huge_pmd(pmd, addr, next, pfn, prot, max_page_shift))
			continue;
		if (vmap_pte_range(pmd, addr, next, pfn, prot, max_page_shift))
			return -ENOMEM;
	} while (pmd++, pfn += (next - addr) >> PAGE_SHIFT, addr = next, addr != end);
	return 0;
}

/* Map [addr, end) to the physically contiguous pfns from @pfn. */
static int vmap_range_noflush(unsigned long addr, unsigned long end, unsigned long pfn,
			      pgprot_t prot, unsigned int max_page_shift)
{
	pgd_t *pgd = pgd_offset_k(addr);
	unsigned long next;

	do {
		pud_t *pud = pud_alloc(&init_mm, pgd, addr);

		next = pgd_addr_end(addr, end);
		if (!pud)
			return -ENOMEM;
		do {
			unsigned long pnext = pud_addr_end(addr, next);

			if (vmap_pmd_range(pud, addr, pnext, pfn, prot, max_page_shift))
				return -ENOMEM;
			pfn += (pnext - addr) >> PAGE_SHIFT;
			addr = pnext;
		} while (pud++, addr != next);
	} while (pgd++, addr != end);
	return 0;
}

/* One PTE per page, the pages in any order. */
static int vmap_pages_pte_range(pmd_t *pmd, unsigned long addr, unsigned long end,
				pgprot_t prot, struct page **pages, unsigned int *nr)
{
	pte_t *pte = pte_alloc_kernel(pmd, addr);

	if (!pte)
		return -ENOMEM;
	do {
		struct page *page = pages[*nr];

		if (VM_WARN_ON(!pte_none(ptep_get(pte))))
			return -EBUSY;
		if (VM_WARN_ON(!page))
			return -ENOMEM;
		set_pte_at(&init_mm, addr, pte, mk_pte(page, prot));
		(*nr)++;
	} while (pte++, addr += PAGE_SIZE, addr != end);
	return 0;
}

static int vmap_pages_pmd_range(pud_t *pud, unsigned long addr, unsigned long end,
				pgprot_t prot, struct page **pages, unsigned int *nr)
{
	pmd_t *pmd = pmd_alloc(&init_mm, pud, addr);
	unsigned long next;

	if (!pmd)
		return -ENOMEM;
	do {
		int err;

		next = pmd_addr_end(addr, end);
		err = vmap_pages_pte_range(pmd, addr, next, prot, pages, nr);
		if (err)
			return err;
	} while (pmd++, addr = next, addr != end);
	return 0;
}

static int vmap_small_pages_range_noflush(unsigned long addr, unsigned long end,
					  pgprot_t prot, struct page **pages)
{
	pgd_t *pgd = pgd_offset_k(addr);
	unsigned int nr = 0;
	unsigned long next;

	do {
		pud_t *pud = pud_alloc(&init_mm, pgd, addr);

		next = pgd_addr_end(addr, end);
		if (!pud)
			return -ENOMEM;
		do {
			unsigned long pnext = pud_addr_end(addr, next);
			int err = vmap_pages_pmd_range(pud, addr, pnext, prot, pages, &nr);

			if (err)
				return err;
			addr = pnext;
		} while (pud++, addr != next);
	} while (pgd++, addr != end);
	return 0;
}

static int vmap_pages_range(unsigned long addr, unsigned long end, pgprot_t prot,
			    struct page **pages, unsigned int page_shift)
{
	unsigned int i, nr = (unsigned int)((end - addr) >> PAGE_SHIFT);
	unsigned int step = 1U << (page_shift - PAGE_SHIFT);

	if (page_shift == PAGE_SHIFT)
		return vmap_small_pages_range_noflush(addr, end, prot, pages);
	for (i = 0; i < nr; i += step) {
		int err = vmap_range_noflush(addr, addr + (1UL << page_shift),
					     page_to_pfn(pages[i]), prot, page_shift);

		if (err)
			return err;
		addr += 1UL << page_shift;
	}
	return 0;
}

/* --- vm areas -------------------------------------------------------------------------- */

static struct vm_struct *__get_vm_area_node(unsigned long size, unsigned long align,
					    unsigned int shift, unsigned long flags,
					    unsigned long start, unsigned long end,
					    const void *caller)
{
	struct vm_struct *area;

	size = ALIGN(size, 1UL << shift);
	if (unlikely(!size))
		return NULL;
	area = calloc(1, sizeof(*area));
	if (unlikely(!area))
		return NULL;
	if (!(flags & VM_NO_GUARD))
		size += PAGE_SIZE;
	area->flags = flags;
	area->caller = caller;
	if (!alloc_vmap_area(size, align, start, end, area)) {
		free(area);
		return NULL;
	}
	return area;
}

/*
 * An area lives in the node of its start, so @addr's node is the one to
 * search first; an address inside an area that spans several 16-page
 * stripes may be in the nodes before it.
 */
static inline unsigned int prev_node_id(unsigned int i)
{
	return (i + nr_vmap_nodes - 1) % nr_vmap_nodes;
}

/*
 * The busy area holding @addr, searched in @addr's node and then the ones
 * before it; with @unlink only an area starting at @addr, taken out of its
 * tree under that node's lock.
 */
static struct vmap_area *search_busy_nodes(unsigned long addr, bool unlink)
{
	unsigned int i, j;
	struct vmap_node *vn;
	struct vmap_area *va;

	i = j = addr_to_node_id(addr);
	do {
		vn = &vmap_nodes[i];
		spin_lock(&vn->busy.lock);
		va = __find_vmap_area(addr, &vn->busy.root);
		if (va && unlink) {
			if (va->va_start == addr)
				unlink_va(va, &vn->busy.root, false);
			else
				va = NULL;
		}
		spin_unlock(&vn->busy.lock);
		if (va)
			return va;
	} while ((i = prev_node_id(i)) != j);
	return NULL;
}

/* Find and unlink the busy area starting at @addr. */
static struct vmap_area *find_unlink_vmap_area(unsigned long addr)
{
	return search_busy_nodes(addr, true);
}

static struct vmap_area *find_vmap_area(unsigned long addr)
{
	return search_busy_nodes(addr, false);
}

static void free_unmap_vmap_area(struct vmap_area *va)
{
	vunmap_range_noflush(va->va_start, va->va_end);
	free_vmap_area_noflush(va);
}

static struct vm_struct *remove_vm_area(const void *addr)
{
	struct vmap_area *va;
	struct vm_struct *vm;

	if (VM_WARN_ON(offset_in_page(addr)))
		return NULL;
	va = find_unlink_vmap_area((unsigned long)addr);
	if (!va)
		return NULL;
	vm = va->vm;
	if (VM_WARN_ON(!vm)) {
		/* A vm_map_ram() area: put it back, it is not vfree()'s. */
		struct vmap_node *vn = addr_to_node(va->va_start);

		spin_lock(&vn->busy.lock);
		insert_vmap_area(va, &vn->busy.root, &vn->busy.head);
		spin_unlock(&vn->busy.lock);
		return NULL;
	}
	free_unmap_vmap_area(va);
	return vm;
}

struct vm_struct *find_vm_area(const void *addr)
{
	struct vmap_area *va = find_vmap_area((unsigned long)addr);

	return va ? va->vm : NULL;
}

/* --- freeing the pages: the design under study ------------------------------------- */

#if defined(CONFIG_CONTIG_BULK)
/*
 * v4: statistics first, then one call that batches contiguous runs (with
 * no preemption point: the posting's free_pages_bulk() was not read here).
 */
static void vm_free_pages(struct vm_struct *vm)
{
	for (unsigned int i = 0; i < vm->nr_pages; i++)
		mod_vmalloc_page_state(vm->pages[i], -1);
	free_pages_bulk(vm->pages, vm->nr_pages);
}
#elif defined(CONFIG_CONTIG_BATCHED)
/* v1: runs of consecutive pfns, each freed by __free_contig_range(). */
static void vm_free_pages(struct vm_struct *vm)
{
	unsigned long start_pfn, nr;

	if (vm->nr_pages) {
		start_pfn = page_to_pfn(vm->pages[0]);
		nr = 1;
		for (unsigned int i = 1; i < vm->nr_pages; i++) {
			unsigned long pfn = page_to_pfn(vm->pages[i]);

			if (pfn == start_pfn + nr) {
				nr++;
				continue;
			}
			__free_contig_range(start_pfn, nr);
			start_pfn = pfn;
			nr = 1;
			cond_resched();
		}
		__free_contig_range(start_pfn, nr);
	}
	atomic_long_sub(vm->nr_pages, &nr_vmalloc_pages);
}
#elif defined(CONFIG_VMALLOC_ATOMIC_NR_PAGES)
/* Before the series, on v1's base: one page at a time, the count once. */
static void vm_free_pages(struct vm_struct *vm)
{
	for (unsigned int i = 0; i < vm->nr_pages; i++) {
		struct page *page = vm->pages[i];

		BUG_ON(!page);
		/*
		 * High-order allocations for huge vmallocs are split, so
		 * they are freed as an array of order-0 pages.
		 */
		__free_page(page);
		cond_resched();
	}
	atomic_long_sub(vm->nr_pages, &nr_vmalloc_pages);
}
#else
/* Before the series: one page at a time. */
static void vm_free_pages(struct vm_struct *vm)
{
	for (unsigned int i = 0; i < vm->nr_pages; i++) {
		struct page *page = vm->pages[i];

		BUG_ON(!page);
		mod_vmalloc_page_state(page, -1);
		__free_page(page);
		cond_resched();
	}
}
#endif

void vfree(const void *addr)
{
	struct vm_struct *vm;

	if (!addr)
		return;
	vm = remove_vm_area(addr);
	if (unlikely(!vm)) {
		if (!READ_ONCE(vm_warn_quiet))
			fprintf(stderr, "WARNING: Trying to vfree() nonexistent vm area (%p)\n", addr);
		VM_WARN_ON(1);
		return;
	}
	vm_free_pages(vm);
	free(vm->pages);
	free(vm);
}

/* --- allocating the pages ------------------------------------------------------------- */

/*
 * Order-0 requests: as large blocks as the remaining count allows, split;
 * a failed order is not tried again.  (Without direct reclaim: the model
 * has none anyway.)
 */
static unsigned int vm_area_alloc_pages_large_order(gfp_t gfp, unsigned int order,
						    unsigned int nr_pages, struct page **pages)
{
	gfp_t large_gfp = gfp | __GFP_NOWARN | __GFP_NORETRY;
	unsigned int max_attempt_order = MAX_PAGE_ORDER;
	unsigned int nr_allocated = 0, large_order;

	/*
	 * Blocks larger than the mapping's order, whatever it is: a huge
	 * mapping's order-4 chunks may come from one order-8 block.  Never
	 * smaller, since each chunk of the mapping must be contiguous.
	 */
	large_order = min(max_attempt_order, (unsigned int)ilog2(nr_pages));
	while (large_order > order && nr_allocated < nr_pages) {
		struct page *page = alloc_pages(large_gfp, large_order);

		if (unlikely(!page)) {
			max_attempt_order = --large_order;
			continue;
		}
		account_vmalloc_pages(page, 1L << large_order);
		split_page(page, large_order);
		for (unsigned int i = 0; i < (1U << large_order); i++)
			pages[nr_allocated + i] = page + i;
		nr_allocated += 1U << large_order;
		if (nr_allocated < nr_pages)
			large_order = min(max_attempt_order,
					  (unsigned int)ilog2(nr_pages - nr_allocated));
	}
	return nr_allocated;
}

/* Then what is left in bulk, at most 100 pages a call, until a call comes up short. */
static unsigned int vm_area_alloc_pages_bulk(gfp_t gfp, unsigned int nr_allocated,
					     unsigned int nr_pages, struct page **pages)
{
	while (nr_allocated < nr_pages) {
		unsigned int request = min(100U, nr_pages - nr_allocated);
		unsigned int nr = (unsigned int)alloc_pages_bulk(gfp, request, pages + nr_allocated);

		for (unsigned int i = nr_allocated; i < nr_allocated + nr; i++)
			account_vmalloc_pages(pages[i], 1);
		nr_allocated += nr;
		if (nr != request)
			break;
	}
	return nr_allocated;
}

static unsigned int vm_area_alloc_pages(gfp_t gfp, unsigned int order,
					unsigned int nr_pages, struct page **pages)
{
	unsigned int nr_allocated = vm_area_alloc_pages_large_order(gfp, order, nr_pages, pages);

	if (!order)
		nr_allocated = vm_area_alloc_pages_bulk(gfp, nr_allocated, nr_pages, pages);
	/* High orders, or whatever bulk allocation could not get. */
	while (nr_allocated < nr_pages) {
		struct page *page = alloc_pages(gfp, order);

		if (unlikely(!page))
			break;
		account_vmalloc_pages(page, 1L << order);
		if (order)
			split_page(page, order);
		for (unsigned int i = 0; i < (1U << order); i++)
			pages[nr_allocated + i] = page + i;
		nr_allocated += 1U << order;
	}
	return nr_allocated;
}

static void *__vmalloc_area_node(struct vm_struct *area, gfp_t gfp_mask, pgprot_t prot,
				 unsigned int page_shift)
{
	unsigned long addr = (unsigned long)area->addr;
	unsigned long size = get_vm_area_size(area);
	unsigned int nr_small_pages = (unsigned int)(size >> PAGE_SHIFT);

	area->pages = calloc(nr_small_pages, sizeof(struct page *));
	if (!area->pages)
		goto fail;
	area->page_order = page_shift - PAGE_SHIFT;
	area->nr_pages = vm_area_alloc_pages(gfp_mask | __GFP_NOWARN, area->page_order,
					     nr_small_pages, area->pages);
	account_vmalloc_area(area);
	/* Not all there: free what came, and fail. */
	if (area->nr_pages != nr_small_pages)
		goto fail;
	if (vmap_pages_range(addr, addr + size, prot, area->pages, page_shift))
		goto fail;
	return area->addr;
fail:
	vfree(area->addr);
	return NULL;
}

static unsigned int arch_vmap_pte_supported_shift(unsigned long size)
{
	if (vmap_cont_pte_supported && size >= CONT_PTE_SIZE)
		return CONT_PTE_SHIFT;
	return PAGE_SHIFT;
}

void *__vmalloc_node_range(unsigned long size, unsigned long align,
			   unsigned long start, unsigned long end, gfp_t gfp_mask,
			   pgprot_t prot, unsigned long vm_flags, int node,
			   const void *caller)
{
	unsigned long real_size = size, real_align = align;
	unsigned int shift = PAGE_SHIFT;
	struct vm_struct *area;

	(void)node;
	if (VM_WARN_ON(!size) || VM_WARN_ON(!vmap_initialized))
		return NULL;
	if ((size >> PAGE_SHIFT) > totalram_pages())
		return NULL;	/* "vmalloc error: size %lu, exceeds total pages" */
	if (vm_flags & VM_ALLOW_HUGE_VMAP) {
		shift = size >= PMD_SIZE ? PMD_SHIFT : arch_vmap_pte_supported_shift(size);
		align = max(real_align, 1UL << shift);
		size = ALIGN(real_size, 1UL << shift);
	}
again:
	area = __get_vm_area_node(real_size, align, shift, VM_ALLOC | VM_UNINITIALIZED | vm_flags,
				  start, end, caller);
	if (area && __vmalloc_area_node(area, gfp_mask, prot, shift)) {
		area->flags &= ~VM_UNINITIALIZED;
		return area->addr;
	}
	if (shift > PAGE_SHIFT) {
		__atomic_fetch_add(&vmap_stats.huge_fallbacks, 1, __ATOMIC_RELAXED);
		shift = PAGE_SHIFT;
		align = real_align;
		size = real_size;
		goto again;
	}
	return NULL;
}

void *__vmalloc_node(unsigned long size, unsigned long align, gfp_t gfp_mask,
		     int node, const void *caller)
{
	return __vmalloc_node_range(size, align, VMALLOC_START, VMALLOC_END, gfp_mask,
				    PAGE_KERNEL, 0, node, caller);
}

void *__vmalloc(unsigned long size, gfp_t gfp_mask)
{
	return __vmalloc_node(size, 1, gfp_mask, NUMA_NO_NODE, __builtin_return_address(0));
}

void *vmalloc(unsigned long size)
{
	return __vmalloc_node(size, 1, GFP_KERNEL, NUMA_NO_NODE, __builtin_return_address(0));
}

void *vzalloc(unsigned long size)
{
	return __vmalloc_node(size, 1, GFP_KERNEL | __GFP_ZERO, NUMA_NO_NODE,
			      __builtin_return_address(0));
}

void *vmalloc_huge(unsigned long size, gfp_t gfp_mask)
{
	return __vmalloc_node_range(size, 1, VMALLOC_START, VMALLOC_END, gfp_mask, PAGE_KERNEL,
				    VM_ALLOW_HUGE_VMAP, NUMA_NO_NODE, __builtin_return_address(0));
}

/* --- vm_map_ram -------------------------------------------------------------------------- */

void *vm_map_ram(struct page **pages, unsigned int count, int node)
{
	unsigned long size = (unsigned long)count << PAGE_SHIFT;
	struct vmap_area *va;

	(void)node;
	va = alloc_vmap_area(size, PAGE_SIZE, VMALLOC_START, VMALLOC_END, NULL);
	if (!va)
		return NULL;
	if (vmap_pages_range(va->va_start, va->va_end, PAGE_KERNEL, pages, PAGE_SHIFT)) {
		vm_unmap_ram((void *)va->va_start, count);
		return NULL;
	}
	return (void *)va->va_start;
}

void vm_unmap_ram(const void *mem, unsigned int count)
{
	struct vmap_area *va = find_unlink_vmap_area((unsigned long)mem);

	if (VM_WARN_ON(!va) || VM_WARN_ON(va_size(va) != (unsigned long)count << PAGE_SHIFT))
		return;
	free_unmap_vmap_area(va);
}

/* --- the walk -------------------------------------------------------------------------- */

/*
 * The walk of vmalloc_to_page(); @mmu reads the last entry as the hardware
 * walker does, without arm64's software fold of a contiguous block's access
 * and dirty bits (ptep_get() -> contpte_ptep_get()).
 */
static __always_inline struct page *vmalloc_walk(const void *vmalloc_addr, bool mmu)
{
	unsigned long addr = (unsigned long)vmalloc_addr;
	pgd_t *pgd = pgd_offset_k(addr);
	pud_t *pud;
	pmd_t *pmd, e;
	pte_t pte, *ptep;

	if (!is_vmalloc_addr(vmalloc_addr) || !init_mm.pgd || pgd_none(pgdp_get(pgd)))
		return NULL;
	pud = pud_offset(pgd, addr);
	if (pud_none(pudp_get(pud)))
		return NULL;
	pmd = pmd_offset(pud, addr);
	e = pmdp_get(pmd);
	if (pmd_none(e))
		return NULL;
	if (pmd_leaf(e))
		return pmd_page(e) + ((addr & ~PMD_MASK) >> PAGE_SHIFT);
	ptep = pte_offset_kernel(pmd, addr);
	pte = mmu ? __ptep_get(ptep) : ptep_get(ptep);
	return pte_present(pte) ? pte_page(pte) : NULL;
}

struct page *vmalloc_to_page(const void *vmalloc_addr)
{
	return vmalloc_walk(vmalloc_addr, false);
}

struct page *vmalloc_mmu_page(const void *vmalloc_addr)
{
	return vmalloc_walk(vmalloc_addr, true);
}

unsigned long vmalloc_to_pfn(const void *addr)
{
	struct page *page = vmalloc_to_page(addr);

	return page ? page_to_pfn(page) : 0;
}

/* --- boot and teardown ------------------------------------------------------------------- */

static void rb_list_init(struct rb_list *l)
{
	l->root = RB_ROOT;
	INIT_LIST_HEAD(&l->head);
	spin_lock_init(&l->lock);
}

/*
 * One node per CPU up to 128 (vmap_init_nodes()), each owning the busy and
 * lazy areas of every nr_vmap_nodes-th 16-page stripe of addresses; with
 * one CPU a single node owns them all and keeps no pools.
 */
static int vmap_init_nodes(void)
{
	unsigned int n = (unsigned int)clamp(nr_cpu_ids, 1, VMAP_NODES_MAX);
	struct vmap_node *vn;

	vmap_nodes = &single_vmap_node;
	nr_vmap_nodes = 1;
	vmap_zone_size = PAGE_SIZE;
	if (n > 1) {
		vn = calloc(n, sizeof(*vn));
		if (!vn)
			return -ENOMEM;
		vmap_nodes = vn;
		nr_vmap_nodes = n;
		vmap_zone_size = 16 * PAGE_SIZE;
	}
	for_each_vmap_node(vn) {
		for (int i = 0; i < MAX_VA_SIZE_PAGES; i++) {
			INIT_LIST_HEAD(&vn->pool[i].head);
			vn->pool[i].len = 0;
		}
		spin_lock_init(&vn->pool_lock);
		vn->skip_populate = false;
		rb_list_init(&vn->busy);
		rb_list_init(&vn->lazy);
		INIT_LIST_HEAD(&vn->purge_list);
		vn->nr_purged = 0;
	}
	return 0;
}

static void vmap_exit_nodes(void)
{
	if (vmap_nodes != &single_vmap_node)
		free(vmap_nodes);
	vmap_nodes = &single_vmap_node;
	nr_vmap_nodes = 1;
	vmap_zone_size = PAGE_SIZE;
}

int vmalloc_init(void)
{
	struct vmap_area *free_space;

	if (pgtable_init_mm(&init_mm))
		return -ENOMEM;
	free_vmap_area_root = RB_ROOT;
	INIT_LIST_HEAD(&free_vmap_area_list);
	if (vmap_init_nodes()) {
		pgtable_teardown(&init_mm);
		return -ENOMEM;
	}
	atomic_long_set(&vmap_lazy_nr, 0);
	atomic_long_set(&nr_vmalloc_pages, 0);
	memset(vmalloc_stat_pcp, 0, sizeof(vmalloc_stat_pcp));
	memset(&vmap_stats, 0, sizeof(vmap_stats));
	vmstat_threshold = calculate_normal_threshold();

	/* All of the address space is free at first (vmap_init_free_space()). */
	free_space = vmap_area_alloc();
	if (!free_space) {
		vmap_exit_nodes();
		pgtable_teardown(&init_mm);
		return -ENOMEM;
	}
	free_space->va_start = 1;
	free_space->va_end = ULONG_MAX;
	insert_vmap_area_augment(free_space, NULL, &free_vmap_area_root, &free_vmap_area_list);
	vmap_initialized = true;
	return 0;
}

/* Free the bookkeeping of a list's areas (their pages, if any, stay leaked). */
static unsigned long free_area_list(struct list_head *head, bool busy)
{
	struct vmap_area *va, *n;
	unsigned long nr = 0;

	list_for_each_entry_safe(va, n, head, list) {
		list_del(&va->list);
		if (busy && va->vm) {
			free(va->vm->pages);
			free(va->vm);
		}
		vmap_area_free(va);
		nr++;
	}
	return nr;
}

int vmalloc_exit(char *msg, size_t len)
{
	unsigned long busy = 0, mapped;
	struct vmap_area *va;

	struct vmap_node *vn;

	if (!vmap_initialized)
		return 0;
	for_each_vmap_node(vn)
		list_for_each_entry(va, &vn->busy.head, list)
			busy++;
	/* The lazy areas and every pool back to the free tree. */
	reclaim_and_purge_vmap_areas();
	for_each_vmap_node(vn) {
		free_area_list(&vn->busy.head, true);
		rb_list_init(&vn->busy);
	}
	free_area_list(&free_vmap_area_list, false);
	free_vmap_area_root = RB_ROOT;
	vmap_exit_nodes();
	mapped = pgtable_teardown(&init_mm);
	vmap_initialized = false;
	if (busy) {
		snprintf(msg, len, "%lu vmalloc areas still allocated at vmalloc_exit()", busy);
		return -1;
	}
	if (mapped) {
		snprintf(msg, len, "%lu page-table entries still mapped with no area allocated", mapped);
		return -1;
	}
	return 0;
}

/* --- the checker ------------------------------------------------------------------------ */

static bool va_less(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct vmap_area, rb_node)->va_start <
	       rb_entry(b, struct vmap_area, rb_node)->va_start;
}

static unsigned long check_subtree_max(struct rb_node *n, struct vmap_area **bad)
{
	struct vmap_area *va;
	unsigned long m, l, r;

	if (!n)
		return 0;
	va = rb_entry(n, struct vmap_area, rb_node);
	l = check_subtree_max(n->rb_left, bad);
	r = check_subtree_max(n->rb_right, bad);
	m = max3(va_size(va), l, r);
	if (va->subtree_max_size != m && !*bad)
		*bad = va;
	return m;
}

/*
 * Tree and list agree, the list is sorted and its areas do not overlap.
 * Free areas never touch (they would have been merged); allocated and
 * lazy areas are whole pages.
 */
static int check_rb_list(struct rb_root *root, struct list_head *head, const char *name,
			 bool is_free, unsigned long *total, char *msg, size_t len)
{
	struct rb_node *n = rb_first(root);
	struct vmap_area *va, *prev = NULL;

	if (rb_tree_check(root, va_less, msg, len) < 0)
		return -1;
	list_for_each_entry(va, head, list) {
		if (n != &va->rb_node)
			return snprintf(msg, len, "%s list and tree disagree at %#lx", name, va->va_start), -1;
		if (va->va_start >= va->va_end ||
		    (!is_free && offset_in_page(va->va_start | va->va_end)))
			return snprintf(msg, len, "%s area [%#lx, %#lx) is malformed", name,
					va->va_start, va->va_end), -1;
		if (prev && (prev->va_end > va->va_start || (is_free && prev->va_end == va->va_start)))
			return snprintf(msg, len, "%s areas [%#lx, %#lx) and [%#lx, %#lx) %s", name,
					prev->va_start, prev->va_end, va->va_start, va->va_end,
					prev->va_end > va->va_start ? "overlap" : "touch but were not merged"), -1;
		*total += va_size(va);
		prev = va;
		n = rb_next(n);
	}
	if (n)
		return snprintf(msg, len, "%s tree has more nodes than its list", name), -1;
	return 0;
}

/* Every page of a busy area mapped to its pages[], the guard page not. */
static int check_busy_mappings(struct vmap_node *vn, char *msg, size_t len, unsigned long *pages)
{
	struct vmap_area *va;

	list_for_each_entry(va, &vn->busy.head, list) {
		struct vm_struct *vm = va->vm;

		if (!vm)
			continue;
		if ((unsigned long)vm->addr != va->va_start || vm->size != va_size(va))
			return snprintf(msg, len, "vm_struct of [%#lx, %#lx) disagrees with its area",
					va->va_start, va->va_end), -1;
		for (unsigned int i = 0; i < vm->nr_pages; i++)
			if (vmalloc_to_page((char *)vm->addr + ((unsigned long)i << PAGE_SHIFT)) != vm->pages[i])
				return snprintf(msg, len, "page %u of the area at %#lx is not mapped to its page",
						i, va->va_start), -1;
		if (!(vm->flags & VM_NO_GUARD) &&
		    vmalloc_to_page((char *)vm->addr + get_vm_area_size(vm)))
			return snprintf(msg, len, "the guard page of the area at %#lx is mapped",
					va->va_start), -1;
		*pages += vm->nr_pages;
	}
	return 0;
}

/* Each pool holds areas of its own size only, as many as its length says. */
static int check_pools(struct vmap_node *vn, unsigned long *total, char *msg, size_t len)
{
	for (int i = 0; i < MAX_VA_SIZE_PAGES; i++) {
		unsigned long n = 0;
		struct vmap_area *va;

		list_for_each_entry(va, &vn->pool[i].head, list) {
			if (va_size(va) != (unsigned long)(i + 1) << PAGE_SHIFT ||
			    offset_in_page(va->va_start))
				return snprintf(msg, len, "node %ld's pool of %d pages holds [%#lx, %#lx)",
						(long)(vn - vmap_nodes), i + 1, va->va_start, va->va_end), -1;
			*total += va_size(va);
			n++;
		}
		if (n != vn->pool[i].len)
			return snprintf(msg, len, "node %ld's pool of %d pages holds %lu areas, its length says %lu",
					(long)(vn - vmap_nodes), i + 1, n, vn->pool[i].len), -1;
	}
	return 0;
}

/* Busy areas live in the node of their start; lazy ones in the node that asked, or that one. */
static int check_node_homes(struct vmap_node *vn, char *msg, size_t len)
{
	struct vmap_area *va;

	list_for_each_entry(va, &vn->busy.head, list)
		if (addr_to_node(va->va_start) != vn)
			return snprintf(msg, len, "busy area at %#lx is in node %ld, not its address's %u",
					va->va_start, (long)(vn - vmap_nodes), addr_to_node_id(va->va_start)), -1;
	list_for_each_entry(va, &vn->lazy.head, list) {
		unsigned int id = decode_vn_id(va->flags);
		struct vmap_node *home = is_vn_id_valid(id) ? id_to_node(id) : addr_to_node(va->va_start);

		if (home != vn)
			return snprintf(msg, len, "lazy area at %#lx is in node %ld, not %ld",
					va->va_start, (long)(vn - vmap_nodes), (long)(home - vmap_nodes)), -1;
	}
	return 0;
}

struct va_span {
	unsigned long start, end;
};

static int va_span_cmp(const void *a, const void *b)
{
	const struct va_span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_spans(struct va_span *v, size_t *n, struct list_head *head)
{
	struct vmap_area *va;

	list_for_each_entry(va, head, list)
		v[(*n)++] = (struct va_span){ va->va_start, va->va_end };
}

/*
 * Free, busy, lazy and pooled areas, sorted, tile [1, ULONG_MAX): each
 * begins where the one before it ends, so none overlaps and none is lost.
 */
static int check_tiling(size_t count, char *msg, size_t len)
{
	struct va_span *v = malloc((count ? count : 1) * sizeof(*v));
	unsigned long at = 1;
	struct vmap_node *vn;
	size_t n = 0;
	int ret = 0;

	if (!v)
		return snprintf(msg, len, "no memory to check the address space's tiling"), -1;
	add_spans(v, &n, &free_vmap_area_list);
	for_each_vmap_node(vn) {
		add_spans(v, &n, &vn->busy.head);
		add_spans(v, &n, &vn->lazy.head);
		for (int i = 0; i < MAX_VA_SIZE_PAGES; i++)
			add_spans(v, &n, &vn->pool[i].head);
	}
	qsort(v, n, sizeof(*v), va_span_cmp);
	for (size_t k = 0; k < n && !ret; k++) {
		if (v[k].start != at) {
			snprintf(msg, len, "the areas do not tile the address space at %#lx: "
				 "the next starts at %#lx", at, v[k].start);
			ret = -1;
		}
		at = v[k].end;
	}
	if (!ret && at != ULONG_MAX) {
		snprintf(msg, len, "the areas end at %#lx, not at the top of the address space", at);
		ret = -1;
	}
	free(v);
	return ret;
}

int vmalloc_check(char *msg, size_t len)
{
	unsigned long free_bytes = 0, busy_bytes = 0, lazy_bytes = 0, pool_bytes = 0, pages = 0;
	size_t count = 0;
	struct vmap_area *bad = NULL, *va;
	struct vmap_node *vn;
	int ret = -1;

	spin_lock(&vmap_purge_lock);
	spin_lock(&free_vmap_area_lock);
	if (check_rb_list(&free_vmap_area_root, &free_vmap_area_list, "free", true, &free_bytes, msg, len))
		goto out;
	for_each_vmap_node(vn) {
		if (check_rb_list(&vn->busy.root, &vn->busy.head, "busy", false, &busy_bytes, msg, len) ||
		    check_rb_list(&vn->lazy.root, &vn->lazy.head, "lazy", false, &lazy_bytes, msg, len) ||
		    check_pools(vn, &pool_bytes, msg, len) || check_node_homes(vn, msg, len) ||
		    check_busy_mappings(vn, msg, len, &pages))
			goto out;
	}
	check_subtree_max(free_vmap_area_root.rb_node, &bad);
	if (bad) {
		snprintf(msg, len, "free area [%#lx, %#lx): stale subtree_max_size %lu",
			 bad->va_start, bad->va_end, bad->subtree_max_size);
		goto out;
	}
	if (free_bytes + busy_bytes + lazy_bytes + pool_bytes != ULONG_MAX - 1) {
		snprintf(msg, len, "free %#lx + busy %#lx + lazy %#lx + pooled %#lx bytes do not tile the address space",
			 free_bytes, busy_bytes, lazy_bytes, pool_bytes);
		goto out;
	}
	list_for_each_entry(va, &free_vmap_area_list, list)
		count++;
	for_each_vmap_node(vn) {
		list_for_each_entry(va, &vn->busy.head, list)
			count++;
		list_for_each_entry(va, &vn->lazy.head, list)
			count++;
		for (int i = 0; i < MAX_VA_SIZE_PAGES; i++)
			count += vn->pool[i].len;
	}
	if (check_tiling(count, msg, len))
		goto out;
	if ((unsigned long)atomic_long_read(&vmap_lazy_nr) != lazy_bytes >> PAGE_SHIFT) {
		snprintf(msg, len, "vmap_lazy_nr %ld, the lazy areas hold %lu pages",
			 atomic_long_read(&vmap_lazy_nr), lazy_bytes >> PAGE_SHIFT);
		goto out;
	}
	if (vmalloc_nr_pages() != pages) {
		snprintf(msg, len, "vmalloc_nr_pages() %lu, the areas hold %lu pages",
			 vmalloc_nr_pages(), pages);
		goto out;
	}
	ret = 0;
out:
	spin_unlock(&free_vmap_area_lock);
	spin_unlock(&vmap_purge_lock);
	return ret;
}
