/*
 * Statistics of the runner: summaries, the Mann-Whitney U p-values
 * against exact values and published critical values, and the sign of
 * change_pct for both metric directions.
 */
#include <math.h>

#include "tap.h"
#include <mmlab/stats.h>

static bool near(double got, double want, double tol)
{
	return fabs(got - want) <= tol;
}

static void test_summaries(void)
{
	const double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, h[] = { 1, 2, 4 };
	const double zero[] = { 3, 0 }, neg[] = { 3, -1 };
	struct lab_summary s;

	ok(lab_median(odd, 3) == 3, "median of 5 1 3");
	ok(lab_median(even, 4) == 2.5, "median of 4 1 3 2");
	ok(isnan(lab_median(odd, 0)), "median of nothing is NAN");
	ok(near(lab_hmean(h, 3), 3 / 1.75, 1e-12), "hmean of 1 2 4 = 12/7");
	ok(lab_hmean(zero, 2) == 0, "hmean with a 0 is 0");
	ok(isnan(lab_hmean(neg, 2)), "hmean with a negative is NAN");
	ok(near(lab_mean(h, 3), 7.0 / 3, 1e-12), "mean of 1 2 4");
	lab_summarize(even, 4, &s);
	ok(s.min == 1 && s.max == 4 && s.median == 2.5 && s.mean == 2.5, "summary of 4 1 3 2");
}

/*
 * Two samples of @n1 and @n2 distinct values in which the first sample's
 * values exceed exactly @u of the (x, y) pairs: U = @u.
 */
static void make_u(int n1, int n2, int u, double *x, double *y)
{
	int i, j, below;

	/* x[i] gets min(u_left, n2) y values below it, filling from the largest x */
	for (i = n1 - 1; i >= 0; i--) {
		below = u > n2 ? n2 : u;
		u -= below;
		x[i] = below + 0.5 + i * 0.001;
	}
	for (j = 0; j < n2; j++)
		y[j] = j + 1;
}

static void test_mann_whitney(void)
{
	const double lo[] = { 1, 2, 3, 4, 5 }, hi[] = { 6, 7, 8, 9, 10 };
	const double a[] = { 1, 4, 5, 8, 9 }, b[] = { 2, 3, 6, 7, 10 };
	const double flat[] = { 7, 7, 7, 7, 7 }, one[] = { 1 }, two[] = { 2 };
	const double tx[] = { 1, 2, 2, 3 }, ty[] = { 2, 3, 3, 4 };
	double x[30], y[30], p;

	p = lab_mann_whitney_p(lo, 5, hi, 5);
	ok(near(p, 2.0 / 252, 1e-12), "n=5,5 separated: exact p = 2/252 (got %.6f)", p);
	ok(near(lab_mann_whitney_p(hi, 5, lo, 5), 2.0 / 252, 1e-12), "symmetric in its arguments");
	p = lab_mann_whitney_p(a, 5, b, 5);
	ok(p == 1, "n=5,5 interleaved with U at its mean: p = 1 (got %g)", p);
	ok(lab_mann_whitney_p(lo, 5, lo, 5) == 1, "identical samples: p = 1");
	ok(lab_mann_whitney_p(flat, 5, flat, 5) == 1, "all values tied: p = 1");
	ok(lab_mann_whitney_p(one, 1, two, 1) == 1, "one value each: p = 1");
	ok(lab_mann_whitney_p(one, 0, two, 1) == 1, "an empty sample: p = 1");
	ok(near(lab_mann_whitney_p(lo, 3, hi, 3), 0.1, 1e-12), "n=3,3 separated: p = 2/20");
	ok(near(lab_mann_whitney_p(lo, 4, hi, 4), 2.0 / 70, 1e-12), "n=4,4 separated: p = 2/70");
	/*
	 * With ties the distribution is the permutation one of the mid-ranks:
	 * pooled 1 2 2 2 3 3 3 4 (mid-ranks 1 3 3 3 6 6 6 8) has 70 splits;
	 * tx's rank sum is 13 and 10 of the 70 have a rank sum <= 13
	 * (enumerated), so p = 20/70.
	 */
	p = lab_mann_whitney_p(tx, 4, ty, 4);
	ok(near(p, 20.0 / 70, 1e-12), "ties: exact conditional p = 20/70 (got %.6f)", p);

	/* Published two-sided 5% critical values: n=8: 13, n=10: 23, n=20: 127. */
	make_u(8, 8, 13, x, y);
	ok(lab_mann_whitney_p(x, 8, y, 8) < 0.05, "n=8,8 U=13 is significant");
	make_u(8, 8, 14, x, y);
	ok(lab_mann_whitney_p(x, 8, y, 8) >= 0.05, "n=8,8 U=14 is not");
	make_u(10, 10, 23, x, y);
	ok(lab_mann_whitney_p(x, 10, y, 10) < 0.05, "n=10,10 U=23 is significant");
	make_u(10, 10, 24, x, y);
	ok(lab_mann_whitney_p(x, 10, y, 10) >= 0.05, "n=10,10 U=24 is not");
	make_u(20, 20, 127, x, y);
	ok(lab_mann_whitney_p(x, 20, y, 20) < 0.05, "n=20,20 U=127 is significant");
	make_u(20, 20, 128, x, y);
	ok(lab_mann_whitney_p(x, 20, y, 20) >= 0.05, "n=20,20 U=128 is not");

	/*
	 * n=30,30 uses the normal approximation: mean 450, sd sqrt(4575);
	 * U=300: z = 149.5/67.64 = 2.210, p = 0.0271; U=340: z = 1.619, p = 0.105.
	 */
	make_u(30, 30, 300, x, y);
	p = lab_mann_whitney_p(x, 30, y, 30);
	ok(near(p, 0.0271, 0.0005), "n=30,30 U=300: normal p = 0.0271 (got %.4f)", p);
	make_u(30, 30, 340, x, y);
	p = lab_mann_whitney_p(x, 30, y, 30);
	ok(near(p, 0.105, 0.001), "n=30,30 U=340: normal p = 0.105 (got %.4f)", p);
}

static void test_change_pct(void)
{
	ok(near(lab_change_pct(100, 112, true), 12, 1e-9), "higher is better, more: +12%%");
	ok(near(lab_change_pct(100, 90, true), -10, 1e-9), "higher is better, less: -10%%");
	ok(near(lab_change_pct(100, 75, false), 25, 1e-9), "lower is better, less: +25%%");
	ok(near(lab_change_pct(100, 150, false), -50, 1e-9), "lower is better, more: -50%%");
	ok(lab_change_pct(0, 0, true) == 0, "0 against 0: no change");
	ok(isnan(lab_change_pct(0, 1, true)), "against 0: undefined");
}

int main(void)
{
	plan_no_plan();
	test_summaries();
	test_mann_whitney();
	test_change_pct();
	return done_testing();
}
