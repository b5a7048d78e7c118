/* diskbench on the harness (peak_bench): one kernel per I/O engine, the blocks of one test
 * as points, a disk job as the kernel's measure hook, and disk's own flags and rows. */
#ifndef DISK_SUITE_H
#define DISK_SUITE_H

#include <stdbool.h>
#include <stdint.h>

#include "disk_cli.h"
#include "disk_engine.h"
#include "disk_file.h"
#include "disk_job.h"
#include "disk_pattern.h"
#include "peak_bench.h"
#include "peak_peak.h"

#define DISK_MAX_ENGINES 2

/* What the hooks share: the run's options, file and pattern, and the test being swept. */
struct disk_suite {
	const struct disk_opts *o;
	struct disk_file *file;
	const struct disk_pattern *pat;
	int read_buffer_fd; /* --buffer-dir's read.buf, or -1 */
	const struct peak_machine *m; /* the disk's rated MB/s and IOPS (peaks.conf) */
	enum disk_test test;          /* the test of the current sweep */
	uint64_t seed;                /* random offsets of the next point */
	const struct disk_engine_ops *engines[DISK_MAX_ENGINES];
	size_t nengines;
	struct peak_bench_kernel kernels[DISK_MAX_ENGINES];
	/* The latency row's samples: it is recorded after the point's teardown. */
	double lat_us[DISK_MAX_REPS];
};

/* Fill the kernel table, one kernel per engine in s->engines (set those first). */
void disk_suite_init(struct disk_suite *s);

/* Measure every --block of one test at every --threads count on every engine, rows to
 * out: a block O_DIRECT cannot take under --direct on, or larger than a thread's share of
 * the file, is a row flagged "unsupported: REASON". Returns 0, or -1 with e set. */
int disk_suite_sweep(struct disk_suite *s, enum disk_test test, struct peak_output *out,
		     struct peak_bench_err *e);

/* Whether this block size can go through O_DIRECT on this file. */
bool disk_suite_block_direct_ok(const struct disk_file *f, uint64_t block);

#endif
