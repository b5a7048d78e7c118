/* netbench's protocol layer: test parameters, what each side measures per connection,
 * and the ops struct every transport (tcp, udp) fills in. */
#ifndef NET_PROTO_H
#define NET_PROTO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "peak_hist.h"

/* Caps on everything the peer may ask for: the server refuses anything larger. */
#define NET_MAX_CONNS       128u
#define NET_MAX_TCP_BLOCK   (16u * 1024u * 1024u)
#define NET_MAX_UDP_DGRAM   65507u
#define NET_UDP_HEADER      16u          /* seq (8) + send timestamp (8), big-endian */
#define NET_MAX_BYTES       (1ull << 40) /* 1 TiB per test */
#define NET_MAX_DURATION_NS (25ull * 3600ull * 1000000000ull) /* --sustain 24h */
#define NET_MAX_WARMUP      1000000u
#define NET_MAX_TIMEOUT_MS  600000u

enum net_test {
	NET_TEST_TCP_THROUGHPUT = 0,
	NET_TEST_UDP_THROUGHPUT = 1,
	NET_TEST_TCP_LATENCY = 2,
	NET_TEST_UDP_LATENCY = 3,
	NET_TEST_COUNT
};

const char *net_test_name(enum net_test t);
bool net_test_is_latency(enum net_test t);
bool net_test_is_udp(enum net_test t);

/* One test as the client asks for it; the same struct travels in the TEST message. */
struct net_params {
	uint32_t test;        /* enum net_test */
	uint32_t nconns;      /* parallel connections, 1..NET_MAX_CONNS */
	uint32_t block_bytes; /* write size (tcp), datagram (udp), message (latency) */
	uint32_t warmup_msgs; /* latency: round trips dropped before timing */
	uint64_t total_bytes; /* throughput: bytes over all connections; 0 = time mode */
	uint64_t duration_ns; /* time mode (and latency) run length */
	uint64_t rate_bps;    /* udp: bits/s per connection; 0 = unlimited */
	uint32_t timeout_ms;  /* longest silence either side tolerates */
	bool no_gso;          /* client only, not on the wire: no UDP GSO */
	uint32_t send_batch;  /* client only: unpaced UDP datagrams per send call; 0 = 32 */
	uint32_t poll_recv;   /* receiver: poll() before every receive call, one datagram a
			       * call (iperf3's select loop); 0 = block in recv, recvmmsg batches */
	atomic_uint_fast64_t *progress; /* client only: tcp senders add the bytes they send
					 * (--sustain's per-second series); NULL: not counted */
};

/* Check a peer's (or the user's) parameters against the caps; reason names the field. */
int net_params_check(const struct net_params *p, char *reason, size_t reason_len);

/* What one receiver (server) or sender (client) connection saw. */
struct net_conn_stats {
	uint64_t bytes;       /* payload bytes received (receiver) or sent (sender) */
	uint64_t packets;     /* datagrams or messages */
	uint64_t lost;        /* udp: expected - unique received */
	uint64_t reordered;   /* udp: arrived after a higher sequence number */
	uint64_t duplicated;  /* udp: seen twice */
	uint64_t first_ns;    /* receiver: first byte arrival; sender: start */
	uint64_t first_bytes; /* receiver: bytes of the first arrival (before the window) */
	uint64_t last_ns;     /* receiver: last byte arrival; sender: end */
	uint64_t cpu_ns;      /* CPU time of the thread serving the connection */
	uint64_t retrans;     /* tcp sender: tcpi_total_retrans */
	uint32_t status;      /* 0 ok, else an errno-like code */
	uint32_t gso;         /* udp sender (client only): datagrams per UDP_SEGMENT send; 0 off */
};

/* Bytes one connection must move in bytes mode (the remainder goes to the first ones). */
uint64_t net_conn_share(uint64_t total, uint32_t nconns, uint32_t index);

/* Server side of one test. */
struct net_srv_test {
	struct net_params p;
	uint64_t cookie;              /* proves a data connection belongs to this test */
	struct sockaddr_storage bind; /* the control connection's local address */
	struct sockaddr_storage peer; /* the control connection's peer address */
	socklen_t bind_len, peer_len;
	int listen_fd;                 /* tcp: data listener; -1 otherwise */
	int fds[NET_MAX_CONNS];        /* one socket per connection */
	uint16_t ports[NET_MAX_CONNS]; /* udp: the server's ports; tcp: ports[0] = listener */
	uint64_t sent[NET_MAX_CONNS];  /* udp: datagrams the client says it sent (DONE) */
	atomic_int stop;               /* abort: a receiver failed or the client vanished */
	atomic_int done;               /* udp: DONE received, sent[] is valid (release) */
};

/* Client side of one connection. */
struct net_cli_conn {
	const struct net_params *p;
	uint32_t index;
	int fd;
	uint16_t local_port; /* udp: told to the server so it accepts only our datagrams */
	struct net_conn_stats st;
	struct peak_hist *hist; /* latency tests: round trips in ns (warm-up excluded) */
};

struct net_proto {
	const char *name; /* "tcp", "udp" */
	/* Open the data sockets (listener or datagram sockets) and fill t->ports. */
	int (*server_open)(struct net_srv_test *t, char *err, size_t err_len);
	/* Bind the data connections to this test: tcp accepts and checks hellos; udp
	 * connects each socket to the client's ports. Bounded by p.timeout_ms. */
	int (*server_attach)(struct net_srv_test *t, const uint16_t *client_ports, char *err,
			     size_t err_len);
	/* Receive (throughput) or echo (latency) on connection i until the end. */
	int (*server_run)(struct net_srv_test *t, uint32_t i, struct net_conn_stats *st);
	void (*server_close)(struct net_srv_test *t);
	/* Client: open connection c to the server's port (tcp sends its hello). */
	int (*client_open)(struct net_cli_conn *c, const struct sockaddr *addr, socklen_t len,
			   uint16_t port, uint64_t cookie, char *err, size_t err_len);
	/* Send (throughput) or ping-pong (latency) until the bytes or time are used up. */
	int (*client_run)(struct net_cli_conn *c);
	/* udp: the server must be told when the sender is done; tcp sees EOF. */
	bool needs_done;
};

extern const struct net_proto net_proto_tcp;
extern const struct net_proto net_proto_udp;

const struct net_proto *net_proto_for(enum net_test t);

/* CPU time of the calling thread in ns (CLOCK_THREAD_CPUTIME_ID). */
uint64_t net_thread_cpu_ns(void);

#endif
