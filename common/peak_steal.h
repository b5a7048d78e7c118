/* Hypervisor steal over a measured point: the share of all CPUs' time (/proc/stat) that the
 * host gave to someone else while the point ran. Every benchmark flags its rows "steal"
 * above PEAK_STEAL_FLAG_PCT, so a reader knows which figures a noisy host lowered. */
#ifndef PEAK_STEAL_H
#define PEAK_STEAL_H

#include <stdbool.h>
#include <stdint.h>

#include "peak_result.h"

#define PEAK_STEAL_FLAG_PCT 1.0

struct peak_steal {
	uint64_t steal, total; /* ticks at the start */
	bool ok;               /* the start could be read */
	const char *root;      /* "" for the real /proc; a test's fake root otherwise */
};

/* Start a window on the real /proc (peak_steal_begin_at: under root, for tests). */
void peak_steal_begin(struct peak_steal *s);
void peak_steal_begin_at(struct peak_steal *s, const char *root);

/* Percent of CPU time stolen since the start; NAN when /proc/stat could not be read or no
 * tick went by. */
double peak_steal_pct(const struct peak_steal *s);

/* Percent stolen between two readings of (steal, total) ticks; NAN when total did not grow. */
double peak_steal_pct_between(uint64_t steal0, uint64_t total0, uint64_t steal1, uint64_t total1);

/* Flag r "steal" when pct is above PEAK_STEAL_FLAG_PCT; returns whether it did. */
bool peak_steal_flag(double pct, struct peak_result *r);

#endif
