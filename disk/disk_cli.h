/* diskbench's command line: its options, their defaults, and the checks that turn a bad
 * value into one line on stderr and exit 2. */
#ifndef DISK_CLI_H
#define DISK_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "disk_job.h"
#include "peak_bench.h"
#include "peak_opts.h"

struct disk_opts {
	struct peak_common_opts common;
	const char *dir;
	uint64_t file_size;
	struct peak_str_list tests;
	struct peak_list blocks;
	struct peak_str_list engines;
	uint64_t iodepth;
	uint64_t iodepth_batch; /* I/Os queued per submit call (fio's iodepth_batch_submit) */
	const char *direct;
	const char *sync; /* the call that ends a write repetition: fdatasync or fsync */
	const char *buffer_pages;
	const char *buffer_dir; /* NULL, or --buffer-dir (disk_buffer_dir.h) */
	uint64_t data_period; /* 0: the default, min(file size, 64 MiB) */
	double runtime_s;
	bool keep;
	bool verify;
	struct peak_list cpus; /* --cpus: where the process may run (n 0: anywhere allowed) */
	double sustain_s;      /* --sustain: one sequential job this long, per second (0: off) */
};

/* Defaults after the common ones: every test, the PA1 block sizes (chosen in
 * disk_opts_check), depth 32. */
void disk_opts_defaults(struct disk_opts *o);

/* diskbench's option table (with the common options) into t; returns its length. */
size_t disk_opts_table(struct disk_opts *o, struct peak_opt *t, size_t max);

/* What the table cannot check: 0, or -1 with e set (exit 2, one line). */
int disk_opts_check(struct disk_opts *o, struct peak_bench_err *e);

/* The test a --test name stands for (the choices are in enum disk_test's order). */
enum disk_test disk_opts_test(const char *name);

/* PEAK_PAGES_* flags of the --buffer-pages choice. */
unsigned disk_opts_page_flags(const struct disk_opts *o);

#endif
