// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing a folio whose last reference is gone (mm/swap.c).
 */
#include <linux/gfp.h>

void __folio_put(struct folio *folio)
{
	VM_WARN_ON_ONCE_FOLIO(folio->mapping != NULL, folio);
	free_frozen_pages(&folio->page, folio_order(folio));
}
