/* dpdkbench runs: options, one timed round of a point (loopback and tester, framed by the
 * dut's START and STATS with a dut), the HELLO/QUIT exchanges, the dut's serving loop, and
 * what one round leaves behind. The sweep itself is on the harness (dpdk_bench.h). */
#ifndef DPDK_RUN_H
#define DPDK_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dpdk_ctl.h"
#include "dpdk_port.h"
#include "dpdk_traffic.h"
#include "peak_bench.h"
#include "peak_hist.h"
#include "peak_opts.h"

enum dpdk_role { DPDK_ROLE_LOOPBACK, DPDK_ROLE_TESTER, DPDK_ROLE_DUT, DPDK_ROLE_MINIMAL };

struct dpdk_bench_opts {
	const char *role_name;
	enum dpdk_role role;
	struct peak_list sizes;
	struct peak_list flows;
	struct peak_list queues;
	const char *direction_name; /* NULL: bi for the tester, uni for loopback */
	bool bi;
	double time_s;
	uint64_t port;
	uint64_t burst;
	uint64_t sample_every;
	double rate_mpps; /* offered load per direction over all queues; 0: no limit */
	double connect_timeout_s;
	struct peak_common_opts common;
};

/* One point of the sweep. */
struct dpdk_point {
	uint32_t size; /* frame bytes with FCS */
	uint32_t flows;
	uint32_t queues; /* queues used: min(--queues, flows) */
	unsigned lcores; /* tester lcores that served them */
	bool bi;
};

/* One repetition of a point: the tester's (or loopback's) merged counters and, with a
 * dut, the dut's answer to STATS. */
struct dpdk_rep {
	struct dpdk_counters tst;
	struct dpdk_ctl_body dut;
	bool has_dut;
	double gen_s;  /* how long frames were generated */
	double p50_us; /* median latency of this rep (NAN without samples) */
	uint64_t tsc_hz;
};

struct dpdk_bench {
	const struct dpdk_bench_opts *o;
	struct dpdk_port *port;
	const volatile sig_atomic_t *stop;
	uint64_t tsc_hz;
	unsigned nlcores;
	unsigned lcore_ids[RTE_MAX_LCORE]; /* [0] is the main lcore */
	struct dpdk_gen_lcore *gen[RTE_MAX_LCORE];
	struct dpdk_templates tmpl;
	struct dpdk_ctl_client ctl;
	struct rte_ether_addr peer_mac;
	uint32_t epoch;
	bool with_dut;
};

/* Allocate per-lcore state. Returns 0 or -1 with e set (out of memory). */
int dpdk_bench_init(struct dpdk_bench *b, const struct dpdk_bench_opts *o, struct dpdk_port *port,
		    const volatile sig_atomic_t *stop, struct peak_bench_err *e);
void dpdk_bench_free(struct dpdk_bench *b);

/* Tester: find the dut (HELLO) and check it serves as many queues. Returns 0 or -1 with e
 * set (PEAK_EXIT_FAIL: no dut; PEAK_EXIT_USAGE: a memif queue mismatch, the dut still
 * waits for QUIT). */
int dpdk_bench_hello(struct dpdk_bench *b, struct peak_bench_err *e);
/* Tester: tell a dut that answered HELLO to leave (not after a signal). */
void dpdk_bench_quit(struct dpdk_bench *b);

/* One timed round of time_s seconds of a point on its lcores (templates already built);
 * with a dut, framed by START and STATS. Counters into rep, latency merged into hist.
 * Returns 0 or -1 with e set (dut lost, interrupted: PEAK_EXIT_FAIL). */
int dpdk_bench_round(struct dpdk_bench *b, const struct dpdk_point *pt, double time_s,
		     struct dpdk_rep *rep, struct peak_hist *hist, struct peak_bench_err *e);

/* The dut: serve until the tester says QUIT or *stop. Returns 0 or -1 with e set. */
int dpdk_bench_serve(struct dpdk_bench *b, uint64_t *frames_reflected, struct peak_bench_err *e);

#endif
