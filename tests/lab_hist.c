/*
 * The latency histogram (<mmlab/hist.h>): every percentile of known
 * distributions against the exact nearest-rank percentile of the sorted
 * samples, within the stated bound |reported - exact| <= exact / 2048;
 * count, min, max and mean; merge against one histogram of all samples;
 * the bucket layout; the sample helpers.  Deliberately wrong percentile
 * and merge routines run through the same comparisons and must fail them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"
#include <mmlab/experiment.h>
#include <mmlab/hist.h>

/* --- deterministic inputs ------------------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)		/* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(void)		/* [0, 1) */
{
	return (rnd() >> 11) * 0x1p-53;
}

static uint64_t between(uint64_t lo, uint64_t hi)	/* [lo, hi] */
{
	return lo + rnd() % (hi - lo + 1);
}

struct dist {
	const char *name;
	uint64_t *v;
	uint64_t n;
};

#define MAX_DISTS	24
static struct dist dists[MAX_DISTS];
static int nr_dists;

static uint64_t *new_dist(const char *name, uint64_t n)
{
	struct dist *d = &dists[nr_dists++];

	d->name = name;
	d->n = n;
	d->v = calloc(n, sizeof(*d->v));
	if (!d->v)
		abort();
	return d->v;
}

static void make_dists(void)
{
	uint64_t i, *v;

	v = new_dist("uniform 0..1ms", 100000);
	for (i = 0; i < 100000; i++)
		v[i] = between(0, 999999);
	v = new_dist("exponential, mean 20us", 100000);
	for (i = 0; i < 100000; i++)
		v[i] = (uint64_t)(-log(1 - unif()) * 20000);
	/* exactly 90% in the low mode: p90 is its last value, the next rank is ~200x more */
	v = new_dist("bimodal 2us/500us, 90:10", 100000);
	for (i = 0; i < 100000; i++)
		v[i] = i % 10 ? between(1500, 2500) : between(400000, 600000);
	v = new_dist("constant 12345", 1000);
	for (i = 0; i < 1000; i++)
		v[i] = 12345;
	v = new_dist("single value", 1);
	v[0] = 987654321;
	v = new_dist("log-uniform 1ns..1h", 100000);
	for (i = 0; i < 100000; i++)
		v[i] = (uint64_t)exp(unif() * log(3.6e12));
	v = new_dist("uniform 1s..10s", 10000);
	for (i = 0; i < 10000; i++)
		v[i] = between(1000000000, 10000000000ULL);
	v = new_dist("huge: 2^63..UINT64_MAX", 1000);
	for (i = 0; i < 1000; i++)
		v[i] = i < 3 ? UINT64_MAX - i : (1ULL << 63) | rnd();
	v = new_dist("all zero", 100);
	v = new_dist("30% zero, rest 1..5000", 10000);
	for (i = 0; i < 10000; i++)
		v[i] = i % 10 < 3 ? 0 : between(1, 5000);
	v = new_dist("0..2047 (exact range)", 50000);
	for (i = 0; i < 50000; i++)
		v[i] = between(0, 2047);
	/* adjacent values 1% apart: every rank error shows */
	v = new_dist("geometric, 1000 distinct", 1000);
	for (i = 0; i < 1000; i++)
		v[i] = (uint64_t)(1000 * pow(1.01, (double)i));
	v = new_dist("3 values", 3);
	v[0] = 5000, v[1] = 1000, v[2] = 3000;
	v = new_dist("4 values", 4);
	v[0] = 40000, v[1] = 10000, v[2] = 30000, v[3] = 20000;
	v = new_dist("7 values", 7);
	for (i = 0; i < 7; i++)
		v[i] = 100000 * (7 - i);
	v = new_dist("2 values, far apart", 2);
	v[0] = 1, v[1] = 3600000000000ULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* --- the oracle ----------------------------------------------------------------- */

/* The percentiles under test, and the same in thousandths for exact integer ranks. */
static const double pcts[] = { 0, 1, 25, 50, 75, 90, 99, 99.9, 100 };
static const unsigned pct_milli[] = { 0, 1000, 25000, 50000, 75000, 90000, 99000, 99900, 100000 };
#define NR_PCTS	(sizeof(pcts) / sizeof(pcts[0]))

/* Nearest rank: r = max(1, ceil(milli * n / 100000)), in integers. */
static uint64_t exact_rank(uint64_t n, unsigned milli)
{
	unsigned __int128 num = (unsigned __int128)milli * n;
	uint64_t r = (uint64_t)((num + 99999) / 100000);

	return r ? r : 1;
}

/* The stated bound: |got - exact| <= exact / 2048 (so exact below 2048). */
static bool within(uint64_t got, uint64_t exact)
{
	uint64_t d = got > exact ? got - exact : exact - got;

	return d <= exact >> 11;
}

typedef uint64_t (*pct_fn)(const struct lat_hist *h, double p);

/* The histogram of a distribution, and its sorted copy. */
struct subject {
	const struct dist *d;
	struct lat_hist *h;
	uint64_t *sorted;
};

static struct subject subjects[MAX_DISTS];

static void make_subjects(void)
{
	int i;
	uint64_t j;

	for (i = 0; i < nr_dists; i++) {
		struct subject *s = &subjects[i];

		s->d = &dists[i];
		s->h = lat_hist_new();
		s->sorted = malloc(s->d->n * sizeof(*s->sorted));
		if (!s->h || !s->sorted)
			abort();
		for (j = 0; j < s->d->n; j++)
			lat_hist_record(s->h, s->d->v[j]);
		memcpy(s->sorted, s->d->v, s->d->n * sizeof(*s->sorted));
		qsort(s->sorted, s->d->n, sizeof(*s->sorted), cmp_u64);
	}
}

/*
 * Every percentile of @s by @fn against the exact one; returns how many
 * miss.  Within exact/2048, and equal where the header promises it: exact
 * values below 2048, p0 (min), p100 (max), all samples equal.  With
 * @report, one test point per percentile.
 */
static int compare_percentiles(const struct subject *s, pct_fn fn, bool report)
{
	bool all_equal = s->sorted[0] == s->sorted[s->d->n - 1];
	unsigned k;
	int misses = 0;

	for (k = 0; k < NR_PCTS; k++) {
		uint64_t exact = s->sorted[exact_rank(s->d->n, pct_milli[k]) - 1];
		uint64_t got = fn(s->h, pcts[k]);
		bool must_equal = pcts[k] == 0 || pcts[k] == 100 || all_equal;
		bool good = must_equal ? got == exact : within(got, exact);

		misses += !good;
		if (report)
			ok(good, "%s: p%g = %" PRIu64 ", exact %" PRIu64 " (%s)", s->d->name, pcts[k],
			   got, exact, must_equal || exact < 2048 ? "equal" : "|diff| <= exact/2048");
	}
	return misses;
}

static const struct subject *subject(const char *name)
{
	int i;

	for (i = 0; i < nr_dists; i++)
		if (!strcmp(subjects[i].d->name, name))
			return &subjects[i];
	abort();
}

/* --- mutants: each wrong in one way ----------------------------------------------- */

/* The bucket index holding rank @r, by a plain scan. */
static unsigned bucket_of_rank(const struct lat_hist *h, uint64_t r)
{
	uint64_t seen = 0;
	unsigned i;

	for (i = 0; i < LAT_HIST_BUCKETS - 1; i++) {
		seen += h->counts[i];
		if (seen >= r)
			break;
	}
	return i;
}

static uint64_t midpoint_clamped(const struct lat_hist *h, unsigned idx)
{
	uint64_t lo, hi, v;

	lat_hist_bucket_range(idx, &lo, &hi);
	v = lo + (hi - lo + 1) / 2;
	return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* Right rank, but the value at 1/64 resolution, rounded down. */
static uint64_t mut_coarse(const struct lat_hist *h, double p)
{
	uint64_t lo, hi;
	unsigned msb;

	if (!h->count)
		return 0;
	lat_hist_bucket_range(bucket_of_rank(h, lat_hist_rank(h->count, p)), &lo, &hi);
	msb = 63 - __builtin_clzll(lo | 1);
	return msb > 6 ? lo & ~((1ULL << (msb - 6)) - 1) : lo;
}

/* Right rank and bucket, the bucket's lower bound (error up to 1/1024, not 1/2048). */
static uint64_t mut_lower_bound(const struct lat_hist *h, double p)
{
	uint64_t lo, hi;

	if (!h->count)
		return 0;
	lat_hist_bucket_range(bucket_of_rank(h, lat_hist_rank(h->count, p)), &lo, &hi);
	return lo;
}

/* One rank too far (ranks by "more than p% are <= v"). */
static uint64_t mut_rank_plus_one(const struct lat_hist *h, double p)
{
	uint64_t r;

	if (!h->count)
		return 0;
	r = lat_hist_rank(h->count, p) + 1;
	return midpoint_clamped(h, bucket_of_rank(h, r > h->count ? h->count : r));
}

/* floor instead of ceil: "at most p% are below v". */
static uint64_t mut_floor_rank(const struct lat_hist *h, double p)
{
	uint64_t r;

	if (!h->count)
		return 0;
	r = (uint64_t)(p / 100 * h->count);
	return midpoint_clamped(h, bucket_of_rank(h, r ? r : 1));
}

/* ceil(p / 100 * n) in plain floating point: 99.9% of 1000 becomes rank 1000. */
static uint64_t mut_naive_float_rank(const struct lat_hist *h, double p)
{
	uint64_t r;

	if (!h->count)
		return 0;
	r = (uint64_t)ceil(p / 100 * h->count);
	if (r < 1)
		r = 1;
	return midpoint_clamped(h, bucket_of_rank(h, r > h->count ? h->count : r));
}

/* The true routine minus the clamp to [min, max]. */
static uint64_t mut_no_clamp(const struct lat_hist *h, double p)
{
	uint64_t lo, hi;

	if (!h->count)
		return 0;
	lat_hist_bucket_range(bucket_of_rank(h, lat_hist_rank(h->count, p)), &lo, &hi);
	return lo + (hi - lo + 1) / 2;
}

static const struct {
	const char *name;
	pct_fn fn;
} mutants[] = {
	{ "value at 1/64 resolution", mut_coarse },
	{ "bucket lower bound", mut_lower_bound },
	{ "rank + 1", mut_rank_plus_one },
	{ "floor rank", mut_floor_rank },
	{ "naive floating-point rank", mut_naive_float_rank },
	{ "no clamp to [min, max]", mut_no_clamp },
};

/* --- tests ----------------------------------------------------------------------- */

static void test_layout(void)
{
	uint64_t lo, hi, prev_hi = 0;
	bool contiguous = true, indexed = true, narrow = true;
	unsigned i;

	for (i = 0; i < LAT_HIST_BUCKETS; i++) {
		lat_hist_bucket_range(i, &lo, &hi);
		if (i ? lo != prev_hi + 1 : lo != 0)
			contiguous = false;
		if (lat_hist_index(lo) != i || lat_hist_index(hi) != i)
			indexed = false;
		/* width 1 below 2048, else at most 1/1024 of the bucket's lowest value */
		if (lo < 2048 ? hi != lo : (hi - lo + 1) > lo >> 10)
			narrow = false;
		prev_hi = hi;
	}
	ok(contiguous && prev_hi == UINT64_MAX, "buckets tile 0..UINT64_MAX without gaps");
	ok(indexed, "lat_hist_index() maps both ends of every bucket to that bucket");
	ok(narrow, "buckets are exact below 2048 and at most 1/1024 wide above");
	ok(lat_hist_index(0) == 0 && lat_hist_index(2047) == 2047 && lat_hist_index(2048) == 2048 &&
	   lat_hist_index(2049) == 2048 && lat_hist_index(2050) == 2049 &&
	   lat_hist_index(UINT64_MAX) == LAT_HIST_BUCKETS - 1, "index spot checks");
	diag("%u buckets, %zu bytes per histogram", (unsigned)LAT_HIST_BUCKETS, sizeof(struct lat_hist));
}

static void test_rank(void)
{
	uint64_t n;
	unsigned k;
	int bad = 0, bad_random = 0, i;

	for (n = 1; n <= 3000; n++)
		for (k = 0; k < NR_PCTS; k++)
			bad += lat_hist_rank(n, pcts[k]) != exact_rank(n, pct_milli[k]);
	ok(!bad, "lat_hist_rank() is the integer nearest rank for n = 1..3000 and every p (%d wrong)", bad);
	for (i = 0; i < 200000; i++) {
		unsigned milli = rnd() % 100001;

		n = i % 3 == 0 ? 1 + rnd() % 1000000 : i % 3 == 1 ? 1 + rnd() % 1000000000000ULL : rnd() >> 1;
		bad_random += lat_hist_rank(n, milli / 1000.0) != exact_rank(n, milli);
	}
	ok(!bad_random, "and for random n up to 2^63 and p with three decimals (%d wrong)", bad_random);
	ok(lat_hist_rank(0, 50) == 0 && lat_hist_rank(10, -5) == 1 && lat_hist_rank(10, NAN) == 1 &&
	   lat_hist_rank(10, 150) == 10 && lat_hist_rank(10, 1e-300) == 1, "rank edge cases");
}

static void test_percentiles(void)
{
	int i;

	for (i = 0; i < nr_dists; i++)
		compare_percentiles(&subjects[i], lat_hist_percentile, true);
}

static void test_mutants(void)
{
	unsigned m;
	int i;

	for (m = 0; m < sizeof(mutants) / sizeof(mutants[0]); m++) {
		int misses = 0, caught_in = 0;

		for (i = 0; i < nr_dists; i++) {
			int k = compare_percentiles(&subjects[i], mutants[m].fn, false);

			misses += k;
			caught_in += k > 0;
		}
		ok(misses > 0, "mutant '%s' fails the same comparison (%d percentiles in %d distributions)",
		   mutants[m].name, misses, caught_in);
	}
	/* the targeted cases, each named */
	ok(compare_percentiles(subject("bimodal 2us/500us, 90:10"), mut_rank_plus_one, false) > 0,
	   "rank + 1 is caught on the bimodal distribution (p90 is the low mode's last value)");
	ok(compare_percentiles(subject("geometric, 1000 distinct"), mut_naive_float_rank, false) > 0,
	   "the naive floating-point rank is caught at p99.9 of 1000 values");
	ok(compare_percentiles(subject("3 values"), mut_floor_rank, false) > 0,
	   "floor rank is caught at p50 of 3 values");
	ok(compare_percentiles(subject("constant 12345"), mut_no_clamp, false) > 0,
	   "no clamp is caught on a constant distribution");
}

static bool mean_ok(const struct subject *s)
{
	unsigned __int128 sum = 0;
	long double want;
	double got = lat_hist_mean(s->h);
	uint64_t i;

	for (i = 0; i < s->d->n; i++)
		sum += s->d->v[i];
	want = (long double)sum / s->d->n;
	return want == 0 ? got == 0 : fabsl(got - want) <= want * 1e-15L;
}

static void test_summary(void)
{
	int i, bad_count = 0, bad_min = 0, bad_max = 0, bad_mean = 0;

	for (i = 0; i < nr_dists; i++) {
		const struct subject *s = &subjects[i];

		bad_count += lat_hist_count(s->h) != s->d->n;
		bad_min += lat_hist_min(s->h) != s->sorted[0];
		bad_max += lat_hist_max(s->h) != s->sorted[s->d->n - 1];
		if (!mean_ok(s)) {
			bad_mean++;
			diag("%s: mean %.17g", s->d->name, lat_hist_mean(s->h));
		}
	}
	ok(!bad_count, "count exact for every distribution");
	ok(!bad_min && !bad_max, "min and max exact for every distribution");
	ok(!bad_mean, "mean within 1e-15 of the exact mean for every distribution (huge values included)");
}

static void test_empty_and_reset(void)
{
	struct lat_hist *h = lat_hist_new(), *fresh = lat_hist_new();
	int i;

	ok(lat_hist_count(h) == 0 && lat_hist_percentile(h, 50) == 0 && lat_hist_min(h) == 0 &&
	   lat_hist_max(h) == 0 && isnan(lat_hist_mean(h)), "empty: count 0, percentiles 0, mean NAN");
	for (i = 0; i < 1000; i++)
		lat_hist_record(h, rnd());
	lat_hist_reset(h);
	ok(!memcmp(h, fresh, sizeof(*h)), "reset gives an empty histogram");
	lat_hist_record_n(h, 5000, 7);
	lat_hist_record_n(h, 9, 0);
	for (i = 0; i < 7; i++)
		lat_hist_record(fresh, 5000);
	ok(!memcmp(h, fresh, sizeof(*h)), "record_n(v, 7) is seven records, record_n(v, 0) nothing");
	lat_hist_free(h);
	lat_hist_free(fresh);
}

/* dst += src with the scan one bucket short: misses src's largest bucket. */
static void mut_merge_short(struct lat_hist *dst, const struct lat_hist *src)
{
	unsigned i;

	if (!src->count)
		return;
	for (i = lat_hist_index(src->min); i < lat_hist_index(src->max); i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* Same state, bucket by bucket, and the same percentiles. */
static bool same_hist(const struct lat_hist *a, const struct lat_hist *b)
{
	unsigned k;

	for (k = 0; k < NR_PCTS; k++)
		if (lat_hist_percentile(a, pcts[k]) != lat_hist_percentile(b, pcts[k]))
			return false;
	return !memcmp(a->counts, b->counts, sizeof(a->counts)) && a->count == b->count &&
	       a->sum == b->sum && a->min == b->min && a->max == b->max;
}

/*
 * @s's samples dealt at random into @parts histograms, merged with @merge
 * into a fresh one; true if it equals the histogram of all samples.
 */
static bool merged_equals(const struct subject *s, int parts,
			  void (*merge)(struct lat_hist *, const struct lat_hist *))
{
	struct lat_hist *part[4], *sum = lat_hist_new();
	uint64_t i;
	bool same;
	int k;

	for (k = 0; k < parts; k++)
		part[k] = lat_hist_new();
	for (i = 0; i < s->d->n; i++)
		lat_hist_record(part[rnd() % parts], s->d->v[i]);
	for (k = 0; k < parts; k++)
		merge(sum, part[k]);
	same = same_hist(sum, s->h);
	for (k = 0; k < parts; k++)
		lat_hist_free(part[k]);
	lat_hist_free(sum);
	return same;
}

static void test_merge(void)
{
	struct lat_hist *a = lat_hist_new(), *empty = lat_hist_new();
	int i, bad2 = 0, bad4 = 0, mutant_caught = 0;

	for (i = 0; i < nr_dists; i++) {
		bad2 += !merged_equals(&subjects[i], 2, lat_hist_merge);
		bad4 += !merged_equals(&subjects[i], 4, lat_hist_merge);
		mutant_caught += !merged_equals(&subjects[i], 2, mut_merge_short);
	}
	ok(!bad2, "merge of two histograms equals one histogram of all samples, every distribution");
	ok(!bad4, "so does merging four (per-thread) histograms into an empty one");
	ok(mutant_caught > 0, "a merge that skips the last bucket fails the same comparison (%d of %d)",
	   mutant_caught, nr_dists);
	lat_hist_merge(a, subjects[0].h);
	lat_hist_merge(a, empty);
	ok(same_hist(a, subjects[0].h), "merging an empty histogram changes nothing");
	lat_hist_free(a);
	lat_hist_free(empty);
}

static const struct counter *find_counter(const struct sample *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_counters; i++)
		if (!strcmp(s->counters[i].name, name))
			return &s->counters[i];
	return NULL;
}

static const struct metric_value *find_metric(const struct sample *s, const char *name)
{
	int i;

	for (i = 0; i < s->nr_metrics; i++)
		if (!strcmp(s->metrics[i].name, name))
			return &s->metrics[i];
	return NULL;
}

static void test_sample_helpers(void)
{
	static const char *const names[] = { "rd_p50_us", "rd_p75_us", "rd_p99_us", "rd_p999_us",
					     "rd_mean_us", "rd_max_us" };
	const struct subject *s = subject("exponential, mean 20us");
	struct lat_hist *empty = lat_hist_new();
	const struct counter *c;
	struct sample smp = { 0 }, e = { 0 };
	bool found = true;
	unsigned i;

	sample_latency_counters(&smp, s->h, "rd");
	for (i = 0; i < 6; i++)
		found = found && find_counter(&smp, names[i]);
	ok(smp.nr_counters == 6 && found, "sample_latency_counters: six counters named <prefix>_...");
	c = find_counter(&smp, "rd_p99_us");
	ok(c && c->value == lat_hist_percentile(s->h, 99) / 1e3 && !c->json, "p99 in microseconds");
	c = find_counter(&smp, "rd_max_us");
	ok(c && c->value == s->sorted[s->d->n - 1] / 1e3, "max in microseconds, exact");
	c = find_counter(&smp, "rd_mean_us");
	ok(c && fabs(c->value - lat_hist_mean(s->h) / 1e3) < 1e-9, "mean in microseconds");
	ok(sample_name("%s_p50_us", "rd") == find_counter(&smp, "rd_p50_us")->name,
	   "sample_name: one lasting copy per text");

	sample_latency_metrics(&smp, s->h, "lat");
	ok(smp.nr_metrics == 3 && find_metric(&smp, "lat_p50_us") && find_metric(&smp, "lat_p75_us") &&
	   find_metric(&smp, "lat_p99_us") &&
	   find_metric(&smp, "lat_p75_us")->value == lat_hist_percentile(s->h, 75) / 1e3,
	   "sample_latency_metrics: lat_p50_us, lat_p75_us, lat_p99_us");
	sample_metric(&smp, "lat_p50_us", 1.5);
	ok(smp.nr_metrics == 3 && find_metric(&smp, "lat_p50_us")->value == 1.5,
	   "sample_metric on a name already set replaces the value");

	sample_latency_counters(&e, empty, "x");
	ok(isnan(find_counter(&e, "x_p50_us")->value) && isnan(find_counter(&e, "x_max_us")->value),
	   "an empty histogram's counters are NAN (null in the JSON)");
	lat_hist_free(empty);
}

/* Not a test point: what one record costs here (the loop's own cost included). */
static void measure_record(void)
{
	struct lat_hist *h = lat_hist_new();
	struct timespec t0, t1;
	uint64_t i, n = 20000000, x = 12345;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		lat_hist_record(h, x >> 44);	/* 0 .. 1M ns */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	diag("lat_hist_record: %.2f ns per call (-O1 test build, with an LCG)",
	     ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
	lat_hist_free(h);
}

int main(void)
{
	int i;

	plan_no_plan();
	make_dists();
	make_subjects();
	test_layout();
	test_rank();
	test_percentiles();
	test_mutants();
	test_summary();
	test_empty_and_reset();
	test_merge();
	test_sample_helpers();
	measure_record();
	for (i = 0; i < nr_dists; i++) {
		lat_hist_free(subjects[i].h);
		free(subjects[i].sorted);
		free(dists[i].v);
	}
	return done_testing();
}
