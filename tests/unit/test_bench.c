/* peak_bench: a fake suite whose kernels count their calls, fail in verify, or are
 * unsupported; the harness's warm-up, repetitions, calibration, flags and error paths. */
#include "peak_cmocka.h"

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
    {.name = "count", .test = "t", .metric = "throughput", .unit = "GB/s", .work_per_iter = 8,
     .setup = k_setup, .run = k_run, .verify = k_verify, .teardown = k_teardown,
     .peak = k_no_peak, .after_rep = k_after_rep, .row = k_row},
    {.name = "avx512", .test = "t", .metric = "throughput", .unit = "GB/s", .work_per_iter = 8,
     .supported = k_unsupported, .setup = k_setup, .run = k_run},
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

static const struct peak_bench_suite suite = {
    .name = "fake", .kernels = kernels, .nkernels = 2, .point = two_points, .start_iters = 4,
    .no_calibrate = true};

static void common(struct peak_common_opts *c, uint64_t reps)
{
	peak_opts_common_defaults(c);
	c->reps = reps;
	c->min_time_s = 0.0001;
	c->quiet = true;
}

static int open_out(struct peak_output *o, FILE **f)
{
	*f = tmpfile();
	assert_non_null(*f);
	memset(o, 0, sizeof *o);
	o->rep.ops = &peak_report_csv;
	o->rep.out = *f;
	struct peak_context ctx;
	peak_context_init(&ctx);
	return peak_output_begin(o, &ctx);
}

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
	assert_int_equal(peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples,
					      &run, &e),
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

static void test_calibration_runs_before_warmup(void **state)
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
	assert_int_equal(peak_bench_point_run(&s, &kernels[0], &p, team, &c, NULL, &res, samples, &run,
					      &e),
			 0);
	assert_true(cnt.run > 4); /* at least one calibration run besides warm-up and reps */
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
	assert_int_equal(peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples,
					      &run, &e),
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
	assert_int_equal(peak_bench_point_run(&suite, &kernels[0], &p, team, &c, NULL, &res, samples,
					      &run, &e),
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
    {.name = "job", .test = "t", .metric = "iops", .unit = "IOPS", .measure = k_measure,
     .verify = k_verify, .after_rep = k_after_rep},
};

static void run_timed(bool no_warmup, unsigned fail_at, int want_rc)
{
	memset(&cnt, 0, sizeof cnt);
	measure_calls = 0;
	measure_fail_at = fail_at;
	const struct peak_bench_suite s = {.name = "fake", .kernels = timed, .nkernels = 1,
					   .no_warmup = no_warmup};
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
	assert_int_equal(peak_bench_point_run(&s, &timed[0], &p, team, &c, NULL, &res, samples,
					      &run, &e),
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

/* Per-point state and loop order: a suite whose point_setup makes one int per point, and
 * kernels a, b, c that write what they do to a trace ("Sa" setup, "Wa" warm-up, "a0"
 * repetition 0, "Ra" row, "Ta" teardown; "P1" point setup, "p1" point teardown). */
static char trace[1024];
static unsigned psetups, pteardowns, pfail_at, pseen;

static void tr(const char *tok)
{
	strncat(trace, tok, sizeof trace - strlen(trace) - 1);
	strncat(trace, " ", sizeof trace - strlen(trace) - 1);
}

static int p_setup(void *data, const struct peak_bench_point *p, struct peak_team *team,
		   void **ps, struct peak_bench_err *e)
{
	(void)data;
	assert_non_null(team);
	int *v = malloc(sizeof *v);
	assert_non_null(v);
	*v = (int)p->block_bytes;
	psetups++;
	if (pfail_at && psetups == pfail_at) {
		free(v); /* a failed point_setup frees what it made */
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot map 3 arrays");
	}
	char t[16];
	snprintf(t, sizeof t, "P%d", *v);
	tr(t);
	*ps = v;
	return 0;
}

static void p_teardown(void *data, const struct peak_bench_point *p, struct peak_team *team,
		       void *ps)
{
	(void)data;
	(void)team;
	int *v = ps;
	assert_int_equal(*v, (int)p->block_bytes);
	char t[16];
	snprintf(t, sizeof t, "p%d", *v);
	tr(t);
	pteardowns++;
	free(v);
}

static int one_or_two(void *data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	(void)data;
	(void)threads;
	if (i >= 2)
		return 0;
	p->has_block = true;
	p->block_bytes = i + 1;
	return 1;
}

static int t_setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	(void)e;
	char t[8];
	snprintf(t, sizeof t, "S%s", r->k->name);
	tr(t);
	return 0;
}

static int t_run(struct peak_bench_run *r, unsigned idx)
{
	if (idx != 0)
		return 0;
	/* every kernel sees its point's state */
	assert_non_null(r->point_state);
	assert_int_equal(*(int *)r->point_state, (int)r->point->block_bytes);
	pseen++;
	char t[16];
	if (r->rep == PEAK_BENCH_NOT_MEASURED)
		snprintf(t, sizeof t, "W%s", r->k->name);
	else
		snprintf(t, sizeof t, "%s%u", r->k->name, r->rep);
	tr(t);
	return 0;
}

static int t_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		 struct peak_bench_err *e)
{
	(void)res;
	(void)out;
	(void)e;
	char t[8];
	snprintf(t, sizeof t, "R%s", r->k->name);
	tr(t);
	return 0;
}

static void t_teardown(struct peak_bench_run *r)
{
	char t[8];
	snprintf(t, sizeof t, "T%s", r->k->name);
	tr(t);
}

#define TRACE_KERNEL(n)                                                                     \
	{.name = n, .test = "t", .metric = "throughput", .unit = "GB/s", .work_per_iter = 8,      \
	 .setup = t_setup, .run = t_run, .verify = k_verify, .row = t_row,                        \
	 .teardown = t_teardown}

static const struct peak_bench_kernel traced[] = {TRACE_KERNEL("a"), TRACE_KERNEL("b"),
						  TRACE_KERNEL("c")};

static int run_traced(enum peak_bench_order order, unsigned threads, const char *only,
		      struct peak_bench_stats *st, struct peak_bench_err *e, char *csv,
		      size_t csv_len)
{
	memset(&cnt, 0, sizeof cnt);
	trace[0] = '\0';
	psetups = pteardowns = pseen = 0;
	const struct peak_bench_suite s = {.name = "fake", .kernels = traced, .nkernels = 3,
					   .point = one_or_two, .no_calibrate = true,
					   .start_iters = 2, .point_setup = p_setup,
					   .point_teardown = p_teardown, .order = order};
	struct peak_common_opts c;
	common(&c, 2);
	c.threads.n = 1;
	c.threads.v[0] = threads;
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c, .only = only};
	int rc = peak_bench_sweep(&s, &cfg, &o, st, e);
	fflush(f);
	rewind(f);
	size_t n = fread(csv, 1, csv_len - 1, f);
	csv[n] = '\0';
	fclose(f);
	return rc;
}

static void test_point_setup_once_per_point(void **state)
{
	(void)state;
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	char csv[4096];
	assert_int_equal(run_traced(PEAK_BENCH_ORDER_KERNEL, 2, NULL, &st, &e, csv, sizeof csv), 0);
	assert_int_equal(psetups, 2); /* 2 points, 3 kernels each: one setup per point */
	assert_int_equal(pteardowns, 2);
	assert_int_equal(st.rows, 6);
	assert_int_equal(pseen, 2 * 3 * 3); /* warm-up + 2 reps, 3 kernels, 2 points */
	/* today's order: each kernel's runs back to back, between its point's setup and
	 * teardown */
	assert_string_equal(trace, "P1 Sa Wa a0 a1 Ra Ta Sb Wb b0 b1 Rb Tb Sc Wc c0 c1 Rc Tc p1 "
				   "P2 Sa Wa a0 a1 Ra Ta Sb Wb b0 b1 Rb Tb Sc Wc c0 c1 Rc Tc p2 ");
}

/* Row i of the CSV (0: header) has variant v, in order. */
static void assert_variants(const char *csv, const char *const *v, size_t n)
{
	const char *line = strchr(csv, '\n');
	for (size_t i = 0; i < n; i++) {
		assert_non_null(line);
		char want[32];
		snprintf(want, sizeof want, "\nfake,t,%s,", v[i]);
		assert_true(strncmp(line, want, strlen(want)) == 0);
		line = strchr(line + 1, '\n');
	}
	assert_true(line == NULL || line[1] == '\0');
}

static void test_round_robin_order(void **state)
{
	(void)state;
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	char csv[4096];
	assert_int_equal(run_traced(PEAK_BENCH_ORDER_ROUND_ROBIN, 1, NULL, &st, &e, csv, sizeof csv),
			 0);
	assert_int_equal(st.rows, 6);
	assert_int_equal(psetups, 2);
	assert_int_equal(pteardowns, 2);
	/* every kernel set up and warmed up, then rep by rep every kernel, then rows in table
	 * order, each torn down after its row */
	assert_string_equal(trace, "P1 Sa Wa Sb Wb Sc Wc a0 b0 c0 a1 b1 c1 Ra Ta Rb Tb Rc Tc p1 "
				   "P2 Sa Wa Sb Wb Sc Wc a0 b0 c0 a1 b1 c1 Ra Ta Rb Tb Rc Tc p2 ");
	static const char *const rows[] = {"a", "b", "c", "a", "b", "c"};
	assert_variants(csv, rows, 6);
	/* --only keeps one kernel of the round */
	assert_int_equal(run_traced(PEAK_BENCH_ORDER_ROUND_ROBIN, 1, "b", &st, &e, csv, sizeof csv),
			 0);
	assert_int_equal(st.rows, 2);
	assert_string_equal(trace, "P1 Sb Wb b0 b1 Rb Tb p1 P2 Sb Wb b0 b1 Rb Tb p2 ");
}

static void test_round_robin_failure_tears_all_down(void **state)
{
	(void)state;
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	memset(&cnt, 0, sizeof cnt);
	/* verify calls: Wa Wb Wc a0 b0 -> the 5th (b's first repetition) fails */
	trace[0] = '\0';
	psetups = pteardowns = 0;
	const struct peak_bench_suite s = {.name = "fake", .kernels = traced, .nkernels = 3,
					   .point = one_or_two, .no_calibrate = true,
					   .point_setup = p_setup, .point_teardown = p_teardown,
					   .order = PEAK_BENCH_ORDER_ROUND_ROBIN};
	struct peak_common_opts c;
	common(&c, 2);
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c};
	cnt.fail_verify_at = 5;
	assert_int_equal(peak_bench_sweep(&s, &cfg, &o, &st, &e), -1);
	fclose(f);
	assert_int_equal(e.code, PEAK_EXIT_FAIL);
	assert_string_equal(e.msg, "checksum 41, expected 42");
	assert_int_equal(st.rows, 0);
	assert_int_equal(st.failed, 1);
	/* no row, every kernel torn down, the point torn down, no second point */
	assert_string_equal(trace, "P1 Sa Wa Sb Wb Sc Wc a0 b0 Ta Tb Tc p1 ");
}

static void test_point_setup_failure_stops_the_sweep(void **state)
{
	(void)state;
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	char csv[4096];
	pfail_at = 2; /* the second point cannot be set up */
	int rc = run_traced(PEAK_BENCH_ORDER_ROUND_ROBIN, 1, NULL, &st, &e, csv, sizeof csv);
	pfail_at = 0;
	assert_int_equal(rc, -1);
	assert_int_equal(e.code, PEAK_EXIT_FAIL);
	assert_string_equal(e.msg, "cannot map 3 arrays"); /* the first cause is kept */
	assert_int_equal(psetups, 2);
	assert_int_equal(pteardowns, 1); /* only the point that was set up */
	assert_int_equal(st.rows, 3);    /* the first point's rows, nothing of the second */
	assert_int_equal(st.failed, 1);
	assert_string_equal(trace, "P1 Sa Wa Sb Wb Sc Wc a0 b0 c0 a1 b1 c1 Ra Ta Rb Tb Rc Tc p1 ");
	assert_int_equal(peak_bench_exit(&e, "fake"), PEAK_EXIT_FAIL);
}

/* Extra rows: kernel "a" adds a row "a+" after its own, before its teardown. */
static int t_extra(struct peak_bench_run *r, const struct peak_result *main,
		   struct peak_output *out, struct peak_bench_err *e)
{
	(void)e;
	char t[8];
	snprintf(t, sizeof t, "X%s", r->k->name);
	tr(t);
	assert_int_equal(main->summary.n, 2); /* the main row, measured and summarized */
	struct peak_result x = *main;
	snprintf(x.variant, sizeof x.variant, "%.8s+", main->variant);
	return peak_output_record(out, &x);
}

static const struct peak_bench_kernel with_extra[] = {
    {.name = "a", .test = "t", .metric = "throughput", .unit = "GB/s", .work_per_iter = 8,
     .setup = t_setup, .run = t_run, .row = t_row, .teardown = t_teardown,
     .extra_rows = t_extra},
    TRACE_KERNEL("b"),
};

static void test_extra_rows_follow_the_row(void **state)
{
	(void)state;
	for (int order = PEAK_BENCH_ORDER_KERNEL; order <= PEAK_BENCH_ORDER_ROUND_ROBIN; order++) {
		memset(&cnt, 0, sizeof cnt);
		trace[0] = '\0';
		const struct peak_bench_suite s = {
		    .name = "fake", .kernels = with_extra, .nkernels = 2, .point = one_or_two,
		    .no_calibrate = true, .point_setup = p_setup, .point_teardown = p_teardown,
		    .order = (enum peak_bench_order)order};
		struct peak_common_opts c;
		common(&c, 2);
		struct peak_output o;
		FILE *f;
		assert_int_equal(open_out(&o, &f), 0);
		struct peak_bench_cfg cfg = {.common = &c};
		struct peak_bench_stats st;
		struct peak_bench_err e = {0};
		assert_int_equal(peak_bench_sweep(&s, &cfg, &o, &st, &e), 0);
		fflush(f);
		rewind(f);
		char csv[4096];
		size_t n = fread(csv, 1, sizeof csv - 1, f);
		csv[n] = '\0';
		fclose(f);
		static const char *const rows[] = {"a", "a+", "b", "a", "a+", "b"};
		assert_variants(csv, rows, 6);
		assert_int_equal(st.rows, 4); /* the kernels' rows; extra rows are the hook's */
		assert_string_equal(trace, order == PEAK_BENCH_ORDER_KERNEL
					       ? "P1 Sa Wa a0 a1 Ra Xa Ta Sb Wb b0 b1 Rb Tb p1 "
						 "P2 Sa Wa a0 a1 Ra Xa Ta Sb Wb b0 b1 Rb Tb p2 "
					       : "P1 Sa Wa Sb Wb a0 b0 a1 b1 Ra Xa Ta Rb Tb p1 "
						 "P2 Sa Wa Sb Wb a0 b0 a1 b1 Ra Xa Ta Rb Tb p2 ");
	}
}

/* threads_inner: points outermost, each thread count on its own team per point. */
static void test_threads_inner_order(void **state)
{
	(void)state;
	memset(&cnt, 0, sizeof cnt);
	trace[0] = '\0';
	psetups = pteardowns = 0;
	const struct peak_bench_suite s = {.name = "fake", .kernels = traced, .nkernels = 3,
					   .point = one_or_two, .no_calibrate = true,
					   .point_setup = p_setup, .point_teardown = p_teardown,
					   .threads_inner = true};
	struct peak_common_opts c;
	common(&c, 2);
	c.threads.n = 2;
	c.threads.v[0] = 1;
	c.threads.v[1] = 2;
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c, .only = "a"};
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_sweep(&s, &cfg, &o, &st, &e), 0);
	assert_int_equal(st.rows, 4);
	assert_int_equal(psetups, 4); /* per point and thread count */
	assert_int_equal(pteardowns, 4);
	fflush(f);
	rewind(f);
	char line[1024];
	static const char *const want[] = {"fake,t,a,1,1,", "fake,t,a,2,1,", "fake,t,a,1,2,",
					   "fake,t,a,2,2,"};
	assert_non_null(fgets(line, sizeof line, f)); /* header */
	for (size_t i = 0; i < 4; i++) {
		assert_non_null(fgets(line, sizeof line, f));
		assert_true(strncmp(line, want[i], strlen(want[i])) == 0);
	}
	assert_null(fgets(line, sizeof line, f));
	fclose(f);
}

/* What a point decides for its rows: the variant (variant_at), the work per iteration
 * (work_at), the calibration's first count and whether a peak bounds it (a cached working set has none and is not flagged no_peak). */
static uint64_t iters_seen[2];

static int cached_then_not(void *data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	(void)data;
	(void)threads;
	if (i >= 2)
		return 0;
	p->has_block = true;
	p->block_bytes = i + 1;
	p->start_iters = i == 0 ? 3 : 0;
	p->peak_not_applicable = i == 0;
	return 1;
}

static int v_run(struct peak_bench_run *r, unsigned idx)
{
	if (idx == 0)
		iters_seen[r->point->block_bytes - 1] = r->iters;
	return 0;
}

static double v_peak(const struct peak_bench_run *r)
{
	(void)r;
	return 100.0;
}

static void v_variant(const struct peak_bench_run *r, char *buf, size_t len)
{
	snprintf(buf, len, "v%u-%s", (unsigned)r->point->block_bytes, r->k->name);
}

/* 1e9 per iteration at block 1, none at block 2: the samples tell which was used */
static double v_work(const struct peak_bench_run *r)
{
	return r->point->block_bytes == 1 ? 1e9 : 0;
}

static const struct peak_bench_kernel per_point[] = {
    {.name = "k", .test = "t", .metric = "throughput", .unit = "GB/s", .work_per_iter = 8,
     .run = v_run, .peak = v_peak, .variant_at = v_variant, .work_at = v_work},
};

static void test_point_variant_start_and_peak(void **state)
{
	(void)state;
	const struct peak_bench_suite s = {.name = "fake", .kernels = per_point, .nkernels = 1,
					   .point = cached_then_not, .no_calibrate = true,
					   .start_iters = 5};
	struct peak_common_opts c;
	common(&c, 2);
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c};
	struct peak_bench_stats st;
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_sweep(&s, &cfg, &o, &st, &e), 0);
	assert_int_equal(st.rows, 2);
	assert_int_equal(iters_seen[0], 3); /* the point's start */
	assert_int_equal(iters_seen[1], 5); /* the suite's */
	fflush(f);
	rewind(f);
	char line[1024], rows[2][1024];
	assert_non_null(fgets(line, sizeof line, f)); /* header */
	assert_non_null(fgets(rows[0], sizeof rows[0], f));
	assert_non_null(fgets(rows[1], sizeof rows[1], f));
	fclose(f);
	assert_true(strncmp(rows[0], "fake,t,v1-k,", 12) == 0);
	assert_true(strncmp(rows[1], "fake,t,v2-k,", 12) == 0);
	assert_null(strstr(rows[0], "no_peak"));
	assert_null(strstr(rows[0], ",100,")); /* no theoretical at the cached point */
	assert_non_null(strstr(rows[1], ",100,"));
	assert_non_null(strstr(rows[1], "zero")); /* work_at 0: a zero figure, flagged */
	assert_null(strstr(rows[0], "zero"));
}

/* One peaks.conf policy: a file that does not parse is bad input (exit 2), said once. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_point_counts_warmup_and_reps),
	    cmocka_unit_test(test_calibration_runs_before_warmup),
	    cmocka_unit_test(test_verify_failure_is_one_error),
	    cmocka_unit_test(test_sweep_rows_unsupported_and_threads),
	    cmocka_unit_test(test_bad_reps_is_usage),
	    cmocka_unit_test(test_measure_hook_is_the_sample),
	    cmocka_unit_test(test_measure_failure_is_one_error),
	    cmocka_unit_test(test_bad_peaks_conf_is_usage),
	    cmocka_unit_test(test_point_setup_once_per_point),
	    cmocka_unit_test(test_round_robin_order),
	    cmocka_unit_test(test_round_robin_failure_tears_all_down),
	    cmocka_unit_test(test_point_setup_failure_stops_the_sweep),
	    cmocka_unit_test(test_point_variant_start_and_peak),
	    cmocka_unit_test(test_extra_rows_follow_the_row),
	    cmocka_unit_test(test_threads_inner_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
