/* diskbench's command line (see disk_cli.h). */
#include "disk_cli.h"
#include "disk_sustain.h"
#include "peak_sustain.h"

#include <stdio.h>
#include <string.h>

#include "disk_pattern.h"
#include "peak_bench_main.h"
#include "peak_exit.h"
#include "peak_team.h"

/* In enum disk_test's order (disk_opts_test maps a name to its index). */
static const char *const test_choices[] = {"seq_rw",	 "seq_read",   "seq_write",
					   "rand_read",	 "rand_write", "seq_write_new",
					   NULL};
static const char *const engine_choices[] = {"psync", "uring", NULL};
static const char *const direct_choices[] = {"auto", "on", "off", NULL};
static const char *const sync_choices[] = {"fdatasync", "fsync", NULL};
/* --buffer-pages: what each choice asks peak_team_alloc_pages for. */
static const char *const pages_choices[] = {"auto",  "huge",      "hugetlb", "thp",
					    "small", "scattered", NULL};
static const unsigned pages_flags[] = {
    PEAK_PAGES_HUGE,
    PEAK_PAGES_HUGE | PEAK_PAGES_REQUIRED,
    PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_REQUIRED,
    PEAK_PAGES_TRY_THP | PEAK_PAGES_REQUIRED,
    0,
    PEAK_PAGES_SCATTER,
};

void disk_opts_defaults(struct disk_opts *o)
{
	o->file_size = 1ull << 30;
	for (size_t i = 0; test_choices[i]; i++)
		o->tests.v[o->tests.n++] = test_choices[i];
	o->iodepth = 32;
	o->iodepth_batch = 1;
	o->direct = "auto";
	o->sync = "fdatasync";
	o->buffer_pages = "auto";
}

size_t disk_opts_table(struct disk_opts *o, struct peak_opt *t, size_t max)
{
	const struct peak_opt table[] = {
	    {"dir", "DIR",
	     "directory for the test file (default: a new temp dir under $TMPDIR or /var/tmp)",
	     PEAK_OPT_PATH, &o->dir, 0, 0, NULL, NULL},
	    {"file-size", "SIZE", "size of the test file, a multiple of 4KiB (default 1GiB)",
	     PEAK_OPT_SIZE, &o->file_size, 4096, 1125899906842624.0, NULL, NULL},
	    {"test", "LIST", "seq_rw, seq_read, seq_write (overwrite), rand_read, rand_write, "
	     "seq_write_new (first write into new blocks) or all",
	     PEAK_OPT_CHOICE_LIST, &o->tests, 0, 0, test_choices, NULL},
	    {"block", "LIST", "block sizes (default 8B,4KiB,8KiB,8MiB,80MiB)", PEAK_OPT_SIZE_LIST,
	     &o->blocks, 1, 1073741824.0, NULL, NULL},
	    {"engine", "LIST", "psync, uring or all (default: each engine built that runs here)",
	     PEAK_OPT_CHOICE_LIST, &o->engines, 0, 0, engine_choices, NULL},
	    {"iodepth", "N", "I/Os in flight per thread for uring (default 32)", PEAK_OPT_UINT,
	     &o->iodepth, 1, 4096, NULL, NULL},
	    {"iodepth-batch", "N", "uring: I/Os queued per submit call (default 1, each as it is "
	     "queued, as fio's iodepth_batch_submit)", PEAK_OPT_UINT, &o->iodepth_batch, 1, 4096,
	     NULL, NULL},
	    {"direct", "MODE", "O_DIRECT: auto (when the block allows it), on (required) or off",
	     PEAK_OPT_CHOICE, &o->direct, 0, 0, direct_choices, NULL},
	    {"sync", "CALL",
	     "the call that makes a write repetition durable, timed with it: fdatasync "
	     "(default) or fsync (fio's end_fsync, for a job the same as fio's)",
	     PEAK_OPT_CHOICE, &o->sync, 0, 0, sync_choices, NULL},
	    {"buffer-pages", "KIND",
	     "I/O buffer pages: auto (huge when available), huge (hugetlb or THP, required), "
	     "hugetlb, thp, small (4KiB) or scattered (4KiB, no two physically adjacent: "
	     "a DMA segment per page, as a malloc'd buffer)",
	     PEAK_OPT_CHOICE, &o->buffer_pages, 0, 0, pages_choices, NULL},
	    {"buffer-dir", "DIR",
	     "I/O buffers on DIR/read.buf and DIR/write.buf, mapped shared (DIR on tmpfs, "
	     "made by diskbench if absent, left in place): fio --mem=mmapshared:DIR/read.buf "
	     "(reads) and DIR/write.buf (writes) then does its I/O from the same pages",
	     PEAK_OPT_PATH, &o->buffer_dir, 0, 0, NULL, NULL},
	    {"data-period", "SIZE",
	     "the data written repeats every SIZE bytes, 4KiB..64MiB (default: 64MiB or the "
	     "file); one block's size is fio's --scramble_buffers=0",
	     PEAK_OPT_SIZE, &o->data_period, 4096, (double)DISK_PATTERN_MAX_PERIOD, NULL, NULL},
	    {"runtime", "SECONDS",
	     "time-based: every repetition lasts this long (default: one pass)", PEAK_OPT_DOUBLE,
	     &o->runtime_s, 0.001, 86400, NULL, NULL},
	    {"cpus", "LIST",
	     "run only on these CPUs, e.g. 0 or 0,2 (fio's --cpus_allowed; default: wherever "
	     "the scheduler puts the I/O threads)",
	     PEAK_OPT_UINT_LIST, &o->cpus, 0, 4095, NULL, NULL},
	    {"sustain", "DURATION",
	     "one sequential job (seq_read, or --test seq_write) this long, e.g. 90s, 30m, 1h: "
	     "its throughput every second, burst and baseline",
	     PEAK_OPT_CALLBACK, &o->sustain_s, 0, 0, NULL, peak_sustain_parse},
	    {"keep", NULL, "leave the test file in place at the end", PEAK_OPT_FLAG, &o->keep, 0, 0,
	     NULL, NULL},
	    {"verify", NULL, "check every byte written and read against the pattern (slower)",
	     PEAK_OPT_FLAG, &o->verify, 0, 0, NULL, NULL},
	    PEAK_OPTS_COMMON(&o->common),
	};
	return peak_bench_opts_copy(t, max, table, sizeof(table) / sizeof(table[0]));
}

int disk_opts_check(struct disk_opts *o, struct peak_bench_err *e)
{
	if (o->sustain_s != 0 && disk_sustain_check(o, e) != 0)
		return -1;
	if (o->file_size % 4096)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--file-size: %llu is not a multiple of 4KiB",
				       (unsigned long long)o->file_size);
	if (o->data_period % 4096)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--data-period: %llu is not a multiple of 4KiB",
				       (unsigned long long)o->data_period);
	if (o->buffer_dir && strcmp(o->buffer_pages, "auto") != 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--buffer-dir and --buffer-pages %s: give one (the buffer "
				       "directory's pages are its files')",
				       o->buffer_pages);
	if (o->blocks.n == 0) { /* the PA1 sizes that fit in the file */
		static const uint64_t blocks[] = {8, 4096, 8192, 8u << 20, 80u << 20};
		for (size_t i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
			if (blocks[i] <= o->file_size)
				o->blocks.v[o->blocks.n++] = blocks[i];
	}
	for (size_t i = 0; i < o->blocks.n; i++) {
		if (o->blocks.v[i] > o->file_size)
			return peak_bench_fail(e, PEAK_EXIT_USAGE,
					       "--block %llu is larger than --file-size %llu",
					       (unsigned long long)o->blocks.v[i],
					       (unsigned long long)o->file_size);
	}
	return 0;
}

unsigned disk_opts_page_flags(const struct disk_opts *o)
{
	for (size_t i = 0; pages_choices[i]; i++)
		if (strcmp(o->buffer_pages, pages_choices[i]) == 0)
			return pages_flags[i];
	return 0;
}

enum disk_test disk_opts_test(const char *name)
{
	for (int k = 0; test_choices[k]; k++)
		if (strcmp(name, test_choices[k]) == 0)
			return (enum disk_test)k;
	return DISK_SEQ_RW;
}
