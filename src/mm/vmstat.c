// SPDX-License-Identifier: GPL-2.0
/*
 * vm event counters (the per-CPU arrays and their names) and zone statistics
 * (thresholds and the exact read).
 */
#include <string.h>

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mmzone.h>
#include <linux/vmstat.h>

struct vm_event_state vm_event_states[NR_CPUS];

/* The event part of the kernel's vmstat_text, from the same list as the enum. */
const char *const vmstat_text[NR_VM_EVENT_ITEMS] = {
#define VM_EVENT(item, name)	[item] = name,
#include <linux/vm_event_list.h>
#undef VM_EVENT
};

#ifdef MMLAB_VT
/* The vt flavour's timed spans, named as the event build's items. */
const char *const vmtime_text[NR_VM_TIME_ITEMS] = {
#define VM_TIME(item, name)	[item] = name,
#include <linux/vm_time_list.h>
#undef VM_TIME
};
_Static_assert(NR_VM_TIME_ITEMS <= MACHINE_NR_SPANS, "more timed spans than the machine sums");
#endif

/* The model's possible CPUs: every id the lab has handed out. */
static int nr_possible_cpus(void)
{
	return min(nr_cpu_ids, NR_CPUS);
}

void all_vm_events(unsigned long *ret)
{
	memset(ret, 0, NR_VM_EVENT_ITEMS * sizeof(unsigned long));
	for (int cpu = 0; cpu < nr_possible_cpus(); cpu++) {
		const struct vm_event_state *this = &vm_event_states[cpu];

		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
			ret[i] += READ_ONCE(this->event[i]);
	}
}

void reset_vm_events(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		for (int i = 0; i < NR_VM_EVENT_ITEMS; i++)
			WRITE_ONCE(vm_event_states[cpu].event[i], 0);
}

/* --- zone statistics ---------------------------------------------------------- */

static atomic_long_t vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];

void reset_vm_zone_stat(void)
{
	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++)
		atomic_long_set(&vm_zone_stat[item], 0);
}

static void zone_page_state_add(long x, struct zone *zone, enum zone_stat_item item)
{
	atomic_long_add(x, &zone->vm_stat[item]);
	atomic_long_add(x, &vm_zone_stat[item]);
}

void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
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

unsigned long zone_page_state(struct zone *zone, enum zone_stat_item item)
{
	long x = atomic_long_read(&zone->vm_stat[item]);

	return x < 0 ? 0 : (unsigned long)x;
}

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

/* --- node statistics ---------------------------------------------------------- */

void __mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item, long delta)
{
	struct per_cpu_nodestat *pcp = &pgdat->per_cpu_nodestats[smp_processor_id()];
	long x = delta + READ_ONCE(pcp->vm_node_stat_diff[item]);
	long t = READ_ONCE(pcp->stat_threshold);

	if (unlikely(x > t || x < -t)) {
		atomic_long_add(x, &pgdat->vm_stat[item]);
		x = 0;
	}
	WRITE_ONCE(pcp->vm_node_stat_diff[item], (s8)x);
}

unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item)
{
	long x = atomic_long_read(&pgdat->vm_stat[item]);

	return x < 0 ? 0 : (unsigned long)x;
}

unsigned long node_page_state_snapshot(struct pglist_data *pgdat, enum node_stat_item item)
{
	long x = atomic_long_read(&pgdat->vm_stat[item]);

	for (int cpu = 0; cpu < NR_CPUS; cpu++)
		x += READ_ONCE(pgdat->per_cpu_nodestats[cpu].vm_node_stat_diff[item]);
	return x < 0 ? 0 : (unsigned long)x;
}

/* Zero the node's counts (a boot) and set its threshold: its zones' largest (one zone here). */
void node_stats_init(struct pglist_data *pgdat, int threshold)
{
	for (int item = 0; item < NR_VM_NODE_STAT_ITEMS; item++)
		atomic_long_set(&pgdat->vm_stat[item], 0);
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		for (int item = 0; item < NR_VM_NODE_STAT_ITEMS; item++)
			pgdat->per_cpu_nodestats[cpu].vm_node_stat_diff[item] = 0;
		pgdat->per_cpu_nodestats[cpu].stat_threshold = (s8)threshold;
	}
}

void cpu_vm_stats_fold(int cpu)
{
	for (int nid = 0; nid < nr_online_nodes; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);
		struct zone *zone = &pgdat->node_zones[ZONE_NORMAL];

		for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++) {
			s8 *diff = &zone->per_cpu_zonestats[cpu].vm_stat_diff[item];

			if (*diff)
				zone_page_state_add(*diff, zone, item);
			WRITE_ONCE(*diff, 0);
		}
		for (int item = 0; item < NR_VM_NODE_STAT_ITEMS; item++) {
			s8 *diff = &pgdat->per_cpu_nodestats[cpu].vm_node_stat_diff[item];

			if (*diff)
				atomic_long_add(*diff, &pgdat->vm_stat[item]);
			WRITE_ONCE(*diff, 0);
		}
	}
}
