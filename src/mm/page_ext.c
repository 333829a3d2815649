// SPDX-License-Identifier: GPL-2.0
/*
 * Optional per-page data kept outside struct page (mm/page_ext.c), sized
 * at boot.  Only design mgt-counter (CONFIG_MIGRATE_ENTRY_COUNTER) has any:
 * the number of migration entries naming each folio, at its head page.
 */
#include <errno.h>
#include <stdlib.h>

#include <linux/migrate.h>

#ifdef CONFIG_MIGRATE_ENTRY_COUNTER
static atomic_t *migration_entries;

atomic_t *folio_migration_entries(const struct folio *folio)
{
	return &migration_entries[folio_pfn(folio)];
}

int page_ext_init(unsigned long nr_pages)
{
	free(migration_entries);
	migration_entries = calloc(nr_pages, sizeof(*migration_entries));
	return migration_entries ? 0 : -ENOMEM;
}

void page_ext_exit(void)
{
	free(migration_entries);
	migration_entries = NULL;
}
#else
int page_ext_init(unsigned long nr_pages)
{
	(void)nr_pages;
	return 0;
}

void page_ext_exit(void)
{
}
#endif
