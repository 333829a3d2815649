/*
 * The statistics of a run's samples (stats.c): summaries, the
 * Mann-Whitney U test and the interval of a ratio of medians.
 */
#ifndef MMLAB_STATS_H
#define MMLAB_STATS_H

#include <stdbool.h>

#define LAB_ALPHA	0.05
#define LAB_TEST	"mann-whitney-u, two-sided, alpha 0.05"

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

#endif
