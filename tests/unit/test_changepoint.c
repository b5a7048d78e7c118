/* peak_changepoint_find on synthetic per-second series: a clean step, a flat line, a noisy
 * step, steps near either end, a ramp, a change too small to be a knee, a knee inside a
 * second (the straddling second places it), and series too short to split. */
#include "peak_cmocka.h"

#include <math.h>
#include <stdint.h>

#include "peak_changepoint.h"

#define N 60

/* Deterministic noise in [-amp, amp] (a linear congruential generator). */
static double noise(uint32_t *state, double amp)
{
	*state = *state * 1664525u + 1013904223u;
	return amp * (2.0 * (double)(*state >> 8) / (double)(1u << 24) - 1.0);
}

static void step(double *x, size_t n, size_t at, double hi, double lo, double amp)
{
	uint32_t s = 12345;
	for (size_t i = 0; i < n; i++)
		x[i] = (i < at ? hi : lo) + noise(&s, amp);
}

static void test_clean_step(void **state)
{
	(void)state;
	double x[N];
	step(x, N, 20, 1000, 200, 0);
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_true(c.found);
	assert_int_equal(c.index, 20);
	assert_double_equal(c.knee, 20.0, 1e-9);
	assert_double_equal(c.before, 1000, 1e-9);
	assert_double_equal(c.after, 200, 1e-9);
	assert_true(c.confidence >= PEAK_CHANGEPOINT_MIN_CONFIDENCE);
	assert_null(c.why);
}

static void test_flat_has_no_knee(void **state)
{
	(void)state;
	double x[N];
	step(x, N, 0, 500, 500, 10); /* 500 +- 10, no change */
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_false(c.found);
	assert_non_null(c.why);
	assert_double_equal(c.before, 500, 10);
	assert_true(isnan(c.after));
	double y[N];
	for (size_t i = 0; i < N; i++)
		y[i] = 42;
	peak_changepoint_find(y, N, &c);
	assert_false(c.found);
	assert_string_equal(c.why, "flat");
	assert_double_equal(c.before, 42, 1e-12);
}

static void test_noisy_step(void **state)
{
	(void)state;
	double x[N];
	step(x, N, 33, 800, 200, 60); /* noise +-60 on a 600 step */
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_true(c.found);
	assert_in_range(c.index, 32, 34);
	assert_double_equal(c.before, 800, 40);
	assert_double_equal(c.after, 200, 40);
	assert_true(c.noise > 10 && c.noise < 60);
}

static void test_step_near_the_ends(void **state)
{
	(void)state;
	double x[N];
	struct peak_changepoint c;
	step(x, N, 3, 900, 100, 5);
	peak_changepoint_find(x, N, &c);
	assert_true(c.found);
	assert_int_equal(c.index, 3);
	step(x, N, N - 3, 100, 900, 5); /* a rise at the end: a knee too */
	peak_changepoint_find(x, N, &c);
	assert_true(c.found);
	assert_int_equal(c.index, N - 3);
	assert_double_equal(c.after, 900, 5);
	step(x, N, 1, 900, 100, 5); /* one second is not a level */
	peak_changepoint_find(x, N, &c);
	assert_false(c.found);
}

static void test_ramp_is_no_knee(void **state)
{
	(void)state;
	double x[N];
	for (size_t i = 0; i < N; i++)
		x[i] = 1000.0 - 12.0 * (double)i;
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_false(c.found);
	assert_string_equal(c.why, "a ramp, not a step");
}

static void test_small_change_is_no_knee(void **state)
{
	(void)state;
	double x[N];
	step(x, N, 30, 1000, 950, 1); /* 5%: the same rate */
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_false(c.found);
	assert_string_equal(c.why, "change below 10%");
}

static void test_knee_inside_a_second(void **state)
{
	(void)state;
	double x[N];
	step(x, N, 10, 1000, 200, 0);
	x[9] = 0.25 * 1000 + 0.75 * 200; /* the bucket ran dry a quarter into second 9 */
	struct peak_changepoint c;
	peak_changepoint_find(x, N, &c);
	assert_true(c.found);
	assert_double_equal(c.knee, 9.25, 1e-9);
	assert_double_equal(c.before, 1000, 1e-9); /* the median ignores the mixed second */
}

static void test_too_short(void **state)
{
	(void)state;
	const double x[3] = {10, 10, 1};
	struct peak_changepoint c;
	peak_changepoint_find(x, 3, &c);
	assert_false(c.found);
	assert_string_equal(c.why, "too short");
	peak_changepoint_find(x, 0, &c);
	assert_false(c.found);
	assert_true(isnan(c.before));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_clean_step),
	    cmocka_unit_test(test_flat_has_no_knee),
	    cmocka_unit_test(test_noisy_step),
	    cmocka_unit_test(test_step_near_the_ends),
	    cmocka_unit_test(test_ramp_is_no_knee),
	    cmocka_unit_test(test_small_change_is_no_knee),
	    cmocka_unit_test(test_knee_inside_a_second),
	    cmocka_unit_test(test_too_short),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
