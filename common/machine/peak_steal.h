/* Hypervisor steal over a measured point: the share of all CPUs' time (/proc/stat) that the
 * host gave to someone else while the point ran. Every benchmark flags its rows "steal"
 * above PEAK_STEAL_FLAG_PCT, so a reader knows which figures a noisy host lowered, and
 * records beside it how much of the CPUs' busy time was stolen (steal_pct=P), so that
 * results compare can tell a change the steal explains from one it does not. The flag itself
 * is the harness's (peak_row_flags.h): this file only reads the kernel's counters. */
#ifndef PEAK_STEAL_H
#define PEAK_STEAL_H

#include <stdbool.h>
#include <stdint.h>

#define PEAK_STEAL_FLAG_PCT 1.0

struct peak_steal {
	uint64_t steal, total, idle; /* ticks at the start (idle: idle + iowait) */
	bool ok;                     /* the start could be read */
	const char *root;            /* "" for the real /proc; a test's fake root otherwise */
};

/* What a window saw, in percent; NAN when unknown. all_pct: of all CPUs' time (the flag's
 * measure, as the context's steal.percent). busy_pct: of the time the CPUs ran or wanted to
 * (neither idle nor iowait): what a running thread lost, however many CPUs sat idle (one
 * busy vCPU of two losing 4% is 2% of all time, 4% of busy time). */
struct peak_steal_share {
	double all_pct, busy_pct;
};

/* Start a window on the real /proc (peak_steal_begin_at: under root, for tests). */
void peak_steal_begin(struct peak_steal *s);
void peak_steal_begin_at(struct peak_steal *s, const char *root);

/* Percent of all CPU time stolen since the start (NAN when /proc/stat could not be read or
 * no tick went by); peak_steal_share: both shares from one reading. */
double peak_steal_pct(const struct peak_steal *s);
struct peak_steal_share peak_steal_share(const struct peak_steal *s);

/* Percent stolen between two readings of (steal, total) ticks; NAN when total did not grow. */
double peak_steal_pct_between(uint64_t steal0, uint64_t total0, uint64_t steal1, uint64_t total1);

#endif
