/* Summary statistics of a sample array and a mergeable Welford accumulator. */
#ifndef PEAK_STATS_H
#define PEAK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct peak_summary {
	size_t n;
	double mean;
	double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
	double min;
	double median;
	double max;
	double ci95_low; /* 95% confidence interval of the mean (Student t) */
	double ci95_high;
	double cv;       /* stddev / mean; 0 when the mean is 0 */
	bool has_ci;     /* false when n < 2: the interval is then [mean, mean] */
};

/* Summarize n samples (any order; the array is not modified). n = 0 gives all zeros. */
void peak_stats_summarize(const double *samples, size_t n, struct peak_summary *out);

/* Two-sided 95% Student t quantile for df degrees of freedom (df >= 1). */
double peak_stats_t95(size_t df);

/* Nearest-rank percentile (pct in [0, 100]) of an ascending sorted array; 0 when n = 0. */
double peak_stats_percentile_sorted(const double *sorted, size_t n, double pct);

/* Sort a copy-free array ascending in place. */
void peak_stats_sort(double *values, size_t n);

/* Welford's running mean/variance; accumulators from several threads merge exactly. */
struct peak_welford {
	uint64_t n;
	double mean;
	double m2;
	double min;
	double max;
};

void peak_welford_init(struct peak_welford *w);
void peak_welford_add(struct peak_welford *w, double x);
void peak_welford_merge(struct peak_welford *dst, const struct peak_welford *src);
/* Sample standard deviation (n - 1); 0 when n < 2. */
double peak_welford_stddev(const struct peak_welford *w);

#endif
