/* membench stream: McCalpin's STREAM kernels (Copy, Scale, Add, Triad) on three arrays,
 * split among a pinned team whose threads first-touch their own part, counted and
 * validated as STREAM does. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_run.h"
#include "peak_calib.h"
#include "peak_exit.h"
#include "peak_steal.h"
#include "peak_team.h"

#define STREAM_SCALAR 3.0
/* Elements per thread are a multiple of this (two 512-bit vectors of doubles). */
#define STREAM_ALIGN_ELEMS 16

enum st_kernel { ST_COPY, ST_SCALE, ST_ADD, ST_TRIAD, ST_COUNT };
static const char *const st_names[ST_COUNT] = {"copy", "scale", "add", "triad"};
/* Bytes STREAM counts per element: arrays read + arrays written (no write-allocate). */
static const double st_bytes[ST_COUNT] = {16, 16, 24, 24};

enum st_phase { ST_SETUP, ST_INIT, ST_RUN, ST_VALIDATE, ST_TEARDOWN };

struct st_thread {
	struct peak_mem a, b, c;
	char why[96];
	char pad[64];
};

struct st_point {
	const struct mem_ops *ops;
	enum st_phase phase;
	enum st_kernel kernel;
	uint64_t passes;
	size_t n; /* elements per thread */
	bool nt;
	enum mem_pages pages;
	struct st_thread *th;
};

static size_t elems_per_thread(uint64_t size, unsigned nthreads)
{
	uint64_t n = size / 3 / sizeof(double) / nthreads;
	n = n / STREAM_ALIGN_ELEMS * STREAM_ALIGN_ELEMS;
	return n ? (size_t)n : STREAM_ALIGN_ELEMS;
}

uint64_t mem_stream_need(const struct mem_run *run)
{
	uint64_t need = 0;
	if (!run->want[MEM_T_STREAM])
		return 0;
	for (size_t i = 0; i < run->common.threads.n; i++) {
		unsigned n = (unsigned)run->common.threads.v[i];
		uint64_t b =
		    3 * (uint64_t)elems_per_thread(run->size_bytes, n) * sizeof(double) * n;
		if (b > need)
			need = b;
	}
	return need;
}

/* After one round (Copy, Scale, Add, Triad once or repeated: each kernel is idempotent
 * when repeated, so passes do not change the result) starting from a=1, b=2, c=0. */
static void expected(double *ea, double *eb, double *ec)
{
	double a = 1.0, b = 2.0, c = 0.0;
	c = a;
	b = STREAM_SCALAR * c;
	c = a + b;
	a = b + STREAM_SCALAR * c;
	*ea = a;
	*eb = b;
	*ec = c;
}

/* STREAM's check: the average absolute error relative to the expected value must stay
 * under 1e-13 for doubles; any element off by more than that is reported too. */
static int validate(const struct st_point *p, struct st_thread *th)
{
	double want[3];
	expected(&want[0], &want[1], &want[2]);
	const struct peak_mem *arr[3] = {&th->a, &th->b, &th->c};
	for (int k = 0; k < 3; k++) {
		const double *x = (const double *)(const void *)arr[k]->ptr;
		double err = 0.0;
		for (size_t j = 0; j < p->n; j++)
			err += fabs(x[j] - want[k]);
		if (err / (double)p->n / want[k] > 1e-13) {
			snprintf(th->why, sizeof(th->why),
				 "array %c: average error %g, expected %g", "abc"[k],
				 err / (double)p->n, want[k]);
			return -1;
		}
	}
	return 0;
}

static int st_team_fn(void *arg, unsigned t, unsigned nthreads)
{
	struct st_point *p = arg;
	struct st_thread *th = &p->th[t];
	double *a = (double *)(void *)th->a.ptr, *b = (double *)(void *)th->b.ptr,
	       *c = (double *)(void *)th->c.ptr;
	(void)nthreads;
	switch (p->phase) {
	case ST_SETUP:
		if (mem_map(&th->a, p->n * sizeof(double), p->pages, NULL, 0) != 0 ||
		    mem_map(&th->b, p->n * sizeof(double), p->pages, NULL, 0) != 0 ||
		    mem_map(&th->c, p->n * sizeof(double), p->pages, NULL, 0) != 0) {
			snprintf(th->why, sizeof(th->why), "cannot map 3 x %zu bytes",
				 p->n * sizeof(double));
			return -1;
		}
		return 0;
	case ST_INIT: /* the first of these is the first touch, by the owner */
		for (size_t j = 0; j < p->n; j++) {
			a[j] = 1.0;
			b[j] = 2.0;
			c[j] = 0.0;
		}
		return 0;
	case ST_RUN:
		for (uint64_t i = 0; i < p->passes; i++) {
			switch (p->kernel) {
			case ST_COPY:
				p->ops->stream_copy(c, a, p->n, p->nt);
				break;
			case ST_SCALE:
				p->ops->stream_scale(b, c, STREAM_SCALAR, p->n, p->nt);
				break;
			case ST_ADD:
				p->ops->stream_add(c, a, b, p->n, p->nt);
				break;
			case ST_TRIAD:
			default:
				p->ops->stream_triad(a, b, c, STREAM_SCALAR, p->n, p->nt);
				break;
			}
		}
		return 0;
	case ST_VALIDATE:
		return validate(p, th);
	case ST_TEARDOWN:
		peak_team_free_pages(&th->c);
		peak_team_free_pages(&th->b);
		peak_team_free_pages(&th->a);
		return 0;
	}
	return -1;
}

struct st_ctx {
	struct peak_team *team;
	struct st_point *p;
};

static int st_timed(void *arg, uint64_t passes, uint64_t *ns)
{
	struct st_ctx *c = arg;
	c->p->phase = ST_RUN;
	c->p->passes = passes;
	return peak_team_run(c->team, st_team_fn, c->p, ns, NULL);
}

static int st_phase(struct st_ctx *c, enum st_phase ph)
{
	c->p->phase = ph;
	return peak_team_run(c->team, st_team_fn, c->p, NULL, NULL);
}

static const char *st_why(const struct st_point *p, unsigned nthreads)
{
	for (unsigned t = 0; t < nthreads; t++)
		if (p->th[t].why[0])
			return p->th[t].why;
	return "a worker failed";
}

/* Round 0 calibrates each kernel (and is the warm-up); rounds 1..reps are measured.
 * Every round starts from fresh arrays and ends with STREAM's validation. */
static int rounds(struct mem_run *run, struct st_ctx *c, unsigned nthreads,
		  double mbps[ST_COUNT][1000])
{
	uint64_t passes[ST_COUNT];
	size_t reps = (size_t)run->common.reps;
	for (size_t round = 0; round <= reps; round++) {
		if (st_phase(c, ST_INIT) != 0)
			return -1;
		for (int k = 0; k < ST_COUNT; k++) {
			c->p->kernel = (enum st_kernel)k;
			if (round == 0) {
				if (peak_calib_iterations(st_timed, c, run->common.min_time_s, 1,
							  UINT64_C(1) << 32, &passes[k]) != 0)
					return -1;
				continue;
			}
			uint64_t ns = 0;
			if (st_timed(c, passes[k], &ns) != 0)
				return -1;
			mbps[k][round - 1] = st_bytes[k] * (double)c->p->n * nthreads *
					     (double)passes[k] / (double)(ns ? ns : 1) * 1000.0;
		}
		if (st_phase(c, ST_VALIDATE) != 0)
			return -1;
	}
	return 0;
}

static int emit_kernels(struct mem_run *run, const struct st_point *p, struct peak_team *team,
			unsigned nthreads, double mbps[ST_COUNT][1000],
			const struct peak_steal *steal)
{
	uint64_t array_bytes = (uint64_t)p->n * nthreads * sizeof(double);
	for (int k = 0; k < ST_COUNT; k++) {
		char variant[48];
		snprintf(variant, sizeof(variant), "%s-%s%s", st_names[k], p->ops->name,
			 p->nt ? "-nt" : "");
		struct peak_result r;
		peak_result_init(&r, "memory", "stream", variant, "throughput", "MB/s");
		r.threads = nthreads;
		r.block_bytes = array_bytes; /* one array */
		r.has_block = true;
		peak_result_set_samples(&r, mbps[k], (size_t)run->common.reps);
		if (run->llc_bytes && 3 * array_bytes <= run->llc_bytes)
			peak_result_flag(&r, "cached");
		else
			r.theoretical = run->theoretical_mbps;
		/* STREAM's rule: each array at least 4x the largest cache. */
		if (!run->llc_bytes || array_bytes < 4 * run->llc_bytes)
			peak_result_flag(&r, "small_arrays");
		if (peak_team_oversubscribed(team))
			peak_result_flag(&r, "oversubscribed");
		if (!peak_team_pinned(team))
			peak_result_flag(&r, "unpinned");
		peak_steal_flag(peak_steal_pct(steal), &r);
		int rc = mem_emit(run, &r);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int run_threads(struct mem_run *run, unsigned nthreads)
{
	char err[160] = "";
	struct peak_team *team = peak_team_create(nthreads, true, err, sizeof(err));
	if (!team)
		return mem_fail(run, PEAK_EXIT_FAIL, "stream --threads %u: %s", nthreads, err);
	struct st_point p = {.ops = run->ops, .n = elems_per_thread(run->size_bytes, nthreads)};
	uint64_t array_bytes = (uint64_t)p.n * nthreads * sizeof(double);
	p.nt = run->nt == MEM_NT_ON ||
	       (run->nt == MEM_NT_AUTO && run->llc_bytes && array_bytes > run->llc_bytes);
	p.pages = run->hugepages == MEM_HP_OFF ? MEM_PAGES_4K : MEM_PAGES_THP;
	p.th = calloc(nthreads, sizeof(*p.th));
	double(*mbps)[1000] = calloc(ST_COUNT, sizeof(*mbps));
	int rc = 0;
	if (!p.th || !mbps) {
		rc = mem_fail(run, PEAK_EXIT_FAIL, "out of memory");
		goto out;
	}
	struct st_ctx c = {.team = team, .p = &p};
	mem_progress(run, "stream, %u threads", nthreads);
	if (st_phase(&c, ST_SETUP) != 0) {
		rc = mem_fail(run, PEAK_EXIT_FAIL, "stream setup: %s", st_why(&p, nthreads));
		goto teardown;
	}
	struct peak_steal steal;
	peak_steal_begin(&steal);
	if (rounds(run, &c, nthreads, mbps) != 0) {
		rc = mem_fail(run, PEAK_EXIT_FAIL, "stream threads %u: validation failed: %s",
			      nthreads, st_why(&p, nthreads));
		goto teardown;
	}
	rc = emit_kernels(run, &p, team, nthreads, mbps, &steal);
teardown:
	(void)st_phase(&c, ST_TEARDOWN);
out:
	free(mbps);
	free(p.th);
	peak_team_destroy(team);
	return rc;
}

int mem_stream_run(struct mem_run *run)
{
	int rc = 0;
	for (size_t i = 0; i < run->common.threads.n && rc == 0; i++)
		rc = run_threads(run, (unsigned)run->common.threads.v[i]);
	return rc;
}
