/* peakinfo internals: the loopback copy measurement and the table of peak records. */
#ifndef PEAKINFO_H
#define PEAKINFO_H

#include <stddef.h>

#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"

#define PEAKINFO_LOOPBACK_REPS 5

/* Loopback has no link speed: its ceiling is how fast the kernel can copy the payload,
 * which a memcpy of a buffer larger than the last-level cache bounds. */
struct peakinfo_loopback {
	double gbps;  /* best of the runs, Gbit/s of payload copied; 0 when unknown */
	size_t bytes; /* copied per run */
	unsigned reps;
	unsigned char check; /* a byte of the copy, so the copy cannot be elided */
};

void peakinfo_measure_loopback(struct peakinfo_loopback *lo);

/* Send every peak record (CPU per ISA and precision, frequency, memory, disk, network)
 * to the output. Returns 0, or -1 when writing failed. */
int peakinfo_report(struct peak_output *out, const struct peak_sysinfo *si,
		    const struct peak_machine *m, const struct peakinfo_loopback *lo);

#endif
