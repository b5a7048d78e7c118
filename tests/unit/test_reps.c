/* Adaptive repetitions: the stopping rule (peak_stats_enough) on known samples, and the
 * harness running it on scripted samples: a tight point stops at --reps, a noisy one runs
 * to the cap flagged ci_wide with its width, a bimodal one keeps every sample of both
 * modes, --ci 0 keeps fixed reps, round robin keeps one count. */
#include "bench_fake.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_bench.h"
#include "peak_stats.h"
#include "peak_time.h"

/* Full width of the 95% interval in % of the mean: (ci95_high - ci95_low) / mean. */
static void test_width_known_answers(void **state)
{
	(void)state;
	const double x[] = {99, 100, 101}; /* sd 1, t(2) = 4.303 */
	assert_double_equal(peak_stats_ci_width_pct(x, 3), 2 * 4.303 / sqrt(3.0), 1e-9);
	struct peak_summary s;
	peak_stats_summarize(x, 3, &s);
	assert_double_equal(peak_stats_ci_width_pct(x, 3),
			    100.0 * (s.ci95_high - s.ci95_low) / s.mean, 1e-9);
	const double same[] = {7, 7, 7}, around_zero[] = {-1, 1};
	assert_double_equal(peak_stats_ci_width_pct(same, 3), 0.0, 0);
	assert_true(isinf(peak_stats_ci_width_pct(x, 1)));           /* no interval */
	assert_true(isinf(peak_stats_ci_width_pct(around_zero, 2))); /* no relative width */
}

static void test_enough_rule(void **state)
{
	(void)state;
	const double tight[] = {100, 100.1, 99.9, 100};
	const double wide[] = {90, 110, 90, 110, 90, 110, 90, 110, 90, 110, 90, 110};
	assert_false(peak_stats_enough(tight, 2, 3, 12, 2.0)); /* never before --reps */
	assert_true(peak_stats_enough(tight, 3, 3, 12, 2.0));  /* 0.50% wide */
	assert_false(peak_stats_enough(wide, 3, 3, 12, 2.0));
	assert_false(peak_stats_enough(wide, 11, 3, 12, 2.0));
	assert_true(peak_stats_enough(wide, 12, 3, 12, 2.0)); /* the cap */
	assert_true(peak_stats_enough(wide, 3, 3, 12, 0.0));  /* off: exactly --reps */
	assert_false(peak_stats_enough(wide, 2, 3, 12, 0.0));
	assert_true(peak_stats_enough(wide, 3, 3, 1, 2.0));   /* a cap below --reps is --reps */
	assert_false(peak_stats_enough(tight, 1, 1, 4, 2.0)); /* one sample: no interval yet */
	assert_true(peak_stats_enough(tight, 1, 1, 4, 0.0));
}

/* A measure kernel whose repetitions return a script, cycled; the warm-up returns a figure
 * that must not become a sample. verify records where the harness said last_rep. */
struct script {
	const double *v;
	size_t len;
	unsigned measured, lasts, last_at;
};

static int s_measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	struct script *sc = r->k->data;
	(void)e;
	if (r->rep == PEAK_BENCH_NOT_MEASURED) {
		*value = 1e9;
		return 0;
	}
	assert_int_equal(r->rep, sc->measured);
	*value = sc->v[sc->measured++ % sc->len];
	return 0;
}

static int s_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct script *sc = r->k->data;
	(void)e;
	assert_int_equal(r->nreps, r->rep + 1);
	if (r->last_rep) {
		sc->lasts++;
		sc->last_at = r->nreps;
	}
	return 0;
}

#define SCRIPTED(nm, sc)                                                                           \
	{                                                                                          \
		.name = nm, .test = "t", .metric = "throughput", .unit = "GB/s",                   \
		.measure = s_measure, .verify = s_verify, .data = sc                               \
	}

static double samples[PEAK_BENCH_MAX_REPS];

/* The kernel of a --point-budget test waits for the clock to tick once per repetition, so
 * its measured time is never zero whatever the clock's resolution. */
static int s_measure_ticking(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	uint64_t t0 = peak_time_now_ns();
	while (peak_time_now_ns() == t0)
		;
	return s_measure(r, value, e);
}

/* One point of the scripted kernel under options c (ticking: s_measure_ticking). */
static void run_with(struct script *sc, const struct peak_common_opts *c, bool ticking,
		     struct peak_result *res)
{
	struct peak_bench_kernel k = SCRIPTED("k", sc);
	if (ticking)
		k.measure = s_measure_ticking;
	const struct peak_bench_suite s = {.name = "fake", .kernels = &k, .nkernels = 1};
	sc->measured = sc->lasts = sc->last_at = 0;
	char err[128];
	struct peak_team *team = peak_team_create(1, false, err, sizeof err);
	assert_non_null(team);
	struct peak_bench_point p = {.threads = 1};
	struct peak_bench_run run;
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_point_run(&s, &k, &p, team, c, NULL, res, samples, &run, &e),
			 0);
	peak_team_destroy(team);
	/* n is the count run, every sample kept, and verify saw one last repetition: the last */
	assert_int_equal(res->summary.n, sc->measured);
	assert_int_equal(res->nsamples, sc->measured);
	for (unsigned i = 0; i < sc->measured; i++)
		assert_double_equal(res->samples[i], sc->v[i % sc->len], 0);
	assert_int_equal(sc->lasts, 1);
	assert_int_equal(sc->last_at, sc->measured);
}

/* One point with --reps reps, --ci ci, --max-reps max (0: default). */
static void run_one(struct script *sc, uint64_t reps, double ci, uint64_t max,
		    struct peak_result *res)
{
	struct peak_common_opts c;
	common(&c, reps);
	c.ci_pct = ci;
	c.max_reps = max;
	run_with(sc, &c, false, res);
}

/* One point with --reps 3 --ci 2 --point-budget budget_s. */
static void run_budget(struct script *sc, double budget_s, struct peak_result *res)
{
	struct peak_common_opts c;
	common(&c, 3);
	c.ci_pct = 2.0;
	c.point_budget_s = budget_s;
	run_with(sc, &c, true, res);
}

static const double tight_v[] = {100, 100.2, 99.8};
static const double noisy_v[] = {90, 110};
static const double modes_v[] = {50, 100};

static void test_tight_point_stops_at_reps(void **state)
{
	(void)state;
	struct script sc = {tight_v, 3, 0, 0, 0};
	struct peak_result res;
	run_one(&sc, 3, 2.0, 0, &res);
	assert_int_equal(sc.measured, 3);
	assert_null(strstr(res.flags, "ci_wide"));
}

static void test_noisy_point_runs_to_cap_flagged(void **state)
{
	(void)state;
	struct script sc = {noisy_v, 2, 0, 0, 0};
	struct peak_result res;
	run_one(&sc, 3, 2.0, 0, &res); /* default cap: 4 x --reps */
	assert_int_equal(sc.measured, 12);
	/* 90, 110 six times: sd 10.4447, t(11) 2.201: 13.27% wide, rounded up to a tenth */
	assert_non_null(strstr(res.flags, "ci_wide=13.3"));
	assert_double_equal(100.0 * (res.summary.ci95_high - res.summary.ci95_low) /
				res.summary.mean,
			    13.2725, 1e-3);
	run_one(&sc, 3, 2.0, 5, &res); /* --max-reps 5 */
	assert_int_equal(sc.measured, 5);
	assert_non_null(strstr(res.flags, "ci_wide=27.8"));
	run_one(&sc, 3, 30.0, 0, &res); /* 59.3% wide at 3, 36.7% at 4, 27.8% at 5 */
	assert_int_equal(sc.measured, 5);
	assert_null(strstr(res.flags, "ci_wide"));
}

/* --point-budget: a noisy point past --reps goes on only while its measured time allows
 * one more repetition. */
static void test_point_budget_stops_past_reps(void **state)
{
	(void)state;
	struct script sc = {noisy_v, 2, 0, 0, 0};
	struct peak_result res;
	run_budget(&sc, 1e-9, &res); /* spent before the budget: --reps, never fewer */
	assert_int_equal(sc.measured, 3);
	assert_non_null(strstr(res.flags, "ci_wide="));
	run_budget(&sc, 1e6, &res); /* room to spare: the cap, as without a budget */
	assert_int_equal(sc.measured, 12);
	run_budget(&sc, 0, &res); /* 0: no budget */
	assert_int_equal(sc.measured, 12);
}

static void test_bimodal_point_keeps_both_modes(void **state)
{
	(void)state;
	struct script sc = {modes_v, 2, 0, 0, 0};
	struct peak_result res;
	run_one(&sc, 3, 2.0, 8, &res);
	assert_int_equal(sc.measured, 8);
	assert_non_null(strstr(res.flags, "ci_wide=59.6"));
	/* every sample of both modes kept, for the results program's one bimodal rule
	 * (bimodal.modes, tests/results/test_finish.py) */
	unsigned low = 0, high = 0;
	for (size_t i = 0; i < res.nsamples; i++) {
		low += res.samples[i] == 50.0;
		high += res.samples[i] == 100.0;
	}
	assert_int_equal(low, 4);
	assert_int_equal(high, 4);
}

static void test_ci_off_is_fixed_reps(void **state)
{
	(void)state;
	struct script sc = {noisy_v, 2, 0, 0, 0};
	struct peak_result res;
	run_one(&sc, 3, 0.0, 0, &res);
	assert_int_equal(sc.measured, 3);
	assert_null(strstr(res.flags, "ci_wide"));
	run_one(&sc, 3, 0.0, 10, &res); /* the cap means nothing without a target */
	assert_int_equal(sc.measured, 3);
}

static void test_one_rep_needs_a_second(void **state)
{
	(void)state;
	static const double same[] = {100};
	struct script sc = {same, 1, 0, 0, 0};
	struct peak_result res;
	run_one(&sc, 1, 2.0, 0, &res);
	assert_int_equal(sc.measured, 2); /* one sample has no interval; two equal ones do */
	assert_null(strstr(res.flags, "ci_wide"));
}

/* Field i (0-based) of CSV line `line` into out. */
static void csv_field(const char *line, int i, char *out, size_t len)
{
	for (; i > 0 && line; i--)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	assert_non_null(line);
	size_t n = strcspn(line, ",\n");
	assert_true(n < len);
	memcpy(out, line, n);
	out[n] = '\0';
}

/* Kernel order: each kernel its own count. Round robin: one count for all (rounds go on
 * while any kernel wants more), each flagged by its own width. */
static void run_pair(enum peak_bench_order order, const char *want_a_n, const char *want_b_n)
{
	struct script a = {tight_v, 3, 0, 0, 0}, b = {noisy_v, 2, 0, 0, 0};
	const struct peak_bench_kernel ks[] = {SCRIPTED("a", &a), SCRIPTED("b", &b)};
	const struct peak_bench_suite s = {
	    .name = "fake", .kernels = ks, .nkernels = 2, .order = order};
	struct peak_common_opts c;
	common(&c, 3);
	c.ci_pct = 2.0;
	c.max_reps = 6;
	struct peak_output o;
	FILE *f;
	assert_int_equal(open_out(&o, &f), 0);
	struct peak_bench_cfg cfg = {.common = &c};
	struct peak_bench_err e = {0};
	assert_int_equal(peak_bench_sweep(&s, &cfg, &o, NULL, &e), 0);
	char csv[4096], n[16], flags[200];
	read_back(f, csv, sizeof csv);
	const char *row_a = strchr(csv, '\n') + 1, *row_b = strchr(row_a, '\n') + 1;
	csv_field(row_a, 7, n, sizeof n);
	assert_string_equal(n, want_a_n);
	csv_field(row_a, 23, flags, sizeof flags);
	assert_null(strstr(flags, "ci_wide"));
	csv_field(row_b, 7, n, sizeof n);
	assert_string_equal(n, want_b_n);
	csv_field(row_b, 23, flags, sizeof flags);
	assert_non_null(strstr(flags, "ci_wide="));
	assert_int_equal(b.lasts, 1);
	/* round robin knows the last round only at the cap: a tight kernel sees it there */
	assert_int_equal(a.lasts, 1);
}

static void test_kernel_order_counts_apart(void **state)
{
	(void)state;
	run_pair(PEAK_BENCH_ORDER_KERNEL, "3", "6");
}

static void test_round_robin_one_count(void **state)
{
	(void)state;
	run_pair(PEAK_BENCH_ORDER_ROUND_ROBIN, "6", "6");
}

/* A suite that rebuilds the harness's row keeps its flag, bare or with its value. */
static void test_flag_copy(void **state)
{
	(void)state;
	struct peak_result r;
	peak_result_init(&r, "s", "t", "v", "m", "u");
	peak_result_flag_copy(&r, "steal;ci_widex=1;ci_wide=5.3;zero", "ci_wide");
	assert_string_equal(r.flags, "ci_wide=5.3");
	peak_result_init(&r, "s", "t", "v", "m", "u");
	peak_result_flag_copy(&r, "steal;ci_wide", "ci_wide");
	assert_string_equal(r.flags, "ci_wide");
	peak_result_init(&r, "s", "t", "v", "m", "u");
	peak_result_flag_copy(&r, "steal;ci_widest", "ci_wide");
	assert_string_equal(r.flags, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_width_known_answers),
	    cmocka_unit_test(test_enough_rule),
	    cmocka_unit_test(test_tight_point_stops_at_reps),
	    cmocka_unit_test(test_noisy_point_runs_to_cap_flagged),
	    cmocka_unit_test(test_point_budget_stops_past_reps),
	    cmocka_unit_test(test_bimodal_point_keeps_both_modes),
	    cmocka_unit_test(test_ci_off_is_fixed_reps),
	    cmocka_unit_test(test_one_rep_needs_a_second),
	    cmocka_unit_test(test_kernel_order_counts_apart),
	    cmocka_unit_test(test_round_robin_one_count),
	    cmocka_unit_test(test_flag_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
