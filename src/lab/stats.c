/*
 * Summaries of a cell's samples and the significance test between the
 * baseline and a candidate: two-sided Mann-Whitney U (Wilcoxon rank sum).
 *
 * For at most 20 values per side the p-value is exact: the permutation
 * distribution of the baseline's rank sum, counted by dynamic programming
 * over the pooled ranks.  Ties get mid-ranks and the distribution is the
 * one conditional on those tied ranks, so it stays exact with ties.
 * Larger samples use the normal approximation with tie and continuity
 * correction.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/stats.h>

#define MW_EXACT_MAX	20

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double lab_median(const double *v, int n)
{
	double *s, m;

	if (n <= 0)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

double lab_mean(const double *v, int n)
{
	double sum = 0;
	int i;

	if (n <= 0)
		return NAN;
	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

double lab_hmean(const double *v, int n)
{
	double inv = 0;
	bool zero = false;
	int i;

	if (n <= 0)
		return NAN;
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return NAN;
		if (v[i] == 0)
			zero = true;
		else
			inv += 1 / v[i];
	}
	return zero ? 0 : n / inv;
}

void lab_summarize(const double *v, int n, struct lab_summary *s)
{
	int i;

	s->median = lab_median(v, n);
	s->mean = lab_mean(v, n);
	s->hmean = lab_hmean(v, n);
	s->min = n > 0 ? v[0] : NAN;
	s->max = s->min;
	for (i = 1; i < n; i++) {
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
}

double lab_change_pct(double base, double cand, bool higher_is_better)
{
	if (base == 0)
		return cand == 0 ? 0 : NAN;
	return (higher_is_better ? cand - base : base - cand) / fabs(base) * 100;
}

/* --- Mann-Whitney U ------------------------------------------------------------------ */

struct ranked {
	double value;
	bool first;		/* from the first sample */
};

static int cmp_ranked(const void *a, const void *b)
{
	return cmp_double(&((const struct ranked *)a)->value, &((const struct ranked *)b)->value);
}

/*
 * Twice the mid-rank of every pooled value (so they are integers), in
 * sorted order; returns twice the first sample's rank sum.  *ties gets
 * the sum of t^3 - t over groups of t tied values.
 */
static long rank2(const double *x, int nx, const double *y, int ny,
		  int *r2, double *ties)
{
	int n = nx + ny, i, j, k;
	struct ranked *all = malloc(n * sizeof(*all));
	long w2 = 0;

	if (!all)
		abort();
	for (i = 0; i < n; i++) {
		all[i].value = i < nx ? x[i] : y[i - nx];
		all[i].first = i < nx;
	}
	qsort(all, n, sizeof(*all), cmp_ranked);
	*ties = 0;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j].value == all[i].value; j++)
			;
		/* positions i+1 .. j share the rank (i+1+j)/2 */
		for (k = i; k < j; k++) {
			r2[k] = i + 1 + j;
			if (all[k].first)
				w2 += r2[k];
		}
		*ties += (double)(j - i) * (j - i) * (j - i) - (j - i);
	}
	free(all);
	return w2;
}

/* P-value from the exact distribution of the doubled rank sum of nx of the n values. */
static double mw_exact(const int *r2, int n, int nx, long w2)
{
	long total_r2 = 0, s;
	double lower = 0, upper = 0, total = 0, *dp, p;
	int i, j;

	for (i = 0; i < n; i++)
		total_r2 += r2[i];
	/* dp[j * (total_r2 + 1) + s]: ways to pick j values with doubled rank sum s */
	dp = calloc((size_t)(nx + 1) * (total_r2 + 1), sizeof(*dp));
	if (!dp)
		abort();
	dp[0] = 1;
	for (i = 0; i < n; i++)
		for (j = (i + 1 < nx ? i + 1 : nx); j >= 1; j--)
			for (s = total_r2; s >= r2[i]; s--)
				dp[j * (total_r2 + 1) + s] += dp[(j - 1) * (total_r2 + 1) + s - r2[i]];
	for (s = 0; s <= total_r2; s++) {
		double ways = dp[nx * (total_r2 + 1) + s];

		total += ways;
		if (s <= w2)
			lower += ways;
		if (s >= w2)
			upper += ways;
	}
	free(dp);
	p = 2 * (lower < upper ? lower : upper) / total;
	return p < 1 ? p : 1;
}

static double mw_normal(int nx, int ny, long w2, double ties)
{
	double n = nx + ny;
	double u = w2 / 2.0 - nx * (nx + 1) / 2.0;
	double mu = nx * (double)ny / 2;
	double var = nx * (double)ny / 12 * ((n + 1) - ties / (n * (n - 1)));
	double z;

	if (var <= 0)
		return 1;
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	return erfc(z / sqrt(2));
}

double lab_mann_whitney_p(const double *x, int nx, const double *y, int ny)
{
	int n = nx + ny, *r2;
	double ties, p;
	long w2;

	if (nx <= 0 || ny <= 0)
		return 1;
	r2 = malloc(n * sizeof(*r2));
	if (!r2)
		abort();
	w2 = rank2(x, nx, y, ny, r2, &ties);
	if (nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX)
		p = mw_exact(r2, n, nx, w2);
	else
		p = mw_normal(nx, ny, w2, ties);
	free(r2);
	return p;
}

/* --- the ratio's confidence interval --------------------------------------------- */

/*
 * Why this interval: the samples are few (3 to 20 per side is usual) and
 * timings are skewed, so a normal-theory interval (Fieller, or a t
 * interval of log values) leans on an assumption the data rarely meet,
 * and a bootstrap of so few values under-covers badly.  The interval that
 * inverts the Mann-Whitney test the runner already uses is exact and
 * distribution-free: if the candidate is the baseline scaled by a factor
 * theta (a shift of log theta in log values), the nb * nc pairwise
 * log-ratios log(c_j / b_i), sorted, hold theta's 1 - alpha interval
 * between the k-th smallest and the k-th largest, where k - 1 is the
 * largest U with P(U <= k - 1) <= alpha / 2 (Bauer 1972; its centre is the
 * Hodges-Lehmann estimate).  So the interval excludes 1 exactly when the
 * test calls the difference significant, up to ties.  With fewer than 4
 * samples on a side no k exists at alpha 0.05 and there is no interval.
 */

/* P(U <= u) for every u in 0..nb*nc, no ties: rank sums of nb of nb+nc ranks. */
static double *u_cdf_exact(int nb, int nc)
{
	int n = nb + nc, top = n * (n + 1) / 2, i, j, s, u;
	double *dp = calloc((size_t)(nb + 1) * (top + 1), sizeof(*dp));
	double *cdf = calloc((size_t)nb * nc + 1, sizeof(*cdf));
	double total = 0, run = 0;

	if (!dp || !cdf)
		abort();
	dp[0] = 1;
	for (i = 1; i <= n; i++)
		for (j = (i < nb ? i : nb); j >= 1; j--)
			for (s = top; s >= i; s--)
				dp[j * (top + 1) + s] += dp[(j - 1) * (top + 1) + s - i];
	for (u = 0; u <= nb * nc; u++)
		total += dp[nb * (top + 1) + u + nb * (nb + 1) / 2];
	for (u = 0; u <= nb * nc; u++) {
		run += dp[nb * (top + 1) + u + nb * (nb + 1) / 2];
		cdf[u] = run / total;
	}
	free(dp);
	return cdf;
}

/* The standard normal quantile of @p in (0, 1), by bisection of erfc. */
static double normal_quantile(double p)
{
	double lo = -40, hi = 40;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (erfc(-mid / sqrt(2)) / 2 < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* How many pairwise differences to drop at each end; 0: no interval. */
static long ci_trim(int nb, int nc, double alpha)
{
	double n = (double)nb * nc;
	long k = 0;

	if (nb <= MW_EXACT_MAX && nc <= MW_EXACT_MAX) {
		double *cdf = u_cdf_exact(nb, nc);

		while (k <= (long)n && cdf[k] <= alpha / 2)
			k++;
		free(cdf);
		return k;
	}
	k = (long)floor(n / 2 - normal_quantile(1 - alpha / 2) *
			sqrt(n * (nb + nc + 1) / 12));
	return k > 0 ? k : 0;
}

int lab_ratio_ci(const double *base, int nb, const double *cand, int nc,
		 double alpha, double *lo, double *hi)
{
	long n = (long)nb * nc, k, i, j;
	double *d;

	*lo = *hi = NAN;
	if (nb <= 0 || nc <= 0 || !(alpha > 0 && alpha < 1))
		return -1;
	for (i = 0; i < nb; i++)
		if (!(base[i] > 0) || !isfinite(base[i]))
			return -1;
	for (j = 0; j < nc; j++)
		if (!(cand[j] > 0) || !isfinite(cand[j]))
			return -1;
	k = ci_trim(nb, nc, alpha);
	if (k < 1 || k > (n + 1) / 2)
		return -1;
	d = malloc(n * sizeof(*d));
	if (!d)
		abort();
	for (i = 0; i < nb; i++)
		for (j = 0; j < nc; j++)
			d[i * nc + j] = log(cand[j]) - log(base[i]);
	qsort(d, n, sizeof(*d), cmp_double);
	*lo = exp(d[k - 1]);
	*hi = exp(d[n - k]);
	free(d);
	return 0;
}

bool lab_ci_narrow(double ratio, double lo, double hi, double target_pct)
{
	if (!isfinite(lo) || !isfinite(hi) || !isfinite(ratio) || ratio <= 0)
		return false;
	return (hi - lo) / 2 <= ratio * target_pct / 100;
}
