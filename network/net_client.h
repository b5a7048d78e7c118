/* netbench's client: a control connection to a server and one repetition of a test
 * (data connections opened before the clock starts, one team thread per connection). */
#ifndef NET_CLIENT_H
#define NET_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net_proto.h"
#include "peak_hist.h"
#include "peak_team.h"

struct net_client {
	int ctl;
	struct sockaddr_storage addr;
	socklen_t addr_len;
	uint32_t timeout_ms;
};

/* What one repetition saw on both sides. */
struct net_rep {
	uint32_t nconns;
	struct net_conn_stats snd[NET_MAX_CONNS]; /* client: sender or pinger */
	struct net_conn_stats rcv[NET_MAX_CONNS]; /* server: receiver or echo */
	uint64_t wall_ns;                         /* team time on the client */
};

/* Resolve, connect (within timeout_ms) and shake hands. -1 with one line in err. */
int net_client_connect(struct net_client *c, const char *host, uint16_t port, uint32_t timeout_ms,
		       char *err, size_t err_len);
/* Run one repetition of p on the team (p->nconns threads). hist (may be NULL) receives
 * every timed round trip of a latency test. -1 with one line in err. */
int net_client_run(struct net_client *c, const struct net_params *p, struct peak_team *team,
		   struct net_rep *rep, struct peak_hist *hist, char *err, size_t err_len);
/* Say BYE and close. */
void net_client_close(struct net_client *c);

#endif
