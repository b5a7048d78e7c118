/* diskbench's suite on the harness: kernels (one per engine), points (the blocks of one
 * test), the hooks that run a disk job, and the rows disk adds (IOPS, latency). */
#include "disk_suite.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_exit.h"
#include "peak_opts.h"
#include "peak_row_flags.h"
#include "peak_team.h"

/* Read buffers of all threads of one point stay under this; deeper queues are capped. */
#define DISK_BUFFER_BUDGET (1ull << 30)
/* IOPS rows are written for blocks up to this size. */
#define DISK_IOPS_MAX_BLOCK (64u << 10)

/* A kernel's state while a point runs. */
struct point_state {
	struct disk_point pt; /* the job points to it */
	bool capped;          /* the queue depth was lowered to fit DISK_BUFFER_BUDGET */
	struct disk_job *job;
	double mean_mb_per_s; /* the throughput row's, for the progress line */
};

bool disk_suite_block_direct_ok(const struct disk_file *f, uint64_t block)
{
	return f->direct_ok && block % f->dio_align == 0;
}

/* "hugetlb", "thp", "thp-requested", "small", "scattered", "shared", or "mixed" when a
 * point's buffers differ. */
static const char *pages_seen_name(unsigned seen)
{
	for (unsigned k = PEAK_PAGES_SHARED; k <= PEAK_PAGES_HUGETLB; k++)
		if (seen == 1u << k)
			return peak_pages_name((enum peak_pages)k);
	return seen ? "mixed" : "none";
}

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
		if ((p == flags || p[-1] == ';') && (p[n] == '\0' || p[n] == ';'))
			return true;
	return false;
}

/* The points of one sweep: every --block, in order (the harness adds the thread count). */
static int point(void *data, unsigned threads, size_t i, struct peak_bench_point *p)
{
	const struct disk_suite *s = data;
	(void)threads;
	if (i >= s->o->blocks.n)
		return 0;
	p->block_bytes = s->o->blocks.v[i];
	p->has_block = true;
	return 1;
}

static bool supported(const struct peak_bench_run *r, char *why, size_t why_len)
{
	const struct disk_suite *s = r->suite_data;
	uint64_t block = r->point->block_bytes;
	if (strcmp(s->o->direct, "on") == 0 && !disk_suite_block_direct_ok(s->file, block)) {
		snprintf(why, why_len,
			 "--direct on: not a multiple of the %u-byte O_DIRECT alignment",
			 s->file->dio_align);
		return false;
	}
	if (block > s->o->file_size / r->nthreads) {
		snprintf(why, why_len, "larger than each thread's share of the file");
		return false;
	}
	return true;
}

/* The job of this point: its depth capped so all threads' buffers fit the budget. */
static int setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct disk_suite *s = r->suite_data;
	const struct disk_opts *o = s->o;
	const struct disk_engine_ops *eng = *(const struct disk_engine_ops **)r->k->data;
	uint64_t block = r->point->block_bytes;
	struct point_state *st = calloc(1, sizeof(*st));
	if (!st)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	st->pt = (struct disk_point){
	    .test = s->test,
	    .engine = eng,
	    .depth = (unsigned)o->iodepth,
	    .block_bytes = block,
	    .threads = r->nthreads,
	    .direct = strcmp(o->direct, "off") != 0 && disk_suite_block_direct_ok(s->file, block),
	    .fsync = strcmp(o->sync, "fsync") == 0,
	    .min_time_s = o->common.min_time_s,
	    .runtime_s = o->runtime_s,
	    .seed = s->seed++,
	    .verify_writes = o->verify,
	    .buffer_pages = disk_opts_page_flags(o),
	    .read_buffer_fd = s->read_buffer_fd,
	    .submit_batch = (unsigned)o->iodepth_batch,
	};
	struct disk_point *pt = &st->pt;
	if (eng->max_depth < pt->depth)
		pt->depth = eng->max_depth;
	while (pt->depth > 1 && disk_point_buffer_bytes(pt) * pt->threads > DISK_BUFFER_BUDGET) {
		pt->depth /= 2;
		st->capped = true;
	}
	if (disk_job_open(&st->job, pt, s->file, s->pat, r->team, e) != 0) {
		free(st); /* the harness calls no teardown after a failed setup */
		return -1;
	}
	r->state = st;
	return 0;
}

/* The warm-up, then one repetition per call: the job times itself. */
static int measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	struct point_state *st = r->state;
	int rc = r->rep == PEAK_BENCH_NOT_MEASURED ? disk_job_warmup(st->job, e)
						   : disk_job_rep(st->job, value, e);
	if (rc == 0 && disk_stop_signal())
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "interrupted by a signal");
	return rc;
}

/* Reads are checked inside every repetition; writes under --verify after the last one
 * (the harness's stopping rule names it: last_rep). */
static int verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct point_state *st = r->state;
	if (r->rep == PEAK_BENCH_NOT_MEASURED || !r->last_rep)
		return 0;
	return disk_job_check(st->job, e);
}

static double peak_mbps(const struct peak_bench_run *r)
{
	const struct disk_suite *s = r->suite_data;
	return s->m->disk_mbps.value;
}

static void teardown(struct peak_bench_run *r)
{
	struct point_state *st = r->state;
	if (!st)
		return;
	disk_job_close(st->job);
	free(st);
	r->state = NULL;
}

/* disk's own flags, in the order rows have always carried them. */
static void disk_flags(const struct disk_suite *s, const struct point_state *st,
		       const struct disk_point_result *d, const struct peak_team *team,
		       struct peak_result *r)
{
	char pages[40];
	snprintf(pages, sizeof(pages), "buffer_pages=%s", pages_seen_name(d->pages_seen));
	peak_result_flag(r, pages);
	if (!st->pt.direct)
		peak_result_flag(r, "buffered;cache_dropped");
	if (s->file->is_tmpfs) /* "tmpfs" or "ramfs": memory, not a disk */
		peak_result_flag(r, s->file->fs_type);
	if (d->time_based)
		peak_result_flag(r, "time_based");
	if (st->capped)
		peak_result_flag(r, "iodepth_capped");
	if (peak_team_oversubscribed(team))
		peak_result_flag(r, "oversubscribed");
	if (!d->verified)
		peak_result_flag(r, "unverified");
}

/* The harness's steal flag and its share (steal_pct=P), when it set them. */
static void add_steal(struct peak_result *r, const char *standard)
{
	char pct[32];
	if (!has_flag(standard, "steal"))
		return;
	peak_result_flag(r, "steal");
	if (peak_result_flag_item(standard, "steal_pct", pct, sizeof(pct)))
		peak_result_flag(r, pct);
}

/* The harness's flags after disk's own, steal last (as the rows have always had them). */
static void add_standard_flags(struct peak_result *r, const char *standard)
{
	char buf[sizeof(r->flags)], *save = NULL;
	snprintf(buf, sizeof(buf), "%s", standard);
	for (char *f = strtok_r(buf, ";", &save); f; f = strtok_r(NULL, ";", &save))
		if (strcmp(f, "steal") != 0 && strncmp(f, "steal_pct=", 10) != 0)
			peak_result_flag(r, f);
	add_steal(r, standard);
}

/* An IOPS or latency row beside the throughput row thr: same point, same flags. */
static void extra_row(const struct peak_bench_run *r, const struct peak_result *thr,
		      const char *standard, const char *metric, const char *unit,
		      const double *samples, double theoretical, struct peak_result *x)
{
	const struct disk_suite *s = r->suite_data;
	const struct point_state *st = r->state;
	const struct disk_point_result *d = disk_job_result(st->job);
	peak_result_init(x, thr->suite, thr->test, thr->variant, metric, unit);
	x->threads = thr->threads;
	x->block_bytes = thr->block_bytes;
	x->has_block = thr->has_block;
	peak_result_set_samples(x, samples, d->nreps);
	x->theoretical = theoretical;
	disk_flags(s, st, d, r->team, x);
	peak_result_finish(x);
	add_steal(x, standard);
}

/* The progress line's text (the harness prints it once the point's rows are recorded):
 * engine mode, the buffers' pages and the throughput, as fio reports a job. */
static void progress(const struct peak_bench_run *r, const struct peak_result *res, char *buf,
		     size_t len)
{
	const struct point_state *st = r->state;
	(void)res;
	if (!st)
		return;
	const struct disk_point_result *d = disk_job_result(st->job);
	(void)snprintf(buf, len, "%s, %s pages, %.1f MB/s", st->pt.direct ? "direct" : "buffered",
		       pages_seen_name(d->pages_seen), d->nreps ? st->mean_mb_per_s : 0.0);
}

/* The rows of one point, in their old order: throughput (the harness's row, recorded here),
 * IOPS for small blocks, then per-I/O latency with percentiles, which res becomes, so that
 * the harness records it last. Its samples live in the suite: the harness tears the job
 * down before it records res. */
static int row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
	       struct peak_bench_err *e)
{
	struct disk_suite *s = r->suite_data;
	struct point_state *st = r->state;
	const struct disk_point_result *d = disk_job_result(st->job);
	const struct peak_value *iops_peak = &s->m->disk_iops;
	char standard[sizeof(res->flags)];
	struct peak_result x;

	snprintf(standard, sizeof(standard), "%s", res->flags);
	if (st->pt.engine != &disk_engine_psync)
		snprintf(res->variant, sizeof(res->variant), "%s-qd%u", st->pt.engine->name,
			 d->depth_used);
	res->flags[0] = '\0';
	disk_flags(s, st, d, r->team, res);
	add_standard_flags(res, standard);
	peak_row_flag_of_baseline(res, &s->m->cloud.disk_baseline_mbps);
	if (peak_output_record(out, res) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	if (st->pt.block_bytes <= DISK_IOPS_MAX_BLOCK) {
		extra_row(r, res, standard, "iops", "IOPS", d->iops,
			  iops_peak->source != PEAK_SRC_UNKNOWN ? iops_peak->value : NAN, &x);
		peak_row_flag_of_baseline(&x, &s->m->cloud.disk_baseline_iops);
		if (peak_output_record(out, &x) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	}
	st->mean_mb_per_s = res->summary.mean;
	memcpy(s->lat_us, d->lat_us, d->nreps * sizeof(double));
	extra_row(r, res, standard, "latency", "us", s->lat_us, NAN, &x);
	x.p50 = (double)peak_hist_percentile(&d->hist, 50) / 1e3;
	x.p90 = (double)peak_hist_percentile(&d->hist, 90) / 1e3;
	x.p99 = (double)peak_hist_percentile(&d->hist, 99) / 1e3;
	x.p999 = (double)peak_hist_percentile(&d->hist, 99.9) / 1e3;
	*res = x;
	return 0;
}

void disk_suite_init(struct disk_suite *s)
{
	for (size_t i = 0; i < s->nengines; i++)
		s->kernels[i] = (struct peak_bench_kernel){
		    .name = s->engines[i]->name,
		    .metric = "throughput",
		    .unit = "MB/s",
		    .supported = supported,
		    .setup = setup,
		    .verify = verify,
		    .teardown = teardown,
		    /* A disk has a peak only when peaks.conf rates it or the instance type's
		     * published limits give it; unknown is not flagged. */
		    .peak = s->m->disk_mbps.source != PEAK_SRC_UNKNOWN ? peak_mbps : NULL,
		    .row = row,
		    .data = &s->engines[i],
		    .measure = measure,
		};
}

int disk_suite_sweep(struct disk_suite *s, enum disk_test test, struct peak_output *out,
		     struct peak_bench_err *e)
{
	s->test = test;
	for (size_t i = 0; i < s->nengines; i++)
		s->kernels[i].test = disk_test_name(test);
	const struct peak_bench_suite suite = {
	    .name = "disk",
	    .kernels = s->kernels,
	    .nkernels = s->nengines,
	    .point = point,
	    .data = s,
	    .pin = false, /* I/O threads sleep in the kernel, and fio does not pin either */
	    /* diskbench's rows have always come per block, then thread count */
	    .threads_inner = true,
	    .progress = progress,
	};
	const struct peak_bench_cfg cfg = {.common = &s->o->common};
	return peak_bench_sweep(&suite, &cfg, out, NULL, e);
}
