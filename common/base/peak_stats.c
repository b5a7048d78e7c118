/* Summary statistics: mean, sample stddev, median, 95% CI (Student t), nearest-rank
 * percentiles, and Welford's accumulator (Chan et al. merge for per-thread partials). */
#include "peak_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two-sided 95% quantiles of Student's t for df = 1..30. */
static const double t95_table[30] = {
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

double peak_stats_t95(size_t df)
{
	if (df == 0)
		return 0.0;
	if (df <= 30)
		return t95_table[df - 1];
	/* Beyond the table: the Cornish-Fisher expansion around the normal quantile is
	 * accurate to 1e-3 for df > 30. */
	double z = 1.959964, d = (double)df;
	double z3 = z * z * z, z5 = z3 * z * z;
	return z + (z3 + z) / (4 * d) + (5 * z5 + 16 * z3 + 3 * z) / (96 * d * d);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void peak_stats_sort(double *values, size_t n)
{
	if (n > 1)
		qsort(values, n, sizeof(values[0]), cmp_double);
}

double peak_stats_percentile_sorted(const double *sorted, size_t n, double pct)
{
	if (n == 0)
		return 0.0;
	if (pct <= 0)
		return sorted[0];
	if (pct >= 100)
		return sorted[n - 1];
	/* Nearest rank: the smallest value with at least pct% of the samples at or below. */
	size_t rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void peak_stats_summarize(const double *samples, size_t n, struct peak_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;

	struct peak_welford w;
	peak_welford_init(&w);
	for (size_t i = 0; i < n; i++)
		peak_welford_add(&w, samples[i]);

	out->mean = w.mean;
	out->min = w.min;
	out->max = w.max;
	out->stddev = peak_welford_stddev(&w);
	out->cv = out->mean != 0.0 ? out->stddev / fabs(out->mean) : 0.0;

	double *sorted = malloc(n * sizeof(*sorted));
	if (sorted) {
		memcpy(sorted, samples, n * sizeof(*sorted));
		peak_stats_sort(sorted, n);
		out->median = (n % 2) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
		free(sorted);
	} else {
		out->median = out->mean;
	}

	out->ci95_low = out->ci95_high = out->mean;
	if (n >= 2) {
		double half = peak_stats_t95(n - 1) * out->stddev / sqrt((double)n);
		out->ci95_low = out->mean - half;
		out->ci95_high = out->mean + half;
		out->has_ci = true;
	}
}

double peak_stats_ci_width_pct(const double *samples, size_t n)
{
	if (n < 2)
		return INFINITY;
	struct peak_welford w;
	peak_welford_init(&w);
	for (size_t i = 0; i < n; i++)
		peak_welford_add(&w, samples[i]);
	double sd = peak_welford_stddev(&w);
	if (sd == 0.0)
		return 0.0;
	if (w.mean == 0.0)
		return INFINITY;
	/* The same interval as peak_stats_summarize's: mean +- t * sd / sqrt(n). */
	double half = peak_stats_t95(n - 1) * sd / sqrt((double)n);
	return 200.0 * half / fabs(w.mean);
}

bool peak_stats_enough(const double *samples, size_t n, size_t min_reps, size_t max_reps,
		       double ci_target_pct)
{
	if (n < min_reps)
		return false;
	if (!(ci_target_pct > 0) || n >= max_reps)
		return true;
	return peak_stats_ci_width_pct(samples, n) <= ci_target_pct;
}

void peak_welford_init(struct peak_welford *w)
{
	memset(w, 0, sizeof(*w));
}

void peak_welford_add(struct peak_welford *w, double x)
{
	if (w->n == 0 || x < w->min)
		w->min = x;
	if (w->n == 0 || x > w->max)
		w->max = x;
	w->n++;
	double delta = x - w->mean;
	w->mean += delta / (double)w->n;
	w->m2 += delta * (x - w->mean);
}

void peak_welford_merge(struct peak_welford *dst, const struct peak_welford *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	double na = (double)dst->n, nb = (double)src->n, n = na + nb;
	double delta = src->mean - dst->mean;
	dst->mean += delta * nb / n;
	dst->m2 += src->m2 + delta * delta * na * nb / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double peak_welford_stddev(const struct peak_welford *w)
{
	if (w->n < 2 || w->m2 <= 0)
		return 0.0;
	return sqrt(w->m2 / (double)(w->n - 1));
}
