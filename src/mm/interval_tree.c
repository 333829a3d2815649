// SPDX-License-Identifier: GPL-2.0
/*
 * The i_mmap interval tree (mm/interval_tree.c): a file's VMAs keyed by the
 * page-offset interval each maps, [vm_pgoff, vm_pgoff + vma_pages - 1], in
 * an rbtree ordered by the start and augmented with the largest end in each
 * subtree, so a stabbing query skips subtrees that end too early.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/rbtree_augmented.h>

static inline unsigned long vma_start_pgoff(const struct vm_area_struct *v)
{
	return v->vm_pgoff;
}

static inline unsigned long vma_last_pgoff(const struct vm_area_struct *v)
{
	return v->vm_pgoff + vma_pages(v) - 1;
}

RB_DECLARE_CALLBACKS_MAX(static, vma_itree_augment, struct vm_area_struct, shared.rb,
			 unsigned long, shared.rb_subtree_last, vma_last_pgoff);

void vma_interval_tree_insert(struct vm_area_struct *node, struct rb_root *root)
{
	struct rb_node **link = &root->rb_node, *rb_parent = NULL;
	unsigned long start = vma_start_pgoff(node), last = vma_last_pgoff(node);

	while (*link) {
		struct vm_area_struct *parent;

		rb_parent = *link;
		parent = rb_entry(rb_parent, struct vm_area_struct, shared.rb);
		if (parent->shared.rb_subtree_last < last)
			parent->shared.rb_subtree_last = last;
		link = start < vma_start_pgoff(parent) ? &parent->shared.rb.rb_left :
							 &parent->shared.rb.rb_right;
	}
	node->shared.rb_subtree_last = last;
	rb_link_node(&node->shared.rb, rb_parent, link);
	rb_insert_augmented(&node->shared.rb, root, &vma_itree_augment);
}

void vma_interval_tree_remove(struct vm_area_struct *node, struct rb_root *root)
{
	rb_erase_augmented(&node->shared.rb, root, &vma_itree_augment);
}

static inline struct vm_area_struct *itree_entry(struct rb_node *rb)
{
	return rb ? rb_entry(rb, struct vm_area_struct, shared.rb) : NULL;
}

/* The leftmost node of @node's subtree that intersects [start, last]. */
static struct vm_area_struct *itree_subtree_search(struct vm_area_struct *node,
						   unsigned long start, unsigned long last)
{
	for (;;) {
		struct vm_area_struct *left = itree_entry(node->shared.rb.rb_left);

		if (left && left->shared.rb_subtree_last >= start) {
			/* Something on the left ends late enough: look there first. */
			node = left;
			continue;
		}
		if (vma_start_pgoff(node) <= last) {
			if (start <= vma_last_pgoff(node))
				return node;
			node = itree_entry(node->shared.rb.rb_right);
			if (node && node->shared.rb_subtree_last >= start)
				continue;
		}
		return NULL;
	}
}

struct vm_area_struct *vma_interval_tree_iter_first(struct rb_root *root,
						    unsigned long start, unsigned long last)
{
	struct vm_area_struct *node = itree_entry(root->rb_node);

	if (!node || node->shared.rb_subtree_last < start)
		return NULL;
	return itree_subtree_search(node, start, last);
}

struct vm_area_struct *vma_interval_tree_iter_next(struct vm_area_struct *node,
						   unsigned long start, unsigned long last)
{
	struct rb_node *rb = node->shared.rb.rb_right, *prev;

	for (;;) {
		/*
		 * Either the right subtree has an intersecting node, or we go
		 * up to the first ancestor we reach from its left.
		 */
		struct vm_area_struct *right = itree_entry(rb);

		if (right && right->shared.rb_subtree_last >= start)
			return itree_subtree_search(right, start, last);
		do {
			rb = rb_parent(&node->shared.rb);
			if (!rb)
				return NULL;
			prev = &node->shared.rb;
			node = itree_entry(rb);
			rb = node->shared.rb.rb_right;
		} while (prev == rb);
		if (last < vma_start_pgoff(node))
			return NULL;
		if (start <= vma_last_pgoff(node))
			return node;
	}
}
