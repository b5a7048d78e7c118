/* Known answers for peak_stats: mean, sample stddev, median, CI, CV, percentiles. */
#include "peak_cmocka.h"
#include <math.h>

#include "peak_stats.h"

static void test_summary_known_answer(void **state)
{
	(void)state;
	const double x[] = {9, 2, 4, 4, 5, 4, 5, 7}; /* unsorted on purpose */
	struct peak_summary s;

	peak_stats_summarize(x, 8, &s);
	assert_int_equal(s.n, 8);
	assert_double_equal(s.mean, 5.0, 1e-12);
	assert_double_equal(s.stddev, sqrt(32.0 / 7.0), 1e-12); /* n - 1 */
	assert_double_equal(s.min, 2.0, 0);
	assert_double_equal(s.max, 9.0, 0);
	assert_double_equal(s.median, 4.5, 1e-12);
	double half = 2.365 * sqrt(32.0 / 7.0) / sqrt(8.0);
	assert_true(s.has_ci);
	assert_double_equal(s.ci95_low, 5.0 - half, 1e-9);
	assert_double_equal(s.ci95_high, 5.0 + half, 1e-9);
	assert_double_equal(s.cv, sqrt(32.0 / 7.0) / 5.0, 1e-12);
	/* The input is not reordered. */
	assert_double_equal(x[0], 9.0, 0);
}

static void test_summary_odd_median(void **state)
{
	(void)state;
	const double x[] = {3, 1, 2};
	struct peak_summary s;
	peak_stats_summarize(x, 3, &s);
	assert_double_equal(s.median, 2.0, 0);
	assert_double_equal(s.stddev, 1.0, 1e-12);
}

static void test_summary_empty_and_single(void **state)
{
	(void)state;
	struct peak_summary s;
	peak_stats_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_false(isnan(s.mean) || isnan(s.stddev) || isnan(s.cv) || isnan(s.ci95_low));
	assert_false(s.has_ci);

	const double one = 42.0;
	peak_stats_summarize(&one, 1, &s);
	assert_int_equal(s.n, 1);
	assert_double_equal(s.mean, 42.0, 0);
	assert_double_equal(s.median, 42.0, 0);
	assert_double_equal(s.stddev, 0.0, 0);
	assert_double_equal(s.cv, 0.0, 0);
	assert_false(isnan(s.ci95_low) || isnan(s.ci95_high));
	assert_false(s.has_ci);
}

static void test_t95(void **state)
{
	(void)state;
	assert_double_equal(peak_stats_t95(1), 12.706, 1e-9);
	assert_double_equal(peak_stats_t95(2), 4.303, 1e-9);
	assert_double_equal(peak_stats_t95(30), 2.042, 1e-9);
	assert_double_equal(peak_stats_t95(60), 2.000, 2e-3);
	assert_double_equal(peak_stats_t95(120), 1.980, 2e-3);
	assert_double_equal(peak_stats_t95(100000), 1.960, 1e-3);
}

static void test_percentile_nearest_rank(void **state)
{
	(void)state;
	/* The textbook nearest-rank example. */
	const double x[] = {15, 20, 35, 40, 50};
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 5), 15, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 30), 20, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 40), 20, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 50), 35, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 100), 50, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 5, 0), 15, 0);
	assert_double_equal(peak_stats_percentile_sorted(x, 0, 50), 0, 0);

	double y[] = {9, 2, 4, 4, 5, 4, 5, 7};
	peak_stats_sort(y, 8);
	assert_double_equal(peak_stats_percentile_sorted(y, 8, 90), 9, 0);
	assert_double_equal(peak_stats_percentile_sorted(y, 8, 75), 5, 0);
	assert_double_equal(peak_stats_percentile_sorted(y, 8, 25), 4, 0);
}

static void test_welford_merge_equals_whole(void **state)
{
	(void)state;
	struct peak_welford a, b, whole;
	peak_welford_init(&a);
	peak_welford_init(&b);
	peak_welford_init(&whole);
	for (int i = 0; i < 1000; i++) {
		double v = 1e6 + (double)((i * 7919) % 1000) / 10.0;
		peak_welford_add(i < 300 ? &a : &b, v);
		peak_welford_add(&whole, v);
	}
	peak_welford_merge(&a, &b);
	assert_int_equal(a.n, 1000);
	assert_double_equal(a.mean, whole.mean, 1e-9);
	assert_double_equal(peak_welford_stddev(&a), peak_welford_stddev(&whole), 1e-9);
	assert_double_equal(a.min, whole.min, 0);
	assert_double_equal(a.max, whole.max, 0);

	struct peak_welford empty;
	peak_welford_init(&empty);
	assert_double_equal(peak_welford_stddev(&empty), 0.0, 0);
	peak_welford_merge(&empty, &whole);
	assert_double_equal(empty.mean, whole.mean, 0);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_known_answer),
		cmocka_unit_test(test_summary_odd_median),
		cmocka_unit_test(test_summary_empty_and_single),
		cmocka_unit_test(test_t95),
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_welford_merge_equals_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
