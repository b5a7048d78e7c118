/* netbench's server: accept loop, sessions (handshake, then tests until BYE) and the
 * receiver threads of one test. Every read from a client has a deadline and every size
 * it sends is capped, so garbage, stalls and absurd requests end that session only. */
#define _GNU_SOURCE
#include "net_server.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "net_proto.h"
#include "net_wire.h"

struct net_server {
	struct net_server_cfg cfg;
	int listen_fd;
	int wake[2];
	char addr[64];
	uint16_t port;
	pthread_mutex_t lock;
	pthread_cond_t idle;
	unsigned active;
	int *session_fds; /* max_sessions slots, -1 when free: shut down on destroy */
};

struct session {
	struct net_server *srv;
	int fd;
	int slot;
	char who[80];
};

static void slog(const struct net_server *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void slog(const struct net_server *s, const char *fmt, ...)
{
	if (s->cfg.quiet)
		return;
	char line[400];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line) /* cut: show it, as peak_fmt does */
		memcpy(line + sizeof line - 4, "...", 4);
	fprintf(stderr, "netbench server: %s\n", line);
}

struct net_server *net_server_start(const struct net_server_cfg *cfg, char *err, size_t err_len)
{
	struct net_server *s = calloc(1, sizeof *s);
	if (s == NULL) {
		snprintf(err, err_len, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	s->listen_fd = -1;
	s->wake[0] = s->wake[1] = -1;
	s->session_fds = malloc(sizeof(int) * cfg->max_sessions);
	if (s->session_fds == NULL || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
		snprintf(err, err_len, "server setup: %s", strerror(errno));
		goto fail;
	}
	for (unsigned i = 0; i < cfg->max_sessions; i++)
		s->session_fds[i] = -1;
	struct sockaddr_storage ss;
	socklen_t len;
	if (net_resolve(cfg->bind_host, cfg->port, SOCK_STREAM, &ss, &len, err, err_len) != 0)
		goto fail;
	s->listen_fd = net_bind((struct sockaddr *)&ss, len, SOCK_STREAM, err, err_len);
	if (s->listen_fd < 0)
		goto fail;
	s->port = net_local_port(s->listen_fd);
	net_addr_text((struct sockaddr *)&ss, s->addr, sizeof s->addr);
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->idle, NULL);
	return s;
fail:
	if (s->wake[0] >= 0) {
		close(s->wake[0]);
		close(s->wake[1]);
	}
	free(s->session_fds);
	free(s);
	return NULL;
}

uint16_t net_server_port(const struct net_server *s)
{
	return s->port;
}

const char *net_server_addr(const struct net_server *s)
{
	return s->addr;
}

/* ---- one test ---- */

struct recv_arg {
	struct net_srv_test *t;
	const struct net_proto *proto;
	uint32_t index;
	struct net_conn_stats st;
	pthread_t tid;
};

static void *recv_thread(void *p)
{
	struct recv_arg *a = p;
	uint64_t cpu0 = net_thread_cpu_ns();
	int rc = a->proto->server_run(a->t, a->index, &a->st);
	a->st.cpu_ns = net_thread_cpu_ns() - cpu0;
	a->st.status = (uint32_t)rc;
	if (rc != 0)
		atomic_store(&a->t->stop, 1);
	return NULL;
}

static int send_ready(int fd, const struct net_srv_test *t, uint32_t nports)
{
	uint8_t buf[12 + 2 * NET_MAX_CONNS];
	net_put_u64(buf, t->cookie);
	net_put_u32(buf + 8, nports);
	for (uint32_t i = 0; i < nports; i++)
		net_put_u16(buf + 12 + 2 * i, t->ports[i]);
	return net_msg_send(fd, NET_MSG_READY, buf, 12 + 2 * nports, t->p.timeout_ms);
}

/* Read a message of the expected type whose payload is n u16 or u64 items. */
static int recv_list(struct session *ss, uint16_t want, uint32_t n, size_t item,
		     uint32_t timeout_ms, uint8_t *buf, char *err, size_t err_len)
{
	uint16_t type;
	uint32_t len;
	if (net_msg_recv(ss->fd, &type, buf, NET_MAX_PAYLOAD, &len, timeout_ms, err, err_len) != 0)
		return -1;
	if (type != want || len != 4 + n * item || net_get_u32(buf) != n) {
		snprintf(err, err_len, "unexpected message type %u (%u bytes)", (unsigned)type,
			 (unsigned)len);
		return -1;
	}
	return 0;
}

/* Wait for DONE (udp): the sender's counts, then release the receivers. */
static int wait_done(struct session *ss, struct net_srv_test *t, uint8_t *buf, char *err,
		     size_t err_len)
{
	uint64_t wait_ns = t->p.total_bytes ? NET_MAX_DURATION_NS : t->p.duration_ns;
	uint64_t wait_ms = wait_ns / 1000000ull + t->p.timeout_ms + 1000u;
	if (wait_ms > 0xffffffffull)
		wait_ms = 0xffffffffull;
	int rc = recv_list(ss, NET_MSG_DONE, t->p.nconns, 8, (uint32_t)wait_ms, buf, err, err_len);
	if (rc == 0) {
		for (uint32_t i = 0; i < t->p.nconns; i++)
			t->sent[i] = net_get_u64(buf + 4 + 8 * i);
		atomic_store_explicit(&t->done, 1, memory_order_release);
	} else {
		atomic_store(&t->stop, 1);
	}
	return rc;
}

static int send_result(int fd, const struct net_srv_test *t, const struct recv_arg *args)
{
	uint8_t buf[4 + NET_STATS_BYTES * NET_MAX_CONNS];
	net_put_u32(buf, t->p.nconns);
	for (uint32_t i = 0; i < t->p.nconns; i++)
		net_stats_pack(&args[i].st, buf + 4 + NET_STATS_BYTES * i);
	return net_msg_send(fd, NET_MSG_RESULT, buf, 4 + NET_STATS_BYTES * t->p.nconns,
			    t->p.timeout_ms);
}

/* Start, wait for and report the receivers. */
static int run_receivers(struct session *ss, struct net_srv_test *t, const struct net_proto *proto,
			 uint8_t *buf, char *err, size_t err_len)
{
	struct recv_arg *args = calloc(t->p.nconns, sizeof *args);
	if (args == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	uint32_t started = 0;
	for (; started < t->p.nconns; started++) {
		args[started] = (struct recv_arg){.t = t, .proto = proto, .index = started};
		if (pthread_create(&args[started].tid, NULL, recv_thread, &args[started]) != 0)
			break;
	}
	int rc = 0;
	if (started < t->p.nconns) {
		snprintf(err, err_len, "cannot start %u receiver threads", (unsigned)t->p.nconns);
		atomic_store(&t->stop, 1);
		rc = -1;
	} else if (proto->needs_done) {
		rc = wait_done(ss, t, buf, err, err_len);
	}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(args[i].tid, NULL);
	if (rc == 0 && send_result(ss->fd, t, args) != 0) {
		snprintf(err, err_len, "sending the result: %s", strerror(errno));
		rc = -1;
	}
	free(args);
	return rc;
}

static int run_test(struct session *ss, const uint8_t *payload, uint32_t len, uint8_t *buf,
		    char *err, size_t err_len)
{
	struct net_srv_test *t = calloc(1, sizeof *t);
	if (t == NULL) {
		snprintf(err, err_len, "out of memory");
		return -1;
	}
	t->listen_fd = -1;
	for (uint32_t i = 0; i < NET_MAX_CONNS; i++)
		t->fds[i] = -1;
	const struct net_proto *proto = NULL;
	int rc = -1;
	if (len != NET_PARAMS_BYTES) {
		snprintf(err, err_len, "TEST message of %u bytes, expected %u", (unsigned)len,
			 NET_PARAMS_BYTES);
		goto out;
	}
	net_params_unpack(payload, &t->p);
	char reason[160];
	if (net_params_check(&t->p, reason, sizeof reason) != 0) {
		snprintf(err, err_len, "refused test: %s", reason);
		goto out;
	}
	proto = net_proto_for((enum net_test)t->p.test);
	t->bind_len = sizeof t->bind;
	t->peer_len = sizeof t->peer;
	if (getsockname(ss->fd, (struct sockaddr *)&t->bind, &t->bind_len) != 0 ||
	    getpeername(ss->fd, (struct sockaddr *)&t->peer, &t->peer_len) != 0 ||
	    getrandom(&t->cookie, sizeof t->cookie, 0) != (ssize_t)sizeof t->cookie) {
		snprintf(err, err_len, "session addresses: %s", strerror(errno));
		goto out;
	}
	if (proto->server_open(t, err, err_len) != 0)
		goto out;
	if (send_ready(ss->fd, t, proto->needs_done ? t->p.nconns : 1) != 0) {
		snprintf(err, err_len, "sending READY: %s", strerror(errno));
		goto out;
	}
	uint16_t client_ports[NET_MAX_CONNS] = {0};
	if (proto->needs_done) {
		if (recv_list(ss, NET_MSG_PORTS, t->p.nconns, 2, t->p.timeout_ms, buf, err,
			      err_len) != 0)
			goto out;
		for (uint32_t i = 0; i < t->p.nconns; i++)
			client_ports[i] = net_get_u16(buf + 4 + 2 * i);
	}
	if (proto->server_attach(t, client_ports, err, err_len) != 0)
		goto out;
	rc = run_receivers(ss, t, proto, buf, err, err_len);
out:
	if (rc != 0)
		net_msg_send_error(ss->fd, err, 1000);
	if (proto != NULL)
		proto->server_close(t);
	free(t);
	return rc;
}

/* ---- sessions ---- */

static int handshake(struct session *ss, uint8_t *buf, char *err, size_t err_len)
{
	uint16_t type;
	uint32_t len;
	uint32_t timeout = ss->srv->cfg.timeout_ms;
	if (net_msg_recv(ss->fd, &type, buf, NET_MAX_PAYLOAD, &len, timeout, err, err_len) != 0)
		return -1;
	if (type != NET_MSG_HELLO) {
		snprintf(err, err_len, "expected HELLO, got message type %u", (unsigned)type);
		return -1;
	}
	return net_msg_send(ss->fd, NET_MSG_HELLO, NULL, 0, timeout);
}

static void session_loop(struct session *ss)
{
	char err[256] = "";
	uint8_t *buf = malloc(NET_MAX_PAYLOAD);
	if (buf == NULL)
		return;
	int one = 1;
	(void)setsockopt(ss->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (handshake(ss, buf, err, sizeof err) != 0) {
		slog(ss->srv, "%s: handshake: %s", ss->who, err);
		net_msg_send_error(ss->fd, err, 100);
		goto out;
	}
	for (;;) {
		uint16_t type;
		uint32_t len;
		if (net_msg_recv(ss->fd, &type, buf, NET_MAX_PAYLOAD, &len, ss->srv->cfg.idle_ms,
				 err, sizeof err) != 0) {
			if (strstr(err, "closed by peer") == NULL)
				slog(ss->srv, "%s: %s", ss->who, err);
			break;
		}
		if (type == NET_MSG_BYE)
			break;
		if (type != NET_MSG_TEST) {
			snprintf(err, sizeof err, "expected TEST, got message type %u",
				 (unsigned)type);
			slog(ss->srv, "%s: %s", ss->who, err);
			net_msg_send_error(ss->fd, err, 100);
			break;
		}
		uint8_t params[NET_PARAMS_BYTES];
		memcpy(params, buf, len < sizeof params ? len : sizeof params);
		if (run_test(ss, params, len, buf, err, sizeof err) != 0) {
			slog(ss->srv, "%s: test failed: %s", ss->who, err);
			break;
		}
	}
out:
	free(buf);
}

/* Close without a reset: closing a socket with unread bytes sends RST, which can destroy
 * the ERROR message we just sent before the client reads it. So stop writing, discard
 * what the client still sends (bounded in bytes and time), then close. */
static void linger_close(int fd)
{
	uint8_t sink[4096];
	uint64_t deadline = net_deadline(200);
	(void)shutdown(fd, SHUT_WR);
	for (int i = 0; i < 64; i++) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, net_ms_left(deadline)) <= 0)
			break;
		if (recv(fd, sink, sizeof sink, MSG_DONTWAIT) <= 0)
			break;
	}
}

static void *session_thread(void *p)
{
	struct session *ss = p;
	struct net_server *s = ss->srv;
	session_loop(ss);
	linger_close(ss->fd);
	pthread_mutex_lock(&s->lock);
	s->session_fds[ss->slot] = -1;
	close(ss->fd);
	s->active--;
	pthread_cond_broadcast(&s->idle);
	pthread_mutex_unlock(&s->lock);
	free(ss);
	return NULL;
}

/* Hand an accepted connection to a new session thread (or refuse it when full). */
static void start_session(struct net_server *s, int fd, const struct sockaddr_storage *peer)
{
	char text[64];
	struct session *ss = calloc(1, sizeof *ss);
	if (ss == NULL) {
		close(fd);
		return;
	}
	ss->srv = s;
	ss->fd = fd;
	snprintf(ss->who, sizeof ss->who, "%s port %u",
		 net_addr_text((const struct sockaddr *)peer, text, sizeof text),
		 (unsigned)net_sockaddr_port((const struct sockaddr *)peer));
	pthread_mutex_lock(&s->lock);
	ss->slot = -1;
	for (unsigned i = 0; i < s->cfg.max_sessions; i++) {
		if (s->session_fds[i] < 0) {
			ss->slot = (int)i;
			break;
		}
	}
	if (ss->slot < 0) {
		pthread_mutex_unlock(&s->lock);
		slog(s, "%s: refused, %u sessions already running", ss->who, s->cfg.max_sessions);
		net_msg_send_error(fd, "server busy: too many sessions", 100);
		close(fd);
		free(ss);
		return;
	}
	s->session_fds[ss->slot] = fd;
	s->active++;
	pthread_attr_t attr;
	pthread_t tid;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&tid, &attr, session_thread, ss);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		s->session_fds[ss->slot] = -1;
		s->active--;
		pthread_mutex_unlock(&s->lock);
		close(fd);
		free(ss);
		return;
	}
	pthread_mutex_unlock(&s->lock);
}

int net_server_run(struct net_server *s, int stop_fd)
{
	for (;;) {
		struct pollfd pfd[3] = {
		    {.fd = s->listen_fd, .events = POLLIN},
		    {.fd = s->wake[0], .events = POLLIN},
		    {.fd = stop_fd, .events = POLLIN},
		};
		int rc = poll(pfd, stop_fd >= 0 ? 3 : 2, -1);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (pfd[1].revents != 0 || (stop_fd >= 0 && pfd[2].revents != 0))
			return 0;
		if (pfd[0].revents == 0)
			continue;
		struct sockaddr_storage peer;
		socklen_t plen = sizeof peer;
		int fd = accept4(s->listen_fd, (struct sockaddr *)&peer, &plen, SOCK_CLOEXEC);
		if (fd < 0)
			continue; /* ECONNABORTED, EMFILE...: keep serving */
		start_session(s, fd, &peer);
	}
}

void net_server_stop(struct net_server *s)
{
	(void)!write(s->wake[1], "x", 1);
}

void net_server_destroy(struct net_server *s)
{
	if (s == NULL)
		return;
	close(s->listen_fd);
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < s->cfg.max_sessions; i++) {
		if (s->session_fds[i] >= 0)
			(void)shutdown(s->session_fds[i], SHUT_RDWR);
	}
	while (s->active > 0)
		pthread_cond_wait(&s->idle, &s->lock);
	pthread_mutex_unlock(&s->lock);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->idle);
	close(s->wake[0]);
	close(s->wake[1]);
	free(s->session_fds);
	free(s);
}
