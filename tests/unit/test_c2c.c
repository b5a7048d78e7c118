/* peak_c2c: the core-to-core probe on one CPU (nothing to pair), on two or more (every
 * pair measured, min <= median), the move detector and the context string. Threaded: runs
 * under TSan in CI. No timing thresholds: only that the figures exist and are ordered. */
#define _GNU_SOURCE
#include "peak_cmocka.h"

#include <sched.h>
#include <string.h>

#include "peak_c2c.h"

static void test_one_cpu_has_nothing_to_pair(void **state)
{
	(void)state;
	cpu_set_t saved, one;
	assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
	size_t first = CPU_SETSIZE;
	for (size_t c = 0; c < CPU_SETSIZE && first == CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &saved))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);

	struct peak_c2c_pair pairs[4];
	size_t n = 99;
	char err[160] = "";
	int rc = peak_c2c_measure(64, 3, 100, pairs, 4, &n, err, sizeof err);
	assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
	assert_int_equal(rc, 0);
	assert_int_equal(n, 0);
	char s[32];
	peak_c2c_format(pairs, n, s, sizeof s);
	assert_string_equal(s, "none");
}

static void test_every_pair_measured(void **state)
{
	(void)state;
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	unsigned cpus = (unsigned)CPU_COUNT(&set);
	if (cpus < 2)
		skip(); /* one CPU: covered by the test above */
	if (cpus > 4)
		cpus = 4;
	struct peak_c2c_pair pairs[8];
	size_t n = 0;
	char err[160] = "";
	int rc = peak_c2c_measure(cpus, 3, 200, pairs, 8, &n, err, sizeof err);
	if (rc != 0)
		fail_msg("%s", err);
	assert_int_equal(n, cpus * (cpus - 1) / 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(pairs[i].cpu_a < pairs[i].cpu_b);
		assert_int_equal(pairs[i].samples, 3);
		assert_true(pairs[i].min_ns > 0);
		assert_true(pairs[i].min_ns <= pairs[i].median_ns);
	}
	/* out_cap bounds what is written. */
	size_t n1 = 0;
	assert_int_equal(peak_c2c_measure(cpus, 1, 50, pairs, 1, &n1, err, sizeof err), 0);
	assert_int_equal(n1, 1);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct peak_c2c_pair p[1];
	size_t n = 7;
	char err[160] = "";
	assert_int_equal(peak_c2c_measure(2, 0, 10, p, 1, &n, err, sizeof err), -1);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "no samples"));
}

static void test_moved(void **state)
{
	(void)state;
	struct peak_c2c_pair start[] = {{0, 1, 5, 88, 98}, {0, 2, 5, 90, 95}};
	struct peak_c2c_pair same[] = {{0, 1, 5, 100, 130}, {0, 2, 5, 85, 99}};
	struct peak_c2c_pair moved[] = {{0, 1, 5, 430, 474}};
	struct peak_c2c_pair other_pair[] = {{1, 2, 5, 500, 600}};
	struct peak_c2c_pair unmeasured[] = {{0, 1, 0, 0, 0}};
	assert_false(peak_c2c_moved(start, 2, same, 2));
	assert_true(peak_c2c_moved(start, 2, moved, 1));
	assert_true(peak_c2c_moved(moved, 1, start, 2)); /* either way */
	assert_false(peak_c2c_moved(start, 2, other_pair, 1));
	assert_false(peak_c2c_moved(start, 2, unmeasured, 1));
	assert_false(peak_c2c_moved(start, 0, moved, 1));
}

static void test_format(void **state)
{
	(void)state;
	struct peak_c2c_pair p[] = {{0, 1, 5, 88.4, 97.6}, {0, 2, 5, 430, 474.2}};
	char s[64];
	peak_c2c_format(p, 2, s, sizeof s);
	assert_string_equal(s, "0-1:88/98 0-2:430/474");
	char tiny[8];
	peak_c2c_format(p, 2, tiny, sizeof tiny); /* truncated, still terminated */
	assert_true(strlen(tiny) < sizeof tiny);
}

static void test_parse(void **state)
{
	(void)state;
	struct peak_c2c_pair p[4];
	size_t n = 9;
	assert_int_equal(peak_c2c_parse("0-1:88/98 0-2:430/474", p, 4, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[1].cpu_b, 2);
	assert_double_equal(p[1].min_ns, 430, 0);
	char s[64];
	peak_c2c_format(p, n, s, sizeof s); /* round trip */
	assert_string_equal(s, "0-1:88/98 0-2:430/474");
	assert_int_equal(peak_c2c_parse("none", p, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(peak_c2c_parse("", p, 4, &n), -1);
	assert_int_equal(peak_c2c_parse("0-1:88", p, 4, &n), -1);
	assert_int_equal(peak_c2c_parse("0-1:88/98,0-2:1/2", p, 4, &n), -1);
	assert_int_equal(peak_c2c_parse("0-1:98/88", p, 4, &n), -1); /* median below min */
	assert_int_equal(peak_c2c_parse("unknown", p, 4, &n), -1);
	assert_int_equal(peak_c2c_parse(NULL, p, 4, &n), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_cpu_has_nothing_to_pair),
		cmocka_unit_test(test_every_pair_measured),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
