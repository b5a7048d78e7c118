/* dpdkbench results: rows of the common schema per measured point (through peak_output and,
 * for a point's last row, the harness), the seed's table layout on the console, and the
 * packet accounting totals. */
#ifndef DPDK_REPORT_H
#define DPDK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dpdk_run.h"
#include "peak_hist.h"
#include "peak_report.h"

struct dpdk_summary_row {
	struct dpdk_point pt;
	double dut_l1, tst_l1, dut_mpps, tst_mpps; /* means over reps; NAN when absent */
	double p50_us, p90_us, p99_us;             /* NAN without latency */
	double loss_pct;                           /* end to end */
};

/* Packets over every measured repetition, per direction; lost is what the sequence
 * numbers count, so sent == received + lost is the accounting check. */
struct dpdk_totals {
	uint64_t fwd_sent, fwd_received, fwd_lost; /* tester -> dut (at the dut) */
	uint64_t rt_sent, rt_received, rt_lost;    /* round trip, or loopback (at the tester) */
	uint64_t latency_samples;
	uint64_t bogus; /* frames the accounting cannot explain (duplicates, corruption) */
};

/* What else happened on the machine during a point. */
struct dpdk_noise {
	bool steal;         /* the harness flagged the point's steal window */
	char steal_pct[32]; /* and its share, the harness's "steal_pct=P" ("" when none) */
	double cpu_share;   /* CPU time / (wall time x lcores): "preempted" below 0.95 */
	char ci_wide[32];   /* the harness's "ci_wide=W" for the tx row ("" when none) */
};

struct dpdk_report_buf; /* a point's per-repetition figures (dpdk_report.c) */

struct dpdk_report {
	struct peak_output *out;
	enum dpdk_role role;
	const struct dpdk_port *port;
	struct dpdk_summary_row *rows;
	size_t nrows, cap;
	struct dpdk_totals totals;
	struct dpdk_noise noise; /* of the point being emitted */
	double min_cpu_share;    /* over every point (NAN: unknown) */
	double rate_mpps;        /* --rate (0: none); named in the variant when set */
	/* The point's figures: they outlive the point, for its last row's samples. */
	struct dpdk_report_buf *buf;
	struct peak_result pending; /* the row emitted last, not yet recorded */
	bool has_pending;
};

/* Returns 0 or -1 (out of memory). */
int dpdk_report_init(struct dpdk_report *r, struct peak_output *out, enum dpdk_role role,
		     const struct dpdk_port *port);
void dpdk_report_free(struct dpdk_report *r);

/* The rows of one point (reps measured repetitions, latency merged over them): every row
 * but the last goes to the output, the last one into *last (the harness records it; its
 * samples stay valid until the next point). Returns 0 or -1 when the output failed. */
int dpdk_report_point(struct dpdk_report *r, const struct dpdk_point *pt,
		      const struct dpdk_rep *reps, size_t nreps, const struct peak_hist *hist,
		      const struct dpdk_noise *noise, struct peak_result *last);

/* The seed's tables (throughput per direction; latency and loss) for the console. */
void dpdk_report_table(const struct dpdk_report *r, FILE *f);

/* Add the totals to the context (keys dpdk_*). */
void dpdk_report_context(const struct dpdk_report *r, struct peak_context *ctx);

#endif
