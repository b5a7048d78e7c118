/* Log-linear histogram of non-negative integer values (latencies in ns) with bounded
 * relative error: millions of samples in fixed memory, mergeable across threads. */
#ifndef PEAK_HIST_H
#define PEAK_HIST_H

#include <stdint.h>

/* Values below 2^PEAK_HIST_SUB_BITS are exact; each power-of-two range above is split into
 * 2^PEAK_HIST_SUB_BITS linear buckets, and a value read back (the bucket's midpoint) is
 * within 1 / 2^(PEAK_HIST_SUB_BITS + 1) of the recorded one (0.39%). */
#define PEAK_HIST_SUB_BITS 7
#define PEAK_HIST_SUB_COUNT (1u << PEAK_HIST_SUB_BITS)
#define PEAK_HIST_BUCKETS ((64u - PEAK_HIST_SUB_BITS + 1u) * PEAK_HIST_SUB_COUNT)

struct peak_hist {
	uint64_t counts[PEAK_HIST_BUCKETS];
	uint64_t n;
	uint64_t min;
	uint64_t max;
	double sum;
	double sum_sq;
};

void peak_hist_init(struct peak_hist *h);
void peak_hist_record(struct peak_hist *h, uint64_t value);
void peak_hist_merge(struct peak_hist *dst, const struct peak_hist *src);

/* Nearest-rank percentile (pct in [0, 100]); the exact min and max at 0 and 100; 0 if empty. */
uint64_t peak_hist_percentile(const struct peak_hist *h, double pct);
double peak_hist_mean(const struct peak_hist *h);
/* Sample standard deviation (exact, from running sums); 0 when n < 2. */
double peak_hist_stddev(const struct peak_hist *h);

/* Largest relative error of a value read back from a bucket. */
double peak_hist_relative_error(void);

#endif
