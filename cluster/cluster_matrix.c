/* --test net_matrix: every ordered pair in rounds (shift: everyone at once; serial: one pair
 * a round), rank 0 gathering and writing after each; then the outlier pairs re-measured
 * alone (ClusterKit's rule, docs/cluster.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_wait.h"

static void pair_row(struct peak_result *r, const struct cluster_run *run,
		     const struct cluster_pair *p, const char *variant, const char *metric,
		     const char *unit, uint32_t block, const char *flags)
{
	peak_result_init(r, "cluster", "net_matrix", variant, metric, unit);
	r->threads = 1;
	r->block_bytes = block;
	r->has_block = true;
	snprintf(r->host, sizeof r->host, "%s", run->nodes[p->host].name);
	snprintf(r->peer, sizeof r->peer, "%s", run->nodes[p->peer].name);
	snprintf(r->flags, sizeof r->flags, "%s", flags);
}

static void keep(const struct cluster_run *run, struct peak_result *r)
{
	peak_result_finish(r);
	if (cluster_rows_add(run->rows, r) != 0)
		cluster_fail(run, "out of memory");
	cluster_progress_row(run, r, "");
}

static void add_pair_rows(const struct cluster_run *run, const struct cluster_pair *p,
			  const char *extra)
{
	const struct cluster_opts *o = run->o;
	char fl[160];
	struct peak_result r;
	snprintf(fl, sizeof fl, "schedule=%s%s", o->schedule, extra);

	pair_row(&r, run, p, "tcp", "throughput", "Gbit/s", o->cfg.tcp_block, fl);
	peak_result_set_samples(&r, p->tcp_gbps, p->reps);
	if (p->ci_wide_pct > 0)
		peak_result_flag_pct(&r, "ci_wide", p->ci_wide_pct, true);
	keep(run, &r);

	pair_row(&r, run, p, "udp", "loss", "%", o->cfg.udp_dgram, fl);
	peak_result_set_samples(&r, &p->udp_loss_pct, 1);
	char item[96];
	snprintf(item, sizeof item, "rate_mbit=%g;sent=%llu;lost=%llu",
		 (double)o->cfg.udp_bps / 1e6, (unsigned long long)p->udp_sent,
		 (unsigned long long)p->udp_lost);
	peak_result_flag(&r, item);
	keep(run, &r);

	/* The round trips' p50 is the row's one sample; its percentiles, min and max are the
	 * histogram's, exact over every round trip. */
	pair_row(&r, run, p, "tcp", "latency", "us", o->cfg.lat_block, fl);
	peak_result_set_samples(&r, &p->lat_us[0], 1);
	r.summary.min = p->lat_us[4];
	r.summary.max = p->lat_us[5];
	r.p50 = p->lat_us[0];
	r.p90 = p->lat_us[1];
	r.p99 = p->lat_us[2];
	r.p999 = p->lat_us[3];
	snprintf(item, sizeof item, "round_trips=%llu", (unsigned long long)p->lat_n);
	peak_result_flag(&r, item);
	keep(run, &r);
}

static void fail_pair(const struct cluster_run *run, int round, const struct cluster_pair *p)
{
	char msg[400];
	snprintf(msg, sizeof msg, "round %d: %s -> %s failed: %s", round,
		 run->nodes[p->host].name, run->nodes[p->peer].name, p->err);
	cluster_fail(run, msg);
}

/* One round: the ranks with a target measure it, rank 0 gathers and writes, or the job
 * ends naming the failed pair. all[] (rank 0) receives every rank's struct. */
static void run_round(const struct cluster_run *run, int round, int target,
		      struct cluster_pair *all, struct cluster_pair *kept, size_t *nkept,
		      const char *extra)
{
	struct cluster_pair mine;
	memset(&mine, 0, sizeof mine);
	mine.host = run->rank;
	mine.peer = target;
	cluster_watch(run, round, 1);
	cluster_barrier(MPI_COMM_WORLD);
	if (target >= 0 && cluster_pair_run(&run->o->cfg, run->nodes[target].name,
					     run->nodes[target].port, &mine) != 0) {
		/* Said here, not after the gather: a stalled peer would never reach it. The
		 * completed rounds are already on rank 0's disk. */
		fail_pair(run, round, &mine);
	}
	cluster_gather(&mine, (int)sizeof mine, all, 0, MPI_COMM_WORLD);
	cluster_watch(run, round, 0);
	if (run->rank != 0)
		return;
	for (int i = 0; i < run->nranks; i++) {
		const struct cluster_pair *p = &all[i];
		if (p->peer < 0)
			continue;
		if (!p->ok)
			fail_pair(run, round, p);
		add_pair_rows(run, p, extra);
		if (kept != NULL)
			kept[(*nkept)++] = *p;
	}
	cluster_flush(run);
}

/* The pairs breaking the rule against the first pass's best figures, as host/peer ranks. */
static int32_t outlier_list(const struct cluster_opts *o, const struct cluster_pair *pairs,
			    size_t npairs, int32_t *list, int32_t cap, double *lat_min,
			    double *bw_max)
{
	int32_t n = 0;
	*lat_min = 1e300;
	*bw_max = 0;
	for (size_t i = 0; i < npairs; i++) {
		double bw = cluster_pair_tcp_median(&pairs[i]);
		if (bw > *bw_max)
			*bw_max = bw;
		if (pairs[i].lat_us[0] < *lat_min)
			*lat_min = pairs[i].lat_us[0];
	}
	for (size_t i = 0; i < npairs && n < cap; i++)
		if (cluster_pair_tcp_median(&pairs[i]) < o->bw_frac * *bw_max ||
		    pairs[i].lat_us[0] > o->lat_x * *lat_min) {
			list[2 * n] = pairs[i].host;
			list[2 * n + 1] = pairs[i].peer;
			n++;
		}
	return n;
}

/* Outliers re-measured once, alone; the re-measurement is what is reported (the first
 * figures stay in a flag), marked when it still breaks the rule. */
static void outliers(const struct cluster_run *run, const struct cluster_pair *pairs,
		     size_t npairs, struct cluster_pair *all, int *round)
{
	const struct cluster_opts *o = run->o;
	int32_t cap = run->nranks * (run->nranks - 1);
	int32_t *list = calloc(2 * (size_t)cap, sizeof *list);
	double lat_min = 0, bw_max = 0;
	int32_t nlist = 0;
	if (list == NULL)
		cluster_fail(run, "out of memory");
	if (run->rank == 0)
		nlist = outlier_list(o, pairs, npairs, list, cap, &lat_min, &bw_max);
	cluster_bcast(&nlist, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
	cluster_bcast(list, 2 * nlist, MPI_INT32_T, 0, MPI_COMM_WORLD);
	for (int32_t k = 0; k < nlist; k++) {
		int h = list[2 * k], t = list[2 * k + 1];
		const char *hn = run->nodes[h].name, *tn = run->nodes[t].name;
		char first[96] = "";
		if (run->rank == 0) {
			for (size_t i = 0; i < npairs; i++)
				if (pairs[i].host == h && pairs[i].peer == t)
					snprintf(first, sizeof first,
						 ";remeasured;first_gbps=%.4g;first_p50_us=%.4g",
						 cluster_pair_tcp_median(&pairs[i]), pairs[i].lat_us[0]);
			cluster_rows_drop(run->rows, "net_matrix", hn, tn);
		}
		struct cluster_pair again[1];
		size_t n1 = 0;
		++*round;
		run_round(run, *round, run->rank == h ? t : -1, all, again, &n1, first);
		if (run->rank != 0 || n1 != 1)
			continue;
		if (cluster_pair_tcp_median(&again[0]) < o->bw_frac * bw_max)
			cluster_rows_flag(run->rows, "net_matrix", "throughput", hn, tn,
					  "outlier=bandwidth");
		if (again[0].lat_us[0] > o->lat_x * lat_min)
			cluster_rows_flag(run->rows, "net_matrix", "latency", hn, tn, "outlier=latency");
		cluster_flush(run);
	}
	free(list);
}

void cluster_net_matrix(const struct cluster_run *run)
{
	int rank = run->rank, nranks = run->nranks;
	size_t npairs = 0, cap = (size_t)nranks * (size_t)(nranks - 1);
	struct cluster_pair *pairs = rank == 0 ? calloc(cap, sizeof *pairs) : NULL;
	struct cluster_pair *all = rank == 0 ? calloc((size_t)nranks, sizeof *all) : NULL;
	if (rank == 0 && (pairs == NULL || all == NULL))
		cluster_fail(run, "out of memory");
	int round = 0;
	char extra[64];
	if (strcmp(run->o->schedule, "shift") == 0) {
		/* mpiGraph's rounds: everyone sends to node+d and receives from node-d at once. */
		for (int d = 1; d < nranks; d++) {
			snprintf(extra, sizeof extra, ";round=%d", d);
			run_round(run, ++round, (rank + d) % nranks, all, pairs, &npairs, extra);
		}
	} else {
		for (int s = 0; s < nranks; s++)
			for (int t = 0; t < nranks; t++) {
				if (s == t)
					continue;
				snprintf(extra, sizeof extra, ";round=%d", round + 1);
				run_round(run, ++round, rank == s ? t : -1, all, pairs, &npairs, extra);
			}
	}
	outliers(run, pairs, npairs, all, &round);
	free(pairs);
	free(all);
}
