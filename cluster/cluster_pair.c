/* One pair through the same client code as netbench, so a figure here is netbench's
 * figure between the same two hosts (see docs/cluster.md). */
#include "cluster_pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_client.h"
#include "net_proto.h"
#include "peak_hist.h"
#include "peak_stats.h"
#include "peak_team.h"

static void base_params(const struct cluster_cfg *cfg, enum net_test t, struct net_params *p)
{
	memset(p, 0, sizeof *p);
	p->test = (uint32_t)t;
	p->nconns = 1;
	p->timeout_ms = cfg->timeout_ms;
	p->duration_ns = (uint64_t)(cfg->duration_s * 1e9);
}

/* Receiver bytes over the receiver's first-to-last arrival window, as netbench counts. */
static double rep_gbps(const struct net_rep *rep)
{
	const struct net_conn_stats *rc = &rep->rcv[0];
	if (rc->bytes == 0 || rc->last_ns <= rc->first_ns)
		return 0.0;
	return (double)(rc->bytes - rc->first_bytes) * 8.0 / (double)(rc->last_ns - rc->first_ns);
}

static int run_tcp(const struct cluster_cfg *cfg, struct net_client *cli, struct peak_team *team,
		   struct cluster_pair *p)
{
	struct net_params np;
	struct net_rep rep;
	base_params(cfg, NET_TEST_TCP_THROUGHPUT, &np);
	np.block_bytes = cfg->tcp_block;
	/* An unrecorded eighth-length run first: slow start, ARP, page faults. */
	struct net_params w = np;
	w.duration_ns /= 8;
	if (net_client_run(cli, &w, team, &rep, NULL, p->err, sizeof p->err) != 0)
		return -1;
	/* The suite's one stopping rule (peak_stats_enough): --reps, then with --ci until the
	 * interval is narrow or --max-reps. */
	size_t most = cfg->max_reps > CLUSTER_MAX_REPS ? CLUSTER_MAX_REPS : cfg->max_reps;
	size_t n = 0;
	while (n < most && !peak_stats_enough(p->tcp_gbps, n, cfg->reps, most, cfg->ci_pct)) {
		if (net_client_run(cli, &np, team, &rep, NULL, p->err, sizeof p->err) != 0)
			return -1;
		p->tcp_gbps[n++] = rep_gbps(&rep);
	}
	p->reps = (uint32_t)n;
	double width = peak_stats_ci_width_pct(p->tcp_gbps, n);
	p->ci_wide_pct = cfg->ci_pct > 0 && width > cfg->ci_pct ? width : 0.0;
	return 0;
}

static int run_udp(const struct cluster_cfg *cfg, struct net_client *cli, struct peak_team *team,
		   struct cluster_pair *p)
{
	struct net_params np;
	struct net_rep rep;
	base_params(cfg, NET_TEST_UDP_THROUGHPUT, &np);
	np.block_bytes = cfg->udp_dgram;
	np.rate_bps = cfg->udp_bps;
	if (net_client_run(cli, &np, team, &rep, NULL, p->err, sizeof p->err) != 0)
		return -1;
	p->udp_sent = rep.snd[0].packets;
	p->udp_lost = rep.rcv[0].lost;
	p->udp_loss_pct = p->udp_sent ? 100.0 * (double)p->udp_lost / (double)p->udp_sent : 0.0;
	return 0;
}

static int run_lat(const struct cluster_cfg *cfg, struct net_client *cli, struct peak_team *team,
		   struct cluster_pair *p)
{
	struct net_params np;
	struct net_rep rep;
	base_params(cfg, NET_TEST_TCP_LATENCY, &np);
	np.block_bytes = cfg->lat_block;
	np.duration_ns = (uint64_t)(cfg->lat_s * 1e9);
	np.warmup_msgs = 100;
	struct peak_hist *h = malloc(sizeof *h); /* large: not on the stack */
	if (h == NULL) {
		snprintf(p->err, sizeof p->err, "out of memory");
		return -1;
	}
	peak_hist_init(h);
	int rc = net_client_run(cli, &np, team, &rep, h, p->err, sizeof p->err);
	if (rc == 0) {
		static const double pct[6] = {50.0, 90.0, 99.0, 99.9, 0.0, 100.0};
		p->lat_n = h->n;
		for (int i = 0; i < 6; i++)
			p->lat_us[i] = (double)peak_hist_percentile(h, pct[i]) / 1e3;
	}
	free(h);
	return rc;
}

/* One connection to the peer's netbench server: every test (TCP, UDP, round trips) or the
 * round trips alone. Pinned as netbench's client team is (its first CPU of the rank's
 * mask): the same placement, so a pair's figure is netbench's between the same two hosts. */
static int pair_session(const struct cluster_cfg *cfg, const char *addr, uint16_t port,
			struct cluster_pair *p, bool latency_only)
{
	struct net_client cli;
	p->ok = 0;
	p->err[0] = '\0';
	if (net_client_connect(&cli, addr, port, cfg->timeout_ms, p->err, sizeof p->err) != 0)
		return -1;
	struct peak_team *team = peak_team_create(1, true, p->err, sizeof p->err);
	int rc = -1;
	if (team != NULL &&
	    (latency_only ||
	     (run_tcp(cfg, &cli, team, p) == 0 && run_udp(cfg, &cli, team, p) == 0)) &&
	    run_lat(cfg, &cli, team, p) == 0)
		rc = 0;
	if (team != NULL)
		peak_team_destroy(team);
	net_client_close(&cli);
	p->ok = rc == 0;
	return rc;
}

int cluster_pair_run(const struct cluster_cfg *cfg, const char *addr, uint16_t port,
		     struct cluster_pair *p)
{
	return pair_session(cfg, addr, port, p, false);
}

int cluster_pair_latency(const struct cluster_cfg *cfg, const char *addr, uint16_t port,
			 struct cluster_pair *p)
{
	return pair_session(cfg, addr, port, p, true);
}

double cluster_pair_tcp_median(const struct cluster_pair *p)
{
	struct peak_summary s;
	if (p->reps == 0)
		return 0.0;
	peak_stats_summarize(p->tcp_gbps, p->reps, &s);
	return s.median;
}
