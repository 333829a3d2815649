/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal stand-in for the XArray, enough for the refcount experiment:
 * a flat, RCU-published array of slots indexed by page offset, grown by
 * copy under xa_lock and freed after a grace period.  It keeps the
 * XArray's rules: loads are lockless under rcu_read_lock(), stores and
 * erases hold xa_lock, a large folio occupies every index it covers, and
 * value entries (tagged with bit 0) are shadows, never pointers.  The
 * radix-tree XArray with nodes, marks and xa_state replaces it with the
 * readahead issue; the names used by its callers stay.
 */
#ifndef _LINUX_XARRAY_H
#define _LINUX_XARRAY_H

#include <linux/compiler.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

struct xa_slots {
	unsigned long nr;
	struct rcu_head rcu;
	void *slot[];
};

struct xarray {
	spinlock_t xa_lock;
	struct xa_slots *xa_head;	/* RCU-published */
};

static inline void *xa_mk_value(unsigned long v)
{
	return (void *)((v << 1) | 1);
}

static inline bool xa_is_value(const void *entry)
{
	return (unsigned long)entry & 1;
}

static inline unsigned long xa_to_value(const void *entry)
{
	return (unsigned long)entry >> 1;
}

#define xa_lock(xa)	spin_lock(&(xa)->xa_lock)
#define xa_unlock(xa)	spin_unlock(&(xa)->xa_lock)

void xa_init(struct xarray *xa);
/* Frees the slots; the array must be empty of pointers it owns. */
void xa_destroy(struct xarray *xa);

/* Under rcu_read_lock() or xa_lock. */
static inline void *xa_load(struct xarray *xa, unsigned long index)
{
	struct xa_slots *s = rcu_dereference(xa->xa_head);

	if (!s || index >= s->nr)
		return NULL;
	return rcu_dereference(s->slot[index]);
}

/*
 * The first present entry at an index in [*indexp, max], with *indexp set
 * to its index; NULL if none.  Under rcu_read_lock() or xa_lock.
 */
void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max);

/* Under xa_lock.  Returns 0 or -ENOMEM. */
int __xa_store(struct xarray *xa, unsigned long index, void *entry);
/* Under xa_lock.  Returns the entry that was there. */
void *__xa_erase(struct xarray *xa, unsigned long index);

#endif
