/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vm event counters (include/linux/vmstat.h), as /proc/vmstat shows
 * them, each declared on one line of include/linux/vm_event_list.h, which
 * gives the names too.  Items the kernel counts on a path the model runs
 * are counted in every build, as the kernel does with
 * CONFIG_VM_EVENT_COUNTERS.
 *
 * Items under CONFIG_DEBUG_VM_EVENTS are the model's own instrumentation:
 * loop iterations, lost races and timings that explain a result.  Like the
 * kernel's NR_TLB_* items under CONFIG_DEBUG_TLBFLUSH they exist only in
 * the builds that ask for them (the "ev" and debug flavours, see Makefile);
 * in the timed build the item does not exist and counting it is no code.
 */
#ifndef _LINUX_VM_EVENT_ITEM_H
#define _LINUX_VM_EVENT_ITEM_H

enum vm_event_item {
#define VM_EVENT(item, name)	item,
#include <linux/vm_event_list.h>
#undef VM_EVENT
	NR_VM_EVENT_ITEMS
};

#ifdef MMLAB_VT
/* The vt flavour's timed spans: keys of the machine's span clock (linux/rmap.h). */
enum vm_time_item {
#define VM_TIME(item, name)	item,
#include <linux/vm_time_list.h>
#undef VM_TIME
	NR_VM_TIME_ITEMS
};
#endif

#endif /* _LINUX_VM_EVENT_ITEM_H */
