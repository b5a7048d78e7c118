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

/* The width of the 95% confidence interval of the mean relative to the mean, in percent:
 * (ci95_high - ci95_low) / |mean| x 100, the full width (twice the half-width), as
 * peak_stats_summarize computes the interval. 0 when every sample is equal; INFINITY when
 * n < 2 (no interval) or the mean is 0 with a spread. */
double peak_stats_ci_width_pct(const double *samples, size_t n);

/* The one stopping rule for repetitions (--reps, --max-reps, --ci): true when n samples
 * are enough. Never before min_reps; with ci_target_pct <= 0 (off) exactly at min_reps;
 * otherwise as soon as peak_stats_ci_width_pct is at most ci_target_pct, and at the latest
 * at max_reps (a max_reps below min_reps counts as min_reps). Every sample counts: none
 * is dropped to reach the target. */
bool peak_stats_enough(const double *samples, size_t n, size_t min_reps, size_t max_reps,
		       double ci_target_pct);

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
