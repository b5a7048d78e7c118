/* clusterbench's results file: the common schema's JSON (docs/results-schema.md) with
 * "host" and "peer" on every row and every node's context. Rewritten whole after each
 * round (temporary file + rename), so a run that dies keeps a valid file of what it
 * measured. */
#ifndef CLUSTER_OUT_H
#define CLUSTER_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What each rank tells rank 0 about itself (fixed-size: gathered as bytes). */
struct cluster_node {
	char name[64];    /* as the hostfile (--names) gives it, else the host name */
	char cpu[96];     /* /proc/cpuinfo model name */
	char kernel[64];  /* uname -r */
	char flags[32];   /* "avx2 avx512f" as present */
	int32_t cpus;     /* online CPUs */
	uint16_t port;    /* this rank's netbench server */
};

struct cluster_row {
	const char *test, *variant, *metric, *unit;
	long threads, block_bytes; /* < 0: null */
	const double *samples;
	size_t n;
	const double *pct; /* p50 p90 p99 p999, or NULL */
	const double *minmax; /* exact min and max when samples are not the summary (latency) */
	const char *host, *peer;
	char flags[256];
};

struct cluster_out;

struct cluster_out *cluster_out_open(const char *path, const struct cluster_node *nodes, int n);
/* Append a row to the in-memory list (copied). */
int cluster_out_add(struct cluster_out *o, const struct cluster_row *r);
/* Add text to the flags of the rows of this test/metric/host/peer (outlier marks). */
void cluster_out_flag(struct cluster_out *o, const char *test, const char *metric,
		      const char *host, const char *peer, const char *flag);
/* Remove every row of this host/peer/test (a pair about to be re-measured). */
void cluster_out_drop(struct cluster_out *o, const char *test, const char *host, const char *peer);
/* Write everything so far to the file (atomically). 0 or -1. */
int cluster_out_flush(struct cluster_out *o);
void cluster_out_close(struct cluster_out *o);

#endif
