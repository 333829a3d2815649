// SPDX-License-Identifier: GPL-2.0
/*
 * Zone statistics: thresholds and the exact read (include/linux/vmstat.h).
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/vmstat.h>

atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];

/*
 * The kernel's calculate_normal_threshold(): grows with the log of the CPU
 * count and of the zone's size in 128 MiB units, capped at 125 so that it
 * fits the s8 difference.
 */
static int calculate_normal_threshold(struct zone *zone)
{
	unsigned long mem = zone->managed_pages >> (27 - PAGE_SHIFT);
	int threshold = 2 * fls((unsigned int)num_online_cpus()) * (1 + fls((unsigned int)mem));

	return min(threshold, 125);
}

void refresh_zone_stat_thresholds(struct zone *zone)
{
	int threshold = calculate_normal_threshold(zone);

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		zone->per_cpu_zonestats[cpu].stat_threshold = (s8)threshold;
}

unsigned long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item)
{
	long x = atomic_long_read(&zone->vm_stat[item]);

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		x += READ_ONCE(zone->per_cpu_zonestats[cpu].vm_stat_diff[item]);
	return x < 0 ? 0 : (unsigned long)x;
}
