/* diskbench's safety layer: the one file it writes. It is created with O_CREAT|O_EXCL|
 * O_NOFOLLOW under a unique name through a directory fd opened with O_NOFOLLOW, only
 * after statvfs says it fits, and removed on exit, on error and on SIGINT/SIGTERM. */
#ifndef DISK_FILE_H
#define DISK_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_bench.h"

struct disk_file {
	int dirfd;           /* directory holding the file, opened O_DIRECTORY|O_NOFOLLOW */
	int fd;              /* the file, -1 until created */
	char name[64];       /* unique name inside the directory */
	char dir_path[4096]; /* for messages and the context */
	bool made_dir;       /* we created dir_path (default temp dir): remove it too */
	int parent_fd;       /* parent of a made dir, for unlinkat(AT_REMOVEDIR) */
	char dir_base[64];   /* name of a made dir inside its parent */
	bool keep;           /* --keep: leave the file (and a made dir) in place */
	uint64_t size_bytes;
	/* What the filesystem offers. */
	bool direct_ok; /* O_DIRECT accepted on this file */
	bool is_tmpfs;  /* tmpfs/ramfs: the "disk" is memory */
	char fs_type[24];
	unsigned dio_align;  /* offset and buffer alignment O_DIRECT needs (bytes) */
	uint64_t free_bytes; /* available to us before the file was created */
	char device[64];     /* block device name from sysfs, "unknown" when not found */
};

/* Errors travel as struct peak_bench_err, sorted by what the user can do: exit 2 for a
 * bad --dir or --file-size, 3 for an unsupported filesystem, 1 for an I/O failure. */

void disk_file_init(struct disk_file *f);

/* Open --dir (NULL: make a private temp dir under $TMPDIR or /var/tmp). Never follows a
 * symlink for the last component. Returns 0 or -1 with e filled. */
int disk_file_open_dir(struct disk_file *f, const char *dir, struct peak_bench_err *e);

/* Check free space, then create the file (unique name, O_EXCL, 0600), probe O_DIRECT
 * and reserve its blocks. Registers it for removal by the signal handler. */
int disk_file_create(struct disk_file *f, uint64_t size_bytes, struct peak_bench_err *e);

/* Create exactly `name` in dirfd (O_CREAT|O_EXCL|O_NOFOLLOW, 0600). Returns the fd, or -1
 * with errno set (EEXIST when anything, a symlink included, already has that name). */
int disk_file_create_named(int dirfd, const char *name);

/* Give the file's blocks back (punch a hole over all of it) and allocate them again
 * unwritten: the file is then what a newly created, preallocated file is (fio's plain
 * `--rw=write` on a new file), and the next write converts extents as it goes. The data
 * is gone: lay the file out again before a test that needs it. Returns 0 or -1 (errno;
 * EOPNOTSUPP when the filesystem cannot punch holes). */
int disk_file_release_blocks(struct disk_file *f);

/* Switch O_DIRECT on or off for the file. Returns 0 or -1 (errno). */
int disk_file_set_direct(struct disk_file *f, bool direct);

/* Write back and drop the file's cached pages (before each repetition). */
int disk_file_drop_cache(struct disk_file *f);

/* Close and remove the file (and a made dir) unless keep. Safe to call twice. */
void disk_file_cleanup(struct disk_file *f);

/* SIGINT/SIGTERM: the handler removes the registered file with unlinkat (async-signal
 * safe) and records the signal; workers poll disk_stop_signal() and stop. */
int disk_signals_install(void);
int disk_stop_signal(void);
/* After cleanup: die of the recorded signal, so the parent sees how we ended. */
void disk_signals_reraise(int sig);

#endif
