/* mpi_p2p's pairs (which, parsed from --pairs) and its rows on rank 0, with the physics
 * flags: above_link (bandwidth over the link speed), above_copy (one node's shared memory
 * over the memory copy rate), below_tcp (MPI's 8 B latency implausibly under netbench's
 * TCP round trip on the same pair), outlier=bandwidth|latency (the slow link). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_mpi_p2p.h"

int32_t *cluster_p2p_leaders(const struct cluster_run *run)
{
	MPI_Comm shm;
	int32_t me = run->rank, first = me;
	int32_t *leader = malloc((size_t)run->nranks * sizeof *leader);
	if (leader == NULL)
		cluster_fail(run, "out of memory");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
	MPI_Allreduce(&me, &first, 1, MPI_INT32_T, MPI_MIN, shm);
	MPI_Comm_free(&shm);
	MPI_Allgather(&first, 1, MPI_INT32_T, leader, 1, MPI_INT32_T, MPI_COMM_WORLD);
	return leader;
}

/* "A-B,C-D": each pair into out (when not NULL); the count, or -1 with the reason. */
static int parse_list(const char *spec, int nranks, int32_t *out, char *msg, size_t len)
{
	int n = 0;
	const char *p = spec;
	while (*p != '\0') {
		char *end = NULL;
		long a = strtol(p, &end, 10), b = -1;
		if (end != p && *end == '-') {
			const char *q = end + 1;
			b = strtol(q, &end, 10);
			if (end == q)
				b = -1;
		}
		if (a < 0 || b < 0 || a >= nranks || b >= nranks || a == b ||
		    (*end != ',' && *end != '\0')) {
			snprintf(
			    msg, len,
			    "--pairs: '%.40s' is not a list of RANK-RANK pairs of distinct ranks "
			    "below %d",
			    spec, nranks);
			return -1;
		}
		if (out != NULL) {
			out[2 * n] = (int32_t)a;
			out[2 * n + 1] = (int32_t)b;
		}
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	if (n == 0)
		snprintf(msg, len, "--pairs: no pair given");
	return n > 0 ? n : -1;
}

int cluster_p2p_pairs_parse(const char *spec, int nranks, char *msg, size_t len)
{
	return parse_list(spec, nranks, NULL, msg, len) > 0 ? 0 : -1;
}

int32_t *cluster_p2p_pairs(const struct cluster_run *run, const int32_t *leader, int *npairs)
{
	int n = run->nranks;
	char msg[120];
	/* --pairs (checked at parse time) may name a pair twice: counted before it is held. */
	int asked = run->o->pairs != NULL ? parse_list(run->o->pairs, n, NULL, msg, sizeof msg) : 0;
	size_t cap = asked > 0 ? (size_t)asked : (size_t)n * (size_t)n;
	int32_t *pairs = malloc(cap * 2 * sizeof *pairs);
	if (pairs == NULL)
		cluster_fail(run, "out of memory");
	if (asked > 0) {
		*npairs = parse_list(run->o->pairs, n, pairs, msg, sizeof msg);
		return pairs;
	}
	int k = 0;
	for (int across = 1; across >= 0 && k == 0; across--)
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++)
				if (!across || leader[a] != leader[b]) {
					pairs[2 * k] = a;
					pairs[2 * k + 1] = b;
					k++;
				}
	*npairs = k;
	return pairs;
}

static void keep(const struct cluster_run *run, struct peak_result *r)
{
	peak_result_finish(r);
	if (cluster_rows_add(run->rows, r) != 0)
		cluster_fail(run, "out of memory");
}

static int names_shm(const char *btl)
{
	return strstr(btl, "vader") != NULL || strstr(btl, "sm") != NULL;
}

/* MPI carried this node's traffic over TCP: the transport measured at the start of the
 * run (cluster_transport.c: mpi.transport in the node's block, "tcp over ..."), else what
 * OpenMPI was told (cluster_mpi_over_tcp). */
static int node_over_tcp(const struct cluster_run *run, int rank)
{
	const char *t = run->node_ctxs != NULL
			    ? peak_context_get(&run->node_ctxs[rank], "mpi.transport")
			    : NULL;
	if (t != NULL && t[0] != '\0')
		return strncmp(t, "tcp ", 4) == 0;
	return cluster_mpi_over_tcp();
}

/* 8 B latency: netbench's TCP half round trip beside it, below_tcp, and on one node the
 * cause of a shared-memory latency of a microsecond or more, as measured. */
static void latency_flags(const struct cluster_run *run, struct peak_result *r,
			  const struct cluster_p2p_result *res)
{
	char item[64];
	if (res->tcp_half_us > 0) {
		snprintf(item, sizeof item, "tcp_half_rtt_us=%.4g", res->tcp_half_us);
		peak_result_flag(r, item);
		snprintf(item, sizeof item, "tcp_min_half_rtt_us=%.4g", res->tcp_min_half_us);
		peak_result_flag(r, item);
		/* Against TCP's fastest round trip, not its median: a loaded host's median
		 * wanders 3x (a wake-up), the floor is the path. Not judged where the pair's
		 * ranks share CPUs with others (ranks_share_cpus): TCP's blocking round trips
		 * then wait for a CPU that MPI's yielding loops keep, and even its fastest is
		 * not the path (3 ranks on 2 CPUs read 17-34 us where 2 ranks read 10-13 us
		 * against MPI's 10-25; docs/cluster.md). */
		int shared = run->shares_cpus != NULL &&
			     (run->shares_cpus[res->host] || run->shares_cpus[res->peer]);
		if (node_over_tcp(run, res->host) && !shared &&
		    r->p50 < run->o->below_tcp_ratio * res->tcp_min_half_us)
			peak_result_flag(r, "below_tcp");
	}
	if (!res->intra || !(r->p50 >= 1.0))
		return;
	const char *btl = getenv("OMPI_MCA_btl");
	if (btl != NULL && btl[0] != '^' && !names_shm(btl))
		peak_result_flag(r, "cause=btl_without_shared_memory");
	else if (res->same_cpu)
		peak_result_flag(r, "cause=ranks_on_one_cpu");
	else
		peak_result_flag(r, "cause=unexplained");
}

/* Above 8 KiB a bandwidth row gets its bound as theoretical (the link, both ways for
 * bibw; one node: the memory copy rate) and the flag naming which bound it passed. */
static void bandwidth_bound(struct peak_result *r, const struct cluster_p2p_result *res, size_t s,
			    double sides)
{
	if (r->block_bytes <= CLUSTER_MPI_LARGE_BYTES)
		return;
	double gbps = res->intra ? res->copy_gbps[s] : res->link_gbps * sides;
	if (!(gbps > 0))
		return;
	r->theoretical = gbps * 1e9 / 8.0 / 1e6; /* MB/s */
	if (res->intra)
		peak_result_flag(r, "bound=copy");
	else if (strncmp(res->link_where, "peaks.conf", 10) == 0)
		peak_result_flag(r, "bound=net.gbps");
	else
		peak_result_flag(r, "bound=link");
	if (r->summary.n > 0 && r->summary.mean > CLUSTER_MPI_ABOVE_RATIO * r->theoretical)
		peak_result_flag(r, res->intra ? "above_copy" : "above_link");
}

/* The index of the largest of --sizes (the list may come in any order). */
static size_t largest_size(const struct cluster_opts *o)
{
	size_t k = 0;
	for (size_t s = 1; s < o->sizes.n; s++)
		if (o->sizes.v[s] > o->sizes.v[k])
			k = s;
	return k;
}

void cluster_p2p_rows(const struct cluster_run *run, const struct cluster_p2p_result *res,
		      int bw_outlier, int lat_outlier)
{
	static const char *const tests[] = {"mpi_p2p_latency", "mpi_p2p_bw", "mpi_p2p_bibw"};
	const struct cluster_opts *o = run->o;
	const char *host = run->nodes[res->host].name, *peer = run->nodes[res->peer].name;
	char item[48];
	for (int t = CLUSTER_P2P_LATENCY; t <= CLUSTER_P2P_BIBW; t++)
		for (size_t s = 0; s < o->sizes.n; s++) {
			const struct cluster_mpi_point *p = &res->pts[t][s];
			struct peak_result r;
			int lat = t == CLUSTER_P2P_LATENCY;
			cluster_mpi_row(&r, tests[t], lat ? "latency" : "throughput",
					lat ? "us" : "MB/s", p, host, peer);
			if (res->intra)
				peak_result_flag(&r, "intra_node");
			if (!lat) {
				snprintf(item, sizeof item, "window=%u", (unsigned)p->window);
				peak_result_flag(&r, item);
				bandwidth_bound(&r, res, s, t == CLUSTER_P2P_BIBW ? 2.0 : 1.0);
			}
			if (lat && p->bytes == 8)
				latency_flags(run, &r, res);
			if (lat && lat_outlier && p->bytes == 8)
				peak_result_flag(&r, "outlier=latency");
			if (t == CLUSTER_P2P_BW && bw_outlier && s == largest_size(o))
				peak_result_flag(&r, "outlier=bandwidth");
			keep(run, &r);
		}
}

void cluster_p2p_msgrate_rows(const struct cluster_run *run, const struct cluster_p2p_result *res)
{
	const struct cluster_opts *o = run->o;
	char item[48];
	for (size_t s = 0; s < o->sizes.n; s++) {
		struct peak_result r;
		cluster_mpi_row(&r, "mpi_p2p_msgrate", "rate", "Mmsg/s",
				&res->pts[CLUSTER_P2P_MSGRATE][s], run->nodes[res->host].name,
				run->nodes[res->peer].name);
		snprintf(item, sizeof item, "concurrent_pairs=%u", res->concurrent);
		peak_result_flag(&r, item);
		snprintf(item, sizeof item, "window=%u",
			 (unsigned)res->pts[CLUSTER_P2P_MSGRATE][s].window);
		peak_result_flag(&r, item);
		keep(run, &r);
	}
}

static double point_p50(const struct cluster_p2p_result *res, int test, size_t s)
{
	return res->pts[test][s].p50;
}

void cluster_p2p_outliers(const struct cluster_run *run, const struct cluster_p2p_result *kept,
			  int npairs)
{
	const struct cluster_opts *o = run->o;
	size_t last = largest_size(o), s8 = o->sizes.n;
	for (size_t s = 0; s < o->sizes.n; s++)
		if (o->sizes.v[s] == 8)
			s8 = s;
	double bw_max = 0, lat_min = INFINITY;
	int across = 0;
	for (int k = 0; k < npairs; k++) {
		if (kept[k].intra)
			continue;
		across++;
		bw_max = fmax(bw_max, point_p50(&kept[k], CLUSTER_P2P_BW, last));
		if (s8 < o->sizes.n)
			lat_min = fmin(lat_min, point_p50(&kept[k], CLUSTER_P2P_LATENCY, s8));
	}
	if (across < 2)
		return;
	for (int k = 0; k < npairs; k++) {
		const struct cluster_p2p_result *res = &kept[k];
		if (res->intra)
			continue;
		int bw = point_p50(res, CLUSTER_P2P_BW, last) < o->bw_frac * bw_max;
		int lat =
		    s8 < o->sizes.n && point_p50(res, CLUSTER_P2P_LATENCY, s8) > o->lat_x * lat_min;
		if (!bw && !lat)
			continue;
		const char *host = run->nodes[res->host].name, *peer = run->nodes[res->peer].name;
		cluster_rows_drop(run->rows, "mpi_p2p_latency", host, peer);
		cluster_rows_drop(run->rows, "mpi_p2p_bw", host, peer);
		cluster_rows_drop(run->rows, "mpi_p2p_bibw", host, peer);
		cluster_p2p_rows(run, res, bw, lat);
	}
}
