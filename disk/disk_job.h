/* One measured point of diskbench: a test (pattern and direction) at one block size,
 * thread count and engine, run as a warm-up plus --reps timed repetitions. */
#ifndef DISK_JOB_H
#define DISK_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "disk_engine.h"
#include "disk_file.h"
#include "disk_pattern.h"
#include "peak_bench.h"
#include "peak_hist.h"
#include "peak_team.h"

/* seq_write overwrites the laid-out file; seq_write_new writes it for the first time:
 * before every repetition its blocks are released and allocated again unwritten, which is
 * what a newly created file is (fio's plain --rw=write job on a new file). On thin or
 * virtual disks the two differ: the first write also converts extents (and the host may
 * allocate), so seq_write_new is the slower and fio's plain job matches it. */
enum disk_test {
	DISK_SEQ_RW,
	DISK_SEQ_READ,
	DISK_SEQ_WRITE,
	DISK_RAND_READ,
	DISK_RAND_WRITE,
	DISK_SEQ_WRITE_NEW
};

/* Test name as on the command line ("seq_rw", ...). */
const char *disk_test_name(enum disk_test t);
bool disk_test_writes(enum disk_test t);
bool disk_test_reads(enum disk_test t);
bool disk_test_random(enum disk_test t);

/* Above this many blocks per thread a repetition is time-based (--min-time) rather
 * than a full pass: 8-byte blocks would otherwise mean 134 million calls per GiB. */
#define DISK_PASS_MAX_BLOCKS (1ull << 18)

struct disk_point {
	enum disk_test test;
	const struct disk_engine_ops *engine;
	unsigned depth; /* I/Os in flight per thread (1 for psync) */
	uint64_t block_bytes;
	unsigned threads;
	bool direct;           /* O_DIRECT, else buffered with the cache dropped per repetition */
	bool fsync;            /* --sync fsync: a write repetition ends with fsync, not fdatasync */
	double min_time_s;     /* shortest repetition */
	double runtime_s;      /* > 0: every repetition lasts this long (fio time_based) */
	uint64_t seed;         /* random offsets */
	bool verify_writes;    /* --verify: poison the file first, then check what was written */
	unsigned buffer_pages; /* PEAK_PAGES_* flags for the read buffers */
	/* --buffer-dir's read.buf (or -1): thread i's read buffers are its bytes from
	 * i * disk_point_buffer_bytes(), mapped shared, instead of buffer_pages */
	int read_buffer_fd;
	unsigned submit_batch; /* queued I/Os per submit call (fio's iodepth_batch_submit);
				  0 or 1: each I/O is submitted as it is queued */
};

#define DISK_MAX_REPS 1000

struct disk_point_result {
	size_t nreps;
	double mb_per_s[DISK_MAX_REPS]; /* decimal MB/s, reads plus writes */
	double iops[DISK_MAX_REPS];
	double lat_us[DISK_MAX_REPS]; /* mean per-I/O latency of each repetition */
	struct peak_hist hist;        /* per-I/O latency (ns) over every measured repetition */
	uint64_t region_bytes;        /* per thread */
	bool time_based;
	bool verified; /* what was read or written was checked */
	unsigned depth_used;
	unsigned pages_seen; /* bit (1 << enum peak_pages) of every buffer the I/O went through */
};

/* Bytes of buffers one point needs per thread (read buffers for every slot). */
uint64_t disk_point_buffer_bytes(const struct disk_point *pt);

/* One point being measured: its threads' engine state, buffers and offsets, set up on the
 * team (whose size is pt->threads), and the repetitions measured so far. The file holds the
 * pattern before and after. The harness drives it (disk/disk_suite.c): open, one warm-up,
 * --reps repetitions, check, result, close. */
struct disk_job;

/* Set the point up (pt must outlive the job): per-thread engine state and buffers (first
 * touch), random offsets, O_DIRECT or not, and under --verify the file zeroed before a
 * write test. Returns 0, or -1 with e set (exit 3 when --buffer-pages cannot be had). */
int disk_job_open(struct disk_job **jp, const struct disk_point *pt, struct disk_file *f,
		  const struct disk_pattern *pat, struct peak_team *team, struct peak_bench_err *e);

/* The warm-up: at most one pass and at most --min-time, not recorded. */
int disk_job_warmup(struct disk_job *j, struct peak_bench_err *e);

/* One timed repetition: the team's I/O plus, for writes, the fdatasync that makes it
 * durable; *mb_per_s is its throughput (IOPS and latency go to the result). Returns 0, or
 * -1 with e set (I/O error, data that is not the pattern). */
int disk_job_rep(struct disk_job *j, double *mb_per_s, struct peak_bench_err *e);

/* After the last repetition: under --verify, every block a write test wrote is read back,
 * then the file is laid out with the pattern again. Returns 0 or -1 with e set. */
int disk_job_check(struct disk_job *j, struct peak_bench_err *e);

/* The repetitions so far, with the latency histogram merged over them. */
const struct disk_point_result *disk_job_result(struct disk_job *j);

/* Free the threads' state and clear O_DIRECT. NULL is fine. */
void disk_job_close(struct disk_job *j);

#endif
