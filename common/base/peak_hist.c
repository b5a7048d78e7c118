/* Log-linear latency histogram (the HdrHistogram idea): constant relative error, fixed
 * memory, exact merge. */
#include "peak_hist.h"

#include <math.h>
#include <string.h>

static unsigned bucket_of(uint64_t v)
{
	if (v < PEAK_HIST_SUB_COUNT)
		return (unsigned)v;
	unsigned msb = 63u - (unsigned)__builtin_clzll(v);
	unsigned group = msb - PEAK_HIST_SUB_BITS + 1u; /* bucket width 2^(group-1) */
	uint64_t sub = (v - (1ull << msb)) >> (group - 1u);
	return group * PEAK_HIST_SUB_COUNT + (unsigned)sub;
}

/* Midpoint of a bucket: the value reported for everything recorded in it. */
static uint64_t bucket_value(unsigned idx)
{
	unsigned group = idx / PEAK_HIST_SUB_COUNT;
	uint64_t sub = idx % PEAK_HIST_SUB_COUNT;
	if (group == 0)
		return sub;
	unsigned msb = group + PEAK_HIST_SUB_BITS - 1u;
	uint64_t width = 1ull << (group - 1u);
	return (1ull << msb) + sub * width + width / 2;
}

void peak_hist_init(struct peak_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void peak_hist_record(struct peak_hist *h, uint64_t value)
{
	h->counts[bucket_of(value)]++;
	if (h->n == 0 || value < h->min)
		h->min = value;
	if (h->n == 0 || value > h->max)
		h->max = value;
	h->n++;
	h->sum += (double)value;
	h->sum_sq += (double)value * (double)value;
}

void peak_hist_merge(struct peak_hist *dst, const struct peak_hist *src)
{
	if (src->n == 0)
		return;
	for (unsigned i = 0; i < PEAK_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	if (dst->n == 0 || src->min < dst->min)
		dst->min = src->min;
	if (dst->n == 0 || src->max > dst->max)
		dst->max = src->max;
	dst->n += src->n;
	dst->sum += src->sum;
	dst->sum_sq += src->sum_sq;
}

uint64_t peak_hist_percentile(const struct peak_hist *h, double pct)
{
	if (h->n == 0)
		return 0;
	if (pct <= 0)
		return h->min;
	if (pct >= 100)
		return h->max;
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)h->n);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < PEAK_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint64_t v = bucket_value(i);
			/* The exact extremes are known: never report outside them. */
			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

double peak_hist_mean(const struct peak_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}

double peak_hist_stddev(const struct peak_hist *h)
{
	if (h->n < 2)
		return 0.0;
	double n = (double)h->n;
	double var = (h->sum_sq - h->sum * h->sum / n) / (n - 1.0);
	return var > 0 ? sqrt(var) : 0.0;
}

double peak_hist_relative_error(void)
{
	return 1.0 / (double)(1u << (PEAK_HIST_SUB_BITS + 1));
}
