/* netbench's UDP protocol: datagrams carrying a sequence number and a send timestamp,
 * counted at the receiver (lost, reordered, duplicated), optionally paced to --rate;
 * and ping-pong round trips where a datagram not echoed in time counts as lost. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net_proto.h"
#include "net_udp_acct.h"
#include "net_wire.h"
#include "peak_shared.h"
#include "peak_time.h"

#define BATCH   32u
#define POLL_MS 20
/* After DONE the receiver drains until the socket is quiet for one poll interval, but
 * never longer than this. */
#define DRAIN_MAX_NS 500000000ull
/* A ping not answered within this long is lost (sockperf-like). */
#define PING_WAIT_MS  200u
#define SOCKBUF_BYTES PEAK_SHARED_UDP_SOCKBUF_BYTES /* iperf3 -w in the pair: peak_shared.h */

static int udp_server_open(struct net_srv_test *t, char *err, size_t err_len)
{
	struct sockaddr_storage ss = t->bind;
	net_sockaddr_set_port((struct sockaddr *)&ss, 0);
	for (uint32_t i = 0; i < t->p.nconns; i++) {
		t->fds[i] = net_bind((struct sockaddr *)&ss, t->bind_len, SOCK_DGRAM, err, err_len);
		if (t->fds[i] < 0)
			return -1;
		int sz = SOCKBUF_BYTES;
		(void)setsockopt(t->fds[i], SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
		t->ports[i] = net_local_port(t->fds[i]);
	}
	return 0;
}

static int udp_server_attach(struct net_srv_test *t, const uint16_t *client_ports, char *err,
			     size_t err_len)
{
	/* Connecting each socket to the client's port makes the kernel drop anyone
	 * else's datagrams: only this test's sender is counted. */
	for (uint32_t i = 0; i < t->p.nconns; i++) {
		struct sockaddr_storage ss = t->peer;
		net_sockaddr_set_port((struct sockaddr *)&ss, client_ports[i]);
		if (client_ports[i] == 0 ||
		    connect(t->fds[i], (struct sockaddr *)&ss, t->peer_len) != 0) {
			snprintf(err, err_len, "udp connection %u: bad client port %u", (unsigned)i,
				 (unsigned)client_ports[i]);
			return -1;
		}
	}
	return 0;
}

struct batch {
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	uint8_t *buf;
};

static int batch_init(struct batch *b, size_t len)
{
	b->buf = malloc(len * BATCH);
	if (b->buf == NULL)
		return -1;
	memset(b->buf, 0, len * BATCH);
	for (unsigned i = 0; i < BATCH; i++) {
		b->iov[i].iov_base = b->buf + i * len;
		b->iov[i].iov_len = len;
		memset(&b->msgs[i], 0, sizeof b->msgs[i]);
		b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
		b->msgs[i].msg_hdr.msg_iovlen = 1;
	}
	return 0;
}

/* Whether the receive loop should end: DONE seen and the socket quiet (or drained long),
 * or the test aborted. */
static bool drained(struct net_srv_test *t, uint64_t *stop_seen, bool got_any, uint64_t now)
{
	if (atomic_load_explicit(&t->stop, memory_order_relaxed))
		return true;
	if (!atomic_load_explicit(&t->done, memory_order_acquire))
		return false;
	if (*stop_seen == 0)
		*stop_seen = now;
	return !got_any || now - *stop_seen > DRAIN_MAX_NS;
}

static int udp_serve(struct net_srv_test *t, uint32_t idx, struct net_conn_stats *st,
		     struct net_udp_acct *a, bool echo)
{
	int fd = t->fds[idx];
	size_t len = t->p.block_bytes;
	struct batch b;
	if (batch_init(&b, len) != 0)
		return ENOMEM;
	int status = 0;
	uint64_t stop_seen = 0;
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int rc = poll(&pfd, 1, POLL_MS);
		int n = 0;
		if (rc > 0)
			n = recvmmsg(fd, b.msgs, t->p.poll_recv ? 1 : BATCH, MSG_DONTWAIT, NULL);
		if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
			status = errno;
			break;
		}
		uint64_t now = peak_time_now_ns();
		for (int k = 0; k < n; k++) {
			unsigned got = b.msgs[k].msg_len;
			if (got < NET_UDP_HEADER)
				continue;
			if (st->packets == 0)
				st->first_ns = now;
			if (st->first_ns == now)
				st->first_bytes += got;
			st->last_ns = now;
			st->packets++;
			st->bytes += got;
			if (echo)
				(void)send(fd, b.iov[k].iov_base, got, MSG_DONTWAIT);
			else
				net_udp_acct_add(a, net_get_u64(b.iov[k].iov_base));
		}
		if (drained(t, &stop_seen, n > 0, now))
			break;
	}
	free(b.buf);
	return status;
}

static int udp_server_run(struct net_srv_test *t, uint32_t i, struct net_conn_stats *st)
{
	if (net_test_is_latency((enum net_test)t->p.test))
		return udp_serve(t, i, st, NULL, true);
	struct net_udp_acct *a = malloc(sizeof *a);
	if (a == NULL)
		return ENOMEM;
	net_udp_acct_init(a);
	int status = udp_serve(t, i, st, a, false);
	/* t->sent[i] is the sender's count once DONE was seen (release/acquire). */
	if (atomic_load_explicit(&t->done, memory_order_acquire))
		st->lost = net_udp_acct_lost(a, t->sent[i]);
	else if (status == 0)
		status = ECANCELED;
	st->reordered = a->reordered;
	st->duplicated = a->duplicated;
	free(a);
	return status;
}

static void udp_server_close(struct net_srv_test *t)
{
	for (uint32_t i = 0; i < NET_MAX_CONNS; i++) {
		if (t->fds[i] >= 0)
			close(t->fds[i]);
		t->fds[i] = -1;
	}
}

static int udp_client_open(struct net_cli_conn *c, const struct sockaddr *addr, socklen_t len,
			   uint16_t port, uint64_t cookie, char *err, size_t err_len)
{
	(void)cookie;
	struct sockaddr_storage ss;
	memcpy(&ss, addr, len);
	net_sockaddr_set_port((struct sockaddr *)&ss, port);
	c->fd =
	    net_connect((struct sockaddr *)&ss, len, SOCK_DGRAM, c->p->timeout_ms, err, err_len);
	if (c->fd < 0)
		return -1;
	int sz = SOCKBUF_BYTES;
	(void)setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
	(void)setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
	c->local_port = net_local_port(c->fd);
	uint32_t wait_ms = c->p->timeout_ms < PING_WAIT_MS ? c->p->timeout_ms : PING_WAIT_MS;
	if (c->local_port == 0 || net_set_timeouts(c->fd, wait_ms) != 0) {
		snprintf(err, err_len, "udp socket: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Wait until the paced send time of datagram k (sleep when far, spin when near). */
static void pace(uint64_t start, uint64_t k, double interval_ns)
{
	uint64_t due = start + (uint64_t)((double)k * interval_ns);
	for (;;) {
		uint64_t now = peak_time_now_ns();
		if (now >= due)
			return;
		if (due - now > 50000)
			peak_time_sleep_ns(due - now - 20000);
	}
}

static int udp_send(struct net_cli_conn *c)
{
	const struct net_params *p = c->p;
	size_t len = p->block_bytes;
	struct batch b;
	if (batch_init(&b, len) != 0)
		return ENOMEM;
	uint64_t count = UINT64_MAX;
	if (p->total_bytes != 0) {
		uint64_t share = net_conn_share(p->total_bytes, p->nconns, c->index);
		count = (share + len - 1) / len;
	}
	double interval_ns = p->rate_bps ? (double)len * 8e9 / (double)p->rate_bps : 0.0;
	unsigned batch = p->rate_bps ? 1u : p->send_batch ? p->send_batch : BATCH;
	/* Unpaced: UDP GSO (UDP_SEGMENT) hands the kernel up to 32 datagrams in one buffer;
	 * they still leave (and are counted) as separate datagrams with their own headers. */
	unsigned gso = 0;
	if (batch > 1 && !p->no_gso) {
		unsigned fit = (unsigned)(65000u / len);
		int seg = (int)len;
		if (fit >= 2 && setsockopt(c->fd, IPPROTO_UDP, UDP_SEGMENT, &seg, sizeof seg) == 0)
			gso = fit < batch ? fit : batch;
	}
	if (gso)
		batch = gso;
	uint64_t cpu0 = net_thread_cpu_ns();
	uint64_t start = peak_time_now_ns();
	uint64_t end = p->total_bytes != 0 ? UINT64_MAX : start + p->duration_ns;
	uint64_t seq = 0;
	int status = 0;
	while (seq < count) {
		uint64_t now = peak_time_now_ns();
		if (now >= end)
			break;
		if (interval_ns > 0)
			pace(start, seq, interval_ns);
		unsigned n = count - seq < batch ? (unsigned)(count - seq) : batch;
		for (unsigned k = 0; k < n; k++) {
			net_put_u64(b.iov[k].iov_base, seq + k);
			net_put_u64((uint8_t *)b.iov[k].iov_base + 8, now);
		}
		int sent;
		if (gso && n > 1) {
			ssize_t r = send(c->fd, b.buf, (size_t)n * len, 0);
			sent = r < 0 ? -1 : (int)((size_t)r / len);
		} else if (batch == 1) { /* one datagram, one call (iperf3's job) */
			ssize_t r = send(c->fd, b.buf, len, 0);
			sent = r < 0 ? -1 : 1;
		} else {
			sent = sendmmsg(c->fd, b.msgs, n, 0);
		}
		if (sent < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			status = errno == EAGAIN ? ETIMEDOUT : errno;
			break;
		}
		seq += (unsigned)sent;
		c->st.bytes += (uint64_t)sent * len;
	}
	c->st.packets = seq;
	c->st.gso = gso;
	c->st.first_ns = start;
	c->st.last_ns = peak_time_now_ns();
	c->st.cpu_ns = net_thread_cpu_ns() - cpu0;
	free(b.buf);
	return status;
}

/* One ping: send seq, wait for its echo; 0 answered, 1 lost, else an errno. */
static int udp_ping_one(struct net_cli_conn *c, uint8_t *buf, uint64_t seq)
{
	size_t len = c->p->block_bytes;
	net_put_u64(buf, seq);
	net_put_u64(buf + 8, peak_time_now_ns());
	if (send(c->fd, buf, len, 0) < 0)
		return errno == EAGAIN ? ETIMEDOUT : errno;
	for (;;) {
		ssize_t r = recv(c->fd, buf, len, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 1 : errno;
		}
		if (r >= (ssize_t)NET_UDP_HEADER && net_get_u64(buf) == seq)
			return 0;
		/* An echo of an earlier ping that came back late: keep waiting. */
		c->st.reordered++;
	}
}

static int udp_ping(struct net_cli_conn *c)
{
	const struct net_params *p = c->p;
	uint8_t *buf = calloc(1, p->block_bytes);
	if (buf == NULL)
		return ENOMEM;
	uint64_t cpu0 = net_thread_cpu_ns();
	uint64_t start = 0, end = UINT64_MAX;
	int status = 0;
	for (uint64_t i = 0;; i++) {
		if (i == p->warmup_msgs) {
			start = peak_time_now_ns();
			end = start + p->duration_ns;
		}
		uint64_t t0 = peak_time_now_ns();
		if (t0 >= end)
			break;
		int rc = udp_ping_one(c, buf, i);
		uint64_t t1 = peak_time_now_ns();
		if (rc > 1) {
			status = rc;
			break;
		}
		if (i < p->warmup_msgs)
			continue;
		c->st.packets++;
		if (rc == 1) {
			c->st.lost++;
			continue;
		}
		c->st.bytes += p->block_bytes;
		peak_hist_record(c->hist, t1 - t0);
	}
	c->st.first_ns = start;
	c->st.last_ns = peak_time_now_ns();
	c->st.cpu_ns = net_thread_cpu_ns() - cpu0;
	free(buf);
	return status;
}

static int udp_client_run(struct net_cli_conn *c)
{
	if (net_test_is_latency((enum net_test)c->p->test))
		return udp_ping(c);
	return udp_send(c);
}

const struct net_proto net_proto_udp = {
    .name = "udp",
    .server_open = udp_server_open,
    .server_attach = udp_server_attach,
    .server_run = udp_server_run,
    .server_close = udp_server_close,
    .client_open = udp_client_open,
    .client_run = udp_client_run,
    .needs_done = true,
};
