// SPDX-License-Identifier: GPL-2.0
/*
 * The refcount-scale workload, inside the kernel build: a file in the page
 * cache and the read loop of the seed's will-it-scale test,
 *
 *	while (!stop)
 *		pread(fd, buf, read_size, offset);
 *
 * with pread() being the model's shmem_file_read() (the seed's file is on
 * tmpfs) or filemap_read() (--read-path).  Each read is compared with
 * the file's bytes, as a program using the data would look at it.  The rest
 * of the system call (entry and exit, fdget, iov_iter, atime) is not
 * modelled; --syscall-ns stands in for it with a calibrated busy loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <mmlab/random.h>
#include <mmlab/uncharged.h>
#include <linux/delay.h>
#include <linux/uaccess.h>
#include <mmlab/workloads/refcount_scale.h>
#include "workloads.h"

struct rs_state {
	struct address_space mapping;
	unsigned char *contents;	/* what the file holds: the backing store */
	struct rs_params p;
};

static int rs_add_page(struct rs_state *s, pgoff_t index)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);

	if (!folio)
		return -1;
	if (filemap_add_folio(&s->mapping, folio, index, GFP_KERNEL)) {
		folio_put(folio);
		return -1;
	}
	/* As read_folio() would: fill, mark uptodate, unlock. */
	memcpy(folio_address(folio), s->contents + (index << PAGE_SHIFT), PAGE_SIZE);
	folio_mark_uptodate(folio);
	folio_unlock(folio);
	folio_put(folio);	/* the page cache's reference remains */
	return 0;
}

static void rs_free(struct rs_state *s)
{
	address_space_destroy(&s->mapping);
	free(s->contents);
	free(s);
}

static void *refcount_scale_setup(const void *params)
{
	const struct rs_params *p = params;
	struct rs_state *s = calloc(1, sizeof(*s));
	size_t size = (size_t)p->nr_pages << PAGE_SHIFT;
	uint64_t x = p->seed;

	if (!s)
		return NULL;
	s->p = *p;
	s->contents = malloc(size);
	if (!s->contents) {
		free(s);
		return NULL;
	}
	for (size_t i = 0; i < size; i += sizeof(uint64_t)) {
		uint64_t v = splitmix64_next(&x);

		memcpy(s->contents + i, &v, sizeof(v));
	}
	address_space_init(&s->mapping);
	s->mapping.i_size = (loff_t)size;
	for (int i = 0; i < p->nr_pages; i++) {
		if (rs_add_page(s, (pgoff_t)i)) {
			truncate_inode_pages(&s->mapping);
			lru_add_drain();
			rs_free(s);
			return NULL;
		}
	}
	/* The file was cached long before the run: its folios are on the LRU. */
	lru_add_drain();
	copy_user_loops = p->copy_loops;
	return s;
}

/*
 * The measured loop: nothing in it but the read and the use of its data.
 * Inlined once per read path with @read a constant, so each copy makes a
 * direct call and the path is chosen once per thread, outside the loop.
 */
typedef ssize_t (*rs_read_fn)(struct file *file, loff_t pos, size_t count, char *buf);

static __attribute__((always_inline)) inline void
rs_loop(struct rs_state *s, struct rs_thread *t, const int *stop, rs_read_fn read)
{
	struct file file = { .f_mapping = &s->mapping };
	const size_t size = (size_t)s->p.read_size;
	const loff_t pos = (loff_t)(t->tid % s->p.nr_pages) << PAGE_SHIFT;
	const unsigned char *expect = s->contents + pos;
	const unsigned long syscall_loops = s->p.syscall_loops - s->p.jitter_loops;
	const unsigned long jitter_span = 2 * s->p.jitter_loops + 1;
	uint64_t rnd = s->p.seed ^ ((uint64_t)t->tid << 32);
	unsigned long ops = 0, mismatches = 0;
	char buf[PAGE_SIZE];

	file_ra_state_init(&file.f_ra);
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		ssize_t n = read(&file, pos, size, buf);

		if (unlikely(n != (ssize_t)size || memcmp(buf, expect, size)))
			mismatches++;
		ops++;
		/* The rest of pread(2), never the same twice (identical threads would lock step). */
		__delay(syscall_loops + splitmix64_next(&rnd) % jitter_span);
	}
	t->ops = ops;
	t->mismatches = mismatches;
}

/* The runner's copy of a reader's results lives in its heap: moved uncharged. */
static __lab_uncharged void rs_thread_move(struct rs_thread *to, const struct rs_thread *from)
{
	*to = *from;
}

static void refcount_scale_worker(void *state, void *thread, const int *stop)
{
	struct rs_state *s = state;
	struct rs_thread *out = thread;
	struct rs_thread t;

	rs_thread_move(&t, out);
	if (s->p.read_path == RS_READ_TMPFS)
		rs_loop(s, &t, stop, shmem_file_read);
	else
		rs_loop(s, &t, stop, filemap_read);
	rs_thread_move(out, &t);
}

static int refcount_scale_teardown(void *state, char *msg, size_t len)
{
	struct rs_state *s = state;
	int ret = 0;

	copy_user_loops = 0;
	truncate_inode_pages(&s->mapping);
	if (s->mapping.nrpages) {
		snprintf(msg, len, "%lu pages still in the page cache after truncate",
			 s->mapping.nrpages);
		ret = -1;
	}
	rs_free(s);
	return ret;
}

MM_WORKLOAD(refcount_scale, .setup = refcount_scale_setup, .worker = refcount_scale_worker,
	    .teardown = refcount_scale_teardown, .params_size = sizeof(struct rs_params));
