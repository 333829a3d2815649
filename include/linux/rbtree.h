/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Red-black trees with the kernel's interface (include/linux/rbtree.h):
 * intrusive nodes, the parent pointer and the colour packed in one word,
 * and the caller doing the search and linking a new node itself:
 *
 *	struct rb_node **link = &root->rb_node, *parent = NULL;
 *
 *	while (*link) {
 *		parent = *link;
 *		link = key < rb_entry(parent, T, rb)->key ?
 *			&parent->rb_left : &parent->rb_right;
 *	}
 *	rb_link_node(&new->rb, parent, link);
 *	rb_insert_color(&new->rb, root);
 *
 * The model's own implementation (src/lib/rbtree.c); augmented trees are in
 * linux/rbtree_augmented.h.  rb_tree_check() is the model's checker of the
 * red-black invariants, used by tests and by subsystem checkers.
 */
#ifndef _LINUX_RBTREE_H
#define _LINUX_RBTREE_H

#include <linux/compiler.h>

struct rb_node {
	unsigned long __rb_parent_color;	/* parent pointer | colour (bit 0) */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __aligned(sizeof(long));

struct rb_root {
	struct rb_node *rb_node;
};

/* A tree that also remembers its leftmost node. */
struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

#define RB_RED		0
#define RB_BLACK	1

#define RB_ROOT		((struct rb_root) { NULL })
#define RB_ROOT_CACHED	((struct rb_root_cached) { { NULL }, NULL })

#define rb_parent(r)	((struct rb_node *)((r)->__rb_parent_color & ~3UL))
#define rb_entry(ptr, type, member)	container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member) \
	({ __typeof__(ptr) ____p = (ptr); ____p ? rb_entry(____p, type, member) : NULL; })

#define RB_EMPTY_ROOT(root)	(READ_ONCE((root)->rb_node) == NULL)
/* A node that is in no tree points to itself. */
#define RB_EMPTY_NODE(node)	((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node)	((node)->__rb_parent_color = (unsigned long)(node))

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);

/* In-order iteration. */
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);

/* Put @new where @victim is, without rebalancing: same key required. */
void rb_replace_node(struct rb_node *victim, struct rb_node *new, struct rb_root *root);

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **rb_link)
{
	node->__rb_parent_color = (unsigned long)parent;	/* red */
	node->rb_left = node->rb_right = NULL;
	*rb_link = node;
}

/* --- the generic helpers of newer kernels (rb_add, rb_find) --------------- */

static inline void rb_add(struct rb_node *node, struct rb_root *tree,
			  bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = less(node, parent) ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(node, parent, link);
	rb_insert_color(node, tree);
}

static inline struct rb_node *rb_find(const void *key, const struct rb_root *tree,
				      int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *node = tree->rb_node;

	while (node) {
		int c = cmp(key, node);

		if (c < 0)
			node = node->rb_left;
		else if (c > 0)
			node = node->rb_right;
		else
			return node;
	}
	return NULL;
}

/* --- cached trees ------------------------------------------------------------ */

#define rb_first_cached(root)	((root)->rb_leftmost)

static inline void rb_insert_color_cached(struct rb_node *node, struct rb_root_cached *root,
					  bool leftmost)
{
	if (leftmost)
		root->rb_leftmost = node;
	rb_insert_color(node, &root->rb_root);
}

static inline void rb_erase_cached(struct rb_node *node, struct rb_root_cached *root)
{
	if (root->rb_leftmost == node)
		root->rb_leftmost = rb_next(node);
	rb_erase(node, &root->rb_root);
}

/* --- the model's checker ----------------------------------------------------- */

/*
 * Check every red-black invariant of @root: the root is black, no red node
 * has a red child, every path from a node down to a leaf crosses the same
 * number of black nodes, each child's parent pointer names its parent, and
 * (if @less is given) the in-order sequence is sorted: !less(next, prev).
 * Returns the number of nodes, or -1 with the first violation in @msg.
 */
long rb_tree_check(const struct rb_root *root,
		   bool (*less)(const struct rb_node *a, const struct rb_node *b),
		   char *msg, size_t len);

#endif
