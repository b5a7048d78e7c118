/* peak_sustain: --sustain's durations (the forms it takes, the ones it refuses), the rows
 * made from a recorded series (burst then baseline, their seconds as samples, the knee in
 * the flags; one baseline flagged no_knee for a flat series), and a short real sampling. */
#include "peak_cmocka.h"

#include <math.h>
#include <string.h>

#include "peak_sustain.h"

static void test_parse(void **state)
{
	(void)state;
	static const struct {
		const char *arg;
		double s;
	} good[] = {{"90", 90},     {"90s", 90}, {"30m", 1800}, {"1h", 3600},
		    {"1.5h", 5400}, {"4", 4},    {"24h", 86400}};
	char err[128];
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		double v = 0;
		assert_int_equal(peak_sustain_parse(good[i].arg, &v, err, sizeof err), 0);
		assert_double_equal(v, good[i].s, 1e-9);
	}
	static const char *const bad[] = {"",    "3s",  "5x",   "25h", "1m5", "-10s",
					  "nan", "inf", "10ss", "s",   "1e99"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		double v = -1;
		assert_int_equal(peak_sustain_parse(bad[i], &v, err, sizeof err), -1);
		assert_double_equal(v, -1, 0);
		assert_non_null(strstr(err, "not a duration"));
	}
}

static struct peak_result tmpl(void)
{
	struct peak_result t;
	peak_result_init(&t, "network", "tcp_sustain", "", "throughput", "Gbit/s");
	return t;
}

static void test_rows_burst_baseline(void **state)
{
	(void)state;
	double bps[12], values[12];
	for (int i = 0; i < 12; i++)
		bps[i] = i < 4 ? 100e6 : 25e6; /* bytes per second: 0.8 then 0.2 Gbit/s */
	struct peak_sustain s = {.bytes_per_s = bps, .n = 12, .cap = 12};
	struct peak_result t = tmpl(), rows[2];
	struct peak_changepoint cp;
	assert_int_equal(peak_sustain_rows(&s, 8e-9, values, &t, &cp, rows), 2);
	assert_string_equal(rows[0].variant, "burst");
	assert_string_equal(rows[1].variant, "baseline");
	assert_int_equal(rows[0].nsamples, 4);
	assert_int_equal(rows[1].nsamples, 8);
	assert_ptr_equal(rows[1].samples, values + 4);
	assert_double_equal(rows[0].summary.median, 0.8, 1e-9);
	assert_double_equal(rows[1].summary.median, 0.2, 1e-9);
	assert_true(peak_result_has_flag(rows[0].flags, "knee_s"));
	char v[32];
	assert_true(peak_result_flag_item(rows[1].flags, "knee_s", v, sizeof v));
	assert_string_equal(v, "knee_s=4.0");
	assert_true(peak_result_flag_item(rows[0].flags, "level_s", v, sizeof v));
	assert_string_equal(v, "level_s=4");
	assert_true(peak_result_flag_item(rows[1].flags, "sustain_s", v, sizeof v));
	assert_string_equal(v, "sustain_s=12");
}

static void test_rows_flat(void **state)
{
	(void)state;
	double bps[6] = {40e6, 40e6, 40e6, 40e6, 40e6, 40e6}, values[6];
	struct peak_sustain s = {.bytes_per_s = bps, .n = 6, .cap = 6};
	struct peak_result t = tmpl(), rows[2];
	struct peak_changepoint cp;
	assert_int_equal(peak_sustain_rows(&s, 1e-6, values, &t, &cp, rows), 1);
	assert_string_equal(rows[0].variant, "baseline");
	assert_true(peak_result_has_flag(rows[0].flags, "no_knee"));
	assert_false(peak_result_has_flag(rows[0].flags, "knee_s"));
	assert_double_equal(rows[0].summary.mean, 40, 1e-9);
	s.n = 0;
	assert_int_equal(peak_sustain_rows(&s, 1e-6, values, &t, &cp, rows), 0);
}

/* A real sampler over 4 s: four values, each the bytes added in its second. */
static void test_sampler(void **state)
{
	(void)state;
	struct peak_sustain s;
	assert_int_equal(peak_sustain_start(&s, 4.0), 0);
	while (!peak_sustain_over(&s, 4.0)) {
		atomic_fetch_add(&s.bytes, 1000);
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	peak_sustain_stop(&s);
	assert_int_equal(s.n, 4);
	for (size_t i = 0; i < s.n; i++)
		assert_true(s.bytes_per_s[i] > 0);
	peak_sustain_free(&s);
	assert_null(s.bytes_per_s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_rows_burst_baseline),
	    cmocka_unit_test(test_rows_flat),
	    cmocka_unit_test(test_sampler),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
