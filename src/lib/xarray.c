// SPDX-License-Identifier: GPL-2.0
/*
 * The minimal XArray stand-in (include/linux/xarray.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/xarray.h>

void xa_init(struct xarray *xa)
{
	spin_lock_init(&xa->xa_lock);
	xa->xa_head = NULL;
}

void xa_destroy(struct xarray *xa)
{
	struct xa_slots *s;

	xa_lock(xa);
	s = rcu_dereference_protected(xa->xa_head, true);
	rcu_assign_pointer(xa->xa_head, NULL);
	xa_unlock(xa);
	if (s) {
		synchronize_rcu();
		free(s);
	}
}

static void xa_slots_free_rcu(struct rcu_head *head)
{
	free(container_of(head, struct xa_slots, rcu));
}

/* Replace the slot array with one of at least @index + 1 slots. */
static int xa_grow(struct xarray *xa, unsigned long index)
{
	struct xa_slots *old = rcu_dereference_protected(xa->xa_head, true);
	unsigned long nr = old ? old->nr : 0;
	unsigned long new_nr = nr ? nr : 64;
	struct xa_slots *new;

	while (new_nr <= index)
		new_nr *= 2;
	new = calloc(1, sizeof(*new) + new_nr * sizeof(void *));
	if (!new)
		return -ENOMEM;
	new->nr = new_nr;
	for (unsigned long i = 0; i < nr; i++)
		new->slot[i] = READ_ONCE(old->slot[i]);
	rcu_assign_pointer(xa->xa_head, new);
	/* Readers may still walk the old array: free it after a grace period. */
	if (old)
		call_rcu(&old->rcu, xa_slots_free_rcu);
	return 0;
}

int __xa_store(struct xarray *xa, unsigned long index, void *entry)
{
	struct xa_slots *s = rcu_dereference_protected(xa->xa_head, true);

	if (!s || index >= s->nr) {
		int err = xa_grow(xa, index);

		if (err)
			return err;
		s = rcu_dereference_protected(xa->xa_head, true);
	}
	rcu_assign_pointer(s->slot[index], entry);
	return 0;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	struct xa_slots *s = rcu_dereference_protected(xa->xa_head, true);
	void *old;

	if (!s || index >= s->nr)
		return NULL;
	old = READ_ONCE(s->slot[index]);
	WRITE_ONCE(s->slot[index], NULL);
	return old;
}

void *xa_find(struct xarray *xa, unsigned long *indexp, unsigned long max)
{
	struct xa_slots *s = rcu_dereference(xa->xa_head);

	if (!s)
		return NULL;
	for (unsigned long i = *indexp; i <= max && i < s->nr; i++) {
		void *entry = rcu_dereference(s->slot[i]);

		if (entry) {
			*indexp = i;
			return entry;
		}
	}
	return NULL;
}
