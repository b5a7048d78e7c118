/* Rank 0's rows: every result so far, each with its own copy of its samples, written whole
 * through libpeak's reporters after every round (a temporary file renamed over --output), so
 * a run that dies keeps a valid file of what it measured. */
#ifndef CLUSTER_ROWS_H
#define CLUSTER_ROWS_H

#include <stddef.h>

#include "peak_context.h"
#include "peak_opts.h"
#include "peak_result.h"

#define CLUSTER_ROW_SAMPLES 64

struct cluster_rows;

/* The results file: format and path (NULL or "-": stdout, written once at the end), the
 * run's context and one context block per node (both referenced, not copied). */
struct cluster_rows *cluster_rows_open(enum peak_format format, const char *path,
				       const struct peak_context *ctx,
				       const struct peak_context *nodes, size_t nnodes);
/* Keep a copy of r and of its samples (at most CLUSTER_ROW_SAMPLES). 0 or -1. */
int cluster_rows_add(struct cluster_rows *s, const struct peak_result *r);
/* From now on every row kept whose host or peer is host, and every row of host "all",
 * gets flag (ranks_share_cpus). 0 or -1. */
int cluster_rows_mark(struct cluster_rows *s, const char *host, const char *flag);
/* Add a flag to the rows of this test, metric, host and peer (an outlier mark). */
void cluster_rows_flag(struct cluster_rows *s, const char *test, const char *metric,
		       const char *host, const char *peer, const char *flag);
/* Remove every row of this test, host and peer (a pair about to be re-measured). */
void cluster_rows_drop(struct cluster_rows *s, const char *test, const char *host,
		       const char *peer);
/* Write every row so far to the file (temporary file + rename); nothing for stdout until
 * final. 0, or -1 with a one-line reason in err. */
int cluster_rows_flush(struct cluster_rows *s, int final, char *err, size_t err_len);
void cluster_rows_close(struct cluster_rows *s);

#endif
