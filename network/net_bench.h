/* netbench's client point loop on the harness (peak_bench.h): one kernel per test (a session
 * that times itself: the measure hook), points test x size, swept as netbench always has
 * (test, then size, then connections), one team per point (r->team drives the connections). */
#ifndef NET_BENCH_H
#define NET_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "net_client.h"
#include "net_proto.h"
#include "net_report.h"
#include "peak_bench.h"

#define NET_BENCH_MAX_POINTS (NET_TEST_COUNT * PEAK_LIST_MAX)

/* One (test, size) point; the thread count is the connection count. */
struct net_bench_point {
	enum net_test test;
	uint32_t size;
};

/* The suite's data: what every session of the run shares. */
struct net_bench {
	struct net_client *cli;
	struct net_theory th;
	struct net_params base; /* rate, warmup, GSO, send batch, timeout; throughput's bytes
				   or time */
	uint64_t latency_ns;    /* a latency session's length */
	unsigned reps;     /* the most repetitions a point may run (peak_opts_max_reps) */
	unsigned min_reps; /* --reps: the fewest */
	size_t npoints;
	struct net_bench_point points[NET_BENCH_MAX_POINTS];
	size_t first, count; /* the enumerator's window (one test's points); count 0: all */
};

/* The kernel table, indexed by enum net_test. */
extern const struct peak_bench_kernel net_bench_kernels[NET_TEST_COUNT];

/* Point enumerator: the i-th (test, size) of nb's points (of its window when set). */
int net_bench_point(void *suite_data, unsigned threads, size_t i, struct peak_bench_point *p);

/* The harness's progress text for a measured row (the suite's progress hook). */
void net_bench_progress(const struct peak_bench_run *r, const struct peak_result *res,
			char *buf, size_t len);

/* Every point at every thread count of c, rows to out, in netbench's order (test, size,
 * connections): peak_bench_sweep per test. 0, or -1 with e set. */
int net_bench_sweep(const struct peak_bench_suite *s, const struct peak_common_opts *c,
		    struct peak_output *out, struct peak_bench_err *e);

#endif
