/* cpubench's harness: calibrate, warm up and time one kernel on a thread team, verify
 * every run against the closed form, and measure the clock under that kernel's ISA. */
#include "cpu_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_calib.h"
#include "peak_steal.h"
#include "peak_sysinfo.h"

#define MAX_THREADS 1024

struct run_ctx {
	const struct cpu_kernel *k;
	struct cpu_consts consts;
	struct cpu_acc *acc; /* one per thread */
	unsigned nthreads;
	struct peak_team *team;
	uint64_t iters;
	uint64_t chain_iters;
	uint64_t *chain_out; /* one per thread */
	enum cpu_chain chain; /* the kernel's ISA chain, or imul when its latency is unknown */
	bool corrupt;        /* test hook: damage thread 0's result before verification */
	uint64_t *cpu_ns;    /* one per thread: CPU time the thread got during its run */
	double cpu_share;    /* lowest CPU time / elapsed time of any thread in the last run */
	char *err;
	size_t err_len;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int kernel_worker(void *arg, unsigned idx, unsigned n)
{
	struct run_ctx *r = arg;
	(void)n;
	uint64_t t0 = thread_cpu_ns();
	r->k->run(&r->acc[idx], &r->consts, r->iters);
	r->cpu_ns[idx] = thread_cpu_ns() - t0;
	return 0;
}

static int chain_worker(void *arg, unsigned idx, unsigned n)
{
	struct run_ctx *r = arg;
	(void)n;
	r->chain_out[idx] = cpu_chain_run(r->chain, r->chain_iters);
	return 0;
}

/* One timed, verified run of `iters` iterations on every thread. */
static int timed_run(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	struct run_ctx *r = arg;
	for (unsigned i = 0; i < r->nthreads; i++)
		cpu_acc_init(r->k, &r->acc[i]);
	r->iters = iters;
	uint64_t thread_ns[MAX_THREADS];
	if (peak_team_run(r->team, kernel_worker, r, elapsed_ns, thread_ns) != 0) {
		snprintf(r->err, r->err_len, "%s: a worker failed", r->k->name);
		return -1;
	}
	/* Another process on our CPUs (or a sibling thread when oversubscribed) takes time
	 * the wall clock still counts: the row is flagged "contended" below. */
	r->cpu_share = 1.0;
	for (unsigned i = 0; i < r->nthreads; i++)
		if (thread_ns[i] > 0)
			r->cpu_share =
			    fmin(r->cpu_share, (double)r->cpu_ns[i] / (double)thread_ns[i]);
	if (r->corrupt)
		r->acc[0].v.u32[0] ^= 1u;
	for (unsigned i = 0; i < r->nthreads; i++) {
		char why[256];
		if (cpu_acc_verify(r->k, &r->acc[i], &r->consts, iters, why, sizeof why) != 0) {
			snprintf(r->err, r->err_len, "verification failed on thread %u: %s", i,
				 why);
			return -1;
		}
	}
	return 0;
}

/* The clock under this ISA's load, measured right after a repetition while the core still
 * runs at that ISA's licence: every thread runs the dependent chain of the kernel's ISA
 * (CPU_CHAIN_*), best of five short runs per thread (a preempted run only looks slower),
 * mean over threads. */
static int chain_ghz(struct run_ctx *r, unsigned latency, double *ghz)
{
	uint64_t thread_ns[MAX_THREADS];
	double best[MAX_THREADS] = {0};
	for (int t = 0; t < 5; t++) {
		if (peak_team_run(r->team, chain_worker, r, NULL, thread_ns) != 0) {
			snprintf(r->err, r->err_len, "%s: frequency chain failed", r->k->name);
			return -1;
		}
		uint64_t want = cpu_chain_expected(r->chain, r->chain_iters);
		for (unsigned i = 0; i < r->nthreads; i++) {
			if (r->chain_out[i] != want) {
				snprintf(r->err, r->err_len, "%s chain gave %llu, expected %llu",
					 cpu_chain_name(r->chain),
					 (unsigned long long)r->chain_out[i],
					 (unsigned long long)want);
				return -1;
			}
			double cycles = (double)r->chain_iters * CPU_CHAIN_STEPS * latency;
			double g = thread_ns[i] ? cycles / (double)thread_ns[i] : 0;
			if (g > best[i])
				best[i] = g;
		}
	}
	/* Oversubscribed, threads share cores and a run is stretched by the others' time
	 * slices: the fastest thread (one that ran undisturbed) is the clock then. */
	bool shared = peak_team_oversubscribed(r->team);
	double sum = 0, max = 0;
	for (unsigned i = 0; i < r->nthreads; i++) {
		sum += best[i];
		if (best[i] > max)
			max = best[i];
	}
	*ghz = shared ? max : sum / r->nthreads;
	return 0;
}

static void fill_rows(const struct cpu_kernel *k, const struct cpu_measure_opts *o,
		      unsigned nthreads, struct peak_team *team, double steal_pct, double cpu_share,
		      bool imul_clock, struct cpu_point *p)
{
	bool flops = k->test == CPU_TEST_FLOPS;
	struct peak_result *rr = &p->rate_row, *fr = &p->freq_row;

	peak_result_init(rr, "cpu", flops ? "flops" : "iops", k->name, flops ? "flops" : "iops_int",
			 flops ? "GFLOPS" : "GIOPS");
	peak_result_init(fr, "cpu", "frequency", k->name, "frequency", "GHz");
	rr->threads = fr->threads = nthreads;
	peak_result_set_samples(rr, p->rate, o->reps);
	peak_result_set_samples(fr, p->ghz, o->reps);

	unsigned cores_used = nthreads < o->cores ? nthreads : o->cores;
	double per_cycle = cpu_kernel_ops_per_cycle(k, o->uarch);
	rr->theoretical = cores_used * fr->summary.mean * per_cycle;
	if (!isfinite(rr->theoretical) || !(rr->theoretical > 0)) {
		rr->theoretical = NAN; /* a unit count of this ISA is unknown */
		peak_result_flag(rr, "no_peak");
	}
	if (peak_team_oversubscribed(team)) {
		peak_result_flag(rr, "oversubscribed");
		peak_result_flag(fr, "oversubscribed");
	}
	if (!peak_team_pinned(team))
		peak_result_flag(rr, "unpinned");
	if (peak_steal_flag(steal_pct, rr))
		peak_result_flag(fr, "steal");
	if (cpu_share < 0.97 && !peak_team_oversubscribed(team))
		peak_result_flag(rr, "contended");
	if (imul_clock) { /* the ISA's FP add latency is unknown: imul chain clocked it */
		peak_result_flag(rr, "clock=imul_chain");
		peak_result_flag(fr, "clock=imul_chain");
	}
	peak_result_finish(rr);
	peak_result_finish(fr);
}

int cpu_measure(const struct cpu_kernel *k, struct peak_team *team,
		const struct cpu_measure_opts *o, struct cpu_point *p)
{
	unsigned n = peak_team_size(team);
	struct run_ctx r = {
	    .k = k, .nthreads = n, .team = team, .err = p->err, .err_len = sizeof p->err};
	struct peak_steal steal;
	int rc = -1;

	p->err[0] = '\0';
	if (n == 0 || n > MAX_THREADS || o->reps == 0 || o->reps > CPU_MAX_REPS) {
		snprintf(p->err, sizeof p->err, "bad thread count or repetitions");
		return -1;
	}
	cpu_consts_init(k, &r.consts);
	r.corrupt = o->corrupt_kernel && strcmp(o->corrupt_kernel, k->name) == 0;
	r.acc = aligned_alloc(64, n * sizeof *r.acc);
	r.chain_out = calloc(n, sizeof *r.chain_out);
	r.cpu_ns = calloc(n, sizeof *r.cpu_ns);
	if (!r.acc || !r.chain_out || !r.cpu_ns) {
		snprintf(p->err, sizeof p->err, "out of memory");
		goto out;
	}
	unsigned latency;
	r.chain = cpu_chain_clock(k->chain, o->uarch, &latency);
	double ghz = o->ghz_hint > 0.1 ? o->ghz_hint : 3.0;
	/* About 3 ms per chain run: long next to the clock's resolution, short next to the
	 * time the core keeps its AVX licence. */
	r.chain_iters = (uint64_t)(0.003 * ghz * 1e9 / (CPU_CHAIN_STEPS * (double)latency)) + 1;

	peak_steal_begin(&steal);
	if (peak_calib_iterations(timed_run, &r, o->min_time_s, 16, UINT64_C(1) << 40, &p->iters) !=
	    0)
		goto out;
	uint64_t ns = 0;
	if (timed_run(&r, p->iters, &ns) != 0) /* warm-up */
		goto out;
	double ops = cpu_kernel_ops_per_iter(k) * (double)p->iters * n, share = 1.0;
	for (unsigned i = 0; i < o->reps; i++) {
		if (timed_run(&r, p->iters, &ns) != 0)
			goto out;
		share = fmin(share, r.cpu_share);
		p->rate[i] = ns ? ops / (double)ns : 0; /* ops per ns = G ops per s */
		if (chain_ghz(&r, latency, &p->ghz[i]) != 0)
			goto out;
	}
	double steal_pct = peak_steal_pct(&steal);
	p->cpu_share = share;
	fill_rows(k, o, n, team, steal_pct, share, r.chain != k->chain, p);
	rc = 0;
out:
	free(r.cpu_ns);
	free(r.chain_out);
	free(r.acc);
	return rc;
}
