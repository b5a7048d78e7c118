/* peak_steal: percent stolen between two /proc/stat readings (a fake /proc under a temp
 * root), of all CPU time and of busy time, unknown when nothing can be read or no tick went
 * by, and the "steal" flag (with steal_pct, the busy share) only above 1%. */
#include "peak_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peak_row_flags.h"
#include "peak_steal.h"

static char root[64];

/* /proc/stat's first line: user nice system idle iowait irq softirq steal. */
static void write_stat_user(unsigned long long user, unsigned long long idle,
			    unsigned long long steal)
{
	char path[96];
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "cpu  %llu 0 50 %llu 0 0 0 %llu 0 0\ncpu0 50 0 25 1 0 0 0 0 0 0\n", user, idle,
		steal);
	fclose(f);
}

static void write_stat(unsigned long long idle, unsigned long long steal)
{
	write_stat_user(100, idle, steal);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/peak_steal.XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	char proc[96];
	snprintf(proc, sizeof(proc), "%s/proc", root);
	return mkdir(proc, 0700);
}

static int teardown(void **state)
{
	(void)state;
	char path[96];
	snprintf(path, sizeof(path), "%s/proc/stat", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc", root);
	rmdir(path);
	rmdir(root);
	return 0;
}

static void test_between(void **state)
{
	(void)state;
	assert_float_equal(peak_steal_pct_between(10, 1000, 30, 2000), 2.0, 1e-12);
	assert_float_equal(peak_steal_pct_between(10, 1000, 10, 2000), 0.0, 1e-12);
	assert_true(isnan(peak_steal_pct_between(10, 1000, 20, 1000))); /* no tick */
	assert_true(isnan(peak_steal_pct_between(30, 1000, 20, 2000))); /* counter went back */
}

static void test_window_over_fake_proc(void **state)
{
	(void)state;
	struct peak_steal s;
	write_stat(845, 5); /* total 1000 */
	peak_steal_begin_at(&s, root);
	assert_true(s.ok);
	write_stat(1825, 25); /* total 2000: 20 of 1000 ticks stolen */
	assert_float_equal(peak_steal_pct(&s), 2.0, 1e-9);
	write_stat(1850, 0); /* steal went backwards: not a number */
	assert_true(isnan(peak_steal_pct(&s)));

	/* Two vCPUs for 1000 ticks, one busy (960 user, 40 stolen), one idle: 2% of all the
	 * time was stolen, but 4% of the busy vCPU's, which is what its thread lost. */
	write_stat_user(100, 845, 5); /* total 1000 */
	peak_steal_begin_at(&s, root);
	write_stat_user(1060, 1845, 45); /* total 3000 */
	struct peak_steal_share sh = peak_steal_share(&s);
	assert_float_equal(sh.all_pct, 2.0, 1e-9);
	assert_float_equal(sh.busy_pct, 4.0, 1e-9);
	write_stat_user(1060, 1845, 0); /* steal went backwards: both unknown */
	sh = peak_steal_share(&s);
	assert_true(isnan(sh.all_pct) && isnan(sh.busy_pct));
}

static void test_unreadable_is_unknown(void **state)
{
	(void)state;
	struct peak_steal s;
	peak_steal_begin_at(&s, "/nonexistent-peak-root");
	assert_false(s.ok);
	assert_true(isnan(peak_steal_pct(&s)));
}

static void test_flag_threshold(void **state)
{
	(void)state;
	struct peak_result r;
	peak_result_init(&r, "cpu", "t", "v", "throughput", "GFLOPS");
	assert_false(peak_row_flag_steal(&r, (struct peak_steal_share){NAN, NAN}));
	assert_false(peak_row_flag_steal(&r, (struct peak_steal_share){PEAK_STEAL_FLAG_PCT, 5.0}));
	assert_null(strstr(r.flags, "steal"));
	/* The busy share goes with the flag, rounded up: compare reads it as the most the steal
	 * took from a running thread. */
	assert_true(peak_row_flag_steal(&r, (struct peak_steal_share){1.5, 3.01}));
	assert_string_equal(r.flags, "steal;steal_pct=3.1");
	/* An unknown busy share: the flag alone (compare cannot judge the row by it). */
	struct peak_result q;
	peak_result_init(&q, "cpu", "t", "v", "throughput", "GFLOPS");
	assert_true(peak_row_flag_steal(&q, (struct peak_steal_share){1.5, NAN}));
	assert_string_equal(q.flags, "steal");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_between),
	    cmocka_unit_test(test_window_over_fake_proc),
	    cmocka_unit_test(test_unreadable_is_unknown),
	    cmocka_unit_test(test_flag_threshold),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
