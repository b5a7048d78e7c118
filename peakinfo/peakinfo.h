/* peakinfo internals: the table of peak records. */
#ifndef PEAKINFO_H
#define PEAKINFO_H

#include <stddef.h>

#include "peak_loopback.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"

/* Send every peak record (CPU per ISA and precision, frequency, memory, disk, network)
 * to the output. Returns 0, or -1 when writing failed. */
int peakinfo_report(struct peak_output *out, const struct peak_sysinfo *si,
		    const struct peak_machine *m, const struct peak_loopback *lo);

/* The aarch64 CPU rows (NEON, SVE), for an aarch64 sysinfo (peakinfo_arm64.c). */
int peakinfo_arm64_rows(struct peak_output *out, const struct peak_sysinfo *si,
			const struct peak_machine *m);

/* The per-format table: FP64, FP32, FP16, BF16, INT8 on vector and matrix units, each
 * form's peak or "unsupported: reason" (peakinfo_formats.c, peak_formats.h). */
int peakinfo_format_rows(struct peak_output *out, const struct peak_machine *m);

#endif
