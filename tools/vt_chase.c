// SPDX-License-Identifier: GPL-2.0
/*
 * vt_chase: the latency-against-working-set curve a machine file predicts.
 *
 *   build/tools/vt_chase MACHINE.conf [--sizes 16K,1M,...]
 *
 * On one virtual CPU of the machine (vt_run(), src/machine/vt.c and
 * vt_cache.c), for each working-set size:
 *
 *   random  a dependent pointer chase through every 64-byte line of the set
 *           in one random cyclic order, each line's first word the address of
 *           the next (lmbench's lat_mem_rd with a random list): no two misses
 *           overlap and the prefetcher finds no stream;
 *   uniform a dependent chase whose every step goes to a line drawn uniformly
 *           from the set, with repeats (the independent reference model): each
 *           lap is 2 x lines steps, the line of step i drawn at random, and the
 *           pointer of its k-th visit in the lap is the line's k-th word, so the
 *           next address is always the value just loaded.  Any replacement
 *           policy keeps about capacity / set of such a chase's lines; a
 *           random cycle keeps none under LRU.  Which of the two a published
 *           curve ran is read from its knees (docs/VALIDATION.md);
 *   seq     the same chase through the lines in address order (7-cpu's
 *           "64 bytes step - pointer chasing"): the stream prefetcher's case;
 *   stream  independent loads, one 16-byte load a line in address order, one
 *           basic block a line (a single-core read-bandwidth kernel): misses
 *           overlap up to core.mshr and the prefetcher runs ahead; printed as
 *           GB/s (64 bytes over the ns a line).
 *
 * Each load is an 8-byte read through the vt flavour's instrumentation entry
 * (__tsan_read8(), the call the kernel model's loads make), and every 16
 * loads one basic block (lat_mem_rd's loop is unrolled: its body is a run of
 * loads).  One lap warms the caches, the next is timed inside a window
 * (vt_window_begin()), so the counters are the timed lap's alone.
 *
 * The set's 4 KiB pages are numbered (vt_cache.c's frames, which give the
 * caches' sets) in address order before the chase, as a 1 GiB page would
 * place them; the model numbers frames densely, so every set of a cache gets
 * its equal share of the working set, and it has no TLB.
 *
 * Output: '#' lines (the machine, the method), then one line a size:
 *   SIZE_KIB RANDOM_NS SEQ_NS STREAM_GBS L1_MISS L2_MISS L3_MISS PREFETCHES
 *   UNIFORM_NS U_L1_MISS U_L2_MISS U_L3_MISS
 * the misses per load of the random chase, the prefetches per load of the
 * sequential one, then the uniform chase's time and misses per load.  Exit 0; 2 on bad usage or a machine file that does not
 * load (one line on stderr); 1 if a run fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <machine/vt.h>

void __tsan_read8(void *p);
void __tsan_read16(void *p);
void __sanitizer_cov_trace_pc(void);

#define LINE		64
#define PAGE		4096
#define UNROLL		16
#define MIN_LOADS	(1u << 16)	/* short sets are timed over several laps */
#define UNIFORM_STEPS	2		/* a uniform lap: this many steps a line */
#define LINE_WORDS	(LINE / sizeof(char *))	/* visits of one line in a uniform lap */
#define MAX_SIZES	64

static const char *default_sizes =
	"4K,8K,16K,32K,48K,64K,96K,128K,192K,256K,384K,512K,768K,1M,1536K,2M,3M,4M,6M,8M,"
	"12M,16M,24M,32M,48M,64M,128M,256M";

static struct vt_machine mach;
static char *arena;
static size_t set_bytes;
static bool streaming;
static size_t steps;		/* loads a lap */
static char *start;		/* the chase's first address */
static unsigned int laps;
static double lap_ns;

static void die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "vt_chase: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (usage: vt_chase MACHINE.conf [--sizes 16K,1M,...])\n");
	exit(2);
}

/* "48K", "3M", "1G" or bytes: 0 if not a size of whole lines from 1 KiB to 4 GiB. */
static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	}
	if (*end || v < 1024 || v > (4ull << 30) || v % LINE)
		return 0;
	return (size_t)v;
}

enum chase { CHASE_RANDOM, CHASE_SEQ, CHASE_UNIFORM, CHASE_STREAM };

static void *alloc_or_die(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "vt_chase: out of memory for %zu lines\n", n);
		exit(1);
	}
	return p;
}

static unsigned long long xorshift64(unsigned long long *r)
{
	*r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
	return *r;
}

/* Line i's first word points to line next(i): a random cycle, or address order. */
static void build_cycle(bool random)
{
	size_t n = set_bytes / LINE;
	size_t *order;
	unsigned long long r = 88172645463325252ull;

	steps = n;
	start = arena;
	if (!random) {
		for (size_t i = 0; i < n; i++)
			*(char **)(arena + i * LINE) = arena + (i + 1) % n * LINE;
		return;
	}
	order = alloc_or_die(n, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {	/* Fisher-Yates */
		size_t j = xorshift64(&r) % (i + 1), t;

		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(char **)(arena + order[i] * LINE) = arena + order[(i + 1) % n] * LINE;
	free(order);
}

/*
 * Step i of a uniform lap reads word k of a line drawn at random, k the
 * times that line was drawn before in the lap; the word holds step i+1's
 * address.  A line drawn LINE_WORDS times is full and drawn again (at two
 * steps a line, one in about 2,000,000 draws).
 */
static void build_uniform(void)
{
	size_t n = set_bytes / LINE;
	unsigned char *visits = alloc_or_die(n, 1);
	char **addr;
	unsigned long long r = 2685821657736338717ull;

	steps = n * UNIFORM_STEPS;
	addr = alloc_or_die(steps, sizeof(*addr));
	for (size_t i = 0; i < steps; i++) {
		size_t line;

		do
			line = xorshift64(&r) % n;
		while (visits[line] == LINE_WORDS);
		addr[i] = arena + line * LINE + visits[line]++ * sizeof(char *);
	}
	for (size_t i = 0; i < steps; i++)
		*(char **)addr[i] = addr[(i + 1) % steps];
	start = addr[0];
	free(addr);
	free(visits);
}

static char *lap(char *p)
{
	if (streaming) {
		for (size_t i = 0; i < steps; i++) {
			__sanitizer_cov_trace_pc();
			__tsan_read16(arena + i * LINE);
		}
		return p;
	}
	for (size_t i = 0; i < steps; i++) {
		if (i % UNROLL == 0)
			__sanitizer_cov_trace_pc();
		__tsan_read8(p);
		p = *(char **)p;
	}
	return p;
}

/* The virtual CPU's work: number the pages, warm the caches, time the laps. */
static void chase(void *arg)
{
	char *p = start;
	double t0;

	for (size_t off = 0; off < set_bytes; off += PAGE)
			__tsan_read8(arena + off);
	p = lap(p);
	vt_window_begin();
	t0 = vt_clock_ns();
	for (unsigned int l = 0; l < laps; l++)
		p = lap(p);
	lap_ns = (vt_clock_ns() - t0) / ((double)steps * laps);
	vt_window_end();
	__asm__ volatile("" : : "r"(p));
}

/* One chase (or the stream) of the set: ns a load, the timed laps' counters and loads. */
static int run(enum chase how, double *ns, struct vt_stats *st, double *loads)
{
	void *args[1] = { NULL };

	streaming = how == CHASE_STREAM;
	if (how == CHASE_UNIFORM)
		build_uniform();
	else if (how == CHASE_STREAM)
		steps = set_bytes / LINE;
	else
		build_cycle(how == CHASE_RANDOM);
	laps = steps >= MIN_LOADS ? 1 : (MIN_LOADS + steps - 1) / steps;
	if (vt_run(&mach, 1, chase, args, NULL, 0, st))
		return -1;
	*ns = lap_ns;
	*loads = (double)steps * laps;
	return 0;
}

int main(int argc, char **argv)
{
	const char *file = NULL, *sizes = default_sizes;
	size_t size[MAX_SIZES], max = 0;
	int nr = 0;
	char err[512], *list, *tok, *save;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else if (argv[i][0] == '-' || file)
			die_usage("unexpected argument '%s'", argv[i]);
		else
			file = argv[i];
	}
	if (!file)
		die_usage("%sno machine file", "");
	list = strdup(sizes);
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nr == MAX_SIZES)
			die_usage("--sizes: more than 64 sizes%s", "");
		if (!(size[nr] = parse_size(tok)))
			die_usage("--sizes: '%s' is not a size of whole 64-byte lines from 1K to 4G", tok);
		if (size[nr] > max)
			max = size[nr];
		nr++;
	}
	free(list);
	if (!nr)
		die_usage("--sizes: no size%s", "");
	if (vt_machine_load(&mach, file, err, sizeof(err))) {
		fprintf(stderr, "vt_chase: %s\n", err);
		return 2;
	}
	if (!mach.hier) {
		fprintf(stderr, "vt_chase: %s: no memory hierarchy (l1d.size and the rest)\n", file);
		return 2;
	}
	arena = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED) {
		fprintf(stderr, "vt_chase: cannot map %zu bytes\n", max);
		return 1;
	}
	printf("# vt_chase: machine %s (%s), one virtual CPU, frames in address order\n", mach.name, file);
	printf("# l1d %.0f KiB %.0f-way, l2 %.0f KiB %.0f-way %.2f ns, l3 %.0f KiB %.0f-way %.2f ns, "
	       "cost.mem %.2f ns, pf.degree %.0f, cost.block %.3f ns\n",
	       mach.hier_val[VT_H_L1D_SIZE], mach.hier_val[VT_H_L1D_WAYS], mach.hier_val[VT_H_L2_SIZE],
	       mach.hier_val[VT_H_L2_WAYS], mach.hier_val[VT_H_L2_LAT], mach.hier_val[VT_H_L3_SIZE],
	       mach.hier_val[VT_H_L3_WAYS], mach.hier_val[VT_H_L3_LAT], mach.cost_ns[VT_C_MEM],
	       mach.hier_val[VT_H_PF_DEGREE], mach.cost_ns[VT_C_BLOCK]);
	printf("# random: dependent loads through the set's lines in a random cycle; seq: in address order\n");
	printf("# stream: independent 16-byte loads, one a line in address order, as GB/s\n");
	printf("# uniform: dependent loads, each to a line drawn uniformly from the set (%d steps a line a lap)\n",
	       UNIFORM_STEPS);
	printf("# size_kib random_ns seq_ns stream_gbs l1_miss l2_miss l3_miss prefetches "
	       "uniform_ns u_l1_miss u_l2_miss u_l3_miss\n");
	printf("# (per load; misses: random, then uniform; prefetches: seq)\n");
	for (int i = 0; i < nr; i++) {
		struct vt_stats r, s, b, u;
		double rn, sn, bn, un, rl, sl, bl, ul;

		set_bytes = size[i];
		if (run(CHASE_RANDOM, &rn, &r, &rl) || run(CHASE_SEQ, &sn, &s, &sl) ||
		    run(CHASE_STREAM, &bn, &b, &bl) || run(CHASE_UNIFORM, &un, &u, &ul)) {
			fprintf(stderr, "vt_chase: the run of %zu bytes failed\n", size[i]);
			return 1;
		}
		printf("%9zu %9.2f %7.2f %10.1f %7.3f %7.3f %7.3f %10.3f %10.2f %7.3f %7.3f %7.3f\n",
		       size[i] >> 10, rn, sn, LINE / bn, r.l1_miss / rl, r.l2_miss / rl, r.l3_miss / rl,
		       s.prefetches / sl, un, u.l1_miss / ul, u.l2_miss / ul, u.l3_miss / ul);
		fflush(stdout);
	}
	munmap(arena, max);
	return 0;
}
