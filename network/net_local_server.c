/* netbench loopback's own server, from a thread or a child process (net_local_server.h).
 *
 * Why a process at all: a ping-pong between two threads of one process on one CPU switches
 * threads only; between two processes (sockperf's and iperf3's client and server) every
 * switch also changes the address space, which is part of what those tools measure, so
 * the like-for-like job with them is two processes (docs/benchmarks/network.md). */
#define _GNU_SOURCE
#include "net_local_server.h"

#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void *serve_thread(void *arg)
{
	(void)net_server_run(arg, -1);
	return NULL;
}

/* The child shares the server's wake pipe, so net_server_stop in the parent ends it; it
 * dies with the parent (PR_SET_PDEATHSIG), so a killed netbench leaves no server. */
static int serve_process(struct net_local_server *ls)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		int rc = net_server_run(ls->srv, -1);
		net_server_destroy(ls->srv);
		_exit(rc == 0 ? 0 : 1);
	}
	ls->pid = pid;
	return 0;
}

int net_local_server_serve(struct net_local_server *ls, bool as_process)
{
	if (as_process ? serve_process(ls) != 0
		       : pthread_create(&ls->tid, NULL, serve_thread, ls->srv) != 0)
		return -1;
	ls->serving = true;
	return 0;
}

void net_local_server_stop(struct net_local_server *ls)
{
	if (ls->serving) {
		net_server_stop(ls->srv);
		if (ls->pid > 0)
			(void)waitpid(ls->pid, NULL, 0);
		else
			(void)pthread_join(ls->tid, NULL);
		ls->serving = false;
	}
	if (ls->srv)
		net_server_destroy(ls->srv);
	ls->srv = NULL;
}

const char *net_local_server_kind(const struct net_local_server *ls)
{
	return ls->pid > 0 ? "process" : "thread";
}
