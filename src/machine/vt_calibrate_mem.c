// SPDX-License-Identifier: GPL-2.0
/*
 * host-model's memory hierarchy: the cache sizes and ways this host's
 * kernel reports (sysfs), and the latency of each level measured now by a
 * pointer chase over a working set that fits it, as lmbench's lat_mem_rd
 * does: a random cyclic order of the set's lines, so the prefetchers
 * cannot follow it, each load's address the value of the one before, on
 * huge pages where the host gives them.  The prefetchers' reach is
 * measured by streams and chases in address order (pf.degree and
 * core.l2mshr by Little's law, pf.span, pf.stride).  What the host does not
 * say (reorder buffer, fill buffers, SMT share) is written "not measured"
 * with a common core's value, for the user to correct.  Beside them,
 * rmw.drain: whether misses run on across a locked RMW
 * (vt_probe_rmw_misses(), on the same random orders).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <machine/vt.h>

#define CHASE_LOADS	(1 << 21)

/* sysfs's cache of cpu0 at @level (1 data, 2, 3): size in KiB and ways; 0 if unknown. */
static int sysfs_cache(int level, double *kib, double *ways)
{
	for (int idx = 0; idx < 8; idx++) {
		char path[128], buf[64];
		int lvl = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
		if (!(f = fopen(path, "r")))
			return 0;
		if (fscanf(f, "%d", &lvl) != 1)
			lvl = 0;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
		if (!(f = fopen(path, "r")))
			continue;
		buf[0] = '\0';
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
		if (lvl != level || !strncmp(buf, "Instruction", 11))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
		if (!(f = fopen(path, "r")) || fscanf(f, "%lfK", kib) != 1)
			*kib = 0;
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity", idx);
		if (!(f = fopen(path, "r")) || fscanf(f, "%lf", ways) != 1)
			*ways = 0;
		if (f)
			fclose(f);
		return *kib > 0 && *ways > 0;
	}
	return 0;
}

/* 0, 1, ..., @n - 1 in @a, in a random order if @shuffle (the same one every run). */
static void order_of(size_t *a, size_t n, bool shuffle)
{
	unsigned long long r = 88172645463325252ull;

	for (size_t i = 0; i < n; i++)
		a[i] = i;
	for (size_t i = n - 1; shuffle && i > 0; i--) {
		size_t j, t;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		j = r % (i + 1);
		t = a[i], a[i] = a[j], a[j] = t;
	}
}

/* ns a load of @loads steps of the chase from @p: the best of three walks. */
static double walk_ns(void **p, size_t loads)
{
	double best = -1;

	for (int t = 0; t < 3; t++) {
		double t0 = vt_cal_now_ns(), ns;

		for (size_t i = 0; i < loads; i++)
			p = *(void **)p;
		ns = (vt_cal_now_ns() - t0) / loads;
		if (best < 0 || ns < best)
			best = ns;
	}
	__asm__ volatile("" : : "r"(p));
	return best;
}

/* ns a load of a dependent chase over @bytes of lines in random order; < 0 out of memory. */
static double chase_ns(size_t bytes)
{
	size_t n = bytes / 64, i;
	size_t len = (n * 64 + (2u << 20) - 1) & ~(size_t)((2u << 20) - 1);
	char *buf = aligned_alloc(2u << 20, len);
	size_t *order = malloc(n * sizeof(*order));
	void **p;
	double best;

	if (!buf || !order) {
		free(buf);
		free(order);
		return -1;
	}
	madvise(buf, len, MADV_HUGEPAGE);	/* fewer TLB misses: the caches' latency, not the walks' */
	order_of(order, n, true);
	for (i = 0; i < n; i++)
		*(void **)(buf + order[i] * 64) = buf + order[(i + 1) % n] * 64;
	p = (void **)(buf + order[0] * 64);
	for (i = 0; i < n; i++)		/* warm: the set is where it fits */
		p = *p;
	best = walk_ns(p, CHASE_LOADS);
	free(buf);
	free(order);
	return best;
}

/*
 * GB/s of independent loads, one a line of @bytes in address order (the
 * best of three passes): what this core streams from memory, prefetchers
 * and miss queues together.
 */
static double stream_gbs(size_t bytes)
{
	char *buf = aligned_alloc(2u << 20, bytes);
	double best = -1;

	if (!buf)
		return -1;
	madvise(buf, bytes, MADV_HUGEPAGE);
	memset(buf, 1, bytes);
	for (int t = 0; t < 3; t++) {
		double t0 = vt_cal_now_ns(), ns;
		uintptr_t sum = 0;

		for (size_t i = 0; i < bytes; i += 64)
			sum += *(volatile uintptr_t *)(buf + i);
		ns = vt_cal_now_ns() - t0;
		__asm__ volatile("" : : "r"(sum));
		if (ns > 0 && (best < 0 || bytes / ns > best))
			best = bytes / ns;
	}
	free(buf);
	return best;
}

/*
 * pf.degree and core.l2mshr from a stream of @gbs (bytes a ns) from memory
 * of latency @mem_ns: by Little's law the core keeps gbs * mem_ns / 64
 * lines in flight (*@lines); the streamer runs that many ahead (rounded,
 * 1..256), and the L2 lets at least that many misses be outstanding
 * (rounded up, not under the 32 assumed without it, at most 256), since
 * the model paces prefetches at core.l2mshr a memory latency.  -1 where
 * nothing was measured.
 */
int vt_stream_settings(double gbs, double mem_ns, double *lines, int *degree, int *l2mshr)
{
	double n = gbs > 0 && mem_ns > 0 ? gbs * mem_ns / 64 : 0;

	*lines = n;
	if (n < 0.5)
		return -1;
	*degree = n > 256 ? 256 : (int)(n + 0.5);
	*l2mshr = n > 256 ? 256 : n <= 32 ? 32 : (int)ceil(n);
	return 0;
}

/*
 * ns a load of a dependent chase through every line of @bytes, in order
 * within each 4 KiB page, the pages in order or in a random one: whether
 * this host's prefetchers run on into the next page (pf.span).
 */
static double page_chase_ns(size_t bytes, bool shuffle)
{
	size_t np = bytes / 4096, n = np * 64;
	char *buf = aligned_alloc(2u << 20, np * 4096);
	size_t *pg = malloc(np * sizeof(*pg));
	double best;

	if (!buf || !pg) {
		free(buf);
		free(pg);
		return -1;
	}
	madvise(buf, np * 4096, MADV_HUGEPAGE);
	order_of(pg, np, shuffle);
	for (size_t i = 0; i < n; i++) {
		size_t k = (i + 1) % n;

		*(void **)(buf + pg[i / 64] * 4096 + (i % 64) * 64) = buf + pg[k / 64] * 4096 + (k % 64) * 64;
	}
	best = walk_ns((void **)(buf + pg[0] * 4096), n);
	free(buf);
	free(pg);
	return best;
}

/*
 * ns a step of a dependent chase through @bytes whose steps are @stride
 * bytes apart, in address order (each step's line holds the next's
 * address): whether this host's prefetchers follow a constant stride
 * (pf.stride), and how far ahead (pf.ahead).
 */
static double stride_chase_ns(size_t bytes, size_t stride)
{
	size_t n = bytes / stride;
	char *buf = aligned_alloc(2u << 20, bytes);
	double best;

	if (!buf)
		return -1;
	madvise(buf, bytes, MADV_HUGEPAGE);
	for (size_t i = 0; i < n; i++)
		*(void **)(buf + i * stride) = buf + ((i + 1) % n) * stride;
	best = walk_ns((void **)buf, n);
	free(buf);
	return best;
}

#define STRIDE_MIN	256
#define STRIDE_MAX	8192

/*
 * pf.stride and pf.ahead: the largest of 256, 512, ... 8192 bytes whose
 * strided chase (in order, through @bytes) takes under half of memory's
 * latency @mem_ns, each smaller one too; the strides that chase keeps ahead
 * are memory's latency over its time a step.  0 when 256 is not followed.
 */
static int stride_measure(struct vt_machine *m, size_t bytes, double mem_ns)
{
	double ns[8] = { 0 };
	int k = 0, best = -1;

	for (size_t s = STRIDE_MIN; s <= STRIDE_MAX; s *= 2, k++) {
		ns[k] = stride_chase_ns(bytes, s);
		if (ns[k] <= 0)
			return -1;
		if (best == k - 1 && ns[k] < 0.5 * mem_ns)
			best = k;
	}
	if (best < 0) {
		snprintf(m->pf_stride_src, VT_SRC_LEN, "measured now: a chase 256 bytes a step in address order "
			 "took %.2f ns a step, memory %.2f: no stride followed", ns[0], mem_ns);
		return 0;
	}
	m->pf_stride = STRIDE_MIN << best;
	m->pf_ahead = (int)(mem_ns / ns[best] + 0.5);
	m->pf_ahead = m->pf_ahead < 1 ? 1 : m->pf_ahead > 64 ? 64 : m->pf_ahead;
	snprintf(m->pf_stride_src, VT_SRC_LEN, "measured now: a dependent chase through %zu KiB in address "
		 "order, 256 to 8192 bytes a step: %.1f %.1f %.1f %.1f %.1f %.1f ns a step, memory %.1f "
		 "(followed while under half of it)", bytes >> 10, ns[0], ns[1], ns[2], ns[3], ns[4], ns[5], mem_ns);
	snprintf(m->pf_ahead_src, VT_SRC_LEN, "measured now: memory's %.1f ns over the %.1f ns a step of "
		 "the %d-byte chase (pf.stride's)", mem_ns, ns[best], m->pf_stride);
	return 0;
}

/* --- rmw.drain: misses across locked RMWs ------------------------------------------------ */

#define MISS_LOADS	(1 << 20)

/* ns a load, the best of 3: 0 independent loads, 1 each with a locked add, 2 a chase. */
static double miss_loop(char *buf, const size_t *idx, int how)
{
	static long count __attribute__((aligned(64)));
	double best = -1;

	for (int r = 0; r < 3; r++) {
		double t0 = vt_cal_now_ns(), ns;
		uintptr_t sum = 0, p = (uintptr_t)buf;

		for (int i = 0; i < MISS_LOADS; i++) {
			if (how == 2) {
				p = *(volatile uintptr_t *)p;
				continue;
			}
			sum += *(volatile long *)(buf + idx[i] * 64);
			if (how == 1)
				__atomic_fetch_add(&count, 1, __ATOMIC_SEQ_CST);
		}
		ns = (vt_cal_now_ns() - t0) / MISS_LOADS;
		if (best < 0 || ns < best)
			best = ns;
		__asm__ volatile("" : : "r"(sum), "r"(p));
	}
	return best;
}

int vt_probe_rmw_misses(struct vt_rmw_miss_probe *p)
{
	size_t bytes = (size_t)VT_PROBE_MISS_MIB << 20, lines = bytes / 64;
	size_t *idx = malloc(MISS_LOADS * sizeof(*idx)), *order = malloc(lines * sizeof(*order));
	char *buf = malloc(bytes);

	if (!idx || !order || !buf) {
		free(idx);
		free(order);
		free(buf);
		return -1;
	}
	order_of(order, lines, true);
	for (size_t i = 0; i < lines; i++)	/* the chase visits the lines in that order */
		*(uintptr_t *)(buf + order[i] * 64) = (uintptr_t)(buf + order[(i + 1) % lines] * 64);
	for (size_t i = 0; i < MISS_LOADS; i++)
		idx[i] = order[i * 97 % lines];
	p->alone_ns = miss_loop(buf, idx, 0);
	p->locked_ns = miss_loop(buf, idx, 1);
	p->chase_ns = miss_loop(buf, idx, 2);
	free(idx);
	free(order);
	free(buf);
	return 0;
}

bool vt_probe_rmw_misses_overlap(const struct vt_rmw_miss_probe *p)
{
	return p->chase_ns > 0 && p->locked_ns < 0.5 * p->chase_ns;
}

static void set(struct vt_machine *m, int k, double v, const char *src)
{
	m->hier_val[k] = v;
	snprintf(m->hier_src[k], VT_SRC_LEN, "%s", src);
}

static void set_lat(struct vt_machine *m, int k, double kib, const char *what)
{
	double lat = chase_ns((size_t)(kib * 1024));

	m->hier_val[k] = lat;
	snprintf(m->hier_src[k], VT_SRC_LEN, "measured now: dependent loads in random order over %.0f KiB "
		 "(%s), %.2f ns each", kib, what, lat);
}

/*
 * pf.degree and core.l2mshr measured by streaming 8 times the L3
 * (vt_stream_settings()); where the stream cannot be measured, a common
 * core's values, said so.
 */
static void stream_measure(struct vt_machine *m, size_t bytes, double mem_ns)
{
	double gbs = stream_gbs(bytes), n;
	char src[VT_SRC_LEN];
	int deg, q;

	if (vt_stream_settings(gbs, mem_ns, &n, &deg, &q)) {
		set(m, VT_H_L2MSHR, 32, "not measured: Skylake's 32-entry superqueue (Intel Optimization "
		    "Reference Manual)");
		set(m, VT_H_PF_DEGREE, 20, "not measured: the Intel L2 streamer's 20 lines (Intel "
		    "Optimization Reference Manual)");
		return;
	}
	snprintf(src, sizeof(src), "measured now: one load a line through %zu KiB in address order, "
		 "%.2f GB/s, times memory's %.2f ns over 64 bytes: %.1f lines in flight (Little's law)",
		 bytes >> 10, gbs, mem_ns, n);
	set(m, VT_H_PF_DEGREE, deg, src);
	snprintf(src, sizeof(src), "measured now: the %.1f lines the stream keeps in flight (pf.degree's "
		 "measurement), and not under Skylake's 32 (Intel Optimization Reference Manual)", n);
	set(m, VT_H_L2MSHR, q, src);
}

/*
 * The L3 this CPU gets, which on a shared or partitioned machine (a cloud
 * guest, cache allocation) can be much less than the size sysfs reports:
 * chases over 2, 4, 8, ... times the L2 up to sysfs's L3, the latency at
 * twice the L2 taken as the L3's, and the size as the largest of them
 * whose chase stays under half-way from that latency to memory's @mem_ns
 * (past it most loads miss).  Where even twice the L2 is past half-way,
 * sysfs's size and the chase over half of it, as before.  0, or -1.
 */
static int l3_measure(struct vt_machine *m, double l2, double l3, double l3w, double mem_ns)
{
	double lat, near = -1, size = 0;
	bool knee = false;

	for (double kib = 2 * l2; kib <= l3; kib *= 2) {
		lat = chase_ns((size_t)(kib * 1024));
		if (lat <= 0)
			return -1;
		if (near < 0)
			near = lat;
		if (lat > (near + mem_ns) / 2) {
			knee = true;
			break;
		}
		if (vt_whole_sets(kib, l3w))
			size = kib;
	}
	if (!knee)
		size = l3;		/* every chase hit: sysfs's size holds */
	if (size == 0 || near > (m->hier_val[VT_H_L2_LAT] + mem_ns) / 2) {
		set_lat(m, VT_H_L3_LAT, l3 / 2, "half the L3");
		return m->hier_val[VT_H_L3_LAT] > 0 ? 0 : -1;
	}
	m->hier_val[VT_H_L3_SIZE] = size;
	snprintf(m->hier_src[VT_H_L3_SIZE], VT_SRC_LEN, "measured now: the largest of 2, 4, ... times the "
		 "L2 whose chase stays under half-way to memory's latency (sysfs says %.0f KiB: the rest "
		 "is another tenant's, or partitioned away)", l3);
	m->hier_val[VT_H_L3_LAT] = near;
	snprintf(m->hier_src[VT_H_L3_LAT], VT_SRC_LEN, "measured now: dependent loads in random order over "
		 "%.0f KiB (twice the L2), %.2f ns each", 2 * l2, near);
	return 0;
}

/* The hierarchy of this host into @m: 0, or -1 if sysfs does not describe its caches. */
int vt_calibrate_mem(struct vt_machine *m)
{
	const char *sys = "sysfs: cpu0's cache (/sys/devices/system/cpu/cpu0/cache)";
	double l1, l1w, l2, l2w, l3, l3w, lat;

	if (!sysfs_cache(1, &l1, &l1w) || !sysfs_cache(2, &l2, &l2w) || !sysfs_cache(3, &l3, &l3w) ||
	    l3 > 1048576 || !vt_whole_sets(l1, l1w) || !vt_whole_sets(l2, l2w) ||
	    !vt_whole_sets(l3, l3w))
		return -1;
	set(m, VT_H_L1D_SIZE, l1, sys);
	set(m, VT_H_L1D_WAYS, l1w, sys);
	set(m, VT_H_L2_SIZE, l2, sys);
	set(m, VT_H_L2_WAYS, l2w, sys);
	set(m, VT_H_L3_SIZE, l3, sys);
	set(m, VT_H_L3_WAYS, l3w, sys);
	/* Each level at half its size: it fits there and not in the level above. */
	lat = chase_ns((size_t)(l1 * 1024 / 2));
	if (lat >= 0.01 && lat <= 100) {
		m->l1_lat_ns = lat;
		snprintf(m->l1_lat_src, VT_SRC_LEN, "measured now: dependent loads in random order over "
			 "%.0f KiB (half the L1), %.2f ns each", l1 / 2, lat);
	}
	set_lat(m, VT_H_L2_LAT, l2 / 2, "half the L2");
	lat = chase_ns((size_t)(l3 * 1024 * 8));
	if (lat <= 0 || m->hier_val[VT_H_L2_LAT] <= 0 || l3_measure(m, l2, l3, l3w, lat))
		return -1;
	m->cost_ns[VT_C_MEM] = lat;
	snprintf(m->cost_src[VT_C_MEM], VT_SRC_LEN, "measured now: dependent loads in random order over "
		 "%.0f KiB (eight times the L3), %.2f ns each, TLB misses included", l3 * 8, lat);
	set(m, VT_H_MEM_REMOTE, lat, "one node: the same as cost.mem");
	set(m, VT_H_ROB, 224, "not measured: Skylake's 224 (Intel Optimization Reference Manual)");
	set(m, VT_H_MSHR, 12, "not measured: the 12 fill buffers of Skylake to Ice Lake (Intel Optimization "
	    "Reference Manual)");
	stream_measure(m, (size_t)(l3 * 1024 * 8), lat);
	set(m, VT_H_SMT_SHARE, 1, "not measured: host-model's CPUs are taken as cores, without SMT");
	{
		/* Eight times the L3, where every page a stream starts again on misses. */
		size_t span_bytes = (size_t)(l3 * 1024 * 8);
		double seq = page_chase_ns(span_bytes, false), shuf = page_chase_ns(span_bytes, true);

		if (seq <= 0 || shuf <= 0)
			return -1;
		m->pf_span_kib = seq < 0.5 * shuf ? 2048 : 4;
		snprintf(m->pf_span_src, VT_SRC_LEN, "measured now: a chase through every line of %.0f KiB, "
			 "in order in each 4 KiB page, %.2f ns a line with the pages in order, %.2f with them "
			 "shuffled (%s)", l3 * 8, seq, shuf,
			 seq < 0.5 * shuf ? "the prefetchers run on into the next page" : "they stop at each page");
	}
	if (stride_measure(m, (size_t)(l3 * 1024 * 8), lat))
		return -1;
	m->sb_entries = 56;
	snprintf(m->sb_src, VT_SRC_LEN, "not measured: Skylake's 56 store-buffer entries (Intel Optimization "
		 "Reference Manual), as core.rob");
	m->hier = true;
	return 0;
}
