/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vm event counters and zone statistics (mm/vmstat.c).
 *
 * Events: one array of counts per CPU, bumped by
 * the CPU that saw the event without a locked instruction, and summed over
 * all CPUs only by whoever reads them.
 */
#ifndef _LINUX_VMSTAT_H
#define _LINUX_VMSTAT_H

#include <linux/compiler.h>
#include <linux/smp.h>
#include <linux/vm_event_item.h>

struct vm_event_state {
	unsigned long event[NR_VM_EVENT_ITEMS];
} __cacheline_aligned;

extern struct vm_event_state vm_event_states[NR_CPUS];

/* The names /proc/vmstat gives the items, in item order. */
extern const char *const vmstat_text[NR_VM_EVENT_ITEMS];
#ifdef MMLAB_VT
extern const char *const vmtime_text[NR_VM_TIME_ITEMS];
#endif

/*
 * this_cpu_add(): the kernel's is one instruction that preemption cannot
 * split.  Here it is a single-copy-atomic load and store of this CPU's
 * slot: never torn, never locked.  A test's main thread shares CPU 0 with
 * its first worker, and the two may then lose an update, never tear one.
 */
static inline void __count_vm_events(enum vm_event_item item, long delta)
{
	unsigned long *counter = &vm_event_states[smp_processor_id()].event[item];

	WRITE_ONCE(*counter, READ_ONCE(*counter) + delta);
}

static inline void __count_vm_event(enum vm_event_item item)
{
	__count_vm_events(item, 1);
}

/* The model has no preemption to disable: the same as the __ versions. */
static inline void count_vm_events(enum vm_event_item item, long delta)
{
	__count_vm_events(item, delta);
}

static inline void count_vm_event(enum vm_event_item item)
{
	__count_vm_events(item, 1);
}

/* Every item summed over all CPUs into @ret[NR_VM_EVENT_ITEMS]. */
void all_vm_events(unsigned long *ret);

/* Zero every CPU's counts: a machine boot, or the start of a measurement. */
void reset_vm_events(void);

/*
 * The model's instrumentation (CONFIG_DEBUG_VM_EVENTS items).  Without it
 * the item and the delta are not even evaluated, so a timed build carries
 * no trace of the counting.
 */
#ifdef CONFIG_DEBUG_VM_EVENTS
#define count_debug_vm_event(x)		count_vm_event(x)
#define count_debug_vm_events(x, y)	count_vm_events(x, y)
#else
#define count_debug_vm_event(x)		do { } while (0)
#define count_debug_vm_events(x, y)	do { } while (0)
#endif

/*
 * Zone statistics.  An update adds to this CPU's difference and folds it
 * into the zone's atomic (and the global one) only when it passes the CPU's
 * threshold, so most updates are a plain add to a per-CPU byte: no locked
 * instruction, as in the kernel.  Callers keep the CPU's difference to
 * themselves (zone->lock for NR_FREE_PAGES; the kernel has interrupts off
 * there too).  Out of line, as the kernel's are (mm/vmstat.c).  The items
 * are here rather than in mmzone.h so that headers mm.h pulls in can use
 * this file without a loop.
 */
enum zone_stat_item {
	NR_FREE_PAGES,		/* buddy pages, isolated pageblocks excluded */
	NR_FREE_PAGES_BLOCKS,	/* ... of them in blocks of at least pageblock_order */
	NR_VM_ZONE_STAT_ITEMS
};

struct zone;

void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta);

/* The folded value: cheap, and behind by up to a threshold per CPU. */
unsigned long zone_page_state(struct zone *zone, enum zone_stat_item item);

/* The exact value, with every CPU's difference added (for checkers and reports). */
unsigned long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item);

/* Per-CPU thresholds from the zone's size and the online CPUs (at boot). */
void refresh_zone_stat_thresholds(struct zone *zone);

/* Zero the global counts (a machine boot). */
void reset_vm_zone_stat(void);

/*
 * Node statistics, the same way per node (struct pglist_data).  The
 * callers the model has hold a per-mapping lock (xa_lock), not one lock
 * for the node: a test's main thread and its first worker share CPU 0, so
 * two of them may race on one CPU's difference and lose an update, as the
 * vm events may; nothing checks these counts exactly.
 */
enum node_stat_item {
	NR_FILE_PAGES,		/* page-cache pages */
	NR_FILE_MAPPED,		/* pages of file folios mapped at least once */
	NR_ANON_MAPPED,		/* pages of anonymous folios mapped at least once */
	NR_VM_NODE_STAT_ITEMS
};

struct pglist_data;

void __mod_node_page_state(struct pglist_data *pgdat, enum node_stat_item item, long delta);
unsigned long node_page_state(struct pglist_data *pgdat, enum node_stat_item item);
unsigned long node_page_state_snapshot(struct pglist_data *pgdat, enum node_stat_item item);
void node_stats_init(struct pglist_data *pgdat, int threshold);

/*
 * Fold @cpu's differences of every zone and node into the global counts
 * (the kernel does it when a CPU goes offline).  The caller makes sure
 * @cpu is not running: the interleaving checker's scenarios fold before
 * every execution, so that each starts from the same state.
 */
void cpu_vm_stats_fold(int cpu);

#endif /* _LINUX_VMSTAT_H */
