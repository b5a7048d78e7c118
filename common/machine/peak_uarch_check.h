/* The table is a claim, and every run checks it: the probe's per-pass figures against the
 * unit counts of the entry in use (the table's, or cpu.uarch's). Noise only slows a loop,
 * so a count the probe exceeds in two passes is wrong for this CPU and is corrected; a
 * count the probe falls short of stays, with a note. Pure: unit-tested on fake passes. */
#ifndef PEAK_UARCH_CHECK_H
#define PEAK_UARCH_CHECK_H

#include <stdbool.h>

#include "peak_sysinfo.h"
#include "peak_uarch.h"
#include "peak_uarch_probe.h"

/* Passes a figure must exceed the table's count in (beyond the rounding band, and
 * rounding to a higher count) for the count to be corrected. */
#define PEAK_CHECK_MIN_PASSES 2

/* Check u's counts against the probe's passes. A count exceeded in at least
 * PEAK_CHECK_MIN_PASSES passes is set to the count the median of those passes rounds to
 * and named in u->corrected, both numbers and the figures (when apply is false, cpu.trust
 * = table, it is only named in u->probe_notes); a count whose best figure sits below its
 * band is named in u->probe_notes and stands; a class the probe did not settle, or did
 * not run, leaves its count as it is, never 0. Latencies likewise, the other way round (a
 * chain faster than the table's latency). Returns the number of counts found wrong. */
unsigned peak_uarch_check(struct peak_uarch *u, const struct peak_probe *p,
			  const struct peak_sysinfo *si, bool apply);

/* True when any count u needs on this CPU is 0 (unknown: its source does not say); the
 * number-format rates are not asked about (a binary without format rows need not probe). */
bool peak_uarch_has_unknown(const struct peak_uarch *u, const struct peak_sysinfo *si);

/* Fill u's unknown (0) counts from another entry's known ones where the ISA exists here,
 * and say which in u->note after `what` ("measured", "the table's"). Pure. */
void peak_uarch_fill_unknown(struct peak_uarch *u, const struct peak_uarch *from,
			     const struct peak_sysinfo *si, const char *what);

#endif
