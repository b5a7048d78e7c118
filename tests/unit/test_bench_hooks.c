/* peak_bench's hooks on a fake suite whose kernels trace their calls: the suite's
 * point_setup/point_teardown, kernel-after-kernel and round-robin orders, extra rows after
 * a kernel's row, threads_inner, and a point's own variant, work, calibration start and
 * peak. */
#include "bench_fake.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_bench.h"
#include "peak_peak.h"

static char trace[1024];
static unsigned psetups, pteardowns, pfail_at, pseen;
static unsigned verifies, verify_fail_at; /* verify call number that fails; 0: never */

static int t_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	(void)r;
	verifies++;
	if (verify_fail_at && verifies == verify_fail_at)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "checksum 41, expected 42");
	return 0;
}

/* Before each sweep: an empty trace and zeroed call counters (pfail_at is the test's). */
static void trace_reset(void)
{
	trace[0] = '\0';
	psetups = pteardowns = pseen = 0;
	verifies = verify_fail_at = 0;
}

static void tr(const char *tok)
{
	strncat(trace, tok, sizeof trace - strlen(trace) - 1);
	strncat(trace, " ", sizeof trace - strlen(trace) - 1);
}

static int p_setup(void *data, const struct peak_bench_point *p, struct peak_team *team, void **ps,
		   struct peak_bench_err *e)
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

#define TRACE_KERNEL(n)                                                                            \
	{                                                                                          \
		.name = n, .test = "t", .metric = "throughput", .unit = "GB/s",                    \
		.work_per_iter = 8, .setup = t_setup, .run = t_run, .verify = t_verify,            \
		.row = t_row, .teardown = t_teardown                                               \
	}

static const struct peak_bench_kernel traced[] = {TRACE_KERNEL("a"), TRACE_KERNEL("b"),
						  TRACE_KERNEL("c")};

/* The traced kernels over one_or_two's points with the traced point hooks, uncalibrated;
 * each test sets what it is about (the order, threads_inner, other kernels). */
static struct peak_bench_suite traced_suite(void)
{
	return (struct peak_bench_suite){.name = "fake",
					 .kernels = traced,
					 .nkernels = 3,
					 .point = one_or_two,
					 .no_calibrate = true,
					 .point_setup = p_setup,
					 .point_teardown = p_teardown};
}

static int run_traced(enum peak_bench_order order, unsigned threads, const char *only,
		      struct peak_bench_stats *st, struct peak_bench_err *e, char *csv,
		      size_t csv_len)
{
	trace_reset();
	struct peak_bench_suite s = traced_suite();
	s.start_iters = 2;
	s.order = order;
	struct peak_common_opts c;
	common(&c, 2);
	c.threads.n = 1;
	c.threads.v[0] = threads;
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c, .only = only};
	int rc = peak_bench_sweep(&s, &cfg, &o, st, e);
	read_back(f, csv, csv_len);
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
	assert_int_equal(
	    run_traced(PEAK_BENCH_ORDER_ROUND_ROBIN, 1, NULL, &st, &e, csv, sizeof csv), 0);
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
	/* verify calls: Wa Wb Wc a0 b0 -> the 5th (b's first repetition) fails */
	trace_reset();
	struct peak_bench_suite s = traced_suite();
	s.order = PEAK_BENCH_ORDER_ROUND_ROBIN;
	struct peak_common_opts c;
	common(&c, 2);
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c};
	verify_fail_at = 5;
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
    {.name = "a",
     .test = "t",
     .metric = "throughput",
     .unit = "GB/s",
     .work_per_iter = 8,
     .setup = t_setup,
     .run = t_run,
     .row = t_row,
     .teardown = t_teardown,
     .extra_rows = t_extra},
    TRACE_KERNEL("b"),
};

static void test_extra_rows_follow_the_row(void **state)
{
	(void)state;
	for (int order = PEAK_BENCH_ORDER_KERNEL; order <= PEAK_BENCH_ORDER_ROUND_ROBIN; order++) {
		trace_reset();
		struct peak_bench_suite s = traced_suite();
		s.kernels = with_extra;
		s.nkernels = 2;
		s.order = (enum peak_bench_order)order;
		struct peak_common_opts c;
		common(&c, 2);
		struct peak_output o;
		FILE *f;
		assert_int_equal(open_out(&o, &f), 0);
		struct peak_bench_cfg cfg = {.common = &c};
		struct peak_bench_stats st;
		struct peak_bench_err e = {0};
		assert_int_equal(peak_bench_sweep(&s, &cfg, &o, &st, &e), 0);
		char csv[4096];
		read_back(f, csv, sizeof csv);
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
	trace_reset();
	struct peak_bench_suite s = traced_suite();
	s.threads_inner = true;
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
 * (work_at), the calibration's first count and whether a peak bounds it (a cached working set has
 * none and is not flagged no_peak). */
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
    {.name = "k",
     .test = "t",
     .metric = "throughput",
     .unit = "GB/s",
     .work_per_iter = 8,
     .run = v_run,
     .peak = v_peak,
     .variant_at = v_variant,
     .work_at = v_work},
};

static void test_point_variant_start_and_peak(void **state)
{
	(void)state;
	const struct peak_bench_suite s = {.name = "fake",
					   .kernels = per_point,
					   .nkernels = 1,
					   .point = cached_then_not,
					   .no_calibrate = true,
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
