/* peak_opts: lists, sizes, and every bad value rejected with a message naming the flag. */
#include "peak_cmocka.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "peak_opts.h"

static void test_sizes(void **state)
{
	(void)state;
	struct {
		const char *text;
		uint64_t bytes;
	} good[] = {
		{"8B", 8},           {"8", 8},
		{"8KiB", 8192},      {"8KB", 8192},
		{"8kib", 8192},      {"80MiB", 80ull << 20},
		{"80MB", 80ull << 20}, {"1GiB", 1ull << 30},
		{"1GB", 1ull << 30}, {"0B", 0},
	};
	char err[256];
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 1234;
		assert_int_equal(peak_parse_size(good[i].text, &v, err, sizeof(err)), 0);
		assert_int_equal(v, good[i].bytes);
	}
	const char *bad[] = {"", "abc", "-1", "8XB", "1e99", "1.5GiB", "KiB", "8 KiB",
			     "99999999999999999999", "17179869184GiB"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v;
		err[0] = '\0';
		assert_int_equal(peak_parse_size(bad[i], &v, err, sizeof(err)), -1);
		assert_true(strlen(err) > 0);
	}
}

static void test_lists(void **state)
{
	(void)state;
	struct peak_list l;
	char err[256];
	assert_int_equal(peak_parse_u64_list("1,2,4,8", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[0], 1);
	assert_int_equal(l.v[3], 8);
	assert_int_equal(peak_parse_size_list("8B,8KiB,8MiB,80MiB", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.v[1], 8192);
	assert_int_equal(l.v[3], 80ull << 20);
	const char *bad[] = {"", ",", "1,,2", "1,", "1,a", "-1", "1;2"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(peak_parse_u64_list(bad[i], &l, err, sizeof(err)), -1);
}

struct parsed {
	struct peak_common_opts common;
	uint64_t size;
	uint64_t count;
	bool flag;
	const char *mode;
};

static const char *const modes[] = {"fast", "slow", NULL};

/* Parse argv (NULL-terminated) into p; stderr captured into err_out. */
static enum peak_opts_status parse(struct parsed *p, const char **args, char *err_out,
				   size_t err_len)
{
	struct peak_opt opts[] = {
		{"size", "SIZE", "a size", PEAK_OPT_SIZE, &p->size, 1, 1ull << 40, NULL, NULL},
		{"count", "N", "a count", PEAK_OPT_UINT, &p->count, 1, 100, NULL, NULL},
		{"flag", NULL, "a flag", PEAK_OPT_FLAG, &p->flag, 0, 0, NULL, NULL},
		{"mode", "M", "a mode", PEAK_OPT_CHOICE, &p->mode, 0, 0, modes, NULL},
		PEAK_OPTS_COMMON(&p->common),
	};
	struct peak_cli cli = {"testprog", "[options]", "test", opts, sizeof(opts) / sizeof(opts[0]),
			       &p->common};
	char *argv[32];
	int argc = 0;
	argv[argc++] = (char *)"testprog";
	for (; args[argc - 1]; argc++)
		argv[argc] = (char *)args[argc - 1];
	argv[argc] = NULL;

	memset(p, 0, sizeof(*p));
	peak_opts_common_defaults(&p->common);
	fflush(stderr);
	FILE *tmp = tmpfile();
	assert_non_null(tmp);
	int saved = dup(2);
	dup2(fileno(tmp), 2);
	enum peak_opts_status st = peak_opts_parse(&cli, argc, argv, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	size_t got = fread(err_out, 1, err_len - 1, tmp);
	err_out[got] = '\0';
	fclose(tmp);
	return st;
}

static void test_table_parse_good(void **state)
{
	(void)state;
	struct parsed p;
	char err[1024];
	const char *args[] = {"--size", "8KiB", "--count=7", "--flag", "--mode", "slow",
			      "--threads", "1,2,4,8", "--reps", "5", "--min-time", "0.01",
			      "--format", "json", NULL};
	assert_int_equal(parse(&p, args, err, sizeof(err)), PEAK_OPTS_OK);
	assert_string_equal(err, "");
	assert_int_equal(p.size, 8192);
	assert_int_equal(p.count, 7);
	assert_true(p.flag);
	assert_string_equal(p.mode, "slow");
	assert_int_equal(p.common.threads.n, 4);
	assert_int_equal(p.common.reps, 5);
	assert_double_equal(p.common.min_time_s, 0.01, 1e-15);
	assert_int_equal(p.common.format, PEAK_FORMAT_JSON);
}

static void expect_error(const char *flag, const char *value)
{
	struct parsed p;
	char err[1024];
	const char *args[] = {flag, value, NULL};
	assert_int_equal(parse(&p, args, err, sizeof(err)), PEAK_OPTS_ERROR);
	/* One line on stderr, naming the flag. */
	assert_non_null(strstr(err, flag));
	char *nl = strchr(err, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
}

static void test_table_parse_bad(void **state)
{
	(void)state;
	const char *bad_numbers[] = {"0", "-1", "abc", "1e99", "8XB", "", "99999999999999999999999"};
	for (size_t i = 0; i < sizeof(bad_numbers) / sizeof(bad_numbers[0]); i++) {
		expect_error("--count", bad_numbers[i]);
		expect_error("--threads", bad_numbers[i]);
		expect_error("--reps", bad_numbers[i]);
		expect_error("--size", bad_numbers[i]);
	}
	expect_error("--count", "101");  /* above the range */
	expect_error("--min-time", "nan");
	expect_error("--min-time", "inf");
	expect_error("--min-time", "0");
	expect_error("--min-time", "1e99");
	expect_error("--mode", "medium");
	expect_error("--format", "xml");
	expect_error("--threads", "1,,2");
	expect_error("--output", "");
}

static void test_unknown_and_missing(void **state)
{
	(void)state;
	struct parsed p;
	char err[1024];
	const char *unknown[] = {"--bogus", NULL};
	assert_int_equal(parse(&p, unknown, err, sizeof(err)), PEAK_OPTS_ERROR);
	assert_non_null(strstr(err, "--bogus"));
	const char *missing[] = {"--count", NULL};
	assert_int_equal(parse(&p, missing, err, sizeof(err)), PEAK_OPTS_ERROR);
	assert_non_null(strstr(err, "--count"));
	const char *stray[] = {"stray", NULL};
	assert_int_equal(parse(&p, stray, err, sizeof(err)), PEAK_OPTS_ERROR);
	assert_non_null(strstr(err, "stray"));
}

/* --ci and --max-reps: defaults (2%, 4 x --reps), the cap they give, and every bad value
 * (not a number, negative, above 100%, a cap below 2 or below --reps) one line naming it. */
static void test_adaptive_reps(void **state)
{
	(void)state;
	struct parsed p;
	char err[1024];
	const char *none[] = {NULL};
	assert_int_equal(parse(&p, none, err, sizeof(err)), PEAK_OPTS_OK);
	assert_double_equal(p.common.ci_pct, 2.0, 0);
	assert_int_equal(peak_opts_max_reps(&p.common), 12);
	const char *set[] = {"--ci", "0.5", "--reps", "4", "--max-reps", "9", NULL};
	assert_int_equal(parse(&p, set, err, sizeof(err)), PEAK_OPTS_OK);
	assert_double_equal(p.common.ci_pct, 0.5, 0);
	assert_int_equal(peak_opts_max_reps(&p.common), 9);
	const char *off[] = {"--ci", "0", "--reps", "4", "--max-reps", "9", NULL};
	assert_int_equal(parse(&p, off, err, sizeof(err)), PEAK_OPTS_OK);
	assert_int_equal(peak_opts_max_reps(&p.common), 4); /* off: exactly --reps */
	const char *big[] = {"--reps", "400", NULL};
	assert_int_equal(parse(&p, big, err, sizeof(err)), PEAK_OPTS_OK);
	assert_int_equal(peak_opts_max_reps(&p.common), PEAK_OPTS_MAX_REPS);

	const char *bad_ci[] = {"-1", "abc", "101", "nan", "inf", "", "2%"};
	for (size_t i = 0; i < sizeof(bad_ci) / sizeof(bad_ci[0]); i++)
		expect_error("--ci", bad_ci[i]);
	const char *bad_max[] = {"0", "1", "-1", "abc", "1001", ""};
	for (size_t i = 0; i < sizeof(bad_max) / sizeof(bad_max[0]); i++)
		expect_error("--max-reps", bad_max[i]);
	const char *below[] = {"--reps", "5", "--max-reps", "4", NULL};
	assert_int_equal(parse(&p, below, err, sizeof(err)), PEAK_OPTS_ERROR);
	assert_string_equal(err, "testprog: --max-reps: 4 is below --reps 5\n");
}

static void test_format_size(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(peak_format_size(8, buf, sizeof(buf)), "8B");
	assert_string_equal(peak_format_size(8192, buf, sizeof(buf)), "8KiB");
	assert_string_equal(peak_format_size(80ull << 20, buf, sizeof(buf)), "80MiB");
	assert_string_equal(peak_format_size(1ull << 30, buf, sizeof(buf)), "1GiB");
	assert_string_equal(peak_format_size(1000, buf, sizeof(buf)), "1000B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_table_parse_good),
		cmocka_unit_test(test_table_parse_bad),
		cmocka_unit_test(test_unknown_and_missing),
		cmocka_unit_test(test_adaptive_reps),
		cmocka_unit_test(test_format_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
