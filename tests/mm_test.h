/*
 * Helpers shared by the tests of the model's mm.
 */
#ifndef MMLAB_MM_TEST_H
#define MMLAB_MM_TEST_H

#include <linux/mmzone.h>

#include "tap.h"

/* Free pages wherever they sit: in the buddy or on some CPU's pcp list. */
static inline unsigned long free_pages_all(void)
{
	struct page_alloc_report r;
	char msg[200];

	if (page_alloc_check(&r, msg, sizeof(msg)))
		diag("allocator checker: %s", msg);
	return r.free + r.pcp;
}

#endif
