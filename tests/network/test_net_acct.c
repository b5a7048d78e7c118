/* netbench unit tests: UDP loss/reorder/duplicate accounting on crafted sequences, wire
 * packing round trips, parameter caps and byte shares. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "net_proto.h"
#include "net_udp_acct.h"
#include "net_wire.h"

static struct net_udp_acct *feed(const uint64_t *seq, size_t n)
{
	struct net_udp_acct *a = malloc(sizeof *a);
	assert_non_null(a);
	net_udp_acct_init(a);
	for (size_t i = 0; i < n; i++)
		net_udp_acct_add(a, seq[i]);
	return a;
}

static void in_order(void **state)
{
	(void)state;
	const uint64_t s[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	struct net_udp_acct *a = feed(s, 10);
	assert_int_equal(a->unique, 10);
	assert_int_equal(a->reordered, 0);
	assert_int_equal(a->duplicated, 0);
	assert_int_equal(net_udp_acct_lost(a, 10), 0);
	free(a);
}

static void gaps_are_lost(void **state)
{
	(void)state;
	const uint64_t s[] = {0, 1, 3, 4, 7, 9};
	struct net_udp_acct *a = feed(s, 6);
	assert_int_equal(a->unique, 6);
	assert_int_equal(net_udp_acct_lost(a, 10), 4); /* 2, 5, 6, 8 */
	assert_int_equal(net_udp_acct_lost(a, 12), 6); /* tail loss: 10, 11 too */
	assert_int_equal(net_udp_acct_lost(a, 0), 4);  /* sender count unknown: up to 9 */
	assert_int_equal(a->reordered, 0);
	free(a);
}

static void late_arrivals_are_reordered(void **state)
{
	(void)state;
	const uint64_t s[] = {0, 2, 1, 3, 6, 4, 5};
	struct net_udp_acct *a = feed(s, 7);
	assert_int_equal(a->unique, 7);
	assert_int_equal(a->reordered, 3); /* 1, 4, 5 arrived after a higher number */
	assert_int_equal(a->duplicated, 0);
	assert_int_equal(net_udp_acct_lost(a, 7), 0);
	free(a);
}

static void duplicates(void **state)
{
	(void)state;
	const uint64_t s[] = {0, 1, 1, 2, 0, 3, 3, 3, 2};
	struct net_udp_acct *a = feed(s, 9);
	assert_int_equal(a->received, 9);
	assert_int_equal(a->unique, 4);
	assert_int_equal(a->duplicated, 5);
	assert_int_equal(a->reordered, 0);
	assert_int_equal(net_udp_acct_lost(a, 4), 0);
	free(a);
}

static void late_then_duplicate(void **state)
{
	(void)state;
	/* 1 is late once (reordered), its second copy is a duplicate, not reordered. */
	const uint64_t s[] = {0, 2, 1, 1, 3};
	struct net_udp_acct *a = feed(s, 5);
	assert_int_equal(a->unique, 4);
	assert_int_equal(a->reordered, 1);
	assert_int_equal(a->duplicated, 1);
	free(a);
}

static void window_wraps(void **state)
{
	(void)state;
	struct net_udp_acct *a = malloc(sizeof *a);
	assert_non_null(a);
	net_udp_acct_init(a);
	/* Every other datagram over several windows, then a few of the missing ones late:
	 * a slot reused by the window must not make a late arrival look duplicated. */
	uint64_t n = 3 * (uint64_t)NET_ACCT_WINDOW;
	for (uint64_t s = 0; s < n; s += 2)
		net_udp_acct_add(a, s);
	assert_int_equal(a->unique, n / 2);
	assert_int_equal(net_udp_acct_lost(a, n), n / 2);
	net_udp_acct_add(a, n - 1 - 2); /* odd, recent, inside the window */
	net_udp_acct_add(a, 1);         /* odd, far behind the window */
	assert_int_equal(a->duplicated, 0);
	assert_int_equal(a->reordered, 2);
	assert_int_equal(net_udp_acct_lost(a, n), n / 2 - 2);
	net_udp_acct_add(a, n - 2); /* the last one again: a duplicate */
	assert_int_equal(a->duplicated, 1);
	/* A jump far ahead clears the window. */
	net_udp_acct_add(a, n + 10 * (uint64_t)NET_ACCT_WINDOW);
	net_udp_acct_add(a, n + 10 * (uint64_t)NET_ACCT_WINDOW - 1);
	assert_int_equal(a->duplicated, 1);
	free(a);
}

static void wire_round_trip(void **state)
{
	(void)state;
	const struct net_params p = {.test = NET_TEST_UDP_LATENCY,
				     .nconns = 7,
				     .block_bytes = 1472,
				     .warmup_msgs = 99,
				     .total_bytes = 0x123456789ull,
				     .duration_ns = 5000000000ull,
				     .rate_bps = 1000000000ull,
				     .timeout_ms = 4321};
	uint8_t buf[NET_PARAMS_BYTES];
	struct net_params q;
	net_params_pack(&p, buf);
	net_params_unpack(buf, &q);
	assert_int_equal(q.test, p.test);
	assert_int_equal(q.nconns, p.nconns);
	assert_int_equal(q.block_bytes, p.block_bytes);
	assert_int_equal(q.warmup_msgs, p.warmup_msgs);
	assert_int_equal(q.total_bytes, p.total_bytes);
	assert_int_equal(q.duration_ns, p.duration_ns);
	assert_int_equal(q.rate_bps, p.rate_bps);
	assert_int_equal(q.timeout_ms, p.timeout_ms);
	assert_int_equal(buf[0], 0); /* big-endian on the wire */
	assert_int_equal(buf[3], NET_TEST_UDP_LATENCY);

	const struct net_conn_stats s = {.bytes = 1,
					 .packets = 2,
					 .lost = 3,
					 .reordered = 4,
					 .duplicated = 5,
					 .first_ns = 6,
					 .last_ns = UINT64_MAX,
					 .cpu_ns = 8,
					 .retrans = 9,
					 .first_bytes = 11,
					 .status = 10};
	uint8_t sb[NET_STATS_BYTES];
	struct net_conn_stats t;
	memset(&t, 0xff, sizeof t);
	net_stats_pack(&s, sb);
	net_stats_unpack(sb, &t);
	assert_int_equal(t.bytes, 1);
	assert_int_equal(t.duplicated, 5);
	assert_true(t.last_ns == UINT64_MAX);
	assert_int_equal(t.retrans, 9);
	assert_int_equal(t.first_bytes, 11);
	assert_int_equal(t.status, 10);
}

static void params_caps(void **state)
{
	(void)state;
	char why[160];
	struct net_params p = {.test = NET_TEST_TCP_THROUGHPUT,
			       .nconns = 2,
			       .block_bytes = 65536,
			       .total_bytes = 1 << 20,
			       .timeout_ms = 1000};
	assert_int_equal(net_params_check(&p, why, sizeof why), 0);
	struct net_params bad = p;
	bad.nconns = 0;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.nconns = NET_MAX_CONNS + 1;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.block_bytes = NET_MAX_TCP_BLOCK + 1;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.test = NET_TEST_UDP_THROUGHPUT;
	bad.block_bytes = 70000;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad.block_bytes = 8;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.total_bytes = NET_MAX_BYTES + 1;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.total_bytes = 0;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.test = 99;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.timeout_ms = 0xffffffffu;
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
	bad = p;
	bad.test = NET_TEST_TCP_LATENCY; /* latency needs a duration, not bytes */
	assert_int_equal(net_params_check(&bad, why, sizeof why), -1);
}

static void shares_add_up(void **state)
{
	(void)state;
	const uint64_t totals[] = {1, 7, 1000003, 1ull << 30};
	for (size_t k = 0; k < sizeof totals / sizeof totals[0]; k++) {
		for (uint32_t n = 1; n <= 9; n++) {
			uint64_t sum = 0;
			for (uint32_t i = 0; i < n; i++)
				sum += net_conn_share(totals[k], n, i);
			assert_int_equal(sum, totals[k]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(in_order),
	    cmocka_unit_test(gaps_are_lost),
	    cmocka_unit_test(late_arrivals_are_reordered),
	    cmocka_unit_test(duplicates),
	    cmocka_unit_test(late_then_duplicate),
	    cmocka_unit_test(window_wraps),
	    cmocka_unit_test(wire_round_trip),
	    cmocka_unit_test(params_caps),
	    cmocka_unit_test(shares_add_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
