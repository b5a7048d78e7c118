/* Known answers for dpdkbench's per-flow sequence accounting: in order, gaps, late
 * (reordered) frames, sequence wrap-around and unknown flows; received = sum_next - gaps
 * + late and lost = gaps - late + (sent - sum_next). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dpdk_traffic.h"

static uint64_t lost(const struct dpdk_counters *c, uint64_t sent)
{
	return c->gaps - c->late + (sent - c->sum_next);
}

static void test_in_order(void **state)
{
	(void)state;
	static struct dpdk_flowcheck fc;
	struct dpdk_counters c;
	memset(&c, 0, sizeof(c));
	dpdk_flowcheck_reset(&fc, 2);
	for (uint32_t s = 0; s < 100; s++) {
		assert_true(dpdk_flowcheck_seen(&fc, &c, 0, s));
		assert_true(dpdk_flowcheck_seen(&fc, &c, 1, s));
	}
	assert_int_equal(c.rx_pkts, 200);
	assert_int_equal(c.gaps, 0);
	assert_int_equal(c.late, 0);
	assert_int_equal(c.sum_next, 200);
	assert_int_equal(lost(&c, 200), 0);
	assert_int_equal(lost(&c, 210), 10); /* ten never arrived at the tail */
}

static void test_gaps_and_late(void **state)
{
	(void)state;
	static struct dpdk_flowcheck fc;
	struct dpdk_counters c;
	memset(&c, 0, sizeof(c));
	dpdk_flowcheck_reset(&fc, 1);
	/* Sent 0..9; 3 and 4 overtaken by 5, 4 arrives late, 3 never. */
	const uint32_t seqs[] = {0, 1, 2, 5, 6, 4, 7, 8, 9};
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++)
		assert_true(dpdk_flowcheck_seen(&fc, &c, 0, seqs[i]));
	assert_int_equal(c.rx_pkts, 9);
	assert_int_equal(c.gaps, 2);
	assert_int_equal(c.late, 1);
	assert_int_equal(c.sum_next, 10);
	assert_int_equal(c.rx_pkts, c.sum_next - c.gaps + c.late);
	assert_int_equal(lost(&c, 10), 1);
}

static void test_wraparound(void **state)
{
	(void)state;
	static struct dpdk_flowcheck fc;
	struct dpdk_counters c;
	memset(&c, 0, sizeof(c));
	dpdk_flowcheck_reset(&fc, 1);
	fc.next[0] = UINT32_MAX - 1;
	assert_true(dpdk_flowcheck_seen(&fc, &c, 0, UINT32_MAX - 1));
	assert_true(dpdk_flowcheck_seen(&fc, &c, 0, UINT32_MAX));
	assert_true(dpdk_flowcheck_seen(&fc, &c, 0, 0));
	assert_true(dpdk_flowcheck_seen(&fc, &c, 0, 2)); /* 1 missing across the wrap */
	assert_int_equal(c.gaps, 1);
	assert_int_equal(c.late, 0);
	assert_int_equal(fc.next[0], 3);
}

static void test_unknown_flow(void **state)
{
	(void)state;
	static struct dpdk_flowcheck fc;
	struct dpdk_counters c;
	memset(&c, 0, sizeof(c));
	dpdk_flowcheck_reset(&fc, 4);
	assert_false(dpdk_flowcheck_seen(&fc, &c, 4, 0));
	assert_false(dpdk_flowcheck_seen(&fc, &c, 65535, 0));
	assert_int_equal(c.other, 2);
	assert_int_equal(c.rx_pkts, 0);
}

static void test_counters_add(void **state)
{
	(void)state;
	struct dpdk_counters a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	b.rx_pkts = 5;
	b.first_rx_tsc = 100;
	b.last_rx_tsc = 200;
	dpdk_counters_add(&a, &b);
	b.first_rx_tsc = 50;
	b.last_rx_tsc = 150;
	dpdk_counters_add(&a, &b);
	assert_int_equal(a.rx_pkts, 10);
	assert_int_equal(a.first_rx_tsc, 50);
	assert_int_equal(a.last_rx_tsc, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_in_order),     cmocka_unit_test(test_gaps_and_late),
	    cmocka_unit_test(test_wraparound),   cmocka_unit_test(test_unknown_flow),
	    cmocka_unit_test(test_counters_add),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
