/* linpack: GFLOPS of a dense solve (OpenBLAS LAPACKE_dgesv) at the HPL problem size,
 * with the HPL scaled residual checked, against the AVX-512 and AVX2 peaks. Methodology:
 * docs/cpu.md. */
#include <cblas.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_clock.h"
#include "cpu_kernels.h"
#include "linpack_solve.h"
#include "peak_bench.h"
#include "peak_bench_main.h"
#include "peak_context.h"
#include "peak_exit.h"
#include "peak_opts.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"
#include "peak_team.h"
#include "peak_time.h"

#define MAX_REPS 1000
#define CALIB_N  2000
#define SEED     0x5EEDull

struct linpack_opts {
	struct peak_common_opts common;
	uint64_t n;        /* 0: automatic */
	double max_time_s; /* cap of one solve when n is automatic */
	bool corrupt;      /* test hook: PEAKBENCH_TEST_CORRUPT_SOLVE */
};

/* The run's facts (peak_bench_main's) and what the hooks share. */
struct linpack_env {
	const struct peak_sysinfo *si;
	const struct peak_machine *m;
	struct peak_context *ctx;
	struct peak_bench_err *err;
	enum peak_isa wide; /* widest FMA ISA here (avx512 or avx2), or scalar */
	double worst_residual;
	struct peak_freq_load_clock clocks[PEAK_FREQ_LOAD_COUNT]; /* cpu_clock.h */
};

/* Clock under the load of the ISA's FP work, on this thread, right after a solve (the core
 * still holds that ISA's licence): best of five ~3 ms runs of the imul chain with the
 * ISA's instructions between its links, or of the plain chain where that load's clock was
 * refused (cpu_clock.h). */
static double chain_ghz(enum cpu_chain isa_chain, const struct linpack_env *e)
{
	unsigned lat;
	enum cpu_chain chain = cpu_clock_chain(isa_chain, e->clocks, &lat, NULL);
	const struct peak_machine *m = e->m;
	double hint = m->ghz.value > 0.1 ? m->ghz.value : 3.0, best = 0;
	uint64_t iters = (uint64_t)(0.003 * hint * 1e9 / (CPU_CHAIN_STEPS * (double)lat)) + 1;
	for (int t = 0; t < 5; t++) {
		uint64_t t0 = peak_time_now_ns();
		uint64_t got = cpu_chain_run(chain, iters);
		uint64_t ns = peak_time_now_ns() - t0;
		if (got != cpu_chain_expected(chain, iters) || ns == 0)
			return NAN;
		best = fmax(best, (double)iters * CPU_CHAIN_STEPS * lat / (double)ns);
	}
	return best;
}

static enum cpu_chain wide_chain(const struct linpack_env *e)
{
	return e->wide == PEAK_ISA_AVX512 ? CPU_CHAIN_AVX512_FP : CPU_CHAIN_AVX_FP;
}

/* One solve with its residual check; 0, or -1 with e->err set. */
static int solve_checked(struct linpack_env *e, struct linpack_system *s, bool corrupt,
			 unsigned threads, struct linpack_solve *r)
{
	if (linpack_run(s, SEED, corrupt, r) != 0 || r->info != 0) {
		return peak_bench_fail(e->err, PEAK_EXIT_FAIL,
				       "dgesv failed at N=%zu (info %d: %s)", s->n, r->info,
				       r->info > 0 ? "singular matrix" : "bad argument");
	}
	e->worst_residual = fmax(e->worst_residual, r->scaled_residual);
	if (!(r->scaled_residual <= LINPACK_RESIDUAL_THRESHOLD)) {
		return peak_bench_fail(e->err, PEAK_EXIT_FAIL,
				       "residual check failed: scaled residual %.3g > %g at N=%zu, "
				       "%u threads",
				       r->scaled_residual, LINPACK_RESIDUAL_THRESHOLD, s->n,
				       threads);
	}
	return 0;
}

/* Order n: --n, else the HPL rule (80% of available memory) capped so that one solve at
 * the slowest thread count of the list should last at most --max-time, from a small
 * calibration solve at each thread count (which also warms OpenBLAS's thread pool). */
static int choose_n(struct linpack_env *e, const struct linpack_opts *o, size_t *n_out)
{
	double avail = (double)e->si->mem_available_bytes;
	size_t n_mem = (size_t)sqrt(0.8 * avail / 8.0);
	size_t n0 = o->n ? (o->n < 1000 ? o->n : 1000) : (n_mem < CALIB_N ? n_mem : CALIB_N);
	double slowest = INFINITY;
	struct linpack_system s;
	int rc = 0;

	if (linpack_alloc(&s, n0) != 0)
		return peak_bench_fail(e->err, PEAK_EXIT_FAIL,
				       "out of memory for the calibration solve (N=%zu)", n0);
	for (size_t t = 0; t < o->common.threads.n && rc == 0; t++) {
		struct linpack_solve r;
		openblas_set_num_threads((int)o->common.threads.v[t]);
		rc = solve_checked(e, &s, false, (unsigned)o->common.threads.v[t], &r);
		slowest = fmin(slowest, r.gflops);
	}
	linpack_free(&s);
	if (rc != 0)
		return -1;
	if (o->n) {
		*n_out = (size_t)o->n;
		peak_context_set_str(e->ctx, "linpack.n_source", "--n");
	} else {
		/* 2/3 n^3 flops at the calibration rate (larger n runs faster: conservative). */
		size_t n_time = (size_t)cbrt(1.5 * o->max_time_s * slowest * 1e9);
		size_t n = n_time < n_mem ? n_time : n_mem;
		n = n / 8 * 8;
		*n_out = n < 64 ? 64 : n;
		peak_context_set_str(e->ctx, "linpack.n_source",
				     n_time < n_mem ? "--max-time (calibration solve)"
						    : "HPL rule sqrt(0.8 x available / 8)");
	}
	peak_context_set_num(e->ctx, "linpack.n", (double)*n_out);
	peak_context_set_num(e->ctx, "linpack.n_hpl_rule", (double)n_mem);
	peak_context_set_num(e->ctx, "linpack.calibration_gflops", slowest);
	return 0;
}

/* The sweep on the harness: one point per --threads count, kernels "dgesv" (against the
 * widest FMA ISA's peak) and, when that is AVX-512, "dgesv_vs_avx2" (the same samples
 * against AVX2's peak). A dgesv of N is fixed work that times itself (OpenBLAS runs its own
 * threads, the harness's team only waits), so it is a `measure` kernel, not a calibrated
 * `run`: one solve per repetition, no warm-up solve (choose_n's calibration solve warmed
 * OpenBLAS's thread pool); the residual is the verify hook. */
struct lp_sweep {
	struct linpack_env *e;
	const struct linpack_opts *o;
	struct linpack_system *s;
	unsigned cores, used;
	struct linpack_solve last;
	double gflops[MAX_REPS], ghz_wide[MAX_REPS], ghz_avx2[MAX_REPS];
	unsigned nsolves; /* dgesv's repetitions at this point (the stopping rule's count) */
	double worst, share;
	bool steal;         /* dgesv's row was flagged steal: its twin shares the run */
	char steal_pct[32]; /* and its "steal_pct=P" ("" when none) */
};

static bool is_twin(const struct peak_bench_run *r)
{
	return strcmp(r->k->name, "dgesv_vs_avx2") == 0;
}

static int setup_hook(struct peak_bench_run *r, struct peak_bench_err *be)
{
	struct lp_sweep *w = r->suite_data;
	(void)be;
	if (is_twin(r))
		return 0;
	w->used = r->nthreads < w->cores ? r->nthreads : w->cores;
	w->nsolves = 0;
	w->worst = 0;
	w->share = 1.0;
	openblas_set_num_threads((int)r->nthreads);
	return 0;
}

static int measure_hook(struct peak_bench_run *r, double *value, struct peak_bench_err *be)
{
	struct lp_sweep *w = r->suite_data;
	unsigned i = r->rep, reps = (unsigned)w->o->common.reps;
	unsigned cap = (unsigned)peak_opts_max_reps(&w->o->common);
	if (is_twin(r)) { /* no solve of its own: dgesv's samples, so the same stopping point */
		if (i >= w->nsolves)
			return peak_bench_fail(be, PEAK_EXIT_FAIL,
					       "dgesv_vs_avx2: repetition %u past dgesv's %u",
					       i + 1, w->nsolves);
		*value = w->gflops[i];
		return 0;
	}
	if (!w->o->common.quiet && cap > reps)
		fprintf(stderr, "linpack: N=%zu, %u thread%s, repetition %u (%u to %u)\n", w->s->n,
			r->nthreads, r->nthreads == 1 ? "" : "s", i + 1, reps, cap);
	else if (!w->o->common.quiet)
		fprintf(stderr, "linpack: N=%zu, %u thread%s, repetition %u/%u\n", w->s->n,
			r->nthreads, r->nthreads == 1 ? "" : "s", i + 1, reps);
	struct linpack_solve *sv = &w->last;
	if (linpack_run(w->s, SEED, w->o->corrupt, sv) != 0 || sv->info != 0)
		return peak_bench_fail(be, PEAK_EXIT_FAIL, "dgesv failed at N=%zu (info %d: %s)",
				       w->s->n, sv->info,
				       sv->info > 0 ? "singular matrix" : "bad argument");
	*value = w->gflops[i] = sv->gflops;
	w->nsolves = i + 1;
	/* OpenBLAS's threads should own `used` CPUs for the whole solve. */
	if (sv->seconds > 0)
		w->share = fmin(w->share, sv->cpu_seconds / (sv->seconds * w->used));
	w->ghz_wide[i] = chain_ghz(wide_chain(w->e), w->e);
	w->ghz_avx2[i] = chain_ghz(CPU_CHAIN_AVX_FP, w->e);
	return 0;
}

/* The HPL scaled residual of the solve just timed. */
static int verify_hook(struct peak_bench_run *r, struct peak_bench_err *be)
{
	struct lp_sweep *w = r->suite_data;
	const struct linpack_solve *sv = &w->last;
	if (is_twin(r))
		return 0;
	w->e->worst_residual = fmax(w->e->worst_residual, sv->scaled_residual);
	w->worst = fmax(w->worst, sv->scaled_residual);
	if (!(sv->scaled_residual <= LINPACK_RESIDUAL_THRESHOLD))
		return peak_bench_fail(be, PEAK_EXIT_FAIL,
				       "residual check failed: scaled residual %.3g > %g at N=%zu, "
				       "%u threads",
				       sv->scaled_residual, LINPACK_RESIDUAL_THRESHOLD, w->s->n,
				       r->nthreads);
	return 0;
}

static double mean_ghz(const struct lp_sweep *w, bool avx2)
{
	struct peak_summary g;
	peak_stats_summarize(avx2 ? w->ghz_avx2 : w->ghz_wide, w->nsolves, &g);
	return g.mean;
}

/* 0 (the micro-architecture's count for that ISA is unknown) becomes NAN: no_peak. */
static double peak_hook(const struct peak_bench_run *r)
{
	const struct lp_sweep *w = r->suite_data;
	if (is_twin(r))
		return peak_cpu_gflops(&w->e->m->uarch, PEAK_ISA_AVX2, PEAK_PREC_DP, w->used,
				       mean_ghz(w, true));
	return w->e->wide == PEAK_ISA_SCALAR
		   ? NAN
		   : peak_cpu_gflops(&w->e->m->uarch, w->e->wide, PEAK_PREC_DP, w->used,
				     mean_ghz(w, false));
}

/* linpack's own flags and context: oversubscribed past the physical cores, contended when
 * OpenBLAS's threads got under 97% of `used` CPUs, the twin marked as the same run. */
static int row_hook(struct peak_bench_run *r, struct peak_result *row, struct peak_output *out,
		    struct peak_bench_err *be)
{
	struct lp_sweep *w = r->suite_data;
	char key[PEAK_CONTEXT_KEY_LEN];
	(void)out;
	(void)be;
	if (r->nthreads > w->cores)
		peak_result_flag(row, "oversubscribed");
	if (is_twin(r)) {
		peak_result_flag(row, "same_run_as_dgesv");
		if (w->steal)
			peak_result_flag(row, "steal");
		if (w->steal && w->steal_pct[0])
			peak_result_flag(row, w->steal_pct);
		snprintf(key, sizeof key, "linpack.t%u.ghz_avx2", r->nthreads);
		peak_context_set_num(w->e->ctx, key, mean_ghz(w, true));
	} else {
		w->steal = strstr(row->flags, "steal") != NULL;
		if (!peak_result_flag_item(row->flags, "steal_pct", w->steal_pct,
					   sizeof w->steal_pct))
			w->steal_pct[0] = '\0';
		snprintf(key, sizeof key, "linpack.t%u.scaled_residual", r->nthreads);
		peak_context_set_num(w->e->ctx, key, w->worst);
		snprintf(key, sizeof key, "linpack.t%u.ghz_%s", r->nthreads,
			 peak_isa_name(w->e->wide));
		peak_context_set_num(w->e->ctx, key, mean_ghz(w, false));
	}
	bool refused; /* its load's clock refused: the plain imul chain clocked the row */
	unsigned lat;
	(void)cpu_clock_chain(is_twin(r) ? CPU_CHAIN_AVX_FP : wide_chain(w->e), w->e->clocks, &lat,
			      &refused);
	if (refused)
		peak_result_flag(row, "clock_refused");
	if (w->share < 0.97) {
		peak_result_flag(row, "contended");
		peak_result_flag_pct(row, "cpu_share_pct", 100 * w->share, false);
	}
	return 0;
}

#define LP_KERNEL(nm, vs)                                                                          \
	{                                                                                          \
		.name = nm, .test = "linpack", .metric = "flops", .unit = "GFLOPS",                \
		.setup = setup_hook, .measure = measure_hook, .verify = verify_hook,               \
		.peak = peak_hook, .row = row_hook, .comparison = vs                               \
	}
/* The twin is a comparison row: the same solve against the AVX2 peak, above 100% on an
 * AVX-512 machine by design, never above_peak. */
static const struct peak_bench_kernel lp_kernels[] = {LP_KERNEL("dgesv", false),
						      LP_KERNEL("dgesv_vs_avx2", true)};

/* The program's state (peak_bench_main owns it). */
struct linpack {
	struct linpack_opts o;
	struct linpack_env e;
	struct linpack_system s;
	struct lp_sweep w;
};

static int lp_check(struct peak_bench_env *env)
{
	struct linpack *lp = env->state;
	const char *hook = getenv("PEAKBENCH_TEST_CORRUPT_SOLVE");
	lp->o.corrupt = hook && *hook && strcmp(hook, "0") != 0;
	lp->e =
	    (struct linpack_env){.si = &env->si, .m = &env->m, .ctx = &env->ctx, .err = &env->err};
	return 0;
}

/* --n against the memory there is; no --threads: OpenBLAS's default thread count. */
static int lp_prepare(struct peak_bench_env *env)
{
	struct linpack_opts *o = &((struct linpack *)env->state)->o;
	if (o->n && linpack_bytes(o->n) > env->si.mem_available_bytes)
		return peak_bench_fail(&env->err, PEAK_EXIT_USAGE,
				       "--n %llu: needs %.1f GB, only %.1f GB available",
				       (unsigned long long)o->n, (double)linpack_bytes(o->n) / 1e9,
				       (double)env->si.mem_available_bytes / 1e9);
	if (o->common.threads.n == 0) {
		o->common.threads.n = 1;
		o->common.threads.v[0] = (uint64_t)openblas_get_num_threads();
	}
	return 0;
}

static int lp_context(struct peak_bench_env *env)
{
	struct linpack *lp = env->state;
	struct linpack_env *e = &lp->e;
	const struct linpack_opts *o = &lp->o;
	/* The peaks are FMA peaks: AVX2's needs FMA3 beside AVX2 (the one ISA check). */
	char reason[160];
	e->wide = cpu_isa_supported(PEAK_ISA_AVX512, reason, sizeof reason) ? PEAK_ISA_AVX512
		  : cpu_isa_supported(PEAK_ISA_AVX2, reason, sizeof reason) &&
			  peak_cpu_can_run(PEAK_FEAT_FMA, reason, sizeof reason)
		      ? PEAK_ISA_AVX2
		      : PEAK_ISA_SCALAR;
	peak_context_set_str(e->ctx, "openblas.corename", openblas_get_corename());
	peak_context_set_str(e->ctx, "openblas.config", openblas_get_config());
	peak_context_set_num(e->ctx, "openblas.num_procs", openblas_get_num_procs());
	peak_context_set_num(e->ctx, "openblas.threads_default", openblas_get_num_threads());
	const char *ct = getenv("OPENBLAS_CORETYPE");
	peak_context_set_str(e->ctx, "openblas.coretype_env", ct ? ct : "(unset)");
	peak_context_set_str(e->ctx, "linpack.gflops_formula", "(2/3 N^3 + 2 N^2) / dgesv time");
	peak_context_set_str(
	    e->ctx, "linpack.residual",
	    "||Ax-b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) N), eps = 2^-53");
	peak_context_set_num(e->ctx, "linpack.residual_threshold", LINPACK_RESIDUAL_THRESHOLD);
	peak_context_set_str(e->ctx, "linpack.theoretical",
			     "dgesv: widest FMA ISA (avx512 here if present) x cores used x GHz "
			     "of the imul chain under that ISA's load after each solve; "
			     "dgesv_vs_avx2: AVX2 peak");
	if (o->corrupt)
		peak_context_set_bool(e->ctx, "linpack.test_corrupt_solve", true);
	return 0;
}

static int lp_sweep(struct peak_bench_env *env)
{
	struct linpack *lp = env->state;
	struct linpack_env *e = &lp->e;
	size_t n = 0;
	if (choose_n(e, &lp->o, &n) != 0)
		return -1;
	if (linpack_alloc(&lp->s, n) != 0)
		return peak_bench_fail(e->err, PEAK_EXIT_FAIL, "--n %zu: cannot allocate %.1f GB",
				       n, (double)linpack_bytes(n) / 1e9);
	lp->w = (struct lp_sweep){.e = e, .o = &lp->o, .s = &lp->s};
	/* The loads' clocks, checked once before the solves (cpu_clock.h); a refused one
	 * leaves its rows at the plain imul chain. */
	const enum cpu_chain chains[] = {wide_chain(e), CPU_CHAIN_AVX_FP};
	cpu_clock_measure_chains(chains, 2, e->clocks);
	cpu_clock_to_context(e->clocks, e->ctx);
	lp->w.cores =
	    e->m->cores.value >= 1 ? (unsigned)e->m->cores.value : peak_team_allowed_cpus();
	const struct peak_bench_suite suite = {
	    .name = "cpu",
	    .kernels = lp_kernels,
	    .nkernels = e->wide == PEAK_ISA_AVX512 ? 2 : 1,
	    .data = &lp->w,
	    .no_warmup = true,
	};
	int rc = peak_bench_main_sweep(env, &suite);
	linpack_free(&lp->s);
	peak_context_set_num(e->ctx, "linpack.scaled_residual_max", e->worst_residual);
	return rc;
}

static void lp_defaults(void *state)
{
	struct linpack_opts *o = state;
	o->common.threads.n = 0; /* not given: OpenBLAS's default thread count */
	o->max_time_s = 20.0;
}

static size_t lp_options(void *state, struct peak_opt *t, size_t max)
{
	struct linpack_opts *o = state;
	const struct peak_opt table[] = {
	    {"n", "N",
	     "matrix order (default: HPL rule sqrt(0.8 x available RAM / 8), capped by "
	     "--max-time)",
	     PEAK_OPT_UINT, &o->n, 1, 1000000, NULL, NULL},
	    {"max-time", "SECONDS", "longest expected solve when N is automatic (default 20)",
	     PEAK_OPT_DOUBLE, &o->max_time_s, 0.001, 86400, NULL, NULL},
	    PEAK_OPTS_COMMON(&o->common),
	};
	return peak_bench_opts_copy(t, max, table, sizeof table / sizeof table[0]);
}

static const struct peak_bench_program linpack = {
    .name = "linpack",
    .usage = "[options]",
    .summary = "GFLOPS of OpenBLAS LAPACKE_dgesv at the HPL problem size, residual checked "
	       "(--threads sets OpenBLAS's threads; --min-time is not used).",
    .state_bytes = sizeof(struct linpack),
    .common_offset = offsetof(struct linpack, o.common),
    .defaults = lp_defaults,
    .options = lp_options,
    .machine = PEAK_BENCH_MACHINE_CPU,
    .check = lp_check,
    .prepare = lp_prepare,
    .context = lp_context,
    .sweep = lp_sweep,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &linpack);
}
