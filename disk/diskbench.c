/* diskbench: disk throughput, IOPS and per-I/O latency over one file it creates itself,
 * with O_DIRECT (or dropped page cache) and fdatasync-inclusive write timings. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "disk_buffer_dir.h"
#include "disk_cli.h"
#include "disk_engine.h"
#include "disk_file.h"
#include "disk_layout.h"
#include "disk_pattern.h"
#include "disk_suite.h"
#include "disk_sustain.h"
#include "peak_bench.h"
#include "peak_bench_main.h"
#include "peak_exit.h"
#include "peak_report.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

/* The program's state (peak_bench_main owns it). */
struct bench {
	struct disk_opts o;
	struct disk_file file;
	struct disk_pattern pat;
	struct disk_buffer_dir bufdir; /* --buffer-dir's files, or both fds -1 */
	struct peak_context *ctx;      /* peak_bench_main's */
	struct disk_suite suite;   /* the engines that run, the kernels, the hooks' state */
	char engines_skipped[200]; /* default engines that cannot run here, with the reason */
};

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("diskbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Engines: the ones asked for (one that cannot run here exits 3 with the reason), or by
 * default psync plus uring when it can run here. A default engine that cannot run (a
 * build without liburing, io_uring disabled by the kernel) is said in the context key
 * disk.engines_skipped, not on stderr and not as a row: a new user's plain run has nothing
 * to fix. */
static int pick_engines(struct bench *b, struct peak_bench_err *e)
{
	struct disk_suite *s = &b->suite;
	char reason[160];
	bool asked = b->o.engines.n > 0;
	if (!asked) {
		b->o.engines.v[0] = "psync";
		b->o.engines.v[1] = "uring";
		b->o.engines.n = 2;
	}
	for (size_t i = 0; i < b->o.engines.n; i++) {
		const struct disk_engine_ops *eng = strcmp(b->o.engines.v[i], "uring") == 0
							? &disk_engine_uring
							: &disk_engine_psync;
		bool dup = false;
		for (size_t j = 0; j < s->nengines; j++)
			dup |= s->engines[j] == eng;
		if (dup)
			continue;
		if (!eng->available(reason, sizeof(reason))) {
			if (asked)
				return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED, "--engine %s: %s",
						       eng->name, reason);
			(void)snprintf(b->engines_skipped, sizeof b->engines_skipped, "%s: %s",
				       eng->name, reason);
			continue;
		}
		s->engines[s->nengines++] = eng;
	}
	return 0;
}

static int disk_context(struct peak_bench_env *env)
{
	struct bench *b = env->state;
	char buf[PEAK_LIST_MAX * 5 + 1]; /* --cpus: up to 64 CPUs of 4 digits, commas between */
	const struct disk_file *f = &b->file;
	peak_context_set_str(b->ctx, "suite", "disk");
	peak_context_set_str(b->ctx, "disk.dir", f->dir_path);
	peak_context_set_str(b->ctx, "disk.fs_type", f->fs_type);
	peak_context_set_str(b->ctx, "disk.device", f->device);
	peak_context_set_num(b->ctx, "disk.file_bytes", (double)f->size_bytes);
	peak_context_set_num(b->ctx, "disk.free_bytes_before", (double)f->free_bytes);
	peak_context_set_bool(b->ctx, "disk.o_direct", f->direct_ok);
	peak_context_set_num(b->ctx, "disk.dio_align_bytes", f->dio_align);
	peak_context_set_str(b->ctx, "disk.direct_mode", b->o.direct);
	peak_context_set_str(b->ctx, "disk.sync", b->o.sync);
	peak_context_set_str(b->ctx, "disk.buffer_pages", b->o.buffer_dir ? "shared" : b->o.buffer_pages);
	if (b->o.buffer_dir)
		peak_context_set_str(b->ctx, "disk.buffer_dir", b->bufdir.path);
	peak_context_set_num(b->ctx, "disk.data_period_bytes", (double)b->pat.period);
	peak_context_set_num(b->ctx, "disk.iodepth", (double)b->o.iodepth);
	if (b->o.cpus.n)
		peak_context_set_str(b->ctx, "disk.cpus",
				     peak_format_list(&b->o.cpus, buf, sizeof(buf)));
	peak_context_set_num(b->ctx, "disk.iodepth_batch", (double)b->o.iodepth_batch);
	peak_context_set_bool(b->ctx, "disk.verify", b->o.verify);
	snprintf(buf, sizeof(buf), "%s", b->o.runtime_s > 0 ? "time" : "pass");
	peak_context_set_str(b->ctx, "disk.repetition", buf);
	peak_context_set_str(b->ctx, "disk.engines_skipped",
			     b->engines_skipped[0] ? b->engines_skipped : "none");
	if (f->is_tmpfs)
		peak_context_warn(b->ctx, "disk_on_tmpfs");
	if (!f->direct_ok)
		peak_context_warn(b->ctx, "no_o_direct");
	return 0;
}

/* --cpus: the process, and so every I/O thread it starts, runs only there. Threads are
 * not pinned one to a CPU (fio's --cpus_allowed does not either): they sleep in the
 * kernel, and on a VM whose disk interrupts all go to one vCPU, which CPU a thread waiting
 * for a 4 KiB read runs on changes its latency, so two tools compared run on the same. */
static int restrict_cpus(const struct disk_opts *o, struct peak_bench_err *e)
{
	long bad;
	if (peak_team_confine(o->cpus.v, o->cpus.n, &bad) == 0)
		return 0;
	if (bad >= 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE,
				       "--cpus: CPU %ld is not one this process may run on", bad);
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "--cpus: %s", strerror(errno));
}

/* Create the file, lay it out, check what the filesystem offers. */
static int prepare(struct bench *b, struct peak_bench_err *e)
{
	struct disk_file *f = &b->file;
	uint64_t span = 4u << 20;

	f->keep = b->o.keep;
	if (b->o.buffer_dir && disk_buffer_dir_open(&b->bufdir, b->o.buffer_dir, e) != 0)
		return -1;
	b->suite.read_buffer_fd = b->bufdir.read_fd;
	if (disk_file_open_dir(f, b->o.dir, e) != 0 || disk_file_create(f, b->o.file_size, e) != 0)
		return -1;
	if (!f->direct_ok && strcmp(b->o.direct, "on") == 0)
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED,
				       "--direct on: %s (%s) does not support O_DIRECT; use "
				       "--direct auto or another --dir",
				       f->dir_path, f->fs_type);
	if (strcmp(b->o.direct, "on") == 0) {
		bool any = false;
		for (size_t i = 0; i < b->o.blocks.n; i++)
			any |= disk_suite_block_direct_ok(f, b->o.blocks.v[i]);
		if (!any)
			return peak_bench_fail(
			    e, PEAK_EXIT_UNSUPPORTED,
			    "--direct on: no --block is a multiple of the %u-byte "
			    "O_DIRECT alignment of %s",
			    f->dio_align, f->dir_path);
	}
	if (!b->o.common.quiet) {
		if (!f->direct_ok)
			note("%s (%s) does not support O_DIRECT: every row is buffered with the "
			     "page cache dropped before each repetition",
			     f->dir_path, f->fs_type);
		if (f->is_tmpfs)
			note("%s is on %s: the figures are memory speed, not a disk's", f->dir_path,
			     f->fs_type);
	}
	for (size_t i = 0; i < b->o.blocks.n; i++)
		if (b->o.blocks.v[i] > span)
			span = b->o.blocks.v[i];
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = 0x9e3779b97f4a7c15ull;
	/* Writes go straight from the pattern: it is the write tests' I/O buffer. */
	bool writes = false;
	for (size_t i = 0; i < b->o.tests.n; i++)
		writes |=
		    strstr(b->o.tests.v[i], "write") || strcmp(b->o.tests.v[i], "seq_rw") == 0;
	unsigned flags = writes ? disk_opts_page_flags(&b->o) : 0;
	char why[256];
	if (disk_pattern_init(&b->pat, seed, f->size_bytes, span, b->o.data_period, flags,
			      writes ? b->bufdir.write_fd : -1, why, sizeof(why)) != 0) {
		if (writes && b->bufdir.write_fd >= 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "the data pattern (the write buffer): %s",
					       why);
		if (flags & PEAK_PAGES_REQUIRED)
			return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED,
					       "--buffer-pages %s: the data pattern (the write "
					       "buffer): %s",
					       b->o.buffer_pages, why);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory for the data pattern");
	}
	if (disk_layout(f, &b->pat, false, e) != 0)
		return -1;
	if (b->o.verify && disk_verify_file(f, &b->pat, e) != 0)
		return -1;
	return 0;
}

/* Every --test in order, each a sweep of the harness. seq_write_new releases the file's
 * blocks: every other test reads or overwrites the laid-out file, so it is laid out again
 * (untimed) before the next one. */
static int sweep(struct bench *b, struct peak_output *out, struct peak_bench_err *e)
{
	struct disk_suite *s = &b->suite;
	bool layout_lost = false;
	if (b->o.sustain_s != 0) { /* the last engine: uring when it runs here, as fio users would */
		if (!b->o.common.quiet)
			note("--sustain: %s for %.0f s (one value a second)", b->o.tests.v[0],
			     b->o.sustain_s);
		return disk_sustain_run(&b->o, &b->file, &b->pat, s->engines[s->nengines - 1],
					s->m->disk_mbps.source != PEAK_SRC_UNKNOWN
					    ? s->m->disk_mbps.value
					    : NAN,
					out, b->ctx, e);
	}
	if (getrandom(&s->seed, sizeof(s->seed), 0) != (ssize_t)sizeof(s->seed))
		s->seed = 0x5eed;
	for (size_t ti = 0; ti < b->o.tests.n && !disk_stop_signal(); ti++) {
		enum disk_test test = disk_opts_test(b->o.tests.v[ti]);
		if (layout_lost && test != DISK_SEQ_WRITE_NEW) {
			if (disk_layout(&b->file, &b->pat, false, e) != 0)
				return -1;
			layout_lost = false;
		}
		layout_lost |= test == DISK_SEQ_WRITE_NEW;
		if (disk_suite_sweep(s, test, out, e) != 0)
			return -1;
	}
	return 0;
}

static void disk_defaults(void *state)
{
	struct bench *b = state;
	disk_opts_defaults(&b->o);
	disk_file_init(&b->file);
	b->bufdir.read_fd = b->bufdir.write_fd = -1;
	b->suite.read_buffer_fd = -1;
}

static size_t disk_options(void *state, struct peak_opt *t, size_t max)
{
	return disk_opts_table(&((struct bench *)state)->o, t, max);
}

static int disk_check(struct peak_bench_env *env)
{
	struct bench *b = env->state;
	b->ctx = &env->ctx;
	if (disk_opts_check(&b->o, &env->err) != 0 || restrict_cpus(&b->o, &env->err) != 0)
		return -1;
	return pick_engines(b, &env->err);
}

static int disk_start(struct peak_bench_env *env)
{
	if (disk_signals_install() != 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_FAIL,
				       "cannot install signal handlers: %s", strerror(errno));
	return 0;
}

/* After the output opened: the suite's hooks, the file created and laid out. */
static int disk_setup(struct peak_bench_env *env)
{
	struct bench *b = env->state;
	b->suite.o = &b->o;
	b->suite.file = &b->file;
	b->suite.pat = &b->pat;
	b->suite.m = &env->m;
	disk_suite_init(&b->suite);
	return prepare(b, &env->err);
}

static int disk_sweep(struct peak_bench_env *env)
{
	return sweep(env->state, &env->out, &env->err);
}

/* The file goes first: nothing after this point can leave it behind. */
static int disk_finish(struct peak_bench_env *env)
{
	struct bench *b = env->state;
	if (env->err.code == PEAK_EXIT_OK && !disk_stop_signal() && b->o.keep)
		note("kept %s/%s", b->file.dir_path, b->file.name);
	disk_file_cleanup(&b->file);
	disk_pattern_free(&b->pat);
	disk_buffer_dir_close(&b->bufdir);
	return 0;
}

/* A signal that stopped the run ends the process by that signal, once the output is closed. */
static int disk_cleanup(struct peak_bench_env *env)
{
	int sig = disk_stop_signal();
	if (sig)
		disk_signals_reraise(sig);
	(void)env;
	return 0;
}

static const struct peak_bench_program diskbench = {
    .name = "diskbench",
    .usage = "[options]",
    .summary = "Disk throughput (MB/s), IOPS and per-I/O latency over a file diskbench "
	       "creates and removes itself.",
    .state_bytes = sizeof(struct bench),
    .common_offset = offsetof(struct bench, o.common),
    .defaults = disk_defaults,
    .options = disk_options,
    .machine = PEAK_BENCH_MACHINE_PEAKS,
    .check = disk_check,
    .start = disk_start,
    .setup = disk_setup,
    .context = disk_context,
    .sweep = disk_sweep,
    .finish = disk_finish,
    .cleanup = disk_cleanup,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &diskbench);
}
