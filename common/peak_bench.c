/* The harness's point loop: see peak_bench.h. */
#include "peak_bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_calib.h"
#include "peak_peak.h"
#include "peak_steal.h"

/* Below this share of its elapsed time on a CPU, a worker was kept waiting by someone else. */
#define CONTENDED_SHARE 0.97

int peak_bench_fail(struct peak_bench_err *e, int code, const char *fmt, ...)
{
	if (e && e->code == PEAK_EXIT_OK) { /* the first cause is the one worth reading */
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		e->code = code;
	}
	return -1;
}

int peak_bench_exit(const struct peak_bench_err *e, const char *prog)
{
	if (!e || e->code == PEAK_EXIT_OK)
		return PEAK_EXIT_OK;
	fprintf(stderr, "%s: %s\n", prog, e->msg);
	return e->code;
}

int peak_bench_config(struct peak_config *cfg, struct peak_bench_err *e)
{
	char err[256];
	peak_config_init(cfg);
	if (peak_config_load_default(cfg, err, sizeof err) != 0)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "peaks.conf: %s", err);
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct loop {
	struct peak_bench_run *run;
	struct peak_bench_err *e;
	double cpu_share; /* lowest CPU time / elapsed of any worker over the measured runs */
};

static int worker(void *arg, unsigned idx, unsigned n)
{
	struct peak_bench_run *r = arg;
	(void)n;
	uint64_t t0 = thread_cpu_ns();
	int rc = r->k->run(r, idx);
	r->cpu_ns[idx] = thread_cpu_ns() - t0;
	return rc;
}

/* One verified run of `iters` iterations on every worker (also calibration's callback). */
static int one_run(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	struct loop *l = arg;
	struct peak_bench_run *r = l->run;
	uint64_t thread_ns[PEAK_BENCH_MAX_THREADS];
	r->iters = iters;
	if (peak_team_run(r->team, worker, r, elapsed_ns, thread_ns) != 0)
		return peak_bench_fail(l->e, PEAK_EXIT_FAIL, "%s: a worker failed", r->k->name);
	if (r->rep != PEAK_BENCH_NOT_MEASURED)
		for (unsigned i = 0; i < r->nthreads; i++)
			if (thread_ns[i] > 0)
				l->cpu_share = fmin(l->cpu_share,
						    (double)r->cpu_ns[i] / (double)thread_ns[i]);
	if (r->k->verify && r->k->verify(r, l->e) != 0)
		return peak_bench_fail(l->e, PEAK_EXIT_FAIL, "%s: verification failed",
				       r->k->name);
	return 0;
}

/* A kernel with a measure hook: warm-up (unless skipped) and reps repetitions, each its own
 * figure. No team time, so no per-worker CPU share: cpu_share stays 1 (not contended). */
static int self_timed(const struct peak_bench_suite *s, const struct peak_bench_kernel *k,
		      struct peak_bench_run *run, const struct peak_common_opts *c,
		      double *samples, struct peak_bench_err *e)
{
	double v = 0;
	run->cpu_share = 1.0;
	if (!s->no_warmup && k->measure(run, &v, e) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: warm-up failed", k->name);
	for (unsigned i = 0; i < c->reps; i++) {
		run->rep = i;
		if (k->measure(run, &samples[i], e) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: repetition %u failed",
					       k->name, i + 1);
		if (k->verify && k->verify(run, e) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: verification failed",
					       k->name);
		if (k->after_rep && k->after_rep(run, e) != 0)
			return -1;
	}
	return 0;
}

static void row_init(const struct peak_bench_suite *s, const struct peak_bench_kernel *k,
		     const struct peak_bench_point *p, struct peak_result *res)
{
	peak_result_init(res, s->name, k->test, k->variant ? k->variant : k->name, k->metric,
			 k->unit);
	res->threads = p->threads;
	res->has_block = p->has_block;
	res->block_bytes = p->block_bytes;
}

int peak_bench_point_run(const struct peak_bench_suite *s, const struct peak_bench_kernel *k,
			 const struct peak_bench_point *p, struct peak_team *team,
			 const struct peak_common_opts *c, struct peak_output *out,
			 struct peak_result *res, double *samples, struct peak_bench_run *run,
			 struct peak_bench_err *e)
{
	unsigned n = peak_team_size(team);
	memset(run, 0, sizeof *run);
	run->k = k;
	run->point = p;
	run->team = team;
	run->nthreads = n;
	run->suite_data = s->data;
	run->rep = PEAK_BENCH_NOT_MEASURED;
	row_init(s, k, p, res);

	if ((!k->run && !k->measure) || n == 0 || n > PEAK_BENCH_MAX_THREADS || c->reps == 0 ||
	    c->reps > PEAK_BENCH_MAX_REPS)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "%s: bad kernel, thread count or "
				       "repetitions", k->name);
	char why[200] = "";
	if (k->supported && !k->supported(run, why, sizeof why)) {
		char f[sizeof res->flags];
		snprintf(f, sizeof f, "unsupported: %s", why[0] ? why : "not supported here");
		peak_result_flag(res, f);
		return 1;
	}
	run->cpu_ns = calloc(n, sizeof *run->cpu_ns);
	if (!run->cpu_ns)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	int rc = -1;
	if (k->setup && k->setup(run, e) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: setup failed", k->name);
		free(run->cpu_ns);
		run->cpu_ns = NULL;
		return -1;
	}
	struct loop l = {.run = run, .e = e, .cpu_share = 1.0};
	struct peak_steal steal;
	uint64_t iters = s->start_iters ? s->start_iters : 1, ns = 0;
	peak_steal_begin(&steal);
	if (k->measure) {
		if (self_timed(s, k, run, c, samples, e) != 0)
			goto out;
		goto measured;
	}
	if (!s->no_calibrate &&
	    peak_calib_iterations(one_run, &l, c->min_time_s, iters,
				  s->max_iters ? s->max_iters : UINT64_C(1) << 40, &iters) != 0)
		goto out;
	if (one_run(&l, iters, &ns) != 0) /* warm-up: caches, page faults, clock ramp */
		goto out;
	double work = k->work_per_iter * (double)iters * n, scale = k->scale > 0 ? k->scale : 1;
	for (unsigned i = 0; i < c->reps; i++) {
		run->rep = i;
		if (one_run(&l, iters, &ns) != 0)
			goto out;
		samples[i] = ns ? work / (double)ns * scale : 0;
		if (k->after_rep && k->after_rep(run, e) != 0)
			goto out;
	}
	run->cpu_share = l.cpu_share;
measured:
	peak_result_set_samples(res, samples, c->reps);
	if (k->peak) {
		res->theoretical = k->peak(run);
		if (!isfinite(res->theoretical) || !(res->theoretical > 0)) {
			res->theoretical = NAN;
			peak_result_flag(res, "no_peak");
		}
	}
	bool over = peak_team_oversubscribed(team);
	if (over)
		peak_result_flag(res, "oversubscribed");
	if (s->pin && !peak_team_pinned(team))
		peak_result_flag(res, "unpinned");
	peak_steal_flag(peak_steal_pct(&steal), res);
	/* Oversubscribed workers share CPUs by design: that is its own flag, not contention. */
	if (l.cpu_share < CONTENDED_SHARE && !over)
		peak_result_flag(res, "contended");
	peak_result_finish(res);
	if (k->row && k->row(run, res, out, e) != 0)
		goto out;
	rc = 0;
out:
	if (k->teardown)
		k->teardown(run);
	free(run->cpu_ns);
	run->cpu_ns = NULL;
	return rc;
}

static void progress(const struct peak_common_opts *c, const struct peak_result *res)
{
	if (c->quiet)
		return;
	char b[32] = "";
	if (res->has_block)
		peak_format_size(res->block_bytes, b, sizeof b);
	fprintf(stderr, "%s %s %s threads=%u%s%s: %s\n", res->suite, res->test, res->variant,
		res->threads, b[0] ? " block=" : "", b,
		res->summary.n ? "done" : res->flags);
}

int peak_bench_sweep(const struct peak_bench_suite *s, const struct peak_bench_cfg *cfg,
		     struct peak_output *out, struct peak_bench_stats *st,
		     struct peak_bench_err *e)
{
	const struct peak_common_opts *c = cfg->common;
	struct peak_bench_stats local = {0};
	double *samples = calloc(c->reps ? c->reps : 1, sizeof *samples);
	if (!samples)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	int rc = 0;
	for (size_t t = 0; t < c->threads.n && rc == 0; t++) {
		unsigned threads = (unsigned)c->threads.v[t];
		char err[256];
		struct peak_team *team = peak_team_create(threads, s->pin, err, sizeof err);
		if (!team) {
			rc = peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", err);
			break;
		}
		for (size_t i = 0; rc == 0; i++) {
			struct peak_bench_point p = {0};
			if (s->point) {
				if (s->point(s->data, threads, i, &p) != 1)
					break;
			} else if (i > 0) {
				break;
			}
			p.threads = threads;
			for (size_t ki = 0; ki < s->nkernels && rc == 0; ki++) {
				const struct peak_bench_kernel *k = &s->kernels[ki];
				if (cfg->only && strcmp(cfg->only, k->name) != 0)
					continue;
				struct peak_result res;
				struct peak_bench_run run;
				int r = peak_bench_point_run(s, k, &p, team, c, out, &res,
							     samples, &run, e);
				if (r < 0) {
					local.failed++;
					rc = -1;
					break;
				}
				if (r == 1)
					local.unsupported++;
				if (peak_output_record(out, &res) != 0) {
					rc = peak_bench_fail(e, PEAK_EXIT_FAIL,
							     "writing the results failed");
					break;
				}
				local.rows++;
				progress(c, &res);
			}
		}
		peak_team_destroy(team);
	}
	free(samples);
	if (st)
		*st = local;
	return rc;
}
