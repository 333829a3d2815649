// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated physical memory: the arena the pages' contents live in and
 * the memmap of struct page describing it (the kernel's mm_init.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/pgtable.h>
#include <linux/swap.h>
#include <linux/vmstat.h>
#include <machine/machine.h>

struct page *mem_map;
unsigned long max_pfn;
char *mem_arena;

static void init_single_page(struct page *page)
{
	memset(page, 0, sizeof(*page));
	atomic_set(&page->_mapcount, -1);
	set_page_count_frozen(page);
	INIT_LIST_HEAD(&page->lru);
}

/*
 * Boot with @bytes of memory, rounded down to whole MAX_PAGE_ORDER blocks.
 * Returns 0, -EINVAL for less than one such block, -ENOMEM if the host
 * cannot provide it.
 */
int mem_init(unsigned long long bytes)
{
	unsigned long nr_pages = (unsigned long)(bytes >> PAGE_SHIFT);
	void *memmap;

	nr_pages = ALIGN_DOWN(nr_pages, MAX_ORDER_NR_PAGES);
	if (!nr_pages)
		return -EINVAL;
	if (mem_map)
		mem_exit();

	/* The last sample's arena if it has this size: its pages already backed. */
	mem_arena = machine_arena_get(nr_pages << PAGE_SHIFT);
	if (!mem_arena)
		return -ENOMEM;
	if (posix_memalign(&memmap, SMP_CACHE_BYTES, nr_pages * sizeof(struct page))) {
		machine_arena_put(mem_arena, nr_pages << PAGE_SHIFT);
		mem_arena = NULL;
		return -ENOMEM;
	}
	if (page_ext_init(nr_pages)) {
		free(memmap);
		machine_arena_put(mem_arena, nr_pages << PAGE_SHIFT);
		mem_arena = NULL;
		return -ENOMEM;
	}
	mem_map = memmap;
	max_pfn = nr_pages;
	mem_frames_announce();
	for (unsigned long pfn = 0; pfn < nr_pages; pfn++)
		init_single_page(pfn_to_page(pfn));
	page_alloc_init(0, nr_pages);
	lruvec_init(&node_lruvec);
	lru_batches_init();
	reset_vm_events();	/* a fresh machine has counted nothing */
	return 0;
}

void mem_exit(void)
{
	if (!mem_map)
		return;
	machine_arena_put(mem_arena, max_pfn << PAGE_SHIFT);
	page_alloc_exit();
	page_ext_exit();
	free(mem_map);
	mem_map = NULL;
	mem_arena = NULL;
	max_pfn = 0;
	mem_frames_announce();
}
