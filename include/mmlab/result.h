/*
 * A run's results (runner.c): a cell of samples per variant, point and
 * metric, the comparisons with each variant's baseline, and the run that
 * fills them.
 */
#ifndef MMLAB_RESULT_H
#define MMLAB_RESULT_H

#include <stdbool.h>
#include <stdio.h>

#include <mmlab/experiment.h>
#include <mmlab/host_facts.h>
#include <mmlab/json_read.h>
#include <mmlab/lab.h>
#include <mmlab/noise.h>
#include <mmlab/stats.h>

struct lab_config;

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

#endif
