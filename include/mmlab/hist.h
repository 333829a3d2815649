/*
 * A log-linear latency histogram in the style of HdrHistogram, for
 * recording one latency per operation inside a measured loop.
 *
 * Values are uint64_t nanoseconds over the whole range 0..UINT64_MAX
 * (nothing saturates, nothing is dropped).  Buckets:
 *
 *   values 0..2047                    one bucket per value (exact)
 *   values in [2^m, 2^(m+1)), m >= 11 1024 buckets of width 2^(m-10)
 *
 * so a bucket is never wider than 1/1024 of the values in it.
 *
 * ERROR BOUND.  lat_hist_percentile() returns the midpoint of the bucket
 * holding the exact percentile, clamped to [min, max]; hence
 *
 *   |reported - exact| <= exact / 2048      (< 0.049%, 3 significant digits)
 *
 * and reported == exact for every exact value below 2048 ns, for p = 0
 * (the minimum) and p = 100 (the maximum), and whenever all samples are
 * equal.  count, min, max are exact; mean is the exact 128-bit sum over
 * the count in double arithmetic (relative error below 1e-15).
 *
 * PERCENTILE CONVENTION: nearest rank.  Of N recorded samples sorted
 * ascending x[1] <= ... <= x[N], the p-th percentile is x[r] with
 * r = max(1, ceil(p / 100 * N)): the smallest recorded value v such that
 * at least p% of the samples are <= v.  p = 0 gives the minimum, p = 100
 * the maximum, p = 50 of 4 samples the 2nd.  p is read as the decimal the
 * caller wrote when it has at most six decimals, and r computed in
 * integers (99.9% of 1000 samples is rank 999, where ceil(99.9 / 100 *
 * 1000) in doubles is 1000); any other p in floating point.  p below 0
 * (or NaN) is taken as 0, above 100 as 100.
 *
 * COST.  The record path is inline: a count-leading-zeros, a compare, two
 * shifts, an add and increments of the bucket, the count and the sum; min
 * and max are two compares.  No floating point, no division, no
 * allocation.  Fixed memory: sizeof(struct lat_hist) is about 440 KiB,
 * so allocate it (lat_hist_new) or make it static rather than putting it
 * on a thread's stack.
 *
 * Not thread-safe: give each thread its own histogram and merge them
 * (lat_hist_merge, exact) after the threads are joined.
 */
#ifndef MMLAB_HIST_H
#define MMLAB_HIST_H

#include <stdbool.h>
#include <stdint.h>

#include <mmlab/uncharged.h>

#define LAT_HIST_SUB_BITS	10
#define LAT_HIST_SUB		(1u << LAT_HIST_SUB_BITS)	/* buckets per power of two */
/* Indices 0..2*SUB-1 are width 1; then one group of SUB per power of two up to 2^63. */
#define LAT_HIST_BUCKETS	((64 - LAT_HIST_SUB_BITS + 1) * LAT_HIST_SUB)

struct lat_hist {
	uint64_t count;			/* samples recorded */
	uint64_t min, max;		/* UINT64_MAX and 0 while empty */
	unsigned __int128 sum;		/* of the values, exact */
	uint64_t counts[LAT_HIST_BUCKETS];
};

/* The bucket of @ns: monotonic in @ns, < LAT_HIST_BUCKETS. */
static inline __lab_uncharged unsigned lat_hist_index(uint64_t ns)
{
	unsigned msb = 63 - __builtin_clzll(ns | 1);
	unsigned shift = msb > LAT_HIST_SUB_BITS ? msb - LAT_HIST_SUB_BITS : 0;

	return (shift << LAT_HIST_SUB_BITS) + (unsigned)(ns >> shift);
}

/* O(1), no floating point, no division, no allocation. */
static inline __lab_uncharged void lat_hist_record(struct lat_hist *h, uint64_t ns)
{
	h->counts[lat_hist_index(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

/* @n samples of the same value @ns (n = 0 records nothing). */
void lat_hist_record_n(struct lat_hist *h, uint64_t ns, uint64_t n);

/* Empty a histogram (also the initialisation of one not from lat_hist_new). */
void lat_hist_reset(struct lat_hist *h);
/* A new empty histogram, or NULL if out of memory; free with lat_hist_free. */
struct lat_hist *lat_hist_new(void);
void lat_hist_free(struct lat_hist *h);

/* Add every sample of @src to @dst: exactly as if @dst had recorded them. */
void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src);

/* The nearest-rank percentile (above), within exact/2048; 0 if empty. */
uint64_t lat_hist_percentile(const struct lat_hist *h, double p);
/* The rank (1..count) lat_hist_percentile() looks for; 0 if empty. */
uint64_t lat_hist_rank(uint64_t count, double p);

static inline uint64_t lat_hist_count(const struct lat_hist *h)
{
	return h->count;
}

/* Exact; 0 if empty. */
uint64_t lat_hist_min(const struct lat_hist *h);
uint64_t lat_hist_max(const struct lat_hist *h);
/* The exact sum / count in double (relative error < 1e-15); NAN if empty. */
double lat_hist_mean(const struct lat_hist *h);

/* The values [*lo, *hi] that bucket @idx (< LAT_HIST_BUCKETS) holds. */
void lat_hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);

/* --- reporting through a sample (struct sample of <mmlab/experiment.h>) ------ */

struct sample;

/*
 * Counters <prefix>_p50_us, _p75_us, _p99_us, _p999_us, _mean_us, _max_us
 * (microseconds, doubles; six of the sample's MAX_COUNTERS).  An empty
 * histogram gives NAN for each (null in the JSON).
 */
void sample_latency_counters(struct sample *s, const struct lat_hist *h, const char *prefix);

/*
 * Metrics <prefix>_p50_us, _p75_us, _p99_us (microseconds) of a sample;
 * the experiment declares them in its metrics, e.g. with
 * LAT_HIST_METRICS("lat") (lower is better, unit "us").
 */
void sample_latency_metrics(struct sample *s, const struct lat_hist *h, const char *prefix);

#define LAT_HIST_METRICS(prefix)				\
	{ prefix "_p50_us", "us", false },			\
	{ prefix "_p75_us", "us", false },			\
	{ prefix "_p99_us", "us", false }

#endif
