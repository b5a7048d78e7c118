/* netbench's TCP protocol: bulk transfer counted at the receiver, and ping-pong round
 * trips with TCP_NODELAY. Hot loops use plain blocking send/recv (as iperf3 and sockperf
 * do); SO_RCVTIMEO/SO_SNDTIMEO bound every wait. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net_proto.h"
#include "net_wire.h"
#include "peak_time.h"

static int tcp_server_open(struct net_srv_test *t, char *err, size_t err_len)
{
	struct sockaddr_storage ss = t->bind;
	net_sockaddr_set_port((struct sockaddr *)&ss, 0);
	t->listen_fd = net_bind((struct sockaddr *)&ss, t->bind_len, SOCK_STREAM, err, err_len);
	if (t->listen_fd < 0)
		return -1;
	t->ports[0] = net_local_port(t->listen_fd);
	return 0;
}

static void tune(int fd, const struct net_params *p)
{
	int one = 1;
	if (net_test_is_latency((enum net_test)p->test))
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	(void)net_set_timeouts(fd, p->timeout_ms);
}

/* Accept one connection and check its hello; returns its index or -1 (dropped). */
static int accept_one(struct net_srv_test *t, uint64_t deadline)
{
	struct pollfd pfd = {.fd = t->listen_fd, .events = POLLIN};
	int rc = poll(&pfd, 1, net_ms_left(deadline));
	if (rc <= 0)
		return -1;
	int fd = accept4(t->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	uint8_t hello[NET_DATA_HELLO_BYTES];
	uint64_t hello_deadline = net_deadline(t->p.timeout_ms);
	if (hello_deadline > deadline)
		hello_deadline = deadline;
	if (net_read_full(fd, hello, sizeof hello, hello_deadline) != 0)
		goto drop;
	uint32_t idx = net_get_u32(hello + 12);
	if (net_get_u32(hello) != NET_DATA_MAGIC || net_get_u64(hello + 4) != t->cookie ||
	    idx >= t->p.nconns || t->fds[idx] >= 0)
		goto drop;
	tune(fd, &t->p);
	t->fds[idx] = fd;
	return (int)idx;
drop:
	close(fd);
	return -1;
}

static int tcp_server_attach(struct net_srv_test *t, const uint16_t *client_ports, char *err,
			     size_t err_len)
{
	(void)client_ports;
	uint64_t deadline = net_deadline(t->p.timeout_ms);
	uint32_t attached = 0;
	while (attached < t->p.nconns && net_ms_left(deadline) > 0) {
		if (accept_one(t, deadline) >= 0)
			attached++;
	}
	close(t->listen_fd);
	t->listen_fd = -1;
	if (attached < t->p.nconns) {
		snprintf(err, err_len, "only %u of %u data connections arrived within %u ms",
			 (unsigned)attached, (unsigned)t->p.nconns, (unsigned)t->p.timeout_ms);
		return -1;
	}
	return 0;
}

/* Receive until EOF, counting bytes and the first and last arrival. */
static int tcp_receive(struct net_srv_test *t, int fd, struct net_conn_stats *st)
{
	size_t len = t->p.block_bytes < 65536u ? 65536u : t->p.block_bytes;
	uint8_t *buf = malloc(len);
	if (buf == NULL)
		return ENOMEM;
	int status = 0;
	for (;;) {
		if (t->p.poll_recv) { /* --poll-recv: wait for data first, as iperf3's select */
			struct pollfd pfd = {.fd = fd, .events = POLLIN};
			if (poll(&pfd, 1, (int)t->p.timeout_ms) == 0) {
				status = ETIMEDOUT;
				break;
			}
		}
		ssize_t r = recv(fd, buf, len, 0);
		uint64_t now = peak_time_now_ns();
		if (r > 0) {
			if (st->bytes == 0) {
				st->first_ns = now;
				st->first_bytes = (uint64_t)r;
			}
			st->last_ns = now;
			st->bytes += (uint64_t)r;
			st->packets++;
		} else if (r == 0) {
			break;
		} else if (errno != EINTR) {
			status = errno == EAGAIN ? ETIMEDOUT : errno;
			break;
		}
		if (atomic_load_explicit(&t->stop, memory_order_relaxed)) {
			status = ECANCELED;
			break;
		}
	}
	free(buf);
	return status;
}

/* Blocking exact-length I/O for the ping-pong loops (no poll: one syscall per step). */
static int recv_all(int fd, uint8_t *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = recv(fd, buf + got, n - got, 0);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0)
			return got == 0 ? 1 : ENODATA; /* 1: clean EOF between messages */
		else if (errno != EINTR)
			return errno == EAGAIN ? ETIMEDOUT : errno;
	}
	return 0;
}

static int send_all(int fd, const uint8_t *buf, size_t n)
{
	size_t put = 0;
	while (put < n) {
		ssize_t r = send(fd, buf + put, n - put, MSG_NOSIGNAL);
		if (r >= 0)
			put += (size_t)r;
		else if (errno != EINTR)
			return errno == EAGAIN ? ETIMEDOUT : errno;
	}
	return 0;
}

static int tcp_echo(struct net_srv_test *t, int fd, struct net_conn_stats *st)
{
	uint8_t *buf = malloc(t->p.block_bytes);
	if (buf == NULL)
		return ENOMEM;
	int status = 0;
	for (;;) {
		int rc = recv_all(fd, buf, t->p.block_bytes);
		if (rc == 1)
			break;
		uint64_t now = peak_time_now_ns();
		if (rc == 0)
			rc = send_all(fd, buf, t->p.block_bytes);
		if (rc != 0) {
			status = rc;
			break;
		}
		if (st->packets == 0)
			st->first_ns = now;
		st->last_ns = now;
		st->packets++;
		st->bytes += t->p.block_bytes;
		if (atomic_load_explicit(&t->stop, memory_order_relaxed)) {
			status = ECANCELED;
			break;
		}
	}
	free(buf);
	return status;
}

static int tcp_server_run(struct net_srv_test *t, uint32_t i, struct net_conn_stats *st)
{
	if (net_test_is_latency((enum net_test)t->p.test))
		return tcp_echo(t, t->fds[i], st);
	return tcp_receive(t, t->fds[i], st);
}

static void tcp_server_close(struct net_srv_test *t)
{
	if (t->listen_fd >= 0)
		close(t->listen_fd);
	t->listen_fd = -1;
	for (uint32_t i = 0; i < NET_MAX_CONNS; i++) {
		if (t->fds[i] >= 0)
			close(t->fds[i]);
		t->fds[i] = -1;
	}
}

static int tcp_client_open(struct net_cli_conn *c, const struct sockaddr *addr, socklen_t len,
			   uint16_t port, uint64_t cookie, char *err, size_t err_len)
{
	struct sockaddr_storage ss;
	memcpy(&ss, addr, len);
	net_sockaddr_set_port((struct sockaddr *)&ss, port);
	c->fd =
	    net_connect((struct sockaddr *)&ss, len, SOCK_STREAM, c->p->timeout_ms, err, err_len);
	if (c->fd < 0)
		return -1;
	uint8_t hello[NET_DATA_HELLO_BYTES];
	net_put_u32(hello, NET_DATA_MAGIC);
	net_put_u64(hello + 4, cookie);
	net_put_u32(hello + 12, c->index);
	if (net_write_full(c->fd, hello, sizeof hello, net_deadline(c->p->timeout_ms)) != 0) {
		snprintf(err, err_len, "data connection %u: %s", (unsigned)c->index,
			 strerror(errno));
		return -1;
	}
	tune(c->fd, c->p);
	return 0;
}

static int tcp_send(struct net_cli_conn *c)
{
	const struct net_params *p = c->p;
	uint8_t *buf = malloc(p->block_bytes);
	if (buf == NULL)
		return ENOMEM;
	for (uint32_t i = 0; i < p->block_bytes; i++)
		buf[i] = (uint8_t)(i * 131u + 7u);
	uint64_t remaining =
	    p->total_bytes != 0 ? net_conn_share(p->total_bytes, p->nconns, c->index) : UINT64_MAX;
	uint64_t cpu0 = net_thread_cpu_ns();
	uint64_t start = peak_time_now_ns();
	uint64_t end = p->total_bytes != 0 ? UINT64_MAX : start + p->duration_ns;
	int status = 0;
	while (remaining > 0) {
		size_t n = remaining < p->block_bytes ? (size_t)remaining : p->block_bytes;
		ssize_t r = send(c->fd, buf, n, MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			status = errno == EAGAIN ? ETIMEDOUT : errno;
			break;
		}
		c->st.bytes += (uint64_t)r;
		c->st.packets++;
		if (p->progress != NULL)
			atomic_fetch_add_explicit(p->progress, (uint64_t)r, memory_order_relaxed);
		if (p->total_bytes != 0)
			remaining -= (uint64_t)r;
		else if (peak_time_now_ns() >= end)
			break;
	}
	c->st.first_ns = start;
	c->st.last_ns = peak_time_now_ns();
	struct tcp_info ti;
	socklen_t tl = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) == 0)
		c->st.retrans = ti.tcpi_total_retrans;
	(void)shutdown(c->fd, SHUT_WR);
	c->st.cpu_ns = net_thread_cpu_ns() - cpu0;
	free(buf);
	return status;
}

static int tcp_ping(struct net_cli_conn *c)
{
	const struct net_params *p = c->p;
	uint8_t *buf = calloc(1, p->block_bytes);
	if (buf == NULL)
		return ENOMEM;
	uint64_t cpu0 = net_thread_cpu_ns();
	uint64_t start = 0;
	uint64_t end = UINT64_MAX;
	int status = 0;
	for (uint64_t i = 0;; i++) {
		if (i == p->warmup_msgs) {
			start = peak_time_now_ns();
			end = start + p->duration_ns;
		}
		uint64_t t0 = peak_time_now_ns();
		if (t0 >= end)
			break;
		buf[0] = (uint8_t)i;
		int rc = send_all(c->fd, buf, p->block_bytes);
		if (rc == 0)
			rc = recv_all(c->fd, buf, p->block_bytes);
		if (rc != 0) {
			status = rc == 1 ? ENODATA : rc;
			break;
		}
		uint64_t t1 = peak_time_now_ns();
		if (buf[0] != (uint8_t)i) {
			status = EPROTO;
			break;
		}
		if (i >= p->warmup_msgs) {
			peak_hist_record(c->hist, t1 - t0);
			c->st.packets++;
			c->st.bytes += p->block_bytes;
		}
	}
	c->st.first_ns = start;
	c->st.last_ns = peak_time_now_ns();
	(void)shutdown(c->fd, SHUT_WR);
	c->st.cpu_ns = net_thread_cpu_ns() - cpu0;
	free(buf);
	return status;
}

static int tcp_client_run(struct net_cli_conn *c)
{
	if (net_test_is_latency((enum net_test)c->p->test))
		return tcp_ping(c);
	return tcp_send(c);
}

const struct net_proto net_proto_tcp = {
    .name = "tcp",
    .server_open = tcp_server_open,
    .server_attach = tcp_server_attach,
    .server_run = tcp_server_run,
    .server_close = tcp_server_close,
    .client_open = tcp_client_open,
    .client_run = tcp_client_run,
    .needs_done = false,
};
