/* peak_calib: the count grows until a run lasts min_time; errors propagate. */
#include "peak_cmocka.h"

#include "peak_calib.h"

/* A fake clock: every iteration "takes" 1000 ns, so no real time is measured. */
static int fake_work(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	unsigned *calls = arg;
	(*calls)++;
	*elapsed_ns = iters * 1000u;
	return 0;
}

static int failing_work(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	(void)arg;
	(void)iters;
	*elapsed_ns = 0;
	return 5;
}

static void test_reaches_min_time(void **state)
{
	(void)state;
	unsigned calls = 0;
	uint64_t iters = 0;
	assert_int_equal(peak_calib_iterations(fake_work, &calls, 0.01, 1, UINT64_MAX, &iters), 0);
	assert_true(iters * 1000u >= 10000000u);     /* lasts >= 10 ms */
	assert_true(iters * 1000u <= 10u * 10000000u); /* without wild overshoot */
	assert_true(calls < 20);
}

static void test_respects_cap_and_errors(void **state)
{
	(void)state;
	unsigned calls = 0;
	uint64_t iters = 0;
	assert_int_equal(peak_calib_iterations(fake_work, &calls, 100.0, 1, 5000, &iters), 0);
	assert_int_equal(iters, 5000);
	assert_int_equal(peak_calib_iterations(failing_work, NULL, 1.0, 1, 10, &iters), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reaches_min_time),
		cmocka_unit_test(test_respects_cap_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
