/*
 * The latency histogram of <mmlab/hist.h>: everything but the inline
 * record path.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mmlab/experiment.h>
#include <mmlab/hist.h>

void lat_hist_reset(struct lat_hist *h)
{
	memset(h->counts, 0, sizeof(h->counts));
	h->count = 0;
	h->sum = 0;
	h->min = UINT64_MAX;
	h->max = 0;
}

struct lat_hist *lat_hist_new(void)
{
	struct lat_hist *h = malloc(sizeof(*h));

	if (h)
		lat_hist_reset(h);
	return h;
}

void lat_hist_free(struct lat_hist *h)
{
	free(h);
}

void lat_hist_record_n(struct lat_hist *h, uint64_t ns, uint64_t n)
{
	if (!n)
		return;
	h->counts[lat_hist_index(ns)] += n;
	h->count += n;
	h->sum += (unsigned __int128)ns * n;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

void lat_hist_merge(struct lat_hist *dst, const struct lat_hist *src)
{
	unsigned i, first, last;

	if (!src->count)
		return;
	/* only the buckets between src's min and max can be non-zero */
	first = lat_hist_index(src->min);
	last = lat_hist_index(src->max);
	for (i = first; i <= last; i++)
		dst->counts[i] += src->counts[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

void lat_hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned group = idx >> LAT_HIST_SUB_BITS;
	unsigned shift = group ? group - 1 : 0;
	uint64_t sub = idx - ((uint64_t)shift << LAT_HIST_SUB_BITS);

	*lo = sub << shift;
	*hi = *lo + ((1ULL << shift) - 1);
}

/*
 * r = ceil(p / 100 * count), at least 1.  A p with at most six decimals
 * (99.9, 99.99, 12.345678) is taken as that decimal and the rank computed
 * in integers, so 99.9% of 1000 is rank 999 exactly, whatever the count;
 * any other p in floating point.
 */
uint64_t lat_hist_rank(uint64_t count, double p)
{
	double micro, q;
	uint64_t r;

	if (!count)
		return 0;
	if (!(p > 0))			/* also NaN */
		return 1;
	if (p >= 100)
		return count;
	micro = p * 1e6;		/* p in millionths of a percent, < 1e8 */
	q = nearbyint(micro);
	if (fabs(micro - q) <= micro * (4 * DBL_EPSILON)) {
		unsigned __int128 num = (unsigned __int128)(uint64_t)q * count;

		r = (uint64_t)((num + 99999999) / 100000000);
	} else {
		r = (uint64_t)ceil(p / 100 * (double)count);
	}
	if (r < 1)
		r = 1;
	if (r > count)
		r = count;
	return r;
}

uint64_t lat_hist_percentile(const struct lat_hist *h, double p)
{
	uint64_t rank = lat_hist_rank(h->count, p), seen = 0, lo, hi, v;
	unsigned i, last;

	if (!rank)
		return 0;
	if (rank == 1)
		return h->min;
	if (rank == h->count)
		return h->max;
	last = lat_hist_index(h->max);
	for (i = lat_hist_index(h->min); i < last; i++) {
		seen += h->counts[i];
		if (seen >= rank)
			break;
	}
	/* the bucket holding the rank-th value (the last one if none before) */
	lat_hist_bucket_range(i, &lo, &hi);
	v = lo + (hi - lo + 1) / 2;	/* the midpoint; lo for a width-1 bucket */
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

uint64_t lat_hist_min(const struct lat_hist *h)
{
	return h->count ? h->min : 0;
}

uint64_t lat_hist_max(const struct lat_hist *h)
{
	return h->max;
}

double lat_hist_mean(const struct lat_hist *h)
{
	if (!h->count)
		return NAN;
	return (double)h->sum / (double)h->count;
}

/* --- through a sample --------------------------------------------------------- */

static double us(const struct lat_hist *h, uint64_t ns)
{
	return h->count ? ns / 1e3 : NAN;
}

void sample_latency_counters(struct sample *s, const struct lat_hist *h, const char *prefix)
{
	sample_counter(s, sample_name("%s_p50_us", prefix), us(h, lat_hist_percentile(h, 50)));
	sample_counter(s, sample_name("%s_p75_us", prefix), us(h, lat_hist_percentile(h, 75)));
	sample_counter(s, sample_name("%s_p99_us", prefix), us(h, lat_hist_percentile(h, 99)));
	sample_counter(s, sample_name("%s_p999_us", prefix), us(h, lat_hist_percentile(h, 99.9)));
	sample_counter(s, sample_name("%s_mean_us", prefix), lat_hist_mean(h) / 1e3);
	sample_counter(s, sample_name("%s_max_us", prefix), us(h, lat_hist_max(h)));
}

void sample_latency_metrics(struct sample *s, const struct lat_hist *h, const char *prefix)
{
	sample_metric(s, sample_name("%s_p50_us", prefix), us(h, lat_hist_percentile(h, 50)));
	sample_metric(s, sample_name("%s_p75_us", prefix), us(h, lat_hist_percentile(h, 75)));
	sample_metric(s, sample_name("%s_p99_us", prefix), us(h, lat_hist_percentile(h, 99)));
}
