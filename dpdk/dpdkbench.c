/* dpdkbench: UDP flows x frame sizes x queues through DPDK ports, pktgen-style: Rx Gbit/s
 * (L1 and L2) and Mpps per direction, latency percentiles and loss. Runs on real NICs or,
 * without hugepages or a NIC, on net_ring / net_memif / net_af_packet virtual devices.
 * Usage: dpdkbench [EAL args] -- --role loopback|tester|dut [options] */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "dpdk_bench.h"
#include "dpdk_report.h"
#include "dpdk_run.h"
#include "peak_bench.h"
#include "peak_exit.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"

#define PROG     "dpdkbench"
#define EAL_HINT "e.g. --no-huge --no-pci -m 512 --vdev=net_ring0"

/* The one piece of global state: set by SIGINT/SIGTERM, polled by every loop. */
static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static const char *const roles[] = {"loopback", "tester", "dut", "minimal", NULL};
static const char *const directions[] = {"uni", "bi", NULL};

static void defaults(struct dpdk_bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	peak_opts_common_defaults(&o->common);
	o->sizes = (struct peak_list){.n = 3, .v = {64, 1500, 9000}};
	o->flows = (struct peak_list){.n = 2, .v = {1, 8}};
	o->queues = (struct peak_list){.n = 1, .v = {1}};
	o->time_s = 1.0;
	o->burst = 32;
	o->sample_every = 1;
	o->connect_timeout_s = 10.0;
}

static int usage_error(const char *msg)
{
	struct peak_bench_err e = {0};
	(void)peak_bench_fail(&e, PEAK_EXIT_USAGE, "%s", msg);
	return peak_bench_exit(&e, PROG);
}

/* Our options (argv[0] and what follows "--"). */
static int parse_ours(struct dpdk_bench_opts *o, int argc, char **argv)
{
	struct peak_opt table[] = {
	    {"role", "ROLE",
	     "loopback (one port to itself), tester (against a dut) or dut "
	     "(reflects); minimal: the reference tx/rx loop",
	     PEAK_OPT_CHOICE, &o->role_name, 0, 0, roles, NULL},
	    {"sizes", "LIST", "frame sizes in bytes with FCS, 64..9216 (default 64,1500,9000)",
	     PEAK_OPT_UINT_LIST, &o->sizes, DPDK_MIN_FRAME, DPDK_MAX_FRAME, NULL, NULL},
	    {"flows", "LIST", "UDP flows (distinct 5-tuples), 1..4096 (default 1,8)",
	     PEAK_OPT_UINT_LIST, &o->flows, 1, DPDK_MAX_FLOWS, NULL, NULL},
	    {"queues", "LIST", "rx/tx queue pairs, one lcore each when -l gives enough (default 1)",
	     PEAK_OPT_UINT_LIST, &o->queues, 1, DPDK_MAX_QUEUES, NULL, NULL},
	    {"direction", "DIR", "uni (tester -> dut) or bi (dut reflects; default for tester)",
	     PEAK_OPT_CHOICE, &o->direction_name, 0, 0, directions, NULL},
	    {"time", "SECONDS", "duration of one measured repetition (default 1)", PEAK_OPT_DOUBLE,
	     &o->time_s, 0.01, 3600, NULL, NULL},
	    {"port", "ID", "DPDK port id (default 0)", PEAK_OPT_UINT, &o->port, 0,
	     RTE_MAX_ETHPORTS - 1, NULL, NULL},
	    {"burst", "N", "frames per rx/tx burst, 1..256 (default 32)", PEAK_OPT_UINT, &o->burst,
	     1, DPDK_MAX_BURST, NULL, NULL},
	    {"sample-every", "N", "timestamp one frame every N bursts, 0: no latency (default 1)",
	     PEAK_OPT_UINT, &o->sample_every, 0, 1000000, NULL, NULL},
	    {"rate", "MPPS",
	     "offered load per direction in Mpps (all queues), 0: no limit (default 0)",
	     PEAK_OPT_DOUBLE, &o->rate_mpps, 0, 10000, NULL, NULL},
	    {"connect-timeout", "SECONDS", "tester: how long to wait for the dut (default 10)",
	     PEAK_OPT_DOUBLE, &o->connect_timeout_s, 0.1, 3600, NULL, NULL},
	    PEAK_OPTS_COMMON_REPORT(&o->common), /* lcores: -l and --queues; length: --time */
	};
	struct peak_cli cli = {
	    .prog = PROG,
	    .usage = "[EAL args] -- --role loopback|tester|dut [options]",
	    .summary = "UDP packet rates, latency and loss through DPDK ports (pktgen-style)",
	    .opts = table,
	    .nopts = sizeof(table) / sizeof(table[0]),
	    .common = &o->common,
	};
	enum peak_opts_status st = peak_opts_parse(&cli, argc, argv, NULL);
	if (st == PEAK_OPTS_EXIT)
		return -1;
	if (st == PEAK_OPTS_ERROR)
		return PEAK_EXIT_USAGE;
	if (o->role_name == NULL)
		return usage_error("--role is required: loopback, tester or dut");
	for (int i = 0; roles[i]; i++)
		if (strcmp(o->role_name, roles[i]) == 0)
			o->role = (enum dpdk_role)i;
	if (o->direction_name == NULL)
		o->bi = o->role == DPDK_ROLE_TESTER;
	else
		o->bi = strcmp(o->direction_name, "bi") == 0;
	if (o->bi && o->role != DPDK_ROLE_TESTER)
		return usage_error(
		    "--direction bi: only with --role tester (a loopback port has one "
		    "direction)");
	if (o->rate_mpps > 0 && o->role != DPDK_ROLE_LOOPBACK && o->role != DPDK_ROLE_TESTER)
		return usage_error("--rate: only with --role loopback or tester (they generate)");
	return 0;
}

static uint64_t list_max(const struct peak_list *l)
{
	uint64_t m = 0;
	for (size_t i = 0; i < l->n; i++)
		m = l->v[i] > m ? l->v[i] : m;
	return m;
}

/* The EAL arguments as given (rte_eal_init reorders argv). */
static void join_args(char *buf, size_t size, int argc, char **argv)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 1; i < argc && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i > 1 ? " " : "", argv[i]);
}

static void fill_context(struct peak_context *ctx, const struct dpdk_bench_opts *o,
			 const struct dpdk_port *p, const char *eal_args)
{
	peak_context_set_str(ctx, "dpdk_version", rte_version());
	peak_context_set_str(ctx, "dpdk_eal_args", eal_args);
	peak_context_set_str(ctx, "dpdk_role", o->role_name);
	peak_context_set_num(ctx, "dpdk_port", p->port_id);
	peak_context_set_str(ctx, "dpdk_driver", p->driver);
	peak_context_set_bool(ctx, "dpdk_virtual_device", p->is_virtual);
	peak_context_set_num(ctx, "dpdk_link_mbps", p->link_mbps);
	peak_context_set_num(ctx, "dpdk_mtu", p->mtu);
	peak_context_set_num(ctx, "dpdk_segment_bytes", p->seg_room);
	peak_context_set_bool(ctx, "dpdk_multi_segment", p->multi_seg);
	peak_context_set_num(ctx, "dpdk_lcores", rte_lcore_count());
	peak_context_set_num(ctx, "dpdk_tsc_hz", (double)rte_get_tsc_hz());
	peak_context_set_num(ctx, "dpdk_time_s", o->time_s);
	peak_context_set_num(ctx, "dpdk_burst", (double)o->burst);
	peak_context_set_num(ctx, "dpdk_latency_sample_every", (double)o->sample_every);
	peak_context_set_num(ctx, "dpdk_rate_mpps", o->rate_mpps);
	peak_context_set_str(ctx, "dpdk_size_unit", "Ethernet frame bytes with FCS");
	char w[sizeof(p->warnings)];
	(void)snprintf(w, sizeof(w), "%s", p->warnings);
	char *save = NULL;
	for (char *tok = strtok_r(w, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		peak_context_warn(ctx, tok);
}

/* Loopback, minimal and tester: measure, report, close the output. */
static void measure(const struct dpdk_bench_opts *o, struct dpdk_port *port, const char *eal_args,
		    struct peak_bench_err *e)
{
	struct peak_sysinfo *si = malloc(sizeof(*si));
	struct peak_context *ctx = malloc(sizeof(*ctx));
	struct dpdk_bench *b = malloc(sizeof(*b));
	struct peak_output out;
	struct dpdk_report rep;
	char err[256];
	if (si == NULL || ctx == NULL || b == NULL) {
		(void)peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
		goto free_mem;
	}
	if (peak_output_open(&out, o->common.format, o->common.output, err, sizeof(err)) != 0) {
		(void)peak_bench_fail(e, PEAK_EXIT_USAGE, "--output: %s", err);
		goto free_mem;
	}
	peak_sysinfo_collect(si, "");
	peak_context_init(ctx);
	peak_sysinfo_to_context(si, ctx);
	fill_context(ctx, o, port, eal_args);
	int init = dpdk_report_init(&rep, &out, o->role, port);
	rep.rate_mpps = o->rate_mpps;
	if (init != 0 || peak_output_begin(&out, ctx) != 0 ||
	    dpdk_bench_init(b, o, port, &stop_flag, e) != 0) {
		(void)peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot start the report or the lcores");
		goto close_out;
	}
	if (dpdk_bench_sweep(b, &rep, e) != 0) {
		size_t len = strlen(e->msg);
		(void)snprintf(e->msg + len, sizeof(e->msg) - len, " (%zu points measured)",
			       rep.nrows);
	}
	if (rep.totals.bogus) {
		char what[200];
		(void)snprintf(what, sizeof(what),
			       "%llu frames the sequence numbers cannot explain (duplicated or "
			       "corrupted)%s",
			       (unsigned long long)rep.totals.bogus,
			       strcmp(port->driver, "net_memif") == 0
				   ? "; memif: give both ends bsize=9216 for jumbo frames "
				     "(docs/dpdk.md)"
				   : "");
		if (e->code == PEAK_EXIT_OK) {
			(void)peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", what);
		} else { /* one line: the first cause, then this */
			size_t len = strlen(e->msg);
			(void)snprintf(e->msg + len, sizeof(e->msg) - len, "; %s", what);
		}
	}
	dpdk_bench_free(b);
	if (o->common.format == PEAK_FORMAT_CONSOLE && out.rep.out)
		dpdk_report_table(&rep, out.rep.out);
close_out:
	dpdk_report_context(&rep, ctx);
	(void)peak_sysinfo_finish(si, ctx);
	if (peak_output_close(&out, ctx) != 0)
		(void)peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	dpdk_report_free(&rep);
free_mem:
	free(b);
	free(ctx);
	free(si);
}

static void serve(const struct dpdk_bench_opts *o, struct dpdk_port *port, struct peak_bench_err *e)
{
	struct dpdk_bench *b = malloc(sizeof(*b));
	if (b == NULL) {
		(void)peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
		return;
	}
	if (dpdk_bench_init(b, o, port, &stop_flag, e) != 0) {
		free(b);
		return;
	}
	uint64_t reflected = 0;
	if (dpdk_bench_serve(b, &reflected, e) == 0 && !o->common.quiet)
		fprintf(stderr, "%s: dut done (%s); %llu frames reflected in the last run\n", PROG,
			stop_flag ? "signal" : "the tester said quit",
			(unsigned long long)reflected);
	dpdk_bench_free(b);
	free(b);
}

/* A physical port's link speed, for the rows' theoretical peak. */
static void link_speed(struct dpdk_port *port)
{
	struct rte_eth_link link;
	memset(&link, 0, sizeof(link));
	if (!port->is_virtual && rte_eth_link_get_nowait(port->port_id, &link) == 0 &&
	    link.link_speed != RTE_ETH_SPEED_NUM_NONE &&
	    link.link_speed != RTE_ETH_SPEED_NUM_UNKNOWN)
		port->link_mbps = link.link_speed;
}

static int open_port(const struct dpdk_bench_opts *o, struct dpdk_port *port,
		     struct peak_bench_err *e)
{
	char err[256];
	if (rte_eth_dev_count_avail() == 0)
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED,
				       "no DPDK port: give a virtual device (%s) or bind a NIC to "
				       "vfio-pci (see docs/dpdk.md)",
				       "--vdev=net_ring0");
	struct dpdk_port_req req = {
	    .port_id = (uint16_t)o->port,
	    .nqueues = (uint16_t)list_max(&o->queues),
	    .max_frame = (uint32_t)list_max(&o->sizes),
	    .nlcores = rte_lcore_count(),
	    .burst = (unsigned)o->burst,
	};
	int rc = dpdk_port_open(port, &req, err, sizeof(err));
	if (rc != 0)
		return peak_bench_fail(e, rc, "%s", err);
	if (o->role == DPDK_ROLE_DUT) {
		link_speed(port);
		return 0; /* a memif server's link comes up when the tester connects */
	}
	double wait_s = o->role == DPDK_ROLE_TESTER ? o->connect_timeout_s : 5.0;
	if (dpdk_port_wait_link(port, wait_s, &stop_flag) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "port %u (%s): link down after %.0f s%s",
				       (unsigned)port->port_id, port->driver, wait_s,
				       o->role == DPDK_ROLE_TESTER ? " (is the dut running?)" : "");
	link_speed(port);
	return 0;
}

/* Our arguments come after "--" (all of argv when there is none): parse them before EAL
 * so a usage error is one line before EAL logs anything. Returns 0, -1 after --help, or an
 * exit code; *eal_argc: the EAL's share of argv. */
static int parse_args(struct dpdk_bench_opts *o, int argc, char **argv, int *eal_argc)
{
	int dashdash = 0;
	for (int i = 1; i < argc && dashdash == 0; i++)
		if (strcmp(argv[i], "--") == 0)
			dashdash = i;
	defaults(o);
	int our_argc = dashdash ? argc - dashdash : argc;
	char **our_argv = malloc(sizeof(char *) * ((size_t)our_argc + 1));
	if (our_argv == NULL)
		return PEAK_EXIT_FAIL;
	our_argv[0] = argv[0];
	for (int i = 1; i < our_argc; i++)
		our_argv[i] = argv[dashdash ? dashdash + i : i];
	our_argv[our_argc] = NULL;
	int rc = parse_ours(o, our_argc, our_argv);
	free(our_argv);
	*eal_argc = dashdash ? dashdash : 1;
	return rc;
}

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv)
{
	struct dpdk_bench_opts o;
	int eal_argc = 1;
	int rc = parse_args(&o, argc, argv, &eal_argc);
	if (rc != 0)
		return rc < 0 ? PEAK_EXIT_OK : rc;
	/* The one peaks.conf policy (a file that does not parse: exit 2), before EAL logs. */
	struct peak_bench_err e = {0};
	static struct peak_config conf;
	if (peak_bench_config(&conf, &e) != 0)
		return peak_bench_exit(&e, PROG);
	char eal_args[PEAK_CONTEXT_VALUE_LEN];
	join_args(eal_args, sizeof(eal_args), eal_argc, argv);
	optind = 0; /* getopt state: EAL parses its own arguments next */
	if (rte_eal_init(eal_argc, argv) < 0) {
		(void)peak_bench_fail(&e, PEAK_EXIT_UNSUPPORTED,
				      "EAL init failed (%s): check the EAL arguments before --, %s",
				      rte_strerror(rte_errno), EAL_HINT);
		return peak_bench_exit(&e, PROG);
	}
	catch_signals();
	struct dpdk_port port;
	memset(&port, 0, sizeof(port));
	if (open_port(&o, &port, &e) == 0 && o.role == DPDK_ROLE_DUT)
		serve(&o, &port, &e);
	else if (e.code == PEAK_EXIT_OK)
		measure(&o, &port, eal_args, &e);
	dpdk_port_close(&port);
	(void)rte_eal_cleanup();
	return peak_bench_exit(&e, PROG);
}
