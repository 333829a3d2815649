// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread event counts of the page_ref and filemap paths, the model's
 * stand-in for the kernel's page_ref tracepoints.  Only event builds
 * (CONFIG_PAGEREF_EVENTS) have them; timed builds count nothing.
 */
#include <linux/page_ref.h>
#include <linux/pagemap.h>

#ifdef CONFIG_PAGEREF_EVENTS
__thread unsigned long page_ref_events[NR_PAGE_REF_EVENTS];
__thread unsigned long filemap_events[NR_FILEMAP_EVENTS];
#endif
