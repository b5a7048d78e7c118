/* The test file as a whole: its layout (the data pattern, or zeros before a verified
 * write test) and its read-back under --verify. */
#ifndef DISK_LAYOUT_H
#define DISK_LAYOUT_H

#include <stdbool.h>

#include "disk_file.h"
#include "disk_pattern.h"

/* Write the pattern (or zeros) over [0, size), then fdatasync. Uses O_DIRECT when the
 * file allows it. Returns 0 or -1 with e filled. */
int disk_layout(struct disk_file *f, const struct disk_pattern *pat, bool zero,
		struct peak_bench_err *e);

/* Read the whole file back and compare with the pattern. Returns 0 or -1 with e filled. */
int disk_verify_file(struct disk_file *f, const struct disk_pattern *pat, struct peak_bench_err *e);

#endif
