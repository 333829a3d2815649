/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MMU notifiers: secondary MMUs (KVM, devices) that mirror an mm's page
 * tables subscribe to hear when entries are cleared or aged.  The model
 * keeps the calls the rmap paths make, with the exact ranges, so a test can
 * subscribe and check what a batch reports.
 */
#ifndef _LINUX_MMU_NOTIFIER_H
#define _LINUX_MMU_NOTIFIER_H

#include <linux/list.h>
#include <linux/pgtable.h>

struct mmu_notifier;

enum mmu_notifier_event {
	MMU_NOTIFY_UNMAP,
	MMU_NOTIFY_CLEAR,
	MMU_NOTIFY_PROTECTION_PAGE,
	MMU_NOTIFY_MIGRATE,
};

struct mmu_notifier_range {
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
	enum mmu_notifier_event event;
};

struct mmu_notifier_ops {
	/* Age [start, end) in the secondary MMU; non-zero if any of it was young. */
	int (*clear_flush_young)(struct mmu_notifier *sub, struct mm_struct *mm,
				 unsigned long start, unsigned long end);
	void (*invalidate_range_start)(struct mmu_notifier *sub,
				       const struct mmu_notifier_range *range);
	void (*invalidate_range_end)(struct mmu_notifier *sub,
				     const struct mmu_notifier_range *range);
};

struct mmu_notifier {
	struct list_head list;
	const struct mmu_notifier_ops *ops;
	struct mm_struct *mm;
};

struct mmu_notifier_subscriptions {
	struct list_head list;
	spinlock_t lock;
};

/* 0 or -ENOMEM.  Call with no rmap walk running on @mm. */
int mmu_notifier_register(struct mmu_notifier *sub, struct mm_struct *mm);
void mmu_notifier_unregister(struct mmu_notifier *sub, struct mm_struct *mm);
/* Free the subscription list (when the mm goes). */
void mmu_notifier_subscriptions_destroy(struct mm_struct *mm);

static inline bool mm_has_notifiers(struct mm_struct *mm)
{
	return unlikely(READ_ONCE(mm->notifier_subscriptions) != NULL);
}

int __mmu_notifier_clear_flush_young(struct mm_struct *mm, unsigned long start,
				     unsigned long end);
void __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range);
void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range);

static inline int mmu_notifier_clear_flush_young(struct mm_struct *mm, unsigned long start,
						 unsigned long end)
{
	if (mm_has_notifiers(mm))
		return __mmu_notifier_clear_flush_young(mm, start, end);
	return 0;
}

static inline void mmu_notifier_range_init(struct mmu_notifier_range *range,
					   enum mmu_notifier_event event, unsigned int flags,
					   struct mm_struct *mm, unsigned long start,
					   unsigned long end)
{
	(void)flags;
	range->mm = mm;
	range->start = start;
	range->end = end;
	range->event = event;
}

static inline void mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range)
{
	if (mm_has_notifiers(range->mm))
		__mmu_notifier_invalidate_range_start(range);
}

static inline void mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range)
{
	if (mm_has_notifiers(range->mm))
		__mmu_notifier_invalidate_range_end(range);
}

#ifndef CONFIG_RMAP_MUTANT_NOTIFY_NR
/*
 * Age @nr entries of one folio in the primary MMU and in every secondary
 * one.  A static inline, as Matthew Wilcox asked in the series' review:
 * each argument is evaluated once and no name leaks in from the caller.
 */
static inline int ptep_clear_flush_young_notify(struct vm_area_struct *vma, unsigned long address,
						pte_t *ptep, unsigned int nr)
{
	int young = clear_flush_young_ptes(vma, address, ptep, nr);

	young |= mmu_notifier_clear_flush_young(vma->vm_mm, address, address + nr * PAGE_SIZE);
	return young;
}
#else
/*
 * Mutant: the series' v3 macro, whose notifier range ends at the caller's
 * `nr`, not at the argument (Liam Howlett's catch).  It compiles wherever
 * the caller happens to have an `nr` in scope, as folio_referenced_one()
 * does, and reports the wrong range wherever that differs from __nr.
 */
#define ptep_clear_flush_young_notify(__vma, __address, __ptep, __nr)		\
({										\
	int __young;								\
	struct vm_area_struct *___vma = __vma;					\
	unsigned long ___address = __address;					\
	unsigned int ___nr = __nr;						\
	__young = clear_flush_young_ptes(___vma, ___address, __ptep, ___nr);	\
	__young |= mmu_notifier_clear_flush_young(___vma->vm_mm, ___address,	\
						  ___address + nr * PAGE_SIZE);	\
	__young;								\
})
#endif

#endif
