/*
 * The vt build's heap (src/machine/vt_alloc.c): after vt_alloc_reset(), the
 * page offset of every object is a function of the calls made since, not of
 * what was allocated, freed or left live before.  That is what makes a
 * virtual-time sample the same whether it runs first, after other points,
 * or in a shard of its own.
 *
 *   boot A:  reset | a0 a1 ... a9 (sizes 24..1000) | free a3 a7 | b0 b1 b2
 *   noise:   hundreds of objects of every size, half freed, half left live
 *   boot B:  reset | the same calls as boot A
 *
 * Boot B must place each object at boot A's page offset, and reuse a freed
 * block exactly as boot A did (b0 takes a freed block of its class, LIFO).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <machine/vt.h>
#include "tap.h"

#define NR_A	10
#define NR_B	3

struct layout {
	uintptr_t off[NR_A + NR_B];	/* page offsets */
	long reuse[NR_B];		/* which freed a[] each b[] took, or -1 */
	void *p[NR_A + NR_B];
};

static const size_t a_size[NR_A] = { 24, 100, 64, 300, 1000, 48, 16, 300, 4000, 200 };
static const size_t b_size[NR_B] = { 300, 300, 300 };

static void boot(struct layout *l)
{
	vt_alloc_reset();
	for (int i = 0; i < NR_A; i++)
		l->p[i] = vt_malloc(a_size[i]);
	vt_free(l->p[3]);
	vt_free(l->p[7]);
	for (int i = 0; i < NR_B; i++) {
		l->p[NR_A + i] = vt_malloc(b_size[i]);
		l->reuse[i] = l->p[NR_A + i] == l->p[7] ? 7 : l->p[NR_A + i] == l->p[3] ? 3 : -1;
	}
	for (int i = 0; i < NR_A + NR_B; i++)
		l->off[i] = (uintptr_t)l->p[i] & 4095;
}

static void unboot(struct layout *l)
{
	for (int i = 0; i < NR_A + NR_B; i++)
		if (i != 3 && i != 7)
			vt_free(l->p[i]);
}

static void *noise[600];

static void make_noise(unsigned int seed)
{
	for (int i = 0; i < 600; i++) {
		seed = seed * 1103515245u + 12345u;
		noise[i] = vt_malloc(16 + (seed >> 8) % 5000);
	}
	for (int i = 0; i < 600; i += 2)
		vt_free(noise[i]);
}

static void test_layout_is_the_boots(void)
{
	struct layout a, b, c;

	boot(&a);
	ok(a.reuse[0] == 7 && a.reuse[1] == 3 && a.reuse[2] == -1,
	   "freed blocks are reused last-freed first, by class (b0 took a%ld, b1 a%ld)",
	   a.reuse[0], a.reuse[1]);
	make_noise(1);			/* left live across the next boot */
	boot(&b);
	ok(!memcmp(a.off, b.off, sizeof(a.off)) && !memcmp(a.reuse, b.reuse, sizeof(a.reuse)),
	   "a boot after live objects of an earlier one lays out as the first boot did");
	unboot(&b);
	for (int i = 1; i < 600; i += 2)
		vt_free(noise[i]);
	make_noise(7);
	for (int i = 1; i < 600; i += 2)
		vt_free(noise[i]);	/* everything freed, the free lists full */
	boot(&c);
	ok(!memcmp(a.off, c.off, sizeof(a.off)) && !memcmp(a.reuse, c.reuse, sizeof(a.reuse)),
	   "a boot after an emptied heap lays out as the first boot did");
	unboot(&c);
	unboot(&a);
}

static void test_alignment_and_contents(void)
{
	void *p = NULL, *q;
	unsigned char *z;
	int bad = 0;

	vt_alloc_reset();
	for (size_t n = 1; n < 3000; n += 37) {
		q = vt_malloc(n);
		bad += !q || ((uintptr_t)q & 15);
		memset(q, 0xa5, n);
		vt_free(q);
	}
	ok(!bad, "every object is 16-byte aligned (malloc()'s alignment)");
	z = vt_calloc(100, 7);		/* reuses a dirtied block */
	bad = 0;
	for (int i = 0; i < 700; i++)
		bad += z[i];
	ok(!bad, "calloc() zeroes a reused block");
	ok(vt_calloc(SIZE_MAX / 2, 4) == NULL, "calloc() of an overflowing product fails");
	bad = vt_posix_memalign(&p, 64, 200);
	ok(!bad && !((uintptr_t)p & 63), "posix_memalign() 64: aligned (%p)", p);
	ok(vt_posix_memalign(&p, 24, 200) != 0, "posix_memalign() refuses an alignment not a power of two");
	q = vt_aligned_alloc(4096, 1 << 20);
	ok(q && !((uintptr_t)q & 4095), "a large aligned object gets a page boundary");
	memset(q, 1, 1 << 20);
	vt_free(q);
	q = vt_realloc(z, 5000);
	ok(q && ((unsigned char *)q)[699] == 0, "realloc() keeps the contents");
	vt_free(q);
	vt_free(p);
	q = malloc(40);			/* glibc's: handed back to glibc (or glibc aborts) */
	vt_free(q);
}

int main(void)
{
	plan_no_plan();
	test_layout_is_the_boots();
	test_alignment_and_contents();
	return done_testing();
}
