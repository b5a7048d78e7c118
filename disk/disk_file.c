/* diskbench's safety layer: create, probe and always remove the one file it writes. */
#define _GNU_SOURCE
#include "disk_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "peak_exit.h"
#include "peak_opts.h"

/* The one piece of global state: the signal handler can only reach what it must remove
 * through statics. Written with signals blocked, read by the handler. */
static volatile sig_atomic_t g_stop_sig;
static volatile sig_atomic_t g_armed;
static volatile sig_atomic_t g_removed; /* the handler already removed the file */
static int g_dirfd = -1;
static char g_name[64];
static int g_parent_fd = -1;
static char g_dir_base[64];

static void on_signal(int sig)
{
	int saved = errno;
	if (g_armed) {
		g_armed = 0;
		if (g_name[0])
			(void)unlinkat(g_dirfd, g_name, 0);
		g_removed = 1;
		if (g_dir_base[0])
			(void)unlinkat(g_parent_fd, g_dir_base, AT_REMOVEDIR);
	}
	g_stop_sig = sig;
	errno = saved;
}

int disk_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking wait returns EINTR and the loop sees the stop flag. */
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 ||
	    sigaction(SIGHUP, &sa, NULL) != 0)
		return -1;
	return 0;
}

int disk_stop_signal(void)
{
	return (int)g_stop_sig;
}

void disk_signals_reraise(int sig)
{
	signal(sig, SIG_DFL);
	(void)raise(sig);
}

static void block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	(void)pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	(void)pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Publish what the handler must remove (signals blocked by the caller). */
static void arm(const struct disk_file *f)
{
	g_armed = 0;
	g_dirfd = f->dirfd;
	snprintf(g_name, sizeof(g_name), "%s", f->fd >= 0 ? f->name : "");
	g_parent_fd = f->parent_fd;
	snprintf(g_dir_base, sizeof(g_dir_base), "%s", f->made_dir ? f->dir_base : "");
	g_armed = !f->keep && (g_name[0] || g_dir_base[0]);
}

void disk_file_init(struct disk_file *f)
{
	memset(f, 0, sizeof(*f));
	f->dirfd = -1;
	f->fd = -1;
	f->parent_fd = -1;
	f->dio_align = 4096;
	snprintf(f->fs_type, sizeof(f->fs_type), "unknown");
	snprintf(f->device, sizeof(f->device), "unknown");
}

static int open_dir_fd(int at, const char *path)
{
	return openat(at, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Default location: a private directory (mkdtemp, 0700) under $TMPDIR or /var/tmp. */
static int make_temp_dir(struct disk_file *f, struct peak_bench_err *e)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];
	sigset_t old;

	if (!base || !*base)
		base = "/var/tmp";
	f->parent_fd = open_dir_fd(AT_FDCWD, base);
	if (f->parent_fd < 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "temp directory %s: %s; give --dir DIR",
				       base, strerror(errno));
	if (snprintf(tmpl, sizeof(tmpl), "%s/peakbench-disk-XXXXXX", base) >= (int)sizeof(tmpl))
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "temp directory path too long; give --dir DIR");
	block_signals(&old);
	if (!mkdtemp(tmpl)) {
		int err = errno;
		restore_signals(&old);
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "cannot create a temp directory in %s: %s; give --dir DIR",
				       base, strerror(err));
	}
	f->made_dir = true;
	snprintf(f->dir_base, sizeof(f->dir_base), "%s", strrchr(tmpl, '/') + 1);
	snprintf(f->dir_path, sizeof(f->dir_path), "%s", tmpl);
	f->dirfd = open_dir_fd(f->parent_fd, f->dir_base);
	arm(f);
	restore_signals(&old);
	if (f->dirfd < 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot open %s: %s", tmpl,
				       strerror(errno));
	return 0;
}

int disk_file_open_dir(struct disk_file *f, const char *dir, struct peak_bench_err *e)
{
	if (!dir)
		return make_temp_dir(f, e);
	snprintf(f->dir_path, sizeof(f->dir_path), "%s", dir);
	if (!*dir)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--dir: empty path; give an existing directory");
	f->dirfd = open_dir_fd(AT_FDCWD, dir);
	if (f->dirfd >= 0)
		return 0;
	switch (errno) {
	case ENOENT:
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--dir %s: no such directory; give an existing directory",
				       dir);
	case ELOOP:
		return peak_bench_fail(
		    e, PEAK_EXIT_USAGE,
		    "--dir %s is a symbolic link; diskbench never follows one, give the real path",
		    dir);
	case ENOTDIR: {
		struct stat st;
		if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
			return peak_bench_fail(
			    e, PEAK_EXIT_USAGE,
			    "--dir %s is a symbolic link; diskbench never follows one, "
			    "give the real path",
			    dir);
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--dir %s is not a directory", dir);
	}
	default:
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "--dir %s: %s", dir, strerror(errno));
	}
}

int disk_file_create_named(int dirfd, const char *name)
{
	return openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static const char *fs_name(unsigned long magic)
{
	switch (magic) {
	case 0xEF53:
		return "ext4";
	case 0x58465342:
		return "xfs";
	case 0x9123683E:
		return "btrfs";
	case 0x01021994:
		return "tmpfs";
	case 0x858458f6:
		return "ramfs";
	case 0x6969:
		return "nfs";
	case 0x794c7630:
		return "overlayfs";
	case 0x2fc12fc1:
		return "zfs";
	case 0xF2F52010:
		return "f2fs";
	case 0x65735546:
		return "fuse";
	case 0x4d44:
		return "vfat";
	default:
		return "other";
	}
}

/* Filesystem type, O_DIRECT alignment (statx STATX_DIOALIGN) and device name. */
static void probe_fs(struct disk_file *f)
{
	struct statfs sfs;
	struct statx stx;
	char link[PATH_MAX], path[64];

	if (fstatfs(f->dirfd, &sfs) == 0) {
		snprintf(f->fs_type, sizeof(f->fs_type), "%s", fs_name((unsigned long)sfs.f_type));
		f->is_tmpfs = sfs.f_type == 0x01021994 || sfs.f_type == 0x858458f6;
	}
	memset(&stx, 0, sizeof(stx));
	if (statx(f->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0) {
		if ((stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align) {
			unsigned a = stx.stx_dio_offset_align;
			if (stx.stx_dio_mem_align > a)
				a = stx.stx_dio_mem_align;
			f->dio_align = a;
		}
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", stx.stx_dev_major,
			 stx.stx_dev_minor);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = '\0';
			snprintf(f->device, sizeof(f->device), "%s", strrchr(link, '/') + 1);
		}
	}
}

static void random_name(char *buf, size_t len)
{
	uint64_t r = 0;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint64_t)(unsigned)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)buf;
	snprintf(buf, len, ".peakbench-%ld-%016llx", (long)getpid(), (unsigned long long)r);
}

static int check_space(struct disk_file *f, uint64_t size_bytes, struct peak_bench_err *e)
{
	struct statvfs sv;
	char need[32], have[32];

	if (fstatvfs(f->dirfd, &sv) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "--dir %s: statvfs: %s", f->dir_path,
				       strerror(errno));
	f->free_bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	/* ramfs and friends keep no block counts: memory is their limit. */
	if (sv.f_blocks == 0) {
		long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		if (pages > 0 && page > 0)
			f->free_bytes = (uint64_t)pages * (uint64_t)page;
	}
	/* Keep 5% of what is free for everyone else. */
	if (size_bytes > f->free_bytes - f->free_bytes / 20) {
		peak_format_size(size_bytes, need, sizeof(need));
		snprintf(have, sizeof(have), "%.1f MiB", (double)f->free_bytes / 1048576.0);
		return peak_bench_fail(
		    e, PEAK_EXIT_USAGE,
		    "--file-size %s does not fit in %s: %s available (diskbench keeps 5%% "
		    "free); use a smaller --file-size or another --dir",
		    need, f->dir_path, have);
	}
	return 0;
}

static int create_error(struct disk_file *f, int err, struct peak_bench_err *e)
{
	if (err == EROFS || err == EACCES || err == EPERM)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--dir %s is not writable (%s); give a writable directory",
				       f->dir_path, strerror(err));
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "cannot create a file in %s: %s", f->dir_path,
			       strerror(err));
}

int disk_file_create(struct disk_file *f, uint64_t size_bytes, struct peak_bench_err *e)
{
	sigset_t old;
	int err = 0;

	if (check_space(f, size_bytes, e) != 0)
		return -1;
	block_signals(&old);
	for (int tries = 0; tries < 16; tries++) {
		random_name(f->name, sizeof(f->name));
		f->fd = disk_file_create_named(f->dirfd, f->name);
		if (f->fd >= 0 || errno != EEXIST)
			break;
	}
	err = errno;
	arm(f);
	restore_signals(&old);
	if (f->fd < 0)
		return create_error(f, err, e);
	f->size_bytes = size_bytes;
	probe_fs(f);
	f->direct_ok = disk_file_set_direct(f, true) == 0;
	(void)disk_file_set_direct(f, false);
	/* Reserve the blocks now so ENOSPC shows up here, not mid-measurement. */
	if (fallocate(f->fd, 0, 0, (off_t)size_bytes) != 0 && errno != EOPNOTSUPP) {
		err = errno;
		return peak_bench_fail(e, err == ENOSPC ? PEAK_EXIT_USAGE : PEAK_EXIT_FAIL,
				       "--file-size: cannot reserve %llu bytes in %s: %s",
				       (unsigned long long)size_bytes, f->dir_path, strerror(err));
	}
	return 0;
}

int disk_file_release_blocks(struct disk_file *f)
{
	if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
		      (off_t)f->size_bytes) != 0)
		return -1;
	/* Unwritten extents again, as a new file that fio preallocates; a filesystem that
	 * cannot preallocate leaves the holes, as fio's fallocate=none would. */
	if (fallocate(f->fd, 0, 0, (off_t)f->size_bytes) != 0 && errno != EOPNOTSUPP)
		return -1;
	return 0;
}

int disk_file_set_direct(struct disk_file *f, bool direct)
{
	int fl = fcntl(f->fd, F_GETFL);
	if (fl < 0)
		return -1;
	fl = direct ? (fl | O_DIRECT) : (fl & ~O_DIRECT);
	return fcntl(f->fd, F_SETFL, fl);
}

int disk_file_drop_cache(struct disk_file *f)
{
	if (fdatasync(f->fd) != 0)
		return -1;
	int rc = posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

void disk_file_cleanup(struct disk_file *f)
{
	sigset_t old;

	block_signals(&old);
	g_armed = 0;
	if (f->fd >= 0) {
		(void)close(f->fd);
		/* Not again after the handler: the name could be someone else's by now. */
		if (!f->keep && !g_removed)
			(void)unlinkat(f->dirfd, f->name, 0);
		f->fd = -1;
	}
	if (f->dirfd >= 0) {
		(void)close(f->dirfd);
		f->dirfd = -1;
	}
	if (f->made_dir && f->parent_fd >= 0) {
		if (!f->keep && !g_removed)
			(void)unlinkat(f->parent_fd, f->dir_base, AT_REMOVEDIR);
		f->made_dir = false;
	}
	if (f->parent_fd >= 0) {
		(void)close(f->parent_fd);
		f->parent_fd = -1;
	}
	g_name[0] = '\0';
	g_dir_base[0] = '\0';
	restore_signals(&old);
}
