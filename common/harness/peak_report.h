/* Reporters: a struct of ops {begin(context), record(result), end(context)}.
 * Measuring code hands records to a peak_output and never prints. */
#ifndef PEAK_REPORT_H
#define PEAK_REPORT_H

#include <stdio.h>

#include "peak_context.h"
#include "peak_opts.h"
#include "peak_result.h"

struct peak_reporter;

struct peak_reporter_ops {
	const char *name;
	int (*begin)(struct peak_reporter *r, const struct peak_context *ctx);
	int (*record)(struct peak_reporter *r, const struct peak_result *res);
	/* The context again: keys added during the run (steal over the run) are included. */
	int (*end)(struct peak_reporter *r, const struct peak_context *ctx);
};

struct peak_reporter {
	const struct peak_reporter_ops *ops;
	FILE *out;
	void *state; /* owned by the reporter, freed in end() */
	/* clusterbench's (peak_output_cluster): rows carry host and peer, and the JSON
	 * context holds one context block per node under "nodes". */
	bool hosts;
	const struct peak_context *nodes;
	size_t nnodes;
};

extern const struct peak_reporter_ops peak_report_console;
extern const struct peak_reporter_ops peak_report_csv;
extern const struct peak_reporter_ops peak_report_json;

const struct peak_reporter_ops *peak_report_ops_for(enum peak_format format);

/* A reporter bound to a file or stdout, as chosen by --format and --output. */
struct peak_output {
	struct peak_reporter rep;
	bool close_out;
	bool begun;
};

/* Open --output (or stdout). Returns 0, or -1 with a one-line reason in err. */
int peak_output_open(struct peak_output *o, enum peak_format format, const char *path, char *err,
		     size_t err_len);
/* After open, before begin: every row gets host and peer (CSV: two columns after flags;
 * JSON: two keys) and the JSON context the nodes' blocks as "nodes" (not copied). */
void peak_output_cluster(struct peak_output *o, const struct peak_context *nodes, size_t nnodes);
int peak_output_begin(struct peak_output *o, const struct peak_context *ctx);
int peak_output_record(struct peak_output *o, const struct peak_result *res);
/* Ends the report and closes the file. Returns 0, or -1 when writing failed. */
int peak_output_close(struct peak_output *o, const struct peak_context *ctx);

/* CSV cell for a double: empty when NAN/inf, else %.9g (nine significant digits). */
const char *peak_report_num(double v, char *buf, size_t buf_len);

#endif
