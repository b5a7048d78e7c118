/* --test mpi_p2p and --test mpi_coll: MPI itself measured between the nodes (OSU's
 * methods, docs/cluster.md), unlike net_matrix, where MPI only coordinates. Shared here:
 * OSU's iteration counts, the repetition loop's per-iteration timings and percentiles, the
 * physics bounds (link speed, TCP round trip, memory copy). */
#ifndef CLUSTER_MPI_H
#define CLUSTER_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

/* OSU's split: a message above 8 KiB is large (LARGE_MESSAGE_SIZE 8192 in osu_util.h). */
#define CLUSTER_MPI_LARGE_BYTES 8192u
#define CLUSTER_MPI_MAX_BYTES   ((uint64_t)4 << 20) /* OSU's MAX_MSG_SIZE, 1 << 22 */
#define CLUSTER_MPI_ACK_BYTES   4u
/* --min-time's default for the MPI tests: a repetition ends after OSU's count or this. */
#define CLUSTER_MPI_MIN_TIME_S 0.1
/* A rate row's bandwidth beyond this ratio of its bound (link, copy) breaks physics, as
 * above_peak's 2% (PEAK_ABOVE_PEAK_RATIO). */
#define CLUSTER_MPI_ABOVE_RATIO 1.02
/* MPI's 8 B half round trip under this share of netbench's TCP half round trip on the same
 * pair is implausible over a TCP transport: MPI's TCP path is the same kernel's; polling
 * instead of sleeping saves a wake-up, not half of it. */
#define CLUSTER_MPI_BELOW_TCP_RATIO 0.5 /* the default of the hidden --below-tcp-ratio */

enum cluster_mpi_kind { CLUSTER_MPI_LATENCY, CLUSTER_MPI_BANDWIDTH };

/* Warm-up and timed iterations for one message size (OSU's tables; collectives take the
 * latency table), the timed ones capped by --max-iters when it is set. These are the most a
 * warm-up or a repetition runs: time ends them sooner (struct cluster_mpi_pace). */
void cluster_mpi_iters(const struct cluster_opts *o, enum cluster_mpi_kind kind, uint64_t bytes,
		       unsigned *warmup, unsigned *iters);

/* A warm-up's or a repetition's iterations, bounded by time as the suite's repetitions are:
 * OSU's count is the most it runs, and it ends once it has lasted min_s (--min-time). They
 * run in chunks the deciding rank asks for (the others are told): the first chunk is one
 * iteration, each next one at most as many as are done (a slow iteration is seen before
 * many are committed) and no more than the mean iteration says fit in what is left. */
struct cluster_mpi_pace {
	double t0, min_s; /* start and --min-time, seconds */
	unsigned most, done;
};
void cluster_mpi_pace_start(struct cluster_mpi_pace *p, double min_s, unsigned most, double now);
/* The iterations to run next (0: done); counts them as done. */
unsigned cluster_mpi_pace_next(struct cluster_mpi_pace *p, double now);

/* The window of a bandwidth point grows through its first warm-up iterations: from one
 * message, doubled while an iteration of the window took at most an eighth of --min-time,
 * up to --window (osu_bw's 64). So an iteration lasts about a quarter of a repetition at
 * most: a window only keeps the link busy, and a message that alone lasts that long does so
 * already (4 MiB at 25 MB/s: 0.17 s; 64 of them, osu_bw's iteration, 11 s). Given the window
 * w and its iteration's time t_s, the next window; w itself when it is final. */
unsigned cluster_mpi_window_next(const struct cluster_opts *o, unsigned w, double t_s);

/* One point's figures, plain numbers (sent between ranks as bytes). Samples are one per
 * repetition (a repetition = OSU's iteration count), in the row's unit; p50 and p99 are the
 * percentiles of every timed iteration's time, in the row's unit. */
struct cluster_mpi_point {
	uint64_t bytes;
	uint32_t nsamples;
	uint32_t iters; /* timed iterations, all repetitions */
	double samples[CLUSTER_ROW_SAMPLES];
	double p50, p99;
	double ci_wide_pct;      /* --ci not met by --max-reps: the width reached; else 0 */
	uint32_t window;         /* bandwidth tests: the messages in flight (cluster_mpi_window) */
	uint32_t budget_stopped; /* --ci not met when --point-budget was spent */
};

/* Per-iteration times of a point, grown as repetitions come (seconds). */
struct cluster_mpi_times {
	double *t;
	size_t n, cap;
};
int cluster_mpi_times_add(struct cluster_mpi_times *tm, const double *t, size_t n);
/* The p-th percentile of the times, in seconds. Sorts tm. */
double cluster_mpi_times_pct(struct cluster_mpi_times *tm, double pct);

/* The stopping rule on p's samples (--reps, --ci, --max-reps). */
int cluster_mpi_enough(const struct cluster_opts *o, const struct cluster_mpi_point *p);
/* Whether to run another repetition: the stopping rule, and past --reps only while the
 * repetitions' time so far (spent_s) plus their mean stays within --point-budget (libpeak's
 * rule); a point the budget stopped gets p->budget_stopped. */
int cluster_mpi_more(const struct cluster_opts *o, struct cluster_mpi_point *p, double spent_s);
/* After the last repetition: the ci_wide width when --ci was not met. */
void cluster_mpi_ci(const struct cluster_opts *o, struct cluster_mpi_point *p);

/* The row every mpi test writes: suite cluster, one thread, block_bytes = bytes, the
 * point's samples and percentiles (a rate's percentiles from its times: scale / time). */
void cluster_mpi_row(struct peak_result *r, const char *test, const char *metric, const char *unit,
		     const struct cluster_mpi_point *p, const char *host, const char *peer);

/* The link speed (Gbit/s) of the interface this node reaches host through: peaks.conf's
 * net.gbps when set, else /sys/class/net/IF/speed. 0 when unknown; the interface (or why
 * none) in where. */
double cluster_mpi_link_gbps(const char *host, char *where, size_t len);

/* True when OpenMPI was told to carry messages between nodes over TCP (OMPI_MCA_btl names
 * tcp and OMPI_MCA_pml is unset or ob1): below_tcp's fallback when the transport measured
 * (mpi.transport) is not in the node's block. */
int cluster_mpi_over_tcp(void);

/* --test mpi_p2p (cluster_mpi_p2p.c) and --test mpi_coll (cluster_mpi_coll.c). */
void cluster_mpi_p2p(const struct cluster_run *run);
void cluster_mpi_coll(const struct cluster_run *run);

#endif
