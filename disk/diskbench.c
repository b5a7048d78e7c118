/* diskbench: disk throughput, IOPS and per-I/O latency over one file it creates itself,
 * with O_DIRECT (or dropped page cache) and fdatasync-inclusive write timings. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "disk_cli.h"
#include "disk_engine.h"
#include "disk_file.h"
#include "disk_job.h"
#include "disk_layout.h"
#include "disk_pattern.h"
#include "peak_exit.h"
#include "peak_opts.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_result.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

/* Read buffers of all threads of one point stay under this; deeper queues are capped. */
#define DISK_BUFFER_BUDGET (1ull << 30)
/* IOPS rows are written for blocks up to this size. */
#define DISK_IOPS_MAX_BLOCK (64u << 10)

/* Rows are kept until the end so steal over the whole run can flag them. */
struct row_store {
	struct peak_result *rows;
	double **samples;
	size_t n, cap;
};

struct bench {
	struct disk_opts o;
	struct disk_file file;
	struct disk_pattern pat;
	struct peak_sysinfo si;
	struct peak_machine m;
	struct peak_context ctx;
	struct row_store store;
	struct peak_team *teams[PEAK_LIST_MAX];
	const struct disk_engine_ops *engines[2];
	size_t nengines;
	char engines_skipped[200]; /* default engines that cannot run here, with the reason */
	struct disk_point_result res;
};

static void note(const struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const struct bench *b, const char *fmt, ...)
{
	va_list ap;
	(void)b;
	va_start(ap, fmt);
	fputs("diskbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* "hugetlb", "thp", "thp-requested", "small", or "mixed" when a point's buffers differ. */
static const char *pages_seen_name(unsigned seen)
{
	for (unsigned k = PEAK_PAGES_SMALL; k <= PEAK_PAGES_HUGETLB; k++)
		if (seen == 1u << k)
			return peak_pages_name((enum peak_pages)k);
	return seen ? "mixed" : "none";
}

/* Engines: the ones asked for (one that cannot run here exits 3 with the reason), or by
 * default psync plus uring when it can run here. A default engine that cannot run (a
 * build without liburing, io_uring disabled by the kernel) is said in the context key
 * disk.engines_skipped, not on stderr: a new user's plain run has nothing to fix. */
static int pick_engines(struct bench *b)
{
	char reason[160];
	bool asked = b->o.engines.n > 0;
	if (!asked) {
		b->o.engines.v[0] = "psync";
		b->o.engines.v[1] = "uring";
		b->o.engines.n = 2;
	}
	for (size_t i = 0; i < b->o.engines.n; i++) {
		const struct disk_engine_ops *e = strcmp(b->o.engines.v[i], "uring") == 0
						      ? &disk_engine_uring
						      : &disk_engine_psync;
		bool dup = false;
		for (size_t j = 0; j < b->nengines; j++)
			dup |= b->engines[j] == e;
		if (dup)
			continue;
		if (!e->available(reason, sizeof(reason))) {
			if (asked) {
				fprintf(stderr, "diskbench: --engine %s: %s\n", e->name, reason);
				return PEAK_EXIT_UNSUPPORTED;
			}
			(void)snprintf(b->engines_skipped, sizeof b->engines_skipped, "%s: %s",
				       e->name, reason);
			continue;
		}
		b->engines[b->nengines++] = e;
	}
	return -1;
}

static int store_row(struct row_store *s, const struct peak_result *r, const double *samples)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct peak_result *rows = realloc(s->rows, cap * sizeof(*rows));
		if (!rows)
			return -1;
		s->rows = rows;
		double **smp = realloc(s->samples, cap * sizeof(*smp));
		if (!smp)
			return -1;
		s->samples = smp;
		s->cap = cap;
	}
	double *copy = malloc((r->nsamples ? r->nsamples : 1) * sizeof(double));
	if (!copy)
		return -1;
	memcpy(copy, samples, r->nsamples * sizeof(double));
	s->rows[s->n] = *r;
	s->rows[s->n].samples = copy;
	s->samples[s->n++] = copy;
	return 0;
}

static void row_flags(const struct bench *b, const struct disk_point *pt, struct peak_result *r,
		      bool capped)
{
	char pages[40];
	snprintf(pages, sizeof(pages), "buffer_pages=%s", pages_seen_name(b->res.pages_seen));
	peak_result_flag(r, pages);
	if (!pt->direct)
		peak_result_flag(r, "buffered;cache_dropped");
	if (b->file.is_tmpfs) /* "tmpfs" or "ramfs": memory, not a disk */
		peak_result_flag(r, b->file.fs_type);
	if (b->res.time_based)
		peak_result_flag(r, "time_based");
	if (capped)
		peak_result_flag(r, "iodepth_capped");
	if (pt->threads > peak_team_allowed_cpus())
		peak_result_flag(r, "oversubscribed");
	if (!b->res.verified)
		peak_result_flag(r, "unverified");
}

/* Rows of one point: throughput, IOPS (small blocks), per-I/O latency with percentiles. */
static int emit_point(struct bench *b, const struct disk_point *pt, bool capped)
{
	char variant[64];
	const struct disk_point_result *res = &b->res;
	const struct peak_value *mbps = &b->m.disk_mbps, *iops = &b->m.disk_iops;
	struct peak_result r;

	if (pt->engine == &disk_engine_psync)
		snprintf(variant, sizeof(variant), "psync");
	else
		snprintf(variant, sizeof(variant), "%s-qd%u", pt->engine->name, res->depth_used);
	for (int kind = 0; kind < 3; kind++) {
		const double *s = kind == 0 ? res->mb_per_s : kind == 1 ? res->iops : res->lat_us;
		if (kind == 1 && pt->block_bytes > DISK_IOPS_MAX_BLOCK)
			continue;
		peak_result_init(&r, "disk", disk_test_name(pt->test), variant,
				 kind == 0   ? "throughput"
				 : kind == 1 ? "iops"
					     : "latency",
				 kind == 0   ? "MB/s"
				 : kind == 1 ? "IOPS"
					     : "us");
		r.threads = pt->threads;
		r.block_bytes = pt->block_bytes;
		r.has_block = true;
		peak_result_set_samples(&r, s, res->nreps);
		if (kind == 0 && mbps->source != PEAK_SRC_UNKNOWN)
			r.theoretical = mbps->value;
		if (kind == 1 && iops->source != PEAK_SRC_UNKNOWN)
			r.theoretical = iops->value;
		if (kind == 2) {
			r.p50 = (double)peak_hist_percentile(&res->hist, 50) / 1e3;
			r.p90 = (double)peak_hist_percentile(&res->hist, 90) / 1e3;
			r.p99 = (double)peak_hist_percentile(&res->hist, 99) / 1e3;
			r.p999 = (double)peak_hist_percentile(&res->hist, 99.9) / 1e3;
		}
		row_flags(b, pt, &r, capped);
		peak_result_finish(&r);
		if (store_row(&b->store, &r, s) != 0)
			return -1;
	}
	return 0;
}

static struct peak_team *team_for(struct bench *b, size_t idx, unsigned threads, struct disk_err *e)
{
	if (!b->teams[idx]) {
		char err[256];
		/* Not pinned: I/O threads sleep in the kernel, and fio does not pin either. */
		b->teams[idx] = peak_team_create(threads, false, err, sizeof(err));
		if (!b->teams[idx]) {
			snprintf(e->msg, sizeof(e->msg), "--threads %u: %s", threads, err);
			e->exit_code = PEAK_EXIT_FAIL;
		}
	}
	return b->teams[idx];
}

/* Whether this block size can go through O_DIRECT on this file. */
static bool block_direct_ok(const struct bench *b, uint64_t block)
{
	return b->file.direct_ok && block % b->file.dio_align == 0;
}

static int run_point(struct bench *b, struct disk_point *pt, size_t team_idx, struct disk_err *e)
{
	struct peak_team *team = team_for(b, team_idx, pt->threads, e);
	bool capped = false;
	if (!team)
		return -1;
	if (pt->engine->max_depth < pt->depth)
		pt->depth = pt->engine->max_depth;
	while (pt->depth > 1 && disk_point_buffer_bytes(pt) * pt->threads > DISK_BUFFER_BUDGET) {
		pt->depth /= 2;
		capped = true;
	}
	if (disk_point_run(pt, &b->file, &b->pat, team, &b->res, e) != 0)
		return -1;
	if (disk_stop_signal())
		return 0;
	if (!b->o.common.quiet) {
		char bs[32];
		const double *v = b->res.mb_per_s;
		double sum = 0;
		for (size_t i = 0; i < b->res.nreps; i++)
			sum += v[i];
		note(b, "%-10s %8s x%-2u %-5s %-8s %-7s %10.1f MB/s", disk_test_name(pt->test),
		     peak_format_size(pt->block_bytes, bs, sizeof(bs)), pt->threads,
		     pt->engine->name, pt->direct ? "direct" : "buffered",
		     pages_seen_name(b->res.pages_seen),
		     b->res.nreps ? sum / (double)b->res.nreps : 0.0);
	}
	return emit_point(b, pt, capped);
}

static int sweep(struct bench *b, struct disk_err *e)
{
	const struct disk_opts *o = &b->o;
	uint64_t seed = 0;
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = 0x5eed;
	bool layout_lost = false; /* seq_write_new released the file's blocks */
	for (size_t ti = 0; ti < o->tests.n; ti++) {
		enum disk_test test = disk_opts_test(o->tests.v[ti]);
		/* Every other test reads or overwrites the laid-out file: lay it out again,
		 * untimed. */
		if (layout_lost && test != DISK_SEQ_WRITE_NEW) {
			if (disk_layout(&b->file, &b->pat, false, e) != 0)
				return -1;
			layout_lost = false;
		}
		layout_lost |= test == DISK_SEQ_WRITE_NEW;
		for (size_t bi = 0; bi < o->blocks.n; bi++) {
			uint64_t block = o->blocks.v[bi];
			bool direct = strcmp(o->direct, "off") != 0 && block_direct_ok(b, block);
			if (strcmp(o->direct, "on") == 0 && !direct) {
				if (!o->common.quiet)
					note(b,
					     "skipping --block %llu: not a multiple of the %u-byte "
					     "O_DIRECT alignment",
					     (unsigned long long)block, b->file.dio_align);
				continue;
			}
			for (size_t th = 0; th < o->common.threads.n; th++) {
				for (size_t en = 0; en < b->nengines; en++) {
					struct disk_point pt = {
					    .test = test,
					    .engine = b->engines[en],
					    .depth = (unsigned)o->iodepth,
					    .block_bytes = block,
					    .threads = (unsigned)o->common.threads.v[th],
					    .direct = direct,
					    .reps = (unsigned)o->common.reps,
					    .min_time_s = o->common.min_time_s,
					    .runtime_s = o->runtime_s,
					    .seed = seed++,
					    .verify_writes = o->verify,
					    .buffer_pages = disk_opts_page_flags(o),
					    .submit_batch = (unsigned)o->iodepth_batch,
					};
					if (block > o->file_size / pt.threads) {
						if (!o->common.quiet)
							note(b,
							     "skipping --block %llu at %u threads: "
							     "larger than each thread's share of "
							     "the file",
							     (unsigned long long)block, pt.threads);
						continue;
					}
					if (run_point(b, &pt, th, e) != 0)
						return -1;
					if (disk_stop_signal())
						return 0;
				}
			}
		}
	}
	return 0;
}

static void add_context(struct bench *b)
{
	char buf[64];
	const struct disk_file *f = &b->file;
	peak_sysinfo_to_context(&b->si, &b->ctx);
	peak_machine_to_context(&b->m, &b->ctx);
	peak_context_set_str(&b->ctx, "suite", "disk");
	peak_context_set_str(&b->ctx, "disk.dir", f->dir_path);
	peak_context_set_str(&b->ctx, "disk.fs_type", f->fs_type);
	peak_context_set_str(&b->ctx, "disk.device", f->device);
	peak_context_set_num(&b->ctx, "disk.file_bytes", (double)f->size_bytes);
	peak_context_set_num(&b->ctx, "disk.free_bytes_before", (double)f->free_bytes);
	peak_context_set_bool(&b->ctx, "disk.o_direct", f->direct_ok);
	peak_context_set_num(&b->ctx, "disk.dio_align_bytes", f->dio_align);
	peak_context_set_str(&b->ctx, "disk.direct_mode", b->o.direct);
	peak_context_set_str(&b->ctx, "disk.buffer_pages", b->o.buffer_pages);
	peak_context_set_num(&b->ctx, "disk.data_period_bytes", (double)b->pat.period);
	peak_context_set_num(&b->ctx, "disk.iodepth", (double)b->o.iodepth);
	peak_context_set_num(&b->ctx, "disk.iodepth_batch", (double)b->o.iodepth_batch);
	peak_context_set_bool(&b->ctx, "disk.verify", b->o.verify);
	snprintf(buf, sizeof(buf), "%s", b->o.runtime_s > 0 ? "time" : "pass");
	peak_context_set_str(&b->ctx, "disk.repetition", buf);
	peak_context_set_str(&b->ctx, "disk.engines_skipped",
			     b->engines_skipped[0] ? b->engines_skipped : "none");
	if (f->is_tmpfs)
		peak_context_warn(&b->ctx, "disk_on_tmpfs");
	if (!f->direct_ok)
		peak_context_warn(&b->ctx, "no_o_direct");
}

/* Create the file, lay it out, check what the filesystem offers. */
static int prepare(struct bench *b, struct disk_err *e)
{
	struct disk_file *f = &b->file;
	uint64_t span = 4u << 20;

	f->keep = b->o.keep;
	if (disk_file_open_dir(f, b->o.dir, e) != 0 || disk_file_create(f, b->o.file_size, e) != 0)
		return -1;
	if (!f->direct_ok && strcmp(b->o.direct, "on") == 0) {
		snprintf(e->msg, sizeof(e->msg),
			 "--direct on: %s (%s) does not support O_DIRECT; use --direct auto or "
			 "another --dir",
			 f->dir_path, f->fs_type);
		e->exit_code = PEAK_EXIT_UNSUPPORTED;
		return -1;
	}
	if (strcmp(b->o.direct, "on") == 0) {
		bool any = false;
		for (size_t i = 0; i < b->o.blocks.n; i++)
			any |= block_direct_ok(b, b->o.blocks.v[i]);
		if (!any) {
			snprintf(e->msg, sizeof(e->msg),
				 "--direct on: no --block is a multiple of the %u-byte O_DIRECT "
				 "alignment of %s",
				 f->dio_align, f->dir_path);
			e->exit_code = PEAK_EXIT_UNSUPPORTED;
			return -1;
		}
	}
	if (!b->o.common.quiet) {
		if (!f->direct_ok)
			note(b,
			     "%s (%s) does not support O_DIRECT: every row is buffered with the "
			     "page cache dropped before each repetition",
			     f->dir_path, f->fs_type);
		if (f->is_tmpfs)
			note(b, "%s is on %s: the figures are memory speed, not a disk's",
			     f->dir_path, f->fs_type);
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
	char why[512];
	if (disk_pattern_init(&b->pat, seed, f->size_bytes, span, b->o.data_period, flags, why,
			      sizeof(why)) != 0) {
		if (flags & PEAK_PAGES_REQUIRED) {
			snprintf(e->msg, sizeof(e->msg),
				 "--buffer-pages %s: the data pattern (the write buffer): %s",
				 b->o.buffer_pages, why);
			e->exit_code = PEAK_EXIT_UNSUPPORTED;
		} else {
			snprintf(e->msg, sizeof(e->msg), "out of memory for the data pattern");
			e->exit_code = PEAK_EXIT_FAIL;
		}
		return -1;
	}
	if (disk_layout(f, &b->pat, false, e) != 0)
		return -1;
	if (b->o.verify && disk_verify_file(f, &b->pat, e) != 0)
		return -1;
	return 0;
}

static int write_results(struct bench *b, struct peak_output *out, double steal_pct)
{
	int rc = 0;
	if (peak_output_begin(out, &b->ctx) != 0)
		rc = -1;
	for (size_t i = 0; i < b->store.n; i++) {
		if (steal_pct > 1.0)
			peak_result_flag(&b->store.rows[i], "steal");
		if (peak_output_record(out, &b->store.rows[i]) != 0)
			rc = -1;
	}
	return rc;
}

/* The file goes first: nothing after this point can leave it behind. */
static void teardown(struct bench *b)
{
	disk_file_cleanup(&b->file);
	for (size_t i = 0; i < PEAK_LIST_MAX; i++)
		if (b->teams[i])
			peak_team_destroy(b->teams[i]);
	disk_pattern_free(&b->pat);
}

static void free_rows(struct row_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->samples[i]);
	free(s->rows);
	free(s->samples);
}

int main(int argc, char **argv)
{
	static struct bench b; /* large (histograms, samples): off the stack */
	struct peak_config cfg;
	struct peak_output out;
	struct disk_err e = {0, ""};
	char err[512];
	int rc;

	disk_opts_defaults(&b.o);
	disk_file_init(&b.file);
	if ((rc = disk_opts_parse(&b.o, argc, argv)) >= 0)
		return rc;
	if ((rc = pick_engines(&b)) >= 0)
		return rc;
	peak_config_init(&cfg);
	if (peak_config_load_default(&cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "diskbench: %s\n", err);
		return PEAK_EXIT_USAGE;
	}
	if (disk_signals_install() != 0) {
		fprintf(stderr, "diskbench: cannot install signal handlers: %s\n", strerror(errno));
		return PEAK_EXIT_FAIL;
	}
	if (peak_output_open(&out, b.o.common.format, b.o.common.output, err, sizeof(err)) != 0) {
		fprintf(stderr, "diskbench: %s\n", err);
		return PEAK_EXIT_USAGE;
	}
	peak_sysinfo_collect(&b.si, "");
	peak_machine_init(&b.m, &b.si, &cfg, "");
	peak_context_init(&b.ctx);
	rc = prepare(&b, &e);
	add_context(&b);
	if (rc == 0)
		rc = sweep(&b, &e);
	int sig = disk_stop_signal();
	double steal = peak_sysinfo_finish(&b.si, &b.ctx);
	if (rc == 0 && !sig && b.o.keep)
		note(&b, "kept %s/%s", b.file.dir_path, b.file.name);
	teardown(&b);
	if (rc != 0 && !sig)
		fprintf(stderr, "diskbench: %s\n", e.msg);
	if (write_results(&b, &out, steal) != 0 || peak_output_close(&out, &b.ctx) != 0) {
		if (rc == 0 && !sig)
			fprintf(stderr, "diskbench: writing the results failed\n");
		if (rc == 0)
			e.exit_code = PEAK_EXIT_FAIL;
		rc = -1;
	}
	free_rows(&b.store);
	if (sig)
		disk_signals_reraise(sig);
	return rc == 0 ? PEAK_EXIT_OK : e.exit_code;
}
