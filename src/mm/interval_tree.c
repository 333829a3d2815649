// SPDX-License-Identifier: GPL-2.0
/*
 * The rmap's interval trees (mm/interval_tree.c), both instances of
 * linux/interval_tree_generic.h:
 *  - i_mmap: a file's VMAs keyed by the page-offset interval each maps,
 *    [vm_pgoff, vm_pgoff + vma_pages - 1];
 *  - an anon_vma's tree of anon_vma_chains, keyed by the interval of the
 *    chain's VMA in the same way (anonymous VMAs have vm_pgoff =
 *    vm_start >> PAGE_SHIFT, and fork copies it, so a parent's VMA and its
 *    children's have equal keys and are visited in the order they were
 *    linked).
 */
#include <linux/interval_tree_generic.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>

static inline unsigned long vma_start_pgoff(const struct vm_area_struct *v)
{
	return v->vm_pgoff;
}

static inline unsigned long vma_last_pgoff(const struct vm_area_struct *v)
{
	return v->vm_pgoff + vma_pages(v) - 1;
}

INTERVAL_TREE_DEFINE(struct vm_area_struct, shared.rb, unsigned long, shared.rb_subtree_last,
		     vma_start_pgoff, vma_last_pgoff, , vma_interval_tree)

static inline unsigned long avc_start_pgoff(const struct anon_vma_chain *avc)
{
	return vma_start_pgoff(avc->vma);
}

static inline unsigned long avc_last_pgoff(const struct anon_vma_chain *avc)
{
	return vma_last_pgoff(avc->vma);
}

INTERVAL_TREE_DEFINE(struct anon_vma_chain, rb, unsigned long, rb_subtree_last,
		     avc_start_pgoff, avc_last_pgoff, , anon_vma_interval_tree)
