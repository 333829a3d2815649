/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The XArray (include/linux/xarray.h, lib/xarray.c): a radix tree of
 * 64-slot nodes indexed by unsigned long, with the kernel's entry
 * encoding, marks, multi-index entries (CONFIG_XARRAY_MULTI) and the
 * xa_state cursor.
 *
 * Locking, as in the kernel: loads and finds are lockless under
 * rcu_read_lock() (the normal API takes it itself); stores, erases and
 * mark changes hold xa_lock.  Nodes that leave the tree are freed after
 * an RCU grace period, and a slot a reader may still look at in a node
 * that is going away holds XA_RETRY_ENTRY, so the reader restarts its walk.
 *
 * Entry encoding (bottom two bits): 00 a pointer, x1 a value entry,
 * 10 an internal entry: a node pointer (above 4096), a sibling entry
 * (0..62: "see slot N of this node"), the retry entry (256), the zero
 * entry (257), or an error (-4095..-1, only in an xa_state).  In a leaf
 * (shift 0) nothing is a node: there a 10 above 4096 is a pointer that is
 * only 2-byte aligned, which a single slot may hold (since v5.0).
 */
#ifndef _LINUX_XARRAY_H
#define _LINUX_XARRAY_H

#include <errno.h>
#include <stdio.h>

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mmdebug.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#ifndef MAX_ERRNO
#define MAX_ERRNO	4095
#endif

/* --- entries ------------------------------------------------------------- */

#define BITS_PER_XA_VALUE	(BITS_PER_LONG - 1)

static inline void *xa_mk_value(unsigned long v)
{
	VM_WARN_ON((long)v < 0);
	return (void *)((v << 1) | 1);
}

static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

static inline void *xa_mk_internal(unsigned long v)
{
	return (void *)((v << 2) | 2);
}

static inline unsigned long xa_to_internal(const void *entry)
{
	return (unsigned long)entry >> 2;
}

static inline bool xa_is_internal(const void *entry)
{
	return ((unsigned long)entry & 3) == 2;
}

/* A node being freed is in the way: walk again from the head. */
#define XA_RETRY_ENTRY		xa_mk_internal(256)
/* Reserved: reads as NULL through the normal API, but occupies its slot. */
#define XA_ZERO_ENTRY		xa_mk_internal(257)

static inline bool xa_is_zero(const void *entry)
{
	return entry == XA_ZERO_ENTRY;
}

static inline bool xa_is_err(const void *entry)
{
	return unlikely(xa_is_internal(entry) &&
			entry >= xa_mk_internal(-MAX_ERRNO));
}

/* The errno an entry returned by the normal API encodes, or 0. */
static inline int xa_err(void *entry)
{
	if (xa_is_err(entry))
		return (int)((long)entry >> 2);
	return 0;
}

/* --- the array ------------------------------------------------------------ */

typedef unsigned int xa_mark_t;
#define XA_MARK_0		((xa_mark_t)0U)
#define XA_MARK_1		((xa_mark_t)1U)
#define XA_MARK_2		((xa_mark_t)2U)
#define XA_PRESENT		((xa_mark_t)8U)	/* xa_find filter: any entry */
#define XA_MARK_MAX		XA_MARK_2
#define XA_FREE_MARK		XA_MARK_0

/*
 * xa_flags: the array's flags in the low bits, the marks of the head entry
 * from bit 24 (above every gfp bit, as in the kernel).
 */
#define XA_FLAGS_LOCK_IRQ	((gfp_t)1U)
#define XA_FLAGS_LOCK_BH	((gfp_t)2U)
#define XA_FLAGS_TRACK_FREE	((gfp_t)4U)	/* XA_FREE_MARK marks free indices */
#define XA_FLAGS_ZERO_BUSY	((gfp_t)8U)	/* index 0 is never free */
#define XA_FLAGS_ALLOC_WRAPPED	((gfp_t)16U)	/* xa_alloc_cyclic() wrapped */
#define XA_FLAGS_ACCOUNT	((gfp_t)32U)	/* nodes are __GFP_ACCOUNT */
#define XA_FLAGS_MARK_SHIFT	24
#define XA_FLAGS_MARK(mark)	((gfp_t)(1U << (XA_FLAGS_MARK_SHIFT + (mark))))
#define XA_FLAGS_ALLOC		(XA_FLAGS_TRACK_FREE | XA_FLAGS_MARK(XA_FREE_MARK))
#define XA_FLAGS_ALLOC1		(XA_FLAGS_TRACK_FREE | XA_FLAGS_ZERO_BUSY)

/*
 * @xa_head is NULL when every entry is NULL, the entry itself when the
 * only non-NULL entry is at index 0, and a node otherwise.
 */
struct xarray {
	spinlock_t xa_lock;
	gfp_t xa_flags;			/* head marks; written under xa_lock */
	void *xa_head;			/* RCU-published */
};

#define XARRAY_INIT(name, flags) {					\
	.xa_lock = __SPIN_LOCK_UNLOCKED(name.xa_lock),			\
	.xa_flags = flags,						\
	.xa_head = NULL,						\
}
#define DEFINE_XARRAY_FLAGS(name, flags) struct xarray name = XARRAY_INIT(name, flags)
#define DEFINE_XARRAY(name)	DEFINE_XARRAY_FLAGS(name, 0)
/* For xa_alloc(): IDs from 0, or from 1 (index 0 is never handed out). */
#define DEFINE_XARRAY_ALLOC(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC)
#define DEFINE_XARRAY_ALLOC1(name)	DEFINE_XARRAY_FLAGS(name, XA_FLAGS_ALLOC1)

void xa_init_flags(struct xarray *xa, gfp_t flags);

static inline void xa_init(struct xarray *xa)
{
	xa_init_flags(xa, 0);
}

/*
 * No interrupts or softirqs in userspace: the _bh and _irq forms take the
 * same lock as the plain form, and exist so that kernel code reads as is.
 */
#define xa_trylock(xa)		spin_trylock(&(xa)->xa_lock)
#define xa_lock(xa)		spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa)		spin_unlock(&(xa)->xa_lock)
#define xa_lock_bh(xa)		spin_lock(&(xa)->xa_lock)
#define xa_unlock_bh(xa)	spin_unlock(&(xa)->xa_lock)
#define xa_lock_irq(xa)		spin_lock_irq(&(xa)->xa_lock)
#define xa_unlock_irq(xa)	spin_unlock_irq(&(xa)->xa_lock)
#define xa_lock_irqsave(xa, flags)	spin_lock_irqsave(&(xa)->xa_lock, flags)
#define xa_unlock_irqrestore(xa, flags)	spin_unlock_irqrestore(&(xa)->xa_lock, flags)
/* No lockdep either: the nesting subclass is for the reader. */
#define xa_lock_nested(xa, subclass)		((void)(subclass), xa_lock(xa))
#define xa_lock_bh_nested(xa, subclass)		((void)(subclass), xa_lock(xa))
#define xa_lock_irq_nested(xa, subclass)	((void)(subclass), xa_lock(xa))
#define xa_lock_irqsave_nested(xa, flags, subclass)				\
	do { (void)(subclass); xa_lock_irqsave(xa, flags); } while (0)

static inline bool xa_empty(const struct xarray *xa)
{
	return READ_ONCE(((struct xarray *)xa)->xa_head) == NULL;
}

static inline bool xa_marked(const struct xarray *xa, xa_mark_t mark)
{
	return READ_ONCE(((struct xarray *)xa)->xa_flags) & XA_FLAGS_MARK(mark);
}

/* READ_ONCE: lockless finds ask while a writer changes the head marks. */
static inline bool xa_track_free(const struct xarray *xa)
{
	return READ_ONCE(((struct xarray *)xa)->xa_flags) & XA_FLAGS_TRACK_FREE;
}

static inline bool xa_zero_busy(const struct xarray *xa)
{
	return READ_ONCE(((struct xarray *)xa)->xa_flags) & XA_FLAGS_ZERO_BUSY;
}

/*
 * Entries the normal API refuses to store: nodes, siblings and the retry
 * entry.  XA_ZERO_ENTRY is allowed: it reserves the index.
 */
static inline bool xa_is_advanced(const void *entry)
{
	return xa_is_internal(entry) && (entry <= XA_RETRY_ENTRY);
}

/* --- the normal API ------------------------------------------------------- */

/* Takes rcu_read_lock() itself; also fine under xa_lock. */
void *xa_load(struct xarray *xa, unsigned long index);
/*
 * Under xa_lock (the __ forms) or taking it.  The store returns the old
 * entry, or xa_err(-ENOMEM / -EINVAL) encoded as an entry (test with
 * xa_is_err / xa_err).  A store or erase at any index of a multi-index
 * entry replaces the whole entry.
 */
void *__xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *xa_store(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *__xa_erase(struct xarray *xa, unsigned long index);
void *xa_erase(struct xarray *xa, unsigned long index);

/*
 * Store @entry if the index holds @old (a reserved index holds
 * XA_ZERO_ENTRY); returns what it held (NULL for a reserved index), or an
 * error entry.  Under xa_lock for the __ form.
 */
void *__xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp);
void *xa_cmpxchg(struct xarray *xa, unsigned long index, void *old, void *entry, gfp_t gfp);
/*
 * Store @entry (NULL reserves) only if nothing is there, reserved indices
 * included: 0, -EBUSY, -ENOMEM or -EINVAL.
 */
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
int xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
/* The order of the entry at @index; 0 if there is none. */
int xa_get_order(struct xarray *xa, unsigned long index);

/* The IDs xa_alloc() may hand out: [min, max]. */
struct xa_limit {
	u32 max;
	u32 min;
};

#define XA_LIMIT(_min, _max)	((struct xa_limit){ .min = (_min), .max = (_max) })
#define xa_limit_32b		XA_LIMIT(0, UINT32_MAX)
#define xa_limit_31b		XA_LIMIT(0, INT32_MAX)
#define xa_limit_16b		XA_LIMIT(0, UINT16_MAX)

/*
 * In an array initialised with XA_FLAGS_ALLOC or ALLOC1: store @entry (NULL
 * reserves) at the lowest free index in @limit and set *@id to it.  0,
 * -EBUSY (no free index in @limit), -ENOMEM, or -EINVAL (not an
 * allocating array, or an internal entry).
 */
int __xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, gfp_t gfp);
int xa_alloc(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit, gfp_t gfp);
/*
 * xa_alloc() from *@next upwards, wrapping to @limit.min; *@next becomes
 * the ID after the one allocated.  1 instead of 0 when the IDs wrapped
 * (the search went back to the start, or the previous allocation took
 * the last ID).
 */
int __xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
		      u32 *next, gfp_t gfp);
int xa_alloc_cyclic(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
		    u32 *next, gfp_t gfp);

static inline int xa_alloc_bh(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
			      gfp_t gfp)
{
	return xa_alloc(xa, id, entry, limit, gfp);
}

static inline int xa_alloc_irq(struct xarray *xa, u32 *id, void *entry, struct xa_limit limit,
			       gfp_t gfp)
{
	return xa_alloc(xa, id, entry, limit, gfp);
}

static inline int xa_alloc_cyclic_bh(struct xarray *xa, u32 *id, void *entry,
				     struct xa_limit limit, u32 *next, gfp_t gfp)
{
	return xa_alloc_cyclic(xa, id, entry, limit, next, gfp);
}

static inline int xa_alloc_cyclic_irq(struct xarray *xa, u32 *id, void *entry,
				      struct xa_limit limit, u32 *next, gfp_t gfp)
{
	return xa_alloc_cyclic(xa, id, entry, limit, next, gfp);
}

static inline void *xa_store_bh(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

static inline void *xa_store_irq(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	return xa_store(xa, index, entry, gfp);
}

static inline void *xa_erase_bh(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

static inline void *xa_erase_irq(struct xarray *xa, unsigned long index)
{
	return xa_erase(xa, index);
}

static inline void *xa_cmpxchg_bh(struct xarray *xa, unsigned long index, void *old,
				  void *entry, gfp_t gfp)
{
	return xa_cmpxchg(xa, index, old, entry, gfp);
}

static inline void *xa_cmpxchg_irq(struct xarray *xa, unsigned long index, void *old,
				   void *entry, gfp_t gfp)
{
	return xa_cmpxchg(xa, index, old, entry, gfp);
}

static inline int xa_insert_bh(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	return xa_insert(xa, index, entry, gfp);
}

static inline int xa_insert_irq(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	return xa_insert(xa, index, entry, gfp);
}

/*
 * Reserve @index: loads return NULL, but xa_insert() and xa_alloc() treat
 * it as in use, until a store or xa_release().  0 if it already holds an
 * entry.
 */
static inline int xa_reserve(struct xarray *xa, unsigned long index, gfp_t gfp)
{
	return xa_err(xa_cmpxchg(xa, index, NULL, XA_ZERO_ENTRY, gfp));
}

static inline int xa_reserve_bh(struct xarray *xa, unsigned long index, gfp_t gfp)
{
	return xa_reserve(xa, index, gfp);
}

static inline int xa_reserve_irq(struct xarray *xa, unsigned long index, gfp_t gfp)
{
	return xa_reserve(xa, index, gfp);
}

/* Undo xa_reserve(); an index that was stored to since is left alone. */
static inline void xa_release(struct xarray *xa, unsigned long index)
{
	xa_cmpxchg(xa, index, XA_ZERO_ENTRY, NULL, 0);
}

bool xa_get_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void __xa_set_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);
void __xa_clear_mark(struct xarray *xa, unsigned long index, xa_mark_t mark);

/*
 * The present entry (@filter XA_PRESENT) or the entry with mark @filter
 * with the lowest index in [*indexp, max] (xa_find_after: in
 * (*indexp, max]), *indexp set to that index; NULL if none.  Takes
 * rcu_read_lock() itself.
 */
void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter);
void *xa_find_after(struct xarray *xa, unsigned long *indexp, unsigned long max, xa_mark_t filter);

#define xa_for_each_range(xa, index, entry, start, last)		\
	for (index = start,						\
	     entry = xa_find(xa, &index, last, XA_PRESENT);		\
	     entry;							\
	     entry = xa_find_after(xa, &index, last, XA_PRESENT))
#define xa_for_each_start(xa, index, entry, start)			\
	xa_for_each_range(xa, index, entry, start, ~0UL)
#define xa_for_each(xa, index, entry)					\
	xa_for_each_start(xa, index, entry, 0)
#define xa_for_each_marked(xa, index, entry, filter)			\
	for (index = 0, entry = xa_find(xa, &index, ~0UL, filter);	\
	     entry; entry = xa_find_after(xa, &index, ~0UL, filter))

/*
 * Free every node (after a grace period) and empty the array; the entries
 * themselves are the caller's.  Takes xa_lock.
 */
void xa_destroy(struct xarray *xa);

/*
 * Copy up to @n entries in [@start, @max] (@filter: XA_PRESENT or a mark)
 * into @dst, in index order, a multi-index entry once; returns how many.
 * Reserved entries are skipped.  Takes rcu_read_lock() itself.
 */
unsigned int xa_extract(struct xarray *xa, void **dst, unsigned long start, unsigned long max,
			unsigned int n, xa_mark_t filter);
/*
 * Make every index in [@first, @last] load @entry (NULL erases): the range
 * is stored as aligned power-of-two multi-index entries, each replacing
 * whatever it overlaps.  Returns NULL or an error entry.  Takes xa_lock.
 */
void *xa_store_range(struct xarray *xa, unsigned long first, unsigned long last, void *entry,
		     gfp_t gfp);
/* Print the tree, node by node, to stderr (the kernel prints to its log). */
void xa_dump(const struct xarray *xa);
/* The same to @f, for tests that read it back. */
void __xa_dump(FILE *f, const struct xarray *xa);

/* --- nodes (the advanced API from here on) ------------------------------- */

#define XA_CHUNK_SHIFT		6
#define XA_CHUNK_SIZE		(1UL << XA_CHUNK_SHIFT)
#define XA_CHUNK_MASK		(XA_CHUNK_SIZE - 1)
#define XA_MAX_MARKS		3
#define XA_MARK_LONGS		((XA_CHUNK_SIZE + BITS_PER_LONG - 1) / BITS_PER_LONG)

/*
 * @count: non-NULL slots (pointers, values, siblings, retry, nodes).
 * @nr_values: value entries and siblings of value entries.
 * @shift, @offset and @parent are set before the node is published; only
 * @parent changes afterwards (to NULL when the node becomes the head).
 * Marks are written under xa_lock and read locklessly.
 */
struct xa_node {
	unsigned char shift;		/* bits below each slot's index */
	unsigned char offset;		/* slot offset in the parent */
	unsigned char count;
	unsigned char nr_values;
	struct xa_node *parent;		/* NULL at the top; RCU */
	struct xarray *array;		/* the array we belong to */
	/*
	 * The user's, through the xas_set_update() callback (workingset
	 * keeps shadow-only nodes on a list); empty when the node is freed.
	 * The kernel shares the space with rcu_head, since a node on a user
	 * list is not being freed; the model keeps both.
	 */
	struct list_head private_list;
	struct rcu_head rcu_head;	/* for the free after a grace period */
	void *slots[XA_CHUNK_SIZE];	/* RCU */
	unsigned long marks[XA_MAX_MARKS][XA_MARK_LONGS];
};

static inline bool xa_is_node(const void *entry)
{
	return xa_is_internal(entry) && (unsigned long)entry > 4096;
}

static inline void *xa_mk_node(const struct xa_node *node)
{
	return (void *)((unsigned long)node | 2);
}

static inline struct xa_node *xa_to_node(const void *entry)
{
	return (struct xa_node *)((unsigned long)entry - 2);
}

static inline void *xa_mk_sibling(unsigned int offset)
{
	return xa_mk_internal(offset);
}

static inline unsigned long xa_to_sibling(const void *entry)
{
	return xa_to_internal(entry);
}

static inline bool xa_is_sibling(const void *entry)
{
	return xa_is_internal(entry) && (entry < xa_mk_sibling(XA_CHUNK_SIZE - 1));
}

static inline bool xa_is_retry(const void *entry)
{
	return entry == XA_RETRY_ENTRY;
}

/* Under rcu_read_lock() (or xa_lock). */
static inline void *xa_head(const struct xarray *xa)
{
	return rcu_dereference(((struct xarray *)xa)->xa_head);
}

static inline void *xa_entry(const struct xarray *xa, const struct xa_node *node,
			     unsigned int offset)
{
	return rcu_dereference(((struct xa_node *)node)->slots[offset]);
}

static inline struct xa_node *xa_parent(const struct xarray *xa, const struct xa_node *node)
{
	return rcu_dereference(((struct xa_node *)node)->parent);
}

/* Under xa_lock. */
static inline void *xa_head_locked(const struct xarray *xa)
{
	return rcu_dereference_protected(((struct xarray *)xa)->xa_head, true);
}

static inline void *xa_entry_locked(const struct xarray *xa, const struct xa_node *node,
				    unsigned int offset)
{
	return rcu_dereference_protected(((struct xa_node *)node)->slots[offset], true);
}

static inline struct xa_node *xa_parent_locked(const struct xarray *xa,
					       const struct xa_node *node)
{
	return rcu_dereference_protected(((struct xa_node *)node)->parent, true);
}

/* --- the xa_state cursor ------------------------------------------------- */

/*
 * @xa_node is a node, NULL (at the head), or one of the special values:
 * XAS_RESTART (not walked yet), XAS_BOUNDS (the index is beyond the
 * tree), XA_ERROR(errno).  A multi-index operation covers
 * (@xa_sibs + 1) << @xa_shift indices from @xa_index.  @xa_alloc holds a
 * node xas_nomem() allocated for the retried operation to use.
 */
/*
 * Called under xa_lock for every node whose count or nr_values an
 * operation changed, for each node it adds, and for each node it frees
 * (count 0 by then): the user keeps node->private_list in step.
 */
typedef void (*xa_update_node_t)(struct xa_node *node);

struct xa_state {
	struct xarray *xa;
	unsigned long xa_index;
	unsigned char xa_shift;
	unsigned char xa_sibs;
	unsigned char xa_offset;
	unsigned char xa_pad;
	struct xa_node *xa_node;
	struct xa_node *xa_alloc;	/* xas_split_alloc(): a list through ->parent */
	xa_update_node_t xa_update;
};

#define XA_ERROR(errno)	((struct xa_node *)(((unsigned long)(errno) << 2) | 2UL))
#define XAS_BOUNDS	((struct xa_node *)1UL)
#define XAS_RESTART	((struct xa_node *)3UL)

#define __XA_STATE(array, index, shift, sibs) {				\
	.xa = array,							\
	.xa_index = index,						\
	.xa_shift = shift,						\
	.xa_sibs = sibs,						\
	.xa_offset = 0,							\
	.xa_pad = 0,							\
	.xa_node = XAS_RESTART,						\
	.xa_alloc = NULL,						\
	.xa_update = NULL,						\
}

#define XA_STATE(name, array, index)					\
	struct xa_state name = __XA_STATE(array, index, 0, 0)
/* An order-@order entry: 2^order indices from @index rounded down. */
#define XA_STATE_ORDER(name, array, index, order)			\
	struct xa_state name = __XA_STATE(array,			\
			((index) >> (order)) << (order),		\
			(order) - ((order) % XA_CHUNK_SHIFT),		\
			(1U << ((order) % XA_CHUNK_SHIFT)) - 1)

#define xas_marked(xas, mark)	xa_marked((xas)->xa, (mark))
#define xas_trylock(xas)	xa_trylock((xas)->xa)
#define xas_lock(xas)		xa_lock((xas)->xa)
#define xas_unlock(xas)		xa_unlock((xas)->xa)
#define xas_lock_bh(xas)	xa_lock_bh((xas)->xa)
#define xas_unlock_bh(xas)	xa_unlock_bh((xas)->xa)
#define xas_lock_irq(xas)	xa_lock_irq((xas)->xa)
#define xas_unlock_irq(xas)	xa_unlock_irq((xas)->xa)
#define xas_lock_irqsave(xas, flags)	xa_lock_irqsave((xas)->xa, flags)
#define xas_unlock_irqrestore(xas, flags) xa_unlock_irqrestore((xas)->xa, flags)

static inline int xas_error(const struct xa_state *xas)
{
	return xa_err(xas->xa_node);
}

static inline void xas_set_err(struct xa_state *xas, long err)
{
	xas->xa_node = XA_ERROR(err);
}

/* In an error, restart or bounds state. */
static inline bool xas_invalid(const struct xa_state *xas)
{
	return (unsigned long)xas->xa_node & 3;
}

static inline bool xas_valid(const struct xa_state *xas)
{
	return !xas_invalid(xas);
}

static inline bool xas_is_node(const struct xa_state *xas)
{
	return xas_valid(xas) && xas->xa_node;
}

static inline bool xas_not_node(struct xa_node *node)
{
	return ((unsigned long)node & 3) || !node;
}

/* An error state: the index does not move. */
static inline bool xas_frozen(struct xa_node *node)
{
	return (unsigned long)node & 2;
}

/* At the head, restarting or out of bounds. */
static inline bool xas_top(struct xa_node *node)
{
	return node <= XAS_RESTART;
}

static inline void xas_reset(struct xa_state *xas)
{
	xas->xa_node = XAS_RESTART;
}

/*
 * A walk that met a retry entry (a node being freed) restarts from the
 * head; a zero entry is skipped.  True if the caller must go round again.
 */
static inline bool xas_retry(struct xa_state *xas, const void *entry)
{
	if (xa_is_zero(entry))
		return true;
	if (!xa_is_retry(entry))
		return false;
	xas_reset(xas);
	return true;
}

void *xas_load(struct xa_state *xas);
void *xas_store(struct xa_state *xas, void *entry);
void *xas_find(struct xa_state *xas, unsigned long max);
void *xas_find_conflict(struct xa_state *xas);
void *xas_find_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark);

bool xas_get_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_set_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_clear_mark(const struct xa_state *xas, xa_mark_t mark);
void xas_init_marks(const struct xa_state *xas);

/*
 * After an operation failed with -ENOMEM under xa_lock: drop the lock,
 * call this, and retry if it returns true (it allocated a node the retry
 * will use).  Returns false, freeing any unused node, otherwise.
 */
bool xas_nomem(struct xa_state *xas, gfp_t gfp);
/* Free the nodes xas_nomem() or xas_split_alloc() set aside and nothing used. */
void xas_destroy(struct xa_state *xas);
void xas_pause(struct xa_state *xas);

static inline void xas_set_update(struct xa_state *xas, xa_update_node_t update)
{
	xas->xa_update = update;
}

/*
 * Remove @node, which the caller emptied of entries or is emptying (the
 * shadow-node shrinker), and any ancestor it leaves empty.  xa_lock.
 */
void xa_delete_node(struct xa_node *node, xa_update_node_t update);

/*
 * Make every slot of the range a multi-index @xas covers exist down to
 * single indices, and leave @xas set for single-index stores at the start
 * of the range (nodes stay empty until stored to).  Error in @xas.  Like
 * every xas_* operation, does nothing if @xas already holds an error.
 */
void xas_create_range(struct xa_state *xas);

/*
 * Splitting the order-@order entry @xas is in (at any of its indices)
 * into entries of the order @xas was set up with, each @entry, marks
 * copied.  Across one level (new order + XA_CHUNK_SHIFT <= @order) it
 * needs a node per slot of the old entry: xas_split_alloc() allocates
 * them with @gfp, without xa_lock, then xas_split() under the lock.
 * Across two or more levels is not supported (-EINVAL), as in the kernel.
 */
void xas_split_alloc(struct xa_state *xas, void *entry, unsigned int order, gfp_t gfp);
void xas_split(struct xa_state *xas, void *entry, unsigned int order);
/*
 * One step of a split, under xa_lock: to an order in the same node, or to
 * one level below when the old entry takes a single slot (order a
 * multiple of XA_CHUNK_SHIFT), with one node from xa_alloc or GFP_NOWAIT
 * (-ENOMEM); -EINVAL for a split that needs more nodes.
 */
void xas_try_split(struct xa_state *xas, void *entry, unsigned int order);
/* The smallest order xas_try_split() reaches from @order in one step. */
unsigned int xas_try_split_min_order(unsigned int order);
/* The order of the entry @xas was walked to (by xas_load or a find). */
int xas_get_order(struct xa_state *xas);

void *__xas_next(struct xa_state *xas);
void *__xas_prev(struct xa_state *xas);

/*
 * Refetch the entry @xas was walked to (the lockless lookup's "is it still
 * there" check).  @xas must be valid.
 */
static inline void *xas_reload(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;
	unsigned int offset;
	void *entry;

	if (!node)
		return xa_head(xas->xa);
	offset = (xas->xa_index >> node->shift) & XA_CHUNK_MASK;
	entry = xa_entry(xas->xa, node, offset);
	if (!xa_is_sibling(entry))
		return entry;
	return xa_entry(xas->xa, node, xa_to_sibling(entry));
}

/* Point @xas at another index; the next walk starts from the head. */
static inline void xas_set(struct xa_state *xas, unsigned long index)
{
	xas->xa_index = index;
	xas->xa_node = XAS_RESTART;
}

/* Move to @index within the node @xas is in (skipping siblings). */
static inline void xas_advance(struct xa_state *xas, unsigned long index)
{
	unsigned char shift = xas_is_node(xas) ? xas->xa_node->shift : 0;

	xas->xa_index = index;
	xas->xa_offset = (index >> shift) & XA_CHUNK_MASK;
}

static inline void xas_set_order(struct xa_state *xas, unsigned long index,
				 unsigned int order)
{
	xas->xa_index = order < BITS_PER_LONG ? (index >> order) << order : 0;
	xas->xa_shift = order - (order % XA_CHUNK_SHIFT);
	xas->xa_sibs = (1U << (order % XA_CHUNK_SHIFT)) - 1;
	xas->xa_node = XAS_RESTART;
}

/* xas_find() with a fast path for the next slot of a leaf node. */
static inline void *xas_next_entry(struct xa_state *xas, unsigned long max)
{
	struct xa_node *node = xas->xa_node;
	void *entry;

	if (unlikely(xas_not_node(node) || node->shift ||
		     xas->xa_offset != (xas->xa_index & XA_CHUNK_MASK)))
		return xas_find(xas, max);

	do {
		if (unlikely(xas->xa_index >= max))
			return xas_find(xas, max);
		if (unlikely(xas->xa_offset == XA_CHUNK_MASK))
			return xas_find(xas, max);
		entry = xa_entry(xas->xa, node, xas->xa_offset + 1);
		if (unlikely(xa_is_internal(entry)))
			return xas_find(xas, max);
		xas->xa_offset++;
		xas->xa_index++;
	} while (!entry);

	return entry;
}

static inline void *xas_next_marked(struct xa_state *xas, unsigned long max, xa_mark_t mark)
{
	return xas_find_marked(xas, max, mark);
}

/* Under rcu_read_lock() or xa_lock; the body must handle xas_retry(). */
#define xas_for_each(xas, entry, max)					\
	for (entry = xas_find(xas, max); entry;				\
	     entry = xas_next_entry(xas, max))
#define xas_for_each_marked(xas, entry, max, mark)			\
	for (entry = xas_find_marked(xas, max, mark); entry;		\
	     entry = xas_next_marked(xas, max, mark))
/* Every entry in the range @xas covers; under xa_lock. */
#define xas_for_each_conflict(xas, entry)				\
	while ((entry = xas_find_conflict(xas)))

/* The entry at the next / previous index (xa_index moves by one). */
static inline void *xas_next(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	if (unlikely(xas_not_node(node) || node->shift ||
		     xas->xa_offset == XA_CHUNK_MASK))
		return __xas_next(xas);
	xas->xa_index++;
	xas->xa_offset++;
	return xa_entry(xas->xa, node, xas->xa_offset);
}

static inline void *xas_prev(struct xa_state *xas)
{
	struct xa_node *node = xas->xa_node;

	if (unlikely(xas_not_node(node) || node->shift || xas->xa_offset == 0))
		return __xas_prev(xas);
	xas->xa_index--;
	xas->xa_offset--;
	return xa_entry(xas->xa, node, xas->xa_offset);
}

/* --- checking ------------------------------------------------------------ */

/*
 * Check the tree's invariants (under xa_lock): node counts, parent /
 * offset / shift links, marks, sibling ranges, no empty or needless node.
 * Returns 0, or -EINVAL with the first problem described in @msg.
 *
 * With XA_CHECK_UNTIDY, empty nodes and a head level holding only the old
 * head pass: a store that met -ENOMEM leaves them for its retry (and
 * leaves them there if it gives up), as does xas_create_range(), as in the
 * kernel.  For a tree other writers may be in the middle of changing.
 */
#define XA_CHECK_UNTIDY		1U
int __xa_check(struct xarray *xa, unsigned int flags, char *msg, size_t len);

static inline int xa_check(struct xarray *xa, char *msg, size_t len)
{
	return __xa_check(xa, 0, msg, len);
}

#ifdef CONFIG_DEBUG_VM
/*
 * Test hooks.  Fault injection: while xa_fail_alloc_after >= 0, that many
 * more node allocations succeed, then xa_fail_alloc_nr of them fail, then
 * the hook disarms itself (back to -1).  By flag: while
 * xa_fail_gfp_without is not 0, every node allocation whose gfp has none
 * of its bits fails; __GFP_DIRECT_RECLAIM fails every allocation that may
 * not sleep (GFP_NOWAIT, GFP_ATOMIC: the one under xa_lock), as the
 * kernel's userspace test harness does.  Node accounting: nodes allocated
 * and nodes freed (after their grace period: rcu_barrier() first).
 */
extern long xa_fail_alloc_after;
extern long xa_fail_alloc_nr;
extern gfp_t xa_fail_gfp_without;
extern atomic_long_t xa_nodes_allocated;
extern atomic_long_t xa_nodes_freed;
#endif

#endif /* _LINUX_XARRAY_H */
