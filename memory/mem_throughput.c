/* membench throughput tests: whole blocks copied (read+write), summed (read) or filled
 * (write), in block order or in a random permutation of the blocks, by a pinned team in
 * which every thread owns and first-touches its slice of the buffer.
 * One peak_bench_sweep: its points are the blocks (per thread count); the suite's
 * point_setup maps the slices (and random orders) once per block, then each wanted test is a
 * kernel of the table (calibration, warm-up, reps, steal window, standard flags), one after
 * the other, whose iteration is one block visit per thread. The point chooses the ISA
 * (scalar under a cache line), -nt, the calibration's start and whether a peak applies. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem_order.h"
#include "mem_run.h"
#include "peak_exit.h"
#include "peak_team.h"

enum tp_kind { TP_RW, TP_READ, TP_WRITE };
enum tp_phase { TP_SETUP, TP_PATTERN, TP_VERIFY, TP_TEARDOWN };

struct tp_thread {
	struct peak_mem buf;
	struct peak_mem order_rw;   /* permutation of the n_rw block pairs */
	struct peak_mem order_full; /* permutation of the n_full blocks */
	size_t pos;
	uint64_t sink;
	int err;
	char why[96];
	char pad[64]; /* keep neighbours' hot fields off this thread's cache line */
};

struct tp_point {
	struct mem_run *run;
	enum mem_test test;
	const struct mem_ops *ops;
	enum tp_phase phase;
	enum tp_kind kind;
	bool random;
	bool need_orders;
	bool nt;
	enum mem_pages pages;
	size_t block_bytes;
	size_t n_full;    /* blocks in a thread's slice (read, write) */
	size_t n_rw;      /* block pairs (read+write: first half copied to second half) */
	size_t buf_bytes; /* per thread */
	uint64_t visits;  /* visits per thread since the last PATTERN */
	bool grown;       /* a slice smaller than two blocks grew to two */
	uint64_t value;   /* what the write test stores */
	unsigned nthreads;
	struct tp_thread *th;
};

static const enum tp_kind test_kind[] = {
    [MEM_T_SEQ_RW] = TP_RW,       [MEM_T_RAND_RW] = TP_RW,     [MEM_T_SEQ_READ] = TP_READ,
    [MEM_T_SEQ_WRITE] = TP_WRITE, [MEM_T_RAND_READ] = TP_READ, [MEM_T_RAND_WRITE] = TP_WRITE,
};

static bool test_random(enum mem_test t)
{
	return t == MEM_T_RAND_RW || t == MEM_T_RAND_READ || t == MEM_T_RAND_WRITE;
}

/* Slice geometry: size / threads per thread; a slice smaller than two blocks grows to
 * two blocks (flagged "size_grown"). */
static void geometry(uint64_t size, unsigned nthreads, size_t block, size_t *n_full, size_t *n_rw,
		     size_t *buf_bytes)
{
	uint64_t slice = size / nthreads;
	uint64_t nf = slice / block, nr = slice / (2 * (uint64_t)block);
	if (nr == 0) {
		nr = 1;
		nf = 2;
	}
	*n_full = (size_t)nf;
	*n_rw = (size_t)nr;
	*buf_bytes = (size_t)nf * block;
}

static bool want_random(const struct mem_run *run)
{
	return run->want[MEM_T_RAND_RW] || run->want[MEM_T_RAND_READ] ||
	       run->want[MEM_T_RAND_WRITE];
}

uint64_t mem_throughput_need(const struct mem_run *run)
{
	uint64_t need = 0;
	bool any = false;
	for (int t = MEM_T_SEQ_RW; t <= MEM_T_RAND_WRITE; t++)
		any |= run->want[t];
	if (!any)
		return 0;
	for (size_t i = 0; i < run->common.threads.n; i++) {
		unsigned n = (unsigned)run->common.threads.v[i];
		for (size_t j = 0; j < run->blocks.n; j++) {
			size_t nf, nr, bb;
			geometry(run->size_bytes, n, (size_t)run->blocks.v[j], &nf, &nr, &bb);
			uint64_t per = bb;
			if (want_random(run))
				per += (uint64_t)(nf + nr) * sizeof(uint32_t);
			if (per * n > need)
				need = per * n;
		}
	}
	return need;
}

static uint64_t pattern(unsigned t, size_t word)
{
	return mem_mix64(((uint64_t)t << 48) ^ word);
}

static int map_order(struct tp_thread *th, struct peak_mem *b, size_t n, enum mem_pages pages,
		     struct mem_rng *rng)
{
	if (mem_map(b, n * sizeof(uint32_t), pages, NULL, 0) != 0) {
		snprintf(th->why, sizeof(th->why), "cannot map %zu bytes for the random order",
			 n * 4);
		return -1;
	}
	mem_order_shuffle((uint32_t *)(void *)b->ptr, n, rng);
	return 0;
}

static int thread_setup(struct tp_point *p, struct tp_thread *th, unsigned t)
{
	if (mem_map(&th->buf, p->buf_bytes, p->pages, NULL, 0) != 0) {
		snprintf(th->why, sizeof(th->why), "cannot map %zu bytes", p->buf_bytes);
		return -1;
	}
	if (!p->need_orders)
		return 0;
	/* Orders are built here, before any timing, with this thread's own generator. */
	struct mem_rng rng;
	mem_rng_seed(&rng, p->run->seed + t);
	if (map_order(th, &th->order_rw, p->n_rw, p->pages, &rng) != 0 ||
	    map_order(th, &th->order_full, p->n_full, p->pages, &rng) != 0)
		return -1;
	return 0;
}

/* The walk of this thread for the point's test. */
static struct mem_walk walk_of(const struct tp_point *p, const struct tp_thread *th,
			       uint64_t iters)
{
	struct mem_walk w = {
	    .block_bytes = p->block_bytes, .pos = th->pos, .count = iters, .nt = p->nt};
	w.nblocks = p->kind == TP_RW ? p->n_rw : p->n_full;
	if (p->random)
		w.order = (const uint32_t *)(const void *)(p->kind == TP_RW ? th->order_rw.ptr
									    : th->order_full.ptr);
	return w;
}

static void thread_run(const struct tp_point *p, struct tp_thread *th, uint64_t iters)
{
	struct mem_walk w = walk_of(p, th, iters);
	char *base = th->buf.ptr;
	switch (p->kind) {
	case TP_RW:
		p->ops->copy(base + p->n_rw * p->block_bytes, base, &w);
		break;
	case TP_READ:
		th->sink += p->ops->sum(base, &w);
		break;
	case TP_WRITE:
		p->ops->fill(base, p->value, &w);
		break;
	}
	th->pos = (size_t)((th->pos + iters) % w.nblocks);
}

/* Block b of `words` words at w equals the pattern of its own position (first_word)? */
static bool block_is_pattern(const uint64_t *w, size_t words, unsigned t, size_t first_word)
{
	for (size_t i = 0; i < words; i++)
		if (w[i] != pattern(t, first_word + i))
			return false;
	return true;
}

/* After the timed runs: each block is either untouched or exactly what the kernel
 * writes, and exactly min(visits, blocks) blocks were written; the sum kernel over one
 * full pass equals a plain sum of the slice (addition mod 2^64 ignores the order). */
static int thread_verify(struct tp_point *p, struct tp_thread *th, unsigned t)
{
	const size_t words = p->block_bytes / 8;
	const uint64_t *w = (const uint64_t *)(const void *)th->buf.ptr;
	size_t hit = 0, n = p->kind == TP_RW ? p->n_rw : p->n_full;
	if (p->kind == TP_READ) {
		struct mem_walk full = walk_of(p, th, n);
		full.pos = 0;
		full.count = n;
		uint64_t want = 0;
		for (size_t i = 0; i < n * words; i++)
			want += w[i];
		uint64_t got = p->ops->sum(th->buf.ptr, &full);
		if (got != want) {
			snprintf(th->why, sizeof(th->why), "sum %" PRIx64 " != %" PRIx64, got,
				 want);
			return -1;
		}
		return 0;
	}
	for (size_t b = 0; b < n; b++) {
		bool written = true;
		if (p->kind == TP_WRITE) {
			for (size_t i = 0; i < words && written; i++)
				written = w[b * words + i] == p->value;
		} else {
			const uint64_t *src = w + b * words, *dst = w + (n + b) * words;
			written = memcmp(src, dst, p->block_bytes) == 0;
		}
		size_t first = (p->kind == TP_WRITE ? b : n + b) * words;
		if (written)
			hit++;
		else if (!block_is_pattern(w + first, words, t, first)) {
			snprintf(th->why, sizeof(th->why),
				 "block %zu holds neither the pattern nor %s", b,
				 p->kind == TP_WRITE ? "the fill value" : "a copy of its source");
			return -1;
		}
	}
	uint64_t want = p->visits < n ? p->visits : n;
	if (hit != want) {
		snprintf(th->why, sizeof(th->why), "%zu blocks written, expected %" PRIu64, hit,
			 want);
		return -1;
	}
	return 0;
}

static int tp_team_fn(void *arg, unsigned t, unsigned nthreads)
{
	struct tp_point *p = arg;
	struct tp_thread *th = &p->th[t];
	(void)nthreads;
	switch (p->phase) {
	case TP_SETUP:
		return thread_setup(p, th, t);
	case TP_PATTERN: {
		/* First touch happens here, by the owner, before anything is timed. */
		uint64_t *w = (uint64_t *)(void *)th->buf.ptr;
		for (size_t i = 0; i < p->buf_bytes / 8; i++)
			w[i] = pattern(t, i);
		th->pos = 0;
		return 0;
	}
	case TP_VERIFY:
		return thread_verify(p, th, t);
	case TP_TEARDOWN:
		peak_team_free_pages(&th->order_full);
		peak_team_free_pages(&th->order_rw);
		peak_team_free_pages(&th->buf);
		return 0;
	}
	return -1;
}

static int phase(struct peak_team *team, struct tp_point *p, enum tp_phase ph)
{
	p->phase = ph;
	return peak_team_run(team, tp_team_fn, p, NULL, NULL);
}

static const char *thread_why(const struct tp_point *p)
{
	for (unsigned t = 0; t < p->nthreads; t++)
		if (p->th[t].why[0])
			return p->th[t].why;
	return "a worker failed";
}

/* The memory peak only bounds a working set that cannot live in the caches. */
static bool cached(const struct mem_run *run, unsigned nthreads, size_t buf_bytes)
{
	return run->llc_bytes && (uint64_t)buf_bytes * nthreads <= run->llc_bytes;
}

/* peak_bench hooks: the suite's data is the mem_run, the point state the block's tp_point,
 * the kernel's data its mem_test. */

static const enum mem_test test_ids[] = {MEM_T_SEQ_RW,    MEM_T_RAND_RW,   MEM_T_SEQ_READ,
					 MEM_T_SEQ_WRITE, MEM_T_RAND_READ, MEM_T_RAND_WRITE};

/* Each test starts from the pattern (first touched at mapping, by the owner). */
static int tp_setup(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct tp_point *p = r->point_state;
	enum mem_test test = *(const enum mem_test *)r->k->data;
	p->test = test;
	p->kind = test_kind[test];
	p->random = test_random(test);
	p->visits = 0;
	p->value = mem_mix64(p->run->seed ^ 0x5eedf111ULL ^ (uint64_t)p->test);
	if (phase(r->team, p, TP_PATTERN) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s: %s", mem_test_names[p->test],
				       thread_why(p));
	return 0;
}

static int tp_run(struct peak_bench_run *r, unsigned t)
{
	struct tp_point *p = r->point_state;
	thread_run(p, &p->th[t], r->iters);
	return 0;
}

/* Counts the visits of every run; after the last repetition checks every block. */
static int tp_verify(struct peak_bench_run *r, struct peak_bench_err *e)
{
	struct tp_point *p = r->point_state;
	p->visits += r->iters;
	if (r->rep == PEAK_BENCH_NOT_MEASURED || !r->last_rep)
		return 0;
	if (phase(r->team, p, TP_VERIFY) == 0)
		return 0;
	char label[32];
	return peak_bench_fail(e, PEAK_EXIT_FAIL,
			       "%s block %s threads %u: verification failed: %s",
			       mem_test_names[p->test],
			       peak_format_size(p->block_bytes, label, sizeof(label)), p->nthreads,
			       thread_why(p));
}

static double tp_peak(const struct peak_bench_run *r)
{
	const struct mem_run *run = r->suite_data;
	return run->theoretical_mbps;
}

static int tp_row(struct peak_bench_run *r, struct peak_result *res, struct peak_output *out,
		  struct peak_bench_err *e)
{
	const struct tp_point *p = r->point_state;
	(void)out;
	(void)e;
	if (cached(p->run, p->nthreads, p->buf_bytes))
		peak_result_flag(res, "cached");
	if (p->grown)
		peak_result_flag(res, "size_grown");
	return 0;
}

/* Blocks larger than the last-level cache get non-temporal stores (auto), as do all
 * blocks with --nt on; they need 64-byte aligned blocks. */
static bool use_nt(const struct mem_run *run, size_t block)
{
	if (block % 64 != 0 || run->nt == MEM_NT_OFF)
		return false;
	if (run->nt == MEM_NT_ON)
		return true;
	return run->llc_bytes != 0 && block > run->llc_bytes;
}

/* 8-byte blocks (anything under a cache line) are moved one scalar word at a time. */
static const struct mem_ops *block_ops(const struct mem_run *run, size_t block)
{
	return block < 64 ? &mem_ops_scalar : run->ops;
}

static void tp_variant(const struct peak_bench_run *r, char *buf, size_t len)
{
	const struct mem_run *run = r->suite_data;
	size_t block = (size_t)r->point->block_bytes;
	snprintf(buf, len, "%s%s", block_ops(run, block)->name, use_nt(run, block) ? "-nt" : "");
}

/* Point i of a thread count: block i; a slice in the caches names no peak. */
static int tp_point_enum(void *data, unsigned nthreads, size_t i, struct peak_bench_point *pt)
{
	const struct mem_run *run = data;
	if (i >= run->blocks.n)
		return 0;
	size_t block = (size_t)run->blocks.v[i], nf, nr, bb;
	geometry(run->size_bytes, nthreads, block, &nf, &nr, &bb);
	pt->block_bytes = block;
	pt->has_block = true;
	pt->start_iters = block >= 65536 ? 1 : 65536 / block;
	pt->peak_not_applicable = cached(run, nthreads, bb);
	return 1;
}

/* The block's slices (and random orders), mapped once for all its tests. */
static int tp_point_setup(void *data, const struct peak_bench_point *pt, struct peak_team *team,
			  void **state, struct peak_bench_err *e)
{
	struct mem_run *run = data;
	size_t block = (size_t)pt->block_bytes;
	struct tp_point *p = calloc(1, sizeof(*p));
	if (!p)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	*p = (struct tp_point){.run = run,
			       .nthreads = pt->threads,
			       .block_bytes = block,
			       .need_orders = want_random(run),
			       .ops = block_ops(run, block),
			       .nt = use_nt(run, block),
			       .pages = run->hugepages == MEM_HP_OFF ? MEM_PAGES_4K : MEM_PAGES_THP};
	geometry(run->size_bytes, p->nthreads, block, &p->n_full, &p->n_rw, &p->buf_bytes);
	p->grown = (uint64_t)p->buf_bytes * p->nthreads > run->size_bytes;
	if (p->n_full > UINT32_MAX) {
		peak_bench_fail(e, PEAK_EXIT_USAGE,
				"--block: %zu blocks per thread is too many (at most 2^32)",
				p->n_full);
		free(p);
		return -1;
	}
	p->th = calloc(p->nthreads, sizeof(*p->th));
	if (!p->th) {
		free(p);
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	}
	if (phase(team, p, TP_SETUP) != 0) {
		peak_bench_fail(e, PEAK_EXIT_FAIL, "setup: %s", thread_why(p));
		(void)phase(team, p, TP_TEARDOWN);
		free(p->th);
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void tp_point_teardown(void *data, const struct peak_bench_point *pt,
			      struct peak_team *team, void *state)
{
	struct tp_point *p = state;
	(void)data;
	(void)pt;
	(void)phase(team, p, TP_TEARDOWN);
	free(p->th);
	free(p);
}

static double tp_work(const struct peak_bench_run *r)
{
	const struct tp_point *p = r->point_state;
	return (double)p->block_bytes * (p->kind == TP_RW ? 2.0 : 1.0);
}

/* Rows MB/s, one iteration = one visit per thread (a block read, written, or both for
 * read+write). */
int mem_throughput_run(struct mem_run *run)
{
	if (mem_throughput_need(run) == 0)
		return 0;
	struct peak_bench_kernel k[sizeof(test_ids) / sizeof(test_ids[0])];
	size_t nk = 0;
	for (size_t i = 0; i < sizeof(test_ids) / sizeof(test_ids[0]); i++) {
		enum mem_test t = test_ids[i];
		if (!run->want[t])
			continue;
		k[nk++] = (struct peak_bench_kernel){
		    .name = mem_test_names[t],
		    .test = mem_test_names[t],
		    .metric = "throughput",
		    .unit = "MB/s",
		    .scale = 1000.0, /* bytes/ns = GB/s; x 1000 = MB/s (decimal, as STREAM counts) */
		    .setup = tp_setup,
		    .run = tp_run,
		    .verify = tp_verify,
		    .peak = tp_peak,
		    .row = tp_row,
		    .data = (void *)&test_ids[i],
		    .variant_at = tp_variant,
		    .work_at = tp_work,
		};
	}
	const struct peak_bench_suite s = {.name = "memory",
					   .kernels = k,
					   .nkernels = nk,
					   .point = tp_point_enum,
					   .data = run,
					   .pin = true,
					   .max_iters = UINT64_C(1) << 40,
					   .point_setup = tp_point_setup,
					   .point_teardown = tp_point_teardown,
					   .progress = mem_progress};
	const struct peak_bench_cfg cfg = {.common = &run->common};
	return peak_bench_sweep(&s, &cfg, run->out, NULL, run->err);
}
