/* The harness: one point loop for every suite (google/benchmark's State loop and
 * likwid-bench's kernel table, see ../shared/ARCHITECTURE.md beside the repository).
 *
 * A suite declares a table of kernels (struct peak_bench_kernel) and a point enumerator
 * (struct peak_bench_suite.point); the harness owns, per thread count, the thread team, and
 * per point: the support check (unsupported = a row whose flag carries the reason, never an
 * exit), setup, calibration of the iteration count to --min-time, one warm-up run, measured
 * runs each followed by verify (at least --reps, and with --ci until the 95% CI of the
 * mean is that narrow or --max-reps ran: peak_stats_enough; ci_wide=W when the cap
 * stopped it), the steal window, the standard flags (steal with
 * steal_pct, contended with cpu_share_pct, oversubscribed, unpinned; no_peak when the
 * kernel names no theoretical peak; comparison for a comparison kernel; above_peak and
 * zero from peak_result_finish), the row hook, peak_result_finish again (the hook may set
 * an input of the figure: the flags recorded are the final figure's), and the progress
 * line. A suite keeps its kernels, engines and protocols and adds its own
 * flags in the kernel's row hook.
 * Work shared by all kernels of a point (arrays mapped once) goes in the suite's
 * point_setup/point_teardown; the suite's order chooses kernel after kernel (each kernel's
 * reps back to back, the default) or round robin (STREAM's interleaving of its kernels).
 * What depends on the point: its calibration start and whether a peak applies (struct
 * peak_bench_point), the kernel's variant and work per iteration (variant_at, work_at).
 * Rows that follow a kernel's row come from its extra_rows hook.
 *
 * The path of one figure: kernel->run on every worker for `iters` iterations; team time
 * (latest finish - earliest start) in ns; value = work_per_iter * iters * threads / ns *
 * scale (bytes/ns = GB/s, flops/ns = GFLOPS: scale 1; MB/s: scale 1000), one sample per
 * repetition; peak_result_set_samples summarizes; theoretical from the kernel's hook;
 * peak_result_finish computes efficiency; peak_output_record hands the row to the reporter
 * chosen by --format. Errors travel as one struct peak_bench_err (exit code + one line).
 *
 * Stable API (harness2 ports disk, network and dpdk onto it): add fields at the end only. */
#ifndef PEAK_BENCH_H
#define PEAK_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_exit.h"
#include "peak_path.h"
#include "peak_opts.h"
#include "peak_report.h"
#include "peak_result.h"
#include "peak_team.h"

#define PEAK_BENCH_MAX_REPS PEAK_OPTS_MAX_REPS
#define PEAK_BENCH_MAX_THREADS 1024

/* The one error carrier: an exit code (enum peak_exit) and one line for stderr. */
struct peak_bench_err {
	int code; /* PEAK_EXIT_OK when no error */
	char msg[PEAK_MSG_MAX]; /* a longer one ends in "..." (peak_fmt) */
};

/* Set e (when no earlier error is kept) and return -1, so hooks can `return peak_bench_fail(...)`. */
int peak_bench_fail(struct peak_bench_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One point of a suite's sweep. The suite fills what it needs; the harness sets threads. */
struct peak_bench_point {
	unsigned threads;     /* set by the harness from --threads */
	uint64_t block_bytes; /* row's block_bytes when has_block */
	bool has_block;
	void *data; /* the suite's own point description (buffer size, pattern...) */
	uint64_t start_iters; /* calibration's first count at this point; 0: the suite's */
	/* No theoretical peak bounds this point (a working set that fits in the caches): its
	 * rows have no theoretical and are not flagged no_peak, as if the kernel had no peak
	 * hook. */
	bool peak_not_applicable;
};

struct peak_bench_kernel;

/* What hooks see while a point runs. */
struct peak_bench_run {
	const struct peak_bench_kernel *k;
	const struct peak_bench_point *point;
	struct peak_team *team;
	unsigned nthreads;
	uint64_t iters;     /* iterations per thread of the current run */
	unsigned rep;       /* measured repetition index; UINT32_MAX during calibration/warm-up */
	void *state;        /* the kernel's own state, set by setup, freed by teardown */
	void *suite_data;   /* struct peak_bench_suite.data */
	uint64_t *cpu_ns;   /* per thread: CPU time of the last run (for "contended") */
	double cpu_share;   /* lowest CPU time / elapsed of any worker over the measured runs */
	void *point_state;  /* the suite's point_setup state for this point; NULL without one */
	/* Measured repetitions run so far (with rep's): the row's n by the row and peak
	 * hooks. Size per-repetition arrays with peak_opts_max_reps, not --reps. */
	unsigned nreps;
	/* In verify and after_rep: this repetition is the point's last (the stopping rule
	 * said enough), so a check due after the last one runs now. Round robin: the last
	 * round is known only once every kernel ran in it, so this is true only in the round
	 * the cap forces; round-robin kernels check every round. */
	bool last_rep;
};

#define PEAK_BENCH_NOT_MEASURED UINT32_MAX

struct peak_bench_kernel {
	const char *name;    /* row's variant when variant is NULL, else part of progress */
	const char *test;    /* row's test, e.g. "flops", "bandwidth" */
	const char *variant; /* row's variant; NULL: name */
	const char *metric;  /* e.g. "throughput", "flops" */
	const char *unit;    /* e.g. "GB/s", "GFLOPS" */
	double work_per_iter; /* bytes, flops or ops one thread does per iteration */
	double scale;         /* value = work / ns * scale; 0 means 1 */

	/* All hooks but run are optional (NULL). Those returning int: 0, or -1 with e set. */
	/* true when this machine can run the kernel at this point; else the reason. */
	bool (*supported)(const struct peak_bench_run *r, char *why, size_t why_len);
	/* A setup that fails is not followed by teardown: it frees what it made itself. */
	int (*setup)(struct peak_bench_run *r, struct peak_bench_err *e);
	/* One thread's work for r->iters iterations. Non-zero fails the point. */
	int (*run)(struct peak_bench_run *r, unsigned thread_index);
	/* After every run (calibration, warm-up and measured): check the result. */
	int (*verify)(struct peak_bench_run *r, struct peak_bench_err *e);
	/* After each measured run (r->rep set), while the team is still hot: a suite's own
	 * per-repetition measurement (cpu's clock under the kernel's ISA). */
	int (*after_rep)(struct peak_bench_run *r, struct peak_bench_err *e);
	void (*teardown)(struct peak_bench_run *r);
	/* Theoretical peak in the row's unit, or NAN when unknown (then flagged no_peak).
	 * NULL: the suite has no peak for this kernel and the row is not flagged. */
	double (*peak)(const struct peak_bench_run *r);
	/* The suite's own flags and extra rows (frequency...): called after the harness filled
	 * and finished the row, before teardown (state is still there) and before the row is
	 * recorded; extra rows go to out (NULL when the caller records nothing). It may still
	 * set an input of the figure (theoretical): the harness finishes the row again after
	 * it (peak_result_finish), so the physics flags recorded are the final figure's; a
	 * row the hook records itself it finishes itself. Returns 0 or -1 with e set. */
	int (*row)(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		   struct peak_bench_err *e);
	void *data; /* the kernel's own constants */
	/* A comparison row (PEAK_COMPARISON_FLAG): its peak is another than its own by design
	 * (linpack's dgesv_vs_avx2), so it is never flagged above_peak. */
	bool comparison;
	/* A kernel that times itself (a disk job, a network session, a DPDK round) sets this
	 * instead of relying on run's team time: the harness calls it once as the warm-up
	 * (unless the suite skips it) and once per repetition, with no calibration, and takes
	 * *value (the repetition's figure in the row's unit) as the sample. run may be NULL
	 * then. Returns 0, or -1 with e set. The steal window, flags, row and progress stay
	 * the harness's. */
	int (*measure)(struct peak_bench_run *r, double *value, struct peak_bench_err *e);
	/* Optional: the row's variant at this point (an ISA or "-nt" chosen per block), written
	 * to buf before setup (run->point and run->point_state are set). NULL: variant or
	 * name. */
	void (*variant_at)(const struct peak_bench_run *r, char *buf, size_t len);
	/* Optional: work one thread does per iteration at this point (a block's bytes), asked
	 * once after setup. NULL: work_per_iter. */
	double (*work_at)(const struct peak_bench_run *r);
	/* Optional, sweep only: rows that follow the kernel's row (latency's cycles row, from the
	 * ns row's samples): called after main (flagged, finished) is recorded, before teardown
	 * (state is still there); records them itself to out. Not called for unsupported rows
	 * nor by peak_bench_point_run. Returns 0, or -1 with e set (stops the sweep). */
	int (*extra_rows)(struct peak_bench_run *r, const struct peak_result *main,
			  struct peak_output *out, struct peak_bench_err *e);
};

/* The order of a point's kernels (struct peak_bench_suite.order). */
enum peak_bench_order {
	/* For each kernel in table order: setup, calibration, warm-up, reps back to back,
	 * row, teardown. */
	PEAK_BENCH_ORDER_KERNEL = 0,
	/* STREAM's order: every kernel is set up, calibrated and warmed up in table order, then
	 * for each repetition every kernel runs once in table order (copy, scale, add, triad,
	 * copy, ...), then each kernel's row is finished, recorded and torn down in table
	 * order. One steal window covers the whole block (from the first setup to the last
	 * repetition) and every kernel of the point is flagged from it. */
	PEAK_BENCH_ORDER_ROUND_ROBIN,
};

struct peak_bench_suite {
	const char *name; /* row's suite: cpu, memory... */
	const struct peak_bench_kernel *kernels;
	size_t nkernels;
	/* Point enumerator: fill *p with the i-th point for `threads` threads and return 1, or
	 * return 0 after the last. NULL: one point per thread count, no block. */
	int (*point)(void *suite_data, unsigned threads, size_t i, struct peak_bench_point *p);
	void *data;
	bool pin;            /* pin workers to CPUs (unpinned rows are flagged) */
	uint64_t start_iters; /* calibration's first count; 0 means 1 */
	uint64_t max_iters;   /* calibration's ceiling; 0 means 2^40 */
	bool no_calibrate;    /* every run is start_iters iterations (fixed-work kernels) */
	bool no_warmup;       /* measure hooks: the repetitions start cold (a disk job
				 that warms itself up, a session that ramps inside its time) */
	/* Per-point work shared by every kernel of the point (optional): point_setup is called
	 * once per point on the point's team before its first kernel, point_teardown once after
	 * its last (also when a kernel failed); hooks see *point_state as run->point_state. A
	 * point_setup that fails (-1 with e set) frees what it made itself: the sweep stops
	 * with that error and point_teardown is not called. */
	int (*point_setup)(void *suite_data, const struct peak_bench_point *p,
			   struct peak_team *team, void **point_state, struct peak_bench_err *e);
	void (*point_teardown)(void *suite_data, const struct peak_bench_point *p,
			       struct peak_team *team, void *point_state);
	enum peak_bench_order order; /* default PEAK_BENCH_ORDER_KERNEL */
	/* Points outermost: for each point (the enumerator is called with threads 0), each
	 * --threads count on a team of its own (netbench: test, size, then connections).
	 * Default: for each thread count, one team, its points. */
	bool threads_inner;
	/* Optional: the progress line's text after "SUITE TEST VARIANT threads=N block=B: "
	 * for a measured row, e.g. the figure and the mode (diskbench: "direct, 4k pages,
	 * 812.4 MB/s"); called before teardown. NULL: "done". An unsupported row shows its
	 * flags. */
	void (*progress)(const struct peak_bench_run *r, const struct peak_result *res,
			 char *buf, size_t len);
};

/* The common options of the run (from peak_opts), plus a progress switch. */
struct peak_bench_cfg {
	const struct peak_common_opts *common; /* threads, reps, ci, min_time_s, quiet */
	const char *only;   /* NULL or a kernel name: run only that kernel */
};

/* Counters of one sweep (for tests and the final summary). */
struct peak_bench_stats {
	size_t rows, unsupported, failed;
};

/* Run every point of every kernel at every thread count of cfg and record the rows to out.
 * A failed point is an error (stops the sweep, e set, PEAK_EXIT_FAIL); an unsupported
 * kernel is a row flagged "unsupported: REASON" with no samples. Returns 0 or -1. */
int peak_bench_sweep(const struct peak_bench_suite *s, const struct peak_bench_cfg *cfg,
		     struct peak_output *out, struct peak_bench_stats *st,
		     struct peak_bench_err *e);

/* Measure one kernel at one point on a team: calibrate, warm up, measured runs (each
 * verified; --reps to peak_opts_max_reps by the stopping rule), steal window, standard
 * flags; res gets the row (samples point into samples, which must hold
 * peak_opts_max_reps(c) values); the kernel's row hook runs on it with out. Returns 1 when unsupported (res flagged with the reason),
 * 0 when measured, -1 on error. One kernel alone: the suite's point_setup and order are
 * the sweep's, here run->point_state is NULL. */
int peak_bench_point_run(const struct peak_bench_suite *s, const struct peak_bench_kernel *k,
			 const struct peak_bench_point *p, struct peak_team *team,
			 const struct peak_common_opts *c, struct peak_output *out,
			 struct peak_result *res, double *samples, struct peak_bench_run *run,
			 struct peak_bench_err *e);

struct peak_config;
/* The one peaks.conf policy: cfg initialised and loaded from $PEAKBENCH_CONF, else
 * ./peaks.conf when present. A file that does not parse is bad input: -1 with e set to
 * PEAK_EXIT_USAGE and "peaks.conf: FILE:LINE: reason". */
int peak_bench_config(struct peak_config *cfg, struct peak_bench_err *e);

/* Print e as one line "prog: message" on stderr (nothing when no error) and return its
 * exit code (PEAK_EXIT_OK when none): the end of every main. */
int peak_bench_exit(const struct peak_bench_err *e, const char *prog);

#endif
