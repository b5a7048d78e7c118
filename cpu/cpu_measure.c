/* cpubench's harness: calibrate, warm up and time one kernel on a thread team, verify
 * every run against the closed form, and measure the clock under that kernel's ISA. */
#include "cpu_measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_clock.h"
#include "peak_bench.h"
#include "peak_diagnose.h"
#include "peak_steal.h"
#include "peak_sysinfo.h"
#include "peak_uarch_probe.h"

#define MAX_THREADS 1024

struct run_ctx {
	const struct cpu_kernel *k;
	struct cpu_consts consts;
	struct cpu_acc *acc; /* one per thread */
	unsigned nthreads;
	struct peak_team *team;
	uint64_t chain_iters;
	uint64_t *chain_out;  /* one per thread */
	enum cpu_chain chain; /* the clock chain: the class's loaded one, or the plain anchor */
	bool corrupt;         /* test hook: damage thread 0's result before verification */
	unsigned latency;     /* cycles per step of the clock chain: the anchor's */
	bool clock_refused;   /* the class's loaded chain was refused: the plain anchor clocks it */
	const struct cpu_measure_opts *o;
	struct cpu_sweep *w; /* the frequency row lands here */
	double ghz[CPU_MAX_REPS];
	/* The probe's class beside the kernel: its loop timed on every thread right after
	 * each repetition (instructions per ns per thread), over that thread's clock. */
	const char *probe_class; /* NULL: the kernel has none (vpmullq) */
	double *thread_rate;     /* one per thread */
	double *thread_ghz;      /* one per thread: the best chain run after the repetition */
	double probe_per_cycle[CPU_MAX_REPS]; /* mean over threads; NAN when not read */
	char err[320];
};

/* One thread's run: its accumulator starts from the closed form's initial value. */
static int run_hook(struct peak_bench_run *b, unsigned idx)
{
	struct run_ctx *r = b->state;
	cpu_acc_init(r->k, &r->acc[idx]);
	cpu_kernel_run(r->k, &r->acc[idx], &r->consts, b->iters);
	return 0;
}

static void teardown_hook(struct peak_bench_run *b)
{
	struct run_ctx *r = b->state;
	if (!r)
		return;
	free(r->chain_out);
	free(r->thread_rate);
	free(r->thread_ghz);
	free(r->acc);
	free(r);
	b->state = NULL;
}

/* The point's state: accumulators and clock chain for this kernel on this team. */
static int setup_hook(struct peak_bench_run *b, struct peak_bench_err *e)
{
	struct cpu_sweep *w = b->suite_data;
	const struct cpu_kernel *k = b->k->data;
	const struct cpu_measure_opts *o = &w->mo;
	unsigned n = b->nthreads;
	struct run_ctx *r = calloc(1, sizeof *r);
	b->state = r;
	if (!r)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	*r = (struct run_ctx){.k = k, .nthreads = n, .team = b->team, .o = o, .w = w};
	cpu_consts_init(k, &r->consts);
	r->corrupt = o->corrupt_kernel && strcmp(o->corrupt_kernel, k->name) == 0;
	r->acc = aligned_alloc(64, n * sizeof *r->acc);
	r->chain_out = calloc(n, sizeof *r->chain_out);
	r->thread_rate = calloc(n, sizeof *r->thread_rate);
	r->thread_ghz = calloc(n, sizeof *r->thread_ghz);
	r->probe_class = o->probe ? cpu_kernel_probe_class(k) : NULL;
	if (!r->acc || !r->chain_out || !r->thread_rate || !r->thread_ghz) {
		teardown_hook(b); /* the harness tears down only what set up */
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	}
	r->chain = cpu_clock_chain(k->chain, o->load_clocks, &r->latency, &r->clock_refused);
	double ghz = o->ghz_hint > 0.1 ? o->ghz_hint : 3.0;
	/* About 3 ms per chain run: long next to the clock's resolution, short next to the
	 * time the core keeps its AVX licence. */
	r->chain_iters = (uint64_t)(0.003 * ghz * 1e9 / (CPU_CHAIN_STEPS * (double)r->latency)) + 1;
	return 0;
}

static int chain_worker(void *arg, unsigned idx, unsigned n)
{
	struct run_ctx *r = arg;
	(void)n;
	r->chain_out[idx] = cpu_chain_run(r->chain, r->chain_iters);
	return 0;
}

/* After every run: each thread's result against the closed form. */
static int verify_hook(struct peak_bench_run *b, struct peak_bench_err *e)
{
	struct run_ctx *r = b->state;
	if (r->corrupt)
		r->acc[0].v.u32[0] ^= 1u;
	for (unsigned i = 0; i < r->nthreads; i++) {
		char why[256];
		if (cpu_acc_verify(r->k, &r->acc[i], &r->consts, b->iters, why, sizeof why) != 0)
			return peak_bench_fail(e, PEAK_EXIT_FAIL,
					       "verification failed on thread %u: %s", i, why);
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
			snprintf(r->err, sizeof r->err, "%s: frequency chain failed", r->k->name);
			return -1;
		}
		uint64_t want = cpu_chain_expected(r->chain, r->chain_iters);
		for (unsigned i = 0; i < r->nthreads; i++) {
			if (r->chain_out[i] != want) {
				snprintf(r->err, sizeof r->err, "%s chain gave %llu, expected %llu",
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
	memcpy(r->thread_ghz, best, r->nthreads * sizeof best[0]);
	return 0;
}

static int probe_worker(void *arg, unsigned idx, unsigned n)
{
	struct run_ctx *r = arg;
	(void)n;
	r->thread_rate[idx] = peak_uarch_probe_rate_now(r->probe_class);
	return 0;
}

/* The probe's figure for the kernel's class at this moment: its loop on every thread
 * (about 5 ms) over each thread's clock just read. A host that shares the core with
 * another tenant for seconds slows kernel and probe alike, so the ratio of the two says
 * what the kernel makes of what the core gave it then. */
static void probe_now(struct run_ctx *r, unsigned rep)
{
	r->probe_per_cycle[rep] = NAN;
	if (!r->probe_class || peak_team_run(r->team, probe_worker, r, NULL, NULL) != 0)
		return;
	double sum = 0;
	for (unsigned i = 0; i < r->nthreads; i++) {
		if (!(r->thread_rate[i] > 0) || !(r->thread_ghz[i] > 0))
			return;
		sum += r->thread_rate[i] / r->thread_ghz[i];
	}
	r->probe_per_cycle[rep] = sum / r->nthreads;
}

static int after_rep_hook(struct peak_bench_run *b, struct peak_bench_err *e)
{
	struct run_ctx *r = b->state;
	if (chain_ghz(r, r->latency, &r->ghz[b->rep]) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "%s", r->err);
	probe_now(r, b->rep);
	return 0;
}

/* cores used x the clock measured under this ISA x the kernel's ops per cycle. */
static double peak_hook(const struct peak_bench_run *b)
{
	const struct run_ctx *r = b->state;
	struct peak_summary ghz;
	peak_stats_summarize(r->ghz, b->nreps, &ghz);
	unsigned cores_used = r->nthreads < r->o->cores ? r->nthreads : r->o->cores;
	return cores_used * ghz.mean * cpu_kernel_ops_per_cycle(r->k, r->o->uarch);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* A row below CPU_CAUSE_EFFICIENCY of its peak says what was measured that explains it:
 * cause=probe_rate_F when the kernel runs at its class's probe loop (vs_probe at least
 * that fraction) and the probe's loop itself reads F per cycle at the row's clock, below
 * the count the peak uses: the unit delivers that, the kernel is not short of it. No
 * cause when the figures do not explain the row (it then stands unexplained). */
#define CPU_CAUSE_EFFICIENCY 0.95
static void cause_flag(struct peak_result *rr, double vs_probe, double probe_per_cycle,
		       double table_per_cycle)
{
	if (!(rr->efficiency < CPU_CAUSE_EFFICIENCY) || !(vs_probe >= CPU_CAUSE_EFFICIENCY) ||
	    !(probe_per_cycle < CPU_CAUSE_EFFICIENCY * table_per_cycle))
		return;
	char flag[40];
	(void)snprintf(flag, sizeof flag, "cause=probe_rate_%.2f", probe_per_cycle);
	peak_result_flag(rr, flag);
}

/* The medians probe_flags read, for the diagnosis (NAN when not read). */
struct probe_medians {
	double vs_probe;    /* the kernel's instructions per cycle over its probe loop's */
	double probe_ratio; /* the probe's per cycle over the table's, at the row's clock */
};

/* The row's flags that say where its figure stands against the probe: vs_probe=F, the
 * median over repetitions of the kernel's instructions per cycle per core over the
 * probe's for its class read right after that repetition (a kernel short of its own
 * loop's limit shows as ours, not the CPU's); probe_short when the probe itself read the
 * class below the count the peak uses (what explains it, if anything, is for the report to
 * say from what the run measured: steal, CPU share, placement); table_corrected when the
 * peak rests on a count the probe corrected. */
static void probe_flags(const struct run_ctx *r, struct peak_result *rr, struct probe_medians *pm)
{
	pm->vs_probe = pm->probe_ratio = NAN;
	const struct cpu_measure_opts *o = r->o;
	/* A count the claim lacked (0) and the probe filled in is not a correction. No latency
	 * enters a clock, so a corrected latency changes no row. */
	double now = cpu_kernel_ops_per_cycle(r->k, o->uarch);
	double claimed = cpu_kernel_ops_per_cycle(r->k, o->uarch_claimed);
	if (isfinite(now) && isfinite(claimed) && now != claimed)
		peak_result_flag(rr, "table_corrected");
	unsigned cores_used = r->nthreads < o->cores ? r->nthreads : o->cores;
	double ratio[CPU_MAX_REPS], probe[CPU_MAX_REPS];
	size_t n = 0;
	for (size_t k = 0; k < rr->nsamples && k < CPU_MAX_REPS && cores_used; k++) {
		double pc =
		    rr->samples[k] / (r->ghz[k] * cores_used) / cpu_kernel_ops_per_instr(r->k);
		if (!(r->probe_per_cycle[k] > 0) || !(pc > 0))
			continue;
		probe[n] = r->probe_per_cycle[k];
		ratio[n++] = pc / r->probe_per_cycle[k];
	}
	if (!n)
		return;
	qsort(ratio, n, sizeof ratio[0], cmp_double);
	qsort(probe, n, sizeof probe[0], cmp_double);
	double med = n % 2 ? ratio[n / 2] : (ratio[n / 2 - 1] + ratio[n / 2]) / 2;
	double med_probe = n % 2 ? probe[n / 2] : (probe[n / 2 - 1] + probe[n / 2]) / 2;
	char flag[32];
	(void)snprintf(flag, sizeof flag, "vs_probe=%.3f", med);
	peak_result_flag(rr, flag);
	double table = now / cpu_kernel_ops_per_instr(r->k);
	pm->vs_probe = med;
	pm->probe_ratio = med_probe / table;
	if (isfinite(table) &&
	    med_probe < table - fmin(PEAK_UNITS_BELOW_TOL * table, PEAK_UNITS_ABS_TOL))
		peak_result_flag(rr, "probe_short");
	cause_flag(rr, med, med_probe, table);
}

/* The anchor clock measured before the sweep (the plain chain beside the loads' readings),
 * or peakinfo's imul clock when no load was read. */
static double anchor_ghz(const struct cpu_measure_opts *o)
{
	double g = 0;
	for (size_t l = 0; o->load_clocks && l < PEAK_FREQ_LOAD_COUNT; l++)
		g = fmax(g, o->load_clocks[l].ghz_scalar);
	return g > 0 ? g : o->ghz_hint;
}

/* A row above its peak names the input that disagrees with its own measurement
 * (peak_diagnose.h): the clock (the row's chain against the anchor), the unit count (the
 * probe's loop at the anchor clock against the table), the width (the kernel against its
 * probe loop: more work per cycle than the loop's instructions allow) and the cores (the
 * threads that ran at once, from their CPU time). */
static void diagnose(const struct peak_bench_run *b, const struct run_ctx *r,
		     struct peak_result *rr, const struct peak_result *fr,
		     const struct probe_medians *pm)
{
	if (!peak_result_has_flag(rr->flags, "above_peak"))
		return;
	const struct cpu_measure_opts *o = r->o;
	double row_ghz = fr->summary.mean, anchor = anchor_ghz(o);
	unsigned cores_used = r->nthreads < o->cores ? r->nthreads : o->cores;
	const struct peak_input in[] = {
	    {"clock_chain", row_ghz, anchor},
	    {"count", 1.0, pm->probe_ratio * row_ghz / anchor},
	    {"width", 1.0, pm->vs_probe},
	    {"cores", (double)cores_used, r->nthreads * b->cpu_share},
	};
	/* A clock found below the anchor is corrected: the rate the row reached proves the core
	 * ran faster than that reading, and the anchor was measured on its own. The row keeps
	 * its cause and says it was corrected; above_peak goes only if the figure allows. */
	if (peak_diagnose_row(rr, in, sizeof in / sizeof in[0]) == 0 && row_ghz > 0) {
		rr->theoretical *= anchor / row_ghz;
		peak_result_flag(rr, "clock_corrected");
		peak_result_finish(rr);
	}
}

#if defined(__aarch64__)
#define INT_CHAIN_FLAG "clock=add_chain" /* peakinfo's add_chain row (peak_freq_arm64.c) */
#else
#define INT_CHAIN_FLAG "clock=imul_chain"
#endif

/* The frequency row beside the rate row, and the clock's own flags on both. The harness
 * records the rate row after this hook, then extra_hook records the frequency row: rate,
 * frequency, rate... */
static int row_hook(struct peak_bench_run *b, struct peak_result *rr, struct peak_output *out,
		    struct peak_bench_err *e)
{
	struct run_ctx *r = b->state;
	struct cpu_sweep *w = r->w;
	(void)out;
	(void)e;
	struct peak_result *fr = &w->freq_row;
	peak_result_init(fr, "cpu", "frequency", r->k->name, "frequency", "GHz");
	fr->threads = r->nthreads;
	memcpy(w->ghz, r->ghz, sizeof w->ghz);
	peak_result_set_samples(fr, w->ghz, b->nreps); /* the rate row's repetitions */
	if (peak_team_oversubscribed(r->team))
		peak_result_flag(fr, "oversubscribed");
	if (strstr(rr->flags, "steal")) { /* the frequency row shares the rate row's run */
		char share[32];
		peak_result_flag(fr, "steal");
		if (peak_result_flag_item(rr->flags, "steal_pct", share, sizeof share))
			peak_result_flag(fr, share);
	}
	if (r->chain != r->k->chain) { /* scalar work, a class with no loaded chain here, or
					* its load's clock refused: the plain anchor clocked it
					* (imul r64 on x86-64, add x on aarch64) */
		peak_result_flag(rr, INT_CHAIN_FLAG);
		peak_result_flag(fr, INT_CHAIN_FLAG);
	}
	if (r->clock_refused) { /* the reason is the context's cpu.clock_ghz.<load> */
		peak_result_flag(rr, "clock_refused");
		peak_result_flag(fr, "clock_refused");
	}
	enum peak_freq_load load = cpu_chain_load(r->chain);
	if (load != PEAK_FREQ_LOAD_NONE) { /* the clock under the row's own class (cpu_clock.h) */
		char clock[48];
		(void)snprintf(clock, sizeof clock, "clock=%s", peak_freq_load_name(load));
		peak_result_flag(rr, clock);
		peak_result_flag(fr, clock);
	}
	peak_result_finish(fr);
	struct probe_medians pm;
	probe_flags(r, rr, &pm);
	diagnose(b, r, rr, fr, &pm);
	return 0;
}

/* After the rate row: its frequency row. */
static int extra_hook(struct peak_bench_run *b, const struct peak_result *rate,
		      struct peak_output *out, struct peak_bench_err *e)
{
	const struct run_ctx *r = b->state;
	(void)rate;
	if (peak_output_record(out, &r->w->freq_row) != 0)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	return 0;
}

/* A kernel this CPU cannot run (its ISA, or no such instruction) is a row flagged
 * unsupported with the reason. */
static bool supported_hook(const struct peak_bench_run *r, char *why, size_t why_len)
{
	return cpu_kernel_supported(r->k->data, why, why_len);
}

void cpu_bench_kernel(const struct cpu_kernel *k, struct peak_bench_kernel *bk)
{
	bool flops = k->test == CPU_TEST_FLOPS;
	*bk = (struct peak_bench_kernel){.name = k->name,
					 .test = flops ? "flops" : "iops",
					 .metric = flops ? "flops" : "iops_int",
					 .unit = flops ? "GFLOPS" : "GIOPS",
					 .work_per_iter = cpu_kernel_ops_per_iter(k),
					 .supported = supported_hook,
					 .setup = setup_hook,
					 .run = run_hook,
					 .verify = verify_hook,
					 .after_rep = after_rep_hook,
					 .teardown = teardown_hook,
					 .peak = peak_hook,
					 .row = row_hook,
					 .data = (void *)(uintptr_t)k,
					 .extra_rows = extra_hook};
}
