/*
 * Red-black trees (src/lib/rbtree.c): random insertions and erasures
 * against a reference set, with every red-black invariant checked by
 * rb_tree_check(); augmented trees keep their subtree maximum through
 * rotations and erasures; and the checker catches deliberately corrupted
 * trees (mutants of the tree's state).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/rbtree_augmented.h>

#include "tap.h"

#define NR_KEYS	4096

struct item {
	struct rb_node rb;
	unsigned long key;
	unsigned long val;		/* augmented trees: the node's own value */
	unsigned long subtree_max;	/* max of val over the subtree */
	bool in_tree;
};

static struct item items[NR_KEYS];
static char msg[256];

static uint64_t rnd_state = 0x2545f4914f6cdd1dULL;

static unsigned long rnd(unsigned long n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned long)(rnd_state % n);
}

static bool item_less(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct item, rb)->key < rb_entry(b, struct item, rb)->key;
}

static bool item_less_add(struct rb_node *a, const struct rb_node *b)
{
	return item_less(a, b);
}

static int item_cmp(const void *key, const struct rb_node *n)
{
	unsigned long k = *(const unsigned long *)key, nk = rb_entry(n, struct item, rb)->key;

	return k < nk ? -1 : k > nk;
}

/* --- plain trees ---------------------------------------------------------------- */

/* The tree holds exactly the items marked in_tree, in key order. */
static bool matches_reference(struct rb_root *root)
{
	struct rb_node *n = rb_first(root);

	for (int i = 0; i < NR_KEYS; i++) {
		if (!items[i].in_tree)
			continue;
		if (n != &items[i].rb)
			return false;
		n = rb_next(n);
	}
	return n == NULL;
}

static void reset_items(void)
{
	memset(items, 0, sizeof(items));
	for (int i = 0; i < NR_KEYS; i++) {
		items[i].key = (unsigned long)i * 3;	/* sorted by index */
		RB_CLEAR_NODE(&items[i].rb);
	}
}

static void test_random_plain(void)
{
	struct rb_root root = RB_ROOT;
	long nr = 0, checked_bad = 0, mismatches = 0;

	reset_items();
	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) == 0, "empty tree passes the checker");
	ok(rb_first(&root) == NULL && rb_last(&root) == NULL, "empty tree: no first, no last");
	for (int round = 0; round < 40; round++) {
		for (int op = 0; op < 500; op++) {
			struct item *it = &items[rnd(NR_KEYS)];

			if (it->in_tree) {
				rb_erase(&it->rb, &root);
				RB_CLEAR_NODE(&it->rb);
				it->in_tree = false;
				nr--;
			} else {
				rb_add(&it->rb, &root, item_less_add);
				it->in_tree = true;
				nr++;
			}
		}
		if (rb_tree_check(&root, item_less, msg, sizeof(msg)) != nr) {
			diag("round %d: %s", round, msg);
			checked_bad++;
		}
		if (!matches_reference(&root))
			mismatches++;
	}
	is_int(checked_bad, 0, "40 rounds of 500 random inserts/erases: invariants hold, node count right");
	is_int(mismatches, 0, "in-order walk equals the reference set after every round");

	/* rb_prev walks backwards over the same sequence. */
	{
		struct rb_node *n = rb_last(&root);
		int i = NR_KEYS - 1, bad = 0;

		for (; i >= 0; i--) {
			if (!items[i].in_tree)
				continue;
			if (n != &items[i].rb)
				bad++;
			n = n ? rb_prev(n) : NULL;
		}
		ok(!bad && n == NULL, "rb_last/rb_prev walk the set backwards");
	}
	{
		unsigned long k = 0, missing = 3 * NR_KEYS + 1;
		int found = 0, expect = 0;

		for (int i = 0; i < NR_KEYS; i++) {
			k = items[i].key;
			if (rb_find(&k, &root, item_cmp) == (items[i].in_tree ? &items[i].rb : NULL))
				found++;
			expect++;
		}
		is_int(found, expect, "rb_find finds every member and no non-member");
		ok(rb_find(&missing, &root, item_cmp) == NULL, "rb_find of an absent key is NULL");
	}

	/* Drain in a random order. */
	while (nr) {
		struct item *it = &items[rnd(NR_KEYS)];

		if (!it->in_tree)
			continue;
		rb_erase(&it->rb, &root);
		it->in_tree = false;
		nr--;
		if (nr % 97 == 0 && rb_tree_check(&root, item_less, msg, sizeof(msg)) != nr)
			checked_bad++;
	}
	is_int(checked_bad, 0, "draining in random order keeps the invariants");
	ok(RB_EMPTY_ROOT(&root), "drained tree is empty");
}

static void test_sequential(void)
{
	struct rb_root root = RB_ROOT;
	long height_ok;

	reset_items();
	/* Ascending insertion is the worst case for an unbalanced tree. */
	for (int i = 0; i < NR_KEYS; i++) {
		rb_add(&items[i].rb, &root, item_less_add);
		items[i].in_tree = true;
	}
	height_ok = rb_tree_check(&root, item_less, msg, sizeof(msg));
	is_int(height_ok, NR_KEYS, "ascending insertion of %d keys: balanced and sorted", NR_KEYS);
	{
		int depth = 0;

		for (struct rb_node *n = &items[0].rb; n; n = rb_parent(n))
			depth++;
		ok(depth <= 2 * 13, "depth of the smallest key %d <= 2 log2(n)", depth);
	}
	/* Replace a node in place with a copy of the same key. */
	{
		static struct item copy;

		copy = items[100];
		rb_replace_node(&items[100].rb, &copy.rb, &root);
		ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) == NR_KEYS &&
		   rb_next(&items[99].rb) == &copy.rb && rb_next(&copy.rb) == &items[101].rb,
		   "rb_replace_node puts the copy in the victim's place");
		rb_replace_node(&copy.rb, &items[100].rb, &root);
	}
	/* Descending erasure. */
	for (int i = NR_KEYS - 1; i >= 0; i--)
		rb_erase(&items[i].rb, &root);
	ok(RB_EMPTY_ROOT(&root), "descending erasure empties the tree");
}

/* --- augmented trees ------------------------------------------------------------ */

static unsigned long item_val(struct item *it)
{
	return it->val;
}

RB_DECLARE_CALLBACKS_MAX(static, item_augment_cb, struct item, rb, unsigned long,
			 subtree_max, item_val);

/* Recompute every subtree maximum; -1 and @msg at the first stale one. */
static long check_augmented(struct rb_node *n, long *bad)
{
	struct item *it;
	long l, r, m;

	if (!n)
		return 0;
	it = rb_entry(n, struct item, rb);
	l = check_augmented(n->rb_left, bad);
	r = check_augmented(n->rb_right, bad);
	m = (long)it->val;
	if (l > m)
		m = l;
	if (r > m)
		m = r;
	if ((long)it->subtree_max != m && !*bad) {
		snprintf(msg, sizeof(msg), "key %lu: subtree_max %lu, the subtree's maximum is %ld",
			 it->key, it->subtree_max, m);
		*bad = 1;
	}
	return m;
}

static bool augmented_ok(struct rb_root *root)
{
	long bad = 0;

	check_augmented(root->rb_node, &bad);
	return !bad;
}

static void aug_insert(struct rb_root *root, struct item *it)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		link = it->key < rb_entry(parent, struct item, rb)->key ?
			&parent->rb_left : &parent->rb_right;
	}
	rb_link_node(&it->rb, parent, link);
	it->subtree_max = it->val;
	item_augment_cb.propagate(parent, NULL);
	rb_insert_augmented(&it->rb, root, &item_augment_cb);
}

static void test_random_augmented(void)
{
	struct rb_root root = RB_ROOT;
	long nr = 0, bad_rb = 0, bad_aug = 0;

	reset_items();
	for (int round = 0; round < 40; round++) {
		for (int op = 0; op < 500; op++) {
			struct item *it = &items[rnd(NR_KEYS)];

			if (it->in_tree && rnd(4) == 0) {
				/* Change a member's value in place, then propagate. */
				it->val = rnd(1000000);
				item_augment_cb.propagate(&it->rb, NULL);
			} else if (it->in_tree) {
				rb_erase_augmented(&it->rb, &root, &item_augment_cb);
				it->in_tree = false;
				nr--;
			} else {
				it->val = rnd(1000000);
				aug_insert(&root, it);
				it->in_tree = true;
				nr++;
			}
		}
		if (rb_tree_check(&root, item_less, msg, sizeof(msg)) != nr) {
			diag("round %d: %s", round, msg);
			bad_rb++;
		}
		if (!augmented_ok(&root)) {
			diag("round %d: %s", round, msg);
			bad_aug++;
		}
	}
	is_int(bad_rb, 0, "augmented tree: red-black invariants hold over 40 rounds");
	is_int(bad_aug, 0, "augmented tree: every subtree_max is the maximum of its subtree");

	/* The root's maximum is the maximum over the members. */
	{
		unsigned long max = 0;

		for (int i = 0; i < NR_KEYS; i++)
			if (items[i].in_tree && items[i].val > max)
				max = items[i].val;
		ok(root.rb_node && rb_entry(root.rb_node, struct item, rb)->subtree_max == max,
		   "the root holds the maximum of all %ld members", nr);
	}
	while (root.rb_node)
		rb_erase_augmented(root.rb_node, &root, &item_augment_cb);
	ok(RB_EMPTY_ROOT(&root), "erasing the root repeatedly empties the augmented tree");
}

/* --- mutants: the checker must catch corrupted trees ------------------------------ */

static void build_tree(struct rb_root *root, int n)
{
	reset_items();
	*root = RB_ROOT;
	for (int i = 0; i < n; i++) {
		items[i].val = (unsigned long)i;
		aug_insert(root, &items[i]);
		items[i].in_tree = true;
	}
}

/* Some black node with a black parent, or NULL. */
static struct rb_node *find_black_below_black(struct rb_root *root)
{
	for (struct rb_node *n = rb_first(root); n; n = rb_next(n))
		if (rb_parent(n) && rb_is_black(n) && rb_is_black(rb_parent(n)))
			return n;
	return NULL;
}

static void test_mutants(void)
{
	struct rb_root root;
	struct rb_node *n;
	unsigned long saved;

	build_tree(&root, 1000);
	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) == 1000 && augmented_ok(&root),
	   "the unmutated tree passes");

	/* 1. A red root. */
	root.rb_node->__rb_parent_color &= ~1UL;
	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) < 0 && strstr(msg, "root"),
	   "mutant: red root is caught (%s)", msg);
	root.rb_node->__rb_parent_color |= 1UL;

	/* 2. A black node turned red: a red-red pair or a black-height mismatch. */
	n = find_black_below_black(&root);
	ok(n != NULL, "found a black node under a black parent to mutate");
	if (n) {
		saved = n->__rb_parent_color;
		n->__rb_parent_color &= ~1UL;
		ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) < 0,
		   "mutant: black node painted red is caught (%s)", msg);
		n->__rb_parent_color = saved;
	}

	/* 3. A red node turned black: black heights differ. */
	for (n = rb_first(&root); n && !rb_is_red(n); n = rb_next(n))
		;
	ok(n != NULL, "found a red node to mutate");
	if (n) {
		n->__rb_parent_color |= 1UL;
		ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) < 0 && strstr(msg, "black height"),
		   "mutant: red node painted black is caught (%s)", msg);
		n->__rb_parent_color &= ~1UL;
	}

	/* 4. A wrong parent pointer. */
	n = rb_first(&root);
	saved = n->__rb_parent_color;
	rb_set_parent(n, root.rb_node);
	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) < 0 && strstr(msg, "parent"),
	   "mutant: wrong parent pointer is caught (%s)", msg);
	n->__rb_parent_color = saved;

	/* 5. Keys out of order. */
	items[500].key = 1;
	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) < 0 && strstr(msg, "sorts before"),
	   "mutant: key out of order is caught (%s)", msg);
	ok(rb_tree_check(&root, NULL, msg, sizeof(msg)) == 1000,
	   "without a comparator the order is not checked");
	items[500].key = 500 * 3;

	/* 6. A stale augmented value. */
	rb_entry(root.rb_node, struct item, rb)->subtree_max++;
	ok(!augmented_ok(&root), "mutant: stale subtree_max is caught (%s)", msg);
	rb_entry(root.rb_node, struct item, rb)->subtree_max--;

	ok(rb_tree_check(&root, item_less, msg, sizeof(msg)) == 1000 && augmented_ok(&root),
	   "every mutation undone: the tree passes again");
}

int main(void)
{
	plan_no_plan();
	test_random_plain();
	test_sequential();
	test_random_augmented();
	test_mutants();
	return done_testing();
}
