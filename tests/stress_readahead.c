/*
 * Readers sharing files through readahead and the block device, every
 * design, run plain and under ThreadSanitizer: the readseq workload in
 * small.  Each reader opens every file itself and reads it from start to
 * end in 8 KiB records, all readers in the same order, so they race to
 * insert the same windows (-EEXIST), wait on folios another reader's
 * request has in flight, and the device completes requests from every
 * CPU's queue.  Every byte is checked against the file; at the end the
 * device drains, the cache is truncated and every page is back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/blkdev.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/swap.h>
#include <machine/machine.h>

#include "tap.h"

#define NR_FILES	3
#define FILE_PAGES	96
#define NR_READERS	3
#define NR_ROUNDS	4
#define RECORD		8192

static struct address_space mappings[NR_FILES];
static struct backing_file backing[NR_FILES];
static unsigned char contents[NR_FILES][FILE_PAGES * 4096];

struct reader {
	unsigned long records, bad;
};

static int make_file(int f)
{
	char path[] = "/tmp/mmlab-stress-ra-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	unlink(path);
	for (size_t i = 0; i < sizeof(contents[f]); i++)
		contents[f][i] = (unsigned char)((i * 13) ^ (i >> 12) ^ (f * 0x41));
	if (pwrite(fd, contents[f], sizeof(contents[f]), 0) != (ssize_t)sizeof(contents[f])) {
		close(fd);
		return -1;
	}
	return fd;
}

static void reader_main(void *arg)
{
	struct reader *r = arg;
	static __thread char buf[RECORD];

	for (int f = 0; f < NR_FILES; f++) {
		struct file file = { .f_mapping = &mappings[f] };

		file_ra_state_init(&file.f_ra);
		for (loff_t pos = 0; pos < (loff_t)sizeof(contents[f]); pos += RECORD) {
			ssize_t n = filemap_read(&file, pos, RECORD, buf);

			r->records++;
			if (n != RECORD || memcmp(buf, contents[f] + pos, RECORD))
				r->bad++;
		}
	}
}

int main(void)
{
	struct reader readers[NR_READERS];
	void *args[NR_READERS];
	struct page_alloc_report rep;
	struct block_device *bdev;
	unsigned long records = 0, bad = 0;
	char msg[200] = "ok";
	bool started = true, checked = true;

	plan_no_plan();
	machine_init();
	machine_set_nr_cpus(NR_READERS);
	ok(mem_init(16ULL << 20) == 0, "boot 16 MiB of simulated memory");
	bdev = blkdev_create(2000, 0);
	ok(bdev != NULL, "block device with 2 us of latency");
	for (int f = 0; f < NR_FILES; f++) {
		backing[f].fd = make_file(f);
		backing[f].bdev = bdev;
		if (backing[f].fd < 0) {
			ok(0, "make backing file %d", f);
			return done_testing();
		}
	}
	for (int round = 0; round < NR_ROUNDS; round++) {
		struct machine_threads *t;

		for (int f = 0; f < NR_FILES; f++) {
			address_space_init(&mappings[f]);
			mappings[f].i_size = sizeof(contents[f]);
			mappings[f].backing = &backing[f];
		}
		memset(readers, 0, sizeof(readers));
		for (int i = 0; i < NR_READERS; i++)
			args[i] = &readers[i];
		t = machine_threads_start(NR_READERS, reader_main, args);
		if (!t) {
			started = false;
			break;
		}
		machine_threads_join(t);
		for (int i = 0; i < NR_READERS; i++) {
			records += readers[i].records;
			bad += readers[i].bad;
		}
		/* Asynchronous windows past the readers' last record may still be in flight. */
		for (int f = 0; f < NR_FILES; f++) {
			if (checked && filemap_check(&mappings[f], msg, sizeof(msg)))
				checked = false;
			truncate_inode_pages(&mappings[f]);
			address_space_destroy(&mappings[f]);
		}
	}
	ok(started, "%d rounds of %d readers", NR_ROUNDS, NR_READERS);
	diag("%s: %lu records, %lu device requests", MM_KERNEL_NAME, records, blkdev_destroy(bdev));
	is_int(records, (unsigned long)NR_ROUNDS * NR_READERS * NR_FILES * FILE_PAGES * 4096 / RECORD,
	       "every reader read every record of every file");
	is_int(bad, 0, "every record matches its file");
	ok(checked, "page cache invariants held after each round (%s)", msg);
	for (int f = 0; f < NR_FILES; f++)
		close(backing[f].fd);
	lru_add_drain_all();	/* the readers' CPUs are idle now */
	drain_all_pages(&contig_zone);
	ok(page_alloc_check(&rep, msg, sizeof(msg)) == 0, "allocator invariants hold: %s", msg);
	is_int(rep.allocated, 0, "every page is back in the allocator");
	mem_exit();
	return done_testing();
}
