/* mpi_p2p's pair figures as they travel to rank 0, and how rank 0 turns them into rows
 * with their physics flags (cluster_mpi_rows.c). */
#ifndef CLUSTER_MPI_P2P_H
#define CLUSTER_MPI_P2P_H

#include <stdint.h>

#include "cluster_mpi.h"

enum {
	CLUSTER_P2P_LATENCY,
	CLUSTER_P2P_BW,
	CLUSTER_P2P_BIBW,
	CLUSTER_P2P_MSGRATE,
	CLUSTER_P2P_NTESTS
};

/* One pair: plain numbers, sent from the pair's first rank to rank 0 as bytes. */
struct cluster_p2p_result {
	int32_t host, peer;  /* ranks */
	int32_t intra;       /* both ranks on one node (one MPI shared-memory domain) */
	int32_t same_cpu;    /* intra: both ranks last ran on the same CPU */
	uint32_t concurrent; /* msgrate: pairs measured at once */
	double tcp_half_us;  /* netbench's TCP round trip p50 / 2 on this pair; 0: not measured */
	double tcp_min_half_us;          /* its fastest round trip / 2: below_tcp's reference */
	double link_gbps;                /* the slower side's link speed; 0 unknown */
	char link_where[96];             /* where it came from */
	double copy_gbps[PEAK_LIST_MAX]; /* intra, per size: twice one core's copy rate, Gbit/s */
	struct cluster_mpi_point pts[CLUSTER_P2P_NTESTS][PEAK_LIST_MAX];
};

/* An iteration's time (s) in the test's unit (us, MB/s, Mmsg/s). */
double cluster_p2p_value(int test, uint64_t bytes, unsigned window, double t);

/* Every rank's node, as the world rank of its node's first rank (MPI_COMM_TYPE_SHARED). */
int32_t *cluster_p2p_leaders(const struct cluster_run *run);
/* The pairs to measure, as rank pairs: --pairs, else every pair of ranks on different
 * nodes, else (one node) every pair. */
int32_t *cluster_p2p_pairs(const struct cluster_run *run, const int32_t *leader, int *npairs);
/* Parse --pairs "A-B,C-D" (ranks below nranks, A != B). 0, or -1 with the reason. */
int cluster_p2p_pairs_parse(const char *spec, int nranks, char *msg, size_t len);

/* Rank 0: the latency, bw and bibw rows of one pair (with an outlier flag on its largest
 * size's bandwidth or its smallest size's latency when asked). */
void cluster_p2p_rows(const struct cluster_run *run, const struct cluster_p2p_result *res,
		      int bw_outlier, int lat_outlier);
void cluster_p2p_msgrate_rows(const struct cluster_run *run, const struct cluster_p2p_result *res);
/* Rank 0, after every pair: ClusterKit's rule (--outlier-bw, --outlier-lat) on the pairs
 * between nodes, their rows rewritten with the flag. */
void cluster_p2p_outliers(const struct cluster_run *run, const struct cluster_p2p_result *kept,
			  int npairs);

#endif
