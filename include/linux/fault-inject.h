/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page allocation fault injection (CONFIG_FAIL_PAGE_ALLOC, on in the test
 * flavours, compiled out of timed builds).
 *
 * While fail_page_alloc.after >= 0, that many more allocations succeed,
 * then fail_page_alloc.nr of them fail (every one, if nr is 0), then
 * injection is off again (after = -1).  fail_page_alloc.on_attempt, if set, is called at the start of
 * every allocation attempt, before the free lists are looked at: a test
 * uses it to make something happen "meanwhile" at a precise point (another
 * reader filling an index between a check and an insert).  It is cleared
 * while it runs, so allocations it makes do not call it again.
 */
#ifndef _LINUX_FAULT_INJECT_H
#define _LINUX_FAULT_INJECT_H

#include <stdbool.h>
#include <linux/gfp.h>

#ifdef CONFIG_FAIL_PAGE_ALLOC

struct fail_page_alloc_attr {
	long after;
	long nr;
	void (*on_attempt)(gfp_t gfp, unsigned int order);
};

extern struct fail_page_alloc_attr fail_page_alloc;

bool should_fail_alloc_page(gfp_t gfp, unsigned int order);

#else

static inline bool should_fail_alloc_page(gfp_t gfp, unsigned int order)
{
	return false;
}

#endif

#endif
