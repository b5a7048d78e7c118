/* net_ena: the allowance counters' rise (any counter up flags the run; a reset counter is
 * no rise), and a read on loopback, whose driver has no such counters: a note, no flag. */
#include "peak_cmocka.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "net_ena.h"

static void test_rise(void **state)
{
	(void)state;
	struct net_ena a = {.have = true, .v = {5, 7, 9}}, b = a;
	char text[160];
	assert_false(net_ena_rise(&a, &b, text, sizeof text));
	assert_string_equal(text, "bw_in_allowance_exceeded=+0,bw_out_allowance_exceeded=+0,"
				  "pps_allowance_exceeded=+0");
	b.v[2] = 12;
	assert_true(net_ena_rise(&a, &b, text, sizeof text));
	assert_non_null(strstr(text, "pps_allowance_exceeded=+3"));
	b = a;
	b.v[0] = 1; /* the driver was reset: down is no rise */
	assert_false(net_ena_rise(&a, &b, text, sizeof text));
}

static void test_loopback_has_none(void **state)
{
	(void)state;
	struct sockaddr_in lo = {.sin_family = AF_INET};
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct net_ena e;
	char why[160] = "";
	assert_int_equal(net_ena_read((struct sockaddr *)&lo, &e, why, sizeof why), 0);
	assert_string_equal(e.ifname, "lo");
	assert_false(e.have);
	assert_true(strncmp(why, "lo", 2) == 0);
	struct sockaddr_in nobody = {.sin_family = AF_INET};
	nobody.sin_addr.s_addr = htonl(0xc0000207u); /* 192.0.2.7, TEST-NET-1: held by none */
	assert_int_equal(net_ena_read((struct sockaddr *)&nobody, &e, why, sizeof why), -1);
	assert_false(e.have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rise),
	    cmocka_unit_test(test_loopback_has_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
