/* netbench's server mode (see netbench_server.h): its options, the bind address checked,
 * then net_server.c's accept loop until SIGINT, SIGTERM or SIGHUP. */
#define _GNU_SOURCE
#include "netbench_server.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "net_server.h"
#include "net_wire.h"
#include "peak_bench.h"
#include "peak_exit.h"
#include "peak_opts.h"

struct server_opts {
	const char *bind;
	uint64_t port;
	double timeout_s;
	double idle_s;
	uint64_t max_sessions;
};

int netbench_server_main(int argc, char **argv)
{
	struct server_opts o = {
	    .port = NETBENCH_DEFAULT_PORT, .timeout_s = 5, .idle_s = 60, .max_sessions = 16};
	bool quiet = false;
	const struct peak_opt opts[] = {
	    {"bind", "ADDR", "address to listen on (default 127.0.0.1; :: or 0.0.0.0 for all)",
	     PEAK_OPT_STRING, &o.bind, 0, 0, NULL, NULL},
	    {"port", "PORT", "control port (default 5301; 0 picks a free one)", PEAK_OPT_UINT,
	     &o.port, 0, 65535, NULL, NULL},
	    {"timeout", "SECONDS", "longest wait on a client (handshake, data; default 5)",
	     PEAK_OPT_DOUBLE, &o.timeout_s, 0.01, 600, NULL, NULL},
	    {"idle", "SECONDS", "longest pause between two tests of a client (default 60)",
	     PEAK_OPT_DOUBLE, &o.idle_s, 0.1, 86400, NULL, NULL},
	    {"max-sessions", "N", "concurrent clients served (default 16)", PEAK_OPT_UINT,
	     &o.max_sessions, 1, 1024, NULL, NULL},
	    {"quiet", NULL, "no log lines on stderr", PEAK_OPT_FLAG, &quiet, 0, 0, NULL, NULL},
	};
	const struct peak_cli cli = {
	    .prog = "netbench server",
	    .usage = "[--bind ADDR] [--port P]",
	    .summary = "Serve netbench clients until stopped (SIGINT/SIGTERM).",
	    .opts = opts,
	    .nopts = sizeof opts / sizeof opts[0],
	};
	enum peak_opts_status st = peak_opts_parse(&cli, argc, argv, NULL);
	if (st == PEAK_OPTS_EXIT)
		return PEAK_EXIT_OK;
	if (st != PEAK_OPTS_OK)
		return PEAK_EXIT_USAGE;
	uint8_t addr_buf[sizeof(struct in6_addr)];
	if (o.bind != NULL && inet_pton(AF_INET, o.bind, addr_buf) != 1 &&
	    inet_pton(AF_INET6, o.bind, addr_buf) != 1) {
		char msg[160];
		snprintf(msg, sizeof msg,
			 "server: --bind '%.60s' is not a numeric IPv4 or IPv6 address (e.g. "
			 "0.0.0.0, ::)",
			 o.bind);
		struct peak_bench_err e = {0};
		peak_bench_fail(&e, PEAK_EXIT_USAGE, "%s", msg);
		return peak_bench_exit(&e, "netbench");
	}
	/* Signals arrive through a signalfd the accept loop polls: no handler state. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	int sfd = -1;
	if (pthread_sigmask(SIG_BLOCK, &set, NULL) == 0)
		sfd = signalfd(-1, &set, SFD_CLOEXEC);
	char err[320];
	const struct net_server_cfg cfg = {
	    .bind_host = o.bind,
	    .port = (uint16_t)o.port,
	    .timeout_ms = (uint32_t)(o.timeout_s * 1000.0 + 0.5),
	    .idle_ms = (uint32_t)(o.idle_s * 1000.0 + 0.5),
	    .max_sessions = (unsigned)o.max_sessions,
	    .quiet = quiet,
	};
	struct net_server *srv = net_server_start(&cfg, err, sizeof err);
	if (srv == NULL) {
		fprintf(stderr, "netbench server: %s\n", err);
		if (sfd >= 0)
			close(sfd);
		return PEAK_EXIT_FAIL;
	}
	fprintf(stderr, "netbench server: listening on %s port %u (protocol %u)\n",
		net_server_addr(srv), (unsigned)net_server_port(srv), NET_VERSION);
	int rc = net_server_run(srv, sfd);
	net_server_destroy(srv);
	if (sfd >= 0)
		close(sfd);
	return rc == 0 ? PEAK_EXIT_OK : PEAK_EXIT_FAIL;
}
