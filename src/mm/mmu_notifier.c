// SPDX-License-Identifier: GPL-2.0
/*
 * MMU notifier subscriptions (mm/mmu_notifier.c), without SRCU: the model
 * registers and unregisters only while no walk runs on the mm.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/mmu_notifier.h>

int mmu_notifier_register(struct mmu_notifier *sub, struct mm_struct *mm)
{
	struct mmu_notifier_subscriptions *subs = mm->notifier_subscriptions;

	if (!subs) {
		subs = calloc(1, sizeof(*subs));
		if (!subs)
			return -ENOMEM;
		INIT_LIST_HEAD(&subs->list);
		spin_lock_init(&subs->lock);
		WRITE_ONCE(mm->notifier_subscriptions, subs);
	}
	sub->mm = mm;
	spin_lock(&subs->lock);
	list_add_tail(&sub->list, &subs->list);
	spin_unlock(&subs->lock);
	return 0;
}

void mmu_notifier_unregister(struct mmu_notifier *sub, struct mm_struct *mm)
{
	struct mmu_notifier_subscriptions *subs = mm->notifier_subscriptions;

	spin_lock(&subs->lock);
	list_del(&sub->list);
	spin_unlock(&subs->lock);
}

void mmu_notifier_subscriptions_destroy(struct mm_struct *mm)
{
	free(mm->notifier_subscriptions);
	mm->notifier_subscriptions = NULL;
}

int __mmu_notifier_clear_flush_young(struct mm_struct *mm, unsigned long start,
				     unsigned long end)
{
	struct mmu_notifier_subscriptions *subs = mm->notifier_subscriptions;
	struct mmu_notifier *sub;
	int young = 0;

	spin_lock(&subs->lock);
	list_for_each_entry(sub, &subs->list, list)
		if (sub->ops->clear_flush_young)
			young |= sub->ops->clear_flush_young(sub, mm, start, end);
	spin_unlock(&subs->lock);
	return young;
}

void __mmu_notifier_invalidate_range_start(struct mmu_notifier_range *range)
{
	struct mmu_notifier_subscriptions *subs = range->mm->notifier_subscriptions;
	struct mmu_notifier *sub;

	spin_lock(&subs->lock);
	list_for_each_entry(sub, &subs->list, list)
		if (sub->ops->invalidate_range_start)
			sub->ops->invalidate_range_start(sub, range);
	spin_unlock(&subs->lock);
}

void __mmu_notifier_invalidate_range_end(struct mmu_notifier_range *range)
{
	struct mmu_notifier_subscriptions *subs = range->mm->notifier_subscriptions;
	struct mmu_notifier *sub;

	spin_lock(&subs->lock);
	list_for_each_entry(sub, &subs->list, list)
		if (sub->ops->invalidate_range_end)
			sub->ops->invalidate_range_end(sub, range);
	spin_unlock(&subs->lock);
}
