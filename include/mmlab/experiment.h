/*
 * The contract between an experiment and the shared runner.
 *
 * An experiment declares its options, its variants and its metric (or
 * metrics: see extra_metrics), and knows how to run ONE sample of one
 * variant at one point.  The runner does everything else, the same way for
 * every experiment: option parsing and range checks (exit 2 with a
 * one-line error), the --scale presets, repetitions interleaved across
 * variants (A B A B ...), medians and spread, the significance test, the
 * tables, and the JSON of docs/INTERFACE.md.
 */
#ifndef MMLAB_EXPERIMENT_H
#define MMLAB_EXPERIMENT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

enum scale { SCALE_TINY, SCALE_DEFAULT, SCALE_FULL, NR_SCALES };

enum opt_type {
	OPT_INT,	/* integer in [min, max] */
	OPT_DOUBLE,	/* real in [min, max] */
	OPT_SIZE,	/* byte size with optional K/M/G suffix (powers of 1024) in [min, max] */
	OPT_INT_LIST,	/* comma-separated integers, each in [min, max]; "a-b" ranges allowed */
	OPT_CHOICE,	/* one word out of ->choices ("on,off") */
	OPT_CHOICE_LIST,	/* comma-separated words out of ->choices; ->list holds their indices */
};

struct exp_option {
	const char *name;		/* long option without the dashes: "threads" */
	enum opt_type type;
	const char *help;		/* one line */
	/*
	 * Default value (as text) at each scale; NULL in [SCALE_TINY] or
	 * [SCALE_FULL] means "same as default".  The special default "nproc"
	 * for OPT_INT_LIST means 1..number of online CPUs; "machine" for
	 * OPT_SIZE means the machine's physical memory.
	 */
	const char *def[NR_SCALES];
	double min, max;		/* valid range; for OPT_SIZE in bytes */
	const char *choices;		/* OPT_CHOICE(_LIST); OPT_INT: words it takes besides numbers */
};

/* A parsed option value. */
struct opt_value {
	const struct exp_option *opt;
	const char *text;		/* as given, or the scale default */
	long long i;			/* OPT_INT, OPT_SIZE */
	double d;			/* OPT_DOUBLE */
	long long *list;		/* OPT_INT_LIST; OPT_CHOICE_LIST: indices into choices */
	int nr_list;
	int choice;			/* OPT_CHOICE: index into choices; OPT_INT: the word given, or -1 */
};

struct exp_variant {
	const char *name;		/* "vanilla" is always the baseline */
	const char *desc;		/* one line for --help and list */
	/*
	 * The experiment's own: a kernel build (const struct mm_kernel *), a
	 * struct whose first member is one (its timed build), or anything
	 * without a kernel build.  The runner reads that much of it to refuse
	 * a variant whose design `make DESIGNS=...` left out of build/mmlab.
	 */
	const void *impl;
	/*
	 * The variant it is compared with: NULL for vanilla; another variant,
	 * the kernel before the series at the base the design was measured
	 * on, when that base differs from vanilla's on the measured path.
	 * Such a variant is compared with vanilla too.
	 */
	const char *base;
	/* Measures the host itself: left out with --machine (an error if named). */
	bool host_only;
};

#define MAX_COUNTERS	48
#define MAX_POINTS	64
#define MAX_METRICS	16	/* per experiment, the primary one included */

/*
 * A metric the runner reports: every metric gets, for every variant and
 * point, its own JSON result object (samples, median, min, max), its own
 * comparisons against vanilla (signed by its own higher_is_better) and
 * its own tables.  An experiment's first metric is experiment.metric /
 * .unit / .higher_is_better with the sample's value in sample.value; any
 * others are listed in experiment.extra_metrics.
 */
struct exp_metric {
	const char *name;		/* "lat_p50_us" */
	const char *unit;		/* "us" */
	bool higher_is_better;
};

/* A sample's value of one of the experiment's extra_metrics. */
struct metric_value {
	const char *name;		/* as in experiment.extra_metrics[] */
	double value;
};

struct counter {
	const char *name;
	double value;
	/* If non-NULL, a JSON value (e.g. a list) printed instead of value. */
	char *json;
};

/* One measurement of one variant at one point. */
struct sample {
	double value;			/* in the experiment's metric and unit */
	int nr_counters;
	struct counter counters[MAX_COUNTERS];
	/* Set by run_one when a check failed (invariant, data, leak). */
	bool invariants_failed;
	bool data_failed;
	char failure[256];		/* what failed, one line */
	/*
	 * The values of experiment.extra_metrics, set by sample_metric() in
	 * any order.  The runner reads them when run_one() returns: every
	 * extra metric needs a value (a sample with a failed check may lack
	 * some: they read as NAN), and a name the experiment did not declare
	 * is an internal error.
	 */
	int nr_metrics;
	struct metric_value metrics[MAX_METRICS - 1];
};

struct exp_point {
	char json[128];			/* the point object: {"threads": 2} */
	char label[64];			/* first table column: "2" */
	long long arg;			/* the experiment's own meaning (e.g. thread count) */
	void *priv;
};

struct exp_ctx;

struct experiment {
	const char *name;		/* fixed by the contract: "refcount-scale" */
	const char *seed;		/* "000_e9374adfdd9a9d66.txt" */
	const char *desc;		/* one line */
	const struct exp_option *options;
	int nr_options;
	const struct exp_variant *variants;
	int nr_variants;
	const char *metric;		/* "ops_per_sec" */
	const char *unit;		/* "ops/s" */
	bool higher_is_better;
	const char *point_header;	/* first column header of the table: "#threads" */
	/* Mark significant changes (I)/(R), as test_vmalloc reports do, rather than "*". */
	bool mark_ri;
	int default_repeat[NR_SCALES];
	/*
	 * Optional: the default of --mem at each scale, for an experiment
	 * whose machine must be larger than LAB_DEFAULT_MEM; NULL in
	 * [SCALE_TINY] or [SCALE_FULL] means "same as default", all NULL
	 * means LAB_DEFAULT_MEM.
	 */
	const char *default_mem[NR_SCALES];

	/*
	 * After options are parsed: check constraints between options (return
	 * -1 after printing a one-line "mmlab: ..." error to make the runner
	 * exit 2) and fill ctx->points / ctx->nr_points.
	 */
	int (*prepare)(struct exp_ctx *ctx);
	/* One sample; returns 0, or -1 if it could not run at all (exit 1). */
	int (*run_one)(struct exp_ctx *ctx, const struct exp_variant *v,
		       struct exp_point *p, int rep, struct sample *out);
	/* Optional: after all samples, release what prepare() built. */
	void (*finish)(struct exp_ctx *ctx);

	/*
	 * Optional: metrics besides the first (metric / unit /
	 * higher_is_better), at most MAX_METRICS - 1, each named once and
	 * differently from the first; run_one() gives each sample a value of
	 * each with sample_metric().  Results, comparisons and tables come
	 * metric by metric: the first metric's exactly as without these.
	 */
	const struct exp_metric *extra_metrics;
	int nr_extra_metrics;

	/*
	 * The workload of the kernel build it runs (src/workloads/<name>.c:
	 * "free_contig"), found in the build's table by exp_workload() and
	 * run by exp_boot_run() (src/experiments/common.h).
	 */
	const char *workload;

	/* Runs on a simulated machine in virtual time with --machine (ctx->machine). */
	bool virtual_time;
	/*
	 * With --machine: the default of --repeat (0: 1).  Virtual time is
	 * deterministic, so repetitions only differ where run_one() draws a
	 * sample's timing from a seed of its repetition (refcount-scale's
	 * syscall jitter): their spread is how much a prediction depends on
	 * the interleaving of the CPUs.
	 */
	int vt_default_repeat;
};

struct exp_ctx {
	const struct experiment *exp;
	enum scale scale;
	int repeat;
	uint64_t seed;
	struct opt_value *values;	/* one per exp->options[], same order */
	struct exp_point points[MAX_POINTS];
	int nr_points;
	unsigned long long mem_bytes;	/* global --mem, or the experiment's default_mem */
	int preempt;			/* global --preempt: the kernel's enum preempt_model */
	void *priv;			/* the experiment's own state */
	/*
	 * The machine the samples run on (machine/machine.h): the host, or the
	 * simulated machine --machine names; chosen once, with the options.
	 */
	const struct machine *machine;
};

/* Look up a parsed option by name (aborts on a name the experiment lacks). */
const struct opt_value *exp_opt(const struct exp_ctx *ctx, const char *name);

/*
 * Make one point per value of the OPT_INT_LIST option @opt, with JSON
 * {"<key>": value} and the value as label and arg.  Returns -1 after a
 * one-line error if the list is longer than MAX_POINTS.
 */
int exp_points_from_list(struct exp_ctx *ctx, const char *opt, const char *key);

/* Add a scalar counter to a sample. */
void sample_counter(struct sample *s, const char *name, double value);
/* Add a counter whose value is a JSON text (copied). */
void sample_counter_json(struct sample *s, const char *name, const char *json);
/*
 * Set the sample's value of the extra metric @name (again: replaced).
 * @name is compared, not kept past run_one().
 */
void sample_metric(struct sample *s, const char *name, double value);
/*
 * A counter or metric name built at run time ("%s_p50_us"): a copy that
 * lives as long as the process, the same pointer for the same text.
 */
const char *sample_name(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record a failed check in a sample. */
void sample_fail(struct sample *s, bool data, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Every experiment, in `mmlab list` order; NULL-terminated. */
extern const struct experiment *const experiments[];

#endif
