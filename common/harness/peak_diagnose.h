/* A row above its peak, diagnosed before it is reported (issue 41): each input of its peak
 * (unit count, width, clock, cores) is held against its own measurement in the same run,
 * and the flag names the one that disagrees: "cause=clock_chain_0.49" says the clock the
 * peak used is 0.49 of the one measured independently. */
#ifndef PEAK_DIAGNOSE_H
#define PEAK_DIAGNOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_result.h"

/* One input of a peak: what the peak used, and what the run measured of it independently
 * (NAN when nothing did). An input the peak took below its measurement raises the row
 * above the peak by the same factor. */
struct peak_input {
	const char *name; /* as it appears in the flag: clock_chain, count, width, cores */
	double used;
	double measured;
};

/* An input disagrees when used / measured is below 1 - this: the clock noise the
 * above_peak rule allows, and a probe's rounding band, are inside it. */
#define PEAK_DIAGNOSE_TOL 0.05

/* The input whose use falls furthest below its measurement, as "cause=NAME_R" (R = used /
 * measured, two decimals) in out; false and out empty when every input agrees with its
 * measurement or has none. */
bool peak_diagnose(const struct peak_input *in, size_t n, char *out, size_t len);
/* On a row flagged above_peak, add the cause peak_diagnose finds (nothing otherwise); its
 * index in in, or -1. */
int peak_diagnose_row(struct peak_result *r, const struct peak_input *in, size_t n);

#endif
