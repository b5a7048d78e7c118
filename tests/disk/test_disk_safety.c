/* diskbench's safety layer and data pattern: what it refuses to touch, what it removes,
 * and that a wrong byte in the file is found at the right offset. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peak_cmocka.h"

#include "disk_file.h"
#include "disk_job.h"
#include "disk_layout.h"
#include "disk_pattern.h"

/* A fresh private directory under the build tree (ctest runs in the test's binary dir). */
static char *make_dir(const char *name)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/%s.%ld", DISK_TEST_DIR, name, (long)getpid());
	assert_non_null(path);
	(void)mkdir(DISK_TEST_DIR, 0700);
	assert_int_equal(mkdir(path, 0700), 0);
	return path;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void assert_file_is(const char *path, const char *text)
{
	char buf[256] = {0};
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_int_equal(n, (ssize_t)strlen(text));
	assert_string_equal(buf, text);
}

static void test_symlink_not_followed(void **state)
{
	(void)state;
	char *dir = make_dir("symlink");
	char victim[4200], link[4200];
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link, sizeof(link), "%s/.peakbench-planted", dir);
	write_file(victim, "precious");
	assert_int_equal(symlink(victim, link), 0);
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	errno = 0;
	assert_int_equal(disk_file_create_named(dirfd, ".peakbench-planted"), -1);
	assert_int_equal(errno, EEXIST);
	/* A dangling symlink must not be followed to create its target either. */
	char dangling[4200], target[4200];
	snprintf(target, sizeof(target), "%s/created-through-link", dir);
	snprintf(dangling, sizeof(dangling), "%s/.peakbench-dangling", dir);
	assert_int_equal(symlink(target, dangling), 0);
	assert_int_equal(disk_file_create_named(dirfd, ".peakbench-dangling"), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(access(target, F_OK), -1);
	assert_file_is(victim, "precious");
	close(dirfd);
	unlink(dangling);
	unlink(link);
	unlink(victim);
	rmdir(dir);
	free(dir);
}

static void test_existing_file_untouched(void **state)
{
	(void)state;
	char *dir = make_dir("existing");
	char path[4200];
	snprintf(path, sizeof(path), "%s/data", dir);
	write_file(path, "keep me");
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(disk_file_create_named(dirfd, "data"), -1);
	assert_int_equal(errno, EEXIST);
	assert_file_is(path, "keep me");
	close(dirfd);
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_dir_symlink_refused(void **state)
{
	(void)state;
	char *dir = make_dir("dirlink");
	char link[4200];
	struct disk_file f;
	struct peak_bench_err e = {0};
	snprintf(link, sizeof(link), "%s.link", dir);
	assert_int_equal(symlink(dir, link), 0);
	disk_file_init(&f);
	assert_int_equal(disk_file_open_dir(&f, link, &e), -1);
	assert_int_equal(e.code, 2);
	assert_non_null(strstr(e.msg, "symbolic link"));
	disk_file_cleanup(&f);
	unlink(link);
	rmdir(dir);
	free(dir);
}

static void test_create_and_remove(void **state)
{
	(void)state;
	char *dir = make_dir("create");
	struct disk_file f;
	struct peak_bench_err e = {0};
	struct stat st;
	char path[4200];
	disk_file_init(&f);
	assert_int_equal(disk_file_open_dir(&f, dir, &e), 0);
	assert_int_equal(disk_file_create(&f, 1 << 20, &e), 0);
	snprintf(path, sizeof(path), "%s/%s", dir, f.name);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(strncmp(f.name, ".peakbench-", 11), 0);
	disk_file_cleanup(&f);
	assert_int_equal(lstat(path, &st), -1);
	disk_file_cleanup(&f); /* twice is harmless */
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

static void test_too_large_refused(void **state)
{
	(void)state;
	char *dir = make_dir("large");
	struct disk_file f;
	struct peak_bench_err e = {0};
	disk_file_init(&f);
	assert_int_equal(disk_file_open_dir(&f, dir, &e), 0);
	assert_int_equal(disk_file_create(&f, 1ull << 60, &e), -1);
	assert_int_equal(e.code, 2);
	assert_non_null(strstr(e.msg, "does not fit"));
	assert_int_equal(f.fd, -1);
	disk_file_cleanup(&f);
	assert_int_equal(rmdir(dir), 0); /* nothing was left behind */
	free(dir);
}

static void test_pattern_verify(void **state)
{
	(void)state;
	char *dir = make_dir("pattern");
	struct disk_pattern p;
	struct disk_file f;
	struct peak_bench_err e = {0};
	uint64_t size = 3u << 20, bad = 0, fsum = 0, wsum = 1;
	void *scratch = NULL;

	assert_int_equal(disk_pattern_init(&p, 42, size, 1 << 20, 0, 0, -1, NULL, 0), 0);
	/* Offset-keyed: the same bytes whatever piece size reads them. */
	assert_true(disk_pattern_matches(&p, 4096, disk_pattern_at(&p, 4096), 8192));
	assert_false(disk_pattern_matches(&p, 0, disk_pattern_at(&p, 4096), 4096));
	disk_file_init(&f);
	assert_int_equal(disk_file_open_dir(&f, dir, &e), 0);
	assert_int_equal(disk_file_create(&f, size, &e), 0);
	assert_int_equal(disk_layout(&f, &p, false, &e), 0);
	assert_int_equal(disk_verify_file(&f, &p, &e), 0);
	assert_int_equal(posix_memalign(&scratch, 4096, 1 << 20), 0);
	assert_int_equal(
	    disk_pattern_verify_fd(&p, f.fd, size, scratch, 1 << 20, &bad, &fsum, &wsum), 0);
	assert_true(fsum == wsum);
	/* One flipped byte is found where it is. */
	uint8_t byte = (uint8_t)(*disk_pattern_at(&p, 1234567) ^ 0x40);
	assert_int_equal(pwrite(f.fd, &byte, 1, 1234567), 1);
	assert_int_equal(
	    disk_pattern_verify_fd(&p, f.fd, size, scratch, 1 << 20, &bad, &fsum, &wsum), -1);
	assert_int_equal(bad, 1234567);
	assert_true(fsum != wsum);
	assert_int_equal(disk_verify_file(&f, &p, &e), -1);
	assert_non_null(strstr(e.msg, "1234567"));
	free(scratch);
	disk_pattern_free(&p);
	disk_file_cleanup(&f);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

static void test_checksum_chains(void **state)
{
	(void)state;
	uint8_t data[4096];
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	uint64_t whole = disk_checksum(DISK_CHECKSUM_INIT, data, sizeof(data));
	uint64_t parts = disk_checksum(DISK_CHECKSUM_INIT, data, 1024);
	parts = disk_checksum(parts, data + 1024, sizeof(data) - 1024);
	assert_true(whole == parts);
	data[100] ^= 1;
	assert_true(disk_checksum(DISK_CHECKSUM_INIT, data, sizeof(data)) != whole);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_symlink_not_followed),
	    cmocka_unit_test(test_existing_file_untouched),
	    cmocka_unit_test(test_dir_symlink_refused),
	    cmocka_unit_test(test_create_and_remove),
	    cmocka_unit_test(test_too_large_refused),
	    cmocka_unit_test(test_pattern_verify),
	    cmocka_unit_test(test_checksum_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
