// SPDX-License-Identifier: GPL-2.0
/*
 * anon_vmas and their chains: the first half of the kernel's mm/rmap.c.
 *
 * A VMA's first anonymous fault gives it an anon_vma (__anon_vma_prepare),
 * the root of a new family.  Fork links the child's VMA into every anon_vma
 * of the parent's VMA (anon_vma_clone), so the folios the parent made are
 * found in the child, then gives the child an anon_vma of its own for the
 * folios it will make (anon_vma_fork), unless it can reuse one that no VMA
 * uses any more and that has at most one child.  Exit unlinks the VMA from
 * every anon_vma (unlink_anon_vmas) and frees those left empty.
 *
 * Locking, as the kernel's: every anon_vma of a family is changed under the
 * root's rwsem, written; the VMA's chain list under mmap_lock (written)
 * too.  anon_vmas are freed after an RCU grace period, which covers the
 * kernel's SLAB_TYPESAFE_BY_RCU for folio_lock_anon_vma_read().
 *
 * Departures: no VMA merging or splitting, so find_mergeable_anon_vma()
 * never finds one and anon_vma_clone() runs only from fork.
 */
#include <stdlib.h>

#include <linux/rmap.h>

/* Deliberately broken reuse rule, for the tests (Makefile: anon-reuse-active). */
#ifndef CONFIG_ANON_MUTANT_REUSE_ACTIVE
/*
 * Reuse an existing anon_vma if no VMA uses it and it has at most one
 * anon_vma child.  The root is never reused: it counts itself as a child
 * and has at least one more.
 */
static inline bool anon_vma_reusable(const struct anon_vma *anon_vma)
{
	return anon_vma->num_children < 2 && anon_vma->num_active_vmas == 0;
}
#else
/* The mutant: ignores the VMAs still using the anon_vma. */
static inline bool anon_vma_reusable(const struct anon_vma *anon_vma)
{
	return anon_vma->num_children < 2;
}
#endif

atomic_long_t nr_anon_vmas;

static struct anon_vma *anon_vma_alloc(void)
{
	struct anon_vma *anon_vma = calloc(1, sizeof(*anon_vma));

	if (!anon_vma)
		return NULL;
	init_rwsem(&anon_vma->rwsem);		/* the slab constructor's part */
	anon_vma->rb_root = RB_ROOT;
	atomic_set(&anon_vma->refcount, 1);
	anon_vma->num_children = 0;
	anon_vma->num_active_vmas = 0;
	anon_vma->parent = anon_vma;
	/* Its own root; fork resets it to the parent's root. */
	anon_vma->root = anon_vma;
	atomic_long_inc(&nr_anon_vmas);
	return anon_vma;
}

static void anon_vma_free_rcu(struct rcu_head *head)
{
	struct anon_vma *anon_vma = container_of(head, struct anon_vma, rcu);

	destroy_rwsem(&anon_vma->rwsem);
	free(anon_vma);
}

static void anon_vma_free(struct anon_vma *anon_vma)
{
	VM_WARN_ON_ONCE(atomic_read(&anon_vma->refcount));
	/*
	 * folio_lock_anon_vma_read() may have pinned this anon_vma, found the
	 * folio unmapped and be about to drop the root's rwsem and its pin:
	 * take the rwsem once so that it has let go before the memory goes
	 * (the kernel does this only when rwsem_is_locked(); a pthread
	 * rwlock cannot be asked, so the model always does).
	 */
	anon_vma_lock_write(anon_vma);
	anon_vma_unlock_write(anon_vma);
	atomic_long_add(-1, &nr_anon_vmas);
	call_rcu(&anon_vma->rcu, anon_vma_free_rcu);
}

void __put_anon_vma(struct anon_vma *anon_vma)
{
	struct anon_vma *root = anon_vma->root;

	anon_vma_free(anon_vma);
	if (root != anon_vma && atomic_dec_and_test(&root->refcount))
		anon_vma_free(root);
}

static struct anon_vma_chain *anon_vma_chain_alloc(void)
{
	return calloc(1, sizeof(struct anon_vma_chain));
}

static void anon_vma_chain_free(struct anon_vma_chain *avc)
{
	free(avc);
}

/* Under the root's rwsem, written. */
static void anon_vma_chain_link(struct vm_area_struct *vma, struct anon_vma_chain *avc,
				struct anon_vma *anon_vma)
{
	avc->vma = vma;
	avc->anon_vma = anon_vma;
	list_add(&avc->same_vma, &vma->anon_vma_chain);
	anon_vma_interval_tree_insert(avc, &anon_vma->rb_root);
}

int __anon_vma_prepare(struct vm_area_struct *vma)
{
	struct mm_struct *mm = vma->vm_mm;
	struct anon_vma *anon_vma, *allocated;
	struct anon_vma_chain *avc;

	avc = anon_vma_chain_alloc();
	if (!avc)
		return -ENOMEM;
	/* find_mergeable_anon_vma(): no VMA merging in the model. */
	anon_vma = anon_vma_alloc();
	if (unlikely(!anon_vma)) {
		anon_vma_chain_free(avc);
		return -ENOMEM;
	}
	anon_vma->num_children++;	/* self-parent link for a new root */
	allocated = anon_vma;

	anon_vma_lock_write(anon_vma);
	/* page_table_lock: another thread of the mm may be faulting here too. */
	spin_lock(&mm->page_table_lock);
	if (likely(!vma->anon_vma)) {
		vma->anon_vma = anon_vma;
		anon_vma_chain_link(vma, avc, anon_vma);
		anon_vma->num_active_vmas++;
		allocated = NULL;
		avc = NULL;
	}
	spin_unlock(&mm->page_table_lock);
	anon_vma_unlock_write(anon_vma);

	if (unlikely(allocated))
		put_anon_vma(allocated);
	if (unlikely(avc))
		anon_vma_chain_free(avc);
	return 0;
}

/*
 * Hold one root's rwsem at a time while walking a chain: every anon_vma of
 * a VMA's chain has the same root, so this takes it once.
 */
static struct anon_vma *lock_anon_vma_root(struct anon_vma *root, struct anon_vma *anon_vma)
{
	struct anon_vma *new_root = anon_vma->root;

	if (new_root != root) {
		VM_WARN_ON_ONCE(root);
		if (root)
			up_write(&root->rwsem);
		root = new_root;
		down_write(&root->rwsem);
	}
	return root;
}

static void unlock_anon_vma_root(struct anon_vma *root)
{
	if (root)
		up_write(&root->rwsem);
}

int anon_vma_clone(struct vm_area_struct *dst, struct vm_area_struct *src)
{
	struct anon_vma_chain *avc, *pavc;
	struct anon_vma *root = NULL;

	/* Oldest first: the root's chain, then each generation's. */
	list_for_each_entry_reverse(pavc, &src->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma;

		avc = anon_vma_chain_alloc();
		if (unlikely(!avc))
			goto enomem_failure;
		anon_vma = pavc->anon_vma;
		root = lock_anon_vma_root(root, anon_vma);
		anon_vma_chain_link(dst, avc, anon_vma);

		if (!dst->anon_vma && src->anon_vma && anon_vma_reusable(anon_vma))
			dst->anon_vma = anon_vma;
	}
	if (dst->anon_vma)
		dst->anon_vma->num_active_vmas++;
	unlock_anon_vma_root(root);
	return 0;

enomem_failure:
	unlock_anon_vma_root(root);
	/*
	 * Drop dst->anon_vma, or unlink_anon_vmas() would decrement a
	 * num_active_vmas this clone never incremented.
	 */
	dst->anon_vma = NULL;
	unlink_anon_vmas(dst);
	return -ENOMEM;
}

int anon_vma_fork(struct vm_area_struct *vma, struct vm_area_struct *pvma)
{
	struct anon_vma_chain *avc;
	struct anon_vma *anon_vma;
	int error;

	/* Nothing anonymous in the parent's VMA yet. */
	if (!pvma->anon_vma)
		return 0;
	/* Drop the inherited anon_vma: reuse one or make one. */
	vma->anon_vma = NULL;

	/* First the parent's anon_vmas, so rmap finds the shared folios here. */
	error = anon_vma_clone(vma, pvma);
	if (error)
		return error;
	if (vma->anon_vma)
		return 0;		/* reused one */

	anon_vma = anon_vma_alloc();
	if (!anon_vma)
		goto out_error;
	anon_vma->num_active_vmas++;
	avc = anon_vma_chain_alloc();
	if (!avc)
		goto out_error_free_anon_vma;
	/* The root's rwsem is the one every anon_vma of the family uses. */
	anon_vma->root = pvma->anon_vma->root;
	anon_vma->parent = pvma->anon_vma;
	/* The lock lives in the root: pin it for as long as this one lives. */
	get_anon_vma(anon_vma->root);
	/* Where the child's new (COWed) folios go. */
	vma->anon_vma = anon_vma;
	anon_vma_lock_write(anon_vma);
	anon_vma_chain_link(vma, avc, anon_vma);
	anon_vma->parent->num_children++;
	anon_vma_unlock_write(anon_vma);
	return 0;

out_error_free_anon_vma:
	put_anon_vma(anon_vma);
out_error:
	unlink_anon_vmas(vma);
	return -ENOMEM;
}

void unlink_anon_vmas(struct vm_area_struct *vma)
{
	struct anon_vma_chain *avc, *next;
	struct anon_vma *root = NULL;

	/* Newest to oldest, so the root is freed last. */
	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = avc->anon_vma;

		root = lock_anon_vma_root(root, anon_vma);
		anon_vma_interval_tree_remove(avc, &anon_vma->rb_root);
		/* Keep empty anon_vmas on the list: they are freed outside the lock. */
		if (RB_EMPTY_ROOT(&anon_vma->rb_root)) {
			anon_vma->parent->num_children--;
			continue;
		}
		list_del(&avc->same_vma);
		anon_vma_chain_free(avc);
	}
	if (vma->anon_vma) {
		vma->anon_vma->num_active_vmas--;
		/* An anonymous VMA that lives on would prepare a new one on its next fault. */
		if (!vma->vm_file)
			vma->anon_vma = NULL;
	}
	unlock_anon_vma_root(root);

	/*
	 * Only empty, unlinked anon_vmas are left on the list; __put_anon_vma()
	 * takes the root's rwsem, so they are freed here, after unlocking.
	 */
	list_for_each_entry_safe(avc, next, &vma->anon_vma_chain, same_vma) {
		struct anon_vma *anon_vma = avc->anon_vma;

		VM_WARN_ON_ONCE(anon_vma->num_children);
		VM_WARN_ON_ONCE(anon_vma->num_active_vmas);
		put_anon_vma(anon_vma);
		list_del(&avc->same_vma);
		anon_vma_chain_free(avc);
	}
}

struct anon_vma *folio_get_anon_vma(const struct folio *folio)
{
	struct anon_vma *anon_vma = NULL;
	unsigned long anon_mapping;

	rcu_read_lock();
	anon_mapping = (unsigned long)READ_ONCE(folio->mapping);
	if ((anon_mapping & FOLIO_MAPPING_FLAGS) != FOLIO_MAPPING_ANON)
		goto out;
	if (!folio_mapped(folio))
		goto out;
	anon_vma = (struct anon_vma *)(anon_mapping - FOLIO_MAPPING_ANON);
	if (!atomic_add_unless(&anon_vma->refcount, 1, 0)) {
		anon_vma = NULL;
		goto out;
	}
	/*
	 * Still mapped: the anon_vma cannot have been freed.  Unmapped
	 * meanwhile: it may have been, and reused; give the pin back.
	 */
	if (!folio_mapped(folio)) {
		rcu_read_unlock();
		put_anon_vma(anon_vma);
		return NULL;
	}
out:
	rcu_read_unlock();
	return anon_vma;
}
