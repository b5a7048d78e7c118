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
#include "peak_peak.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

#define COPY_BYTES (64u << 20)

struct copy_arg {
	uint8_t *src[NET_MAX_CONNS], *dst[NET_MAX_CONNS];
	bool timed;
};

static int copy_fn(void *p, unsigned idx, unsigned n)
{
	(void)n;
	struct copy_arg *a = p;
	if (!a->timed) { /* first touch, untimed */
		a->src[idx] = peak_team_alloc_local(COPY_BYTES);
		a->dst[idx] = peak_team_alloc_local(COPY_BYTES);
		if (a->src[idx] == NULL || a->dst[idx] == NULL)
			return 1;
		memset(a->src[idx], 1, COPY_BYTES);
		memset(a->dst[idx], 2, COPY_BYTES);
		return 0;
	}
	memcpy(a->dst[idx], a->src[idx], COPY_BYTES);
	return ((volatile uint8_t *)a->dst[idx])[COPY_BYTES / 2] == 1 ? 0 : 1;
}

/* The machine's memory copy bandwidth in Gbit/s: one 64 MiB memcpy per allowed CPU at
 * once, best of 10, counted as STREAM Copy counts it (bytes read + bytes written).
 * NAN when it cannot run. */
static double memcpy_gbps(void)
{
	unsigned n = peak_team_allowed_cpus();
	n = n < 1 ? 1 : n > NET_MAX_CONNS ? NET_MAX_CONNS : n;
	char err[160];
	struct peak_team *team = peak_team_create(n, true, err, sizeof err);
	struct copy_arg a = {.timed = false};
	double best = NAN;
	if (team != NULL && peak_team_run(team, copy_fn, &a, NULL, NULL) == 0) {
		a.timed = true;
		best = 0;
		for (int i = 0; i < 10; i++) {
			uint64_t ns = 0;
			if (peak_team_run(team, copy_fn, &a, &ns, NULL) != 0 || ns == 0) {
				best = NAN;
				break;
			}
			double g = 2.0 * (double)COPY_BYTES * n * 8.0 / (double)ns;
			best = g > best ? g : best;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (a.src[i] != NULL)
			peak_team_free_local(a.src[i], COPY_BYTES);
		if (a.dst[i] != NULL)
			peak_team_free_local(a.dst[i], COPY_BYTES);
	}
	if (team != NULL)
		peak_team_destroy(team);
	return best;
}

/* Loopback: the memory copy bandwidth (as PA1 did); remote: the link speed. */
void net_theory_measure(struct net_theory *th, bool loopback, const struct peak_sysinfo *si,
			struct peak_context *ctx)
{
	th->gbps = NAN;
	th->source = "unknown";
	if (loopback) {
		th->gbps = memcpy_gbps();
		th->source = isfinite(th->gbps) ? "memcpy" : "unknown";
		peak_context_set_num(ctx, "netbench.memcpy_gbps", th->gbps);
	} else {
		struct peak_config cfg;
		struct peak_machine m;
		char err[160];
		peak_config_init(&cfg);
		if (peak_config_load_default(&cfg, err, sizeof err) != 0)
			peak_context_warn(ctx, err);
		peak_machine_init(&m, si, &cfg, "");
		if (m.net_gbps.source != PEAK_SRC_UNKNOWN) {
			th->gbps = m.net_gbps.value;
			th->source = m.net_gbps.source == PEAK_SRC_CONFIG ? "config" : "link";
		}
		peak_context_set_str(ctx, "netbench.link_interface", m.net_iface);
	}
	peak_context_set_str(ctx, "netbench.theoretical_source", th->source);
}
