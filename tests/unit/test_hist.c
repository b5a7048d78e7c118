/* peak_hist: bounded relative error for every value, percentiles of known distributions. */
#include "peak_cmocka.h"
#include <math.h>
#include <stdlib.h>

#include "peak_hist.h"

static void test_every_value_within_error(void **state)
{
	(void)state;
	struct peak_hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	double bound = peak_hist_relative_error();
	assert_true(bound > 0 && bound < 0.01);

	/* Values spread over 0 .. 2^62: a single-value histogram returns its bucket. */
	uint64_t v = 0;
	for (int i = 0; i < 4000; i++) {
		peak_hist_init(h);
		peak_hist_record(h, v);
		peak_hist_record(h, UINT64_MAX / 2); /* keep max away so no clamping helps */
		peak_hist_record(h, 0);
		uint64_t back = peak_hist_percentile(h, 50);
		double err = v ? fabs((double)back - (double)v) / (double)v : (double)back;
		assert_true(err <= bound);
		v = v * 1013 / 1000 + 1;
		if (v > (1ull << 62))
			break;
	}
	free(h);
}

static void test_small_values_exact(void **state)
{
	(void)state;
	struct peak_hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	peak_hist_init(h);
	for (uint64_t i = 1; i <= 100; i++)
		peak_hist_record(h, i);
	assert_int_equal(peak_hist_percentile(h, 50), 50);
	assert_int_equal(peak_hist_percentile(h, 90), 90);
	assert_int_equal(peak_hist_percentile(h, 99), 99);
	assert_int_equal(peak_hist_percentile(h, 0), 1);
	assert_int_equal(peak_hist_percentile(h, 100), 100);
	assert_double_equal(peak_hist_mean(h), 50.5, 1e-12);
	assert_double_equal(peak_hist_stddev(h), sqrt(100.0 * 101.0 / 12.0), 1e-9);
	free(h);
}

static void test_uniform_percentiles(void **state)
{
	(void)state;
	struct peak_hist *h = malloc(sizeof(*h));
	assert_non_null(h);
	peak_hist_init(h);
	/* 1,000,000 values uniform on 1000..1000999 ns. */
	for (uint64_t i = 0; i < 1000000; i++)
		peak_hist_record(h, 1000 + i);
	const double pcts[] = {50, 90, 99, 99.9};
	for (size_t k = 0; k < 4; k++) {
		double exact = 1000.0 + ceil(pcts[k] / 100.0 * 1e6) - 1.0;
		double got = (double)peak_hist_percentile(h, pcts[k]);
		assert_true(fabs(got - exact) / exact <= peak_hist_relative_error());
	}
	assert_int_equal(h->n, 1000000);
	assert_int_equal(h->min, 1000);
	assert_int_equal(h->max, 1000999);
	free(h);
}

static void test_merge(void **state)
{
	(void)state;
	struct peak_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	assert_non_null(a);
	assert_non_null(b);
	peak_hist_init(a);
	peak_hist_init(b);
	for (uint64_t i = 0; i < 500; i++)
		peak_hist_record(a, 10 + i);
	for (uint64_t i = 500; i < 1000; i++)
		peak_hist_record(b, 10 + i);
	peak_hist_merge(a, b);
	assert_int_equal(a->n, 1000);
	assert_int_equal(a->min, 10);
	assert_int_equal(a->max, 1009);
	double p50 = (double)peak_hist_percentile(a, 50);
	assert_true(fabs(p50 - 509.0) / 509.0 <= peak_hist_relative_error());
	peak_hist_init(b);
	assert_int_equal(peak_hist_percentile(b, 50), 0);
	assert_double_equal(peak_hist_mean(b), 0.0, 0);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_value_within_error),
		cmocka_unit_test(test_small_values_exact),
		cmocka_unit_test(test_uniform_percentiles),
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
