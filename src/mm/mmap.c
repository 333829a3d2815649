// SPDX-License-Identifier: GPL-2.0
/*
 * Address spaces and their VMAs (mm/mmap.c, kernel/fork.c's mm_alloc).
 * VMAs sit in an rbtree by address; a file VMA is also in its file's
 * i_mmap tree, which is what the rmap walks.  Mapping faults nothing in;
 * unmapping zaps the entries, then drops the VMA from both trees.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/mmu_notifier.h>
#include <linux/pagemap.h>
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

	if (!file || !len || (addr | len) & ~PAGE_MASK || addr + len < addr)
		return (unsigned long)-EINVAL;
	vma = calloc(1, sizeof(*vma));
	if (!vma)
		return (unsigned long)-ENOMEM;
	vma->vm_start = addr;
	vma->vm_end = addr + len;
	vma->vm_mm = mm;
	vma->vm_flags = vm_flags | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
	if (vm_flags & VM_SHARED)
		vma->vm_flags |= VM_MAYSHARE;
	/* Writes to a private mapping would go to anonymous copies: map it read-only. */
	vma->vm_page_prot = (vm_flags & (VM_WRITE | VM_SHARED)) == (VM_WRITE | VM_SHARED) ?
			    PAGE_SHARED : PAGE_READONLY;
	vma->vm_pgoff = pgoff;
	vma->vm_file = file;
	mapping = file->f_mapping;

	mmap_write_lock(mm);
	err = vma_link_mm(mm, vma);
	if (!err) {
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

/* Zap, then unlink: after the i_mmap removal no rmap walk can find the VMA. */
static void remove_vma(struct mm_struct *mm, struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;

	unmap_vma_range(vma, vma->vm_start, vma->vm_end);
	i_mmap_lock_write(mapping);
	vma_interval_tree_remove(vma, &mapping->i_mmap);
	i_mmap_unlock_write(mapping);
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
	percpu_counter_destroy_many(mm->rss_stat, NR_MM_COUNTERS);
	destroy_rwsem(&mm->mmap_lock);
	free(mm);
}
