// SPDX-License-Identifier: GPL-2.0
/*
 * Optional per-page data kept outside struct page (mm/page_ext.c), sized
 * at boot.  Design mgt-counter (CONFIG_MGT_COUNTER) keeps the
 * number of migration entries naming each folio, at its head page; the
 * debug builds (CONFIG_DEBUG_VM) the number of deferred TLB flush batches
 * that still name each page (the flush-before-free check, pgtable.h).
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/migrate.h>
#include <linux/pgtable.h>

#ifdef CONFIG_DEBUG_VM
static unsigned int *tlb_flush_pending;

unsigned int *page_ext_tlb_flush_pending(unsigned long pfn)
{
	return &tlb_flush_pending[pfn];
}

static int page_ext_debug_init(unsigned long nr_pages)
{
	free(tlb_flush_pending);
	tlb_flush_pending = calloc(nr_pages, sizeof(*tlb_flush_pending));
	return tlb_flush_pending ? 0 : -ENOMEM;
}

static void page_ext_debug_exit(void)
{
	free(tlb_flush_pending);
	tlb_flush_pending = NULL;
}
#else
static int page_ext_debug_init(unsigned long nr_pages)
{
	(void)nr_pages;
	return 0;
}

static void page_ext_debug_exit(void)
{
}
#endif

#ifdef CONFIG_MGT_COUNTER
static atomic_t *migration_entries;

atomic_t *folio_migration_entries(const struct folio *folio)
{
	return &migration_entries[folio_pfn(folio)];
}

static int page_ext_design_init(unsigned long nr_pages)
{
	free(migration_entries);
	migration_entries = calloc(nr_pages, sizeof(*migration_entries));
	return migration_entries ? 0 : -ENOMEM;
}

static void page_ext_design_exit(void)
{
	free(migration_entries);
	migration_entries = NULL;
}
#else
static int page_ext_design_init(unsigned long nr_pages)
{
	(void)nr_pages;
	return 0;
}

static void page_ext_design_exit(void)
{
}
#endif

int page_ext_init(unsigned long nr_pages)
{
	if (page_ext_debug_init(nr_pages))
		return -ENOMEM;
	if (page_ext_design_init(nr_pages)) {
		page_ext_debug_exit();
		return -ENOMEM;
	}
	return 0;
}

void page_ext_exit(void)
{
	page_ext_design_exit();
	page_ext_debug_exit();
}
