/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_VMSTAT_H
#define _LINUX_VMSTAT_H

#include <linux/atomic.h>
#include <linux/mmzone.h>
#include <linux/smp.h>

/*
 * Zone statistics (mm/vmstat.c).  An update adds to this CPU's difference
 * and folds it into the zone's atomic (and the global one) only when it
 * passes the CPU's threshold, so most updates are a plain add to a per-CPU
 * byte: no locked instruction, as in the kernel.  Callers keep the CPU's
 * difference to themselves (zone->lock for NR_FREE_PAGES; the kernel has
 * interrupts off there too).
 */
extern atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];

static inline void zone_page_state_add(long x, struct zone *zone, enum zone_stat_item item)
{
	atomic_long_add(x, &zone->vm_stat[item]);
	atomic_long_add(x, &vm_zone_stat[item]);
}

static inline void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	struct per_cpu_zonestat *pzstats = &zone->per_cpu_zonestats[smp_processor_id()];
	long x = delta + pzstats->vm_stat_diff[item];
	long t = pzstats->stat_threshold;

	if (unlikely(x > t || x < -t)) {
		zone_page_state_add(x, zone, item);
		x = 0;
	}
	WRITE_ONCE(pzstats->vm_stat_diff[item], (s8)x);
}

/* The folded value: cheap, and behind by up to a threshold per CPU. */
static inline unsigned long zone_page_state(struct zone *zone, enum zone_stat_item item)
{
	long x = atomic_long_read(&zone->vm_stat[item]);

	return x < 0 ? 0 : (unsigned long)x;
}

/* The exact value, with every CPU's difference added (for checkers and reports). */
unsigned long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item);

/* Per-CPU thresholds from the zone's size and the online CPUs (at boot). */
void refresh_zone_stat_thresholds(struct zone *zone);

#endif /* _LINUX_VMSTAT_H */
