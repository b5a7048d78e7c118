/* peak_config: peaks.conf known answers, every kind of bad line rejected with
 * "FILE:LINE: reason", --set assignments, the default search; a peaks.conf at a path of
 * thousands of bytes keeps its origin whole, one longer than the kernel takes is refused. */
#include "peak_cmocka.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peak_peak.h"

#define PEAKS PEAK_FIXTURES_DIR "/peaks"

static void assert_value(const struct peak_config *cfg, const char *key, double want)
{
	double v = -1;
	if (!peak_config_get(cfg, key, &v))
		print_error("key %s not set\n", key);
	assert_true(peak_config_get(cfg, key, &v));
	assert_double_equal(v, want, 1e-12);
}

static void test_good_file(void **state)
{
	(void)state;
	struct peak_config cfg;
	char err[256] = "";
	peak_config_init(&cfg);
	assert_int_equal(peak_config_load(&cfg, PEAKS "/good.conf", false, err, sizeof err), 0);
	assert_int_equal(cfg.n, 10);
	assert_value(&cfg, "cpu.cores", 2);
	assert_value(&cfg, "cpu.ghz", 3.0); /* the later line wins */
	assert_value(&cfg, "cpu.fma_units", 2);
	assert_value(&cfg, "cpu.fma512_units", 1);
	assert_value(&cfg, "mem.channels", 6);
	assert_value(&cfg, "mem.mts", 2933);
	assert_value(&cfg, "mem.gbps", 140.8);
	assert_value(&cfg, "disk.mbps", 250);
	assert_value(&cfg, "disk.iops", 3000);
	assert_value(&cfg, "net.gbps", 25);
	for (size_t i = 0; i < cfg.n; i++) {
		if (strcmp(cfg.key[i], "mem.channels") == 0)
			assert_string_equal(cfg.origin[i], PEAKS "/good.conf:6");
		if (strcmp(cfg.key[i], "cpu.ghz") == 0)
			assert_string_equal(cfg.origin[i], PEAKS "/good.conf:14");
	}
	assert_false(peak_config_get(&cfg, "nope", NULL));
}

static void test_bad_files(void **state)
{
	(void)state;
	struct peak_config cfg;
	char err[512];
	peak_config_init(&cfg);
	assert_int_equal(peak_config_load(&cfg, PEAKS "/bad-key.conf", false, err, sizeof err), -1);
	assert_non_null(strstr(err, "bad-key.conf:3: unknown key 'mem.chanels'"));
	peak_config_init(&cfg);
	assert_int_equal(peak_config_load(&cfg, PEAKS "/bad-value.conf", false, err, sizeof err),
			 -1);
	assert_non_null(
	    strstr(err, "bad-value.conf:1: value 'fast' for 'mem.mts' is not a number"));
	/* Missing: an error unless optional. */
	peak_config_init(&cfg);
	assert_int_equal(peak_config_load(&cfg, PEAKS "/none.conf", true, err, sizeof err), 0);
	assert_int_equal(cfg.n, 0);
	assert_int_equal(peak_config_load(&cfg, PEAKS "/none.conf", false, err, sizeof err), -1);
	assert_non_null(strstr(err, "none.conf: cannot read"));
}

/* Write text to a temporary file, load it, return the result; err gets the message. */
static int load_text(const char *text, char *err, size_t err_len, char *path, size_t path_len)
{
	(void)snprintf(path, path_len, "/tmp/peaks-test-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	struct peak_config cfg;
	peak_config_init(&cfg);
	int rc = peak_config_load(&cfg, path, false, err, err_len);
	assert_int_equal(unlink(path), 0);
	return rc;
}

static void test_bad_lines(void **state)
{
	(void)state;
	static const struct {
		const char *text, *reason;
	} cases[] = {
	    {"cpu.cores 2\n", ":1: expected 'key = value'"},
	    {"\n\n= 5\n", ":3: missing key before '='"},
	    {"cpu.cores =\n", ":1: missing value for 'cpu.cores'"},
	    {"cpu.cores = 0\n", ":1: value '0' for 'cpu.cores' must be > 0"},
	    {"cpu.ghz = -1\n", ":1: value '-1' for 'cpu.ghz' must be > 0"},
	    {"cpu.ghz = 1e99\n", ":1: value '1e99' for 'cpu.ghz' is out of range"},
	    {"cpu.ghz = inf\n", ":1: value 'inf' for 'cpu.ghz' is out of range"},
	    {"cpu.ghz = nan\n", ":1: value 'nan' for 'cpu.ghz' is not a number"},
	    {"cpu.ghz = 2.5GHz\n", ":1: value '2.5GHz' for 'cpu.ghz' is not a number"},
	    {"cpu.ghz = 2 5\n", ":1: value '2 5' for 'cpu.ghz' is not a number"},
	    {"cpu.cores = 1.5\n", ":1: value '1.5' for 'cpu.cores' must be a whole number"},
	    {"# ok\nCPU.CORES = 2\n", ":2: unknown key 'CPU.CORES'"},
	    {"openblas.threads = 2\n", ":1: unknown key 'openblas.threads'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[512] = "", path[64];
		int rc = load_text(cases[i].text, err, sizeof err, path, sizeof path);
		if (rc != -1 || strncmp(err, path, strlen(path)) != 0 ||
		    !strstr(err, cases[i].reason))
			print_error("case %zu: rc %d err '%s', want '%s'\n", i, rc, err,
				    cases[i].reason);
		assert_int_equal(rc, -1);
		assert_true(strncmp(err, path, strlen(path)) == 0);
		assert_non_null(strstr(err, cases[i].reason));
		assert_null(strchr(err, '\n')); /* one line */
	}
	char err[512], path[64];
	assert_int_equal(load_text("", err, sizeof err, path, sizeof path), 0);
	assert_int_equal(load_text("# only comments\n\n   \n", err, sizeof err, path, sizeof path),
			 0);
	assert_int_equal(load_text("net.gbps = 10", err, sizeof err, path, sizeof path), 0);
}

static void test_set(void **state)
{
	(void)state;
	struct peak_config cfg;
	char err[512];
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "mem.channels=6", err, sizeof err), 0);
	assert_int_equal(peak_config_set(&cfg, " net.gbps = 100 ", err, sizeof err), 0);
	assert_int_equal(peak_config_set(&cfg, "mem.channels=8", err, sizeof err), 0);
	assert_int_equal(cfg.n, 2);
	assert_value(&cfg, "mem.channels", 8);
	assert_value(&cfg, "net.gbps", 100);
	assert_string_equal(cfg.origin[0], "--set");

	assert_int_equal(peak_config_set(&cfg, "mem.channels", err, sizeof err), -1);
	assert_non_null(strstr(err, "expected key=value"));
	assert_int_equal(peak_config_set(&cfg, "foo=1", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown key 'foo'"));
	assert_int_equal(peak_config_set(&cfg, "disk.iops=abc", err, sizeof err), -1);
	assert_non_null(strstr(err, "not a number"));
	assert_int_equal(peak_config_set(&cfg, "disk.iops=", err, sizeof err), -1);
	assert_int_equal(peak_config_set(&cfg, "=3", err, sizeof err), -1);
	assert_int_equal(peak_config_set(&cfg, "", err, sizeof err), -1);
	assert_int_equal(cfg.n, 2); /* failures change nothing */

	/* cpu.trust: a word, table or probe; anything else is bad input */
	assert_false(cfg.trust_table);
	assert_int_equal(peak_config_set(&cfg, "cpu.trust=table", err, sizeof err), 0);
	assert_true(cfg.trust_table);
	assert_int_equal(peak_config_set(&cfg, "cpu.trust=probe", err, sizeof err), 0);
	assert_false(cfg.trust_table);
	assert_int_equal(peak_config_set(&cfg, "cpu.trust=always", err, sizeof err), -1);
	assert_non_null(strstr(err, "cpu.trust 'always' is not 'table' or 'probe'"));
	assert_int_equal(peak_config_set(&cfg, "cpu.trust=", err, sizeof err), -1);
	assert_false(cfg.trust_table);
	assert_int_equal(cfg.n, 2);
}

static void test_default_search(void **state)
{
	(void)state;
	struct peak_config cfg;
	char err[512];
	peak_config_init(&cfg);
	assert_int_equal(setenv("PEAKBENCH_CONF", PEAKS "/good.conf", 1), 0);
	assert_int_equal(peak_config_load_default(&cfg, err, sizeof err), 0);
	assert_value(&cfg, "disk.iops", 3000);
	peak_config_init(&cfg);
	assert_int_equal(setenv("PEAKBENCH_CONF", PEAKS "/absent.conf", 1), 0);
	assert_int_equal(peak_config_load_default(&cfg, err, sizeof err), -1);
	assert_int_equal(unsetenv("PEAKBENCH_CONF"), 0);
	/* ./peaks.conf is optional (the test runs in the build tree, which has none). */
	peak_config_init(&cfg);
	if (access("peaks.conf", F_OK) != 0)
		assert_int_equal(peak_config_load_default(&cfg, err, sizeof err), 0);
	size_t nkeys = 0;
	while (peak_config_keys[nkeys])
		nkeys++;
	assert_int_equal(nkeys, 10);
}

/* Folders of 200-byte names under a fresh temporary folder until the path is over want
 * bytes (the kernel takes each: NAME_MAX 255); the path in dir. */
static void deep_dir(char *dir, size_t len, size_t want)
{
	char name[201];
	memset(name, 'd', 200);
	name[200] = '\0';
	assert_true(peak_fmt(dir, len, "/tmp/peak-test-config-XXXXXX"));
	assert_non_null(mkdtemp(dir));
	while (strlen(dir) < want) {
		size_t used = strlen(dir);
		assert_true(peak_fmt(dir + used, len - used, "/%s", name));
		assert_int_equal(mkdir(dir, 0700), 0);
	}
}

static void remove_deep(char *dir)
{
	for (;;) {
		(void)rmdir(dir);
		char *slash = strrchr(dir, '/');
		if (!slash || strncmp(dir, "/tmp/peak-test-config-", 22) != 0 || slash - dir < 22)
			return;
		*slash = '\0';
	}
}

/* A student's clone deep in their home folder: the origin "PATH:LINE" and the peak's
 * note "cpu.ghz from PATH:LINE" come back whole, however long PATH is. */
static void test_long_path_origin(void **state)
{
	(void)state;
	static struct peak_config cfg;
	static char dir[PEAK_PATH_MAX], path[PEAK_PATH_MAX], want[PEAK_CONFIG_ORIGIN_LEN];
	char err[PEAK_MSG_MAX] = "";
	deep_dir(dir, sizeof dir, PEAK_PATH_MAX - 300);
	assert_true(peak_fmt(path, sizeof path, "%s/my peaks.conf", dir));
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs("# a comment\ncpu.ghz = 2.5\ncpu.uarch = zen4\n", f) >= 0);
	assert_int_equal(fclose(f), 0);
	peak_config_init(&cfg);
	int rc = peak_config_load(&cfg, path, false, err, sizeof err);
	if (rc != 0)
		print_error("%s\n", err);
	assert_int_equal(rc, 0);
	assert_int_equal(cfg.n, 1);
	assert_true(peak_fmt(want, sizeof want, "%s:2", path));
	assert_string_equal(cfg.origin[0], want);
	assert_true(peak_fmt(want, sizeof want, "%s:3", path));
	assert_string_equal(cfg.uarch_origin, want);
	(void)unlink(path);
	remove_deep(dir);
}

/* A path the kernel cannot take (PATH_MAX, or one name over NAME_MAX) is refused with a
 * reason, before any open. */
static void test_path_too_long(void **state)
{
	(void)state;
	static struct peak_config cfg;
	static char path[PEAK_PATH_MAX + 100];
	char err[PEAK_MSG_MAX] = "";
	memset(path, 'a', sizeof path - 1);
	path[0] = '/';
	for (size_t i = 200; i < sizeof path - 1; i += 200)
		path[i] = '/';
	path[sizeof path - 1] = '\0';
	peak_config_init(&cfg);
	assert_int_equal(peak_config_load(&cfg, path, true, err, sizeof err), -1);
	assert_non_null(strstr(err, "PATH_MAX"));
	assert_null(strchr(err, '\n'));
	/* One name of 300 bytes in a short path. */
	memset(path, 'b', 301);
	path[0] = '/';
	path[301] = '\0';
	assert_int_equal(peak_config_load(&cfg, path, true, err, sizeof err), -1);
	assert_non_null(strstr(err, "NAME_MAX"));
}

/* peak_fmt: true when the text fit; a cut text ends in "...". */
static void test_fmt_says_cut(void **state)
{
	(void)state;
	char buf[8];
	assert_true(peak_fmt(buf, sizeof buf, "%s", "1234567"));
	assert_string_equal(buf, "1234567");
	assert_false(peak_fmt(buf, sizeof buf, "%s", "12345678"));
	assert_string_equal(buf, "1234...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good_file),      cmocka_unit_test(test_bad_files),
	    cmocka_unit_test(test_bad_lines),      cmocka_unit_test(test_set),
	    cmocka_unit_test(test_default_search), cmocka_unit_test(test_long_path_origin),
	    cmocka_unit_test(test_path_too_long),  cmocka_unit_test(test_fmt_says_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
