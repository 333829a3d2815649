// SPDX-License-Identifier: GPL-2.0
/*
 * The XArray (lib/xarray.c), see include/linux/xarray.h.
 *
 * Conventions as in the kernel: @xa is the array, @xas the operation
 * state, @node the xa_node operated on, @offset a slot in it, @entry what
 * a slot holds.
 *
 * Memory ordering.  A node is fully initialised before rcu_assign_pointer()
 * publishes it (release); readers reach it through rcu_dereference()
 * (acquire).  Every other slot, mark and head update that a lockless
 * reader may observe is a single atomic store (RCU_INIT_POINTER,
 * WRITE_ONCE) made under xa_lock, so a reader sees either the old or the
 * new value.  Nodes are freed by call_rcu(): a reader inside one finishes
 * its walk on the old contents, or finds XA_RETRY_ENTRY and restarts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/minmax.h>
#include <linux/xarray.h>

BUILD_BUG_ON(XA_CHUNK_SIZE != BITS_PER_LONG);	/* one mark word per node */

/* --- marks ---------------------------------------------------------------- */

/* Written under xa_lock; read locklessly by xas_find_marked(). */
static inline unsigned long node_mark_word(const struct xa_node *node, xa_mark_t mark)
{
	return READ_ONCE(((struct xa_node *)node)->marks[mark][0]);
}

static inline bool node_get_mark(const struct xa_node *node, unsigned int offset,
				 xa_mark_t mark)
{
	return node_mark_word(node, mark) & BIT(offset);
}

/* Returns true if the bit was already set. */
static inline bool node_set_mark(struct xa_node *node, unsigned int offset, xa_mark_t mark)
{
	unsigned long word = node_mark_word(node, mark);

	if (word & BIT(offset))
		return true;
	WRITE_ONCE(node->marks[mark][0], word | BIT(offset));
	return false;
}

/* Returns true if the bit was set. */
static inline bool node_clear_mark(struct xa_node *node, unsigned int offset, xa_mark_t mark)
{
	unsigned long word = node_mark_word(node, mark);

	if (!(word & BIT(offset)))
		return false;
	WRITE_ONCE(node->marks[mark][0], word & ~BIT(offset));
	return true;
}

static inline bool node_any_mark(const struct xa_node *node, xa_mark_t mark)
{
	return node_mark_word(node, mark) != 0;
}

/* A new node of an allocating array: every slot is free. */
static inline void node_mark_all(struct xa_node *node, xa_mark_t mark)
{
	WRITE_ONCE(node->marks[mark][0], ~0UL);
}

static inline void xa_mark_set(struct xarray *xa, xa_mark_t mark)
{
	if (!xa_marked(xa, mark))
		WRITE_ONCE(xa->xa_flags, xa->xa_flags | XA_FLAGS_MARK(mark));
}

static inline void xa_mark_clear(struct xarray *xa, xa_mark_t mark)
{
	if (xa_marked(xa, mark))
		WRITE_ONCE(xa->xa_flags, xa->xa_flags & ~XA_FLAGS_MARK(mark));
}

/*
 * Before a multi-index store: a mark on any slot of the range moves to
 * the first slot, and the sibling slots carry none.
 */
static void xas_squash_marks(const struct xa_state *xas)
{
	unsigned long range;

	if (!xas->xa_sibs)
		return;
	range = GENMASK(xas->xa_offset + xas->xa_sibs, xas->xa_offset + 1);
	for (xa_mark_t mark = 0; mark <= XA_MARK_MAX; mark++) {
		unsigned long word = node_mark_word(xas->xa_node, mark);

		if (!(word & range))
			continue;
		word = (word & ~range) | BIT(xas->xa_offset);
		WRITE_ONCE(xas->xa_node->marks[mark][0], word);
	}
}

/* --- walking -------------------------------------------------------------- */

static unsigned int get_offset(unsigned long index, const struct xa_node *node)
{
	return (index >> node->shift) & XA_CHUNK_MASK;
}

static void xas_set_offset(struct xa_state *xas)
{
	xas->xa_offset = get_offset(xas->xa_index, xas->xa_node);
}

/* Move xa_index to slot @offset of the current node. */
static void xas_move_index(struct xa_state *xas, unsigned long offset)
{
	unsigned int shift = xas->xa_node->shift;

	xas->xa_index &= ~XA_CHUNK_MASK << shift;
	xas->xa_index += offset << shift;
}

static void xas_next_offset(struct xa_state *xas)
{
	xas->xa_offset++;
	xas_move_index(xas, xas->xa_offset);
}

static void *set_bounds(struct xa_state *xas)
{
	xas->xa_node = XAS_BOUNDS;
	return NULL;
}

/*
 * Does @entry, read from a slot of @node (NULL: the head), lead to a node?
 * Not in a leaf: there an entry whose low bits are 10 is a 2-byte-aligned
 * pointer, which a single slot may hold (since v5.0).
 */
static bool xa_slot_is_node(const struct xa_node *node, const void *entry)
{
	return xa_is_node(entry) && (!node || node->shift);
}

/*
 * Start a walk: from where @xas is if it is valid, nowhere if it is in an
 * error state, out of bounds if the index is beyond what the tree holds;
 * otherwise at the head (xa_node NULL), returning the head entry.
 */
static void *xas_start(struct xa_state *xas)
{
	void *entry;

	if (xas_valid(xas))
		return xas_reload(xas);
	if (xas_error(xas))
		return NULL;

	entry = xa_head(xas->xa);
	if (!xa_is_node(entry)) {
		if (xas->xa_index)
			return set_bounds(xas);
	} else if ((xas->xa_index >> xa_to_node(entry)->shift) > XA_CHUNK_MASK) {
		return set_bounds(xas);
	}
	xas->xa_node = NULL;
	return entry;
}

/*
 * Step into @node: the slot for xa_index, or the canonical slot a sibling
 * there points to.  A sibling leading to a node is a multi-index entry
 * being replaced under us: retry.
 */
static void *xas_descend(struct xa_state *xas, struct xa_node *node)
{
	unsigned int offset = get_offset(xas->xa_index, node);
	void *entry = xa_entry(xas->xa, node, offset);

	xas->xa_node = node;
	while (xa_is_sibling(entry)) {
		offset = xa_to_sibling(entry);
		entry = xa_entry(xas->xa, node, offset);
		if (node->shift && xa_is_node(entry))
			entry = XA_RETRY_ENTRY;
	}
	xas->xa_offset = offset;
	return entry;
}

/*
 * The entry at xa_index (for a multi-index @xas: the slot at its level,
 * which may be a node).  Never changes the tree.  Under RCU or xa_lock.
 */
void *xas_load(struct xa_state *xas)
{
	void *entry = xas_start(xas);

	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);

		if (xas->xa_shift > node->shift)
			break;
		entry = xas_descend(xas, node);
		if (node->shift == 0)
			break;
	}
	return entry;
}

/* --- nodes ---------------------------------------------------------------- */

#define XA_RCU_FREE	((struct xarray *)1)

#ifdef CONFIG_DEBUG_VM
long xa_fail_alloc_after = -1;
long xa_fail_alloc_nr = 1;
gfp_t xa_fail_gfp_without;
atomic_long_t xa_nodes_allocated;
atomic_long_t xa_nodes_freed;

static bool xa_should_fail_alloc(gfp_t gfp)
{
	gfp_t without = __atomic_load_n(&xa_fail_gfp_without, __ATOMIC_RELAXED);
	long after;

	if (without && !(gfp & without))
		return true;
	after = __atomic_load_n(&xa_fail_alloc_after, __ATOMIC_RELAXED);
	if (after < 0)
		return false;
	if (after > 0) {
		__atomic_store_n(&xa_fail_alloc_after, after - 1, __ATOMIC_RELAXED);
		return false;
	}
	if (__atomic_sub_fetch(&xa_fail_alloc_nr, 1, __ATOMIC_RELAXED) <= 0)
		__atomic_store_n(&xa_fail_alloc_after, -1, __ATOMIC_RELAXED);
	return true;
}
#endif

/*
 * The kernel allocates nodes from a slab cache (radix_tree_node_cachep):
 * GFP_NOWAIT under xa_lock, the caller's gfp in xas_nomem().  The model
 * uses the C heap, which never sleeps; @gfp matters to the failure hooks,
 * which can fail exactly the allocations that may not sleep.  Each node
 * starts a cache line and shares none (the slab packs them 584 bytes
 * apart, so neighbours share a line): which nodes would share one then
 * depends on what the heap held before, and in virtual time that moved
 * results with the samples run earlier.
 */
static struct xa_node *xa_node_alloc(gfp_t gfp)
{
	struct xa_node *node;

#ifdef CONFIG_DEBUG_VM
	if (xa_should_fail_alloc(gfp))
		return NULL;
#else
	(void)gfp;
#endif
	node = aligned_alloc(64, ALIGN(sizeof(*node), 64));
	if (!node)
		return NULL;
	memset(node, 0, sizeof(*node));
	INIT_LIST_HEAD(&node->private_list);
#ifdef CONFIG_DEBUG_VM
	atomic_long_inc(&xa_nodes_allocated);
#endif
	return node;
}

/*
 * The array's accounting flag joins the caller's gfp.  READ_ONCE: the
 * lock may be dropped here, while another writer changes the head marks
 * in the same word.
 */
static gfp_t xa_node_gfp(const struct xarray *xa, gfp_t gfp)
{
	if (READ_ONCE(((struct xarray *)xa)->xa_flags) & XA_FLAGS_ACCOUNT)
		gfp |= __GFP_ACCOUNT;
	return gfp;
}

static void xa_node_release(struct xa_node *node)
{
#ifdef CONFIG_DEBUG_VM
	atomic_long_inc(&xa_nodes_freed);
#endif
	free(node);
}

static void xa_node_rcu_free(struct rcu_head *head)
{
	xa_node_release(container_of(head, struct xa_node, rcu_head));
}

/* @node has left the tree; readers may still be inside it. */
static void xa_node_free(struct xa_node *node)
{
	node->array = XA_RCU_FREE;
	call_rcu(&node->rcu_head, xa_node_rcu_free);
}

/* The nodes set aside are listed through ->parent; none was published. */
void xas_destroy(struct xa_state *xas)
{
	struct xa_node *next, *node = xas->xa_alloc;

	while (node) {
		next = node->parent;
		xa_node_release(node);
		node = next;
	}
	xas->xa_alloc = NULL;
}

/* Tell the user a node changed (or is about to be freed: count 0). */
static void xas_update(struct xa_state *xas, struct xa_node *node)
{
	if (xas->xa_update)
		xas->xa_update(node);
	else
		VM_WARN_ON(!list_empty(&node->private_list));
}

/*
 * Allocate the node a store that failed with -ENOMEM needs, for its retry.
 * The nodes the failed attempt linked in stay in the tree (empty, or a
 * head level with only the old head below it), so the retry walks down
 * through them and needs one node more than they gave it: a store that
 * needs N new nodes completes in N + 1 attempts even when every allocation
 * under the lock fails.  Does not touch xa_lock: call it with the lock
 * dropped when @gfp may sleep.
 */
bool xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	if (xas->xa_node != XA_ERROR(-ENOMEM)) {
		xas_destroy(xas);
		return false;
	}
	xas->xa_alloc = xa_node_alloc(xa_node_gfp(xas->xa, gfp));
	if (!xas->xa_alloc)
		return false;
	xas->xa_node = XAS_RESTART;
	return true;
}

/*
 * xas_nomem() for the normal API, which holds xa_lock: drop it around an
 * allocation that may sleep.  Another writer may change the tree
 * meanwhile; the retry starts its walk again from the head.
 */
static bool __xas_nomem(struct xa_state *xas, gfp_t gfp)
{
	bool retry;

	if (xas->xa_node != XA_ERROR(-ENOMEM)) {
		xas_destroy(xas);
		return false;
	}
	if (!gfpflags_allow_blocking(gfp))
		return xas_nomem(xas, gfp);
	xas_unlock(xas);
	retry = xas_nomem(xas, gfp);
	xas_lock(xas);
	return retry;
}

/*
 * A node for the slot @xas is at (or for a new head): the one xas_nomem()
 * set aside, else a non-sleeping allocation; -ENOMEM in @xas if none.
 */
static struct xa_node *xas_alloc(struct xa_state *xas, unsigned int shift)
{
	struct xa_node *parent = xas->xa_node;
	struct xa_node *node = xas->xa_alloc;

	if (xas_invalid(xas))
		return NULL;
	if (node) {
		xas->xa_alloc = node->parent;
	} else {
		node = xa_node_alloc(xa_node_gfp(xas->xa, GFP_NOWAIT));
		if (!node) {
			xas_set_err(xas, -ENOMEM);
			return NULL;
		}
	}
	if (parent) {
		node->offset = xas->xa_offset;
		parent->count++;
		VM_BUG_ON(parent->count > XA_CHUNK_SIZE);
	}
	node->shift = shift;
	node->count = 0;
	node->nr_values = 0;
	RCU_INIT_POINTER(node->parent, parent);
	node->array = xas->xa;
	return node;
}

/* Indices a multi-index @xas covers. */
static unsigned long xas_size(const struct xa_state *xas)
{
	return (xas->xa_sibs + 1UL) << xas->xa_shift;
}

/*
 * The highest index the tree must reach to hold what @xas describes.  A
 * multi-index entry cannot live in the head (which is index 0 alone), so
 * one starting at 0 needs one index more.
 */
static unsigned long xas_max(const struct xa_state *xas)
{
	unsigned long max = xas->xa_index;

	if (xas->xa_shift || xas->xa_sibs) {
		unsigned long mask = xas_size(xas) - 1;

		max |= mask;
		if (mask == max)
			max++;
	}
	return max;
}

/* The highest index the tree headed by @entry holds without growing. */
static unsigned long max_index(void *entry)
{
	if (!xa_is_node(entry))
		return 0;
	return (XA_CHUNK_SIZE << xa_to_node(entry)->shift) - 1;
}

/*
 * The head node holds only slot 0: make that the head and free the node,
 * repeatedly.  A lone entry at slot 0 of a leaf becomes the head entry;
 * one in a higher node is a multi-index entry and stays.
 */
static void xas_shrink(struct xa_state *xas)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;

	for (;;) {
		void *entry;

		VM_BUG_ON(node->count > XA_CHUNK_SIZE);
		if (node->count != 1)
			break;
		entry = xa_entry_locked(xa, node, 0);
		if (!entry)
			break;
		if (!xa_is_node(entry) && node->shift)
			break;
		if (xa_is_node(entry) && !node->shift)
			break;	/* a 2-byte-aligned pointer: the head would be a node */
		if (xa_is_zero(entry) && xa_zero_busy(xa))
			entry = NULL;	/* index 0 of an ALLOC1 array is busy anyway */
		xas->xa_node = XAS_BOUNDS;

		/*
		 * The kernel may use RCU_INIT_POINTER(): the child was
		 * published long ago, and address dependencies order a
		 * reader's loads from it.  C11 (and ThreadSanitizer) order
		 * them only through a release: a reader that reaches the
		 * child through the new head must see the writes that
		 * initialised it in another thread (under xa_lock, then
		 * handed on by the lock to us).
		 */
		rcu_assign_pointer(xa->xa_head, entry);
		if (xa_track_free(xa) && !node_get_mark(node, 0, XA_FREE_MARK))
			xa_mark_clear(xa, XA_FREE_MARK);
		node->count = 0;
		node->nr_values = 0;
		/*
		 * A reader still in @node must not take its slot 0 for an
		 * index > 0.  A new head must not lead up to @node: the kernel
		 * clears its parent after xa_node_free(), safe only because a
		 * grace period cannot end under a spinlock (see
		 * xas_delete_node()).
		 */
		if (!xa_is_node(entry))
			RCU_INIT_POINTER(node->slots[0], XA_RETRY_ENTRY);
		else
			RCU_INIT_POINTER(xa_to_node(entry)->parent, NULL);
		xas_update(xas, node);
		xa_node_free(node);
		if (!xa_is_node(entry))
			break;
		node = xa_to_node(entry);
	}
}

/* Free xas->xa_node if it is empty, and its ancestors that become so. */
static void xas_delete_node(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	for (;;) {
		struct xa_node *parent;

		VM_BUG_ON(node->count > XA_CHUNK_SIZE);
		if (node->count)
			break;

		/*
		 * Unlink, then free.  The kernel calls xa_node_free() first,
		 * which is safe there because no grace period can end while
		 * the writer holds a spinlock; a model spinlock does not hold
		 * grace periods off, so a reader starting in between could
		 * still find the node after its grace period.
		 */
		parent = xa_parent_locked(xas->xa, node);
		xas->xa_node = parent;
		xas->xa_offset = node->offset;
		if (!parent) {
			RCU_INIT_POINTER(xas->xa->xa_head, NULL);
			xa_node_free(node);
			xas->xa_node = XAS_BOUNDS;
			return;
		}
		RCU_INIT_POINTER(parent->slots[xas->xa_offset], NULL);
		xa_node_free(node);
		parent->count--;
		node = parent;
		xas_update(xas, node);
	}

	if (!xa_parent_locked(xas->xa, node))
		xas_shrink(xas);
}

/*
 * @top has been unlinked: free it and every node below it.  Readers may be
 * anywhere inside, so every entry becomes a retry entry first.
 */
static void xas_free_nodes(struct xa_state *xas, struct xa_node *top)
{
	unsigned int offset = 0;
	struct xa_node *node = top;

	for (;;) {
		void *entry = xa_entry_locked(xas->xa, node, offset);

		if (node->shift && xa_is_node(entry)) {
			node = xa_to_node(entry);
			offset = 0;
			continue;
		}
		if (entry)
			RCU_INIT_POINTER(node->slots[offset], XA_RETRY_ENTRY);
		offset++;
		while (offset == XA_CHUNK_SIZE) {
			struct xa_node *parent = xa_parent_locked(xas->xa, node);

			offset = node->offset + 1;
			node->count = 0;
			node->nr_values = 0;
			xas_update(xas, node);
			xa_node_free(node);
			if (node == top)
				return;
			node = parent;
		}
	}
}

/*
 * Add nodes above the head until the tree reaches xas_max().  Returns the
 * shift of the level below which xas_create() continues (0 if the head
 * entry itself will do), or -ENOMEM.  Leaves xa_node at the new head.
 */
static int xas_expand(struct xa_state *xas, void *head)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = NULL;
	unsigned int shift = 0;
	unsigned long max = xas_max(xas);

	if (!head) {
		if (max == 0)
			return 0;
		while ((max >> shift) >= XA_CHUNK_SIZE)
			shift += XA_CHUNK_SHIFT;
		return shift + XA_CHUNK_SHIFT;
	} else if (xa_is_node(head)) {
		node = xa_to_node(head);
		shift = node->shift + XA_CHUNK_SHIFT;
	}
	xas->xa_node = NULL;

	while (max > max_index(head)) {
		node = xas_alloc(xas, shift);
		if (!node)
			return -ENOMEM;

		node->count = 1;
		if (xa_is_value(head))
			node->nr_values = 1;
		RCU_INIT_POINTER(node->slots[0], head);
		/*
		 * The head's marks become slot 0's.  In an allocating array
		 * every other slot of the new level is free, and slot 0 is as
		 * free as the old head was.
		 */
		for (xa_mark_t mark = 0; mark <= XA_MARK_MAX; mark++) {
			if (xa_track_free(xa) && mark == XA_FREE_MARK) {
				node_mark_all(node, XA_FREE_MARK);
				if (!xa_marked(xa, XA_FREE_MARK)) {
					node_clear_mark(node, 0, XA_FREE_MARK);
					xa_mark_set(xa, XA_FREE_MARK);
				}
			} else if (xa_marked(xa, mark)) {
				node_set_mark(node, 0, mark);
			}
		}

		/* Fully initialised: publish it above the old head. */
		if (xa_is_node(head)) {
			VM_WARN_ON(xa_to_node(head)->offset != 0);
			rcu_assign_pointer(xa_to_node(head)->parent, node);
		}
		head = xa_mk_node(node);
		rcu_assign_pointer(xa->xa_head, head);
		xas_update(xas, node);

		shift += XA_CHUNK_SHIFT;
	}

	xas->xa_node = node;
	return (int)shift;
}

/*
 * Make the slot for what @xas describes exist, growing and descending the
 * tree, and return what it holds (NULL if new).  Stops early at a
 * non-NULL entry above the target level: a larger entry that a store at
 * this index replaces.  On -ENOMEM returns NULL with the error in @xas.
 * Unless @allow_root, index 0 gets a slot in a node even in an empty
 * array (the kernel keeps a lone zero entry out of the head that way).
 */
static void *xas_create(struct xa_state *xas, bool allow_root)
{
	struct xarray *xa = xas->xa;
	struct xa_node *node = xas->xa_node;
	unsigned int order = xas->xa_shift;
	void **slot;
	void *entry;
	int shift;

	if (xas_top(node)) {
		entry = xa_head_locked(xa);
		xas->xa_node = NULL;
		/* Index 0 of an ALLOC1 array is never free: grow as if it held an entry. */
		if (!entry && xa_zero_busy(xa))
			entry = XA_ZERO_ENTRY;
		shift = xas_expand(xas, entry);
		if (shift < 0)
			return NULL;	/* levels added so far stay, for the retry */
		if (!shift && !allow_root)
			shift = XA_CHUNK_SHIFT;
		entry = xa_head_locked(xa);
		slot = &xa->xa_head;
	} else if (xas_error(xas)) {
		return NULL;
	} else if (node) {
		unsigned int offset = xas->xa_offset;

		shift = node->shift;
		entry = xa_entry_locked(xa, node, offset);
		slot = &node->slots[offset];
	} else {
		shift = 0;
		entry = xa_head_locked(xa);
		slot = &xa->xa_head;
	}

	while (shift > (int)order) {
		shift -= XA_CHUNK_SHIFT;
		if (!entry) {
			/* On failure the nodes above stay in the tree, for the retry. */
			node = xas_alloc(xas, (unsigned int)shift);
			if (!node)
				break;
			if (xa_track_free(xa))
				node_mark_all(node, XA_FREE_MARK);
			rcu_assign_pointer(*slot, xa_mk_node(node));
		} else if (xa_is_node(entry)) {
			node = xa_to_node(entry);
		} else {
			break;
		}
		entry = xas_descend(xas, node);
		slot = &node->slots[xas->xa_offset];
	}
	return entry;
}

/* --- storing -------------------------------------------------------------- */

static void update_node(struct xa_state *xas, struct xa_node *node, int count, int values)
{
	if (!node || (!count && !values))
		return;
	node->count += count;
	node->nr_values += values;
	VM_BUG_ON(node->count > XA_CHUNK_SIZE);
	VM_BUG_ON(node->nr_values > XA_CHUNK_SIZE);
	xas_update(xas, node);
	if (count < 0)
		xas_delete_node(xas);
}

/*
 * A store that ends at slot @max inside a larger entry it replaces leaves
 * that entry's later siblings pointing at the new entry's slot: they are
 * siblings of the new entry now.  How many there are, so that nr_values
 * stays exact (the kernel's xas_store() leaves it stale in this case).
 */
static int xas_trailing_siblings(const struct xa_node *node, unsigned int max)
{
	unsigned int offset = max + 1;

	while (offset < XA_CHUNK_SIZE && xa_is_sibling(xa_entry_locked(node->array, node, offset)))
		offset++;
	return (int)(offset - max - 1);
}

/*
 * Store @entry at what @xas describes (its canonical slot plus
 * xa_sibs sibling slots), under xa_lock.  Storing NULL erases; a store at
 * any index of a multi-index entry replaces all of it; nodes below a
 * replaced range are freed.  Returns the old entry (for a multi-index
 * @xas only the first one).  On -ENOMEM the error is in @xas and no entry
 * changed, but the nodes added on the way down stay: see xas_nomem().
 */
void *xas_store(struct xa_state *xas, void *entry)
{
	struct xa_node *node;
	void **slot = &xas->xa->xa_head;
	unsigned int offset, max;
	int count = 0;
	int values = 0;
	void *first, *next;
	bool value = xa_is_value(entry);

	if (entry)
		first = xas_create(xas, !xa_is_node(entry) && !xa_is_zero(entry));
	else
		first = xas_load(xas);

	if (xas_invalid(xas))
		return first;
	node = xas->xa_node;
	if (node && (xas->xa_shift < node->shift))
		xas->xa_sibs = 0;	/* stopped above the target: replace the larger entry */
	if ((first == entry) && !xas->xa_sibs)
		return first;

	next = first;
	offset = xas->xa_offset;
	max = xas->xa_offset + xas->xa_sibs;
	if (node) {
		slot = &node->slots[offset];
		if (xas->xa_sibs)
			xas_squash_marks(xas);
	}
	if (!entry)
		xas_init_marks(xas);

	for (;;) {
		/*
		 * The marks were cleared before the slot: a marked walk must
		 * not find a NULL entry with a mark.  rcu_assign_pointer()
		 * orders the stores before it (and the new entry's contents).
		 */
		rcu_assign_pointer(*slot, entry);
		if (xa_is_node(next) && (!node || node->shift))
			xas_free_nodes(xas, xa_to_node(next));
		if (!node)
			break;
		count += !next - !entry;
		values += !xa_is_value(first) - !value;
		if (entry) {
			if (offset == max) {
				values += xas_trailing_siblings(node, offset) *
					  ((int)value - (int)xa_is_value(first));
				break;
			}
			if (!xa_is_sibling(entry))
				entry = xa_mk_sibling(xas->xa_offset);
		} else {
			if (offset == XA_CHUNK_MASK)
				break;
		}
		next = xa_entry_locked(xas->xa, node, ++offset);
		if (!xa_is_sibling(next)) {
			if (!entry && (offset > max))
				break;
			first = next;
		}
		slot++;
	}

	update_node(xas, node, count, values);
	return first;
}

/* --- marks through a cursor ---------------------------------------------- */

bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark)
{
	if (xas_invalid(xas))
		return false;
	if (!xas->xa_node)
		return xa_marked(xas->xa, mark);
	return node_get_mark(xas->xa_node, xas->xa_offset, mark);
}

/* Mark the entry @xas is at, and every ancestor up to the head.  xa_lock. */
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;

	if (xas_invalid(xas))
		return;
	while (node) {
		if (node_set_mark(node, offset, mark))
			return;
		offset = node->offset;
		node = xa_parent_locked(xas->xa, node);
	}
	xa_mark_set(xas->xa, mark);
}

/* Unmark it, and each ancestor left with no marked slot.  xa_lock. */
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset = xas->xa_offset;

	if (xas_invalid(xas))
		return;
	while (node) {
		if (!node_clear_mark(node, offset, mark))
			return;
		if (node_any_mark(node, mark))
			return;
		offset = node->offset;
		node = xa_parent_locked(xas->xa, node);
	}
	xa_mark_clear(xas->xa, mark);
}

/* Clear every mark of the entry; in an allocating array it is free now. */
void xas_init_marks(const struct xa_state *xas)
{
	for (xa_mark_t mark = 0; mark <= XA_MARK_MAX; mark++) {
		if (xa_track_free(xas->xa) && mark == XA_FREE_MARK)
			xas_set_mark(xas, mark);
		else
			xas_clear_mark(xas, mark);
	}
}

/* --- moving and finding ----------------------------------------------------- */

/* Before dropping the lock in a walk: resume after the current entry. */
void xas_pause(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	if (xas_invalid(xas))
		return;
	if (node) {
		unsigned int offset = xas->xa_offset;

		while (++offset < XA_CHUNK_SIZE)
			if (!xa_is_sibling(xa_entry(xas->xa, node, offset)))
				break;
		xas->xa_index &= ~0UL << node->shift;
		xas->xa_index += (unsigned long)(offset - xas->xa_offset) << node->shift;
		if (xas->xa_index == 0)
			xas->xa_node = XAS_BOUNDS;	/* wrapped past ULONG_MAX */
		else
			xas->xa_node = XAS_RESTART;
	} else {
		xas->xa_index++;
		xas->xa_node = XAS_RESTART;
	}
}

void *__xas_prev(struct xa_state *xas)
{
	void *entry;

	if (!xas_frozen(xas->xa_node))
		xas->xa_index--;
	if (!xas->xa_node)
		return set_bounds(xas);
	if (xas_not_node(xas->xa_node))
		return xas_load(xas);

	if (xas->xa_offset != get_offset(xas->xa_index, xas->xa_node))
		xas->xa_offset--;

	while (xas->xa_offset == 255) {
		xas->xa_offset = xas->xa_node->offset - 1;
		xas->xa_node = xa_parent(xas->xa, xas->xa_node);
		if (!xas->xa_node)
			return set_bounds(xas);
	}

	for (;;) {
		entry = xa_entry(xas->xa, xas->xa_node, xas->xa_offset);
		if (!xa_slot_is_node(xas->xa_node, entry))
			return entry;
		xas->xa_node = xa_to_node(entry);
		xas_set_offset(xas);
	}
}

void *__xas_next(struct xa_state *xas)
{
	void *entry;

	if (!xas_frozen(xas->xa_node))
		xas->xa_index++;
	if (!xas->xa_node)
		return set_bounds(xas);
	if (xas_not_node(xas->xa_node))
		return xas_load(xas);

	if (xas->xa_offset != get_offset(xas->xa_index, xas->xa_node))
		xas->xa_offset++;

	while (xas->xa_offset == XA_CHUNK_SIZE) {
		xas->xa_offset = xas->xa_node->offset + 1;
		xas->xa_node = xa_parent(xas->xa, xas->xa_node);
		if (!xas->xa_node)
			return set_bounds(xas);
	}

	for (;;) {
		entry = xa_entry(xas->xa, xas->xa_node, xas->xa_offset);
		if (!xa_slot_is_node(xas->xa_node, entry))
			return entry;
		xas->xa_node = xa_to_node(entry);
		xas_set_offset(xas);
	}
}

/*
 * The first present entry at or after xa_index if @xas has not been walked
 * yet, else after the entry it is at; NULL past @max.  Retry entries are
 * returned (xas_retry()).  Under RCU or xa_lock.
 */
void *xas_find(struct xa_state *xas, unsigned long max)
{
	void *entry;

	if (xas_error(xas) || xas->xa_node == XAS_BOUNDS)
		return NULL;
	if (xas->xa_index > max)
		return set_bounds(xas);

	if (!xas->xa_node) {
		xas->xa_index = 1;
		return set_bounds(xas);
	} else if (xas->xa_node == XAS_RESTART) {
		entry = xas_load(xas);
		if (entry || xas_not_node(xas->xa_node))
			return entry;
	} else if (!xas->xa_node->shift &&
		   xas->xa_offset != (xas->xa_index & XA_CHUNK_MASK)) {
		/* At a multi-index entry in a leaf: skip to past xa_index. */
		xas->xa_offset = ((xas->xa_index - 1) & XA_CHUNK_MASK) + 1;
	}

	xas_next_offset(xas);

	while (xas->xa_node && (xas->xa_index <= max)) {
		if (unlikely(xas->xa_offset == XA_CHUNK_SIZE)) {
			xas->xa_offset = xas->xa_node->offset + 1;
			xas->xa_node = xa_parent(xas->xa, xas->xa_node);
			continue;
		}

		entry = xa_entry(xas->xa, xas->xa_node, xas->xa_offset);
		if (xa_slot_is_node(xas->xa_node, entry)) {
			xas->xa_node = xa_to_node(entry);
			xas->xa_offset = 0;
			continue;
		}
		if (entry && !xa_is_sibling(entry))
			return entry;

		xas_next_offset(xas);
	}

	if (!xas->xa_node)
		xas->xa_node = XAS_BOUNDS;
	return NULL;
}

/* The first slot at or after xa_offset (+1 if @advance) with @mark. */
static unsigned int xas_find_chunk(struct xa_state *xas, bool advance, xa_mark_t mark)
{
	unsigned int offset = xas->xa_offset + (advance ? 1 : 0);
	unsigned long word;

	if (offset >= XA_CHUNK_SIZE)
		return XA_CHUNK_SIZE;
	word = node_mark_word(xas->xa_node, mark) & (~0UL << offset);
	return word ? (unsigned int)__builtin_ctzl(word) : XA_CHUNK_SIZE;
}

/*
 * xas_find() for entries with @mark, skipping every subtree whose slot
 * in its parent is unmarked.
 */
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark)
{
	bool advance = true;
	unsigned int offset;
	void *entry;

	if (xas_error(xas))
		return NULL;
	if (xas->xa_index > max)
		goto max;

	if (!xas->xa_node) {
		xas->xa_index = 1;
		goto out;
	} else if (xas_top(xas->xa_node)) {
		advance = false;
		entry = xa_head(xas->xa);
		xas->xa_node = NULL;
		if (xas->xa_index > max_index(entry))
			goto out;
		if (!xa_is_node(entry)) {
			if (xa_marked(xas->xa, mark))
				return entry;
			xas->xa_index = 1;
			goto out;
		}
		xas->xa_node = xa_to_node(entry);
		xas->xa_offset = xas->xa_index >> xas->xa_node->shift;
	}

	while (xas->xa_index <= max) {
		if (unlikely(xas->xa_offset == XA_CHUNK_SIZE)) {
			xas->xa_offset = xas->xa_node->offset + 1;
			xas->xa_node = xa_parent(xas->xa, xas->xa_node);
			if (!xas->xa_node)
				break;
			advance = false;
			continue;
		}

		if (!advance) {
			entry = xa_entry(xas->xa, xas->xa_node, xas->xa_offset);
			if (xa_is_sibling(entry)) {
				xas->xa_offset = xa_to_sibling(entry);
				xas_move_index(xas, xas->xa_offset);
			}
		}

		offset = xas_find_chunk(xas, advance, mark);
		if (offset > xas->xa_offset) {
			advance = false;
			xas_move_index(xas, offset);
			if ((xas->xa_index - 1) >= max)	/* mind the wrap */
				goto max;
			xas->xa_offset = offset;
			if (offset == XA_CHUNK_SIZE)
				continue;
		}

		entry = xa_entry(xas->xa, xas->xa_node, xas->xa_offset);
		/*
		 * Erased or merged into a multi-index entry under us: look on.
		 * In an allocating array a free slot is NULL by definition.
		 */
		if ((!entry && !(xa_track_free(xas->xa) && mark == XA_FREE_MARK)) ||
		    xa_is_sibling(entry)) {
			advance = true;
			continue;
		}
		if (!xa_slot_is_node(xas->xa_node, entry))
			return entry;
		xas->xa_node = xa_to_node(entry);
		xas_set_offset(xas);
	}

out:
	if (xas->xa_index > max)
		goto max;
	return set_bounds(xas);
max:
	xas->xa_node = XAS_RESTART;
	return NULL;
}

/*
 * The next entry in the range a (multi-index) @xas covers, under
 * xa_lock; NULL when there is none left, with @xas at the start of the
 * range, ready for xas_store().
 */
void *xas_find_conflict(struct xa_state *xas)
{
	void *curr;

	if (xas_error(xas))
		return NULL;
	if (!xas->xa_node)
		return NULL;

	if (xas_top(xas->xa_node)) {
		curr = xas_start(xas);
		if (!curr)
			return NULL;
		while (xa_slot_is_node(xas->xa_node, curr))
			curr = xas_descend(xas, xa_to_node(curr));
		if (curr)
			return curr;
	}

	if (xas->xa_node->shift > xas->xa_shift)
		return NULL;	/* an empty slot above the range's level */

	for (;;) {
		if (xas->xa_node->shift == xas->xa_shift) {
			if ((xas->xa_offset & xas->xa_sibs) == xas->xa_sibs)
				break;
		} else if (xas->xa_offset == XA_CHUNK_MASK) {
			xas->xa_offset = xas->xa_node->offset;
			xas->xa_node = xa_parent_locked(xas->xa, xas->xa_node);
			if (!xas->xa_node)
				break;
			continue;
		}
		curr = xa_entry_locked(xas->xa, xas->xa_node, ++xas->xa_offset);
		if (xa_is_sibling(curr))
			continue;
		while (xa_slot_is_node(xas->xa_node, curr)) {
			xas->xa_node = xa_to_node(curr);
			xas->xa_offset = 0;
			curr = xa_entry_locked(xas->xa, xas->xa_node, 0);
		}
		if (curr)
			return curr;
	}
	xas->xa_offset -= xas->xa_sibs;
	return NULL;
}

int xas_get_order(struct xa_state *xas)
{
	int order = 0;

	VM_BUG_ON(xas_invalid(xas));
	if (!xas->xa_node)
		return 0;
	for (;;) {
		unsigned int slot = xas->xa_offset + (1U << order);

		if (slot >= XA_CHUNK_SIZE)
			break;
		if (!xa_is_sibling(xa_entry(xas->xa, xas->xa_node, slot)))
			break;
		order++;
	}
	return order + xas->xa_node->shift;
}

/* --- the normal API ---------------------------------------------------------- */

void xa_init_flags(struct xarray *xa, gfp_t flags)
{
	spin_lock_init(&xa->xa_lock);
	xa->xa_flags = flags;
	xa->xa_head = NULL;
}

void *xa_load(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	void *entry;

	rcu_read_lock();
	do {
		entry = xas_load(&xas);
		if (xa_is_zero(entry))
			entry = NULL;
	} while (xas_retry(&xas, entry));
	rcu_read_unlock();
	return entry;
}

/* The old entry as the normal API returns it: the error if there was one. */
static void *xas_result(struct xa_state *xas, void *curr)
{
	if (xa_is_zero(curr))
		return NULL;
	if (xas_error(xas))
		curr = xas->xa_node;
	return curr;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);

	return xas_result(&xas, xas_store(&xas, NULL));
}

void *xa_erase(struct xarray *xa, unsigned long index)
{
	void *entry;

	xa_lock(xa);
	entry = __xa_erase(xa, index);
	xa_unlock(xa);
	return entry;
}

void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;

	if (VM_WARN_ON_ONCE(xa_is_advanced(entry)))
		return XA_ERROR(-EINVAL);
	if (xa_track_free(xa) && !entry)
		entry = XA_ZERO_ENTRY;	/* an allocated index stays allocated */
	do {
		curr = xas_store(&xas, entry);
		if (xa_track_free(xa))
			xas_clear_mark(&xas, XA_FREE_MARK);
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, curr);
}

void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_store(xa, index, entry, gfp);
	xa_unlock(xa);
	return curr;
}

static void *__xa_cmpxchg_raw(struct xarray *xa, unsigned long index, void *old,
			      void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;

	if (VM_WARN_ON_ONCE(xa_is_advanced(entry)))
		return XA_ERROR(-EINVAL);
	do {
		curr = xas_load(&xas);
		if (curr == old) {
			xas_store(&xas, entry);
			if (xa_track_free(xa) && entry && !curr)
				xas_clear_mark(&xas, XA_FREE_MARK);
		}
	} while (__xas_nomem(&xas, gfp));
	return xas_result(&xas, curr);
}

void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp)
{
	return __xa_cmpxchg_raw(xa, index, old, entry, gfp);
}

void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp)
{
	void *curr;

	xa_lock(xa);
	curr = __xa_cmpxchg(xa, index, old, entry, gfp);
	xa_unlock(xa);
	return curr;
}

int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	XA_STATE(xas, xa, index);
	void *curr;

	if (VM_WARN_ON_ONCE(xa_is_advanced(entry)))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	do {
		curr = xas_load(&xas);
		if (!curr) {
			xas_store(&xas, entry);
			if (xa_track_free(xa))
				xas_clear_mark(&xas, XA_FREE_MARK);
		} else {
			xas_set_err(&xas, -EBUSY);
		}
	} while (__xas_nomem(&xas, gfp));
	return xas_error(&xas);
}

int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	int err;

	xa_lock(xa);
	err = __xa_insert(xa, index, entry, gfp);
	xa_unlock(xa);
	return err;
}

int xa_get_order(struct xarray *xa, unsigned long index)
{
	XA_STATE(xas, xa, index);
	int order = 0;
	void *entry;

	rcu_read_lock();
	for (;;) {
		entry = xas_load(&xas);
		if (!xa_is_retry(entry))
			break;
		xas_reset(&xas);
	}
	if (entry)
		order = xas_get_order(&xas);
	rcu_read_unlock();
	return order;
}

int __xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, gfp_t gfp)
{
	XA_STATE(xas, xa, 0);

	if (VM_WARN_ON_ONCE(xa_is_advanced(entry)))
		return -EINVAL;
	if (VM_WARN_ON_ONCE(!xa_track_free(xa)))
		return -EINVAL;
	if (!entry)
		entry = XA_ZERO_ENTRY;
	do {
		xas.xa_index = limit.min;
		xas_find_marked(&xas, limit.max, XA_FREE_MARK);
		if (xas.xa_node == XAS_RESTART)
			xas_set_err(&xas, -EBUSY);	/* nothing free up to limit.max */
		else
			*id = (u32)xas.xa_index;
		xas_store(&xas, entry);
		xas_clear_mark(&xas, XA_FREE_MARK);
	} while (__xas_nomem(&xas, gfp));
	return xas_error(&xas);
}

int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, gfp_t gfp)
{
	int err;

	xa_lock(xa);
	err = __xa_alloc(xa, id, entry, limit, gfp);
	xa_unlock(xa);
	return err;
}

/* XA_FLAGS_ALLOC_WRAPPED: the last allocation took U32_MAX, *next wrapped to 0. */
int __xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
		      u32 *next, gfp_t gfp)
{
	u32 min = limit.min;
	int ret;

	limit.min = max(min, *next);
	ret = __xa_alloc(xa, id, entry, limit, gfp);
	if ((xa->xa_flags & XA_FLAGS_ALLOC_WRAPPED) && ret == 0) {
		WRITE_ONCE(xa->xa_flags, xa->xa_flags & ~XA_FLAGS_ALLOC_WRAPPED);
		ret = 1;
	}
	if (ret < 0 && limit.min > min) {
		limit.min = min;
		ret = __xa_alloc(xa, id, entry, limit, gfp);
		if (ret == 0)
			ret = 1;
	}
	if (ret >= 0) {
		*next = *id + 1;
		if (*next == 0)
			WRITE_ONCE(xa->xa_flags, xa->xa_flags | XA_FLAGS_ALLOC_WRAPPED);
	}
	return ret;
}

int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
		    u32 *next, gfp_t gfp)
{
	int ret;

	xa_lock(xa);
	ret = __xa_alloc_cyclic(xa, id, entry, limit, next, gfp);
	xa_unlock(xa);
	return ret;
}

/* A mark is only set on a present entry. */
void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	void *entry = xas_load(&xas);

	if (entry)
		xas_set_mark(&xas, mark);
}

void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	void *entry = xas_load(&xas);

	if (entry)
		xas_clear_mark(&xas, mark);
}

void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_set_mark(xa, index, mark);
	xa_unlock(xa);
}

void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	xa_lock(xa);
	__xa_clear_mark(xa, index, mark);
	xa_unlock(xa);
}

/* Walk down while the mark is set on the way; the answer may be stale. */
bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark)
{
	XA_STATE(xas, xa, index);
	bool marked = false;
	void *entry;

	rcu_read_lock();
	entry = xas_start(&xas);
	while (xas_get_mark(&xas, mark)) {
		if (!xa_slot_is_node(xas.xa_node, entry)) {
			marked = true;
			break;
		}
		entry = xas_descend(&xas, xa_to_node(entry));
	}
	rcu_read_unlock();
	return marked;
}

void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter)
{
	XA_STATE(xas, xa, *indexp);
	void *entry;

	rcu_read_lock();
	do {
		if (filter < XA_MAX_MARKS)
			entry = xas_find_marked(&xas, max, filter);
		else
			entry = xas_find(&xas, max);
	} while (xas_retry(&xas, entry));
	rcu_read_unlock();

	if (entry)
		*indexp = xas.xa_index;
	return entry;
}

/*
 * @xas found a multi-index entry at an index past the entry's first: the
 * caller has seen it already.
 */
static bool xas_sibling(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned long mask;

	if (!node)
		return false;
	mask = (XA_CHUNK_SIZE << node->shift) - 1;
	return (xas->xa_index & mask) > ((unsigned long)xas->xa_offset << node->shift);
}

void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max,
		    xa_mark_t filter)
{
	XA_STATE(xas, xa, *indexp + 1);
	void *entry;

	if (xas.xa_index == 0)
		return NULL;	/* *indexp was ULONG_MAX */

	rcu_read_lock();
	for (;;) {
		if (filter < XA_MAX_MARKS)
			entry = xas_find_marked(&xas, max, filter);
		else
			entry = xas_find(&xas, max);

		if (xas_invalid(&xas))
			break;
		if (xas_sibling(&xas))
			continue;
		if (!xas_retry(&xas, entry))
			break;
	}
	rcu_read_unlock();

	if (entry)
		*indexp = xas.xa_index;
	return entry;
}

void xa_destroy(struct xarray *xa)
{
	XA_STATE(xas, xa, 0);
	void *entry;

	xas.xa_node = NULL;
	xa_lock(xa);
	entry = xa_head_locked(xa);
	RCU_INIT_POINTER(xa->xa_head, NULL);
	xas_init_marks(&xas);
	if (xa_zero_busy(xa))
		xa_mark_clear(xa, XA_FREE_MARK);
	if (xa_is_node(entry))
		xas_free_nodes(&xas, xa_to_node(entry));
	xa_unlock(xa);
}

/* --- ranges, splitting, node deletion ------------------------------------------ */

void xas_create_range(struct xa_state *xas)
{
	unsigned long index = xas->xa_index;
	unsigned char shift = xas->xa_shift;
	unsigned char sibs = xas->xa_sibs;
	unsigned long last = index + xas_size(xas) - 1;
	unsigned long chunk = last & ~XA_CHUNK_MASK;

	if (xas_error(xas))
		return;

	/*
	 * One leaf per XA_CHUNK_SIZE indices, from the last down to the
	 * first, so that @xas ends up in the first one.  A leaf is reached
	 * through its chunk's highest index in the range: at index 0 alone
	 * the head would do, and the caller wants a node.
	 */
	for (;;) {
		xas->xa_shift = 0;
		xas->xa_sibs = 0;
		xas->xa_index = min(chunk + XA_CHUNK_MASK, last);
		xas->xa_node = XAS_RESTART;
		xas_create(xas, true);
		if (xas_error(xas)) {
			/* As it was, for xas_nomem() and the retry. */
			xas->xa_shift = shift;
			xas->xa_sibs = sibs;
			xas->xa_index = index;
			return;
		}
		if (chunk <= index)
			break;
		chunk -= XA_CHUNK_SIZE;
	}
	xas->xa_index = index;
	if (xas->xa_node)
		xas_set_offset(xas);
}

/* The largest aligned block at @first that ends at or before @last. */
static unsigned int range_order(unsigned long first, unsigned long last)
{
	unsigned int order = first ? (unsigned int)__builtin_ctzl(first) : BITS_PER_LONG - 1;

	if (order > BITS_PER_LONG - 1)
		order = BITS_PER_LONG - 1;
	while (order && last - first < (1UL << order) - 1)
		order--;
	return order;
}

/*
 * The kernel stores one canonical slot with a sibling run of any length
 * per node; the model keeps every multi-index entry an aligned power of
 * two (what xa_check() verifies), so a range is a sequence of blocks.
 * Loads see the same either way.  After -ENOMEM the retry resumes at the
 * first block not stored.
 */
void *xa_store_range(struct xarray *xa, unsigned long first, unsigned long last, void *entry,
		     gfp_t gfp)
{
	XA_STATE(xas, xa, 0);

	if (VM_WARN_ON_ONCE(xa_is_internal(entry)))
		return XA_ERROR(-EINVAL);
	if (last < first)
		return XA_ERROR(-EINVAL);
	do {
		xas_lock(&xas);
		for (;;) {
			unsigned int order = range_order(first, last);

			xas_set_order(&xas, first, order);
			xas_store(&xas, entry);
			if (xas_error(&xas))
				break;
			if (last - first == (1UL << order) - 1)
				break;
			first += 1UL << order;
		}
		xas_unlock(&xas);
	} while (xas_nomem(&xas, gfp));
	return xas_result(&xas, NULL);
}

void xa_delete_node(struct xa_node *node, xa_update_node_t update)
{
	/* The slot @node occupies in its parent, as a multi-index xa_state. */
	struct xa_state xas = {
		.xa = node->array,
		.xa_index = (unsigned long)node->offset << (node->shift + XA_CHUNK_SHIFT),
		.xa_shift = node->shift + XA_CHUNK_SHIFT,
		.xa_offset = node->offset,
		.xa_node = xa_parent_locked(node->array, node),
		.xa_update = update,
	};

	xas_store(&xas, NULL);
}

static unsigned int node_get_marks(const struct xa_node *node, unsigned int offset)
{
	unsigned int marks = 0;

	for (xa_mark_t mark = 0; mark <= XA_MARK_MAX; mark++)
		if (node_get_mark(node, offset, mark))
			marks |= 1U << mark;
	return marks;
}

/*
 * Give @offset of @node the marks @marks, and the canonical slots of the
 * new @child (entries of xa_sibs + 1 slots each) too.  Siblings carry none.
 */
static void node_set_marks(struct xa_node *node, unsigned int offset, struct xa_node *child,
			   unsigned int sibs, unsigned int marks)
{
	for (xa_mark_t mark = 0; mark <= XA_MARK_MAX; mark++) {
		if (!(marks & (1U << mark)))
			continue;
		node_set_mark(node, offset, mark);
		if (!child)
			continue;
		for (unsigned int i = 0; i < XA_CHUNK_SIZE; i += sibs + 1)
			node_set_mark(child, i, mark);
	}
}

/* A node below the old entry, every slot an entry of the new order. */
static void split_fill(struct xa_node *node, struct xarray *xa, void *entry, unsigned int sibs)
{
	void *sibling = NULL;

	node->array = xa;
	for (unsigned int i = 0; i < XA_CHUNK_SIZE; i++) {
		if (!(i & sibs)) {
			RCU_INIT_POINTER(node->slots[i], entry);
			sibling = xa_mk_sibling(i);
		} else {
			RCU_INIT_POINTER(node->slots[i], sibling);
		}
	}
}

void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order, gfp_t gfp)
{
	unsigned int nr = 1U << (order % XA_CHUNK_SHIFT);

	/* Nothing in an error state (the kernel allocates here even then). */
	if (xas_error(xas))
		return;

	/* Across two levels or more: the kernel does not either. */
	if (VM_WARN_ON((unsigned int)xas->xa_shift + 2 * XA_CHUNK_SHIFT <= order))
		goto nomem;
	if ((unsigned int)xas->xa_shift + XA_CHUNK_SHIFT > order)
		return;		/* the new entries fit in the old entry's node */
	gfp = xa_node_gfp(xas->xa, gfp);
	while (nr--) {
		struct xa_node *node = xa_node_alloc(gfp);

		if (!node)
			goto nomem;
		split_fill(node, xas->xa, entry, xas->xa_sibs);
		RCU_INIT_POINTER(node->parent, xas->xa_alloc);
		xas->xa_alloc = node;
	}
	return;
nomem:
	xas_destroy(xas);
	xas_set_err(xas, -ENOMEM);
}

/* Slot @offset of @node becomes @child, a full node of new entries. */
static void split_publish_child(struct xa_state *xas, struct xa_node *node, unsigned int offset,
				struct xa_node *child, void *entry, unsigned int marks)
{
	child->shift = node->shift - XA_CHUNK_SHIFT;
	child->offset = offset;
	child->count = XA_CHUNK_SIZE;
	child->nr_values = xa_is_value(entry) ? XA_CHUNK_SIZE : 0;
	RCU_INIT_POINTER(child->parent, node);
	node_set_marks(node, offset, child, xas->xa_sibs, marks);
	/* Fully initialised: readers may step into it from here on. */
	rcu_assign_pointer(node->slots[offset], xa_mk_node(child));
	xas_update(xas, child);
}

/*
 * The group of slots ending at @offset in @node becomes one new entry:
 * canonical slot first, so that a reader following a new sibling finds
 * it; the old canonical slot is rewritten last of all (by the caller's
 * order), so a reader following an old sibling finds an entry for its
 * index throughout.  Returns the change in nr_values.
 */
static int split_in_node(struct xa_state *xas, struct xa_node *node, unsigned int offset,
			 void *entry, void *curr, unsigned int marks)
{
	unsigned int canon = offset - xas->xa_sibs;

	node_set_marks(node, canon, NULL, 0, marks);
	rcu_assign_pointer(node->slots[canon], entry);
	while (offset > canon)
		rcu_assign_pointer(node->slots[offset--], xa_mk_sibling(canon));
	return ((int)xa_is_value(entry) - (int)xa_is_value(curr)) * (xas->xa_sibs + 1);
}

/*
 * Walk the old entry's slots from the last to the first (see
 * split_in_node()); below the node's level each slot takes a node from
 * the xa_alloc list.
 */
void xas_split(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int sibs = (1U << (order % XA_CHUNK_SHIFT)) - 1;
	void *curr = xas_load(xas);
	struct xa_node *node = xas->xa_node;
	unsigned int marks;
	int offset, values = 0;

	if (xas_top(node) || xas_error(xas))
		return;
	marks = node_get_marks(node, xas->xa_offset);
	offset = xas->xa_offset + (int)sibs;
	while (offset >= xas->xa_offset) {
		if (xas->xa_shift < node->shift) {
			struct xa_node *child = xas->xa_alloc;

			xas->xa_alloc = child->parent;
			split_publish_child(xas, node, (unsigned int)offset, child, entry, marks);
			values -= xa_is_value(curr);
			offset--;
		} else {
			values += split_in_node(xas, node, (unsigned int)offset, entry, curr, marks);
			offset -= xas->xa_sibs + 1;
		}
	}
	node->nr_values += values;
	xas_update(xas, node);
}

unsigned int xas_try_split_min_order(unsigned int order)
{
	if (order % XA_CHUNK_SHIFT == 0)
		return order ? order - 1 : 0;
	return order - (order % XA_CHUNK_SHIFT);
}

void xas_try_split(struct xa_state *xas, void *entry, unsigned int order)
{
	unsigned int sibs = (1U << (order % XA_CHUNK_SHIFT)) - 1;
	void *curr = xas_load(xas);
	struct xa_node *node = xas->xa_node;
	struct xa_node *child;
	unsigned int marks;

	if (xas_top(node) || xas_error(xas))
		return;
	if (xas->xa_shift >= node->shift) {
		xas_split(xas, entry, order);	/* no node needed */
		return;
	}
	/* One node for one slot, one level down: anything more is refused. */
	if (sibs || xas->xa_shift + XA_CHUNK_SHIFT != node->shift) {
		xas_set_err(xas, -EINVAL);
		return;
	}
	child = xas->xa_alloc;
	if (child) {
		xas->xa_alloc = child->parent;
	} else {
		child = xa_node_alloc(xa_node_gfp(xas->xa, GFP_NOWAIT));
		if (!child) {
			xas_set_err(xas, -ENOMEM);
			return;
		}
	}
	split_fill(child, xas->xa, entry, xas->xa_sibs);
	marks = node_get_marks(node, xas->xa_offset);
	split_publish_child(xas, node, xas->xa_offset, child, entry, marks);
	node->nr_values -= xa_is_value(curr);
	xas_update(xas, node);
}

/* --- extract and dump ------------------------------------------------------------ */

unsigned int xa_extract(struct xarray *xa, void **dst, unsigned long start, unsigned long max,
			unsigned int n, xa_mark_t filter)
{
	XA_STATE(xas, xa, start);
	unsigned int i = 0;
	void *entry;

	if (!n)
		return 0;
	rcu_read_lock();
	if (filter < XA_MAX_MARKS) {
		xas_for_each_marked(&xas, entry, max, filter) {
			if (xas_retry(&xas, entry))
				continue;
			dst[i++] = entry;
			if (i == n)
				break;
		}
	} else {
		xas_for_each(&xas, entry, max) {
			if (xas_retry(&xas, entry))
				continue;
			dst[i++] = entry;
			if (i == n)
				break;
		}
	}
	rcu_read_unlock();
	return i;
}

/* Not a node: a leaf's 2-byte-aligned pointer prints as a pointer. */
static void xa_dump_entry(FILE *f, const void *entry, unsigned long index, unsigned int shift,
			  int depth)
{
	fprintf(f, "%*s%#lx-%#lx: ", depth * 2, "", index,
		index + (shift < BITS_PER_LONG ? (1UL << shift) - 1 : 0));
	if (xa_is_value(entry))
		fprintf(f, "value %lu\n", xa_to_value(entry));
	else if (xa_is_zero(entry))
		fprintf(f, "zero (reserved)\n");
	else if (xa_is_retry(entry))
		fprintf(f, "retry\n");
	else if (xa_is_sibling(entry))
		fprintf(f, "sibling of slot %lu\n", xa_to_sibling(entry));
	else if (xa_is_internal(entry) && !xa_is_node(entry))
		fprintf(f, "internal %#lx\n", (unsigned long)entry);
	else
		fprintf(f, "pointer %p\n", entry);
}

static void xa_dump_node(FILE *f, const struct xa_node *node, unsigned long index, int depth)
{
	fprintf(f, "%*snode %p index %#lx shift %u count %u values %u offset %u parent %p marks %#lx %#lx %#lx\n",
		depth * 2, "", (void *)node, index, node->shift, node->count, node->nr_values,
		node->offset, (void *)node->parent, node->marks[0][0], node->marks[1][0],
		node->marks[2][0]);
	for (unsigned int i = 0; i < XA_CHUNK_SIZE; i++) {
		const void *entry = node->slots[i];
		unsigned long at = index + ((unsigned long)i << node->shift);

		if (xa_slot_is_node(node, entry))
			xa_dump_node(f, xa_to_node(entry), at, depth + 1);
		else if (entry)
			xa_dump_entry(f, entry, at, node->shift, depth + 1);
	}
}

/* Under xa_lock, or on a tree no one is changing. */
void __xa_dump(FILE *f, const struct xarray *xa)
{
	const void *head = xa->xa_head;

	fprintf(f, "xarray %p head %p flags %#x marks %d %d %d\n", (const void *)xa, head,
		xa->xa_flags, xa_marked(xa, XA_MARK_0), xa_marked(xa, XA_MARK_1),
		xa_marked(xa, XA_MARK_2));
	if (xa_is_node(head))
		xa_dump_node(f, xa_to_node(head), 0, 1);
	else if (head)
		xa_dump_entry(f, head, 0, 0, 1);
}

void xa_dump(const struct xarray *xa)
{
	__xa_dump(stderr, xa);
}

/* --- the checker ---------------------------------------------------------------- */

struct xa_check_state {
	struct xarray *xa;
	unsigned int flags;
	char *msg;
	size_t len;
	int err;
};

static int __attribute__((format(printf, 2, 3)))
xa_check_fail(struct xa_check_state *cs, const char *fmt, ...)
{
	va_list ap;

	if (!cs->err && cs->len) {
		va_start(ap, fmt);
		vsnprintf(cs->msg, cs->len, fmt, ap);
		va_end(ap);
	}
	cs->err = -EINVAL;
	return -EINVAL;
}

/*
 * A leaf entry (not a node, not a sibling) that may sit in a slot of
 * @node (NULL: the head); in a leaf, a 2-byte-aligned pointer.
 */
static bool xa_check_leaf_entry(const struct xa_node *node, const void *entry)
{
	if (node && !node->shift && xa_is_node(entry))
		return true;
	return !xa_is_internal(entry) || xa_is_zero(entry);
}

/*
 * Sibling runs: slot @offset holds a sibling; it must point back into the
 * run that started at its canonical slot, and a run's length must be a
 * power of two aligned on it (an order-N entry).
 */
static int xa_check_siblings(struct xa_check_state *cs, struct xa_node *node,
			     unsigned long base)
{
	unsigned int offset = 0;

	while (offset < XA_CHUNK_SIZE) {
		void *entry = xa_entry_locked(cs->xa, node, offset);
		unsigned int canon = offset, nr;

		if (xa_is_sibling(entry))
			return xa_check_fail(cs, "node %p (index %#lx shift %u): slot %u is a sibling of slot %lu with no entry before it",
					     (void *)node, base, node->shift, offset, xa_to_sibling(entry));
		offset++;
		if (!entry)
			continue;
		while (offset < XA_CHUNK_SIZE) {
			void *next = xa_entry_locked(cs->xa, node, offset);

			if (!xa_is_sibling(next))
				break;
			if (xa_to_sibling(next) != canon)
				return xa_check_fail(cs, "node %p (index %#lx shift %u): slot %u is a sibling of slot %lu, not of its entry's slot %u",
						     (void *)node, base, node->shift, offset,
						     xa_to_sibling(next), canon);
			offset++;
		}
		nr = offset - canon;
		if (nr == 1)
			continue;
		if (xa_is_node(entry))
			return xa_check_fail(cs, "node %p (index %#lx shift %u): slot %u holds a node with siblings",
					     (void *)node, base, node->shift, canon);
		if (!is_power_of_2(nr) || canon % nr)
			return xa_check_fail(cs, "node %p (index %#lx shift %u): the entry at slot %u spans %u slots: not an aligned power of two",
					     (void *)node, base, node->shift, canon, nr);
	}
	return 0;
}

static int xa_check_node(struct xa_check_state *cs, struct xa_node *node,
			 struct xa_node *parent, unsigned int offset_in_parent,
			 unsigned long base, unsigned int shift, bool *marked);

/* Slot contents, counts and marks of one node; recurses into children. */
static int xa_check_slots(struct xa_check_state *cs, struct xa_node *node, unsigned long base,
			  bool child_marked[XA_MAX_MARKS][XA_CHUNK_SIZE])
{
	unsigned int count = 0, nr_values = 0;
	bool value = false;

	for (unsigned int i = 0; i < XA_CHUNK_SIZE; i++) {
		void *entry = xa_entry_locked(cs->xa, node, i);
		unsigned long index = base + ((unsigned long)i << node->shift);

		if (!entry)
			continue;
		count++;
		if (xa_is_sibling(entry)) {
			nr_values += value;
			continue;
		}
		value = xa_is_value(entry);
		nr_values += value;
		if (xa_slot_is_node(node, entry)) {
			bool marked[XA_MAX_MARKS];

			if (xa_check_node(cs, xa_to_node(entry), node, i, index,
					  node->shift - XA_CHUNK_SHIFT, marked))
				return cs->err;
			for (xa_mark_t m = 0; m < XA_MAX_MARKS; m++)
				child_marked[m][i] = marked[m];
		} else if (!xa_check_leaf_entry(node, entry)) {
			return xa_check_fail(cs, "node %p (index %#lx shift %u): slot %u holds internal entry %#lx",
					     (void *)node, base, node->shift, i, (unsigned long)entry);
		}
	}
	if (count != node->count)
		return xa_check_fail(cs, "node %p (index %#lx shift %u): count %u, but %u slots are in use",
				     (void *)node, base, node->shift, node->count, count);
	if (nr_values != node->nr_values)
		return xa_check_fail(cs, "node %p (index %#lx shift %u): nr_values %u, but %u slots hold values",
				     (void *)node, base, node->shift, node->nr_values, nr_values);
	return 0;
}

/* XA_FREE_MARK in an allocating array: set on free (NULL) slots. */
static bool xa_check_free_mark(struct xa_check_state *cs, xa_mark_t mark)
{
	return xa_track_free(cs->xa) && mark == XA_FREE_MARK;
}

/*
 * A node's mark bits: none on an empty or sibling slot; on a node slot,
 * set iff the child has that mark anywhere.  *@marked: whether any slot
 * of @node has it.  The free mark of an allocating array is on empty
 * slots and on no used one; a free slot may lack it (the slots a
 * multi-index entry left), so a node slot may lack it above a child
 * that has it, but not the reverse.
 */
static int xa_check_marks(struct xa_check_state *cs, struct xa_node *node, unsigned long base,
			  bool child_marked[XA_MAX_MARKS][XA_CHUNK_SIZE], bool *marked)
{
	for (xa_mark_t m = 0; m < XA_MAX_MARKS; m++) {
		bool free_mark = xa_check_free_mark(cs, m);

		marked[m] = node_any_mark(node, m);
		for (unsigned int i = 0; i < XA_CHUNK_SIZE; i++) {
			void *entry = xa_entry_locked(cs->xa, node, i);
			bool bit = node_get_mark(node, i, m);

			if (free_mark) {
				if (bit && entry && !xa_slot_is_node(node, entry))
					return xa_check_fail(cs, "node %p (index %#lx shift %u): free mark set on used slot %u",
							     (void *)node, base, node->shift, i);
				if (xa_slot_is_node(node, entry) && bit && !child_marked[m][i])
					return xa_check_fail(cs, "node %p (index %#lx shift %u): free mark set on slot %u, but the child below has no free slot",
							     (void *)node, base, node->shift, i);
				continue;
			}
			if (bit && (!entry || xa_is_sibling(entry)))
				return xa_check_fail(cs, "node %p (index %#lx shift %u): mark %u set on %s slot %u",
						     (void *)node, base, node->shift, m,
						     entry ? "sibling" : "empty", i);
			if (xa_slot_is_node(node, entry) && bit != child_marked[m][i])
				return xa_check_fail(cs, "node %p (index %#lx shift %u): mark %u %s on slot %u, but the child below %s it",
						     (void *)node, base, node->shift, m,
						     bit ? "set" : "clear", i,
						     child_marked[m][i] ? "has" : "does not have");
		}
	}
	return 0;
}

static int xa_check_node(struct xa_check_state *cs, struct xa_node *node,
			 struct xa_node *parent, unsigned int offset_in_parent,
			 unsigned long base, unsigned int shift, bool *marked)
{
	bool child_marked[XA_MAX_MARKS][XA_CHUNK_SIZE] = { { false } };

	if (node->shift != shift || shift % XA_CHUNK_SHIFT || shift >= BITS_PER_LONG)
		return xa_check_fail(cs, "node %p (index %#lx): shift %u, expected %u",
				     (void *)node, base, node->shift, shift);
	if (xa_parent_locked(cs->xa, node) != parent)
		return xa_check_fail(cs, "node %p (index %#lx shift %u): parent %p, expected %p",
				     (void *)node, base, shift, (void *)xa_parent_locked(cs->xa, node),
				     (void *)parent);
	if (node->offset != offset_in_parent)
		return xa_check_fail(cs, "node %p (index %#lx shift %u): offset %u, but it is in slot %u",
				     (void *)node, base, shift, node->offset, offset_in_parent);
	if (node->array != cs->xa)
		return xa_check_fail(cs, "node %p (index %#lx shift %u): array %p, not this array %p",
				     (void *)node, base, shift, (void *)node->array, (void *)cs->xa);
	if (!node->count && !(cs->flags & XA_CHECK_UNTIDY))
		return xa_check_fail(cs, "node %p (index %#lx shift %u): empty node left in the tree",
				     (void *)node, base, shift);
	if (xa_check_siblings(cs, node, base))
		return cs->err;
	if (xa_check_slots(cs, node, base, child_marked))
		return cs->err;
	return xa_check_marks(cs, node, base, child_marked, marked);
}

int __xa_check(struct xarray *xa, unsigned int flags, char *msg, size_t len)
{
	struct xa_check_state cs = { .xa = xa, .flags = flags, .msg = msg, .len = len };
	void *head = xa_head_locked(xa);
	bool marked[XA_MAX_MARKS] = { false };

	if (len)
		msg[0] = '\0';
	if (!xa_is_node(head)) {
		if (head && !xa_check_leaf_entry(NULL, head))
			return xa_check_fail(&cs, "head holds internal entry %#lx", (unsigned long)head);
		for (xa_mark_t m = 0; m < XA_MAX_MARKS; m++)
			if (!head && xa_marked(xa, m) && !xa_check_free_mark(&cs, m))
				return xa_check_fail(&cs, "mark %u set on an empty array", m);
		if (head && xa_track_free(xa) && xa_marked(xa, XA_FREE_MARK))
			return xa_check_fail(&cs, "free mark set on the used head entry");
		return 0;
	}

	{
		struct xa_node *root = xa_to_node(head);
		void *first = xa_entry_locked(xa, root, 0);

		if (xa_check_node(&cs, root, NULL, 0, 0, root->shift, marked))
			return cs.err;
		/* A zero entry or a 2-byte-aligned pointer at 0 keeps a leaf (xas_create()). */
		if (!(flags & XA_CHECK_UNTIDY) && root->count == 1 && first &&
		    (root->shift ? xa_is_node(first) : !xa_is_zero(first) && !xa_is_node(first)))
			return xa_check_fail(&cs, "head node %p (shift %u) holds only slot 0: the tree should have shrunk",
					     (void *)root, root->shift);
	}
	for (xa_mark_t m = 0; m < XA_MAX_MARKS; m++)
		if (xa_marked(xa, m) != marked[m] &&
		    !(xa_check_free_mark(&cs, m) && !xa_marked(xa, m)))
			return xa_check_fail(&cs, "head mark %u is %s, but the head node %s it",
					     m, xa_marked(xa, m) ? "set" : "clear",
					     marked[m] ? "has" : "does not have");
	return 0;
}
