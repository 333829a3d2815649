/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The virtual-time machine (src/machine/vt_*.c): a simulated many-CPU
 * machine that runs the real kernel code, one virtual CPU at a time, in
 * virtual time.
 *
 * The kernel model is built once more, in the `vt` flavour (-DMMLAB_VT),
 * where every shared-memory event the shims make calls vt_access() (see
 * machine/vt_hooks.h), spinlocks are vt_spin_*(), polling waits are
 * vt_wait(), RCU and the clock are the machine's.  The virtual CPUs are
 * coroutines on the calling thread; a deterministic discrete-event
 * scheduler runs the one with the earliest clock (ties: the lowest id)
 * until its next event.  Each event advances its CPU's clock by a
 * cache-coherence cost: per 64-byte line an owner or a set of sharers;
 * a miss or an ownership request costs the latency of the distance to the
 * line's holder, and a line serves one transfer at a time (requests queue).
 *
 * Machines are data: machines/<name>.conf (vt_machine_load()).
 */
#ifndef MACHINE_VT_H
#define MACHINE_VT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <machine/machine.h>

#define VT_MAX_CPUS	MACHINE_MAX_CPUS

/* Distances between two CPUs, nearest first. */
enum vt_dist {
	VT_D_SMT,	/* the two hardware threads of one core (or the same CPU) */
	VT_D_L3,	/* two cores that share an L3 (a CCX on AMD, a socket on Intel) */
	VT_D_SOCKET,	/* the same socket, another L3 */
	VT_D_REMOTE,	/* the other socket */
	VT_NR_DIST,
};

/* Costs of events that move no line, and what memory costs. */
enum vt_cost {
	VT_C_HIT,	/* a load or store that hits this CPU's cache */
	VT_C_RMW,	/* a locked read-modify-write on a line this CPU owns */
	VT_C_MEM,	/* a line no cache holds: DRAM */
	VT_C_BLOCK,	/* one basic block of plain code (the vt flavour counts them) */
	VT_C_PAUSE,	/* one poll of a waiting loop (pause) */
	VT_NR_COST,
};

/* A source or description: as long as a machine file's line (1023 bytes), never cut. */
#define VT_SRC_LEN	1024
#define VT_MIN_BLOCK_NS	0.001	/* cost.block's least value: code that costs nothing never ends a timed loop */

/*
 * The memory hierarchy and the core (src/machine/vt_cache.c), settings of a
 * machine file given all together or not at all: sizes in KiB, latencies in
 * ns (load to use), the reorder buffer in instructions, outstanding misses,
 * the stream prefetcher's distance in lines, and what each of two busy SMT
 * siblings keeps of its core's single-thread throughput.
 */
enum vt_hier_setting {
	VT_H_L1D_SIZE, VT_H_L1D_WAYS,
	VT_H_L2_SIZE, VT_H_L2_WAYS, VT_H_L2_LAT,
	VT_H_L3_SIZE, VT_H_L3_WAYS, VT_H_L3_LAT,
	VT_H_MEM_REMOTE,
	VT_H_ROB, VT_H_MSHR, VT_H_L2MSHR, VT_H_PF_DEGREE,
	VT_H_SMT_SHARE,
	VT_NR_HIER,
};

struct vt_hier_key {
	const char *name;
	double lo, hi;
	bool integer;
	const char *what;
};

extern const struct vt_hier_key vt_hier_keys[VT_NR_HIER];

/* Whether a cache of @kib KiB and @ways ways is a whole number of 64-byte sets. */
bool vt_whole_sets(double kib, double ways);

/*
 * The order in which a contended line serves its queued requests
 * (line.order): oldest first, or first the oldest from another L3 than
 * the line's holder, or from the holder's own L3 (vt_coherence.c, vt_pick()).
 */
enum vt_line_order {
	VT_ORDER_FIFO,
	VT_ORDER_FAR_FIRST,
	VT_ORDER_NEAR_FIRST,
	VT_NR_ORDER,
};

extern const char *const vt_order_names[VT_NR_ORDER];

/* line.window's valid range, and what a file that does not say gets. */
#define VT_WINDOW_MAX		2.0
#define VT_WINDOW_DEFAULT	0.5

/*
 * A seed's own measurements on the machine the file describes, for reports
 * to draw beside the model's predictions (never used by the model):
 * `seed.EXPERIMENT.VARIANT[.COUNTER]  POINT:VALUE ... | SOURCE`.
 */
#define VT_MAX_SEED_SERIES	8
#define VT_MAX_SEED_POINTS	32
#define VT_SEED_POINT_LEN	48
#define VT_SEED_NAME_LEN	48

/*
 * The counter of a series that gives the seed's change of VARIANT's metric
 * in per cent (positive: better), over VARIANT's own baseline, or over the
 * variant named after VT_SEED_CHANGE_OVER: the seed gives ratios there, not
 * values.
 */
#define VT_SEED_CHANGE		"change_pct"
#define VT_SEED_CHANGE_OVER	"change_pct_over_"

/*
 * A seed's measurements on this machine, for reports: at each point (the
 * experiment's point as it names it: 12, on; the values of a point of several
 * axes joined by '/': fix_size_alloc_test/512/1), a value or a range [lo, hi]
 * of the experiment's metric, of one of its counters or other metrics, or of
 * a change (VT_SEED_CHANGE).
 */
struct vt_seed_series {
	char experiment[32];
	char variant[32];
	char counter[VT_SEED_NAME_LEN];	/* "": the metric */
	int nr;
	char point[VT_MAX_SEED_POINTS][VT_SEED_POINT_LEN];
	double lo[VT_MAX_SEED_POINTS], hi[VT_MAX_SEED_POINTS];
	char src[VT_SRC_LEN];
};

struct vt_machine {
	char name[64];
	char desc[VT_SRC_LEN];
	int sockets;
	int l3_per_socket;
	int cores_per_l3;
	int smt;			/* hardware threads per core, 1 or 2 */
	int nr_cpus;			/* sockets * l3_per_socket * cores_per_l3 * smt */
	double lat_ns[VT_NR_DIST];	/* one line transfer at that distance */
	double cost_ns[VT_NR_COST];
	double syscall_ns;		/* the rest of a pread(2) beyond the model (refcount-scale) */
	double l1_lat_ns;		/* l1d.lat: load-to-use of an L1 hit, for loads that follow a pointer (0: off) */
	/*
	 * tlb.flush: a TLB flush of a few user pages waited for (arm64: the
	 * TLBIs and the DSB; x86: the flush and any shootdown); tlb.tlbi: one
	 * arm64 TLBI issued without waiting.  -1: not given (the experiment's
	 * own default).
	 */
	double tlb_flush_ns, tlbi_ns;
	/*
	 * sched.wake: from a wake-up to the woken task running on its CPU (its
	 * idle CPU woken, the exit from the idle state, the switch to the task); a
	 * woken sleeper resumes that long after the waker's write, or one line
	 * transfer if that is longer.  0: not given (one transfer, as before).
	 */
	double wake_ns;
	/*
	 * rmw.overlap: a locked RMW on a line the CPU holds completes beside
	 * the code after it, the next locked RMW, clock read, wait or delay
	 * waiting for it (true); or it stalls the CPU for cost.rmw (false, the
	 * default).  Or a share (rmw_hide_given): the CPU stalls for cost.rmw
	 * and rmw_hide of the code up to its next event ran under it, hiding
	 * at most cost.rmw; rmw_overlap then says whether that share is over
	 * half (what calibrate's yes and no said).
	 */
	bool rmw_overlap;
	bool rmw_hide_given;
	double rmw_hide;
	/*
	 * rmw.drain: a locked RMW waits for the CPU's misses in flight before
	 * it (true), or they run on across it (false).  Not given: the
	 * opposite of rmw.overlap, which said both before the two were told
	 * apart.
	 */
	bool rmw_drain;
	/*
	 * core.sb: store-buffer entries a core has (shared out evenly among
	 * its hardware threads): a store that misses waits there while the
	 * core goes on, and the core stalls only when the buffer is full.
	 * 0: not given (a store that misses stalls the core as a load does).
	 */
	int sb_entries;
	/*
	 * core.mispredict: what a branch the predictor gets wrong costs the
	 * core (the refill of its pipeline), in ns.  0: not given (no branch
	 * predictor: every branch costs its block alone).
	 */
	double mispredict_ns;
	/*
	 * core.insn: an instruction's share of the core's time at its full
	 * width (a cycle over the instructions it dispatches a cycle), in ns:
	 * a basic block costs the larger of cost.block and its instructions
	 * times this (vt_block_table, counted from the linked binary).  0: not
	 * given (every block costs cost.block).
	 */
	double insn_ns;
	/*
	 * core.fall: with core.insn, a block the code falls into from the one
	 * before (a conditional jump not taken) costs its ops alone, and
	 * cost.block is the least only a block a branch was taken to costs
	 * (the front end's taken-branch rate).  false (the default): every
	 * block costs at least cost.block.
	 */
	bool fall;
	/*
	 * pf.span: KiB a prefetch stream may run through (a power of two, 4..4096):
	 * 4, a stream stops at each 4 KiB page, as Intel's streamer; larger, it
	 * runs on into the next consecutive pages, up to pf.span / 4 of them.
	 * 0: not given (4).
	 */
	int pf_span_kib;
	/*
	 * pf.stride: the largest stride, in bytes (128..8192), that each core's
	 * stride prefetcher follows: a load instruction whose last addresses
	 * were a constant stride apart has its next pf.ahead (1..64, default 1)
	 * strides fetched into the L2.  0: not given (no stride prefetcher).
	 */
	int pf_stride;
	int pf_ahead;
	/*
	 * mem.first_touch: what the first write to a page of the machine's RAM
	 * that nothing beneath it has backed yet costs, its zeroing left out
	 * (the experiment zeroes the backing page through the hierarchy): a
	 * guest's EPT violation and its host's fault, or, for host-model, this
	 * lab host's own fault on the lab's memory.  mem.backing: the size of
	 * the page each such touch backs, as a page order (0: 4 KiB, 9: 2 MiB).
	 * -1 and 0: not given (the machine's RAM is backed from the start).
	 */
	double first_touch_ns;
	int backing_order;
	enum vt_line_order line_order;
	char line_order_src[VT_SRC_LEN];
	/*
	 * line.window: how long a line's holders keep using it after the
	 * transfer to the next requester starts, as a fraction of that
	 * transfer's latency (its snoop's arrival; 0.5: half-way).
	 */
	double line_window;
	char line_window_src[VT_SRC_LEN];
	char lat_src[VT_NR_DIST][VT_SRC_LEN];
	char cost_src[VT_NR_COST][VT_SRC_LEN];
	char syscall_src[VT_SRC_LEN];
	char l1_lat_src[VT_SRC_LEN];
	char tlb_flush_src[VT_SRC_LEN];
	char tlbi_src[VT_SRC_LEN];
	char wake_src[VT_SRC_LEN];
	char rmw_overlap_src[VT_SRC_LEN];	/* empty: not given */
	char rmw_drain_src[VT_SRC_LEN];		/* empty: not given */
	char sb_src[VT_SRC_LEN];
	char mispredict_src[VT_SRC_LEN];
	char insn_src[VT_SRC_LEN];
	char fall_src[VT_SRC_LEN];		/* empty: not given */
	char pf_span_src[VT_SRC_LEN];
	char pf_stride_src[VT_SRC_LEN];
	char pf_ahead_src[VT_SRC_LEN];
	char first_touch_src[VT_SRC_LEN];
	char backing_src[VT_SRC_LEN];
	bool calibrated;		/* false: a placeholder whose numbers are not measurements */
	bool hier;			/* the vt_hier settings are given: caches, MLP, prefetch, SMT */
	double hier_val[VT_NR_HIER];
	char hier_src[VT_NR_HIER][VT_SRC_LEN];
	int nr_seed;
	struct vt_seed_series seed[VT_MAX_SEED_SERIES];
};

extern const char *const vt_dist_names[VT_NR_DIST];
extern const char *const vt_cost_names[VT_NR_COST];

/*
 * Read a machine file.  0, or -1 with one line in @err (no newline)
 * saying what is wrong and what is valid.
 */
int vt_machine_load(struct vt_machine *m, const char *path, char *err, size_t len);

/*
 * host-model: this host's line hand-off, locked RMW and PAUSE measured now
 * (src/machine/vt_calibrate.c); 0, or -1 with one line in @err.
 */
int vt_calibrate_host(struct vt_machine *m, char *err, size_t len);

/* calibrate's clock, ns (CLOCK_MONOTONIC); the median of the @n values at @v, which it sorts. */
double vt_cal_now_ns(void);
double vt_median(double *v, int n);

/*
 * Whether this host's locked RMWs overlap the code after them
 * (rmw.overlap), measured over VT_PROBE_LINES lines the size of a struct
 * page: the checks free_pages_prepare() makes of each, done @work_times[i]
 * times over, alone (work_ns) and after a locked decrement of the line's
 * count (locked_ns); chain_ns, locked decrements of one count back to back.
 * Best of a few passes, ns a line.  tools/lock_overlap prints it.
 */
#define VT_PROBE_LINES	512
#define VT_PROBE_WORKS	2
struct vt_rmw_probe {
	double chain_ns;
	int work_times[VT_PROBE_WORKS];
	double work_ns[VT_PROBE_WORKS], locked_ns[VT_PROBE_WORKS];
};
void vt_probe_rmw(struct vt_rmw_probe *p);
/* Its verdict: the locked decrement adds under half its chained cost to the heaviest work. */
bool vt_probe_rmw_overlaps(const struct vt_rmw_probe *p);
/*
 * The share of the heaviest work that runs under a locked RMW before it
 * (rmw.overlap as a share): (work + chain - locked) / work, 0..1; -1 if the
 * probe measured nothing.
 */
double vt_probe_rmw_hide(const struct vt_rmw_probe *p);

/*
 * What a basic block of plain code costs this host (cost.block of
 * host-model; src/machine/vt_probe_code.c has the shapes, and
 * vt_calibrate_code.c times them): each shape's best time over its data in
 * the L1, over the blocks trace-pc counts in a copy of the same code.
 * VT_CODE_N elements a pass: 256 pages the size of a struct page (16 KiB)
 * fit every L1 the presets have.
 */
#define VT_CODE_N		256
#define VT_CODE_SHAPES		3
#define VT_CODE_MAX_ORDER	4
#define VT_CODE_FLAGS_CHECK	0xff00UL	/* flags no page being freed may have */
#define VT_CODE_FLAGS_CLEAR	0x00ffUL	/* flags cleared at the free */
#define VT_CODE_PTE_PRESENT	0x1UL
#define VT_CODE_PTE_SPECIAL	0x2UL
#define VT_CODE_PTE_YOUNG	0x4UL
struct vt_code_page {
	unsigned long flags;
	void *mapping;
	unsigned long priv;
	void *memcg;
	int mapcount;
	int pad;
	unsigned long rest[3];
};
struct vt_code_data {
	struct vt_code_page pages[VT_CODE_N];
	unsigned long ptes[VT_CODE_N];
	unsigned char order[VT_CODE_N], free[VT_CODE_N];
};
struct vt_code_probe {
	double ns[VT_CODE_SHAPES];		/* a pass, best of the tries */
	unsigned long blocks[VT_CODE_SHAPES];	/* a pass, as trace-pc counts them */
	double block_ns;			/* cost.block: the median shape's ns a block */
};
extern const char *const vt_code_shape_names[VT_CODE_SHAPES];
/* 0, or -1 if a shape's two copies disagree or nothing could be timed. */
int vt_probe_code(struct vt_code_probe *p);
/* Its first half: each shape's blocks a pass, and the copies' agreement (0, or -1). */
int vt_probe_code_blocks(struct vt_code_probe *p);
/* The median of the shapes' ns a block that were measured (> 0); 0 if none was. */
double vt_code_block_ns(const double *ns, const unsigned long *blocks, int n);
/* The shapes (vt_probe_code.c): the timed copy, and the counting copy (_count). */
unsigned long vt_shape_prepare(struct vt_code_page *p, int n);
unsigned long vt_shape_ptes(unsigned long *pte, int n);
unsigned long vt_shape_buddy(const unsigned char *order, const unsigned char *free, int n);
unsigned long vt_shape_prepare_count(struct vt_code_page *p, int n);
unsigned long vt_shape_ptes_count(unsigned long *pte, int n);
unsigned long vt_shape_buddy_count(const unsigned char *order, const unsigned char *free, int n);
/* The counting copy's trace-pc hook. */
void vt_probe_code_block(void);

/*
 * pf.degree and core.l2mshr from a measured stream from memory (@gbs bytes a
 * ns, memory's latency @mem_ns; mmlab calibrate): 0, or -1 if nothing was
 * measured.  src/machine/vt_calibrate_mem.c.
 */
int vt_stream_settings(double gbs, double mem_ns, double *lines, int *degree, int *l2mshr);

/*
 * Whether misses run on across locked RMWs (rmw.drain: with no, a locked
 * RMW does not drain the misses in flight): loads of
 * random lines of VT_PROBE_MISS_MIB MiB, each independent of the last,
 * alone (alone_ns) and each followed by a locked add of a private count
 * (locked_ns), against a dependent chase over the same lines (chase_ns, one
 * memory latency a load).  Best of three, ns a load; 0, or -1 without the
 * memory.  The verdict (rmw.drain no): with the adds a load takes under
 * half the chase's.
 */
#define VT_PROBE_MISS_MIB	256
struct vt_rmw_miss_probe {
	double alone_ns, locked_ns, chase_ns;
};
int vt_probe_rmw_misses(struct vt_rmw_miss_probe *p);
bool vt_probe_rmw_misses_overlap(const struct vt_rmw_miss_probe *p);

/*
 * host-model's memory hierarchy (src/machine/vt_calibrate_mem.c): cache
 * sizes from sysfs, each level's latency by a pointer chase now; 0, or -1
 * when sysfs does not describe the caches.
 */
int vt_calibrate_mem(struct vt_machine *m);

/* @m as a machine file vt_machine_load() reads back. */
#include <stdio.h>
void vt_machine_print(FILE *f, const struct vt_machine *m);

/*
 * The settings of @m whose source begins "fit:" (a number taken from the
 * table a seed reports rather than from a measurement of its own), as
 * "key VALUE (source), ..." in @buf; how many there are.  A table run on
 * @m names them: the points they were fitted to are not predictions.
 */
int vt_machine_fitted(const struct vt_machine *m, char *buf, size_t len);

/* The distance between CPUs @a and @b of @m (Linux x86 numbering, below). */
enum vt_dist vt_distance(const struct vt_machine *m, int a, int b);

/*
 * What a run did, summed over its CPUs, in virtual nanoseconds: the
 * machine interface's statistics (machine/machine.h), by the name the
 * simulated machine's code gives them.
 */
/* Keys of timed spans (the vt flavour's linux/vm_time_list.h) fit below this. */
#define VT_NR_SPANS	MACHINE_NR_SPANS

#define vt_stats machine_stats

typedef void (*vt_thread_fn)(void *arg);

/*
 * Run @n virtual CPUs (0..n-1) of @m, CPU i calling fn(args[i]), to the
 * end of every one; returns 0, or -1 with a reason on stderr (a deadlock,
 * n out of range).  Runs on the calling thread.  If @stop is not NULL,
 * *stop is set to 1 once every running CPU's clock has passed @stop_ns:
 * the virtual-time end of a timed loop.
 */
int vt_run(const struct vt_machine *m, int n, vt_thread_fn fn, void *const *args,
	   int *stop, double stop_ns, struct vt_stats *stats);

/* --- for the kernel model's vt flavour (through the kernel-named shims) --- */

enum vt_kind { VT_READ, VT_WRITE, VT_RMW };
#define VT_RELEASE	4	/* or'ed into a write's kind: a release (an unlock) */
/*
 * Or'ed into a read's kind: a marked load of the kernel model's code
 * (READ_ONCE(), an atomic_read()), which a core issues like any load; with
 * the hierarchy, one that no other core's copy serves is a plain load.
 * Not set: the value becomes an address by arithmetic, as a page-table
 * entry's frame number does, so the load stays in sequence.
 */
#define VT_LOAD		8
#define VT_WORD		16	/* with VT_LOAD: 8 bytes, which may be a pointer */
/*
 * With VT_LOAD: a page-table entry.  Its frame number becomes the next
 * address by arithmetic (the next table, or the frame's struct page), so
 * a miss there waits for this load, as a walk's next level does in
 * hardware; loads elsewhere overlap it (vt_frames() says where frames are).
 */
#define VT_ENTRY	32

void vt_access(const volatile void *p, int kind);
void vt_cas_result(bool ok);
/*
 * The model's frames: pfn N is @arena + N * @page_size, described by the
 * struct page at @memmap + N * @page_struct; @nr of them.  A VT_ENTRY load
 * of a value v names pfn (v & @pfn_mask) >> @pfn_shift when v & @present.
 */
void vt_frames(const void *arena, const void *memmap, unsigned long nr,
	       unsigned long page_size, unsigned long page_struct,
	       uint64_t present, uint64_t pfn_mask, unsigned int pfn_shift);
void vt_wait(void);
void vt_sleep(void);
void vt_delay_ns(unsigned long ns);
void vt_async_ns(unsigned long ns);
void vt_async_wait(void);

/*
 * The timed part of a workload (src/workloads/workloads.h, timed_begin()
 * and timed_end()): when a run's code marks windows, vt_run() reports
 * what happened inside them alone (end_ns and cpu_ns: their length,
 * summed), so a sample's counters leave its set-up and checks out.  Meant
 * for runs of one CPU: a window counts what every CPU did meanwhile.
 */
void vt_window_begin(void);
void vt_window_end(void);

/*
 * Fast-forward (vt_fast_forward(true)): a run of one CPU goes on without
 * its memory hierarchy, as the coherence model alone (set-up that no
 * window measures, at a fraction of the host's time), numbering the pages
 * it touches in the order it touches them as a full run does, so that
 * lines keep their sets.  Ending it (false) leaves every cache empty and
 * the line table with no holder: what a full run's caches look like
 * once more than their capacity was written since.  Run at least twice
 * vt_cache_bytes() of fresh data through the caches before a window and
 * the window sees what it would have seen without the fast-forward.
 * Returns whether it took effect: not with other CPUs or agents in the run,
 * without a hierarchy, or inside a window (opening a window ends it).
 */
bool vt_fast_forward(bool on);
/* Bytes the run's caches hold: each L1d and L2 of its cores, each L3 of its domains; 0 without. */
unsigned long vt_cache_bytes(void);
uint64_t vt_now_ns(void);
bool vt_spin_trylock(int *lock);
void vt_spin_lock(int *lock);
void vt_spin_unlock(int *lock);
void vt_rcu_read_lock(void);
void vt_rcu_read_unlock(void);
void vt_synchronize_rcu(void);

/*
 * kthread_run()/kthread_stop() of the vt flavour (linux/kthread.h): the
 * thread becomes an agent of the next vt_run(), one more virtual CPU on the
 * machine's last CPU, which the run does not wait for (it ends when the
 * machine's CPUs do); NULL inside a run or past 4 agents.  Stop returns
 * the function's value, 0 if it was still running when the run ended.
 */
struct task_struct;
struct task_struct *vt_kthread_run(int (*fn)(void *data), void *data);
int vt_kthread_stop(struct task_struct *k);

/* wait_var_value() of the vt flavour (linux/wait_bit.h): a sleep on the variable's line. */
void vt_wait_var_value(unsigned int *var, unsigned int seq);

/*
 * nr_cpu_ids = @nr_cpus (1..VT_MAX_CPUS), before booting a vt build, whose
 * per-CPU arrays are that long; -1 if out of range.  It also starts the vt
 * heap afresh (vt_alloc_reset()): what the boot allocates is placed the same
 * way whatever ran before it in the process.
 */
int vt_set_nr_cpus(int nr_cpus);

/*
 * The vt build's heap (src/machine/vt_alloc.c): its malloc() and friends,
 * renamed to these.  vt_alloc_reset() starts a fresh layout.
 */
void vt_alloc_reset(void);
void *vt_malloc(size_t n);
void *vt_calloc(size_t nmemb, size_t size);
void *vt_realloc(void *p, size_t n);
void vt_free(void *p);
int vt_posix_memalign(void **pp, size_t align, size_t n);
void *vt_aligned_alloc(size_t align, size_t n);

/* The calling virtual CPU's clock, in ns (0 outside a run). */
double vt_clock_ns(void);

/*
 * A timed span of the kernel model (linux/rmap.h's rmap_time_start() and
 * rmap_time_add() in the vt flavour): vt_span_clock() is the calling CPU's
 * clock with the code it ran so far counted (not charged early), in ps; vt_span_add() adds the clock's
 * advance since @start to span @key (0..VT_NR_SPANS-1; others are ignored).
 * Neither costs the model anything: they read the clock the model already
 * keeps, as the event build reads the host's.
 */
unsigned long vt_span_clock(void);
void vt_span_add(int key, unsigned long start);

#endif
