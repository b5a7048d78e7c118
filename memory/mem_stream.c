/* membench stream: McCalpin's STREAM kernels (Copy, Scale, Add, Triad) on three arrays,
 * split among a pinned team whose threads first-touch their own part, counted and
 * validated as STREAM does.
 * Per thread count: the arrays are mapped and set (a=1, b=2, c=0) once, then each kernel is
 * one peak_bench point (peak_bench_point_run: calibration, warm-up, reps, steal window,
 * standard flags), in STREAM's order. Each kernel is idempotent on its inputs, so after
 * Copy's runs c=1, after Scale's b=3, after Add's c=4, after Triad's a=15, however many
 * passes each made: the array a kernel writes is validated after its last repetition. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_run.h"
#include "peak_exit.h"
#include "peak_team.h"

#define STREAM_SCALAR 3.0
/* Elements per thread are a multiple of this (two 512-bit vectors of doubles). */
#define STREAM_ALIGN_ELEMS 16

enum st_kernel { ST_COPY, ST_SCALE, ST_ADD, ST_TRIAD, ST_COUNT };
static const char *const st_names[ST_COUNT] = {"copy", "scale", "add", "triad"};
/* Bytes STREAM counts per element: arrays read + arrays written (no write-allocate). */
static const double st_bytes[ST_COUNT] = {16, 16, 24, 24};

enum st_phase { ST_SETUP, ST_INIT, ST_VALIDATE, ST_TEARDOWN };

struct st_thread {
	struct peak_mem a, b, c;
	char why[96];
	char pad[64];
};

struct st_point {
	const struct mem_run *run;
	const struct mem_ops *ops;
	enum st_phase phase;
	enum st_kernel kernel;
	unsigned nthreads;
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

/* STREAM's check on the array kernel k writes (after Copy, Scale, Add, Triad, in turn,
 * from a=1, b=2, c=0): the average absolute error relative to the expected value must stay
 * under 1e-13 for doubles. */
static int validate(const struct st_point *p, struct st_thread *th)
{
	static const int written[ST_COUNT] = {2, 1, 2, 0}; /* c, b, c, a */
	static const double want[ST_COUNT] = {1.0, STREAM_SCALAR * 1.0, 1.0 + STREAM_SCALAR,
					      STREAM_SCALAR + STREAM_SCALAR * (1.0 + STREAM_SCALAR)};
	const struct peak_mem *arr[3] = {&th->a, &th->b, &th->c};
	int k = written[p->kernel];
	const double *x = (const double *)(const void *)arr[k]->ptr;
	double err = 0.0;
	for (size_t j = 0; j < p->n; j++)
		err += fabs(x[j] - want[p->kernel]);
	if (err / (double)p->n / want[p->kernel] > 1e-13) {
		snprintf(th->why, sizeof(th->why), "array %c after %s: average error %g, expected %g",
			 "abc"[k], st_names[p->kernel], err / (double)p->n, want[p->kernel]);
		return -1;
	}
	return 0;
}

/* One thread's passes of kernel k over its part of the arrays. */
static void st_passes(const struct st_point *p, struct st_thread *th, uint64_t passes)
{
	double *a = (double *)th->a.ptr, *b = (double *)th->b.ptr, *c = (double *)th->c.ptr;
	for (uint64_t i = 0; i < passes; i++) {
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
	case ST_INIT: /* pages were first touched at mapping, by this owner */
		for (size_t j = 0; j < p->n; j++) {
			a[j] = 1.0;
			b[j] = 2.0;
			c[j] = 0.0;
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

static int st_phase(struct peak_team *team, struct st_point *p, enum st_phase ph)
{
	p->phase = ph;
	return peak_team_run(team, st_team_fn, p, NULL, NULL);
}

static const char *st_why(const struct st_point *p)
{
	for (unsigned t = 0; t < p->nthreads; t++)
		if (p->th[t].why[0])
			return p->th[t].why;
	return "a worker failed";
}

/* peak_bench hooks; the kernel's data is the thread count's st_point. */

static int st_run(struct peak_bench_run *r, unsigned t)
{
	const struct st_point *p = r->k->data;
	st_passes(p, &p->th[t], r->iters);
	return 0;
}

static int st_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct st_point *p = r->k->data;
	if (r->rep == PEAK_BENCH_NOT_MEASURED || r->rep + 1 < p->run->common.reps)
		return 0;
	if (st_phase(r->team, p, ST_VALIDATE) == 0)
		return 0;
	return peak_bench_fail(e, PEAK_EXIT_FAIL, "stream threads %u: validation failed: %s",
			       p->nthreads, st_why(p));
}

static uint64_t array_bytes(const struct st_point *p)
{
	return (uint64_t)p->n * p->nthreads * sizeof(double);
}

static bool st_cached(const struct st_point *p)
{
	return p->run->llc_bytes && 3 * array_bytes(p) <= p->run->llc_bytes;
}

static double st_peak(const struct peak_bench_run *r)
{
	const struct st_point *p = r->k->data;
	return p->run->theoretical_mbps;
}

static int st_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		  struct peak_bench_err *e)
{
	const struct st_point *p = r->k->data;
	(void)out;
	(void)e;
	if (st_cached(p))
		peak_result_flag(res, "cached");
	/* STREAM's rule: each array at least 4x the largest cache. */
	if (!p->run->llc_bytes || array_bytes(p) < 4 * p->run->llc_bytes)
		peak_result_flag(res, "small_arrays");
	return 0;
}

/* Kernel k as a peak_bench point: one iteration = one pass over each thread's part,
 * counted in STREAM's bytes (rows MB/s); the row's block is one array. */
static int st_measure(struct mem_run *run, struct peak_team *team, struct st_point *p,
		      enum st_kernel kernel, double *samples)
{
	char variant[48];
	p->kernel = kernel;
	snprintf(variant, sizeof(variant), "%s-%s%s", st_names[kernel], p->ops->name,
		 p->nt ? "-nt" : "");
	const struct peak_bench_kernel k = {
	    .name = st_names[kernel],
	    .test = "stream",
	    .variant = variant,
	    .metric = "throughput",
	    .unit = "MB/s",
	    .work_per_iter = st_bytes[kernel] * (double)p->n,
	    .scale = 1000.0, /* bytes/ns = GB/s; x 1000 = MB/s, as STREAM counts */
	    .run = st_run,
	    .verify = st_verify,
	    .peak = st_cached(p) ? NULL : st_peak,
	    .row = st_row,
	    .data = p,
	};
	const struct peak_bench_suite s = {.name = "memory",
					   .kernels = &k,
					   .nkernels = 1,
					   .pin = true,
					   .start_iters = 1,
					   .max_iters = UINT64_C(1) << 32};
	const struct peak_bench_point pt = {
	    .threads = p->nthreads, .block_bytes = array_bytes(p), .has_block = true};
	struct peak_result res;
	struct peak_bench_run br;
	if (peak_bench_point_run(&s, &k, &pt, team, &run->common, &run->out, &res, samples, &br,
				 &run->err) != 0)
		return -1;
	return mem_emit(run, &res);
}

static int run_threads(struct mem_run *run, unsigned nthreads, double *samples)
{
	char err[160] = "";
	struct peak_team *team = peak_team_create(nthreads, true, err, sizeof(err));
	if (!team)
		return mem_fail(run, PEAK_EXIT_FAIL, "stream --threads %u: %s", nthreads, err);
	struct st_point p = {.run = run,
			     .ops = run->ops,
			     .nthreads = nthreads,
			     .n = elems_per_thread(run->size_bytes, nthreads)};
	p.nt = run->nt == MEM_NT_ON ||
	       (run->nt == MEM_NT_AUTO && run->llc_bytes && array_bytes(&p) > run->llc_bytes);
	p.pages = run->hugepages == MEM_HP_OFF ? MEM_PAGES_4K : MEM_PAGES_THP;
	p.th = calloc(nthreads, sizeof(*p.th));
	int rc = 0;
	if (!p.th) {
		rc = mem_fail(run, PEAK_EXIT_FAIL, "out of memory");
		goto out;
	}
	mem_progress(run, "stream, %u threads", nthreads);
	if (st_phase(team, &p, ST_SETUP) != 0 || st_phase(team, &p, ST_INIT) != 0) {
		rc = mem_fail(run, PEAK_EXIT_FAIL, "stream setup: %s", st_why(&p));
		goto teardown;
	}
	for (int k = 0; k < ST_COUNT && rc == 0; k++)
		rc = st_measure(run, team, &p, (enum st_kernel)k, samples);
teardown:
	(void)st_phase(team, &p, ST_TEARDOWN);
out:
	free(p.th);
	peak_team_destroy(team);
	return rc;
}

int mem_stream_run(struct mem_run *run)
{
	int rc = 0;
	double *samples = calloc(run->common.reps, sizeof(*samples));
	if (!samples)
		return mem_fail(run, PEAK_EXIT_FAIL, "out of memory");
	for (size_t i = 0; i < run->common.threads.n && rc == 0; i++)
		rc = run_threads(run, (unsigned)run->common.threads.v[i], samples);
	free(samples);
	return rc;
}
