/* One result record for every suite: one row of the CSV schema (docs/results-schema.md). */
#ifndef PEAK_RESULT_H
#define PEAK_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_stats.h"

/* Optional numbers are NAN when not applicable: reporters print an empty CSV cell / null. */
struct peak_result {
	char suite[16];   /* cpu, memory, disk, network, dpdk, baseline */
	char test[48];
	char variant[64]; /* ISA, pattern, engine, protocol... */
	unsigned threads; /* 0: not applicable */
	uint64_t block_bytes;
	bool has_block;
	char metric[24]; /* throughput, latency, iops, flops, iops_int, loss, frequency ... */
	char unit[16];   /* GFLOPS, GIOPS, MB/s, GB/s, Gbit/s, Mpps, IOPS, ns, us, %, GHz */
	struct peak_summary summary;
	double p50, p90, p99, p999;
	double theoretical;
	double efficiency; /* summary.mean / theoretical; filled by peak_result_finish */
	char baseline_tool[32];
	double baseline;
	char flags[320];   /* semicolon-separated, whole items (PEAK_FLAGS_CUT: some left out) */
	const double *samples; /* one value per repetition, in the row's unit (not owned) */
	size_t nsamples;
	/* clusterbench's rows: the sending (or measured) node and the receiving one, as the
	 * hostfile names them; written only by a reporter set up with peak_output_cluster. */
	char host[64];
	char peer[64];
};

/* Zero the record and set every optional number to NAN. */
void peak_result_init(struct peak_result *r, const char *suite, const char *test,
		      const char *variant, const char *metric, const char *unit);
/* Summarize samples into r->summary (samples stay referenced for JSON). */
void peak_result_set_samples(struct peak_result *r, const double *samples, size_t n);
/* Add a flag (no duplicates), whole: one that does not fit is left out and the flags end in
 * PEAK_FLAGS_CUT, never in a cut item. */
void peak_result_flag(struct peak_result *r, const char *flag);
/* Add the flag "key=P", P a percentage to one decimal rounded up (up) or down, when it fits
 * whole (results compare reads it as a bound); nothing for a number that is not finite. */
void peak_result_flag_pct(struct peak_result *r, const char *key, double pct, bool up);
/* Copy the item "key=value" of a flags string into out (n bytes); false when there is none. */
bool peak_result_flag_item(const char *flags, const char *key, char *out, size_t n);
/* Copy the item named key ("key" or "key=value") of a flags string onto r, whole or not
 * at all: a suite that rebuilds the harness's row keeps the harness's flag (ci_wide). */
void peak_result_flag_copy(struct peak_result *r, const char *flags, const char *key);
/* The above_peak rule: a mean more than this ratio of its theoretical peak breaks physics
 * (the 2% covers clock noise). The results program reads this line (physics.py). */
#define PEAK_ABOVE_PEAK_RATIO 1.02

/* The flag of a comparison row: its theoretical is another peak than the row's own (linpack's
 * dgesv_vs_avx2 against the AVX2 peak on an AVX-512 machine), its efficiency a ratio to it,
 * informative; never a physics row, so never above_peak. Set it before peak_result_finish. */
#define PEAK_COMPARISON_FLAG "comparison"
/* Ends a row's flags when one or more did not fit in them and were left out. */
#define PEAK_FLAGS_CUT "flags_cut"

/* True when the flags string holds the item name (bare, or as name=value). */
bool peak_result_has_flag(const char *flags, const char *name);
/* Compute efficiency from theoretical and set the physics flags (above_peak, zero) from
 * the figure as it stands, dropping one a previous call set that the figure no longer
 * bears: call it after the last input to the figure (samples, theoretical) is known; a
 * second call after an input changed gives the flags of the final figure. */
void peak_result_finish(struct peak_result *r);

/* The schema's columns in order (peak_columns.def, the one list), and the optional ones
 * after them (clusterbench's host and peer). */
extern const char *const peak_result_columns[];
extern const size_t peak_result_ncolumns;
extern const char *const peak_result_host_columns[];
extern const size_t peak_result_nhost_columns;

/* One cell of a row, as the reporters write it. */
enum peak_cell_kind { PEAK_CELL_TEXT, PEAK_CELL_NUM, PEAK_CELL_COUNT };
struct peak_cell {
	enum peak_cell_kind kind;
	const char *text;         /* TEXT */
	double num;               /* NUM: NAN is an empty cell */
	bool present;             /* COUNT: else an empty cell */
	unsigned long long count; /* COUNT */
};
/* The row's cells in column order, then (hosts) host and peer: cells holds
 * peak_result_ncolumns + peak_result_nhost_columns. */
#define PEAK_RESULT_MAX_CELLS 32
void peak_result_cells(const struct peak_result *r, bool hosts, struct peak_cell *cells);

#endif
