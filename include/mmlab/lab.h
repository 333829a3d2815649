/*
 * The shared runner: option parsing, the repetition loop, statistics,
 * tables and JSON.  Everything here takes a `const struct experiment *`;
 * only src/lab/main.c knows the real experiments, so tests link the
 * runner (liblab.a) against synthetic ones.
 */
#ifndef MMLAB_LAB_H
#define MMLAB_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mmlab/experiment.h>
#include <mmlab/json_read.h>

#define LAB_VERSION	"0.1.0"
#define LAB_BASELINE	"vanilla"
#define LAB_ERR_LEN	512		/* size of every error buffer */
#define LAB_MAX_LIST	1024		/* items in one OPT_INT_LIST */
#define LAB_MAX_REPEAT	1000
/*
 * --repeat auto[:SECONDS]: at least LAB_AUTO_MIN_REPEAT repetitions, then
 * more until every comparison's interval is narrow (--ci-target), until
 * SECONDS of sampling have passed, or LAB_AUTO_MAX_REPEAT repetitions.
 */
#define LAB_AUTO_MIN_REPEAT	3
#define LAB_AUTO_MAX_REPEAT	200
#define LAB_AUTO_SECONDS	60
#define LAB_AUTO_MAX_SECONDS	86400
#define LAB_CI_TARGET_PCT	2.0
#define LAB_CI_TARGET_MIN	0.1
#define LAB_CI_TARGET_MAX	50.0
#define LAB_MAX_SHARDS		1024
#define LAB_MIN_MEM	(4ULL << 20)
#define LAB_DEFAULT_MEM	"256M"		/* unless the experiment has its default_mem */

#define LAB_ALPHA	0.05
#define LAB_TEST	"mann-whitney-u, two-sided, alpha 0.05"

/* --- the host's facts: struct host_facts (host_facts.h, host_facts.c) ------ */
#include <mmlab/host_facts.h>

/* --- simulated machines (vt_presets.c) ------------------------------------ */
struct vt_machine;
/* --machine NAME|FILE into @m: 0, or -1 with one line in @err. */
int lab_vt_resolve(const char *text, struct vt_machine *m, char *err, size_t len);
/* "host, e5-2690v3-2s, ..., or a machine file": what --machine accepts. */
void lab_vt_describe_valid(char *buf, size_t len);
/* `mmlab machines`: one line per machine; 0, or 1 if a preset is broken. */
int lab_machines(FILE *out, FILE *err);
/* `mmlab calibrate`: host-model's measurements, as a machine file on @out. */
int lab_calibrate(FILE *out, FILE *err);

/* --- options (opt_global.c, opt_value.c, opt_help.c) --------------------- */

struct lab_config {
	const struct experiment *exp;
	enum scale scale;
	int repeat;			/* with repeat_auto: the most repetitions */
	bool repeat_auto;		/* --repeat auto[:SECONDS] */
	double auto_seconds;		/* its time bound */
	double ci_target_pct;		/* --ci-target: half-width of the interval, % of the ratio */
	int shard_index, shard_count;	/* --shard I/N; 0/0 when not sharded */
	uint64_t seed;
	unsigned long long mem_bytes;
	const char *json_path;		/* NULL: no JSON */
	bool help;			/* --help was given: nothing else parsed */
	bool quiet;			/* no progress lines (tests) */
	/* Selected variants, in the experiment's order. */
	const struct exp_variant **variants;
	int nr_variants;
	struct opt_value *values;	/* one per exp->options[] */
	struct vt_machine *vt;		/* --machine: NULL for host, else the simulated machine */
};

/*
 * The design of @v's kernel build when `make DESIGNS=...` left it out of
 * build/mmlab (see struct exp_variant.impl), or NULL.
 */
const char *lab_variant_not_built(const struct exp_variant *v);

/*
 * Parse the arguments after `run NAME`.  Returns 0, or -1 with one line
 * in @err (no "mmlab: " prefix, no newline) naming the option, the bad
 * value and what is valid.  Never exits.  On success free with
 * lab_config_free().
 */
int lab_parse_args(struct lab_config *cfg, const struct experiment *exp,
		   const struct host_facts *m, int argc, char **argv,
		   char *err, size_t len);
void lab_config_free(struct lab_config *cfg);

/* Parse @text as the value of @o into @v (v->list is malloc'ed). */
int lab_parse_value(const struct exp_option *o, const char *text,
		    const struct host_facts *m, struct opt_value *v,
		    char *err, size_t len);
void lab_value_free(struct opt_value *v);

/* "256M", "1.5G", "4096": bytes (K/M/G/T are powers of 1024). */
int lab_parse_size(const char *text, unsigned long long *bytes);
/* "256M" when exact, else "23.4G (25153044480 bytes)". */
void lab_format_size(char *buf, size_t len, unsigned long long bytes);

const char *lab_scale_name(enum scale s);
/* The `run NAME --help` text: lab_print_help(). */
#include <mmlab/opt_help.h>

/* --- statistics (stats.c) ------------------------------------------------- */

struct lab_summary {
	double median, min, max, mean, hmean;
};

double lab_median(const double *v, int n);
double lab_mean(const double *v, int n);
/* 0 if any value is 0, NAN if any is negative. */
double lab_hmean(const double *v, int n);
void lab_summarize(const double *v, int n, struct lab_summary *s);

/*
 * Two-sided Mann-Whitney U test.  Exact permutation distribution of the
 * rank sum (conditional on ties, with mid-ranks) when both samples have at
 * most 20 values; otherwise the normal approximation with tie and
 * continuity correction.  Returns the p-value (1 if either sample is empty).
 */
double lab_mann_whitney_p(const double *x, int nx, const double *y, int ny);

/* Signed so that a positive result is always an improvement. */
double lab_change_pct(double base, double cand, bool higher_is_better);

#define LAB_CI_LEVEL	"95%"

/*
 * The 1 - @alpha interval of the ratio cand/base: the distribution-free
 * interval of a scale factor that inverts the Mann-Whitney test (see
 * stats.c for why).  Returns 0, or -1 with *lo = *hi = NAN when there is
 * none: an empty sample, a value that is not positive, or too few samples
 * for that level (fewer than 4 per side at alpha 0.05).
 */
int lab_ratio_ci(const double *base, int nb, const double *cand, int nc,
		 double alpha, double *lo, double *hi);
/* Half the interval's width at most @target_pct % of @ratio (false if there is none). */
bool lab_ci_narrow(double ratio, double lo, double hi, double target_pct);

/* --- host noise (noise.c) ------------------------------------------------- */

/*
 * A sample is flagged when the host stole at least this share of the
 * machine's CPU time while it ran (a hypervisor running other guests).
 */
#define LAB_STEAL_FLAG_PCT	10.0

struct lab_cpu_times {
	unsigned long long total, steal;	/* ticks, all CPUs together */
};

/* The first line of /proc/stat ("cpu  user nice system idle ... steal ..."); 0 or -1. */
int lab_parse_proc_stat(const char *text, struct lab_cpu_times *t);

struct lab_noise_probe {
	int perf_fd;			/* CPU migrations counter, -1 if not permitted */
};

struct lab_noise_mark {
	struct lab_cpu_times cpu;
	bool cpu_ok;
	long nivcsw;			/* -1: unknown */
	long long migrations;		/* -1: unavailable */
};

/* What the host did during one sample. */
struct lab_sample_noise {
	double steal_pct;		/* NAN: /proc/stat unreadable */
	unsigned long long steal_ticks, total_ticks;
	long nivcsw;			/* -1: unknown */
	long long cpu_migrations;	/* -1: unavailable */
	bool flagged;			/* steal_pct >= LAB_STEAL_FLAG_PCT */
};

/* Over a cell's samples: the JSON "host_noise" object. */
struct lab_noise {
	double steal_pct;		/* all its samples' ticks together */
	double max_steal_pct;		/* the worst sample */
	long nivcsw;			/* summed; -1 unknown */
	long long cpu_migrations;	/* summed; -1 unavailable */
	int flagged_samples;
};

void lab_noise_open(struct lab_noise_probe *probe);
void lab_noise_close(struct lab_noise_probe *probe);
void lab_noise_mark(const struct lab_noise_probe *probe, struct lab_noise_mark *m);
void lab_noise_delta(const struct lab_noise_mark *before, const struct lab_noise_mark *after,
		     struct lab_sample_noise *n);
void lab_noise_sum(const struct lab_sample_noise *s, int nr, struct lab_noise *sum);

/* --- a run's results (runner.c) ------------------------------------------- */

/* One variant at one point, in one metric. */
struct lab_cell {
	const struct exp_variant *variant;
	const struct exp_point *point;
	int nr_samples;
	struct sample *samples;		/* shared by the point's cells of every metric */
	double *values;			/* samples[i].value, or the metric's value in it */
	struct lab_summary sum;
	/* Host noise of each sample (shared by the point's cells); NULL when merged. */
	struct lab_sample_noise *noise;
	struct lab_noise noise_sum;
	const struct json *counters;	/* merged: the shard's counters object, as is */
};

enum lab_verdict { VERDICT_NONE, VERDICT_IMPROVEMENT, VERDICT_REGRESSION };

/* A variant against the baseline at one point. */
struct lab_cmp {
	const struct lab_cell *base, *cand;
	double ratio;			/* candidate median / baseline median */
	double change_pct;		/* of the medians, positive = better */
	double p_value;
	bool significant;		/* p_value < LAB_ALPHA */
	enum lab_verdict verdict;
	double ci_low, ci_high;		/* the ratio's 95% interval, NAN if none */
};

struct lab_results {
	const struct experiment *exp;
	const struct lab_config *cfg;
	const struct exp_ctx *ctx;
	struct host_facts machine;
	int nr_points, nr_variants;
	/* The points measured (a shard's share), each one's index among all of them. */
	const struct exp_point **points;
	int *point_index;
	const struct exp_point *all_points;
	int nr_all_points;
	int shard_index, shard_count;	/* 0/0: not sharded */
	int capacity;			/* samples each cell has room for */
	int min_samples, max_samples;	/* over the cells, set by lab_results_analyze() */
	struct lab_noise_probe probe;
	const struct json *params;	/* merged: the shards' params, instead of cfg's */
	/*
	 * [(metric * nr_points + point) * nr_variants + variant], metric in
	 * 0..lab_nr_metrics(exp)-1: the first metric's cells come first, so
	 * with one metric this is [point * nr_variants + variant].
	 */
	struct lab_cell *cells;
	int base;			/* variant index of vanilla, or -1 */
	int *bases;			/* per variant: lab_base() */
	struct lab_cmp *cmps;		/* indexed as cells: against lab_base(); unused without */
	struct lab_cmp *vcmps;		/* indexed as cells: against vanilla where lab_also_vanilla() */
	bool invariants_failed, data_failed;
	int nr_failed;			/* samples with a failed check */
	char failure[LAB_ERR_LEN];	/* the first one, one line */
};

/* The first metric, then exp->extra_metrics[]. */
static inline int lab_nr_metrics(const struct experiment *exp)
{
	return 1 + exp->nr_extra_metrics;
}

static inline struct exp_metric lab_metric(const struct experiment *exp, int metric)
{
	if (metric == 0)
		return (struct exp_metric){ exp->metric, exp->unit, exp->higher_is_better };
	return exp->extra_metrics[metric - 1];
}

static inline struct lab_cell *lab_metric_cell(const struct lab_results *r, int metric,
					       int point, int variant)
{
	return &r->cells[(metric * r->nr_points + point) * r->nr_variants + variant];
}

static inline struct lab_cmp *lab_metric_cmp(const struct lab_results *r, int metric,
					     int point, int variant)
{
	return &r->cmps[(metric * r->nr_points + point) * r->nr_variants + variant];
}

static inline struct lab_cmp *lab_metric_vcmp(const struct lab_results *r, int metric,
					      int point, int variant)
{
	return &r->vcmps[(metric * r->nr_points + point) * r->nr_variants + variant];
}

/*
 * The variant's own baseline (its exp_variant.base, vanilla if none), or
 * -1: the variant is vanilla, or its baseline was not run.
 */
static inline int lab_base(const struct lab_results *r, int variant)
{
	return r->bases ? r->bases[variant] : -1;
}

/* Compared with vanilla besides (or, its base not run, instead of) its own baseline. */
static inline bool lab_also_vanilla(const struct lab_results *r, int variant)
{
	return r->base >= 0 && variant != r->base && lab_base(r, variant) != r->base;
}

/* The name of the variant's own baseline. */
static inline const char *lab_base_name(const struct exp_variant *v)
{
	return v->base ? v->base : LAB_BASELINE;
}

/* The first metric's. */
static inline struct lab_cell *lab_cell(const struct lab_results *r, int point, int variant)
{
	return lab_metric_cell(r, 0, point, variant);
}

static inline struct lab_cmp *lab_cmp(const struct lab_results *r, int point, int variant)
{
	return lab_metric_cmp(r, 0, point, variant);
}

/*
 * Run the configured experiment: prepare(), every point x repetition x
 * variant, then the table on @out, the JSON file if asked, finish().
 * Errors and progress go to @err.  Returns the exit status: 0, 1 (a check
 * failed or a sample could not run), 2 (bad usage found by prepare()).
 */
int lab_run(const struct lab_config *cfg, const struct host_facts *m,
	    FILE *out, FILE *err);

/* Fill every cell's summary and every comparison, in every metric (after the samples). */
void lab_results_analyze(struct lab_results *r);
/*
 * Cells for r->points / nr_points / nr_variants / exp, @capacity samples
 * each (with struct sample and noise storage if @samples); cell variants
 * are left to the caller.  Returns 0 or -1; free with lab_results_free().
 */
int lab_results_alloc(struct lab_results *r, int capacity, bool samples);
void lab_results_free(struct lab_results *r);

/* --- output (table.c, json.c) ---------------------------------------------- */

/* Per metric: medians with boosts, spread, mmtests rows; then one footer. */
void lab_table_print(FILE *f, const struct lab_results *r);
/* A median or sample as the tables show it: integer when large. */
void lab_format_value(char *buf, size_t len, double v);
/* "#threads 2": the point as messages name it. */
void lab_format_point(char *buf, size_t len, const struct experiment *exp,
		      const struct exp_point *p);
/* Returns 0, or -1 if writing failed. */
int lab_json_write(FILE *f, const struct lab_results *r, const char *git);

/* --- comparing and merging result files (compare.c, merge.c) ------------------ */

/*
 * `mmlab compare [--force] A B`: files or results/<run-id>/ directories;
 * the exit status.  Runs whose params differ (other than the repetitions,
 * the variants and a point's axis) are refused unless @force.
 */
int lab_compare(const char *a, const char *b, bool force, FILE *out, FILE *err);
/* `mmlab merge OUT SHARD...`: the exit status (2 usage or unreadable, 1 inconsistent). */
int lab_merge(const char *out_path, int nr, char **shards,
	      const struct experiment *const *exps, FILE *out, FILE *err);

/* --- the command line (cli.c) ---------------------------------------------- */

/* `mmlab ARGS...` over the NULL-terminated @exps; returns the exit status. */
int lab_main(int argc, char **argv, const struct experiment *const *exps,
	     FILE *out, FILE *err);

#endif
