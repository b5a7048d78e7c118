/* One ordered pair's figures, measured over netbench's own protocol (network/'s netproto library
 * ops): TCP throughput counted at the receiver, UDP loss at a rate, TCP round trips. */
#ifndef CLUSTER_PAIR_H
#define CLUSTER_PAIR_H

#include <stddef.h>
#include <stdint.h>

#define CLUSTER_MAX_REPS 64u

struct cluster_cfg {
	double duration_s;   /* each throughput repetition (--min-time) */
	unsigned reps;       /* throughput repetitions: the fewest (--reps) */
	unsigned max_reps;   /* the most, with ci_pct > 0 (--max-reps) */
	double ci_pct;       /* repeat until the 95% CI is this % of the mean wide (--ci; 0 off) */
	double lat_s;        /* latency run */
	uint64_t udp_bps;    /* UDP sender rate */
	uint32_t tcp_block;  /* TCP write size */
	uint32_t udp_dgram;  /* UDP datagram */
	uint32_t lat_block;  /* latency message */
	uint32_t timeout_ms; /* longest silence before a pair counts as stalled */
};

/* Plain numbers only: the struct travels through MPI_Gather as bytes. */
struct cluster_pair {
	int32_t host, peer;   /* ranks: host sends (client), peer receives (server) */
	int32_t ok;           /* 1 measured, 0 not run or failed */
	uint32_t reps;        /* throughput repetitions run */
	double tcp_gbps[CLUSTER_MAX_REPS];
	double ci_wide_pct;   /* the CI width reached when --ci was not met by max_reps; else 0 */
	double udp_loss_pct;  /* lost / sent over the run */
	uint64_t udp_sent, udp_lost;
	uint64_t lat_n;       /* timed round trips */
	double lat_us[6];     /* p50 p90 p99 p99.9 min max */
	char err[160];
};

/* Measure rank host -> peer's server at addr:port. 0, or -1 with p->err set. */
int cluster_pair_run(const struct cluster_cfg *cfg, const char *addr, uint16_t port,
		     struct cluster_pair *p);

/* Only the TCP round trips (lat_n, lat_us), as cluster_pair_run measures them: mpi_p2p's
 * reference on the same pair. 0, or -1 with p->err set. */
int cluster_pair_latency(const struct cluster_cfg *cfg, const char *addr, uint16_t port,
			 struct cluster_pair *p);

/* Median of the pair's throughput samples (Gbit/s), 0 when none. */
double cluster_pair_tcp_median(const struct cluster_pair *p);

#endif
