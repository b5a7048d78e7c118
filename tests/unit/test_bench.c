/* peak_bench: a fake suite whose kernels count their calls, fail in verify, or are
 * unsupported; the harness's warm-up, repetitions, calibration, flags and error paths.
 * Point setup, loop orders, extra rows and per-point settings: test_bench_hooks.c. */
#include "bench_fake.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_bench.h"
#include "peak_peak.h"

struct counts {
	unsigned setup, run, verify, teardown, measured, after_rep, row;
	unsigned fail_verify_at; /* verify call number that fails; 0: never */
	uint64_t most_iters;     /* the largest iteration count a run was given */
	unsigned runs_at_most;   /* runs given that count */
};

static struct counts cnt;

static int k_setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	(void)r;
	(void)e;
	cnt.setup++;
	return 0;
}

static int k_run(struct peak_bench_run *r, unsigned idx)
{
	if (idx == 0) {
		cnt.run++;
		if (r->rep != PEAK_BENCH_NOT_MEASURED)
			cnt.measured++;
		if (r->iters > cnt.most_iters) {
			cnt.most_iters = r->iters;
			cnt.runs_at_most = 0;
		}
		cnt.runs_at_most += r->iters == cnt.most_iters;
	}
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < r->iters; i++)
		x += i;
	return 0;
}

static int k_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	(void)r;
	cnt.verify++;
	if (cnt.fail_verify_at && cnt.verify == cnt.fail_verify_at)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "checksum 41, expected 42");
	return 0;
}

static void k_teardown(struct peak_bench_run *r)
{
	(void)r;
	cnt.teardown++;
}

static int k_after_rep(struct peak_bench_run *r, struct peak_bench_err *e)
{
	(void)e;
	assert_true(r->rep != PEAK_BENCH_NOT_MEASURED);
	cnt.after_rep++;
	return 0;
}

/* The suite's own flag, added before teardown (the state is still there). */
static int k_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		 struct peak_bench_err *e)
{
	(void)r;
	(void)out;
	(void)e;
	assert_int_equal(cnt.teardown + 1, cnt.setup); /* this point not torn down yet */
	cnt.row++;
	peak_result_flag(res, "clock=test");
	return 0;
}

static bool k_unsupported(const struct peak_bench_run *r, char *why, size_t len)
{
	(void)r;
	snprintf(why, len, "needs avx512f");
	return false;
}

static double k_no_peak(const struct peak_bench_run *r)
{
	(void)r;
	return NAN;
}

static const struct peak_bench_kernel kernels[] = {
    {.name = "count",
     .test = "t",
     .metric = "throughput",
     .unit = "GB/s",
     .work_per_iter = 8,
     .setup = k_setup,
     .run = k_run,
     .verify = k_verify,
     .teardown = k_teardown,
     .peak = k_no_peak,
     .after_rep = k_after_rep,
     .row = k_row},
    {.name = "avx512",
     .test = "t",
     .metric = "throughput",
     .unit = "GB/s",
     .work_per_iter = 8,
     .supported = k_unsupported,
     .setup = k_setup,
     .run = k_run},
};

static int two_points(void *data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	(void)data;
	(void)threads;
	if (i >= 2)
		return 0;
	p->has_block = true;
	p->block_bytes = 4096u << i;
	return 1;
}

static const struct peak_bench_suite suite = {.name = "fake",
					      .kernels = kernels,
					      .nkernels = 2,
					      .point = two_points,
					      .start_iters = 4,
					      .no_calibrate = true};

static void test_point_counts_warmup_and_reps(void **state)
{
	(void)state;
	memset(&cnt, 0, sizeof cnt);
	struct peak_common_opts c;
	common(&c, 5);
	char err[128];
	struct peak_team *team = peak_team_create(2, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 2};
	struct peak_result res;
	double samples[5];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples, &run, &e),
	    0);
	/* no calibration: one warm-up + 5 measured runs, each verified */
	assert_int_equal(cnt.setup, 1);
	assert_int_equal(cnt.run, 6);
	assert_int_equal(cnt.measured, 5);
	assert_int_equal(cnt.verify, 6);
	assert_int_equal(cnt.teardown, 1);
	assert_int_equal(cnt.after_rep, 5);
	assert_int_equal(cnt.row, 1);
	assert_non_null(strstr(res.flags, "clock=test"));
	assert_int_equal(res.summary.n, 5);
	assert_int_equal(res.threads, 2);
	assert_true(res.summary.min > 0);
	assert_non_null(strstr(res.flags, "no_peak"));
	assert_string_equal(res.variant, "count");
	peak_team_destroy(team);
}

static void test_calibration_is_the_warmup(void **state)
{
	(void)state;
	memset(&cnt, 0, sizeof cnt);
	struct peak_bench_suite s = suite;
	s.no_calibrate = false;
	s.max_iters = 64; /* calibration stops at the ceiling: bounded and fast */
	struct peak_common_opts c;
	common(&c, 3);
	c.min_time_s = 10; /* never reached below max_iters */
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 1};
	struct peak_result res;
	double samples[3];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&s, &kernels[0], &p, team, &c, NULL, &res, samples, &run, &e), 0);
	/* calibration grows the count to the ceiling (its steps depend on how fast this machine
	 * runs them); its last run, at the ceiling, is the warm-up: then the 3 repetitions at
	 * that count, and no separate warm-up run */
	assert_true(cnt.run > 4);
	assert_int_equal(cnt.most_iters, 64);
	assert_int_equal(cnt.runs_at_most, 1 + 3);
	assert_int_equal(cnt.measured, 3);
	assert_int_equal(run.iters, 64);
	peak_team_destroy(team);
}

static void test_verify_failure_is_one_error(void **state)
{
	(void)state;
	memset(&cnt, 0, sizeof cnt);
	cnt.fail_verify_at = 3; /* the second measured run */
	struct peak_common_opts c;
	common(&c, 5);
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	struct peak_bench_point p = {.threads = 1};
	struct peak_result res;
	double samples[5];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples, &run, &e),
	    -1);
	assert_int_equal(e.code, PEAK_EXIT_FAIL);
	assert_string_equal(e.msg, "checksum 41, expected 42"); /* the first cause is kept */
	assert_int_equal(cnt.teardown, 1);                      /* torn down on error too */
	assert_int_equal(cnt.run, 3);
	peak_team_destroy(team);
}

static void test_sweep_rows_unsupported_and_threads(void **state)
{
	(void)state;
	memset(&cnt, 0, sizeof cnt);
	struct peak_common_opts c;
	common(&c, 2);
	c.threads.n = 2;
	c.threads.v[0] = 1;
	c.threads.v[1] = 2;
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c};
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_sweep(&suite, &cfg, &o, &st, &e), 0);
	/* 2 thread counts x 2 points x 2 kernels */
	assert_int_equal(st.rows, 8);
	assert_int_equal(st.unsupported, 4);
	assert_int_equal(cnt.setup, 4); /* the unsupported kernel is never set up */
	fflush(f);
	rewind(f);
	char line[1024];
	unsigned unsup = 0;
	while (fgets(line, sizeof line, f))
		if (strstr(line, "unsupported: needs avx512f"))
			unsup++;
	assert_int_equal(unsup, 4);
	fclose(f);
	assert_int_equal(peak_bench_exit(&e, "fake"), PEAK_EXIT_OK);
}

static void test_bad_reps_is_usage(void **state)
{
	(void)state;
	struct peak_common_opts c;
	common(&c, 0);
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	struct peak_bench_point p = {.threads = 1};
	struct peak_result res;
	double samples[1];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples, &run, &e),
	    -1);
	assert_int_equal(e.code, PEAK_EXIT_USAGE);
	peak_team_destroy(team);
}

/* A self-timed kernel: the figure is what measure returns, one call per repetition. */
static unsigned measure_calls, measure_fail_at;

static int k_measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	measure_calls++;
	if (measure_fail_at && measure_calls == measure_fail_at)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "peer closed the session");
	*value = r->rep == PEAK_BENCH_NOT_MEASURED ? 1000.0 : 10.0 * (r->rep + 1);
	return 0;
}

static const struct peak_bench_kernel timed[] = {
    {.name = "job",
     .test = "t",
     .metric = "iops",
     .unit = "IOPS",
     .measure = k_measure,
     .verify = k_verify,
     .after_rep = k_after_rep},
};

static void run_timed(bool no_warmup, unsigned fail_at, int want_rc)
{
	memset(&cnt, 0, sizeof cnt);
	measure_calls = 0;
	measure_fail_at = fail_at;
	const struct peak_bench_suite s = {
	    .name = "fake", .kernels = timed, .nkernels = 1, .no_warmup = no_warmup};
	struct peak_common_opts c;
	common(&c, 3);
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 1};
	struct peak_result res;
	double samples[3];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&s, &timed[0], &p, team, &c, NULL, &res, samples, &run, &e),
	    want_rc);
	if (want_rc == 0) {
		/* the warm-up's 1000 is not a sample: 10, 20, 30 */
		assert_int_equal(measure_calls, no_warmup ? 3 : 4);
		assert_int_equal(res.summary.n, 3);
		assert_true(fabs(res.summary.mean - 20.0) < 1e-9);
		assert_int_equal(cnt.verify, 3);
		assert_int_equal(cnt.after_rep, 3);
		assert_null(strstr(res.flags, "contended"));
	} else {
		assert_int_equal(e.code, PEAK_EXIT_FAIL);
		assert_non_null(strstr(e.msg, "peer closed the session"));
	}
	peak_team_destroy(team);
}

static void test_measure_hook_is_the_sample(void **state)
{
	(void)state;
	run_timed(false, 0, 0);
	run_timed(true, 0, 0);
}

static void test_measure_failure_is_one_error(void **state)
{
	(void)state;
	run_timed(false, 3, -1);
}

/* A worker that sleeps through its run is on its CPU for a sliver of the team time: the
 * row is contended and says the share it got, below the 97% threshold. */
static int k_sleep(struct peak_bench_run *r, unsigned idx)
{
	(void)r;
	(void)idx;
	usleep(2000);
	return 0;
}

static void test_contended_records_its_share(void **state)
{
	(void)state;
	static const struct peak_bench_kernel sleepy = {.name = "sleepy",
							.test = "t",
							.metric = "throughput",
							.unit = "GB/s",
							.work_per_iter = 8,
							.run = k_sleep};
	const struct peak_bench_suite s = {
	    .name = "fake", .kernels = &sleepy, .nkernels = 1, .no_calibrate = true};
	struct peak_common_opts c;
	common(&c, 3);
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 1};
	struct peak_result res;
	double samples[3];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&s, &sleepy, &p, team, &c, NULL, &res, samples, &run, &e), 0);
	assert_non_null(strstr(res.flags, "contended"));
	char item[32];
	assert_true(peak_result_flag_item(res.flags, "cpu_share_pct", item, sizeof item));
	double pct = strtod(item + strlen("cpu_share_pct="), NULL);
	assert_true(pct >= 0.0 && pct < 97.0);
	peak_team_destroy(team);
}

/* Per-point state and loop order: a suite whose point_setup makes one int per point, and
 * kernels a, b, c that write what they do to a trace ("Sa" setup, "Wa" warm-up, "a0"
 * repetition 0, "Ra" row, "Ta" teardown; "P1" point setup, "p1" point teardown). */
static void test_bad_peaks_conf_is_usage(void **state)
{
	(void)state;
	char path[] = "/tmp/peak_bench_confXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("cpu.ghz = fast\n", f);
	fclose(f);
	setenv("PEAKBENCH_CONF", path, 1);
	struct peak_config cfg;
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_config(&cfg, &e), -1);
	assert_int_equal(e.code, PEAK_EXIT_USAGE);
	assert_non_null(strstr(e.msg, "peaks.conf: "));
	f = fopen(path, "w");
	fputs("cpu.ghz = 3.5\n", f);
	fclose(f);
	struct peak_bench_err ok = {0};
	assert_int_equal(peak_bench_config(&cfg, &ok), 0);
	assert_int_equal(ok.code, PEAK_EXIT_OK);
	unsetenv("PEAKBENCH_CONF");
	unlink(path);
}

/* A suite whose row hook sets the figure's last input (the peak from a clock measured
 * with the repetitions): the harness's peak hook said a peak the mean is far above, the
 * row hook the real one the mean is 99% of. */
static double k_low_peak(const struct peak_bench_run *r)
{
	(void)r;
	return 1e-9;
}

static int k_row_late_peak(struct peak_bench_run *r, struct peak_result *res,
			   struct peak_output *out, struct peak_bench_err *e)
{
	(void)r;
	(void)out;
	(void)e;
	res->theoretical = res->summary.mean / 0.99;
	return 0;
}

/* A comparison row: its peak another one, the mean twice it by design. */
static int k_row_half_peak(struct peak_bench_run *r, struct peak_result *res,
			   struct peak_output *out, struct peak_bench_err *e)
{
	(void)r;
	(void)out;
	(void)e;
	res->theoretical = res->summary.mean / 2;
	return 0;
}

static void run_one(const struct peak_bench_kernel *k, struct peak_result *res)
{
	struct peak_common_opts c;
	common(&c, 3);
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 1};
	double samples[3];
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(
	    peak_bench_point_run(&suite, k, &p, team, &c, NULL, res, samples, &run, &e), 0);
	peak_team_destroy(team);
}

/* The physics flags are those of the figure recorded: set after the row hook's last input,
 * not from the peak the harness knew before it; a comparison row is never above_peak. */
static void test_physics_flags_follow_the_final_figure(void **state)
{
	(void)state;
	struct peak_bench_kernel late = kernels[0];
	late.peak = k_low_peak;
	late.row = k_row_late_peak;
	struct peak_result res;
	memset(&cnt, 0, sizeof cnt);
	run_one(&late, &res);
	assert_true(fabs(res.efficiency - 0.99) < 1e-9);
	assert_null(strstr(res.flags, "above_peak"));

	struct peak_bench_kernel vs = kernels[0];
	vs.peak = NULL;
	vs.row = k_row_half_peak;
	vs.comparison = true;
	memset(&cnt, 0, sizeof cnt);
	run_one(&vs, &res);
	assert_true(fabs(res.efficiency - 2.0) < 1e-9);
	assert_true(peak_result_has_flag(res.flags, PEAK_COMPARISON_FLAG));
	assert_null(strstr(res.flags, "above_peak"));

	vs.comparison = false; /* the same figure on a physics row is an alarm */
	memset(&cnt, 0, sizeof cnt);
	run_one(&vs, &res);
	assert_non_null(strstr(res.flags, "above_peak"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_point_counts_warmup_and_reps),
	    cmocka_unit_test(test_physics_flags_follow_the_final_figure),
	    cmocka_unit_test(test_calibration_is_the_warmup),
	    cmocka_unit_test(test_verify_failure_is_one_error),
	    cmocka_unit_test(test_sweep_rows_unsupported_and_threads),
	    cmocka_unit_test(test_bad_reps_is_usage),
	    cmocka_unit_test(test_measure_hook_is_the_sample),
	    cmocka_unit_test(test_measure_failure_is_one_error),
	    cmocka_unit_test(test_contended_records_its_share),
	    cmocka_unit_test(test_bad_peaks_conf_is_usage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
