/*
 * The ratio's 95% interval (lab_ratio_ci): hand-computed exact cases, its
 * coverage over simulated samples, its agreement with the Mann-Whitney
 * test, and deliberately broken intervals that the same checks reject.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "tap.h"
#include <mmlab/stats.h>

typedef int (*ci_fn)(const double *b, int nb, const double *c, int nc,
		     double alpha, double *lo, double *hi);

static bool near(double got, double want)
{
	return fabs(got - want) <= 1e-9 * fabs(want);
}

/* --- a fixed-seed generator of log-normal samples ---------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static void lognormal(double *v, int n, double scale, double sigma)
{
	for (int i = 0; i < n; i++)
		v[i] = scale * exp(sigma * gauss());
}

/* --- the checks, run on the real interval and on the mutants ------------------- */

/* How often the interval of two samples of @n holds the true ratio 1.5. */
static double coverage(ci_fn f, int n, int trials)
{
	double b[32], c[32], lo, hi;
	int hit = 0, t;

	rng = 0x9e3779b97f4a7c15ULL;
	for (t = 0; t < trials; t++) {
		lognormal(b, n, 1000, 0.1);
		lognormal(c, n, 1500, 0.1);
		if (!f(b, n, c, n, LAB_ALPHA, &lo, &hi) && lo <= 1.5 && 1.5 <= hi)
			hit++;
	}
	return (double)hit / trials;
}

/* The known cases; returns how many fail (with a diagnostic each if @say). */
static int ci_failures(ci_fn f, bool say)
{
	const double same[] = { 100, 103, 98, 101, 99 };
	const double base[] = { 100, 101, 99, 102, 98 }, twice[] = { 199, 203, 201, 198, 202 };
	const double pow2[] = { 1, 2, 4, 8, 16 }, pow2x4[] = { 4, 8, 16, 32, 64 };
	double lo, hi, cov;
	int bad = 0;

#define WANT(cond, ...) do { if (!(cond)) { bad++; if (say) diag(__VA_ARGS__); } } while (0)
	f(same, 5, same, 5, LAB_ALPHA, &lo, &hi);
	WANT(lo <= 1 && 1 <= hi, "identical samples: [%g, %g] should hold 1", lo, hi);
	f(base, 5, twice, 5, LAB_ALPHA, &lo, &hi);
	WANT(lo > 1 && lo <= 2 && 2 <= hi, "a 2x shift: [%g, %g] should exclude 1, hold 2", lo, hi);
	/* ratios 2^(j-i): of the 25, the 3rd smallest is 2^-1 and the 3rd largest 2^5 */
	f(pow2, 5, pow2x4, 5, LAB_ALPHA, &lo, &hi);
	WANT(near(lo, 0.5) && near(hi, 32), "powers of 2, x4: [%g, %g] should be [0.5, 32]", lo, hi);
	cov = coverage(f, 6, 2000);
	if (say)
		diag("coverage at n=6,6: %.3f", cov);
	/* exact coverage at n = 6, 6 is 1 - 2 P(U <= 5) = 0.959 */
	WANT(cov >= 0.94 && cov <= 0.985, "coverage at n=6,6: %.3f, should be near 0.959", cov);
	cov = coverage(f, 25, 500);
	WANT(cov >= 0.92 && cov <= 0.985, "coverage at n=25,25 (normal approximation): %.3f", cov);
#undef WANT
	return bad;
}

/* --- mutants -------------------------------------------------------------------- */

/* At the 50% level instead of 95%: too narrow. */
static int mutant_level(const double *b, int nb, const double *c, int nc,
			double alpha, double *lo, double *hi)
{
	return lab_ratio_ci(b, nb, c, nc, 0.5, lo, hi);
}

/* Baseline and candidate swapped: the interval of the inverse ratio. */
static int mutant_swapped(const double *b, int nb, const double *c, int nc,
			  double alpha, double *lo, double *hi)
{
	return lab_ratio_ci(c, nc, b, nb, alpha, lo, hi);
}

/* Every pairwise ratio, min to max, whatever the sample size: too wide. */
static int mutant_all_pairs(const double *b, int nb, const double *c, int nc,
			    double alpha, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = 0;
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < nc; j++) {
			*lo = fmin(*lo, c[j] / b[i]);
			*hi = fmax(*hi, c[j] / b[i]);
		}
	return 0;
}

/* The ratio of the medians, with no width. */
static int mutant_point(const double *b, int nb, const double *c, int nc,
			double alpha, double *lo, double *hi)
{
	*lo = *hi = lab_median(c, nc) / lab_median(b, nb);
	return 0;
}

static void test_known_cases(void)
{
	ok(ci_failures(lab_ratio_ci, true) == 0, "lab_ratio_ci passes every known case");
	ok(ci_failures(mutant_level, false) > 0, "mutant: a 50%% interval is caught");
	ok(ci_failures(mutant_swapped, false) > 0, "mutant: baseline and candidate swapped is caught");
	ok(ci_failures(mutant_all_pairs, false) > 0, "mutant: min..max of all ratios is caught");
	ok(ci_failures(mutant_point, false) > 0, "mutant: a zero-width interval is caught");
}

static void test_no_interval(void)
{
	const double a[] = { 1, 2, 3, 4 }, b[] = { 2, 4, 6, 8 }, neg[] = { 1, -2, 3, 4 };
	double lo, hi;

	ok(lab_ratio_ci(a, 3, b, 3, LAB_ALPHA, &lo, &hi) == -1 && isnan(lo) && isnan(hi),
	   "3 samples a side: no 95%% interval (NAN)");
	int ret = lab_ratio_ci(a, 4, b, 4, LAB_ALPHA, &lo, &hi);

	ok(ret == 0 && near(lo, 0.5) && near(hi, 8), "4 a side: the whole range of ratios, [%g, %g] = [0.5, 8]", lo, hi);
	ok(lab_ratio_ci(a, 4, neg, 4, LAB_ALPHA, &lo, &hi) == -1 && isnan(lo),
	   "a value that is not positive: no interval");
	ok(lab_ratio_ci(a, 0, b, 4, LAB_ALPHA, &lo, &hi) == -1, "an empty sample: no interval");
}

/* Without ties, the interval excludes 1 exactly when the test is significant. */
static void test_agrees_with_mann_whitney(void)
{
	double b[8], c[8], lo, hi;
	int t, n, agree = 0, significant = 0;

	rng = 12345;
	for (t = 0; t < 400; t++) {
		n = 5 + t % 4;
		lognormal(b, n, 1000, 0.05);
		lognormal(c, n, 1000 * (1 + 0.0002 * t), 0.05);
		lab_ratio_ci(b, n, c, n, LAB_ALPHA, &lo, &hi);
		bool sig = lab_mann_whitney_p(b, n, c, n) < LAB_ALPHA;

		significant += sig;
		agree += sig == (lo > 1 || hi < 1);
	}
	ok(agree == 400, "interval and Mann-Whitney agree in %d of 400 (%d significant)",
	   agree, significant);
	ok(significant > 50 && significant < 350, "both outcomes occur (%d significant)", significant);
}

static void test_narrow(void)
{
	ok(lab_ci_narrow(1.0, 0.99, 1.01, 2), "+-1%% is narrow at a 2%% target");
	ok(!lab_ci_narrow(1.0, 0.95, 1.05, 2), "+-5%% is not");
	ok(!lab_ci_narrow(1.0, NAN, NAN, 2), "no interval is not narrow");
	ok(lab_ci_narrow(2.0, 1.97, 2.03, 2), "relative to the ratio: 2 +- 0.03 is");
}

int main(void)
{
	plan_no_plan();
	test_known_cases();
	test_no_interval();
	test_agrees_with_mann_whitney();
	test_narrow();
	return done_testing();
}
