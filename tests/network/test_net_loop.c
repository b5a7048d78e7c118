/* netbench over loopback, in-process: TCP moves exactly the bytes asked, every latency
 * round trip comes back and is counted once, UDP accounting adds up, and the server
 * refuses absurd requests but keeps serving. Tiny sizes; no timing thresholds. */
#include "peak_cmocka.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net_client.h"
#include "net_proto.h"
#include "net_server.h"
#include "net_wire.h"
#include "peak_hist.h"
#include "peak_team.h"

struct fixture {
	struct net_server *srv;
	pthread_t tid;
	struct net_client cli;
};

static void *serve(void *arg)
{
	(void)net_server_run(arg, -1);
	return NULL;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	char err[256];
	const struct net_server_cfg cfg = {.bind_host = "127.0.0.1",
					   .timeout_ms = 2000,
					   .idle_ms = 10000,
					   .max_sessions = 4,
					   .quiet = true};
	if (f == NULL || (f->srv = net_server_start(&cfg, err, sizeof err)) == NULL)
		return -1;
	if (pthread_create(&f->tid, NULL, serve, f->srv) != 0)
		return -1;
	if (net_client_connect(&f->cli, "127.0.0.1", net_server_port(f->srv), 2000, err,
			       sizeof err) != 0) {
		print_error("%s\n", err);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	net_client_close(&f->cli);
	net_server_stop(f->srv);
	pthread_join(f->tid, NULL);
	net_server_destroy(f->srv);
	free(f);
	return 0;
}

static int run(struct fixture *f, const struct net_params *p, struct net_rep *rep,
	       struct peak_hist *h)
{
	char err[320];
	struct peak_team *team = peak_team_create(p->nconns, false, err, sizeof err);
	assert_non_null(team);
	int rc = net_client_run(&f->cli, p, team, rep, h, err, sizeof err);
	if (rc != 0)
		print_message("net_client_run: %s\n", err);
	peak_team_destroy(team);
	return rc;
}

static void tcp_exact_bytes(void **state)
{
	struct fixture *f = *state;
	const uint64_t totals[] = {1, 1000003, 3u << 20};
	for (size_t k = 0; k < 3; k++) {
		struct net_params p = {.test = NET_TEST_TCP_THROUGHPUT,
				       .nconns = 3,
				       .block_bytes = 1000,
				       .total_bytes = totals[k],
				       .timeout_ms = 2000};
		struct net_rep rep;
		assert_int_equal(run(f, &p, &rep, NULL), 0);
		uint64_t sum = 0;
		for (uint32_t i = 0; i < 3; i++) {
			assert_int_equal(rep.rcv[i].bytes, net_conn_share(totals[k], 3, i));
			assert_int_equal(rep.snd[i].bytes, rep.rcv[i].bytes);
			sum += rep.rcv[i].bytes;
		}
		assert_int_equal(sum, totals[k]);
	}
}

static void latency_returns_every_message(void **state)
{
	struct fixture *f = *state;
	const enum net_test tests[] = {NET_TEST_TCP_LATENCY, NET_TEST_UDP_LATENCY};
	for (size_t k = 0; k < 2; k++) {
		struct net_params p = {.test = tests[k],
				       .nconns = 2,
				       .block_bytes = 64,
				       .warmup_msgs = 10,
				       .duration_ns = 20000000ull,
				       .timeout_ms = 2000};
		struct peak_hist *h = malloc(sizeof *h);
		assert_non_null(h);
		peak_hist_init(h);
		struct net_rep rep;
		assert_int_equal(run(f, &p, &rep, h), 0);
		uint64_t answered = 0;
		for (uint32_t i = 0; i < 2; i++) {
			assert_true(rep.snd[i].packets > 0);
			/* The server echoed the warm-up and every timed message. */
			assert_int_equal(rep.rcv[i].packets,
					 rep.snd[i].packets + 10 - rep.snd[i].lost);
			answered += rep.snd[i].packets - rep.snd[i].lost;
		}
		assert_int_equal(h->n, answered);
		assert_true(h->min > 0);
		free(h);
	}
}

static void udp_counts_add_up(void **state)
{
	struct fixture *f = *state;
	struct net_params p = {.test = NET_TEST_UDP_THROUGHPUT,
			       .nconns = 2,
			       .block_bytes = 1000,
			       .total_bytes = 2000000,
			       .rate_bps = 200000000ull,
			       .timeout_ms = 2000};
	struct net_rep rep;
	assert_int_equal(run(f, &p, &rep, NULL), 0);
	for (uint32_t i = 0; i < 2; i++) {
		assert_int_equal(rep.snd[i].packets, 1000);
		/* received unique + lost = sent; duplicates on loopback: none */
		assert_int_equal(rep.rcv[i].packets - rep.rcv[i].duplicated + rep.rcv[i].lost,
				 rep.snd[i].packets);
		assert_int_equal(rep.rcv[i].bytes, (rep.rcv[i].packets) * 1000);
	}
}

/* Unpaced senders batch datagrams with UDP GSO where the kernel has it: each segment is
 * still one datagram with its own sequence number, so the books must balance too. */
static void udp_unpaced_counts_add_up(void **state)
{
	struct fixture *f = *state;
	for (int no_gso = 0; no_gso < 2; no_gso++) {
		struct net_params p = {.test = NET_TEST_UDP_THROUGHPUT,
				       .nconns = 2,
				       .block_bytes = 1472,
				       .total_bytes = 3000000,
				       .timeout_ms = 2000,
				       .no_gso = no_gso != 0};
		struct net_rep rep;
		assert_int_equal(run(f, &p, &rep, NULL), 0);
		for (uint32_t i = 0; i < 2; i++) {
			uint64_t want = (net_conn_share(p.total_bytes, 2, i) + 1471) / 1472;
			assert_int_equal(rep.snd[i].packets, want);
			assert_int_equal(rep.rcv[i].packets - rep.rcv[i].duplicated +
					     rep.rcv[i].lost,
					 rep.snd[i].packets);
			assert_int_equal(rep.rcv[i].bytes, rep.rcv[i].packets * 1472);
			if (no_gso)
				assert_int_equal(rep.snd[i].gso, 0);
		}
	}
}

static void absurd_request_refused_then_served(void **state)
{
	struct fixture *f = *state;
	/* A second raw session asking for a million connections gets an ERROR... */
	char err[256];
	struct net_client raw;
	assert_int_equal(
	    net_client_connect(&raw, "127.0.0.1", net_server_port(f->srv), 2000, err, sizeof err),
	    0);
	struct net_params p = {.test = NET_TEST_TCP_THROUGHPUT,
			       .nconns = 1000000,
			       .block_bytes = 1000,
			       .total_bytes = 1000,
			       .timeout_ms = 2000};
	uint8_t buf[NET_PARAMS_BYTES];
	net_params_pack(&p, buf);
	assert_int_equal(net_msg_send(raw.ctl, NET_MSG_TEST, buf, sizeof buf, 1000), 0);
	uint8_t reply[NET_MAX_PAYLOAD];
	uint16_t type = 0;
	uint32_t len = 0;
	assert_int_equal(
	    net_msg_recv(raw.ctl, &type, reply, sizeof reply, &len, 2000, err, sizeof err), 0);
	assert_int_equal(type, NET_MSG_ERROR);
	net_client_close(&raw);
	/* ...and the fixture's session still runs tests. */
	struct net_params ok = {.test = NET_TEST_TCP_THROUGHPUT,
				.nconns = 1,
				.block_bytes = 512,
				.total_bytes = 4096,
				.timeout_ms = 2000};
	struct net_rep rep;
	assert_int_equal(run(f, &ok, &rep, NULL), 0);
	assert_int_equal(rep.rcv[0].bytes, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(tcp_exact_bytes),
	    cmocka_unit_test(latency_returns_every_message),
	    cmocka_unit_test(udp_counts_add_up),
	    cmocka_unit_test(udp_unpaced_counts_add_up),
	    cmocka_unit_test(absurd_request_refused_then_served),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
