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
#include "peak_row_flags.h"
#include "peak_stats.h"
#include "peak_steal.h"
#include "peak_time.h"

/* Below this share of its elapsed time on a CPU, a worker was kept waiting by someone else. */
#define CONTENDED_SHARE 0.97

int peak_bench_fail(struct peak_bench_err *e, int code, const char *fmt, ...)
{
	if (e && e->code == PEAK_EXIT_OK) { /* the first cause is the one worth reading */
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
		if (n < 0 || (size_t)n >= sizeof e->msg) /* cut: say so, as peak_fmt does */
			memcpy(e->msg + sizeof e->msg - 4, "...", 4);
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
	char err[PEAK_MSG_MAX];
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

/* One run of `iters` iterations on every worker, not yet verified. */
static int team_run(struct loop *l, uint64_t iters, uint64_t *elapsed_ns)
{
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
	return 0;
}

static int verified(struct peak_bench_run *r, struct peak_bench_err *e)
{
	if (r->k->verify && r->k->verify(r, e) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: verification failed", r->k->name);
	return 0;
}

/* One verified run (calibration's callback, and the warm-up). */
static int one_run(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	struct loop *l = arg;
	if (team_run(l, iters, elapsed_ns) != 0)
		return -1;
	return verified(l->run, l->e);
}

static void row_init(const struct peak_bench_suite *s, const struct peak_bench_run *run,
		     struct peak_result *res)
{
	const struct peak_bench_kernel *k = run->k;
	const struct peak_bench_point *p = run->point;
	char v[sizeof res->variant] = "";
	if (k->variant_at)
		k->variant_at(run, v, sizeof v);
	peak_result_init(res, s->name, k->test,
			 k->variant_at ? v : k->variant ? k->variant : k->name, k->metric, k->unit);
	res->threads = p->threads;
	res->has_block = p->has_block;
	res->block_bytes = p->block_bytes;
}

/* One kernel at one point, in phases (begin, prepare, rep, finish, end) so a point's
 * kernels can run one after the other or interleaved. run, res and samples are the
 * caller's. */
struct slot {
	const struct peak_bench_kernel *k;
	struct peak_bench_run *run;
	struct peak_result *res;
	double *samples;
	struct loop l;
	struct peak_steal steal;
	uint64_t iters;
	double work_per_iter; /* the kernel's, or its work_at at this point */
	bool set_up; /* setup done: teardown owed */
	unsigned n;  /* measured repetitions run: the row's n */
	bool done;   /* the stopping rule says n is enough */
	uint64_t rep_ns; /* the measured repetitions' time, for --point-budget */
};

/* Row, checks, support, setup. Returns 1 when unsupported (res flagged), 0 when set up,
 * -1 on error (nothing left to tear down). */
static int slot_begin(const struct peak_bench_suite *s, const struct peak_bench_point *p,
		      struct peak_team *team, const struct peak_common_opts *c, void *point_state,
		      struct slot *sl, struct peak_bench_err *e)
{
	const struct peak_bench_kernel *k = sl->k;
	struct peak_bench_run *run = sl->run;
	unsigned n = peak_team_size(team);
	memset(run, 0, sizeof *run);
	run->k = k;
	run->point = p;
	run->team = team;
	run->nthreads = n;
	run->suite_data = s->data;
	run->rep = PEAK_BENCH_NOT_MEASURED;
	run->point_state = point_state;
	run->cpu_share = k->measure ? 1.0 : 0.0; /* self-timed: no team time, never contended */
	sl->set_up = false;
	sl->n = 0;
	sl->done = false;
	sl->rep_ns = 0;
	sl->l = (struct loop){.run = run, .e = e, .cpu_share = 1.0};
	sl->iters = p->start_iters ? p->start_iters : s->start_iters ? s->start_iters : 1;
	row_init(s, run, sl->res);

	if ((!k->run && !k->measure) || n == 0 || n > PEAK_BENCH_MAX_THREADS || c->reps == 0 ||
	    c->reps > PEAK_BENCH_MAX_REPS)
		return peak_bench_fail(e, PEAK_EXIT_USAGE, "%s: bad kernel, thread count or "
				       "repetitions", k->name);
	char why[200] = "";
	if (k->supported && !k->supported(run, why, sizeof why)) {
		char f[sizeof sl->res->flags];
		(void)peak_fmt(f, sizeof f, "unsupported: %s", why[0] ? why : "not supported here");
		peak_result_flag(sl->res, f);
		return 1;
	}
	run->cpu_ns = calloc(n, sizeof *run->cpu_ns);
	if (!run->cpu_ns)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	if (k->setup && k->setup(run, e) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: setup failed", k->name);
		free(run->cpu_ns);
		run->cpu_ns = NULL;
		return -1;
	}
	sl->set_up = true;
	sl->work_per_iter = k->work_at ? k->work_at(run) : k->work_per_iter;
	peak_steal_begin(&sl->steal);
	return 0;
}

/* Calibration (run kernels) and the warm-up run. */
static int slot_prepare(const struct peak_bench_suite *s, const struct peak_common_opts *c,
			struct slot *sl, struct peak_bench_err *e)
{
	const struct peak_bench_kernel *k = sl->k;
	if (k->measure) { /* no team time, so no per-worker CPU share: stays 1 */
		double v = 0;
		if (!s->no_warmup && k->measure(sl->run, &v, e) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: warm-up failed", k->name);
		return 0;
	}
	/* Calibration ends on a run of the final count that lasted --min-time (or reached the
	 * ceiling): that run warmed the caches, faulted the pages in and ramped the clock, so it
	 * is the warm-up. A separate one cost every point one more repetition (issue 26). */
	if (!s->no_calibrate)
		return peak_calib_iterations(one_run, &sl->l, c->min_time_s, sl->iters,
					     s->max_iters ? s->max_iters : UINT64_C(1) << 40,
					     &sl->iters);
	uint64_t ns = 0;
	return one_run(&sl->l, sl->iters, &ns); /* warm-up: caches, page faults, clock ramp */
}

/* --point-budget: past --reps, one more repetition only when the point's measured time
 * plus its mean repetition stays within the budget (so a suite's time is about its
 * points' budgets; a point whose --reps alone take longer keeps them all). */
static bool over_budget(const struct slot *sl, const struct peak_common_opts *c)
{
	if (!(c->point_budget_s > 0) || sl->n == 0 || sl->n < c->reps)
		return false;
	double spent = (double)sl->rep_ns * 1e-9;
	return spent + spent / sl->n > c->point_budget_s;
}

/* Measured repetition i: its sample, the stopping rule, verify, after_rep. The rule is
 * asked before verify so that a check due after the last repetition (run->last_rep) runs
 * on it; round robin decides after the round (round_robin: last_rep only at the cap). */
static int slot_rep(struct slot *sl, const struct peak_common_opts *c, unsigned i,
		    bool round_robin, struct peak_bench_err *e)
{
	const struct peak_bench_kernel *k = sl->k;
	struct peak_bench_run *run = sl->run;
	run->rep = i;
	uint64_t t0 = peak_time_now_ns();
	if (k->measure) {
		if (k->measure(run, &sl->samples[i], e) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: repetition %u failed",
					       k->name, i + 1);
	} else {
		uint64_t ns = 0;
		if (team_run(&sl->l, sl->iters, &ns) != 0)
			return -1;
		double work = sl->work_per_iter * (double)sl->iters * run->nthreads,
		       scale = k->scale > 0 ? k->scale : 1;
		sl->samples[i] = ns ? work / (double)ns * scale : 0;
	}
	sl->rep_ns += peak_time_now_ns() - t0;
	size_t cap = (size_t)peak_opts_max_reps(c);
	sl->n = run->nreps = i + 1;
	sl->done = peak_stats_enough(sl->samples, sl->n, (size_t)c->reps, cap, c->ci_pct) ||
		   over_budget(sl, c);
	run->last_rep = round_robin ? sl->n >= cap : sl->done;
	if (verified(run, e) != 0)
		return -1;
	if (k->after_rep && k->after_rep(run, e) != 0)
		return -1;
	return 0;
}

/* ci_wide=W when --ci is on and the repetitions stopped at the cap short of it: W the
 * interval's full width reached, in % of the mean, rounded up to a tenth (bare ci_wide
 * when the mean is 0 and no relative width exists). */
static void flag_ci_wide(const struct slot *sl, const struct peak_common_opts *c,
			 struct peak_result *res)
{
	if (!(c->ci_pct > 0) || sl->n == 0)
		return;
	double w = peak_stats_ci_width_pct(sl->samples, sl->n);
	if (w <= c->ci_pct)
		return;
	if (isfinite(w))
		peak_result_flag_pct(res, "ci_wide", w, true);
	else
		peak_result_flag(res, "ci_wide");
}

/* Summary, peak, standard flags (steal from the window given), efficiency and the physics
 * flags, the kernel's row hook, then efficiency and the physics flags of the final figure. */
static int slot_finish(const struct peak_bench_suite *s, const struct peak_common_opts *c,
		       struct slot *sl, const struct peak_steal *steal, struct peak_output *out,
		       struct peak_bench_err *e)
{
	const struct peak_bench_kernel *k = sl->k;
	struct peak_bench_run *run = sl->run;
	struct peak_result *res = sl->res;
	run->cpu_share = sl->l.cpu_share;
	peak_result_set_samples(res, sl->samples, sl->n);
	if (k->peak && !run->point->peak_not_applicable) {
		res->theoretical = k->peak(run);
		if (!isfinite(res->theoretical) || !(res->theoretical > 0)) {
			res->theoretical = NAN;
			peak_result_flag(res, "no_peak");
		}
	}
	bool over = peak_team_oversubscribed(run->team);
	if (over)
		peak_result_flag(res, "oversubscribed");
	if (s->pin && !peak_team_pinned(run->team))
		peak_result_flag(res, "unpinned");
	peak_row_flag_steal(res, peak_steal_share(steal));
	/* Oversubscribed workers share CPUs by design: that is its own flag, not contention.
	 * The share is recorded rounded down: results compare takes 100 - it as the most of
	 * the row the contention can explain. */
	if (sl->l.cpu_share < CONTENDED_SHARE && !over) {
		peak_result_flag(res, "contended");
		peak_result_flag_pct(res, "cpu_share_pct", 100.0 * sl->l.cpu_share, false);
	}
	flag_ci_wide(sl, c, res);
	if (k->comparison)
		peak_result_flag(res, PEAK_COMPARISON_FLAG);
	peak_result_finish(res); /* a row hook that records the row itself sees it finished */
	if (k->row && k->row(run, res, out, e) != 0)
		return -1;
	/* Again after the row hook, which may still set an input of the figure: the physics
	 * flags of the row recorded are those of its final figure (peak_result_finish drops
	 * one the first call set that the figure no longer bears). */
	peak_result_finish(res);
	return 0;
}

static void slot_end(struct slot *sl)
{
	if (sl->set_up && sl->k->teardown)
		sl->k->teardown(sl->run);
	sl->set_up = false;
	free(sl->run->cpu_ns);
	sl->run->cpu_ns = NULL;
}

/* One kernel, kernel order: begin, prepare, repetitions until the stopping rule says
 * enough, finish; the caller ends the slot (its teardown) after recording. Returns as
 * slot_begin. */
static int slot_measure(const struct peak_bench_suite *s, const struct peak_bench_point *p,
			struct peak_team *team, const struct peak_common_opts *c,
			void *point_state, struct slot *sl, struct peak_output *out,
			struct peak_bench_err *e)
{
	int r = slot_begin(s, p, team, c, point_state, sl, e);
	if (r != 0)
		return r;
	int rc = slot_prepare(s, c, sl, e);
	for (unsigned i = 0; rc == 0 && !sl->done; i++)
		rc = slot_rep(sl, c, i, false, e);
	if (rc == 0)
		rc = slot_finish(s, c, sl, &sl->steal, out, e);
	return rc;
}

int peak_bench_point_run(const struct peak_bench_suite *s, const struct peak_bench_kernel *k,
			 const struct peak_bench_point *p, struct peak_team *team,
			 const struct peak_common_opts *c, struct peak_output *out,
			 struct peak_result *res, double *samples, struct peak_bench_run *run,
			 struct peak_bench_err *e)
{
	struct slot sl = {.k = k, .run = run, .res = res, .samples = samples};
	int r = slot_measure(s, p, team, c, NULL, &sl, out, e);
	slot_end(&sl);
	return r;
}

/* The one progress line per row (never with --quiet), the suite's text when it has some. */
static void progress(const struct peak_bench_suite *s, const struct peak_common_opts *c,
		     const struct peak_bench_run *r, const struct peak_result *res)
{
	if (c->quiet)
		return;
	char b[32] = "", text[160] = "done";
	if (res->has_block)
		peak_format_size(res->block_bytes, b, sizeof b);
	if (res->summary.n && s->progress)
		s->progress(r, res, text, sizeof text);
	fprintf(stderr, "%s %s %s threads=%u%s%s: %s\n", res->suite, res->test, res->variant,
		res->threads, b[0] ? " block=" : "", b, res->summary.n ? text : res->flags);
}

/* What one point of the sweep needs: a slot (with its run and row) per kernel of the
 * table, samples for the most repetitions of each (peak_opts_max_reps). */
struct point_loop {
	const struct peak_bench_suite *s;
	const struct peak_bench_cfg *cfg;
	struct peak_output *out;
	struct peak_bench_stats *st;
	struct slot *slots;
	struct peak_bench_run *runs;
	struct peak_result *res;
	int *state; /* per kernel: -1 skipped (--only), 0 set up, 1 unsupported */
};

/* The kernel's row (measured: then its extra rows; 1: unsupported), before teardown. */
static int record(struct point_loop *pl, struct slot *sl, int measured,
		  struct peak_bench_err *e)
{
	if (peak_output_record(pl->out, sl->res) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	pl->st->rows++;
	if (measured == 1)
		pl->st->unsupported++;
	progress(pl->s, pl->cfg->common, sl->run, sl->res);
	if (measured == 0 && sl->k->extra_rows &&
	    sl->k->extra_rows(sl->run, sl->res, pl->out, e) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: extra rows failed", sl->k->name);
	return 0;
}

static bool skipped(const struct peak_bench_cfg *cfg, const struct peak_bench_kernel *k)
{
	return cfg->only && strcmp(cfg->only, k->name) != 0;
}

static int kernel_order(struct point_loop *pl, const struct peak_bench_point *p,
			struct peak_team *team, void *ps, struct peak_bench_err *e)
{
	const struct peak_bench_suite *s = pl->s;
	for (size_t ki = 0; ki < s->nkernels; ki++) {
		if (skipped(pl->cfg, &s->kernels[ki]))
			continue;
		struct slot *sl = &pl->slots[ki];
		int r = slot_measure(s, p, team, pl->cfg->common, ps, sl, pl->out, e);
		if (r >= 0 && record(pl, sl, r, e) != 0)
			r = -1;
		slot_end(sl);
		if (r < 0) {
			pl->st->failed++;
			return -1;
		}
	}
	return 0;
}

static int round_robin(struct point_loop *pl, const struct peak_bench_point *p,
		       struct peak_team *team, void *ps, struct peak_bench_err *e)
{
	const struct peak_bench_suite *s = pl->s;
	const struct peak_common_opts *c = pl->cfg->common;
	struct peak_steal steal;
	int rc = 0;
	size_t ki;
	peak_steal_begin(&steal);
	for (ki = 0; ki < s->nkernels; ki++)
		pl->state[ki] = -1;
	for (ki = 0; ki < s->nkernels && rc == 0; ki++) {
		if (skipped(pl->cfg, &s->kernels[ki]))
			continue;
		pl->state[ki] = slot_begin(s, p, team, c, ps, &pl->slots[ki], e);
		if (pl->state[ki] < 0) {
			pl->state[ki] = -1;
			rc = -1;
		} else if (pl->state[ki] == 0) {
			rc = slot_prepare(s, c, &pl->slots[ki], e);
		}
	}
	/* Rounds go on while any kernel wants more: all kernels keep the same count, and one
	 * that had enough earlier keeps every sample of the rounds it ran in. */
	uint64_t cap = peak_opts_max_reps(c);
	bool more = true;
	for (unsigned i = 0; i < cap && rc == 0 && more; i++) {
		for (ki = 0; ki < s->nkernels && rc == 0; ki++)
			if (pl->state[ki] == 0)
				rc = slot_rep(&pl->slots[ki], c, i, true, e);
		more = false;
		for (ki = 0; ki < s->nkernels; ki++)
			if (pl->state[ki] == 0 && !pl->slots[ki].done)
				more = true;
	}
	for (ki = 0; ki < s->nkernels; ki++) {
		if (pl->state[ki] < 0)
			continue;
		if (rc == 0 && pl->state[ki] == 0)
			rc = slot_finish(s, c, &pl->slots[ki], &steal, pl->out, e);
		if (rc == 0) /* else tear the others down, record nothing more */
			rc = record(pl, &pl->slots[ki], pl->state[ki], e);
		if (pl->state[ki] == 0)
			slot_end(&pl->slots[ki]);
	}
	if (rc != 0)
		pl->st->failed++;
	return rc;
}

static int make_team(const struct peak_bench_suite *s, unsigned threads, struct peak_team **team,
		     struct peak_bench_err *e)
{
	char err[256];
	*team = peak_team_create(threads, s->pin, err, sizeof err);
	return *team ? 0 : peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", err);
}

/* One point on its team: point_setup, the kernels in the suite's order, point_teardown. */
static int run_point(struct point_loop *pl, const struct peak_bench_point *p,
		     struct peak_team *team, struct peak_bench_err *e)
{
	const struct peak_bench_suite *s = pl->s;
	void *ps = NULL;
	if (s->point_setup && s->point_setup(s->data, p, team, &ps, e) != 0) {
		pl->st->failed++;
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: point setup failed", s->name);
	}
	int rc = s->order == PEAK_BENCH_ORDER_ROUND_ROBIN ? round_robin(pl, p, team, ps, e)
							 : kernel_order(pl, p, team, ps, e);
	if (s->point_teardown)
		s->point_teardown(s->data, p, team, ps);
	return rc;
}

int peak_bench_sweep(const struct peak_bench_suite *s, const struct peak_bench_cfg *cfg,
		     struct peak_output *out, struct peak_bench_stats *st,
		     struct peak_bench_err *e)
{
	const struct peak_common_opts *c = cfg->common;
	struct peak_bench_stats local = {0};
	/* Out-of-range reps are refused per kernel (usage) before samples are touched. */
	size_t reps = c->reps >= 1 && c->reps <= PEAK_BENCH_MAX_REPS
			  ? (size_t)peak_opts_max_reps(c)
			  : 1;
	size_t nk = s->nkernels ? s->nkernels : 1;
	struct point_loop pl = {.s = s, .cfg = cfg, .out = out, .st = &local};
	double *samples = calloc(nk * reps, sizeof *samples);
	pl.slots = calloc(nk, sizeof *pl.slots);
	pl.runs = calloc(nk, sizeof *pl.runs);
	pl.res = calloc(nk, sizeof *pl.res);
	pl.state = calloc(nk, sizeof *pl.state);
	int rc = 0;
	if (!samples || !pl.slots || !pl.runs || !pl.res || !pl.state) {
		rc = peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
		goto out;
	}
	for (size_t ki = 0; ki < s->nkernels; ki++)
		pl.slots[ki] = (struct slot){.k = &s->kernels[ki], .run = &pl.runs[ki],
					     .res = &pl.res[ki], .samples = samples + ki * reps};
	if (s->threads_inner) {
		for (size_t i = 0; rc == 0; i++) {
			struct peak_bench_point p = {0};
			if (s->point ? s->point(s->data, 0, i, &p) != 1 : i > 0)
				break;
			for (size_t t = 0; t < c->threads.n && rc == 0; t++) {
				struct peak_team *team = NULL;
				p.threads = (unsigned)c->threads.v[t];
				rc = make_team(s, p.threads, &team, e);
				if (rc == 0) {
					rc = run_point(&pl, &p, team, e);
					peak_team_destroy(team);
				}
			}
		}
		goto out;
	}
	for (size_t t = 0; t < c->threads.n && rc == 0; t++) {
		unsigned threads = (unsigned)c->threads.v[t];
		struct peak_team *team = NULL;
		if (make_team(s, threads, &team, e) != 0) {
			rc = -1;
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
			rc = run_point(&pl, &p, team, e);
		}
		peak_team_destroy(team);
	}
out:
	free(pl.state);
	free(pl.res);
	free(pl.runs);
	free(pl.slots);
	free(samples);
	if (st)
		*st = local;
	return rc;
}
