/* dpdkbench runs: options, the sweep over sizes x flows x queues (loopback and tester),
 * the dut's serving loop, and what one measured point leaves behind. */
#ifndef DPDK_RUN_H
#define DPDK_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "dpdk_ctl.h"
#include "dpdk_port.h"
#include "dpdk_traffic.h"
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

/* One measured point of the sweep. */
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

struct dpdk_report; /* dpdk_report.h */

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
	char err[256]; /* why a run failed */
};

/* Allocate per-lcore state. Returns 0 or -1 (out of memory, message in b->err). */
int dpdk_bench_init(struct dpdk_bench *b, const struct dpdk_bench_opts *o, struct dpdk_port *port,
		    const volatile sig_atomic_t *stop);
void dpdk_bench_free(struct dpdk_bench *b);

/* Loopback, minimal or tester: sweep every point, hand each to the report. Returns 0,
 * or an exit code with the reason in b->err (1: dut lost, interrupted). */
int dpdk_bench_sweep(struct dpdk_bench *b, struct dpdk_report *rep);

/* The dut: serve until the tester says QUIT or *stop. Returns 0 or an exit code. */
int dpdk_bench_serve(struct dpdk_bench *b, uint64_t *frames_reflected);

#endif
