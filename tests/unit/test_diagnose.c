/* peak_diagnose: a row above its peak names the input of the peak that disagrees with its
 * own measurement (issue 41). Synthetic rows whose wrong input is each of count, width,
 * clock and core count; a row whose inputs all agree names nothing; a row not above its
 * peak is left alone. */
#include "peak_cmocka.h"

#include <math.h>
#include <string.h>

#include "peak_diagnose.h"

/* A cpubench row at 1 thread of a kernel whose peak is cores x GHz x units x width: 2 units
 * of 8-lane FMAs (32 flops a cycle) at 3.55 GHz on 1 core: 113.6 GFLOPS. Each case makes
 * one input wrong and the measured rate what the core really does. */
struct row_case {
	const char *wrong;                       /* the input made wrong, by its flag name */
	double cores, ghz, units, width;         /* what the peak used */
	double cores_m, ghz_m, units_m, width_m; /* what the run measured */
	const char *cause;                       /* the flag expected */
};

static const struct row_case cases[] = {
    /* The Zen 5 record: a vpaddq chain timed at a claimed 1-cycle step read half the clock. */
    {"clock_chain", 1, 1.75, 2, 16, 1, 3.55, 2, 16, "cause=clock_chain_0.49"},
    /* A table that says 2 units where the probe measured 3. */
    {"count", 1, 3.55, 2, 16, 1, 3.55, 3, 16, "cause=count_0.67"},
    /* A kernel counted as 8 flops an instruction whose loop does 16 (width). */
    {"width", 1, 3.55, 2, 8, 1, 3.55, 2, 16, "cause=width_0.50"},
    /* A core count of 1 where 2 threads each ran a whole CPU. */
    {"cores", 1, 3.55, 2, 16, 2, 3.55, 2, 16, "cause=cores_0.50"},
};

static void test_each_wrong_input_is_named(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct row_case *c = &cases[i];
		struct peak_result r;
		peak_result_init(&r, "cpu", "flops", "synthetic", "flops", "GFLOPS");
		double rate = c->cores_m * c->ghz_m * c->units_m * c->width_m;
		double samples[3] = {rate, rate, rate};
		peak_result_set_samples(&r, samples, 3);
		r.theoretical = c->cores * c->ghz * c->units * c->width;
		peak_result_finish(&r);
		assert_true(peak_result_has_flag(r.flags, "above_peak"));
		const struct peak_input in[] = {
		    {"count", c->units, c->units_m},
		    {"width", c->width, c->width_m},
		    {"clock_chain", c->ghz, c->ghz_m},
		    {"cores", c->cores, c->cores_m},
		};
		int w = peak_diagnose_row(&r, in, 4);
		assert_true(w >= 0);
		assert_string_equal(in[w].name, c->wrong);
		if (!strstr(r.flags, c->cause))
			fail_msg("%s: flags '%s' lack '%s'", c->wrong, r.flags, c->cause);
	}
}

/* Inputs that agree within the tolerance, or have no measurement: nothing is named, and a
 * row within its peak gets no cause even when an input disagrees. */
static void test_nothing_named_without_cause(void **state)
{
	(void)state;
	char out[64] = "x";
	const struct peak_input agree[] = {
	    {"count", 2, 2.04}, {"clock_chain", 3.5, 3.6}, {"cores", 2, NAN}, {"width", 16, 0}};
	assert_false(peak_diagnose(agree, 4, out, sizeof out));
	assert_string_equal(out, "");

	struct peak_result r;
	peak_result_init(&r, "cpu", "flops", "synthetic", "flops", "GFLOPS");
	double s[1] = {100};
	peak_result_set_samples(&r, s, 1);
	r.theoretical = 113.6;
	peak_result_finish(&r);
	const struct peak_input wrong[] = {{"clock_chain", 1.75, 3.55}};
	assert_int_equal(peak_diagnose_row(&r, wrong, 1), -1);
	assert_null(strstr(r.flags, "cause="));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_each_wrong_input_is_named),
	    cmocka_unit_test(test_nothing_named_without_cause),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
