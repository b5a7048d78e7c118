/* The metadata client (peak_cloud_metadata.h, docs/cloud.md): one exchange with the provider's
 * link-local service over plain sockets, the whole of it (connect, AWS's token, the
 * answer) within PEAK_CLOUD_METADATA_BUDGET_MS, no retries. The paths and headers are the
 * providers' documented ones: AWS IMDSv2, GCE's computeMetadata/v1, Azure IMDS, the
 * EC2-compatible path OpenStack Nova serves, Oracle's opc/v2. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "peak_cloud_metadata.h"
#include "peak_path.h"

#define ANSWER_MAX 4096

struct client {
	struct timespec deadline;
	char why[160];
};

/* Each provider's one question: method, path, the header the service requires (AWS's GET
 * carries the token instead), and how to read the answer. */
struct question {
	const char *provider;
	const char *path;
	const char *header;
	bool last_path_part; /* GCE answers "projects/N/machineTypes/TYPE" */
};

static const struct question questions[] = {
    {"aws", "/latest/meta-data/instance-type", NULL, false},
    {"gce", "/computeMetadata/v1/instance/machine-type", "Metadata-Flavor: Google", true},
    {"azure", "/metadata/instance/compute/vmSize?api-version=2021-02-01&format=text",
     "Metadata: true", false},
    {"openstack", "/latest/meta-data/instance-type", NULL, false},
    {"oracle", "/opc/v2/instance/shape", "Authorization: Bearer Oracle", false},
};

static const struct question *question_for(const char *provider)
{
	for (size_t i = 0; i < sizeof questions / sizeof questions[0]; i++)
		if (strcmp(questions[i].provider, provider) == 0)
			return &questions[i];
	return NULL;
}

bool peak_cloud_metadata_supported(const char *provider)
{
	return question_for(provider) != NULL;
}

/* Milliseconds left before the deadline (0 when past it). */
static int ms_left(const struct client *cl)
{
	struct timespec now;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	long long ms = (long long)(cl->deadline.tv_sec - now.tv_sec) * 1000 +
		       (cl->deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms > 0 ? (int)ms : 0;
}

/* Wait for events on fd until the deadline. Returns 0, or -1 with why set. */
static int wait_fd(struct client *cl, int fd, short events, const char *what)
{
	for (;;) {
		int left = ms_left(cl);
		struct pollfd p = {.fd = fd, .events = events};
		int rc = left > 0 ? poll(&p, 1, left) : 0;
		if (rc > 0)
			return 0;
		if (rc < 0 && errno == EINTR)
			continue;
		(void)peak_fmt(cl->why, sizeof cl->why, "%s: %s", what,
			       rc == 0 ? "timed out (no answer within the budget)"
				       : strerror(errno));
		return -1;
	}
}

static int connect_service(struct client *cl)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		(void)peak_fmt(cl->why, sizeof cl->why, "socket: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(80)};
	(void)inet_pton(AF_INET, PEAK_CLOUD_METADATA_ADDR, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
		(void)peak_fmt(cl->why, sizeof cl->why, "connect %s: %s", PEAK_CLOUD_METADATA_ADDR,
			       strerror(errno));
		(void)close(fd);
		return -1;
	}
	int err = 0;
	socklen_t len = sizeof err;
	if (wait_fd(cl, fd, POLLOUT, "connect") != 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
		if (err)
			(void)peak_fmt(cl->why, sizeof cl->why, "connect %s: %s",
				       PEAK_CLOUD_METADATA_ADDR, strerror(err));
		(void)close(fd);
		return -1;
	}
	return fd;
}

static int send_all(struct client *cl, int fd, const char *buf, size_t len)
{
	while (len > 0) {
		if (wait_fd(cl, fd, POLLOUT, "sending") != 0)
			return -1;
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			(void)peak_fmt(cl->why, sizeof cl->why, "sending: %s", strerror(errno));
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* True when buf (used bytes) holds the headers and the whole body their Content-Length
 * announces: a service that keeps the connection open past Connection: close costs
 * nothing then. */
static bool answer_complete(char *buf, size_t used)
{
	buf[used] = '\0';
	const char *end = strstr(buf, "\r\n\r\n");
	const char *cl = strcasestr(buf, "\r\nContent-Length:");
	if (!end || !cl || cl > end)
		return false;
	char *after;
	unsigned long n = strtoul(cl + strlen("\r\nContent-Length:"), &after, 10);
	return after != cl + strlen("\r\nContent-Length:") && used - (size_t)(end + 4 - buf) >= n;
}

/* The whole answer (until the service closes, or the body its Content-Length announces)
 * into buf, NUL-terminated. Returns its length, or -1 (timed out, reset, or longer than
 * an instance type's answer can be: garbage). */
static long recv_all(struct client *cl, int fd, char *buf, size_t cap)
{
	size_t used = 0;
	while (used == 0 || !answer_complete(buf, used)) {
		if (wait_fd(cl, fd, POLLIN, "waiting for the answer") != 0)
			return -1;
		ssize_t n = recv(fd, buf + used, cap - 1 - used, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			(void)peak_fmt(cl->why, sizeof cl->why, "receiving: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used == cap - 1) {
			(void)peak_fmt(cl->why, sizeof cl->why, "garbage: an answer over %zu bytes",
				       cap - 1);
			return -1;
		}
	}
	buf[used] = '\0';
	return (long)used;
}

/* "Transfer-Encoding: chunked" body decoded in place; false when it does not parse. */
static bool unchunk(char *body)
{
	char *in = body, *out = body;
	for (;;) {
		char *end;
		unsigned long n = strtoul(in, &end, 16);
		char *eol = strstr(in, "\r\n");
		if (end == in || !eol)
			return false;
		if (n == 0)
			break;
		in = eol + 2;
		if (strlen(in) < n)
			return false;
		memmove(out, in, n);
		out += n;
		in += n;
		if (strncmp(in, "\r\n", 2) == 0)
			in += 2;
	}
	*out = '\0';
	return true;
}

/* Status line, headers, body: the body of a 200 answer, trimmed, in place. Returns it, or
 * NULL with why set. */
static char *answer_body(struct client *cl, char *resp, long len, const char *what)
{
	int status = 0;
	if ((size_t)len != strlen(resp) || sscanf(resp, "HTTP/1.%*1[01] %3d", &status) != 1) {
		(void)peak_fmt(cl->why, sizeof cl->why, "garbage: %s got no HTTP answer", what);
		return NULL;
	}
	char *body = strstr(resp, "\r\n\r\n");
	if (!body) {
		(void)peak_fmt(cl->why, sizeof cl->why,
			       "garbage: %s's answer has no end of headers", what);
		return NULL;
	}
	*body = '\0';
	body += 4;
	if (status != 200) {
		(void)peak_fmt(cl->why, sizeof cl->why, "%s: HTTP %d", what, status);
		return NULL;
	}
	const char *length = strcasestr(resp, "\r\nContent-Length:");
	if (length) { /* nothing past the length announced */
		unsigned long n = strtoul(length + strlen("\r\nContent-Length:"), NULL, 10);
		if (n < strlen(body))
			body[n] = '\0';
	}
	if (strcasestr(resp, "\r\nTransfer-Encoding: chunked") && !unchunk(body)) {
		(void)peak_fmt(cl->why, sizeof cl->why, "garbage: %s's chunks do not parse", what);
		return NULL;
	}
	while (*body == ' ' || *body == '\r' || *body == '\n' || *body == '\t')
		body++;
	size_t n = strlen(body);
	while (n > 0 && (body[n - 1] == ' ' || body[n - 1] == '\r' || body[n - 1] == '\n' ||
			 body[n - 1] == '\t'))
		body[--n] = '\0';
	return body;
}

/* One HTTP/1.1 request (Connection: close) and its answer's body, in resp. */
static char *http(struct client *cl, const char *method, const char *path, const char *header,
		  char *resp, size_t cap)
{
	char req[768], what[96];
	(void)peak_fmt(what, sizeof what, "%s %.60s", method, path);
	if (!peak_fmt(req, sizeof req,
		      "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: peakbench\r\n%s%s"
		      "Connection: close\r\n%s\r\n",
		      method, path, PEAK_CLOUD_METADATA_ADDR, header ? header : "",
		      header ? "\r\n" : "",
		      strcmp(method, "PUT") == 0 ? "Content-Length: 0\r\n" : "")) {
		(void)peak_fmt(cl->why, sizeof cl->why, "%s: the request is too long", what);
		return NULL;
	}
	int fd = connect_service(cl);
	if (fd < 0)
		return NULL;
	long n = -1;
	if (send_all(cl, fd, req, strlen(req)) == 0)
		n = recv_all(cl, fd, resp, cap);
	(void)close(fd);
	return n < 0 ? NULL : answer_body(cl, resp, n, what);
}

/* AWS IMDSv2: PUT a token (its TTL header), then GET with it. */
static char *aws_type(struct client *cl, const struct question *q, char *resp, size_t cap)
{
	char token_answer[512], header[400];
	const char *token =
	    http(cl, "PUT", "/latest/api/token", "X-aws-ec2-metadata-token-ttl-seconds: 60",
		 token_answer, sizeof token_answer);
	if (!token)
		return NULL;
	/* A token is base64: anything else (a line break above all) is not sent back. */
	size_t n = strlen(token);
	bool ok = n > 0 && n < 300;
	for (size_t i = 0; ok && i < n; i++)
		ok = (token[i] >= 'A' && token[i] <= 'Z') || (token[i] >= 'a' && token[i] <= 'z') ||
		     (token[i] >= '0' && token[i] <= '9') || strchr("+/=-_", token[i]);
	if (!ok) {
		(void)peak_fmt(cl->why, sizeof cl->why, "garbage: the IMDSv2 token is not base64");
		return NULL;
	}
	(void)peak_fmt(header, sizeof header, "X-aws-ec2-metadata-token: %s", token);
	return http(cl, "GET", q->path, header, resp, cap);
}

int peak_cloud_metadata_ask(const char *provider, char *type_out, size_t type_len,
			    const char **path, char *why, size_t why_len)
{
	const struct question *q = question_for(provider);
	if (!q) {
		(void)peak_fmt(why, why_len, "no metadata client for %s", provider);
		return -1;
	}
	struct client cl = {.why = ""};
	(void)clock_gettime(CLOCK_MONOTONIC, &cl.deadline);
	cl.deadline.tv_nsec += (long)PEAK_CLOUD_METADATA_BUDGET_MS * 1000000L;
	cl.deadline.tv_sec += cl.deadline.tv_nsec / 1000000000L;
	cl.deadline.tv_nsec %= 1000000000L;

	char resp[ANSWER_MAX];
	char *type = strcmp(q->provider, "aws") == 0
			 ? aws_type(&cl, q, resp, sizeof resp)
			 : http(&cl, "GET", q->path, q->header, resp, sizeof resp);
	if (type && q->last_path_part && strrchr(type, '/'))
		type = strrchr(type, '/') + 1;
	if (type && !peak_cloud_type_plausible(type, type_len)) {
		(void)peak_fmt(cl.why, sizeof cl.why,
			       "garbage: the answer is not an instance type");
		type = NULL;
	}
	if (!type) {
		(void)peak_fmt(why, why_len, "%s %s: %s, the instance type stays unknown", provider,
			       PEAK_CLOUD_METADATA_ADDR, cl.why);
		return -1;
	}
	(void)peak_fmt(type_out, type_len, "%s", type);
	*path = q->path;
	return 0;
}
