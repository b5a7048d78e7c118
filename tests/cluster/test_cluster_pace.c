/* How an MPI point is bounded by time (cluster_mpi_point.c), on a simulated clock: a
 * repetition runs OSU's count at most and ends once it lasted --min-time, one iteration
 * past it at worst; a slow iteration is seen before many are committed; a bandwidth
 * window grows while an iteration stays within an eighth of --min-time; --point-budget
 * stops repetitions past --reps only, and says so. */
#include "peak_cmocka.h"

#include <string.h>

#include "cluster_mpi.h"

static struct cluster_opts opts(double min_time_s)
{
	struct cluster_opts o;
	memset(&o, 0, sizeof o);
	o.common.min_time_s = min_time_s;
	o.window = 64;
	o.cfg.reps = 3;
	o.cfg.max_reps = 3;
	return o;
}

/* Iterations of iter_s each, paced until the pace says stop; returns those run and the
 * simulated time in *spent_s. The chunks are recorded in chunks (at most 64). */
static unsigned run_paced(double min_s, unsigned most, double iter_s, double *spent_s,
			  unsigned *chunks, unsigned *nchunks)
{
	struct cluster_mpi_pace p;
	double now = 100.0; /* any start */
	unsigned done = 0, k;
	*nchunks = 0;
	cluster_mpi_pace_start(&p, min_s, most, now);
	while ((k = cluster_mpi_pace_next(&p, now)) > 0) {
		assert_true(*nchunks < 64);
		chunks[(*nchunks)++] = k;
		done += k;
		now += k * iter_s;
	}
	*spent_s = now - 100.0;
	return done;
}

static void test_a_repetition_lasts_min_time(void **state)
{
	(void)state;
	unsigned chunks[64], n;
	double spent;
	/* 1 ms iterations, 0.1 s: 1, 1, 2, 4, ... 32 (64 done at 64 ms), then the 36 that fit. */
	assert_int_equal(run_paced(0.1, 10000, 0.001, &spent, chunks, &n), 100);
	assert_int_equal(chunks[0], 1);
	assert_int_equal(chunks[1], 1);
	assert_int_equal(chunks[2], 2);
	assert_int_equal(chunks[n - 1], 36);
	assert_double_equal(spent, 0.1, 1e-9);
}

static void test_osu_count_is_the_most(void **state)
{
	(void)state;
	unsigned chunks[64], n;
	double spent;
	assert_int_equal(run_paced(0.1, 20, 1e-6, &spent, chunks, &n), 20);
	assert_true(spent < 0.1);
}

static void test_a_slow_iteration_ends_it_alone(void **state)
{
	(void)state;
	unsigned chunks[64], n;
	double spent;
	/* A 4 MiB round trip at 25 MB/s each way: one iteration, past --min-time. */
	assert_int_equal(run_paced(0.1, 1000, 0.34, &spent, chunks, &n), 1);
	/* Iterations of 40 ms: 1, 1, then the one that reaches 0.1 s (never 2 past it). */
	assert_int_equal(run_paced(0.1, 1000, 0.04, &spent, chunks, &n), 3);
	assert_true(spent < 0.1 + 0.04 + 1e-9);
}

static void test_window_grows_while_iterations_are_short(void **state)
{
	(void)state;
	struct cluster_opts o = opts(0.1);
	assert_int_equal(cluster_mpi_window_next(&o, 1, 0.001), 2);
	assert_int_equal(cluster_mpi_window_next(&o, 8, 0.0125), 16); /* an eighth: still grows */
	assert_int_equal(cluster_mpi_window_next(&o, 8, 0.02), 8);
	assert_int_equal(cluster_mpi_window_next(&o, 64, 0.0001), 64); /* --window is the most */
	/* One 4 MiB message at 25 MB/s (0.17 s): osu_bw's window of 64 would be 11 s. */
	assert_int_equal(cluster_mpi_window_next(&o, 1, 0.17), 1);
	o.window = 48;
	assert_int_equal(cluster_mpi_window_next(&o, 32, 0.001), 48);
	assert_int_equal(cluster_mpi_window_next(&o, 48, 0.001), 48);
}

static void test_budget_stops_past_reps_only(void **state)
{
	(void)state;
	struct cluster_opts o = opts(0.1);
	o.cfg.ci_pct = 0.001; /* never met by these samples */
	o.cfg.max_reps = 30;
	o.common.point_budget_s = 0.35;
	struct cluster_mpi_point p;
	memset(&p, 0, sizeof p);
	const double v[] = {10, 12, 9, 11};
	/* Below --reps the budget does not count, however much was spent. */
	p.samples[p.nsamples++] = v[0];
	assert_true(cluster_mpi_more(&o, &p, 5.0));
	p.samples[p.nsamples++] = v[1];
	p.samples[p.nsamples++] = v[2];
	/* 3 repetitions in 0.3 s: a fourth (0.1 s more) would pass 0.35 s. */
	assert_false(cluster_mpi_more(&o, &p, 0.3));
	assert_int_equal(p.budget_stopped, 1);
	/* Without a budget --ci goes on to --max-reps. */
	p.budget_stopped = 0;
	o.common.point_budget_s = 0;
	assert_true(cluster_mpi_more(&o, &p, 0.3));
	assert_int_equal(p.budget_stopped, 0);
	/* Without --ci, --reps is enough and the budget is never the reason. */
	o.cfg.ci_pct = 0;
	o.common.point_budget_s = 0.01;
	assert_false(cluster_mpi_more(&o, &p, 0.3));
	assert_int_equal(p.budget_stopped, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_a_repetition_lasts_min_time),
	    cmocka_unit_test(test_osu_count_is_the_most),
	    cmocka_unit_test(test_a_slow_iteration_ends_it_alone),
	    cmocka_unit_test(test_window_grows_while_iterations_are_short),
	    cmocka_unit_test(test_budget_stops_past_reps_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
