/* --buffer-dir DIR: diskbench's I/O buffers on two files in a tmpfs directory, mapped
 * shared, so that another tool does the same job from the very same physical pages: fio
 * given --mem=mmapshared:DIR/read.buf for its reads and DIR/write.buf for its writes maps
 * each file from offset 0, which is where diskbench's first thread reads into and where
 * its write data (the pattern) begins. On a VM disk a large transfer's speed follows the
 * buffer's physical layout (docs/disk.md), which otherwise differs between two processes
 * by chance.
 *
 * The directory outlives diskbench (the paired tool runs after it), so diskbench reuses
 * one only when it holds the marker file diskbench wrote when it created it: it never
 * maps, and so never writes, a file it did not create. Whoever asked for the directory
 * removes it (run_all.sh does, after its paired rounds). */
#ifndef DISK_BUFFER_DIR_H
#define DISK_BUFFER_DIR_H

#include <stddef.h>
#include <stdint.h>

#include "peak_bench.h"

#define DISK_BUFFER_DIR_MARKER "peakbench-buffers"
#define DISK_BUFFER_DIR_READ   "read.buf"
#define DISK_BUFFER_DIR_WRITE  "write.buf"

struct disk_buffer_dir {
	int read_fd, write_fd; /* -1 when closed */
	char path[4096];
};

/* Open DIR: create it (mode 0700), its marker and both files when it does not exist, or
 * reuse it when its marker says diskbench made it. Exit 2 through e for a directory
 * diskbench did not make or one that is not on tmpfs/ramfs (shared pages of a disk file
 * would be written back to that disk while it is measured). Returns 0 or -1. */
int disk_buffer_dir_open(struct disk_buffer_dir *b, const char *dir, struct peak_bench_err *e);

/* Grow a file (never shrink it: the other tool may map more) to hold bytes.
 * Returns 0 or -1 with errno. */
int disk_buffer_dir_reserve(int fd, uint64_t bytes);

void disk_buffer_dir_close(struct disk_buffer_dir *b);

#endif
