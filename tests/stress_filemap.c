/*
 * Readers against removers on one file's page cache, every design, run
 * plain and under ThreadSanitizer.
 *
 * Readers loop short and page-crossing reads and check every byte they get
 * against the file.  A remover keeps taking folios out of the cache, the
 * way reclaim does (freeze the count, remove, free) and the way truncate
 * does (remove, drop the cache's references), puts fresh copies back, and
 * scribbles over recycled pages so that a reader copying from a freed
 * folio would see the wrong bytes.  Freed pages are also poisoned.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <machine/machine.h>

#include "tap.h"

#define NR_FILE_PAGES	8
#define NR_READERS	3
#define NR_REMOVALS	30000

static struct address_space mapping;
static unsigned char contents[NR_FILE_PAGES * 4096];
static int done, started;

struct reader {
	struct file file;
	unsigned long reads, short_reads, bad_bytes;
	unsigned int seed;
};

struct remover {
	unsigned long reclaimed, reclaim_busy, truncated, readded, scribbled;
};

static unsigned char file_byte(size_t pos)
{
	return (unsigned char)((pos * 7) ^ (pos >> 12) ^ 0x5c);
}

static int add_page(pgoff_t index)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	int err;

	if (!folio)
		return -1;
	err = filemap_add_folio(&mapping, folio, index, GFP_KERNEL);
	if (err) {
		folio_put(folio);
		return err;
	}
	memcpy(folio_address(folio), contents + index * PAGE_SIZE, PAGE_SIZE);
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);
	return 0;
}

static void reader_main(void *arg)
{
	struct reader *r = arg;
	char buf[2 * 4096];

	__atomic_fetch_add(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		size_t len = (rand_r(&r->seed) & 1) ? 64 : 1 + rand_r(&r->seed) % (2 * PAGE_SIZE);
		loff_t pos = rand_r(&r->seed) % (NR_FILE_PAGES * PAGE_SIZE);
		ssize_t n = filemap_read(&r->file, pos, len, buf);

		r->reads++;
		if (n < (ssize_t)min(len, (size_t)(NR_FILE_PAGES * PAGE_SIZE - pos)))
			r->short_reads++;	/* a hole where a folio was removed */
		for (ssize_t i = 0; i < n; i++)
			if ((unsigned char)buf[i] != contents[pos + i])
				r->bad_bytes++;
	}
}

static void scribble_free_pages(struct remover *rm)
{
	struct page *page = alloc_pages(GFP_KERNEL, 0);

	if (!page)
		return;
	memset(page_address(page), 0x3c, PAGE_SIZE);
	__free_pages(page, 0);
	rm->scribbled++;
}

static void remover_main(void *arg)
{
	struct remover *rm = arg;
	unsigned int seed = 42;

	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < NR_READERS)
		machine_sleep(0.001);
	for (int i = 0; i < NR_REMOVALS; i++) {
		pgoff_t index = rand_r(&seed) % NR_FILE_PAGES;
		struct folio *folio = filemap_get_folio(&mapping, index);

		if (!folio) {
			if (!add_page(index))
				rm->readded++;
			continue;
		}
		folio_lock(folio);
		if (i & 1) {
			if (remove_mapping(&mapping, folio)) {
				rm->reclaimed++;	/* our reference went with it */
				folio = NULL;
			} else {
				rm->reclaim_busy++;
			}
		} else {
			filemap_remove_folio(folio);
			rm->truncated++;
		}
		if (folio) {
			folio_unlock(folio);
			folio_put(folio);
		}
		scribble_free_pages(rm);
		if (!add_page(index))
			rm->readded++;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

int main(void)
{
	struct reader readers[NR_READERS] = { 0 };
	struct remover rm = { 0 };
	void *args[NR_READERS];
	struct machine_threads *t;
	struct page_alloc_report rep;
	unsigned long reads = 0, short_reads = 0, bad = 0;
	unsigned long events[NR_VM_EVENT_ITEMS];
	char msg[200] = "ok";

	plan_no_plan();
	machine_init();
	ok(mem_init(16ULL << 20) == 0, "boot 16 MiB of simulated memory");
	page_poisoning_on = true;
	for (size_t i = 0; i < sizeof(contents); i++)
		contents[i] = file_byte(i);
	address_space_init(&mapping);
	mapping.i_size = sizeof(contents);
	for (pgoff_t i = 0; i < NR_FILE_PAGES; i++)
		add_page(i);
	is_int(mapping.nrpages, NR_FILE_PAGES, "the file is in the page cache");

	for (int i = 0; i < NR_READERS; i++) {
		readers[i].seed = 1000 + i;
		readers[i].file.f_mapping = &mapping;
		file_ra_state_init(&readers[i].file.f_ra);
		args[i] = &readers[i];
	}
	t = machine_threads_start_at(1, NR_READERS, reader_main, args);	/* the remover is CPU 0 */
	ok(t != NULL, "start %d readers", NR_READERS);
	remover_main(&rm);
	machine_threads_join(t);
	all_vm_events(events);

	for (int i = 0; i < NR_READERS; i++) {
		reads += readers[i].reads;
		short_reads += readers[i].short_reads;
		bad += readers[i].bad_bytes;
	}
	diag("%s: %lu reads (%lu short), %lu reclaimed, %lu busy, %lu truncated, %lu re-added",
	     MM_KERNEL_NAME, reads, short_reads, rm.reclaimed, rm.reclaim_busy, rm.truncated, rm.readded);
	/* How often the races the read path guards against really happened. */
	diag("lookups retried %lu times (%lu failed folio_try_get), %lu seqcount fallbacks",
	     events[FILEMAP_GET_RETRY], events[PGREF_TRYGET_FAIL], events[FILEMAP_FAST_FALLBACK]);
	ok(reads > 0, "readers ran");
	is_int(bad, 0, "every byte read matches the file");
	ok(rm.reclaimed > 0 && rm.truncated > 0, "both reclaim-style and truncate-style removals happened");
	is_int(vm_warn_count, 0, "no debug check fired");

	ok(filemap_check(&mapping, msg, sizeof(msg)) == 0,
	   "page cache and XArray invariants hold after the race (%s)", msg);
	truncate_inode_pages(&mapping);
	lru_add_drain_all();	/* the readers' CPUs are idle: their batches give back */
	is_int(mapping.nrpages, 0, "truncate empties the page cache");
	address_space_destroy(&mapping);
	ok(page_alloc_check(&rep, msg, sizeof(msg)) == 0, "allocator invariants hold: %s",
	   page_alloc_check(&rep, msg, sizeof(msg)) ? msg : "ok");
	is_int(rep.allocated, 0, "every page is back in the allocator");
	is_int(rep.leaked, 0, "no page was leaked");
	mem_exit();
	return done_testing();
}
