// SPDX-License-Identifier: GPL-2.0
/*
 * The heap of the virtual-time build.
 *
 * The memory hierarchy (vt_cache.c) numbers pages in the order a run first
 * touches them, so where a page lies in the host's address space does not
 * matter; where an object lies *within* its page does: it picks the object's
 * sets.  glibc's malloc() places an object by everything the process
 * allocated before, so the same sample gave different times after different
 * earlier points (issue 23, item 6: merged shards differed from one run).
 *
 * The vt objects' malloc() and friends are renamed to the functions below
 * (Makefile, OCFL_vt).  They place objects as a slab would: size classes with
 * LIFO free lists, carved from 64 MiB chunks that start on a page boundary.
 * vt_alloc_reset(), called each time the simulated machine is sized for a
 * boot, starts from a fresh chunk with empty free lists, so every boot's
 * layout is a function of the calls that boot makes, not of the process's
 * past.  Objects of an earlier boot stay valid until freed.
 *
 * Not thread-safe: the vt build runs its CPUs as coroutines of one thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <machine/vt.h>

#define VT_CHUNK	(64ul << 20)
#define VT_HDR		16		/* malloc()'s alignment, and the header's size */
#define VT_BIG		(256ul << 10)	/* at least this: a mapping of its own */
#define VT_NR_CLASS	64
#define VT_MAGIC	0x76746d61u	/* "vtma" */

struct vt_hdr {
	uint32_t magic;
	uint32_t cls;			/* size class; VT_NR_CLASS + offset: own mapping */
	size_t size;			/* class size, or the mapping's length */
};

struct vt_chunk {
	char *base;
	size_t used;
	long live;
	struct vt_chunk *next;
};

static struct {
	struct vt_chunk *chunks;	/* the newest first: it is carved */
	void *free[VT_NR_CLASS];	/* LIFO, linked through the payload */
} heap;

/* Class sizes: 16-byte steps to 256, then four steps per power of two. */
static size_t class_size(unsigned int c)
{
	size_t base;

	if (c < 16)
		return (size_t)(c + 1) * 16;
	c -= 16;
	base = (size_t)256 << (c / 4);
	return base + base / 4 * (c % 4 + 1);
}

static unsigned int size_class(size_t n)
{
	unsigned int c = 0;

	while (class_size(c) < n)
		c++;
	return c;
}

static struct vt_chunk *chunk_of(const void *p)
{
	for (struct vt_chunk *k = heap.chunks; k; k = k->next)
		if ((const char *)p > k->base && (const char *)p < k->base + VT_CHUNK)
			return k;
	return NULL;
}

static struct vt_chunk *chunk_new(void)
{
	struct vt_chunk *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->base = mmap(NULL, VT_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (k->base == MAP_FAILED) {
		free(k);
		return NULL;
	}
	k->next = heap.chunks;
	heap.chunks = k;
	return k;
}

/* Unmap every chunk no object lives in, but the newest. */
static void chunks_trim(void)
{
	struct vt_chunk **pp = &heap.chunks;

	if (!*pp)
		return;
	pp = &(*pp)->next;
	while (*pp) {
		struct vt_chunk *k = *pp;

		if (k->live) {
			pp = &k->next;
			continue;
		}
		*pp = k->next;
		munmap(k->base, VT_CHUNK);
		free(k);
	}
}

void vt_alloc_reset(void)
{
	struct vt_chunk *k = heap.chunks;

	memset(heap.free, 0, sizeof(heap.free));
	if (k && !k->live) {
		k->used = 0;		/* the same chunk, from its start */
	} else if (k && k->used) {
		if (!chunk_new())
			return;		/* the next carve tries again */
	}
	chunks_trim();
}

/* @n bytes of class @c, the payload aligned to @align (a power of two >= 16). */
static void *carve(unsigned int c, size_t align)
{
	size_t n = class_size(c);
	struct vt_chunk *k = heap.chunks;
	struct vt_hdr *h;
	size_t at;

	for (;;) {
		if (k) {
			at = (k->used + VT_HDR + align - 1) & ~(align - 1);
			if (at + n <= VT_CHUNK)
				break;
		}
		k = chunk_new();
		if (!k)
			return NULL;
	}
	k->used = at + n;
	k->live++;
	h = (struct vt_hdr *)(k->base + at - VT_HDR);
	*h = (struct vt_hdr){ .magic = VT_MAGIC, .cls = c, .size = n };
	return k->base + at;
}

static void *alloc_big(size_t n, size_t align)
{
	size_t off = align > VT_HDR ? align : VT_HDR;
	size_t len = (off + n + 4095) & ~(size_t)4095;
	char *p;
	struct vt_hdr *h;

	if (align > 4096)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	h = (struct vt_hdr *)(p + off - VT_HDR);
	*h = (struct vt_hdr){ .magic = VT_MAGIC, .cls = VT_NR_CLASS + (uint32_t)off, .size = len };
	return p + off;
}

static void *vt_alloc(size_t n, size_t align)
{
	unsigned int c;
	void *p;

	if (n > VT_BIG || (align > VT_HDR && n + align > VT_BIG)) {
		if (n > SIZE_MAX - 2 * 4096)
			return NULL;
		return alloc_big(n, align);
	}
	c = size_class(n ? n : 1);
	if (align <= VT_HDR && heap.free[c]) {
		p = heap.free[c];
		memcpy(&heap.free[c], p, sizeof(void *));
		chunk_of(p)->live++;
		return p;
	}
	return carve(c, align < VT_HDR ? VT_HDR : align);
}

void *vt_malloc(size_t n)
{
	void *p = vt_alloc(n, VT_HDR);

	if (!p)
		errno = ENOMEM;
	return p;
}

void *vt_calloc(size_t nmemb, size_t size)
{
	void *p;

	if (size && nmemb > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = vt_malloc(nmemb * size);
	if (p)
		memset(p, 0, nmemb * size);
	return p;
}

void vt_free(void *p)
{
	struct vt_hdr *h;
	struct vt_chunk *k;

	if (!p)
		return;
	k = chunk_of(p);
	h = (struct vt_hdr *)((char *)p - VT_HDR);
	if (!k) {
		if (h->magic == VT_MAGIC && h->cls >= VT_NR_CLASS) {
			munmap((char *)p - (h->cls - VT_NR_CLASS), h->size);
			return;
		}
		free(p);	/* not ours: glibc's, from the host side */
		return;
	}
	if (h->magic != VT_MAGIC || h->cls >= VT_NR_CLASS) {
		fprintf(stderr, "mmlab: vt: free() of %p, not an object of the vt heap\n", p);
		abort();
	}
	k->live--;
	/* Only a block of this boot is reused: an older one's chunk may be trimmed. */
	if (k == heap.chunks) {
		memcpy(p, &heap.free[h->cls], sizeof(void *));
		heap.free[h->cls] = p;
	}
}

void *vt_realloc(void *p, size_t n)
{
	struct vt_hdr *h;
	size_t old;
	void *q;

	if (!p)
		return vt_malloc(n);
	if (!n) {
		vt_free(p);
		return NULL;
	}
	h = (struct vt_hdr *)((char *)p - VT_HDR);
	if (!chunk_of(p) && h->magic != VT_MAGIC)
		return realloc(p, n);
	old = h->cls >= VT_NR_CLASS ? h->size - (h->cls - VT_NR_CLASS) : h->size;
	if (n <= old && h->cls < VT_NR_CLASS)
		return p;
	q = vt_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	vt_free(p);
	return q;
}

int vt_posix_memalign(void **pp, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = vt_alloc(n, align < VT_HDR ? VT_HDR : align);
	if (!p)
		return ENOMEM;
	*pp = p;
	return 0;
}

void *vt_aligned_alloc(size_t align, size_t n)
{
	void *p = NULL;
	int err = vt_posix_memalign(&p, align, n);

	if (err)
		errno = err;
	return p;
}
