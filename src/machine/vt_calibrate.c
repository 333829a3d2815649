// SPDX-License-Identifier: GPL-2.0
/*
 * host-model: this host as a simulated machine, its latencies measured now
 * (`mmlab calibrate` prints the file; `--machine host-model` measures and
 * uses it), so that the model can be checked against real runs here.
 *
 * Measured: the one-way line hand-off between host CPU 0 and up to
 * CAL_PARTNERS others spread over the host (two pinned threads passing a
 * token by compare-exchange, half the round trip, best of a few rounds:
 * what the core-to-core-latency datasets behind the presets measure),
 * the median over them, an uncontended locked RMW, one PAUSE.  The
 * topology is taken as one socket, one L3, every online CPU a core: the
 * host's real topology (SMT siblings, a second socket) is not read, so
 * every distance gets the measured latency.  Unlike a preset, the numbers
 * differ from run to run and host to host.
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <machine/vt.h>

#define CAL_ROUNDS	20000
#define CAL_TRIES	5

double vt_cal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static struct {
	int token __attribute__((aligned(64)));
	int go;
} pp;

static void *pong(void *arg)
{
	pin((int)(long)arg);
	__atomic_store_n(&pp.go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < CAL_ROUNDS; i++) {
		int want = 2 * i + 1;

		while (!__atomic_compare_exchange_n(&pp.token, &want, want + 1, false,
						    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			want = 2 * i + 1;
	}
	return NULL;
}

/* One-way hand-off between host CPU 0 and @cpu, in ns; 0 if it cannot be measured. */
static double ping_pong_ns(int cpu)
{
	double best = 0;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return 0;
	for (int t = 0; t < CAL_TRIES; t++) {
		pthread_t th;
		double t0, ns;

		pp.token = 0;
		pp.go = 0;
		if (pthread_create(&th, NULL, pong, (void *)(long)cpu))
			return 0;
		pin(0);
		while (!__atomic_load_n(&pp.go, __ATOMIC_ACQUIRE))
			;
		t0 = vt_cal_now_ns();
		for (int i = 0; i < CAL_ROUNDS; i++) {
			int want = 2 * i;

			while (!__atomic_compare_exchange_n(&pp.token, &want, want + 1, false,
							    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
				want = 2 * i;
		}
		ns = (vt_cal_now_ns() - t0) / (2.0 * CAL_ROUNDS);
		pthread_join(th, NULL);
		if (!best || ns < best)
			best = ns;
	}
	return best;
}

#define CAL_PARTNERS	16

struct hand_off {
	double median, min, max;
	int partners, last;	/* how many CPUs were paired with CPU 0, the highest of them */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double vt_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * The hand-off from CPU 0 to up to CAL_PARTNERS of the other @cpus, spread
 * evenly over them (a guest's CPUs may sit on two dies, where one pair says
 * nothing of the rest): their median, and their range for the source line.
 * False if a pair cannot be measured.
 */
static bool hand_off_ns(long cpus, struct hand_off *h)
{
	double lat[CAL_PARTNERS];
	int n = cpus - 1 < CAL_PARTNERS ? (int)cpus - 1 : CAL_PARTNERS;

	for (int k = 0; k < n; k++) {
		int cpu = 1 + (int)((long)k * (cpus - 1) / n);

		lat[k] = ping_pong_ns(cpu);
		if (lat[k] <= 0)
			return false;
		h->last = cpu;
	}
	h->partners = n;
	h->median = vt_median(lat, n);
	h->min = lat[0];
	h->max = lat[n - 1];
	return true;
}

/*
 * One cycle of this host's clock: a chain of dependent one-cycle adds, best of
 * a few.  Register to register: Golden Cove and later Intel cores (Alder Lake's
 * P-cores, Sapphire and Emerald Rapids) fold an add of a small immediate at
 * rename with no latency (uops.info, INC_R64 / ADD_R64_I8 on ADL-P), so a chain
 * of `add $1` runs at up to five a cycle there and would halve the cycle.
 */
static double cycle_ns(void)
{
	double best = 0;

	for (int t = 0; t < CAL_TRIES; t++) {
		unsigned long x = 0, one = 1;
		double t0 = vt_cal_now_ns(), ns;

		for (int i = 0; i < 200000; i++) {
#if defined(__x86_64__)
			__asm__ __volatile__("add %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\t"
					     "add %1,%0\n\tadd %1,%0\n\tadd %1,%0\n\tadd %1,%0"
					     : "+r"(x) : "r"(one));
#else
			for (int j = 0; j < 8; j++) {
				__asm__ __volatile__("" : "+r"(x));	/* no folding of the chain */
				x += 1;
			}
#endif
		}
		ns = (vt_cal_now_ns() - t0) / (200000 * 8.0);
		if (x && (!best || ns < best))
			best = ns;
	}
	return best;
}

/* --- core.insn: the core's width ------------------------------------------------------- */

#define INSN_LOOPS	20000
#define INSN_BLOCK	96	/* instructions a loop, its own (a fused decrement and branch) left out */
#define INSN_TRIES	200	/* about 0.1 ms each: a noisy guest leaves some clean */

#if defined(__x86_64__)
/*
 * The probe's loop, its own (the compiler's loop around it moved the width
 * measured by a fifth between two builds), its top PAD bytes into a 64-byte
 * line: on Zen 5 the same loop runs 6.4 to 7.4 instructions a cycle by where
 * it starts, and the core's width is the best of them.
 */
#define INSN_LOOP(PAD)							\
	__asm__ __volatile__(".p2align 6\n\t.fill " #PAD ",1,0x90\n"	\
			     "1:\n\t.rept 8\n\t"				\
			     "add $1,%%r8\n\tadd $1,%%r9\n\tmov (%1),%%rax\n\t"	\
			     "add $1,%%r10\n\tadd $1,%%r11\n\tmov 8(%1),%%rcx\n\t"	\
			     "add $1,%%r12\n\tadd $1,%%r13\n\tmov 16(%1),%%rdx\n\t"	\
			     "add $1,%%r14\n\tadd $1,%%r15\n\tmov 24(%1),%%rsi\n\t"	\
			     ".endr\n\tdec %0\n\tjnz 1b"			\
			     : "+r"(n) : "r"(line)				\
			     : "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11",	\
			       "r12", "r13", "r14", "r15", "cc", "memory")

static __attribute__((noinline)) void insn_run(int pad, const unsigned long *line)
{
	long n = INSN_LOOPS;

	switch (pad) {
	case 0: INSN_LOOP(0); break;
	case 1: INSN_LOOP(16); break;
	case 2: INSN_LOOP(32); break;
	default: INSN_LOOP(48); break;
	}
}
#endif

/*
 * What an instruction takes when the core runs as many a cycle as it can:
 * a straight run of two independent register adds to one L1 load (eight
 * chains of adds a cycle apart, four loads of one line), the mix of plain
 * kernel code, so that neither the ALUs nor the load ports alone are the
 * limit where dispatch is wider.  Best of INSN_TRIES.  0 where there is no
 * probe for the architecture (core.insn is then left out).
 */
static double insn_ns(void)
{
	double best = 0;
#if defined(__x86_64__)
	unsigned long line[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	for (int t = 0; t < INSN_TRIES; t++) {
		for (int pad = 0; pad < 4; pad++) {
			double t0 = vt_cal_now_ns(), ns;

			insn_run(pad, line);
			ns = (vt_cal_now_ns() - t0) / ((double)INSN_LOOPS * INSN_BLOCK);
			if (!best || ns < best)
				best = ns;
		}
	}
#endif
	return best;
}

/*
 * What the front end takes to follow a taken branch: a chain of TAKEN_N jumps,
 * each to the next (all of them in the first level of the branch target
 * buffer), best of INSN_TRIES.  With core.fall this would be cost.block: the
 * least a block costs where a branch was taken to it.  0 where there is no
 * probe for the architecture.
 */
#define TAKEN_N		64
#define TAKEN_LOOPS	20000

static double taken_ns(void)
{
	double best = 0;
#if defined(__x86_64__)
	for (int t = 0; t < INSN_TRIES; t++) {
		double t0 = vt_cal_now_ns(), ns;

		for (int i = 0; i < TAKEN_LOOPS; i++)
			__asm__ __volatile__(".rept 64\n\tjmp 1f\n\t.p2align 4\n1:\n\t.endr" ::: "memory");
		ns = (vt_cal_now_ns() - t0) / ((double)TAKEN_LOOPS * (TAKEN_N + 1));
		if (!best || ns < best)
			best = ns;
	}
#endif
	return best;
}

/* --- core.mispredict: a mispredicted branch's refill ------------------------------------ */

#define BR_N	(1 << 18)

/*
 * One branch a byte of @bits, its two ways different code (the empty asm
 * keeps the compiler from making either a conditional move).
 */
static __attribute__((noinline)) unsigned long branch_pass(const unsigned char *bits)
{
	unsigned long a = 0, b = 0;

	for (int i = 0; i < BR_N; i++) {
		if (bits[i]) {
			__asm__ __volatile__("" : "+r"(a));
			a += (unsigned long)i;
		} else {
			__asm__ __volatile__("" : "+r"(b));
			b ^= (unsigned long)i;
		}
	}
	return a + b;
}

static volatile unsigned long branch_sink;	/* each pass's result, so none is dropped */

static double branch_best_ns(const unsigned char *bits)
{
	double best = 0;

	for (int t = 0; t < CAL_TRIES; t++) {
		double t0 = vt_cal_now_ns(), ns;

		branch_sink = branch_pass(bits);
		ns = vt_cal_now_ns() - t0;
		if (!best || ns < best)
			best = ns;
	}
	return best;
}

/*
 * What a mispredicted branch costs this host: the same branch over a
 * quarter million bytes alternating 1 and 0 (learned: none mispredicted)
 * and over random ones (half of them mispredicted: a sequence that long
 * is more than any predictor holds), the difference over the random
 * half.  0 if the difference is not positive.
 */
static double mispredict_ns(void)
{
	unsigned char *bits = malloc(2 * BR_N);
	unsigned int r = 2463534242u;
	double alt, rnd;

	if (!bits)
		return 0;
	for (int i = 0; i < BR_N; i++) {
		r ^= r << 13;
		r ^= r >> 17;
		r ^= r << 5;
		bits[i] = i & 1;
		bits[BR_N + i] = r & 1;
	}
	alt = branch_best_ns(bits);
	rnd = branch_best_ns(bits + BR_N);
	free(bits);
	return rnd > alt ? (rnd - alt) / (BR_N / 2.0) : 0;
}

/* --- mem.first_touch: the first write to memory this host has not backed --------------- */

#define FT_CHUNKS	9		/* 2 MiB ranges touched: the median of 9 */
#define FT_HUGE		(2UL << 20)
#define FT_SMALL	4096UL

static double write_ns(volatile char *p)
{
	double t0 = vt_cal_now_ns();

	*p = 1;
	return vt_cal_now_ns() - t0;
}

static double memset_ns(char *p, size_t bytes)
{
	double t0 = vt_cal_now_ns();

	memset(p, 2, bytes);
	__asm__ __volatile__("" : : "r"(p) : "memory");
	return vt_cal_now_ns() - t0;
}

/*
 * mem.first_touch and mem.backing of this host, for the kernel model's
 * memory (src/machine/arena.c: fresh anonymous memory, which migrate-fork
 * asks to be backed by huge pages): the first write to each of FT_CHUNKS
 * 2 MiB-aligned ranges of a mapping advised MADV_HUGEPAGE, then a write 4
 * KiB further into each.  If that second write faults too (it takes over a
 * tenth of the first), the host backed 4 KiB pages; else 2 MiB ones.  The
 * first touch less a memset of the page it backed, now backed (the model
 * zeroes the backing page through its hierarchy apart): the fault's own
 * path, the median over the ranges.  The ranges are touched and released
 * (MADV_DONTNEED) once before: in a guest, memory its kernel has not used
 * for a while may have been handed back to the hypervisor (free page
 * reporting, a balloon), and its first backing there costs milliseconds a
 * huge page, which the lab's runs, reusing what they freed, rarely see.
 * -1 if it cannot be measured.
 */
static double first_touch_ns(int *order)
{
	size_t bytes = (FT_CHUNKS + 1) * FT_HUGE;
	double first[FT_CHUNKS], second[FT_CHUNKS], again[FT_CHUNKS], f, s;
	char *raw = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *base;

	if (raw == MAP_FAILED)
		return -1;
	base = (char *)(((uintptr_t)raw + FT_HUGE - 1) & ~(FT_HUGE - 1));
	madvise(base, FT_CHUNKS * FT_HUGE, MADV_HUGEPAGE);
	for (int i = 0; i < FT_CHUNKS; i++)
		memset(base + i * FT_HUGE, 1, FT_HUGE);
	if (madvise(base, FT_CHUNKS * FT_HUGE, MADV_DONTNEED)) {
		munmap(raw, bytes);
		return -1;
	}
	for (int i = 0; i < FT_CHUNKS; i++) {
		first[i] = write_ns(base + i * FT_HUGE);
		second[i] = write_ns(base + i * FT_HUGE + FT_SMALL);
	}
	f = vt_median(first, FT_CHUNKS);
	s = vt_median(second, FT_CHUNKS);
	*order = s * 10 < f ? 9 : 0;
	for (int i = 0; i < FT_CHUNKS; i++)
		again[i] = memset_ns(base + i * FT_HUGE, *order ? FT_HUGE : FT_SMALL);
	f -= vt_median(again, FT_CHUNKS);
	munmap(raw, bytes);
	return f > 0 ? f : 0;
}

/* --- sched.wake: from a wake-up to the woken thread running --------------------------- */

#define WAKE_ROUNDS	201
#define WAKE_SETTLE_NS	200000	/* the sleeper is surely asleep in the kernel by then */

static struct {
	int word;		/* 1: wake up; the sleeper sets it back to 0 */
	int asleep;		/* the sleeper is about to wait */
	int stop;
	long long ran_ns;	/* when the woken sleeper ran, 0 until it has */
} wk;

static long futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void *wake_sleeper(void *arg)
{
	(void)arg;
	pin(1);
	for (;;) {
		__atomic_store_n(&wk.asleep, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&wk.word, __ATOMIC_ACQUIRE))
			futex(&wk.word, FUTEX_WAIT_PRIVATE, 0);
		__atomic_store_n(&wk.ran_ns, (long long)vt_cal_now_ns(), __ATOMIC_RELEASE);
		__atomic_store_n(&wk.word, 0, __ATOMIC_RELAXED);
		if (__atomic_load_n(&wk.stop, __ATOMIC_ACQUIRE))
			return NULL;
	}
}

/*
 * A thread asleep in FUTEX_WAIT on host CPU 1, woken from CPU 0: the time
 * from the wake call to the sleeper running again, the median of
 * WAKE_ROUNDS (a wake-up's latency is skewed by the host's other work;
 * the median is the typical one).  0 if it cannot be measured.
 */
static double wake_ns(void)
{
	double lat[WAKE_ROUNDS], mid;
	pthread_t th;

	memset(&wk, 0, sizeof(wk));
	if (pthread_create(&th, NULL, wake_sleeper, NULL))
		return 0;
	pin(0);
	for (int i = 0; i < WAKE_ROUNDS; i++) {
		double t0;

		while (!__atomic_load_n(&wk.asleep, __ATOMIC_ACQUIRE))
			;
		for (t0 = vt_cal_now_ns(); vt_cal_now_ns() - t0 < WAKE_SETTLE_NS;)
			;
		__atomic_store_n(&wk.asleep, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&wk.ran_ns, 0, __ATOMIC_RELAXED);
		if (i == WAKE_ROUNDS - 1)
			__atomic_store_n(&wk.stop, 1, __ATOMIC_RELEASE);
		t0 = vt_cal_now_ns();
		__atomic_store_n(&wk.word, 1, __ATOMIC_RELEASE);
		futex(&wk.word, FUTEX_WAKE_PRIVATE, 1);
		while (!__atomic_load_n(&wk.ran_ns, __ATOMIC_ACQUIRE))
			;
		lat[i] = (double)wk.ran_ns - t0;
	}
	pthread_join(th, NULL);
	mid = vt_median(lat, WAKE_ROUNDS);
	return mid > 0 ? mid : 0;
}

/* --- rmw.overlap: a locked RMW amid other work ------------------------------------------- */

#define PROBE_REPS	2000

static struct probe_line {
	unsigned long flags;
	void *mapping;
	unsigned long priv;
	int mapcount;
	int count;
	char pad[32];
} probe_lines[VT_PROBE_LINES] __attribute__((aligned(64)));

/* The checks and clears free_pages_prepare() makes of an order-0 page. */
static inline unsigned long probe_check(struct probe_line *l)
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

static __attribute__((noinline)) unsigned long probe_pass(bool locked, int times)
{
	unsigned long bad = 0;

	for (int i = 0; i < VT_PROBE_LINES; i++) {
		if (locked && __atomic_sub_fetch(&probe_lines[i].count, 1, __ATOMIC_SEQ_CST))
			bad++;
		for (int w = 0; w < times; w++)
			bad += probe_check(&probe_lines[i]);
		*(volatile int *)&probe_lines[i].count = 1;
	}
	return bad;
}

static __attribute__((noinline)) unsigned long probe_chain(bool locked, int times)
{
	for (int i = 0; i < VT_PROBE_LINES; i++)
		__atomic_sub_fetch(&probe_lines[0].count, 1, __ATOMIC_SEQ_CST);
	probe_lines[0].count = 1;
	return 0;
}

/* One timed try of @pass, ns a line; @bad counts failed checks. */
static double probe_try(unsigned long (*pass)(bool, int), bool locked, int times, unsigned long *bad)
{
	double t0 = vt_cal_now_ns();

	for (int r = 0; r < PROBE_REPS; r++)
		*bad += pass(locked, times);
	return (vt_cal_now_ns() - t0) / PROBE_REPS / VT_PROBE_LINES;
}

static void keep_best(double *best, double ns)
{
	if (!*best || ns < *best)
		*best = ns;
}

/*
 * The best of many tries of each, the chain, the checks alone and with
 * the decrement taken in turn within every round: a host whose speed
 * drifts (another tenant, the clock) slows all three alike, where timing
 * one after the other would set a slow stretch against a fast one and
 * decide the overlap by it.
 */
void vt_probe_rmw(struct vt_rmw_probe *p)
{
	unsigned long bad = 0;

	for (int i = 0; i < VT_PROBE_LINES; i++) {
		probe_lines[i].mapcount = -1;
		probe_lines[i].count = 1;
	}
	p->chain_ns = 0;
	for (int k = 0; k < VT_PROBE_WORKS; k++) {
		p->work_times[k] = k ? 4 : 1;
		p->work_ns[k] = p->locked_ns[k] = 0;
	}
	for (int t = 0; t < 6 * CAL_TRIES; t++) {
		keep_best(&p->chain_ns, probe_try(probe_chain, true, 1, &bad));
		for (int k = 0; k < VT_PROBE_WORKS; k++) {
			keep_best(&p->work_ns[k], probe_try(probe_pass, false, p->work_times[k], &bad));
			keep_best(&p->locked_ns[k], probe_try(probe_pass, true, p->work_times[k], &bad));
		}
	}
	if (bad) {	/* a check failed: the loop is not what it claims */
		p->chain_ns = -1;
		for (int k = 0; k < VT_PROBE_WORKS; k++)
			p->work_ns[k] = p->locked_ns[k] = -1;
	}
}

bool vt_probe_rmw_overlaps(const struct vt_rmw_probe *p)
{
	const int k = VT_PROBE_WORKS - 1;

	return p->chain_ns > 0 && p->work_ns[k] > 0 &&
	       p->locked_ns[k] - p->work_ns[k] < 0.5 * p->chain_ns;
}

/*
 * rmw.overlap as a share: of the heaviest work after the locked decrement,
 * the share that ran under it, (work + chained - locked) / work.  A share
 * measured outside 0..1 (more hidden than the work, or less than nothing,
 * within the probe's noise) is the nearest end.  -1: not measured.
 */
double vt_probe_rmw_hide(const struct vt_rmw_probe *p)
{
	const int k = VT_PROBE_WORKS - 1;
	double h;

	if (p->chain_ns <= 0 || p->work_ns[k] <= 0 || p->locked_ns[k] <= 0)
		return -1;
	h = (p->work_ns[k] + p->chain_ns - p->locked_ns[k]) / p->work_ns[k];
	return h < 0 ? 0 : h > 1 ? 1 : h;
}

static double per_op_ns(int what)
{
	static int line __attribute__((aligned(64)));
	double best = 0;

	for (int t = 0; t < CAL_TRIES; t++) {
		double t0 = vt_cal_now_ns(), ns;

		for (int i = 0; i < 200000; i++) {
			if (what)
				__atomic_fetch_add(&line, 1, __ATOMIC_SEQ_CST);
			else
#if defined(__x86_64__) || defined(__i386__)
				__builtin_ia32_pause();
#else
				__asm__ __volatile__("" ::: "memory");
#endif
		}
		ns = (vt_cal_now_ns() - t0) / 200000;
		if (!best || ns < best)
			best = ns;
	}
	return best;
}

/*
 * Two verdicts, two probes: rmw.overlap, whether the code after a locked
 * RMW runs beside it; rmw.drain, whether the misses in flight before it
 * must complete first.  A core may do one and not the other (this lab's
 * Zen 5 host overlaps misses across a locked add, not the checks after it).
 */
static void vt_calibrate_overlap(struct vt_machine *m)
{
	struct vt_rmw_probe p;
	struct vt_rmw_miss_probe mp;
	const int k = VT_PROBE_WORKS - 1;

	vt_probe_rmw(&p);
	m->rmw_overlap = vt_probe_rmw_overlaps(&p);
	m->rmw_hide = vt_probe_rmw_hide(&p);
	m->rmw_hide_given = m->rmw_hide >= 0;
	snprintf(m->rmw_overlap_src, VT_SRC_LEN, "measured now: a locked decrement before %d rounds of "
		 "free_pages_prepare()'s checks took %.2f ns a line, the checks alone %.2f, chained "
		 "decrements %.2f each: %.2f of the checks' %.2f ran under it "
		 "(tools/lock_overlap)", p.work_times[k], p.locked_ns[k], p.work_ns[k], p.chain_ns,
		 p.work_ns[k] + p.chain_ns - p.locked_ns[k], p.work_ns[k]);
	if (vt_probe_rmw_misses(&mp)) {
		m->rmw_drain = !m->rmw_overlap;	/* not measured: as rmw.overlap says */
		m->rmw_drain_src[0] = '\0';
		return;
	}
	m->rmw_drain = !vt_probe_rmw_misses_overlap(&mp);
	snprintf(m->rmw_drain_src, VT_SRC_LEN, "measured now: loads of random lines of %d MiB each followed "
		 "by a locked add %.2f ns each, alone %.2f, a dependent chase over them %.2f "
		 "(tools/lock_overlap)", VT_PROBE_MISS_MIB, mp.locked_ns, mp.alone_ns, mp.chase_ns);
}

/*
 * cost.block: this core's time over a basic block of mm-shaped code
 * (vt_probe_code()), where the presets charge one cycle; one cycle here too
 * if the probe could not say.
 */
static void vt_calibrate_block(struct vt_machine *m)
{
	const double cycle = m->cost_ns[VT_C_HIT];
	struct vt_code_probe p;
	char shapes[VT_SRC_LEN / 2] = "";
	size_t at = 0;

	if (vt_probe_code(&p) || cycle <= 0) {
		m->cost_ns[VT_C_BLOCK] = cycle;
		snprintf(m->cost_src[VT_C_BLOCK], VT_SRC_LEN, "not measured (the code probe failed): one "
			 "cycle a basic block, as the presets charge");
		return;
	}
	for (int s = 0; s < VT_CODE_SHAPES && at < sizeof(shapes); s++)
		at += (size_t)snprintf(shapes + at, sizeof(shapes) - at, "%s%s %.3f ns (%.2f cycles) a block of %lu",
				       s ? ", " : "", vt_code_shape_names[s], p.ns[s] / (double)p.blocks[s],
				       p.ns[s] / (double)p.blocks[s] / cycle, p.blocks[s]);
	m->cost_ns[VT_C_BLOCK] = p.block_ns;
	snprintf(m->cost_src[VT_C_BLOCK], VT_SRC_LEN, "measured now: the median of three loops of mm-shaped "
		 "code over data in the L1, %s (src/machine/vt_probe_code.c)", shapes);
	/* What core.fall yes would take for cost.block, for the reader who tries it. */
	if (m->insn_ns > 0) {
		double taken = taken_ns();
		size_t n = strlen(m->cost_src[VT_C_BLOCK]);

		if (taken >= VT_MIN_BLOCK_NS)
			snprintf(m->cost_src[VT_C_BLOCK] + n, VT_SRC_LEN - n, "; with core.fall yes, cost.block "
				 "would be a chain of %d jumps each taken to the next: %.4g ns (%.2f cycles) a jump, "
				 "best of %d", TAKEN_N, taken, taken / cycle, INSN_TRIES);
	}
}

int vt_calibrate_host(struct vt_machine *m, char *err, size_t len)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct hand_off h = { 0 };

	if (cpus < 2 || !hand_off_ns(cpus, &h)) {
		snprintf(err, len, "host-model: cannot measure a line hand-off on a host with %ld CPU%s; "
			 "valid: a host with 2 or more CPUs", cpus, cpus == 1 ? "" : "s");
		return -1;
	}
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "host-model");
	snprintf(m->desc, sizeof(m->desc), "this host, %ld CPUs taken as cores of one L3; latencies measured "
		 "now (mmlab calibrate)", cpus);
	m->sockets = 1;
	m->l3_per_socket = 1;
	m->cores_per_l3 = cpus > VT_MAX_CPUS ? VT_MAX_CPUS : (int)cpus;
	m->smt = 1;
	m->nr_cpus = m->cores_per_l3;
	for (int d = 0; d < VT_NR_DIST; d++) {
		m->lat_ns[d] = h.median;
		if (h.partners == 1)
			snprintf(m->lat_src[d], VT_SRC_LEN, "measured now: CAS ping-pong between host CPUs 0 "
				 "and 1, half the round trip, best of %d x %d", CAL_TRIES, CAL_ROUNDS);
		else
			snprintf(m->lat_src[d], VT_SRC_LEN, "measured now: CAS ping-pong between host CPU 0 "
				 "and %d others spread over CPUs 1..%d, half the round trip, best of %d x %d "
				 "each: the median, %.1f..%.1f ns over the pairs", h.partners, h.last,
				 CAL_TRIES, CAL_ROUNDS, h.min, h.max);
	}
	m->cost_ns[VT_C_HIT] = cycle_ns();
	snprintf(m->cost_src[VT_C_HIT], VT_SRC_LEN, "measured now: one cycle (a chain of dependent register adds), "
		 "as the presets charge an L1 hit");
	m->cost_ns[VT_C_RMW] = per_op_ns(1);
	snprintf(m->cost_src[VT_C_RMW], VT_SRC_LEN, "measured now: a locked fetch-add on a private line, in a loop");
	m->cost_ns[VT_C_MEM] = 90;
	snprintf(m->cost_src[VT_C_MEM], VT_SRC_LEN, "not measured: a typical DRAM latency");
	m->insn_ns = insn_ns();
	if (m->insn_ns < 0.001 || m->insn_ns > 10)
		m->insn_ns = 0;	/* no probe, or it could not tell: every block costs cost.block */
	snprintf(m->insn_src, VT_SRC_LEN, "measured now: a straight run of two independent register adds "
		 "to one L1 load, its loop at 4 places in a 64-byte line, best of %d (%.2f a cycle)", INSN_TRIES,
		 m->insn_ns > 0 ? m->cost_ns[VT_C_HIT] / m->insn_ns : 0.0);
	vt_calibrate_block(m);
	vt_calibrate_overlap(m);
	m->cost_ns[VT_C_PAUSE] = per_op_ns(0);
	snprintf(m->cost_src[VT_C_PAUSE], VT_SRC_LEN, "measured now: PAUSE in a loop");
	m->line_order = VT_ORDER_FIFO;
	snprintf(m->line_order_src, VT_SRC_LEN, "not measured: one L3, so the order is the queue's");
	m->line_window = VT_WINDOW_DEFAULT;
	snprintf(m->line_window_src, VT_SRC_LEN, "not measured: the presets' half-way (docs/design/virtual-time.md)");
	m->syscall_ns = 0;
	m->tlb_flush_ns = -1;	/* no TLB flush is measured: the experiments' defaults */
	m->tlbi_ns = -1;
	snprintf(m->syscall_src, VT_SRC_LEN, "not measured: give --syscall-ns");
	/* Beyond the key's 1 ms (a host too busy to say) the key is left out: one transfer. */
	m->wake_ns = wake_ns();
	if (m->wake_ns > 1000000)
		m->wake_ns = 0;
	snprintf(m->wake_src, VT_SRC_LEN, "measured now: a thread asleep in FUTEX_WAIT on host CPU 1, "
		 "woken from CPU 0, from the wake call to it running, the median of %d", WAKE_ROUNDS);
	m->mispredict_ns = mispredict_ns();
	if (m->mispredict_ns < 0.01 || m->mispredict_ns > 100)
		m->mispredict_ns = 0;	/* the probe could not tell: no predictor */
	snprintf(m->mispredict_src, VT_SRC_LEN, "measured now: one branch over %d bytes alternating 1 and 0 "
		 "against random ones, the difference over the random half, best of %d (%.1f cycles)",
		 BR_N, CAL_TRIES, m->mispredict_ns / m->cost_ns[VT_C_HIT]);
	m->first_touch_ns = first_touch_ns(&m->backing_order);
	snprintf(m->first_touch_src, VT_SRC_LEN, "measured now: the first write to each of %d 2 MiB ranges "
		 "advised MADV_HUGEPAGE (touched and released once before), less a memset of the page it "
		 "backed, the median", FT_CHUNKS);
	snprintf(m->backing_src, VT_SRC_LEN, "measured now: a write 4 KiB into each range %s",
		 m->backing_order ? "faulted no more (2 MiB pages)" : "faulted again (4 KiB pages)");
	m->calibrated = true;
	if (vt_calibrate_mem(m))
		m->hier = false;	/* sysfs does not say: the coherence model alone */
	return 0;
}

void vt_machine_print(FILE *f, const struct vt_machine *m)
{
	fprintf(f, "name            %s\n", m->name);
	fprintf(f, "desc            %s\n", m->desc);
	fprintf(f, "sockets         %d\nl3_per_socket   %d\ncores_per_l3    %d\nsmt             %d\n",
		m->sockets, m->l3_per_socket, m->cores_per_l3, m->smt);
	if (!m->calibrated)
		fprintf(f, "calibrated      no\n");
	for (int d = 0; d < VT_NR_DIST; d++)
		fprintf(f, "lat.%-11s %.1f | %s\n", vt_dist_names[d], m->lat_ns[d], m->lat_src[d]);
	for (int k = 0; k < VT_NR_COST; k++)
		fprintf(f, "cost.%-10s %.4g | %s\n", vt_cost_names[k], m->cost_ns[k], m->cost_src[k]);
	fprintf(f, "line.order      %s | %s\n", vt_order_names[m->line_order], m->line_order_src);
	fprintf(f, "line.window     %.2f | %s\n", m->line_window, m->line_window_src);
	for (int k = 0; m->hier && k < VT_NR_HIER; k++)
		fprintf(f, "%-15s %g | %s\n", vt_hier_keys[k].name, m->hier_val[k], m->hier_src[k]);
	if (m->syscall_src[0])
		fprintf(f, "syscall         %.0f | %s\n", m->syscall_ns, m->syscall_src);
	if (m->l1_lat_ns > 0)
		fprintf(f, "l1d.lat         %g | %s\n", m->l1_lat_ns, m->l1_lat_src);
	if (m->tlb_flush_ns >= 0)
		fprintf(f, "tlb.flush       %g | %s\n", m->tlb_flush_ns, m->tlb_flush_src);
	if (m->tlbi_ns >= 0)
		fprintf(f, "tlb.tlbi        %g | %s\n", m->tlbi_ns, m->tlbi_src);
	if (m->wake_ns > 0)
		fprintf(f, "sched.wake      %g | %s\n", m->wake_ns, m->wake_src);
	if (m->rmw_overlap_src[0] && m->rmw_hide_given)
		fprintf(f, "rmw.overlap     %.3g | %s\n", m->rmw_hide, m->rmw_overlap_src);
	else if (m->rmw_overlap_src[0])
		fprintf(f, "rmw.overlap     %s | %s\n", m->rmw_overlap ? "yes" : "no", m->rmw_overlap_src);
	if (m->rmw_drain_src[0])
		fprintf(f, "rmw.drain       %s | %s\n", m->rmw_drain ? "yes" : "no", m->rmw_drain_src);
	if (m->sb_entries > 0)
		fprintf(f, "core.sb         %d | %s\n", m->sb_entries, m->sb_src);
	if (m->mispredict_ns > 0)
		fprintf(f, "core.mispredict %g | %s\n", m->mispredict_ns, m->mispredict_src);
	if (m->insn_ns > 0)
		fprintf(f, "core.insn       %.4g | %s\n", m->insn_ns, m->insn_src);
	if (m->fall_src[0])
		fprintf(f, "core.fall       %s | %s\n", m->fall ? "yes" : "no", m->fall_src);
	if (m->pf_span_kib > 0)
		fprintf(f, "pf.span         %d | %s\n", m->pf_span_kib, m->pf_span_src);
	if (m->pf_stride > 0)
		fprintf(f, "pf.stride       %d | %s\n", m->pf_stride, m->pf_stride_src);
	else if (m->pf_stride_src[0])	/* calibrate found none: say what it measured */
		fprintf(f, "# pf.stride not given: %s\n", m->pf_stride_src);
	if (m->pf_ahead > 0)
		fprintf(f, "pf.ahead        %d | %s\n", m->pf_ahead, m->pf_ahead_src);
	if (m->first_touch_ns >= 0) {
		fprintf(f, "mem.first_touch %.0f | %s\n", m->first_touch_ns, m->first_touch_src);
		fprintf(f, "mem.backing     %s | %s\n", m->backing_order ? "2M" : "4K", m->backing_src);
	}
}
