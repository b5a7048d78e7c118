/* clusterbench's shared state: the options, what each rank tells the others about itself,
 * and the run every part works on (no globals outside cluster_guard.c's watchdog). */
#ifndef CLUSTER_H
#define CLUSTER_H

#include <stdint.h>

#include "cluster_pair.h"
#include "cluster_rows.h"
#include "peak_opts.h"

struct cluster_opts {
	struct peak_common_opts common; /* --reps, --ci, --max-reps, --format, --output */
	const char *test;     /* net_matrix | node_sweep | mpi_p2p | mpi_coll */
	const char *schedule; /* shift | serial */
	const char *names;    /* hostfile: line i names rank i */
	const char *bindir;   /* node_sweep: the suite's build dir */
	const char *dir;      /* node_sweep: diskbench's directory */
	const char *ompi_info; /* `ompi_info --parsable` output (cluster_run.sh writes it) */
	struct cluster_cfg cfg;
	double min_time_s, udp_mbit, timeout_s;
	uint64_t port;
	double lat_x, bw_frac; /* outlier rule */
	double round_s;        /* watchdog: longest a round may take */
	/* mpi_p2p, mpi_coll (cluster_mpi.h) */
	struct peak_list sizes; /* message sizes, bytes */
	const char *pairs;      /* "A-B,C-D" ranks, or NULL: every pair */
	uint64_t max_iters;     /* cap on OSU's timed iterations (0: none) */
	uint64_t window;        /* messages in flight (osu_bw: 64) */
	double below_tcp_ratio; /* below_tcp's rule (hidden flag: tests make it fire) */
};

/* What each rank tells every other (fixed-size: gathered as bytes). */
struct cluster_node {
	char name[64];    /* as the hostfile (--names) gives it, else MPI's processor name */
	uint16_t port;    /* this rank's netbench server */
	uint8_t avx2, avx512f; /* what node_sweep's cpubench points need */
};

struct cluster_run {
	const struct cluster_opts *o;
	int rank, nranks;
	const struct cluster_node *nodes; /* every rank's, by rank */
	/* Per rank: it shares a kernel (boot_id) with more ranks than that kernel has CPUs
	 * (cluster_share.c); and whether this run's own waits yield the CPU for it. */
	const uint8_t *shares_cpus;
	int yield;
	struct cluster_rows *rows; /* rank 0's; NULL elsewhere */
	/* Rank 0's run context and node blocks (NULL elsewhere), which the rows reference:
	 * keys learnt during the run (the transport's) go in here. */
	struct peak_context *ctx, *node_ctxs;
};

/* cluster_guard.c. Start the watchdog, naming this host in its line. */
void cluster_guard_start(const char *host);
/* One line on stderr, rank 0's rows written as they are, the whole job ended (exit 1). */
void cluster_fail(const struct cluster_run *run, const char *msg);
/* Arm the watchdog for round (0: the teardown) for o->round_s seconds; 0 s disarms. */
void cluster_watch(const struct cluster_run *run, int round, int arm);
/* Rank 0: write the rows so far, or end the job saying why. */
void cluster_flush(const struct cluster_run *run);
/* The MPI tests' progress watch: a thread that ends the job, with one line naming the step,
 * when a watched step sees no cluster_tick for stall_s seconds. */
void cluster_progress_watch_start(double stall_s);
/* This rank now stands at the step fmt names (printf-like), watched: "mpi_p2p pair 1/3
 * A - B, mpi_p2p_bw 4MiB, repetition 2". Counts as progress. */
void cluster_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* This rank waits on others (not watched: the round's watchdog bounds it). */
void cluster_step_idle(void);
/* One iteration done (no syscall: safe between timed iterations). */
void cluster_tick(void);
/* One progress line on stderr, printf-like, unless --quiet. Never starts "clusterbench: ",
 * which marks the line that says why a run ended (cluster_run.sh keeps the first). */
void cluster_progress(const struct cluster_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The progress line of a row as it is kept: "cluster TEST VARIANT HOST->PEER block=B:
 * MEAN UNIT, N reps WHERE". */
void cluster_progress_row(const struct cluster_run *run, const struct peak_result *r,
			  const char *where);

/* --test net_matrix (cluster_matrix.c) and --test node_sweep (cluster_sweep.c). */
void cluster_net_matrix(const struct cluster_run *run);
void cluster_sweep(const struct cluster_run *run);

#endif
