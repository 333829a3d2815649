// SPDX-License-Identifier: GPL-2.0
/*
 * What a locked RMW costs this host inside a loop of other work, against
 * what it costs back to back (docs/VALIDATION.md, "2d").
 *
 * The virtual-time model charges every atomic cost.rmw on top of the code
 * around it, and `mmlab calibrate` measures cost.rmw as a chain of locked
 * adds on one line.  A per-page loop such as free-contig's batched free
 * (put_page_testzero(), then free_pages_prepare()'s checks of the same
 * struct page) has independent atomics, one per page: an out-of-order core
 * may run them beside the checks.  Three loops over 512 lines of 64 bytes,
 * each the size of a struct page:
 *
 *   work    the checks alone: two loads and two stores to the line;
 *   locked  a locked decrement of the line's count, then the same work;
 *   chain   locked decrements of one count, back to back (calibrate's).
 *
 * work and locked run with the checks once and WORK_HEAVY times over.
 * Printed: each loop's best time a line (of TRIES x REPS passes), the sum
 * the model charges (work + chain) and the larger of the two: a core that
 * runs the work beside the locked instructions takes about the larger.
 *
 *   build/tools/lock_overlap
 */
#include <stdio.h>
#include <time.h>

#define NR_LINES	512
#define REPS		2000
#define TRIES		30
#define WORK_HEAVY	4

struct line {
	unsigned long flags;
	void *mapping;
	unsigned long priv;
	int mapcount;
	int count;
	char pad[32];
} __attribute__((aligned(64)));

static struct line lines[NR_LINES];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The checks and clears free_pages_prepare() makes of an order-0 page. */
static inline unsigned long check_and_clear(struct line *l)
{
	unsigned long bad = 0;

	if (*(volatile int *)&l->mapcount != -1)
		bad++;
	if (*(void *volatile *)&l->mapping)
		bad++;
	l->flags &= ~0xffUL;
	l->priv = 0;
	return bad;
}

static __attribute__((noinline)) unsigned long pass_work(int times)
{
	unsigned long bad = 0;

	for (int i = 0; i < NR_LINES; i++) {
		for (int w = 0; w < times; w++)
			bad += check_and_clear(&lines[i]);
		*(volatile int *)&lines[i].count = 1;
	}
	return bad;
}

static __attribute__((noinline)) unsigned long pass_locked(int times)
{
	unsigned long bad = 0;

	for (int i = 0; i < NR_LINES; i++) {
		if (__atomic_sub_fetch(&lines[i].count, 1, __ATOMIC_SEQ_CST))
			bad++;
		for (int w = 0; w < times; w++)
			bad += check_and_clear(&lines[i]);
		*(volatile int *)&lines[i].count = 1;
	}
	return bad;
}

static __attribute__((noinline)) unsigned long pass_chain(int times)
{
	for (int i = 0; i < NR_LINES; i++)
		__atomic_sub_fetch(&lines[0].count, 1, __ATOMIC_SEQ_CST);
	lines[0].count = 1;
	return 0;
}

static double best_ns(unsigned long (*pass)(int), int times, unsigned long *bad)
{
	double best = 0;

	for (int t = 0; t < TRIES; t++) {
		double t0 = now_ns(), ns;

		for (int r = 0; r < REPS; r++)
			*bad += pass(times);
		ns = (now_ns() - t0) / REPS / NR_LINES;
		if (!best || ns < best)
			best = ns;
	}
	return best;
}

int main(int argc, char **argv)
{
	unsigned long bad = 0;
	double chain;

	if (argc > 1) {
		fprintf(stderr, "lock_overlap: unexpected argument '%s'; valid: no arguments\n", argv[1]);
		return 2;
	}

	for (int i = 0; i < NR_LINES; i++) {
		lines[i].mapcount = -1;
		lines[i].count = 1;
	}
	chain = best_ns(pass_chain, 1, &bad);
	printf("locked decs of one count, chained: %.2f ns each (what calibrate's cost.rmw measures)\n", chain);
	printf("%-6s %10s %14s %16s %12s\n", "work", "work alone", "locked + work",
	       "sum (the model)", "larger");
	for (int times = 1; times <= WORK_HEAVY; times *= WORK_HEAVY) {
		double work = best_ns(pass_work, times, &bad);
		double locked = best_ns(pass_locked, times, &bad);

		printf("x%-5d %10.2f %14.2f %16.2f %12.2f   ns a line\n", times, work, locked,
		       work + chain, work > chain ? work : chain);
	}
	if (bad) {
		fprintf(stderr, "lock_overlap: %lu checks failed: the loops are broken\n", bad);
		return 1;
	}
	return 0;
}
