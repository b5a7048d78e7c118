/* netbench's wire: framed control messages with a versioned header, big-endian packing,
 * and socket helpers where every wait has a deadline. */
#ifndef NET_WIRE_H
#define NET_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "net_proto.h"

#define NET_MAGIC            0x504b4e42u /* "PKNB": control messages */
#define NET_DATA_MAGIC       0x504b4e44u /* "PKND": tcp data connection hello */
#define NET_VERSION          1u
#define NET_HEADER_BYTES     12u
#define NET_MAX_PAYLOAD      16384u /* the largest message either side accepts */
#define NET_DATA_HELLO_BYTES 16u
#define NET_PARAMS_BYTES     48u
#define NET_STATS_BYTES      88u
#define NET_ERROR_MAX        200u

enum net_msg_type {
	NET_MSG_HELLO = 1,  /* c->s, s->c: versions agree */
	NET_MSG_TEST = 2,   /* c->s: struct net_params */
	NET_MSG_READY = 3,  /* s->c: cookie, ports */
	NET_MSG_PORTS = 4,  /* c->s (udp): the client's datagram ports */
	NET_MSG_DONE = 5,   /* c->s (udp): datagrams sent per connection */
	NET_MSG_RESULT = 6, /* s->c: struct net_conn_stats per connection */
	NET_MSG_ERROR = 7,  /* s->c: one line of text */
	NET_MSG_BYE = 8,    /* c->s: no more tests */
};

/* Big-endian packing. */
void net_put_u16(uint8_t *p, uint16_t v);
void net_put_u32(uint8_t *p, uint32_t v);
void net_put_u64(uint8_t *p, uint64_t v);
uint16_t net_get_u16(const uint8_t *p);
uint32_t net_get_u32(const uint8_t *p);
uint64_t net_get_u64(const uint8_t *p);

void net_params_pack(const struct net_params *p, uint8_t out[NET_PARAMS_BYTES]);
void net_params_unpack(const uint8_t in[NET_PARAMS_BYTES], struct net_params *p);
void net_stats_pack(const struct net_conn_stats *s, uint8_t out[NET_STATS_BYTES]);
void net_stats_unpack(const uint8_t in[NET_STATS_BYTES], struct net_conn_stats *s);

/* Deadline helpers: now + ms, and the ms left (0 when passed) as poll wants it. */
uint64_t net_deadline(uint32_t timeout_ms);
int net_ms_left(uint64_t deadline_ns);

/* Read or write exactly n bytes before the deadline. 0 ok; -1 with errno set
 * (ETIMEDOUT, ECONNRESET, EPIPE; ENODATA for EOF before n bytes). */
int net_read_full(int fd, void *buf, size_t n, uint64_t deadline_ns);
int net_write_full(int fd, const void *buf, size_t n, uint64_t deadline_ns);

/* One framed message. recv checks magic, version and length (<= cap); -1 with a
 * reason in err on any violation, timeout or EOF. */
int net_msg_send(int fd, uint16_t type, const void *payload, uint32_t len, uint32_t timeout_ms);
int net_msg_recv(int fd, uint16_t *type, void *payload, uint32_t cap, uint32_t *len,
		 uint32_t timeout_ms, char *err, size_t err_len);
/* Send an ERROR message carrying text (truncated to NET_ERROR_MAX). */
void net_msg_send_error(int fd, const char *text, uint32_t timeout_ms);

/* Resolve host (NULL: loopback) and port to one address; passive for bind. */
int net_resolve(const char *host, uint16_t port, int socktype, struct sockaddr_storage *out,
		socklen_t *out_len, char *err, size_t err_len);
/* Connect with a timeout (non-blocking connect + poll); returns a blocking fd or -1. */
int net_connect(const struct sockaddr *addr, socklen_t len, int socktype, uint32_t timeout_ms,
		char *err, size_t err_len);
/* Bound (and for tcp listening) socket; port 0 picks one. -1 with reason. */
int net_bind(const struct sockaddr *addr, socklen_t len, int socktype, char *err, size_t err_len);
uint16_t net_sockaddr_port(const struct sockaddr *sa);
void net_sockaddr_set_port(struct sockaddr *sa, uint16_t port);
/* Port a socket is bound to, 0 on failure. */
uint16_t net_local_port(int fd);
/* "127.0.0.1" / "::1" style text of an address (no port). */
const char *net_addr_text(const struct sockaddr *sa, char *buf, size_t len);
/* True for 127.0.0.0/8, ::1 and v4-mapped loopback. */
int net_addr_is_loopback(const struct sockaddr *sa);
/* SO_RCVTIMEO / SO_SNDTIMEO in ms. */
int net_set_timeouts(int fd, uint32_t timeout_ms);

#endif
