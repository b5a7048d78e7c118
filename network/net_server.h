/* netbench's server: accepts control connections, one thread per session, runs the tests
 * a client asks for and reports what its receivers saw. A bad or vanished client costs
 * its own session only. */
#ifndef NET_SERVER_H
#define NET_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_server_cfg {
	const char *bind_host; /* NULL: 127.0.0.1 */
	uint16_t port;         /* 0: any free port */
	uint32_t timeout_ms;   /* handshake and every wait on a client */
	uint32_t idle_ms;      /* longest pause between two tests of one session */
	unsigned max_sessions; /* more concurrent clients are refused */
	bool quiet;            /* no log lines on stderr */
};

struct net_server;

/* Bind and listen. NULL with a one-line reason in err (port in use, bad address). */
struct net_server *net_server_start(const struct net_server_cfg *cfg, char *err, size_t err_len);
uint16_t net_server_port(const struct net_server *s);
/* "127.0.0.1" or "::1": the address the server listens on. */
const char *net_server_addr(const struct net_server *s);
/* Accept loop; returns 0 after net_server_stop(), or when stop_fd (>= 0) becomes readable. */
int net_server_run(struct net_server *s, int stop_fd);
/* Ask the accept loop to return (any thread). */
void net_server_stop(struct net_server *s);
/* Wake and wait for every session, then free. */
void net_server_destroy(struct net_server *s);

#endif
