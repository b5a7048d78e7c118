/* membench stream: McCalpin's STREAM kernels (Copy, Scale, Add, Triad) on three arrays,
 * split among a pinned team whose threads first-touch their own part, counted and
 * validated as STREAM does.
 * One peak_bench_sweep, one point per thread count (arrays in the LLC name no peak, -nt
 * and the bytes per pass follow the arrays' size): the suite's point_setup maps and sets the
 * arrays (a=1, b=2, c=0) once, the four kernels run on them in STREAM's round-robin order
 * (each calibrated and warmed up, then copy, scale, add, triad, copy, ... one repetition of
 * each per round). Every run is verified: the expected values follow each kernel's effect
 * (c=a, b=3c, c=a+b, a=b+3c), and after every triad run, which closes STREAM's round, the
 * three arrays are checked with STREAM's 1e-13 rule and set back to a=1, b=2, c=0, so every
 * measured round starts from STREAM's initial arrays as STREAM's own rounds do. */
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
static const enum st_kernel st_ids[ST_COUNT] = {ST_COPY, ST_SCALE, ST_ADD, ST_TRIAD};
/* Bytes STREAM counts per element: arrays read + arrays written (no write-allocate). */
static const double st_bytes[ST_COUNT] = {16, 16, 24, 24};

enum st_phase { ST_SETUP, ST_INIT, ST_VALIDATE, ST_TEARDOWN };

struct st_thread {
	struct peak_mem a, b, c;
	char why[96];
	char pad[64];
};

/* One thread count's point state: its geometry and arrays (st_point_setup). */
struct st_point {
	const struct mem_run *run;
	const struct mem_ops *ops;
	enum st_phase phase;
	unsigned nthreads;
	size_t n; /* elements per thread */
	bool nt;
	enum mem_pages pages;
	double want[3]; /* what a, b, c hold now */
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

/* STREAM's check: the average absolute error of each array relative to the expected value
 * must stay under 1e-13 for doubles. */
static int validate(const struct st_point *p, struct st_thread *th)
{
	const struct peak_mem *arr[3] = {&th->a, &th->b, &th->c};
	for (int k = 0; k < 3; k++) {
		const double *x = (const double *)(const void *)arr[k]->ptr;
		double err = 0.0;
		for (size_t j = 0; j < p->n; j++)
			err += fabs(x[j] - p->want[k]);
		if (err / (double)p->n / p->want[k] > 1e-13) {
			snprintf(th->why, sizeof(th->why), "array %c: average error %g, expected %g",
				 "abc"[k], err / (double)p->n, p->want[k]);
			return -1;
		}
	}
	return 0;
}

/* One thread's passes of kernel k over its part of the arrays. */
static void st_passes(const struct st_point *p, enum st_kernel k, struct st_thread *th,
		      uint64_t passes)
{
	double *a = (double *)th->a.ptr, *b = (double *)th->b.ptr, *c = (double *)th->c.ptr;
	for (uint64_t i = 0; i < passes; i++) {
		switch (k) {
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
		case ST_COUNT:
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

static int st_init(struct peak_team *team, struct st_point *p)
{
	p->want[0] = 1.0;
	p->want[1] = 2.0;
	p->want[2] = 0.0;
	return st_phase(team, p, ST_INIT);
}

static const char *st_why(const struct st_point *p)
{
	for (unsigned t = 0; t < p->nthreads; t++)
		if (p->th[t].why[0])
			return p->th[t].why;
	return "a worker failed";
}

static uint64_t array_bytes(const struct st_point *p)
{
	return (uint64_t)p->n * p->nthreads * sizeof(double);
}

static bool st_cached(const struct st_point *p)
{
	return p->run->llc_bytes && 3 * array_bytes(p) <= p->run->llc_bytes;
}

/* The geometry of a thread count (no arrays yet). */
static struct st_point st_geometry(const struct mem_run *run, unsigned nthreads)
{
	struct st_point p = {.run = run,
			     .ops = run->ops,
			     .nthreads = nthreads,
			     .n = elems_per_thread(run->size_bytes, nthreads)};
	p.nt = run->nt == MEM_NT_ON ||
	       (run->nt == MEM_NT_AUTO && run->llc_bytes && array_bytes(&p) > run->llc_bytes);
	p.pages = run->hugepages == MEM_HP_OFF ? MEM_PAGES_4K : MEM_PAGES_THP;
	return p;
}

/* peak_bench hooks: the suite's data is the mem_run, the point state the thread count's
 * st_point, the kernel's data its st_kernel. */

/* The one point of a thread count: the row's block is one array. */
static int st_point_enum(void *data, unsigned threads, size_t i, struct peak_bench_point *pt)
{
	const struct st_point g = st_geometry(data, threads);
	if (i > 0)
		return 0;
	pt->block_bytes = array_bytes(&g);
	pt->has_block = true;
	pt->peak_not_applicable = st_cached(&g);
	return 1;
}

static int st_point_setup(void *data, const struct peak_bench_point *pt, struct peak_team *team,
			  void **state, struct peak_bench_err *e)
{
	struct st_point *p = malloc(sizeof(*p));
	if (!p)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	*p = st_geometry(data, pt->threads);
	p->th = calloc(p->nthreads, sizeof(*p->th));
	if (!p->th) {
		free(p);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	}
	if (st_phase(team, p, ST_SETUP) != 0 || st_init(team, p) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "stream setup: %s", st_why(p));
		(void)st_phase(team, p, ST_TEARDOWN);
		free(p->th);
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void st_point_teardown(void *data, const struct peak_bench_point *pt,
			      struct peak_team *team, void *state)
{
	struct st_point *p = state;
	(void)data;
	(void)pt;
	(void)st_phase(team, p, ST_TEARDOWN);
	free(p->th);
	free(p);
}

static void st_variant(const struct peak_bench_run *r, char *buf, size_t len)
{
	const struct st_point *p = r->point_state;
	snprintf(buf, len, "%s-%s%s", r->k->name, p->ops->name, p->nt ? "-nt" : "");
}

/* One iteration = one pass over each thread's part, in STREAM's bytes. */
static double st_work(const struct peak_bench_run *r)
{
	const struct st_point *p = r->point_state;
	return st_bytes[*(const enum st_kernel *)r->k->data] * (double)p->n;
}

static int st_run(struct peak_bench_run *r, unsigned t)
{
	const struct st_point *p = r->point_state;
	st_passes(p, *(const enum st_kernel *)r->k->data, &p->th[t], r->iters);
	return 0;
}

/* After every run: follow the kernel's effect on the expected values; triad closes a round:
 * check the three arrays, then start the next round from STREAM's initial values. */
static int st_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct st_point *p = r->point_state;
	double *w = p->want;
	switch (*(const enum st_kernel *)r->k->data) {
	case ST_COPY:
		w[2] = w[0];
		return 0;
	case ST_SCALE:
		w[1] = STREAM_SCALAR * w[2];
		return 0;
	case ST_ADD:
		w[2] = w[0] + w[1];
		return 0;
	case ST_TRIAD:
	case ST_COUNT:
	default:
		w[0] = w[1] + STREAM_SCALAR * w[2];
		break;
	}
	if (st_phase(r->team, p, ST_VALIDATE) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL,
				       "stream threads %u: validation failed: %s", p->nthreads,
				       st_why(p));
	if (st_init(r->team, p) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "stream threads %u: %s", p->nthreads,
				       st_why(p));
	return 0;
}

static double st_peak(const struct peak_bench_run *r)
{
	const struct mem_run *run = r->suite_data;
	return run->theoretical_mbps;
}

static int st_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		  struct peak_bench_err *e)
{
	const struct st_point *p = r->point_state;
	(void)out;
	(void)e;
	if (st_cached(p))
		peak_result_flag(res, "cached");
	/* STREAM's rule: each array at least 4x the largest cache. */
	if (!p->run->llc_bytes || array_bytes(p) < 4 * p->run->llc_bytes)
		peak_result_flag(res, "small_arrays");
	return 0;
}

#define ST_KERNEL(i)                                                                       \
	{.name = st_names[i], .test = "stream", .metric = "throughput", .unit = "MB/s",          \
	 .scale = 1000.0 /* bytes/ns = GB/s; x 1000 = MB/s, as STREAM counts */,                  \
	 .run = st_run, .verify = st_verify, .peak = st_peak, .row = st_row,                      \
	 .data = (void *)&st_ids[i], .variant_at = st_variant, .work_at = st_work}

static const struct peak_bench_kernel st_kernels[ST_COUNT] = {
    ST_KERNEL(ST_COPY), ST_KERNEL(ST_SCALE), ST_KERNEL(ST_ADD), ST_KERNEL(ST_TRIAD)};

int mem_stream_run(struct mem_run *run)
{
	const struct peak_bench_suite s = {.name = "memory",
					   .kernels = st_kernels,
					   .nkernels = ST_COUNT,
					   .point = st_point_enum,
					   .data = run,
					   .pin = true,
					   .start_iters = 1,
					   .max_iters = UINT64_C(1) << 32,
					   .point_setup = st_point_setup,
					   .point_teardown = st_point_teardown,
					   .order = PEAK_BENCH_ORDER_ROUND_ROBIN,
					   .progress = mem_progress};
	const struct peak_bench_cfg cfg = {.common = &run->common};
	return peak_bench_sweep(&s, &cfg, run->out, NULL, run->err);
}
