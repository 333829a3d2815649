// SPDX-License-Identifier: GPL-2.0
/*
 * What a locked RMW costs this host inside a loop of other work, against
 * what it costs back to back: the measurement behind host-model's
 * rmw.overlap (vt_probe_rmw(), src/machine/vt_calibrate.c;
 * docs/VALIDATION.md, "2d").
 *
 * The loops run over 512 lines the size of a struct page.  "work" is the
 * checks and clears free_pages_prepare() makes of each (two loads, two
 * stores), once and four times over; "locked + work" puts a locked
 * decrement of the line's count before them, as put_page_testzero() comes
 * before free_pages_prepare(); "chained" is locked decrements of one count
 * back to back, calibrate's cost.rmw.  Beside them: the sum the model
 * charges without rmw.overlap (work + chained) and the larger of the two,
 * about what a core takes that runs the work beside the locked RMWs.
 *
 * Then whether misses overlap across a locked RMW (the model's rule: with
 * rmw.overlap yes a locked RMW does not drain the misses in flight;
 * docs/design/memory-hierarchy.md): loads of random lines of 256 MiB, each
 * independent of the last, alone and with a locked add of a private count
 * after each, against a dependent chase over the same lines (one memory
 * latency a load).  If the locked adds drained the misses, the second loop
 * would take about the chase's time a load.
 *
 *   build/tools/lock_overlap
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <machine/vt.h>

#define MISS_BYTES	(256UL << 20)
#define MISS_LOADS	(1 << 20)

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns a load, the best of 3: 0 independent loads, 1 each with a locked add, 2 a chase. */
static double miss_loop(char *buf, const uint32_t *idx, int how)
{
	static long count;
	double best = 1e30;

	for (int r = 0; r < 3; r++) {
		double t0 = now_ns();
		uintptr_t sum = 0, p = (uintptr_t)buf;

		for (int i = 0; i < MISS_LOADS; i++) {
			if (how == 2) {
				p = *(volatile uintptr_t *)p;
				continue;
			}
			sum += *(volatile long *)(buf + (size_t)idx[i] * 64);
			if (how == 1)
				__atomic_fetch_add(&count, 1, __ATOMIC_SEQ_CST);
		}
		t0 = (now_ns() - t0) / MISS_LOADS;
		if (t0 < best)
			best = t0;
		if (sum == 1 && p == 1)
			printf(" ");	/* keeps the loads */
	}
	return best;
}

/* Misses across locked RMWs; 0, or -1 when the memory is not there. */
static int misses_across_locks(void)
{
	size_t lines = MISS_BYTES / 64;
	uint32_t *idx = malloc(MISS_LOADS * sizeof(*idx)), *order = malloc(lines * sizeof(*order));
	char *buf = mmap(NULL, MISS_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t x = 88172645463325252ULL;
	double alone, locked, chase;

	if (!idx || !order || buf == MAP_FAILED) {
		free(idx);
		free(order);
		return -1;
	}
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {	/* xorshift: a fixed random order */
		size_t j;
		uint32_t t;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		j = x % (i + 1);
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < lines; i++)	/* the chase visits the lines in that order */
		*(uintptr_t *)(buf + (size_t)order[i] * 64) = (uintptr_t)(buf + (size_t)order[(i + 1) % lines] * 64);
	for (int i = 0; i < MISS_LOADS; i++)
		idx[i] = order[(size_t)i * 97 % lines];
	alone = miss_loop(buf, idx, 0);
	locked = miss_loop(buf, idx, 1);
	chase = miss_loop(buf, idx, 2);
	printf("random lines of 256 MiB: independent loads %.2f ns each, each followed by a locked add "
	       "%.2f ns, a dependent chase %.2f ns\n", alone, locked, chase);
	printf("misses across locked RMWs: %s (with the locked adds a load takes %.0f%% of the chase's time)\n",
	       locked < chase / 2 ? "overlap" : "drained", 100 * locked / chase);
	munmap(buf, MISS_BYTES);
	free(idx);
	free(order);
	return 0;
}

int main(int argc, char **argv)
{
	struct vt_rmw_probe p;
	bool overlaps;

	if (argc > 1) {
		fprintf(stderr, "lock_overlap: unexpected argument '%s'; valid: no arguments\n", argv[1]);
		return 2;
	}
	vt_probe_rmw(&p);
	if (p.chain_ns < 0) {
		fprintf(stderr, "lock_overlap: a check in the loops failed: they are broken\n");
		return 1;
	}
	printf("locked decs of one count, chained: %.2f ns each (what calibrate's cost.rmw measures)\n",
	       p.chain_ns);
	printf("%-6s %10s %14s %16s %12s\n", "work", "work alone", "locked + work", "sum (the model)",
	       "larger");
	for (int k = 0; k < VT_PROBE_WORKS; k++) {
		if (p.work_ns[k] < 0 || p.locked_ns[k] < 0) {
			fprintf(stderr, "lock_overlap: a check in the loops failed: they are broken\n");
			return 1;
		}
		printf("x%-5d %10.2f %14.2f %16.2f %12.2f   ns a line\n", p.work_times[k], p.work_ns[k],
		       p.locked_ns[k], p.work_ns[k] + p.chain_ns,
		       p.work_ns[k] > p.chain_ns ? p.work_ns[k] : p.chain_ns);
	}
	overlaps = vt_probe_rmw_overlaps(&p);
	printf("rmw.overlap: %s (the locked decrement adds %s half its chained cost to the heavier work)\n",
	       overlaps ? "yes" : "no", overlaps ? "under" : "at least");
	if (misses_across_locks()) {
		fprintf(stderr, "lock_overlap: no memory for the 256 MiB of the miss loops\n");
		return 1;
	}
	return 0;
}
