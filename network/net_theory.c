/* netbench's theoretical peak: loopback = the machine's memory copy bandwidth (measured),
 * another host = the link speed (peaks.conf or sysfs through libpeak). */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "net_proto.h"
#include "net_report.h"
#include "peak_context.h"
#include "peak_loopback.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

/* Loopback: the memory copy bandwidth (as PA1 did); remote: the link speed. */
void net_theory_measure(struct net_theory *th, bool loopback, const struct peak_sysinfo *si,
			const struct peak_config *cfg, struct peak_context *ctx)
{
	th->gbps = NAN;
	th->source = "unknown";
	memset(&th->baseline, 0, sizeof th->baseline);
	if (loopback) {
		/* One figure per run: peakinfo's, handed over by run_all.sh, else measured
		 * here by the same function (peak_loopback.c). */
		struct peak_loopback lo;
		int env = peak_loopback_from_env(&lo);
		if (env == -2)
			peak_context_warn(ctx, PEAK_LOOPBACK_ENV " is not a positive number: "
						"measured here instead");
		if (env != 0)
			(void)peak_loopback_measure(&lo);
		if (lo.gbps > 0) {
			th->gbps = lo.gbps;
			th->source = "memcpy";
		}
		peak_context_set_num(ctx, "netbench.memcpy_gbps", th->gbps);
		peak_context_set_str(ctx, "netbench.memcpy_note", lo.note);
	} else {
		struct peak_machine m;
		peak_machine_init(&m, si, cfg, "");
		if (m.net_gbps.source != PEAK_SRC_UNKNOWN) {
			th->gbps = m.net_gbps.value;
			th->source = peak_source_name(m.net_gbps.source);
			if (m.net_gbps.source == PEAK_SRC_TABLE)
				th->source = "link";
			th->baseline = m.cloud.net_baseline_gbps;
		}
		peak_context_set_str(ctx, "netbench.link_interface", m.net_iface);
	}
	peak_context_set_str(ctx, "netbench.theoretical_source", th->source);
}
