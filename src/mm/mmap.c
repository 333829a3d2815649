// SPDX-License-Identifier: GPL-2.0
/*
 * Address spaces and their VMAs (mm/mmap.c, with dup_mmap(), and
 * kernel/fork.c's mm_alloc() and dup_mm()).  VMAs sit in an rbtree by
 * address; a file VMA is also in its file's i_mmap tree, an anonymous one
 * in the trees of its anon_vmas once it has any: that is what the rmap
 * walks.  Mapping faults nothing in; unmapping zaps the entries, then
 * unlinks the VMA from the rmap and from the mm.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
#include <linux/rmap.h>
#include "internal.h"

struct mm_struct *mm_alloc(void)
{
	struct mm_struct *mm = calloc(1, sizeof(*mm));

	if (!mm)
		return NULL;
	init_rwsem(&mm->mmap_lock);
	mm->mm_rb = RB_ROOT;
	if (percpu_counter_init_many(mm->rss_stat, 0, NR_MM_COUNTERS)) {
		destroy_rwsem(&mm->mmap_lock);
		free(mm);
		return NULL;
	}
	if (pgtable_init_mm(mm)) {
		percpu_counter_destroy_many(mm->rss_stat, NR_MM_COUNTERS);
		destroy_rwsem(&mm->mmap_lock);
		free(mm);
		return NULL;
	}
	return mm;
}

struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr)
{
	struct rb_node *node = mm->mm_rb.rb_node;
	struct vm_area_struct *found = NULL;

	while (node) {
		struct vm_area_struct *vma = rb_entry(node, struct vm_area_struct, vm_rb);

		if (vma->vm_end > addr) {
			found = vma;
			if (vma->vm_start <= addr)
				break;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

/* Link @vma into @mm's tree; -EEXIST if it overlaps a VMA there. */
static int vma_link_mm(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct rb_node **link = &mm->mm_rb.rb_node, *parent = NULL;

	while (*link) {
		struct vm_area_struct *cur = rb_entry(*link, struct vm_area_struct, vm_rb);

		parent = *link;
		if (vma->vm_end <= cur->vm_start)
			link = &parent->rb_left;
		else if (vma->vm_start >= cur->vm_end)
			link = &parent->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&vma->vm_rb, parent, link);
	rb_insert_color(&vma->vm_rb, &mm->mm_rb);
	mm->map_count++;
	return 0;
}

unsigned long do_mmap(struct mm_struct *mm, struct file *file, unsigned long addr,
		      unsigned long len, unsigned long vm_flags, pgoff_t pgoff)
{
	struct address_space *mapping;
	struct vm_area_struct *vma;
	int err;

	if (!len || (addr | len) & ~PAGE_MASK || addr + len < addr)
		return (unsigned long)-EINVAL;
	if (!file && (vm_flags & VM_SHARED))
		return (unsigned long)-EINVAL;	/* shared anonymous memory is shmem: not modelled */
	vma = calloc(1, sizeof(*vma));
	if (!vma)
		return (unsigned long)-ENOMEM;
	INIT_LIST_HEAD(&vma->anon_vma_chain);
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_mm = mm;
	vma->vm_flags = vm_flags | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if (vm_flags & VM_SHARED)
		vma->vm_flags |= VM_MAYSHARE;
	/* Writes to a private mapping would go to anonymous copies: map it read-only. */
	vma->vm_page_prot = (vm_flags & (VM_WRITE | VM_SHARED)) == (VM_WRITE | VM_SHARED) ?
			    PAGE_SHARED : PAGE_READONLY;
	/* An anonymous VMA's offsets are its addresses' page numbers. */
	vma->vm_pgoff = file ? pgoff : addr >> PAGE_SHIFT;
	vma->vm_file = file;
	mapping = file ? file->f_mapping : NULL;

	mmap_write_lock(mm);
	err = vma_link_mm(mm, vma);
	if (!err && mapping) {
		i_mmap_lock_write(mapping);
		vma_interval_tree_insert(vma, &mapping->i_mmap);
		i_mmap_unlock_write(mapping);
	}
	mmap_write_unlock(mm);
	if (err) {
		free(vma);
		return (unsigned long)(long)err;
	}
	return addr;
}

/*
 * Zap, then unlink from the rmap (free_pgtables()' unlink_anon_vmas() and
 * unlink_file_vma()): after that no rmap walk can find the VMA.
 */
static void remove_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
	unmap_vma_range(vma, vma->vm_start, vma->vm_end);
	unlink_anon_vmas(vma);
	if (vma->vm_file) {
		struct address_space *mapping = vma->vm_file->f_mapping;

		i_mmap_lock_write(mapping);
		vma_interval_tree_remove(vma, &mapping->i_mmap);
		i_mmap_unlock_write(mapping);
	}
	rb_erase(&vma->vm_rb, &mm->mm_rb);
	mm->map_count--;
	free(vma);
}

int do_munmap(struct mm_struct *mm, unsigned long start, unsigned long len)
{
	struct vm_area_struct *vma;

	mmap_write_lock(mm);
	vma = vma_lookup(mm, start);
	if (!vma || vma->vm_start != start || vma->vm_end != start + len) {
		mmap_write_unlock(mm);
		return -EINVAL;
	}
	remove_vma(mm, vma);
	mmap_write_unlock(mm);
	return 0;
}

void mmput(struct mm_struct *mm)
{
	struct rb_node *node;
	unsigned long mapped;

	mmap_write_lock(mm);
	while ((node = rb_first(&mm->mm_rb)))
		remove_vma(mm, rb_entry(node, struct vm_area_struct, vm_rb));
	mmap_write_unlock(mm);
	mapped = pgtable_teardown(mm);
	VM_WARN_ON_ONCE(mapped);
	mmu_notifier_subscriptions_destroy(mm);
	tlb_forget_mm(mm);
	percpu_counter_destroy_many(mm->rss_stat, NR_MM_COUNTERS);
	destroy_rwsem(&mm->mmap_lock);
	free(mm);
}

/* --- fork ------------------------------------------------------------------------------- */

/* A copy of @orig for another mm: not linked anywhere, no anon_vma chains yet. */
static struct vm_area_struct *vm_area_dup(struct vm_area_struct *orig)
{
	struct vm_area_struct *new = malloc(sizeof(*new));

	if (!new)
		return NULL;
	memcpy(new, orig, sizeof(*new));
	INIT_LIST_HEAD(&new->anon_vma_chain);
	RB_CLEAR_NODE(&new->vm_rb);
	RB_CLEAR_NODE(&new->shared.rb);
	return new;
}

/*
 * Copy every VMA of @oldmm into @mm, which is new and empty, with both
 * mmap_locks held for writing.  A VMA the copy failed on stays linked in
 * @mm for the caller's mmput() to tear down, as in the kernel.
 */
int dup_mmap(struct mm_struct *mm, struct mm_struct *oldmm)
{
	struct rb_node *node;
	int retval = 0;

	mmap_write_lock(oldmm);
	mmap_write_lock(mm);
	for (node = rb_first(&oldmm->mm_rb); node; node = rb_next(node)) {
		struct vm_area_struct *mpnt = rb_entry(node, struct vm_area_struct, vm_rb);
		struct vm_area_struct *tmp = vm_area_dup(mpnt);

		if (!tmp) {
			retval = -ENOMEM;
			break;
		}
		tmp->vm_mm = mm;
		retval = anon_vma_fork(tmp, mpnt);
		if (retval) {
			free(tmp);
			break;
		}
		if (tmp->vm_file) {
			struct address_space *mapping = tmp->vm_file->f_mapping;

			/*
			 * The kernel inserts the child's VMA right after the
			 * parent's (vma_interval_tree_insert_after()); the
			 * model inserts it after every VMA of equal offset.
			 */
			i_mmap_lock_write(mapping);
			vma_interval_tree_insert(tmp, &mapping->i_mmap);
			i_mmap_unlock_write(mapping);
		}
		vma_link_mm(mm, tmp);
		retval = copy_page_range(tmp, mpnt);
		if (retval)
			break;
	}
	mmap_write_unlock(mm);
	/* The parent's entries were write-protected: no TLB may keep them writable. */
	flush_tlb_mm(oldmm);
	mmap_write_unlock(oldmm);
	return retval;
}

/*
 * __split_vma(): @vma becomes [vm_start, @addr) and a new VMA in the same
 * anon_vmas maps [@addr, vm_end), the same pages at the same offsets (what
 * mprotect() or munmap() of part of a VMA leaves).  The caller holds the
 * mmap_lock for writing.  0, -EINVAL or -ENOMEM.
 */
int split_vma(struct mm_struct *mm, struct vm_area_struct *vma, unsigned long addr)
{
	struct vm_area_struct *new;
	struct anon_vma_chain *avc;

	if (addr <= vma->vm_start || addr >= vma->vm_end || addr & ~PAGE_MASK || vma->vm_file)
		return -EINVAL;
	new = vm_area_dup(vma);
	if (!new)
		return -ENOMEM;
	new->vm_start = addr;
	new->vm_pgoff += (addr - vma->vm_start) >> PAGE_SHIFT;
	if (anon_vma_clone(new, vma)) {
		free(new);
		return -ENOMEM;
	}
	/* vma_prepare()/vma_complete(): re-key @vma's chains under the anon_vma lock. */
	if (vma->anon_vma) {
		anon_vma_lock_write(vma->anon_vma);
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
			anon_vma_interval_tree_remove(avc, &avc->anon_vma->rb_root);
		vma->vm_end = addr;
		list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)
			anon_vma_interval_tree_insert(avc, &avc->anon_vma->rb_root);
		anon_vma_unlock_write(vma->anon_vma);
	} else {
		vma->vm_end = addr;
	}
	vma_link_mm(mm, new);
	return 0;
}

struct mm_struct *dup_mm(struct mm_struct *oldmm)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm)
		return NULL;
	if (dup_mmap(mm, oldmm)) {
		mmput(mm);
		return NULL;
	}
	WRITE_ONCE(mm->hiwater_rss, get_mm_rss(mm));
	return mm;
}
