// SPDX-License-Identifier: GPL-2.0
/*
 * Reporting for VM_WARN_ON / VM_BUG_ON (include/linux/mmdebug.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/mm.h>

unsigned long vm_warn_count;
bool vm_warn_quiet;

static void dump_page(const struct page *page)
{
	if (!page || !mem_map || page < mem_map || page >= mem_map + max_pfn) {
		if (page)
			fprintf(stderr, "  page %p (outside memmap)\n", (const void *)page);
		return;
	}
	fprintf(stderr, "  page pfn %lu flags %#lx refcount %#x mapcount %d mapping %p index %lu\n",
		page_to_pfn(page), page->flags,
		(unsigned int)__atomic_load_n(&page->_refcount.counter, __ATOMIC_RELAXED),
		__atomic_load_n(&page->_mapcount.counter, __ATOMIC_RELAXED),
		(void *)page->mapping, page->index);
}

void __vm_warn(const char *cond, const char *file, int line, const struct page *page)
{
	__atomic_fetch_add(&vm_warn_count, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&vm_warn_quiet, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "WARNING: %s:%d: %s\n", file, line, cond);
	dump_page(page);
}

void __vm_bug(const char *cond, const char *file, int line, const struct page *page)
{
	fprintf(stderr, "BUG: %s:%d: %s\n", file, line, cond);
	dump_page(page);
	abort();
}
