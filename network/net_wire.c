/* netbench's wire: message framing, packing and socket helpers with deadlines. */
#define _GNU_SOURCE
#include "net_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "peak_time.h"

void net_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void net_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

void net_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

uint16_t net_get_u16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

uint32_t net_get_u32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v = v << 8 | p[i];
	return v;
}

uint64_t net_get_u64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

void net_params_pack(const struct net_params *p, uint8_t out[NET_PARAMS_BYTES])
{
	memset(out, 0, NET_PARAMS_BYTES);
	net_put_u32(out, p->test);
	net_put_u32(out + 4, p->nconns);
	net_put_u32(out + 8, p->block_bytes);
	net_put_u32(out + 12, p->warmup_msgs);
	net_put_u64(out + 16, p->total_bytes);
	net_put_u64(out + 24, p->duration_ns);
	net_put_u64(out + 32, p->rate_bps);
	net_put_u32(out + 40, p->timeout_ms);
	net_put_u32(out + 44, p->poll_recv); /* a peer from before it sends 0: off */
}

void net_params_unpack(const uint8_t in[NET_PARAMS_BYTES], struct net_params *p)
{
	p->test = net_get_u32(in);
	p->nconns = net_get_u32(in + 4);
	p->block_bytes = net_get_u32(in + 8);
	p->warmup_msgs = net_get_u32(in + 12);
	p->total_bytes = net_get_u64(in + 16);
	p->duration_ns = net_get_u64(in + 24);
	p->rate_bps = net_get_u64(in + 32);
	p->timeout_ms = net_get_u32(in + 40);
	p->poll_recv = net_get_u32(in + 44) != 0;
}

void net_stats_pack(const struct net_conn_stats *s, uint8_t out[NET_STATS_BYTES])
{
	const uint64_t f[] = {s->bytes,    s->packets, s->lost,   s->reordered, s->duplicated,
			      s->first_ns, s->last_ns, s->cpu_ns, s->retrans,   s->first_bytes};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		net_put_u64(out + 8 * i, f[i]);
	net_put_u32(out + 80, s->status);
	memset(out + 84, 0, NET_STATS_BYTES - 84);
}

void net_stats_unpack(const uint8_t in[NET_STATS_BYTES], struct net_conn_stats *s)
{
	uint64_t *f[] = {&s->bytes,    &s->packets, &s->lost,   &s->reordered, &s->duplicated,
			 &s->first_ns, &s->last_ns, &s->cpu_ns, &s->retrans,   &s->first_bytes};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		*f[i] = net_get_u64(in + 8 * i);
	s->status = net_get_u32(in + 80);
}

uint64_t net_deadline(uint32_t timeout_ms)
{
	return peak_time_now_ns() + (uint64_t)timeout_ms * 1000000ull;
}

int net_ms_left(uint64_t deadline_ns)
{
	uint64_t now = peak_time_now_ns();
	if (now >= deadline_ns)
		return 0;
	uint64_t ms = (deadline_ns - now + 999999ull) / 1000000ull;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* Wait until fd is ready for events or the deadline passes. */
static int wait_fd(int fd, short events, uint64_t deadline_ns)
{
	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = events};
		int left = net_ms_left(deadline_ns);
		if (left == 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		int rc = poll(&pfd, 1, left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

int net_read_full(int fd, void *buf, size_t n, uint64_t deadline_ns)
{
	uint8_t *p = buf;
	size_t got = 0;
	while (got < n) {
		if (wait_fd(fd, POLLIN, deadline_ns) != 0)
			return -1;
		ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);
		if (r > 0) {
			got += (size_t)r;
		} else if (r == 0) {
			errno = ENODATA;
			return -1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

int net_write_full(int fd, const void *buf, size_t n, uint64_t deadline_ns)
{
	const uint8_t *p = buf;
	size_t put = 0;
	while (put < n) {
		if (wait_fd(fd, POLLOUT, deadline_ns) != 0)
			return -1;
		ssize_t r = send(fd, p + put, n - put, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r >= 0)
			put += (size_t)r;
		else if (errno != EAGAIN && errno != EINTR)
			return -1;
	}
	return 0;
}

int net_msg_send(int fd, uint16_t type, const void *payload, uint32_t len, uint32_t timeout_ms)
{
	uint8_t hdr[NET_HEADER_BYTES];
	uint64_t deadline = net_deadline(timeout_ms);
	net_put_u32(hdr, NET_MAGIC);
	net_put_u16(hdr + 4, NET_VERSION);
	net_put_u16(hdr + 6, type);
	net_put_u32(hdr + 8, len);
	if (net_write_full(fd, hdr, sizeof hdr, deadline) != 0)
		return -1;
	if (len > 0 && net_write_full(fd, payload, len, deadline) != 0)
		return -1;
	return 0;
}

static const char *io_reason(void)
{
	switch (errno) {
	case ETIMEDOUT:
		return "timed out";
	case ENODATA:
		return "connection closed by peer";
	default:
		return strerror(errno);
	}
}

int net_msg_recv(int fd, uint16_t *type, void *payload, uint32_t cap, uint32_t *len,
		 uint32_t timeout_ms, char *err, size_t err_len)
{
	uint8_t hdr[NET_HEADER_BYTES];
	uint64_t deadline = net_deadline(timeout_ms);
	if (net_read_full(fd, hdr, sizeof hdr, deadline) != 0) {
		snprintf(err, err_len, "control message: %s", io_reason());
		return -1;
	}
	uint32_t magic = net_get_u32(hdr);
	uint16_t version = net_get_u16(hdr + 4);
	uint32_t n = net_get_u32(hdr + 8);
	if (magic != NET_MAGIC) {
		snprintf(err, err_len, "not a netbench peer (bad magic 0x%08x)", (unsigned)magic);
		return -1;
	}
	if (version != NET_VERSION) {
		snprintf(err, err_len, "protocol version %u, this netbench speaks %u",
			 (unsigned)version, NET_VERSION);
		return -1;
	}
	if (n > cap) {
		snprintf(err, err_len, "message of %u bytes exceeds the %u-byte limit", (unsigned)n,
			 (unsigned)cap);
		return -1;
	}
	if (n > 0 && net_read_full(fd, payload, n, deadline) != 0) {
		snprintf(err, err_len, "control message body: %s", io_reason());
		return -1;
	}
	*type = net_get_u16(hdr + 6);
	*len = n;
	return 0;
}

void net_msg_send_error(int fd, const char *text, uint32_t timeout_ms)
{
	size_t n = strnlen(text, NET_ERROR_MAX);
	(void)net_msg_send(fd, NET_MSG_ERROR, text, (uint32_t)n, timeout_ms);
}

int net_resolve(const char *host, uint16_t port, int socktype, struct sockaddr_storage *out,
		socklen_t *out_len, char *err, size_t err_len)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = socktype};
	struct addrinfo *res = NULL;
	char service[8];
	snprintf(service, sizeof service, "%u", (unsigned)port);
	if (host == NULL)
		host = "127.0.0.1";
	hints.ai_flags = AI_NUMERICSERV;
	int rc = getaddrinfo(host, service, &hints, &res);
	if (rc != 0 || res == NULL) {
		snprintf(err, err_len, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof *out) {
		freeaddrinfo(res);
		snprintf(err, err_len, "address of '%s' too long", host);
		return -1;
	}
	memset(out, 0, sizeof *out);
	memcpy(out, res->ai_addr, res->ai_addrlen);
	*out_len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int net_connect(const struct sockaddr *addr, socklen_t len, int socktype, uint32_t timeout_ms,
		char *err, size_t err_len)
{
	char text[INET6_ADDRSTRLEN];
	int fd = socket(addr->sa_family, socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return -1;
	}
	int rc = connect(fd, addr, len);
	if (rc != 0 && errno == EINPROGRESS) {
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		uint64_t deadline = net_deadline(timeout_ms);
		do {
			rc = poll(&pfd, 1, net_ms_left(deadline));
		} while (rc < 0 && errno == EINTR);
		if (rc == 0) {
			errno = ETIMEDOUT;
			rc = -1;
		} else if (rc > 0) {
			int so_err = 0;
			socklen_t sl = sizeof so_err;
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_err, &sl) != 0)
				so_err = errno;
			errno = so_err;
			rc = so_err == 0 ? 0 : -1;
		}
	}
	if (rc != 0) {
		snprintf(err, err_len, "cannot connect to %s port %u: %s",
			 net_addr_text(addr, text, sizeof text), (unsigned)net_sockaddr_port(addr),
			 strerror(errno));
		close(fd);
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
		snprintf(err, err_len, "fcntl: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int net_bind(const struct sockaddr *addr, socklen_t len, int socktype, char *err, size_t err_len)
{
	char text[INET6_ADDRSTRLEN];
	int fd = socket(addr->sa_family, socktype | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, err_len, "socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	if (socktype == SOCK_STREAM)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, addr, len) != 0) {
		int e = errno;
		snprintf(err, err_len, "cannot bind %s port %u: %s%s",
			 net_addr_text(addr, text, sizeof text), (unsigned)net_sockaddr_port(addr),
			 strerror(e), e == EADDRINUSE ? " (another server? pick --port)" : "");
		close(fd);
		return -1;
	}
	if (socktype == SOCK_STREAM && listen(fd, 128) != 0) {
		snprintf(err, err_len, "listen: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

uint16_t net_sockaddr_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)(const void *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
	return 0;
}

void net_sockaddr_set_port(struct sockaddr *sa, uint16_t port)
{
	if (sa->sa_family == AF_INET)
		((struct sockaddr_in *)(void *)sa)->sin_port = htons(port);
	else if (sa->sa_family == AF_INET6)
		((struct sockaddr_in6 *)(void *)sa)->sin6_port = htons(port);
}

uint16_t net_local_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return 0;
	return net_sockaddr_port((struct sockaddr *)&ss);
}

const char *net_addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const void *a = NULL;
	if (sa->sa_family == AF_INET)
		a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
	else if (sa->sa_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
	if (a == NULL || inet_ntop(sa->sa_family, a, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

int net_addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		uint32_t a = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
		return (a >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
		    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		if (IN6_IS_ADDR_LOOPBACK(a))
			return 1;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return 0;
}

int net_set_timeouts(int fd, uint32_t timeout_ms)
{
	struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
		return -1;
	return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}
