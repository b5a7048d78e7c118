/* membench latency: a pointer chase through one random cycle of cache lines, one
 * dependent load at a time (lmbench lat_mem_rd's picture, with a random order so the
 * prefetchers cannot help), per working-set size and page kind.
 * One peak_bench_sweep on a team of one thread whose points are the (page kind, working
 * set) pairs; its one kernel's variant names the page kind (variant_at). The figure is ns
 * per load, not work per team time, so the kernel times itself (the measure hook): setup
 * maps and checks the cycle and calibrates the steps (that is the warm-up), each repetition
 * is one timed chase. The cycles row follows the ns row, from its samples (extra_rows). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_order.h"
#include "mem_run.h"
#include "peak_calib.h"
#include "peak_exit.h"
#include "peak_team.h"

#define LINE_BYTES 64
#define MAX_POINTS 512
/* Below this many lines the whole cycle is walked once more to check it (cheap). */
#define CHECK_LINES ((size_t)1 << 20)

struct lat_point {
	enum mem_pages pages;
	uint64_t ws_bytes;
	struct peak_mem buf;
	void *start;
	void *sink;
	uint64_t steps;
	int phase; /* 0 setup, 1 run, 2 teardown */
	uint64_t seed;
	uint64_t prev_ws; /* the point below (0: none), for the cache_edge flags */
	const struct mem_run *run;
	char why[96];
};

size_t mem_latency_points(const struct mem_run *run, uint64_t *ws, size_t max)
{
	size_t n = 0;
	if (run->sweep.set) {
		/* Geometric steps of 2^(1/steps) from min to max, each a whole number of lines;
		 * the max itself is always the last point. */
		double f = pow(2.0, 1.0 / run->sweep.steps_per_octave);
		for (unsigned k = 0; n < max; k++) {
			double x = (double)run->sweep.min_bytes * pow(f, (double)k);
			uint64_t b = (uint64_t)(x + 0.5) / LINE_BYTES * LINE_BYTES;
			if (b > run->sweep.max_bytes)
				break;
			if (n == 0 || b > ws[n - 1])
				ws[n++] = b;
		}
		if (n < max &&
		    (n == 0 || ws[n - 1] < run->sweep.max_bytes / LINE_BYTES * LINE_BYTES))
			ws[n++] = run->sweep.max_bytes / LINE_BYTES * LINE_BYTES;
		return n;
	}
	/* Without --sweep: half of L1d, L2 and the LLC (well inside each level) when smaller
	 * than --size, then the --size buffer (main memory when it exceeds the LLC). */
	uint64_t s = run->size_bytes / LINE_BYTES * LINE_BYTES;
	for (unsigned level = 1; level <= 3 && n < max; level++) {
		uint64_t c =
		    peak_sysinfo_cache_effective_bytes(run->si, level) / 2 / LINE_BYTES * LINE_BYTES;
		if (c >= 2 * LINE_BYTES && c < s && (n == 0 || c > ws[n - 1]))
			ws[n++] = c;
	}
	if (n < max && s >= 2 * LINE_BYTES && (n == 0 || s > ws[n - 1]))
		ws[n++] = s;
	return n;
}

uint64_t mem_latency_need(const struct mem_run *run)
{
	if (!run->want[MEM_T_LATENCY])
		return 0;
	uint64_t ws[MAX_POINTS];
	size_t n = mem_latency_points(run, ws, MAX_POINTS);
	return n ? ws[n - 1] : 0;
}

static int lat_team_fn(void *arg, unsigned t, unsigned nthreads)
{
	struct lat_point *p = arg;
	(void)t;
	(void)nthreads;
	if (p->phase == 1) {
		p->sink = mem_chase_walk(p->start, p->steps);
		return 0;
	}
	if (p->phase == 2) {
		peak_team_free_pages(&p->buf);
		return 0;
	}
	if (mem_map(&p->buf, p->ws_bytes, p->pages, NULL, 0) != 0) {
		snprintf(p->why, sizeof(p->why), "cannot map %llu bytes of %s pages",
			 (unsigned long long)p->ws_bytes, mem_pages_name(p->pages));
		return -1;
	}
	struct mem_rng rng;
	mem_rng_seed(&rng, p->seed);
	size_t lines = (size_t)(p->ws_bytes / LINE_BYTES);
	p->start = mem_chase_build(p->buf.ptr, lines, LINE_BYTES, &rng);
	if (lines <= CHECK_LINES) {
		/* One cycle through every line: back at the start after exactly `lines`. */
		void *q = p->start;
		for (size_t i = 1; i <= lines; i++) {
			q = *(void **)q;
			if (q == p->start && i != lines) {
				snprintf(p->why, sizeof(p->why),
					 "chase cycle of %zu lines, not %zu", i, lines);
				return -1;
			}
		}
		if (q != p->start) {
			snprintf(p->why, sizeof(p->why), "chase does not close after %zu lines",
				 lines);
			return -1;
		}
	}
	return 0;
}

static int chase_timed(struct peak_team *team, struct lat_point *p, uint64_t steps,
		       uint64_t *ns)
{
	p->phase = 1;
	p->steps = steps;
	return peak_team_run(team, lat_team_fn, p, ns, NULL);
}

struct lat_calib {
	struct peak_team *team;
	struct lat_point *p;
};

static int calib_fn(void *arg, uint64_t steps, uint64_t *ns)
{
	struct lat_calib *c = arg;
	return chase_timed(c->team, c->p, steps, ns);
}

/* Which level a working set fits in, and whether it is the first point at or past a
 * cache's effective size (the run's latency knee where it says less than the reported one) (the edge the plot marks; never on the first point, which has no
 * neighbour below it). */
static void level_flags(const struct mem_run *run, uint64_t ws, uint64_t prev,
			struct peak_result *r)
{
	static const char *const in[] = {"level=L1", "level=L2", "level=L3"};
	static const char *const edge[] = {"cache_edge=L1", "cache_edge=L2", "cache_edge=L3"};
	bool placed = false;
	for (unsigned level = 1; level <= 3; level++) {
		uint64_t c = peak_sysinfo_cache_effective_bytes(run->si, level);
		if (!c)
			continue;
		if (!placed && ws <= c) {
			peak_result_flag(r, in[level - 1]);
			placed = true;
		}
		if (prev > 0 && ws >= c && prev < c)
			peak_result_flag(r, edge[level - 1]);
	}
	if (!placed)
		peak_result_flag(r, "level=mem");
}

/* One point of the sweep: a page kind and a working set (and the one below it). */
struct lat_desc {
	enum mem_pages pages;
	uint64_t ws, prev;
};

struct lat_suite {
	struct mem_run *run;
	size_t n;
	struct lat_desc *d;
};

/* peak_bench hooks: the point's data is its lat_desc, the kernel's state its lat_point. */

static int lat_enum(void *data, unsigned threads, size_t i, struct peak_bench_point *pt)
{
	struct lat_suite *ls = data;
	(void)threads;
	if (i >= ls->n)
		return 0;
	pt->data = &ls->d[i];
	pt->block_bytes = ls->d[i].ws;
	pt->has_block = true;
	return 1;
}

static void lat_variant(const struct peak_bench_run *r, char *buf, size_t len)
{
	const struct lat_desc *d = r->point->data;
	snprintf(buf, len, "chase-%s", mem_pages_name(d->pages));
}

static int lat_setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	const struct lat_desc *d = r->point->data;
	struct mem_run *run = ((struct lat_suite *)r->suite_data)->run;
	struct lat_point *p = calloc(1, sizeof(*p));
	if (!p)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	*p = (struct lat_point){.pages = d->pages,
				.ws_bytes = d->ws,
				.seed = run->seed ^ d->ws,
				.prev_ws = d->prev,
				.run = run};
	p->phase = 0;
	if (peak_team_run(r->team, lat_team_fn, p, NULL, NULL) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "latency %s: %s", mem_pages_name(p->pages),
				p->why);
		goto fail;
	}
	struct lat_calib c = {.team = r->team, .p = p};
	if (peak_calib_iterations(calib_fn, &c, run->common.min_time_s, 4096, UINT64_C(1) << 40,
				  &p->steps) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "latency %s at %llu bytes: chase failed",
				mem_pages_name(p->pages), (unsigned long long)p->ws_bytes);
		goto fail;
	}
	r->state = p;
	return 0;
fail: /* a failed setup frees what it made */
	p->phase = 2;
	(void)peak_team_run(r->team, lat_team_fn, p, NULL, NULL);
	free(p);
	return -1;
}

static int lat_measure(struct peak_bench_run *r, double *value, struct peak_bench_err *e)
{
	struct lat_point *p = r->state;
	uint64_t t = 0;
	if (chase_timed(r->team, p, p->steps, &t) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "latency %s at %llu bytes: chase failed",
				       mem_pages_name(p->pages), (unsigned long long)p->ws_bytes);
	*value = (double)t / (double)p->steps;
	return 0;
}

/* The chase must end on a line of the buffer, or the walk went astray. */
static int lat_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	const struct lat_point *p = r->state;
	char *end = p->sink, *base = p->buf.ptr;
	if (end < base || end >= base + p->ws_bytes || (size_t)(end - base) % LINE_BYTES != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "latency %s at %llu bytes: chase failed",
				       mem_pages_name(p->pages), (unsigned long long)p->ws_bytes);
	return 0;
}

static int lat_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		   struct peak_bench_err *e)
{
	const struct lat_point *p = r->state;
	(void)out;
	(void)e;
	level_flags(p->run, p->ws_bytes, p->prev_ws, res);
	if (p->pages == MEM_PAGES_THP && p->ws_bytes >= ((uint64_t)2 << 20)) {
		uint64_t huge = peak_team_huge_bytes(&p->buf);
		if (huge < p->ws_bytes * 9 / 10)
			peak_result_flag(res, "thp_partial");
	}
	return 0;
}

/* The same samples in cycles with the same flags (when the core clock is known). */
static int lat_cycles(struct peak_bench_run *r, const struct peak_result *ns,
		      struct peak_output *out, struct peak_bench_err *e)
{
	struct mem_run *run = ((struct lat_suite *)r->suite_data)->run;
	if (run->ghz <= 0)
		return 0;
	double cyc[PEAK_BENCH_MAX_REPS];
	for (size_t i = 0; i < ns->nsamples; i++)
		cyc[i] = ns->samples[i] * run->ghz;
	struct peak_result c;
	peak_result_init(&c, "memory", "latency", ns->variant, "latency", "cycles");
	c.threads = 1;
	c.block_bytes = ns->block_bytes;
	c.has_block = true;
	peak_result_set_samples(&c, cyc, ns->nsamples);
	memcpy(c.flags, ns->flags, sizeof(c.flags));
	peak_result_finish(&c);
	if (peak_output_record(out, &c) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	return 0;
}

static void lat_teardown(struct peak_bench_run *r)
{
	struct lat_point *p = r->state;
	p->phase = 2;
	(void)peak_team_run(r->team, lat_team_fn, p, NULL, NULL);
	free(p);
	r->state = NULL;
}

/* Page kinds to sweep: auto = 4 KiB and THP (and hugetlb when its pool holds the
 * largest working set); on = the huge kinds only; off = 4 KiB only. */
static size_t page_kinds(struct mem_run *run, uint64_t max_ws, enum mem_pages *kinds)
{
	size_t n = 0;
	struct peak_hugetlb_pool pool;
	bool hugetlb = peak_team_hugetlb_pool(&pool) == 0 &&
		       pool.available * pool.page_bytes >= max_ws;
	if (run->hugepages != MEM_HP_ON)
		kinds[n++] = MEM_PAGES_4K;
	if (run->hugepages != MEM_HP_OFF && peak_team_thp_available())
		kinds[n++] = MEM_PAGES_THP;
	if (run->hugepages != MEM_HP_OFF && hugetlb)
		kinds[n++] = MEM_PAGES_HUGETLB;
	if (run->hugepages != MEM_HP_OFF && !hugetlb)
		peak_context_set_str(run->ctx, "membench_hugetlb",
				     "skipped: the hugetlb pool (HugePages_Free) is smaller than "
				     "the largest working set");
	return n;
}

int mem_latency_run(struct mem_run *run)
{
	uint64_t ws[MAX_POINTS];
	size_t n = mem_latency_points(run, ws, MAX_POINTS);
	if (n == 0)
		return 0;
	enum mem_pages kinds[3];
	size_t nk = page_kinds(run, ws[n - 1], kinds);
	if (nk == 0)
		return mem_fail(run, PEAK_EXIT_UNSUPPORTED,
				"--hugepages on: neither transparent huge pages nor a hugetlb pool "
				"is available here (try --hugepages auto)");
	struct lat_suite ls = {.run = run, .n = nk * n, .d = calloc(nk * n, sizeof(*ls.d))};
	if (!ls.d)
		return mem_fail(run, PEAK_EXIT_FAIL, "out of memory");
	for (size_t k = 0; k < nk; k++)
		for (size_t i = 0; i < n; i++)
			ls.d[k * n + i] = (struct lat_desc){
			    .pages = kinds[k], .ws = ws[i], .prev = i ? ws[i - 1] : 0};
	const struct peak_bench_kernel k = {
	    .name = "latency",
	    .test = "latency",
	    .metric = "latency",
	    .unit = "ns",
	    .setup = lat_setup,
	    .verify = lat_verify,
	    .row = lat_row,
	    .teardown = lat_teardown,
	    .measure = lat_measure,
	    .variant_at = lat_variant,
	    .extra_rows = lat_cycles,
	};
	/* Setup's calibration is the warm-up (as before the port): no extra cold run. */
	const struct peak_bench_suite s = {.name = "memory",
					   .kernels = &k,
					   .nkernels = 1,
					   .point = lat_enum,
					   .data = &ls,
					   .pin = true,
					   .no_warmup = true,
					   .progress = mem_progress};
	/* One thread: latency is one dependent chain; more threads would measure a mix. */
	struct peak_common_opts c = run->common;
	c.threads.n = 1;
	c.threads.v[0] = 1;
	const struct peak_bench_cfg cfg = {.common = &c};
	int rc = peak_bench_sweep(&s, &cfg, run->out, NULL, run->err);
	free(ls.d);
	return rc;
}
