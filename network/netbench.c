/* netbench: TCP and UDP throughput and round-trip latency between a client and a
 * netbench server (another host, or itself over loopback). One binary, three modes: client
 * and loopback here, the server mode in netbench_server.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net_bench.h"
#include "net_client.h"
#include "net_local_server.h"
#include "net_proto.h"
#include "net_report.h"
#include "net_server.h"
#include "net_sustain.h"
#include "net_wire.h"
#include "netbench_server.h"
#include "peak_context.h"
#include "peak_exit.h"
#include "peak_opts.h"
#include "peak_report.h"
#include "peak_bench.h"
#include "peak_bench_main.h"
#include "peak_peak.h"
#include "peak_sustain.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

#define DEFAULT_BYTES     (1ull << 30)
#define DEFAULT_LATENCY_S 1.0

static const char *const test_choices[] = {"tcp_throughput", "udp_throughput", "tcp_latency",
					   "udp_latency", NULL};

struct nb_opts {
	struct peak_common_opts common;
	const char *host;
	uint64_t port;
	struct peak_str_list tests;
	struct peak_list buffer, datagram, msg_size;
	uint64_t bytes;
	double time_s;
	uint64_t rate_bps;
	uint64_t warmup;
	double timeout_s;
	bool no_gso;
	uint64_t send_batch;
	bool poll_recv;
	struct peak_list cpus;        /* --cpus: the client's threads (n 0: anywhere) */
	struct peak_list server_cpus; /* loopback --server-cpus: its server's threads */
	bool server_process;          /* loopback --server-process: the server in a child process */
	double sustain_s;             /* --sustain: one TCP test this long, per second (0: off) */
};

/* --rate: bits per second with an optional decimal k/M/G/T suffix (iperf3 style). */
static int parse_rate(const char *arg, void *dest, char *err, size_t err_len)
{
	char *end;
	double v = strtod(arg, &end);
	double mult = 1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1e3;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1e6;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1e9;
		end++;
		break;
	case 't':
	case 'T':
		mult = 1e12;
		end++;
		break;
	default:
		break;
	}
	if (end == arg || *end != '\0' || !isfinite(v) || v < 0 || v * mult > 1e13) {
		snprintf(err, err_len,
			 "'%s' is not a rate in bits/s (e.g. 0, 500M, 2.5G; at most 10T)", arg);
		return -1;
	}
	*(uint64_t *)dest = (uint64_t)(v * mult);
	return 0;
}

#define OPT_CLIENT_COMMON(o)                                                                       \
	PEAK_OPTS_COMMON(&(o)->common),                                                            \
	    {"test",                                                                               \
	     "LIST",                                                                               \
	     "tcp_throughput,udp_throughput,tcp_latency,udp_latency or all",                       \
	     PEAK_OPT_CHOICE_LIST,                                                                 \
	     &(o)->tests,                                                                          \
	     0,                                                                                    \
	     0,                                                                                    \
	     test_choices,                                                                         \
	     NULL},                                                                                \
	    {"buffer",           "SIZES",      "TCP write size (default 64KiB)",                   \
	     PEAK_OPT_SIZE_LIST, &(o)->buffer, 1,                                                  \
	     NET_MAX_TCP_BLOCK,  NULL,         NULL},                                              \
	    {"datagram",                                                                           \
	     "SIZES",                                                                              \
	     "UDP datagram payload, 16B..65507B (default 1472B)",                                  \
	     PEAK_OPT_SIZE_LIST,                                                                   \
	     &(o)->datagram,                                                                       \
	     NET_UDP_HEADER,                                                                       \
	     NET_MAX_UDP_DGRAM,                                                                    \
	     NULL,                                                                                 \
	     NULL},                                                                                \
	    {"msg-size",         "SIZES",        "latency message size (default 16B)",             \
	     PEAK_OPT_SIZE_LIST, &(o)->msg_size, 1,                                                \
	     NET_MAX_TCP_BLOCK,  NULL,           NULL},                                            \
	    {"bytes",                                                                              \
	     "SIZE",                                                                               \
	     "throughput: bytes to move over all connections (default 1GiB)",                      \
	     PEAK_OPT_SIZE,                                                                        \
	     &(o)->bytes,                                                                          \
	     1,                                                                                    \
	     (double)NET_MAX_BYTES,                                                                \
	     NULL,                                                                                 \
	     NULL},                                                                                \
	    {"time",                                                                               \
	     "SECONDS",                                                                            \
	     "latency: run length (default 1); throughput: this long instead, without --bytes",    \
	     PEAK_OPT_DOUBLE,                                                                      \
	     &(o)->time_s,                                                                         \
	     0.01,                                                                                 \
	     3600,                                                                                 \
	     NULL,                                                                                 \
	     NULL},                                                                                \
	    {"rate",                                                                               \
	     "BITS",                                                                               \
	     "UDP send rate per connection in bit/s, k/M/G suffixes (0 = unlimited)",              \
	     PEAK_OPT_CALLBACK,                                                                    \
	     &(o)->rate_bps,                                                                       \
	     0,                                                                                    \
	     0,                                                                                    \
	     NULL,                                                                                 \
	     parse_rate},                                                                          \
	    {"warmup",                                                                             \
	     "N",                                                                                  \
	     "latency: round trips dropped before timing (default 1000)",                          \
	     PEAK_OPT_UINT,                                                                        \
	     &(o)->warmup,                                                                         \
	     0,                                                                                    \
	     NET_MAX_WARMUP,                                                                       \
	     NULL,                                                                                 \
	     NULL},                                                                                \
	    {"timeout",                                                                            \
	     "SECONDS",                                                                            \
	     "longest wait on the server (default 5)",                                             \
	     PEAK_OPT_DOUBLE,                                                                      \
	     &(o)->timeout_s,                                                                      \
	     0.01,                                                                                 \
	     600,                                                                                  \
	     NULL,                                                                                 \
	     NULL},                                                                                \
	{"no-gso", NULL, "UDP: sendmmsg batches of single datagrams, no UDP_SEGMENT (GSO)",     \
	 PEAK_OPT_FLAG, &(o)->no_gso, 0, 0, NULL, NULL},                                          \
	{                                                                                          \
		"send-batch", "N",                                                                 \
		    "UDP unpaced: datagrams per send call, 1..32 (default 32; 1 is iperf3's job)", \
		    PEAK_OPT_UINT, &(o)->send_batch, 1, 32, NULL, NULL                              \
	},                                                                                         \
	{"poll-recv", NULL,                                                                       \
	 "the receiver polls before every receive call, one datagram a call (iperf3's loop)",      \
	 PEAK_OPT_FLAG, &(o)->poll_recv, 0, 0, NULL, NULL},                                        \
	{"cpus", "LIST", "the client's threads only on these CPUs (iperf3 -A; default: anywhere)", \
	 PEAK_OPT_UINT_LIST, &(o)->cpus, 0, 4095, NULL, NULL},                                     \
	{"sustain", "DURATION", "one TCP throughput test this long (90s, 30m, 1h): burst, baseline", \
	 PEAK_OPT_CALLBACK, &(o)->sustain_s, 0, 0, NULL, peak_sustain_parse}

/* The program's state for client and loopback (peak_bench_main owns it). */
struct netbench {
	struct nb_opts o;
	struct net_bench nb;
	struct net_client cli;
	bool connected;
	struct sockaddr_storage ss; /* the server's address (ss_family 0: not resolved) */
	struct net_local_server local; /* loopback: its own server (local.srv NULL: client) */
};

static void option_defaults(void *state)
{
	struct nb_opts *o = state;
	o->port = NETBENCH_DEFAULT_PORT;
	o->warmup = 1000;
	o->timeout_s = 5;
}

static int usage_error(const char *msg)
{
	struct peak_bench_err e = {0};
	peak_bench_fail(&e, PEAK_EXIT_USAGE, "%s", msg);
	return peak_bench_exit(&e, "netbench");
}

static void general_usage(void)
{
	printf("Usage: netbench server|client|loopback [options]\n"
	       "TCP and UDP throughput (counted at the receiver) and round-trip latency.\n\n"
	       "  netbench server [--bind ADDR] [--port P]      serve clients until stopped\n"
	       "  netbench client --host H [--port P] [--test LIST] ...\n"
	       "  netbench loopback [--test LIST] ...           client + its own server on "
	       "127.0.0.1\n\n"
	       "Run 'netbench MODE --help' for the options of a mode.\n");
}

/* check: fill the lists the user left empty and check what the table cannot (exit 2). */
static int finish_client_opts(struct nb_opts *o, struct peak_bench_err *e)
{
	if (o->sustain_s != 0 &&
	    net_sustain_check(&o->common.threads, &o->buffer, &o->tests, e) != 0)
		return -1;
	if (o->tests.n == 0) {
		for (size_t i = 0; test_choices[i]; i++)
			o->tests.v[o->tests.n++] = test_choices[i];
	}
	if (o->buffer.n == 0)
		o->buffer.v[o->buffer.n++] = 64 * 1024;
	if (o->datagram.n == 0)
		o->datagram.v[o->datagram.n++] = 1472;
	if (o->msg_size.n == 0)
		o->msg_size.v[o->msg_size.n++] = 16;
	for (size_t i = 0; i < o->common.threads.n; i++) {
		if (o->common.threads.v[i] > NET_MAX_CONNS)
			return peak_bench_fail(e, PEAK_EXIT_USAGE,
					       "--threads %llu: at most %u connections",
					       (unsigned long long)o->common.threads.v[i],
					       NET_MAX_CONNS);
	}
	return 0;
}

/* The suite's shared data from the options: the (test, size) points in sweep order and
 * every session's parameters. */
static void bench_data(const struct nb_opts *o, struct net_bench *nb)
{
	memset(nb, 0, sizeof *nb);
	nb->reps = (unsigned)peak_opts_max_reps(&o->common); /* the stopping rule's cap */
	nb->min_reps = (unsigned)o->common.reps;
	struct net_params *p = &nb->base;
	p->warmup_msgs = (uint32_t)o->warmup;
	p->rate_bps = o->rate_bps;
	p->no_gso = o->no_gso;
	p->send_batch = (uint32_t)o->send_batch;
	p->poll_recv = o->poll_recv;
	p->timeout_ms = (uint32_t)(o->timeout_s * 1000.0 + 0.5);
	/* Throughput: --bytes, else --time, else the default bytes. Latency: --time, else the
	 * default second; with both given, --bytes sizes the throughput tests and --time the
	 * latency tests (a tiny run's round trips in a twentieth of a second). */
	if (o->time_s != 0 && o->bytes == 0)
		p->duration_ns = (uint64_t)(o->time_s * 1e9);
	else
		p->total_bytes = o->bytes != 0 ? o->bytes : DEFAULT_BYTES;
	nb->latency_ns = (uint64_t)((o->time_s != 0 ? o->time_s : DEFAULT_LATENCY_S) * 1e9);
	for (size_t ti = 0; ti < o->tests.n; ti++) {
		enum net_test t = NET_TEST_COUNT;
		for (int k = 0; k < NET_TEST_COUNT; k++)
			if (strcmp(o->tests.v[ti], test_choices[k]) == 0)
				t = (enum net_test)k;
		const struct peak_list *l = t == NET_TEST_TCP_THROUGHPUT   ? &o->buffer
					    : t == NET_TEST_UDP_THROUGHPUT ? &o->datagram
									   : &o->msg_size;
		for (size_t si = 0; si < l->n && nb->npoints < NET_BENCH_MAX_POINTS; si++)
			nb->points[nb->npoints++] =
			    (struct net_bench_point){.test = t, .size = (uint32_t)l->v[si]};
	}
}

/* --cpus / --server-cpus: the calling thread, and the threads it starts, only there. */
static int confine(const struct peak_list *cpus, const char *flag, struct peak_bench_err *e)
{
	long bad;
	if (peak_team_confine(cpus->v, cpus->n, &bad) == 0)
		return 0;
	if (bad >= 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "%s: CPU %ld is not one this process may run on", flag, bad);
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: %s", flag, strerror(errno));
}

/* The client's and loopback's options: the common ones, the tests', and where the server is. */
static size_t client_options(void *state, struct peak_opt *t, size_t max)
{
	struct nb_opts *o = state;
	const struct peak_opt table[] = {
	    OPT_CLIENT_COMMON(o),
	    {"host", "HOST", "server name or address (IPv4 or IPv6)", PEAK_OPT_STRING, &o->host, 0,
	     0, NULL, NULL},
	    {"port", "PORT", "server control port (default 5301)", PEAK_OPT_UINT, &o->port, 1,
	     65535, NULL, NULL},
	};
	return peak_bench_opts_copy(t, max, table, sizeof table / sizeof table[0]);
}

static size_t loopback_options(void *state, struct peak_opt *t, size_t max)
{
	struct nb_opts *o = state;
	const struct peak_opt table[] = {
	    OPT_CLIENT_COMMON(o),
	    {"server-cpus", "LIST",
	     "the server's threads only on these CPUs (iperf3 -A CLIENT,SERVER; default: anywhere)",
	     PEAK_OPT_UINT_LIST, &o->server_cpus, 0, 4095, NULL, NULL},
	    {"server-process", NULL,
	     "serve from a child process, not a thread (two processes, as sockperf and iperf3 "
	     "run: a switch between them changes address space)",
	     PEAK_OPT_FLAG, &o->server_process, 0, 0, NULL, NULL},
	};
	return peak_bench_opts_copy(t, max, table, sizeof table / sizeof table[0]);
}

static int client_check(struct peak_bench_env *env)
{
	struct nb_opts *o = env->state;
	if (o->host == NULL || o->host[0] == '\0')
		return peak_bench_fail(&env->err, PEAK_EXIT_USAGE,
				       "client: --host is required (e.g. --host 192.0.2.1)");
	return finish_client_opts(o, &env->err);
}

static int loopback_check(struct peak_bench_env *env)
{
	return finish_client_opts(env->state, &env->err);
}

/* client: --cpus, the calling thread's mask (the sessions' threads inherit it). */
static int client_start(struct peak_bench_env *env)
{
	return confine(&((struct nb_opts *)env->state)->cpus, "--cpus", &env->err);
}

/* loopback: the server thread (or, with --server-process, its child process) starts on
 * --server-cpus (its session and receiver threads inherit them), then this thread, the client's, goes back to its own mask and to --cpus.
 * Both lists are checked against the process's own mask first. */
static int loopback_start(struct peak_bench_env *env)
{
	struct netbench *b = env->state;
	struct nb_opts *o = &b->o;
	struct peak_bench_err *e = &env->err;
	char err[320];
	const struct net_server_cfg cfg = {
	    .bind_host = "127.0.0.1",
	    .port = 0,
	    .timeout_ms = (uint32_t)(o->timeout_s * 1000.0 + 0.5),
	    .idle_ms = 60000,
	    .max_sessions = 4,
	    .quiet = true,
	};
	b->local.srv = net_server_start(&cfg, err, sizeof err);
	if (b->local.srv == NULL)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "loopback server: %s", err);
	cpu_set_t own;
	int bad = sched_getaffinity(0, sizeof own, &own) != 0
		      ? peak_bench_fail(e, PEAK_EXIT_FAIL, "sched_getaffinity: %s", strerror(errno))
		      : confine(&o->cpus, "--cpus", e);
	if (bad == 0) {
		(void)sched_setaffinity(0, sizeof own, &own);
		bad = confine(&o->server_cpus, "--server-cpus", e);
	}
	if (bad != 0)
		return -1;
	if (net_local_server_serve(&b->local, o->server_process) != 0)
		return o->server_process
			   ? peak_bench_fail(e, PEAK_EXIT_FAIL,
					     "loopback server: cannot start its process: %s",
					     strerror(errno))
			   : peak_bench_fail(e, PEAK_EXIT_FAIL,
					     "loopback server: cannot start its thread");
	(void)sched_setaffinity(0, sizeof own, &own);
	(void)confine(&o->cpus, "--cpus", e);
	o->host = "127.0.0.1";
	o->port = net_server_port(b->local.srv);
	return 0;
}

/* After the output opened: the server's address, the peaks (the memcpy figure is slow:
 * before connecting, as the server's idle timeout runs from the handshake), connect. */
static int client_setup(struct peak_bench_env *env)
{
	struct netbench *b = env->state;
	char err[320];
	socklen_t ss_len;
	if (net_resolve(b->o.host, (uint16_t)b->o.port, SOCK_STREAM, &b->ss, &ss_len, err,
			sizeof err) != 0) {
		b->ss.ss_family = 0;
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "%s", err);
	}
	bench_data(&b->o, &b->nb);
	b->nb.cli = &b->cli;
	net_theory_measure(&b->nb.th, net_addr_is_loopback((struct sockaddr *)&b->ss), &env->si,
			   &env->cfg, &env->ctx);
	if (net_client_connect(&b->cli, b->o.host, (uint16_t)b->o.port,
			       (uint32_t)(b->o.timeout_s * 1000.0 + 0.5), err, sizeof err) != 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL, "%s", err);
	b->connected = true;
	return 0;
}

static int client_context(struct peak_bench_env *env)
{
	struct netbench *b = env->state;
	const struct nb_opts *o = &b->o;
	struct peak_context *ctx = &env->ctx;
	char addr[64], cpus[PEAK_LIST_MAX * 5 + 1]; /* up to 64 CPUs of 4 digits, commas */
	peak_context_set_str(ctx, "netbench.mode", b->local.srv ? "loopback" : "client");
	if (b->local.srv)
		peak_context_set_str(ctx, "netbench.server_kind", net_local_server_kind(&b->local));
	if (o->cpus.n)
		peak_context_set_str(ctx, "netbench.cpus", peak_format_list(&o->cpus, cpus, sizeof cpus));
	if (o->server_cpus.n)
		peak_context_set_str(ctx, "netbench.server_cpus",
				     peak_format_list(&o->server_cpus, cpus, sizeof cpus));
	if (b->ss.ss_family)
		peak_context_set_str(ctx, "netbench.server",
				     net_addr_text((struct sockaddr *)&b->ss, addr, sizeof addr));
	peak_context_set_num(ctx, "netbench.port", (double)o->port);
	peak_context_set_num(ctx, "netbench.protocol_version", NET_VERSION);
	peak_context_set_num(ctx, "netbench.udp_send_batch",
			     o->send_batch ? (double)o->send_batch : 32);
	peak_context_set_num(ctx, "netbench.poll_recv", o->poll_recv ? 1 : 0);
	/* how long a latency point's repetition runs (--time, else the default) */
	peak_context_set_num(ctx, "netbench.latency_seconds", (double)b->nb.latency_ns * 1e-9);
	return 0;
}

static int client_sweep(struct peak_bench_env *env)
{
	struct netbench *b = env->state;
	const struct peak_bench_suite suite = {.name = "network",
					       .kernels = net_bench_kernels,
					       .nkernels = NET_TEST_COUNT,
					       .point = net_bench_point,
					       .data = &b->nb,
					       .progress = net_bench_progress};
	if (b->o.sustain_s != 0) {
		const struct net_sustain_cfg cfg = {.duration_s = b->o.sustain_s,
						    .nconns = (uint32_t)env->common->threads.v[0],
						    .block_bytes = (uint32_t)b->o.buffer.v[0]};
		return net_sustain_run(&b->cli, &b->nb.base, &b->nb.th, &cfg, &env->out, &env->ctx,
				       &env->err);
	}
	return net_bench_sweep(&suite, env->common, &env->out, &env->err);
}

static int client_finish(struct peak_bench_env *env)
{
	struct netbench *b = env->state;
	if (b->connected)
		net_client_close(&b->cli);
	b->connected = false;
	return 0;
}

static int loopback_cleanup(struct peak_bench_env *env)
{
	net_local_server_stop(&((struct netbench *)env->state)->local);
	return 0;
}

#define NET_PROGRAM(mode, what, use, opts, chk, st, clean)                                         \
	{                                                                                          \
	    .name = "netbench " mode, .usage = use, .summary = what,                               \
	    .state_bytes = sizeof(struct netbench),                                                \
	    .common_offset = offsetof(struct netbench, o.common), .defaults = option_defaults,     \
	    .options = opts, .check = chk, .start = st, .setup = client_setup,                     \
	    .context = client_context, .sweep = client_sweep, .finish = client_finish,             \
	    .cleanup = clean,                                                                      \
	}
static const struct peak_bench_program net_client = NET_PROGRAM(
    "client", "Measure against a running netbench server.", "--host HOST [options]",
    client_options, client_check, client_start, NULL);
static const struct peak_bench_program net_loopback = NET_PROGRAM(
    "loopback", "Measure against a netbench server started on 127.0.0.1.", "[options]",
    loopback_options, loopback_check, loopback_start, loopback_cleanup);

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2)
		return usage_error("a mode is required: server, client or loopback (see --help)");
	const char *mode = argv[1];
	if (strcmp(mode, "--help") == 0 || strcmp(mode, "-h") == 0) {
		general_usage();
		return PEAK_EXIT_OK;
	}
	if (strcmp(mode, "--version") == 0) {
		printf("netbench (peakbench) %s, protocol %u\n", peak_version(), NET_VERSION);
		return PEAK_EXIT_OK;
	}
	if (strcmp(mode, "server") == 0)
		return netbench_server_main(argc - 1, argv + 1);
	bool loopback = strcmp(mode, "loopback") == 0;
	if (!loopback && strcmp(mode, "client") != 0) {
		char msg[160];
		snprintf(msg, sizeof msg, "unknown mode '%.40s': use server, client or loopback",
			 mode);
		return usage_error(msg);
	}
	return peak_bench_main(argc - 1, argv + 1, loopback ? &net_loopback : &net_client);
}
