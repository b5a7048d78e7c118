/* netbench --sustain: the TCP senders add what they send to the sampler's counter
 * (net_params.progress), so the series is counted where iperf3's client counts its
 * intervals: at the sender, a socket buffer ahead of the wire (a fraction of a second at
 * the rates a shaped link allows). */
#define _GNU_SOURCE
#include "net_sustain.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "net_ena.h"
#include "peak_exit.h"
#include "peak_sustain.h"
#include "peak_team.h"

int net_sustain_check(const struct peak_list *threads, const struct peak_list *buffer,
		      const struct peak_str_list *tests, struct peak_bench_err *e)
{
	if (threads->n > 1 || buffer->n > 1)
		return peak_bench_fail(
		    e, PEAK_EXIT_USAGE,
		    "--sustain runs one point: give one --threads and one --buffer");
	for (size_t i = 0; i < tests->n; i++)
		if (strcmp(tests->v[i], "tcp_throughput") != 0)
			return peak_bench_fail(e, PEAK_EXIT_USAGE,
					       "--sustain measures tcp_throughput only, not %s",
					       tests->v[i]);
	return 0;
}

/* The ENA counters of the control connection's interface, or a note why there are none. */
static void ena_read(const struct net_client *cli, struct net_ena *ena, char *note, size_t len)
{
	struct sockaddr_storage local;
	socklen_t l = sizeof local;
	note[0] = '\0';
	if (getsockname(cli->ctl, (struct sockaddr *)&local, &l) != 0) {
		snprintf(note, len, "getsockname: %s", strerror(errno));
		memset(ena, 0, sizeof *ena);
		return;
	}
	(void)net_ena_read((struct sockaddr *)&local, ena, note, len);
}

static int emit(const struct peak_sustain *s, const struct net_theory *th,
		const struct net_sustain_cfg *cfg, bool shaped, struct peak_output *out,
		struct peak_context *ctx, struct peak_bench_err *e)
{
	struct peak_result tmpl;
	peak_result_init(&tmpl, "network", "tcp_sustain", "", "throughput", "Gbit/s");
	tmpl.threads = cfg->nconns;
	tmpl.block_bytes = cfg->block_bytes;
	tmpl.has_block = true;
	tmpl.theoretical = th->gbps;
	char src[48];
	snprintf(src, sizeof src, "theoretical=%s", th->source);
	peak_result_flag(&tmpl, src);
	if (shaped)
		peak_result_flag(&tmpl, "shaped_by_provider");
	return peak_sustain_record(s, 8e-9, &tmpl, "netbench.sustain_knee", out, ctx, e);
}

int net_sustain_run(struct net_client *cli, const struct net_params *base,
		    const struct net_theory *th, const struct net_sustain_cfg *cfg,
		    struct peak_output *out, struct peak_context *ctx, struct peak_bench_err *e)
{
	char err[320], note[160], rise[160];
	struct net_ena before, after;
	ena_read(cli, &before, note, sizeof note);
	struct peak_team *team = peak_team_create(cfg->nconns, false, err, sizeof err);
	if (team == NULL)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", err);
	struct peak_sustain s;
	if (peak_sustain_start(&s, cfg->duration_s) != 0) {
		peak_team_destroy(team);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--sustain: %s", strerror(errno));
	}
	struct net_params p = *base;
	p.test = NET_TEST_TCP_THROUGHPUT;
	p.nconns = cfg->nconns;
	p.block_bytes = cfg->block_bytes;
	p.total_bytes = 0;
	p.duration_ns = (uint64_t)((cfg->duration_s + PEAK_SUSTAIN_TAIL_S) * 1e9);
	p.progress = &s.bytes;
	struct net_rep rep;
	int rc = net_client_run(cli, &p, team, &rep, NULL, err, sizeof err);
	peak_sustain_stop(&s);
	peak_team_destroy(team);
	if (rc != 0) {
		peak_sustain_free(&s);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--sustain: %s", err);
	}
	bool shaped = false;
	peak_context_set_num(ctx, "netbench.sustain_s", cfg->duration_s);
	if (before.have) {
		ena_read(cli, &after, note, sizeof note);
		shaped = after.have && net_ena_rise(&before, &after, rise, sizeof rise);
		peak_context_set_str(ctx, "netbench.ena_allowance", after.have ? rise : note);
	} else {
		peak_context_set_str(ctx, "netbench.ena_allowance", note);
	}
	rc = emit(&s, th, cfg, shaped, out, ctx, e);
	peak_sustain_free(&s);
	return rc;
}
