/* dpdkbench: UDP flows x frame sizes x queues through DPDK ports, pktgen-style: Rx Gbit/s
 * (L1 and L2) and Mpps per direction, latency percentiles and loss. Runs on real NICs or,
 * without hugepages or a NIC, on net_ring / net_memif / net_af_packet virtual devices.
 * Usage: dpdkbench [EAL args] -- --role loopback|tester|dut [options] */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
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
#include "peak_bench_main.h"
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

/* The program's state (peak_bench_main owns it). */
struct dpdkbench {
	struct dpdk_bench_opts o;
	char eal_args[PEAK_CONTEXT_VALUE_LEN];
	bool eal; /* rte_eal_init succeeded: rte_eal_cleanup owed */
	struct dpdk_port port;
	struct dpdk_report rep;
	bool rep_init, bench_init, swept;
	struct dpdk_bench *b;
};

static void defaults(void *state)
{
	struct dpdk_bench_opts *o = state;
	o->sizes = (struct peak_list){.n = 3, .v = {64, 1500, 9000}};
	o->flows = (struct peak_list){.n = 2, .v = {1, 8}};
	o->queues = (struct peak_list){.n = 1, .v = {1}};
	o->time_s = 1.0;
	o->burst = 32;
	o->sample_every = 1;
	o->connect_timeout_s = 10.0;
}

/* Our options (what follows "--"). */
static size_t dpdk_options(void *state, struct peak_opt *t, size_t max)
{
	struct dpdk_bench_opts *o = state;
	const struct peak_opt table[] = {
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
	return peak_bench_opts_copy(t, max, table, sizeof(table) / sizeof(table[0]));
}

/* What the table cannot check: the role and what it allows (exit 2). */
static int dpdk_check(struct peak_bench_env *env)
{
	struct dpdk_bench_opts *o = env->state;
	struct peak_bench_err *e = &env->err;
	if (o->role_name == NULL)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--role is required: loopback, tester or dut");
	for (int i = 0; roles[i]; i++)
		if (strcmp(o->role_name, roles[i]) == 0)
			o->role = (enum dpdk_role)i;
	if (o->direction_name == NULL)
		o->bi = o->role == DPDK_ROLE_TESTER;
	else
		o->bi = strcmp(o->direction_name, "bi") == 0;
	if (o->bi && o->role != DPDK_ROLE_TESTER)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--direction bi: only with --role tester (a loopback port has "
				       "one direction)");
	if (o->rate_mpps > 0 && o->role != DPDK_ROLE_LOOPBACK && o->role != DPDK_ROLE_TESTER)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--rate: only with --role loopback or tester (they generate)");
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
	if (len >= size && size > 4) /* cut: the context shows it (peak_fmt's "...") */
		memcpy(buf + size - 4, "...", 4);
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

/* Loopback, minimal and tester, once the output opened: the report and the lcores. */
static int dpdk_setup(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	d->b = malloc(sizeof(*d->b));
	if (d->b == NULL)
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "out of memory");
	d->rep_init = dpdk_report_init(&d->rep, &env->out, d->o.role, &d->port) == 0;
	if (d->rep_init) {
		d->rep.rate_mpps = d->o.rate_mpps;
		d->bench_init = dpdk_bench_init(d->b, &d->o, &d->port, &stop_flag, &env->err) == 0;
	}
	if (!d->bench_init)
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL,
				       "cannot start the report or the lcores");
	return 0;
}

static int dpdk_context(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	fill_context(&env->ctx, &d->o, &d->port, d->eal_args);
	return 0;
}

static int dpdk_sweep(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	struct peak_bench_err *e = &env->err;
	d->swept = true;
	if (dpdk_bench_sweep(d->b, &d->rep, e) != 0) {
		size_t len = strlen(e->msg);
		(void)snprintf(e->msg + len, sizeof(e->msg) - len, " (%zu points measured)",
			       d->rep.nrows);
	}
	if (d->rep.totals.bogus) {
		char what[200];
		(void)snprintf(what, sizeof(what),
			       "%llu frames the sequence numbers cannot explain (duplicated or "
			       "corrupted)%s",
			       (unsigned long long)d->rep.totals.bogus,
			       strcmp(d->port.driver, "net_memif") == 0
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
	return e->code == PEAK_EXIT_OK ? 0 : -1;
}

/* The lcores stopped; the console's per-point tables (dpdk_report_table writes them into
 * the console reporter's file: the reporters have no op for a table after the rows); the
 * report's context keys. */
static int dpdk_finish(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	if (d->bench_init)
		dpdk_bench_free(d->b);
	d->bench_init = false;
	if (d->swept && d->o.common.format == PEAK_FORMAT_CONSOLE && env->out.rep.out)
		dpdk_report_table(&d->rep, env->out.rep.out);
	if (d->rep_init)
		dpdk_report_context(&d->rep, &env->ctx);
	return 0;
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

static void catch_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
}

/* EAL (its arguments before "--"), signals, the port; the dut serves here and writes no
 * results. The peaks.conf check came first, before EAL logs anything. */
static int dpdk_start(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	int eal_argc = env->dashdash ? env->dashdash : 1;
	join_args(d->eal_args, sizeof(d->eal_args), eal_argc, env->argv);
	optind = 0; /* getopt state: EAL parses its own arguments next */
	if (rte_eal_init(eal_argc, env->argv) < 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_UNSUPPORTED,
				       "EAL init failed (%s): check the EAL arguments before --, %s",
				       rte_strerror(rte_errno), EAL_HINT);
	d->eal = true;
	catch_signals();
	if (open_port(&d->o, &d->port, &env->err) != 0)
		return -1;
	if (d->o.role != DPDK_ROLE_DUT)
		return 0;
	serve(&d->o, &d->port, &env->err);
	return PEAK_BENCH_DONE;
}

static int dpdk_cleanup(struct peak_bench_env *env)
{
	struct dpdkbench *d = env->state;
	if (d->rep_init)
		dpdk_report_free(&d->rep);
	free(d->b);
	if (d->eal) {
		dpdk_port_close(&d->port);
		(void)rte_eal_cleanup();
	}
	return 0;
}

static const struct peak_bench_program dpdkbench = {
    .name = PROG,
    .usage = "[EAL args] -- --role loopback|tester|dut [options]",
    .summary = "UDP packet rates, latency and loss through DPDK ports (pktgen-style)",
    .state_bytes = sizeof(struct dpdkbench),
    .common_offset = offsetof(struct dpdkbench, o.common),
    .defaults = defaults,
    .options = dpdk_options,
    .args_after_dashdash = true,
    .check = dpdk_check,
    .start = dpdk_start,
    .setup = dpdk_setup,
    .context = dpdk_context,
    .sweep = dpdk_sweep,
    .finish = dpdk_finish,
    .cleanup = dpdk_cleanup,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &dpdkbench);
}
