/* --buffer-dir: I/O buffers shared with another tool (see disk_buffer_dir.h). */
#define _GNU_SOURCE
#include "disk_buffer_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "disk_file.h"
#include "peak_exit.h"

#define MARKER_TEXT "peakbench diskbench buffer directory\n"
#define TMPFS_MAGIC 0x01021994
#define RAMFS_MAGIC 0x858458f6

static bool marker_ok(int dirfd)
{
	char buf[sizeof(MARKER_TEXT)] = {0};
	int fd = openat(dirfd, DISK_BUFFER_DIR_MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n == (ssize_t)strlen(MARKER_TEXT) && strcmp(buf, MARKER_TEXT) == 0;
}

/* One of the directory's regular files, opened read-write without following a symlink. */
static int open_file(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* A new directory's content: the marker first, then the two empty buffer files. */
static int populate(int dirfd)
{
	int fd = disk_file_create_named(dirfd, DISK_BUFFER_DIR_MARKER);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, MARKER_TEXT, strlen(MARKER_TEXT));
	close(fd);
	if (n != (ssize_t)strlen(MARKER_TEXT))
		return -1;
	const char *files[] = {DISK_BUFFER_DIR_READ, DISK_BUFFER_DIR_WRITE};
	for (size_t i = 0; i < 2; i++) {
		fd = disk_file_create_named(dirfd, files[i]);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* Undo a directory this call made (its files, then itself). */
static void unmake(int dirfd, const char *path)
{
	(void)unlinkat(dirfd, DISK_BUFFER_DIR_READ, 0);
	(void)unlinkat(dirfd, DISK_BUFFER_DIR_WRITE, 0);
	(void)unlinkat(dirfd, DISK_BUFFER_DIR_MARKER, 0);
	(void)rmdir(path);
}

int disk_buffer_dir_open(struct disk_buffer_dir *b, const char *dir, struct peak_bench_err *e)
{
	b->read_fd = b->write_fd = -1;
	if (snprintf(b->path, sizeof(b->path), "%s", dir) >= (int)sizeof(b->path))
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--buffer-dir: path too long");
	bool made = mkdir(dir, 0700) == 0;
	if (!made && errno != EEXIST)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--buffer-dir %s: %s", dir,
				       strerror(errno));
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--buffer-dir %s: %s", dir,
				       strerror(errno));
	struct statfs sfs;
	if (fstatfs(dirfd, &sfs) != 0 ||
	    (sfs.f_type != TMPFS_MAGIC && (unsigned long)sfs.f_type != RAMFS_MAGIC)) {
		if (made)
			unmake(dirfd, dir);
		close(dirfd);
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--buffer-dir %s is not on tmpfs or ramfs: shared buffer pages "
				       "there would be written back to a disk (try /dev/shm)",
				       dir);
	}
	if (made && populate(dirfd) != 0) {
		int err = errno;
		unmake(dirfd, dir);
		close(dirfd);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--buffer-dir %s: %s", dir, strerror(err));
	}
	if (!made && !marker_ok(dirfd)) {
		close(dirfd);
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--buffer-dir %s exists and has no %s marker: diskbench maps "
				       "only buffer files it created (give a path that does not exist)",
				       dir, DISK_BUFFER_DIR_MARKER);
	}
	b->read_fd = open_file(dirfd, DISK_BUFFER_DIR_READ);
	b->write_fd = open_file(dirfd, DISK_BUFFER_DIR_WRITE);
	int err = errno;
	close(dirfd);
	if (b->read_fd < 0 || b->write_fd < 0) {
		disk_buffer_dir_close(b);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--buffer-dir %s: its buffer files: %s",
				       dir, strerror(err));
	}
	return 0;
}

int disk_buffer_dir_reserve(int fd, uint64_t bytes)
{
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	if ((uint64_t)st.st_size >= bytes)
		return 0;
	return ftruncate(fd, (off_t)bytes);
}

void disk_buffer_dir_close(struct disk_buffer_dir *b)
{
	if (b->read_fd >= 0)
		close(b->read_fd);
	if (b->write_fd >= 0)
		close(b->write_fd);
	b->read_fd = b->write_fd = -1;
}
