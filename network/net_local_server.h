/* netbench loopback's own server: a net_server served from a thread of this process or,
 * as sockperf's and iperf3's servers are, from a child process (net_local_server.c). */
#ifndef NET_LOCAL_SERVER_H
#define NET_LOCAL_SERVER_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "net_server.h"

struct net_local_server {
	struct net_server *srv; /* started by the caller (net_server_start) */
	pthread_t tid;          /* the serving thread (pid 0) */
	pid_t pid;              /* the serving child (0: a thread serves) */
	bool serving;
};

/* Serve ls->srv from a thread, or from a child process when as_process, on the CPU mask
 * in force now. Returns 0, or -1 with errno set (fork) or not (pthread_create). */
int net_local_server_serve(struct net_local_server *ls, bool as_process);
/* Stop serving (the child or thread ends), wait for it, destroy ls->srv. */
void net_local_server_stop(struct net_local_server *ls);
/* "process" or "thread": context netbench.server_kind. */
const char *net_local_server_kind(const struct net_local_server *ls);

#endif
