/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interval trees over any structure (the kernel's interval_tree_generic.h):
 * an rbtree ordered by each node's start, augmented with the largest last
 * in each subtree, so that a stabbing query skips subtrees that end too
 * early.  Equal starts go to the right on insertion, so nodes with the same
 * start are visited in the order they were inserted.
 *
 * INTERVAL_TREE_DEFINE(ITSTRUCT, ITRB, ITTYPE, ITSUBTREE, ITSTART, ITLAST,
 *			ITSTATIC, ITPREFIX) defines ITPREFIX_insert(),
 * ITPREFIX_remove(), ITPREFIX_iter_first() and ITPREFIX_iter_next() for
 * nodes of type ITSTRUCT linked by their struct rb_node ITRB, whose
 * ITTYPE ITSUBTREE field holds the subtree's largest last, with intervals
 * [ITSTART(node), ITLAST(node)].
 */
#ifndef _LINUX_INTERVAL_TREE_GENERIC_H
#define _LINUX_INTERVAL_TREE_GENERIC_H

#include <linux/rbtree_augmented.h>

#define INTERVAL_TREE_DEFINE(ITSTRUCT, ITRB, ITTYPE, ITSUBTREE,				\
			     ITSTART, ITLAST, ITSTATIC, ITPREFIX)				\
												\
RB_DECLARE_CALLBACKS_MAX(static, ITPREFIX ## _augment, ITSTRUCT, ITRB,			\
			 ITTYPE, ITSUBTREE, ITLAST);						\
												\
ITSTATIC void ITPREFIX ## _insert(ITSTRUCT *node, struct rb_root *root)			\
{												\
	struct rb_node **link = &root->rb_node, *rb_parent = NULL;				\
	ITTYPE start = ITSTART(node), last = ITLAST(node);					\
												\
	while (*link) {										\
		ITSTRUCT *parent;								\
												\
		rb_parent = *link;								\
		parent = rb_entry(rb_parent, ITSTRUCT, ITRB);					\
		if (parent->ITSUBTREE < last)							\
			parent->ITSUBTREE = last;						\
		link = start < ITSTART(parent) ? &parent->ITRB.rb_left :			\
						 &parent->ITRB.rb_right;			\
	}											\
	node->ITSUBTREE = last;									\
	rb_link_node(&node->ITRB, rb_parent, link);						\
	rb_insert_augmented(&node->ITRB, root, &ITPREFIX ## _augment);				\
}												\
												\
ITSTATIC void ITPREFIX ## _remove(ITSTRUCT *node, struct rb_root *root)			\
{												\
	rb_erase_augmented(&node->ITRB, root, &ITPREFIX ## _augment);				\
}												\
												\
static inline ITSTRUCT *ITPREFIX ## _entry(struct rb_node *rb)				\
{												\
	return rb ? rb_entry(rb, ITSTRUCT, ITRB) : NULL;					\
}												\
												\
/* The leftmost node of @node's subtree that intersects [start, last]. */		\
static ITSTRUCT *ITPREFIX ## _subtree_search(ITSTRUCT *node, ITTYPE start, ITTYPE last)	\
{												\
	for (;;) {										\
		ITSTRUCT *left = ITPREFIX ## _entry(node->ITRB.rb_left);			\
												\
		if (left && left->ITSUBTREE >= start) {						\
			/* Something on the left ends late enough: look there first. */	\
			node = left;								\
			continue;								\
		}										\
		if (ITSTART(node) <= last) {							\
			if (start <= ITLAST(node))						\
				return node;							\
			node = ITPREFIX ## _entry(node->ITRB.rb_right);				\
			if (node && node->ITSUBTREE >= start)					\
				continue;							\
		}										\
		return NULL;									\
	}											\
}												\
												\
ITSTATIC ITSTRUCT *ITPREFIX ## _iter_first(struct rb_root *root, ITTYPE start, ITTYPE last) \
{												\
	ITSTRUCT *node = ITPREFIX ## _entry(root->rb_node);					\
												\
	if (!node || node->ITSUBTREE < start)							\
		return NULL;									\
	return ITPREFIX ## _subtree_search(node, start, last);					\
}												\
												\
ITSTATIC ITSTRUCT *ITPREFIX ## _iter_next(ITSTRUCT *node, ITTYPE start, ITTYPE last)	\
{												\
	struct rb_node *rb = node->ITRB.rb_right, *prev;					\
												\
	for (;;) {										\
		/*										\
		 * Either the right subtree has an intersecting node, or we go		\
		 * up to the first ancestor we reach from its left.			\
		 */										\
		ITSTRUCT *right = ITPREFIX ## _entry(rb);					\
												\
		if (right && right->ITSUBTREE >= start)						\
			return ITPREFIX ## _subtree_search(right, start, last);			\
		do {										\
			rb = rb_parent(&node->ITRB);						\
			if (!rb)								\
				return NULL;							\
			prev = &node->ITRB;							\
			node = ITPREFIX ## _entry(rb);						\
			rb = node->ITRB.rb_right;						\
		} while (prev == rb);								\
		if (last < ITSTART(node))							\
			return NULL;								\
		if (start <= ITLAST(node))							\
			return node;								\
	}											\
}

#endif
