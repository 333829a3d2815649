/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Augmented red-black trees (include/linux/rbtree_augmented.h): every node
 * carries a value computed from its subtree (vmalloc: the largest free
 * area below it), kept up to date through three callbacks:
 *
 *	propagate(node, stop)	recompute from @node up to, not including,
 *				@stop (NULL: the root); may end early where a
 *				recomputed value did not change
 *	copy(old, new)		@new takes @old's place: copy the value
 *	rotate(old, new)	@new became the root of @old's subtree: @new
 *				takes @old's value, @old is recomputed
 *
 * Inserting: link the node, give it its own value, propagate from its
 * parent (the path down to it must be up to date), then
 * rb_insert_augmented().  Erasing: rb_erase_augmented() does it all.
 */
#ifndef _LINUX_RBTREE_AUGMENTED_H
#define _LINUX_RBTREE_AUGMENTED_H

#include <linux/rbtree.h>

struct rb_augment_callbacks {
	void (*propagate)(struct rb_node *node, struct rb_node *stop);
	void (*copy)(struct rb_node *old, struct rb_node *new);
	void (*rotate)(struct rb_node *old, struct rb_node *new);
};

void __rb_insert_augmented(struct rb_node *node, struct rb_root *root,
			   void (*augment_rotate)(struct rb_node *old, struct rb_node *new));
/* Restore the colours after a black node left the subtree below @parent. */
void __rb_erase_color(struct rb_node *parent, struct rb_root *root,
		      void (*augment_rotate)(struct rb_node *old, struct rb_node *new));

static inline void rb_insert_augmented(struct rb_node *node, struct rb_root *root,
				       const struct rb_augment_callbacks *augment)
{
	__rb_insert_augmented(node, root, augment->rotate);
}

/* --- colour and parent helpers ------------------------------------------------ */

#define __rb_color(pc)		((pc) & 1)
#define __rb_is_black(pc)	__rb_color(pc)
#define rb_color(rb)		__rb_color((rb)->__rb_parent_color)
#define rb_is_red(rb)		(!rb_color(rb))
#define rb_is_black(rb)		rb_color(rb)

static inline void rb_set_parent(struct rb_node *rb, struct rb_node *p)
{
	rb->__rb_parent_color = rb_color(rb) | (unsigned long)p;
}

static inline void rb_set_parent_color(struct rb_node *rb, struct rb_node *p, int color)
{
	rb->__rb_parent_color = (unsigned long)p | (unsigned long)color;
}

/* Make @parent (or the root, if none) point to @new where it pointed to @old. */
static inline void __rb_change_child(struct rb_node *old, struct rb_node *new,
				     struct rb_node *parent, struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
}

/*
 * Unlink @node, keeping the augmented values right; returns the node
 * below which a black node went missing (the colour fix-up starts there),
 * or NULL if the colours are still balanced.
 *
 * A node with at most one child is replaced by that child (which, by the
 * red-black rules, is a red leaf, and takes over @node's black).  A node
 * with two children is replaced by its in-order successor, the leftmost
 * node of its right subtree, whose own right child (if any) takes the
 * successor's old place.
 */
static __always_inline struct rb_node *
__rb_erase_augmented(struct rb_node *node, struct rb_root *root,
		     const struct rb_augment_callbacks *augment)
{
	struct rb_node *left = node->rb_left, *right = node->rb_right;
	struct rb_node *parent = rb_parent(node), *rebalance = NULL, *fix_from;
	unsigned long pc = node->__rb_parent_color;

	if (!left || !right) {
		struct rb_node *child = left ? left : right;

		__rb_change_child(node, child, parent, root);
		if (child)
			child->__rb_parent_color = pc;
		else if (__rb_is_black(pc))
			rebalance = parent;
		fix_from = parent;
	} else {
		struct rb_node *succ = right, *succ_parent, *succ_child;

		if (!succ->rb_left) {
			/* The successor is @node's right child and keeps its right subtree. */
			succ_parent = succ;
		} else {
			while (succ->rb_left)
				succ = succ->rb_left;
			succ_parent = rb_parent(succ);
			succ_parent->rb_left = succ->rb_right;
			succ->rb_right = right;
			rb_set_parent(right, succ);
		}
		succ_child = succ_parent == succ ? succ->rb_right : succ_parent->rb_left;
		augment->copy(node, succ);
		if (succ_parent != succ)
			augment->propagate(succ_parent, succ);
		succ->rb_left = left;
		rb_set_parent(left, succ);
		__rb_change_child(node, succ, parent, root);
		if (succ_child)
			rb_set_parent_color(succ_child, succ_parent, RB_BLACK);
		else if (rb_is_black(succ))
			rebalance = succ_parent;
		succ->__rb_parent_color = pc;
		fix_from = succ;
	}
	augment->propagate(fix_from, NULL);
	return rebalance;
}

static __always_inline void rb_erase_augmented(struct rb_node *node, struct rb_root *root,
					       const struct rb_augment_callbacks *augment)
{
	struct rb_node *rebalance = __rb_erase_augmented(node, root, augment);

	if (rebalance)
		__rb_erase_color(rebalance, root, augment->rotate);
}

/*
 * RB_DECLARE_CALLBACKS_MAX(static, name, struct T, field, type, augmented,
 * compute): callbacks @name for a tree of T linked by @field whose
 * T.augmented is the maximum of compute(node) over the subtree.
 */
#define RB_DECLARE_CALLBACKS_MAX(RBSTATIC, RBNAME, RBSTRUCT, RBFIELD, RBTYPE,	\
				 RBAUGMENTED, RBCOMPUTE)			\
static inline bool RBNAME ## _compute_max(RBSTRUCT *node, bool exit)		\
{										\
	RBTYPE max = RBCOMPUTE(node);						\
	struct rb_node *c;							\
										\
	c = node->RBFIELD.rb_left;						\
	if (c && rb_entry(c, RBSTRUCT, RBFIELD)->RBAUGMENTED > max)		\
		max = rb_entry(c, RBSTRUCT, RBFIELD)->RBAUGMENTED;		\
	c = node->RBFIELD.rb_right;						\
	if (c && rb_entry(c, RBSTRUCT, RBFIELD)->RBAUGMENTED > max)		\
		max = rb_entry(c, RBSTRUCT, RBFIELD)->RBAUGMENTED;		\
	if (exit && node->RBAUGMENTED == max)					\
		return true;							\
	node->RBAUGMENTED = max;						\
	return false;								\
}										\
static inline void RBNAME ## _propagate(struct rb_node *rb, struct rb_node *stop) \
{										\
	while (rb != stop) {							\
		RBSTRUCT *node = rb_entry(rb, RBSTRUCT, RBFIELD);		\
										\
		if (RBNAME ## _compute_max(node, true))				\
			break;							\
		rb = rb_parent(&node->RBFIELD);					\
	}									\
}										\
static inline void RBNAME ## _copy(struct rb_node *rb_old, struct rb_node *rb_new) \
{										\
	rb_entry(rb_new, RBSTRUCT, RBFIELD)->RBAUGMENTED =			\
		rb_entry(rb_old, RBSTRUCT, RBFIELD)->RBAUGMENTED;		\
}										\
static void RBNAME ## _rotate(struct rb_node *rb_old, struct rb_node *rb_new)	\
{										\
	RBNAME ## _copy(rb_old, rb_new);					\
	RBNAME ## _compute_max(rb_entry(rb_old, RBSTRUCT, RBFIELD), false);	\
}										\
RBSTATIC const struct rb_augment_callbacks RBNAME = {				\
	.propagate = RBNAME ## _propagate,					\
	.copy = RBNAME ## _copy,						\
	.rotate = RBNAME ## _rotate,						\
}

#endif
