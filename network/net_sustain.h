/* netbench --sustain: one client-to-server TCP throughput test held for the duration, its
 * sent bytes sampled every second, the series' knee found, and its rows "burst" and
 * "baseline" (test tcp_sustain); on AWS the ENA allowance counters read around it. */
#ifndef NET_SUSTAIN_H
#define NET_SUSTAIN_H

#include <stddef.h>
#include <stdint.h>

#include "net_client.h"
#include "net_report.h"
#include "peak_bench.h"
#include "peak_opts.h"
#include "peak_report.h"

/* What the sustained test runs: one point of the user's lists. */
struct net_sustain_cfg {
	double duration_s;
	uint32_t nconns;
	uint32_t block_bytes;
};

/* --sustain's limits on the other options: one connection count, one buffer size, and no
 * test but tcp_throughput. 0, or -1 with e set (exit 2). */
int net_sustain_check(const struct peak_list *threads, const struct peak_list *buffer,
		      const struct peak_str_list *tests, struct peak_bench_err *e);

/* Run it on cli (connected) with base's timeout; rows to out, context keys
 * netbench.sustain_* to ctx. 0, or -1 with e set. */
int net_sustain_run(struct net_client *cli, const struct net_params *base,
		    const struct net_theory *th, const struct net_sustain_cfg *cfg,
		    struct peak_output *out, struct peak_context *ctx, struct peak_bench_err *e);

#endif
