/* netbench's client: handshake, one test repetition over the control connection, and the
 * team threads that drive the data connections. */
#define _GNU_SOURCE
#include "net_client.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net_wire.h"

/* RESULT may follow the last data by the server's UDP drain (<= 0.5 s) and more. */
#define RESULT_SLACK_MS 3000u

int net_client_connect(struct net_client *c, const char *host, uint16_t port, uint32_t timeout_ms,
		       char *err, size_t err_len)
{
	c->ctl = -1;
	c->timeout_ms = timeout_ms;
	if (net_resolve(host, port, SOCK_STREAM, &c->addr, &c->addr_len, err, err_len) != 0)
		return -1;
	c->ctl = net_connect((struct sockaddr *)&c->addr, c->addr_len, SOCK_STREAM, timeout_ms, err,
			     err_len);
	if (c->ctl < 0)
		return -1;
	int one = 1;
	(void)setsockopt(c->ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	uint8_t buf[NET_ERROR_MAX + 1];
	uint16_t type;
	uint32_t len;
	char why[200] = "";
	errno = 0;
	if (net_msg_send(c->ctl, NET_MSG_HELLO, NULL, 0, timeout_ms) != 0 ||
	    net_msg_recv(c->ctl, &type, buf, NET_ERROR_MAX, &len, timeout_ms, why, sizeof why) !=
		0) {
		if (errno != 0 && why[0] == '\0')
			snprintf(why, sizeof why, "%s", strerror(errno));
		snprintf(err, err_len, "handshake with %s port %u failed: %s", host ? host : "",
			 (unsigned)port, why);
		goto fail;
	}
	if (type != NET_MSG_HELLO) {
		buf[len] = '\0';
		snprintf(err, err_len, "server refused the session: %s",
			 type == NET_MSG_ERROR ? (const char *)buf : "unexpected reply");
		goto fail;
	}
	return 0;
fail:
	close(c->ctl);
	c->ctl = -1;
	return -1;
}

void net_client_close(struct net_client *c)
{
	if (c->ctl < 0)
		return;
	(void)net_msg_send(c->ctl, NET_MSG_BYE, NULL, 0, 200);
	close(c->ctl);
	c->ctl = -1;
}

/* Receive the expected message; an ERROR from the server becomes err. */
static int expect(struct net_client *c, uint16_t want, uint8_t *buf, uint32_t *len,
		  uint32_t timeout_ms, char *err, size_t err_len)
{
	uint16_t type;
	char why[200];
	if (net_msg_recv(c->ctl, &type, buf, NET_MAX_PAYLOAD - 1, len, timeout_ms, why,
			 sizeof why) != 0) {
		snprintf(err, err_len, "server: %s", why);
		return -1;
	}
	if (type == NET_MSG_ERROR) {
		buf[*len] = '\0';
		snprintf(err, err_len, "server: %s", (const char *)buf);
		return -1;
	}
	if (type != want) {
		snprintf(err, err_len, "server sent message type %u, expected %u", (unsigned)type,
			 (unsigned)want);
		return -1;
	}
	return 0;
}

static int send_list(struct net_client *c, uint16_t type, const struct net_cli_conn *conns,
		     uint32_t n)
{
	uint8_t buf[4 + 8 * NET_MAX_CONNS];
	size_t item = type == NET_MSG_PORTS ? 2 : 8;
	net_put_u32(buf, n);
	for (uint32_t i = 0; i < n; i++) {
		if (type == NET_MSG_PORTS)
			net_put_u16(buf + 4 + 2 * i, conns[i].local_port);
		else
			net_put_u64(buf + 4 + 8 * i, conns[i].st.packets);
	}
	return net_msg_send(c->ctl, type, buf, (uint32_t)(4 + item * n), c->timeout_ms);
}

static int conn_thread(void *arg, unsigned idx, unsigned n)
{
	(void)n;
	struct net_cli_conn *conns = arg;
	const struct net_proto *proto = net_proto_for((enum net_test)conns[idx].p->test);
	int rc = proto->client_run(&conns[idx]);
	conns[idx].st.status = (uint32_t)rc;
	return 0; /* per-connection status is reported, not a team failure */
}

/* Open every data connection; READY's ports are checked against the test. */
static int open_conns(struct net_client *c, const struct net_params *p, const uint8_t *ready,
		      uint32_t len, struct net_cli_conn *conns, char *err, size_t err_len)
{
	const struct net_proto *proto = net_proto_for((enum net_test)p->test);
	uint32_t want = proto->needs_done ? p->nconns : 1;
	if (len < 12 || net_get_u32(ready + 8) != want || len != 12 + 2 * want) {
		snprintf(err, err_len, "server sent a malformed READY");
		return -1;
	}
	uint64_t cookie = net_get_u64(ready);
	for (uint32_t i = 0; i < p->nconns; i++) {
		uint16_t port = net_get_u16(ready + 12 + 2 * (want == 1 ? 0 : i));
		if (proto->client_open(&conns[i], (struct sockaddr *)&c->addr, c->addr_len, port,
				       cookie, err, err_len) != 0)
			return -1;
	}
	if (proto->needs_done && send_list(c, NET_MSG_PORTS, conns, p->nconns) != 0) {
		snprintf(err, err_len, "sending ports: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int collect(struct net_client *c, const struct net_params *p, struct net_cli_conn *conns,
		   struct net_rep *rep, uint8_t *buf, char *err, size_t err_len)
{
	const struct net_proto *proto = net_proto_for((enum net_test)p->test);
	uint32_t len;
	int rc = 0;
	/* A data connection that failed decides the repetition (its error is the one reported,
	 * RESULT or not), and a server gone silent would never send RESULT: no wait for it then
	 * (a stopped server cost --timeout plus the slack, 7 s, for nothing). */
	for (uint32_t i = 0; i < p->nconns; i++) {
		if (conns[i].st.status != 0) {
			snprintf(err, err_len, "connection %u: %s (server gone?)", (unsigned)i,
				 strerror((int)conns[i].st.status));
			return -1;
		}
	}
	if (proto->needs_done && send_list(c, NET_MSG_DONE, conns, p->nconns) != 0) {
		snprintf(err, err_len, "sending DONE: %s", strerror(errno));
		rc = -1;
	}
	if (rc == 0)
		rc = expect(c, NET_MSG_RESULT, buf, &len, c->timeout_ms + RESULT_SLACK_MS, err,
			    err_len);
	if (rc != 0)
		return -1;
	if (len != 4 + NET_STATS_BYTES * p->nconns || net_get_u32(buf) != p->nconns) {
		snprintf(err, err_len, "server sent a malformed RESULT");
		return -1;
	}
	rep->nconns = p->nconns;
	for (uint32_t i = 0; i < p->nconns; i++) {
		net_stats_unpack(buf + 4 + NET_STATS_BYTES * i, &rep->rcv[i]);
		rep->snd[i] = conns[i].st;
	}
	for (uint32_t i = 0; i < p->nconns; i++) {
		uint32_t st = rep->rcv[i].status; /* (the client's side of each was 0: above) */
		if (st != 0) {
			snprintf(err, err_len, "connection %u: %s", (unsigned)i, strerror((int)st));
			return -1;
		}
	}
	return 0;
}

int net_client_run(struct net_client *c, const struct net_params *p, struct peak_team *team,
		   struct net_rep *rep, struct peak_hist *hist, char *err, size_t err_len)
{
	int rc = -1;
	uint8_t *buf = malloc(NET_MAX_PAYLOAD);
	struct net_cli_conn *conns = calloc(p->nconns, sizeof *conns);
	if (buf == NULL || conns == NULL) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < p->nconns; i++) {
		conns[i] = (struct net_cli_conn){.p = p, .index = i, .fd = -1};
		if (hist != NULL && (conns[i].hist = malloc(sizeof *conns[i].hist)) == NULL) {
			snprintf(err, err_len, "out of memory");
			goto out;
		}
		if (conns[i].hist != NULL)
			peak_hist_init(conns[i].hist);
	}
	uint8_t params[NET_PARAMS_BYTES];
	net_params_pack(p, params);
	uint32_t len;
	if (net_msg_send(c->ctl, NET_MSG_TEST, params, sizeof params, c->timeout_ms) != 0) {
		snprintf(err, err_len, "sending the test: %s", strerror(errno));
		goto out;
	}
	if (expect(c, NET_MSG_READY, buf, &len, c->timeout_ms, err, err_len) != 0 ||
	    open_conns(c, p, buf, len, conns, err, err_len) != 0)
		goto out;
	if (peak_team_run(team, conn_thread, conns, &rep->wall_ns, NULL) != 0) {
		snprintf(err, err_len, "thread team failed");
		goto out;
	}
	rc = collect(c, p, conns, rep, buf, err, err_len);
	for (uint32_t i = 0; rc == 0 && hist != NULL && i < p->nconns; i++)
		peak_hist_merge(hist, conns[i].hist);
out:
	for (uint32_t i = 0; conns != NULL && i < p->nconns; i++) {
		if (conns[i].fd >= 0)
			close(conns[i].fd);
		free(conns[i].hist);
	}
	free(conns);
	free(buf);
	return rc;
}
