// SPDX-License-Identifier: GPL-2.0
/*
 * Red-black trees (lib/rbtree.c): the model's own implementation of the
 * kernel's interface.  The rules kept are the textbook ones: the root is
 * black, a red node has no red child, and every path from a node to a
 * leaf crosses the same number of black nodes, so the tree's height is
 * at most twice log2 of its size.
 *
 * Insertion colours the new leaf red and repairs a red-red pair by
 * recolouring (red uncle) or by one or two rotations (black uncle).
 * Erasure (rbtree_augmented.h) unlinks the node and, when a black node
 * went missing, __rb_erase_color() pushes the deficit up or absorbs it
 * with rotations at the sibling.  Every rotation tells the augmented
 * callbacks which node took which place.
 */
#include <stdio.h>
#include <stdarg.h>

#include <linux/rbtree_augmented.h>

static inline void rb_set_black(struct rb_node *rb)
{
	rb->__rb_parent_color |= RB_BLACK;
}

static inline void rb_set_red(struct rb_node *rb)
{
	rb->__rb_parent_color &= ~(unsigned long)RB_BLACK;
}

static inline void rb_set_color(struct rb_node *rb, int color)
{
	rb->__rb_parent_color = (rb->__rb_parent_color & ~1UL) | (unsigned long)color;
}

static inline bool rb_node_is_red(const struct rb_node *rb)
{
	return rb && rb_is_red(rb);
}

/*
 *      x                y
 *     / \              / \
 *    a   y     =>     x   c
 *       / \          / \
 *      b   c        a   b
 */
static __always_inline void rb_rotate_left(struct rb_node *x, struct rb_root *root,
					   void (*augment_rotate)(struct rb_node *, struct rb_node *))
{
	struct rb_node *y = x->rb_right, *p = rb_parent(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		rb_set_parent(y->rb_left, x);
	y->rb_left = x;
	rb_set_parent(y, p);
	rb_set_parent(x, y);
	__rb_change_child(x, y, p, root);
	augment_rotate(x, y);
}

/* The mirror image of rb_rotate_left(). */
static __always_inline void rb_rotate_right(struct rb_node *x, struct rb_root *root,
					    void (*augment_rotate)(struct rb_node *, struct rb_node *))
{
	struct rb_node *y = x->rb_left, *p = rb_parent(x);

	x->rb_left = y->rb_right;
	if (y->rb_right)
		rb_set_parent(y->rb_right, x);
	y->rb_right = x;
	rb_set_parent(y, p);
	rb_set_parent(x, y);
	__rb_change_child(x, y, p, root);
	augment_rotate(x, y);
}

static inline void dummy_rotate(struct rb_node *old, struct rb_node *new)
{
	(void)old;
	(void)new;
}

static inline void dummy_propagate(struct rb_node *node, struct rb_node *stop)
{
	(void)node;
	(void)stop;
}

static inline void dummy_copy(struct rb_node *old, struct rb_node *new)
{
	(void)old;
	(void)new;
}

static const struct rb_augment_callbacks dummy_callbacks = {
	.propagate = dummy_propagate,
	.copy = dummy_copy,
	.rotate = dummy_rotate,
};

/* --- insertion ------------------------------------------------------------------ */

static __always_inline void
__rb_insert(struct rb_node *node, struct rb_root *root,
	    void (*augment_rotate)(struct rb_node *, struct rb_node *))
{
	for (;;) {
		struct rb_node *parent = rb_parent(node), *gparent, *uncle;

		if (!parent) {
			rb_set_black(node);	/* the root */
			return;
		}
		if (rb_is_black(parent))
			return;
		/* A red parent is never the root: the grandparent exists and is black. */
		gparent = rb_parent(parent);
		uncle = parent == gparent->rb_left ? gparent->rb_right : gparent->rb_left;
		if (rb_node_is_red(uncle)) {
			/* Push the grandparent's black down one level; continue above. */
			rb_set_black(parent);
			rb_set_black(uncle);
			rb_set_red(gparent);
			node = gparent;
			continue;
		}
		if (parent == gparent->rb_left) {
			if (node == parent->rb_right) {
				rb_rotate_left(parent, root, augment_rotate);
				parent = node;
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rb_rotate_right(gparent, root, augment_rotate);
		} else {
			if (node == parent->rb_left) {
				rb_rotate_right(parent, root, augment_rotate);
				parent = node;
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rb_rotate_left(gparent, root, augment_rotate);
		}
		return;
	}
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	__rb_insert(node, root, dummy_rotate);
}

void __rb_insert_augmented(struct rb_node *node, struct rb_root *root,
			   void (*augment_rotate)(struct rb_node *old, struct rb_node *new))
{
	__rb_insert(node, root, augment_rotate);
}

/* --- erasure ---------------------------------------------------------------------- */

/*
 * The subtree of @parent on the side of @node (NULL or black) is one black
 * short.  Cases, for @node on the left (the right is the mirror):
 *  - red sibling: rotate it up, so the sibling becomes black;
 *  - black sibling with two black children: make it red, so both sides
 *    are short, and fix the parent (absorbing there if it is red);
 *  - black sibling whose far child is black: rotate the near (red) child
 *    up, so the far child becomes red;
 *  - black sibling with a red far child: rotate the sibling up, giving it
 *    the parent's colour, and blacken the parent and the far child.
 */
static __always_inline void
____rb_erase_color(struct rb_node *parent, struct rb_root *root,
		   void (*augment_rotate)(struct rb_node *, struct rb_node *))
{
	struct rb_node *node = NULL, *sibling;

	for (;;) {
		bool left = node == parent->rb_left;

		sibling = left ? parent->rb_right : parent->rb_left;
		if (rb_is_red(sibling)) {
			rb_set_black(sibling);
			rb_set_red(parent);
			if (left)
				rb_rotate_left(parent, root, augment_rotate);
			else
				rb_rotate_right(parent, root, augment_rotate);
			sibling = left ? parent->rb_right : parent->rb_left;
		}
		if (!rb_node_is_red(sibling->rb_left) && !rb_node_is_red(sibling->rb_right)) {
			rb_set_red(sibling);
			if (rb_is_red(parent)) {
				rb_set_black(parent);
				return;
			}
			node = parent;
			parent = rb_parent(node);
			if (!parent)
				return;
			continue;
		}
		if (left) {
			if (!rb_node_is_red(sibling->rb_right)) {
				rb_set_black(sibling->rb_left);
				rb_set_red(sibling);
				rb_rotate_right(sibling, root, augment_rotate);
				sibling = parent->rb_right;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_right);
			rb_rotate_left(parent, root, augment_rotate);
		} else {
			if (!rb_node_is_red(sibling->rb_left)) {
				rb_set_black(sibling->rb_right);
				rb_set_red(sibling);
				rb_rotate_left(sibling, root, augment_rotate);
				sibling = parent->rb_left;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_left);
			rb_rotate_right(parent, root, augment_rotate);
		}
		return;
	}
}

void __rb_erase_color(struct rb_node *parent, struct rb_root *root,
		      void (*augment_rotate)(struct rb_node *old, struct rb_node *new))
{
	____rb_erase_color(parent, root, augment_rotate);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *rebalance = __rb_erase_augmented(node, root, &dummy_callbacks);

	if (rebalance)
		____rb_erase_color(rebalance, root, dummy_rotate);
}

void rb_replace_node(struct rb_node *victim, struct rb_node *new, struct rb_root *root)
{
	struct rb_node *parent = rb_parent(victim);

	*new = *victim;
	if (victim->rb_left)
		rb_set_parent(victim->rb_left, new);
	if (victim->rb_right)
		rb_set_parent(victim->rb_right, new);
	__rb_change_child(victim, new, parent, root);
}

/* --- iteration ---------------------------------------------------------------- */

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	/* Up until we come from a left child: that parent is next. */
	while ((parent = rb_parent(node)) && node == parent->rb_right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	while ((parent = rb_parent(node)) && node == parent->rb_left)
		node = parent;
	return parent;
}

/* --- the checker ---------------------------------------------------------------- */

struct rb_check_state {
	bool (*less)(const struct rb_node *a, const struct rb_node *b);
	const struct rb_node *prev;	/* in-order predecessor seen so far */
	long nodes;
	char *msg;
	size_t len;
};

static __attribute__((format(printf, 2, 3)))
int rb_check_fail(struct rb_check_state *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, s->len, fmt, ap);
	va_end(ap);
	return -1;
}

/* Black height of the subtree at @n (NULL leaves count 1), or -1. */
static int rb_check_subtree(struct rb_check_state *s, const struct rb_node *n,
			    const struct rb_node *parent, int depth)
{
	int lh, rh;

	if (!n)
		return 1;
	if (depth > 128)
		return rb_check_fail(s, "tree deeper than 128 levels (a cycle?)");
	if (rb_parent(n) != parent)
		return rb_check_fail(s, "node %p: parent pointer %p, but it hangs below %p",
				     (void *)n, (void *)rb_parent(n), (void *)parent);
	if (n->__rb_parent_color & 2)
		return rb_check_fail(s, "node %p: stray bit 1 in __rb_parent_color", (void *)n);
	if (rb_is_red(n) && (rb_node_is_red(n->rb_left) || rb_node_is_red(n->rb_right)))
		return rb_check_fail(s, "red node %p has a red child", (void *)n);
	lh = rb_check_subtree(s, n->rb_left, n, depth + 1);
	if (lh < 0)
		return -1;
	if (s->less && s->prev && s->less(n, s->prev))
		return rb_check_fail(s, "node %p sorts before its in-order predecessor %p",
				     (void *)n, (void *)s->prev);
	s->prev = n;
	s->nodes++;
	rh = rb_check_subtree(s, n->rb_right, n, depth + 1);
	if (rh < 0)
		return -1;
	if (lh != rh)
		return rb_check_fail(s, "node %p: black height %d on the left, %d on the right",
				     (void *)n, lh, rh);
	return lh + rb_is_black(n);
}

long rb_tree_check(const struct rb_root *root,
		   bool (*less)(const struct rb_node *a, const struct rb_node *b),
		   char *msg, size_t len)
{
	struct rb_check_state s = { .less = less, .msg = msg, .len = len };

	if (root->rb_node && rb_is_red(root->rb_node))
		return rb_check_fail(&s, "the root %p is red", (void *)root->rb_node);
	if (rb_check_subtree(&s, root->rb_node, NULL, 0) < 0)
		return -1;
	return s.nodes;
}
