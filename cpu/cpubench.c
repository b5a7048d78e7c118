/* cpubench: GFLOPS and GIOPS of register-resident kernels per ISA, precision and thread
 * count, each verified against a closed form and held against the theoretical peak
 * measured under that ISA's clock. Methodology: docs/cpu.md. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_clock.h"
#include "cpu_kernels.h"
#include "cpu_measure.h"
#include "peak_bench.h"
#include "peak_bench_main.h"
#include "peak_context.h"
#include "peak_formats.h"
#include "peak_exit.h"
#include "peak_opts.h"
#include "peak_path.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

#define ISA_BIT(i)   (1u << (i))
#define ISA_ALL_BITS (ISA_BIT(PEAK_ISA_COUNT) - 1u)

struct isa_sel {
	unsigned named; /* ISAs asked for by name: unsupported ones are an error (exit 3) */
	bool all;       /* every ISA; unsupported ones are reported and skipped */
	bool best;      /* the widest ISA this CPU runs */
};

struct cpubench_opts {
	struct peak_common_opts common;
	unsigned tests; /* bit per enum cpu_test */
	struct isa_sel isa;
	unsigned precisions; /* bit per enum cpu_elem (CPU_F32, CPU_F64) */
	unsigned lanes;      /* bit per enum cpu_elem (CPU_I32, CPU_I64) */
	/* The number-format kernels (cpu_fmt.c) to run, bit per enum peak_number_format (FP16,
	 * BF16, INT8); named: --number-formats was given (else they run with --isa all). */
	struct fmt_sel {
		unsigned mask;
		bool named;
	} formats;
};

/* The program's state (peak_bench_main owns it): options, the selected kernels as harness
 * kernels, the sweep's state. */
struct cpubench {
	struct cpubench_opts o;
	size_t nk;
	struct peak_bench_kernel bks[64];
	struct cpu_sweep w;
	struct peak_freq_load_clock clocks[PEAK_FREQ_LOAD_COUNT]; /* cpu_clock.h */
};

/* Comma list of names into a bit mask (bit i for names[i]); "" names are skipped. */
static int parse_names(const char *arg, const char *const *names, size_t n, unsigned *mask,
		       char *err, size_t err_len)
{
	char allowed[512] = "";
	size_t used = 0;
	/* peak_fmt stops at the end (a cut list ends in "..."); snprintf's count would have
	 * run used past the buffer. */
	for (size_t i = 0; i < n && used + 1 < sizeof allowed; i++)
		if (names[i][0]) {
			(void)peak_fmt(allowed + used, sizeof allowed - used, "%s%s",
				       used ? ", " : "", names[i]);
			used += strlen(allowed + used);
		}
	*mask = 0;
	if (!*arg) {
		snprintf(err, err_len, "empty list (choose from %s)", allowed);
		return -1;
	}
	for (const char *p = arg;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		size_t i = 0;
		while (i < n &&
		       !(names[i][0] && strlen(names[i]) == len && !strncmp(names[i], p, len)))
			i++;
		if (i == n) {
			snprintf(err, err_len, "unknown value '%.*s' (choose from %s)", (int)len, p,
				 allowed);
			return -1;
		}
		*mask |= 1u << i;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int cb_test(const char *arg, void *dest, char *err, size_t err_len)
{
	static const char *const names[] = {"flops", "iops"};
	return parse_names(arg, names, 2, dest, err, err_len);
}

static int cb_precision(const char *arg, void *dest, char *err, size_t err_len)
{
	static const char *const names[] = {"sp", "dp"}; /* CPU_F32, CPU_F64 */
	return parse_names(arg, names, 2, dest, err, err_len);
}

static int cb_lanes(const char *arg, void *dest, char *err, size_t err_len)
{
	static const char *const names[] = {"", "", "32", "64"}; /* CPU_I32, CPU_I64 */
	return parse_names(arg, names, 4, dest, err, err_len);
}

static int cb_formats(const char *arg, void *dest, char *err, size_t err_len)
{
	/* enum peak_number_format order; fp64 and fp32 are the ISA kernels' (--precision) */
	static const char *const names[] = {"", "", "fp16", "bf16", "int8", "none"};
	unsigned mask;
	if (parse_names(arg, names, 6, &mask, err, err_len) != 0)
		return -1;
	struct fmt_sel *s = dest;
	s->mask = mask & ~(1u << 5);
	s->named = true;
	return 0;
}

static int cb_isa(const char *arg, void *dest, char *err, size_t err_len)
{
	/* The ISA names in enum order (peak_isa.h: aarch64 builds add neon), then all, best. */
	const char *names[PEAK_ISA_COUNT + 2];
	for (int i = 0; i < PEAK_ISA_COUNT; i++)
		names[i] = peak_isa_name((enum peak_isa)i);
	names[PEAK_ISA_COUNT] = "all";
	names[PEAK_ISA_COUNT + 1] = "best";
	struct isa_sel *s = dest;
	unsigned mask;
	if (parse_names(arg, names, PEAK_ISA_COUNT + 2, &mask, err, err_len) != 0)
		return -1;
	s->named = mask & ISA_ALL_BITS;
	s->all = mask & ISA_BIT(PEAK_ISA_COUNT);
	s->best = mask & ISA_BIT(PEAK_ISA_COUNT + 1);
	return 0;
}

/* The ISAs to run. Exit 3 (e says why) for an unsupported named ISA; with all, every ISA
 * (the kernels this CPU cannot run are rows flagged unsupported). */
static int resolve_isas(const struct cpubench_opts *o, unsigned *isas, struct peak_bench_err *e)
{
	char reason[160];
	*isas = o->isa.named;
	for (int i = 0; i < PEAK_ISA_COUNT; i++) {
		if (!(o->isa.named & ISA_BIT(i)) ||
		    cpu_isa_supported((enum peak_isa)i, reason, sizeof reason))
			continue;
		return peak_bench_fail(e, PEAK_EXIT_UNSUPPORTED, "--isa %s: not supported here: %s",
				       peak_isa_name((enum peak_isa)i), reason);
	}
	if (o->isa.best) {
		for (int i = PEAK_ISA_COUNT - 1; i >= 0; i--)
			if (cpu_isa_supported((enum peak_isa)i, reason, sizeof reason)) {
				*isas |= ISA_BIT(i);
				break;
			}
	}
	if (o->isa.all)
		*isas = ISA_ALL_BITS;
	return 0;
}

static bool selected(const struct cpubench_opts *o, unsigned isas, const struct cpu_kernel *k)
{
	if (cpu_fmt_kind(k)) /* by format: with --isa all, or as --number-formats names them */
		return (o->tests & (1u << k->test)) && (o->isa.all || o->formats.named) &&
		       (o->formats.mask & (1u << cpu_fmt_format(k)));
	if (!(o->tests & (1u << k->test)) || !(isas & ISA_BIT(k->isa)))
		return false;
	return (k->test == CPU_TEST_FLOPS ? o->precisions : o->lanes) & (1u << k->elem);
}

/* check: the selected kernels in table order, each a harness kernel (one this CPU cannot
 * run is its unsupported row); none selected is exit 2, none that runs here exit 3. */
static int cpu_check(struct peak_bench_env *env)
{
	struct cpubench *b = env->state;
	unsigned isas;
	char reason[160] = "", first[160] = "";
	size_t runs = 0;
	if (resolve_isas(&b->o, &isas, &env->err) != 0)
		return -1;
	for (size_t i = 0; i < cpu_nkernels && b->nk < 64; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		if (!selected(&b->o, isas, k))
			continue;
		cpu_bench_kernel(k, &b->bks[b->nk++]);
		if (cpu_kernel_supported(k, reason, sizeof reason))
			runs++;
		else if (!first[0])
			(void)snprintf(first, sizeof first, "%s: %s", k->name, reason);
	}
	if (b->nk == 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_USAGE,
				       "--test: no kernel matches this --test/--isa/--precision/"
				       "--lanes selection (avx has flops kernels only)");
	if (runs == 0)
		return peak_bench_fail(&env->err, PEAK_EXIT_UNSUPPORTED,
				       "--isa: no selected kernel runs here (%s)", first);
	return 0;
}

static int cpu_context(struct peak_bench_env *env)
{
	struct peak_context *ctx = &env->ctx;
	const struct peak_machine *m = &env->m;
	struct cpubench *b = env->state;
	const struct cpu_kernel *ks[64];
	for (size_t i = 0; i < b->nk; i++)
		ks[i] = b->bks[i].data;
	cpu_clock_measure(ks, b->nk, b->clocks);
	cpu_clock_to_context(b->clocks, ctx);
	peak_context_set_str(
	    ctx, "cpubench.frequency_method",
#if defined(__aarch64__)
	    "after each repetition every thread runs a dependent chain (fadd d for flops, "
	    "add x for iops), best of 5 runs of ~3 ms; GHz = steps x latency / time");
#else
	    "after each repetition every thread runs a dependent chain of its row's "
	    "ISA (addsd, addpd, vaddpd ymm for add+mul; imul r64, paddq, vpaddq "
	    "ymm/zmm for integer adds; for FMA and vpmulld rows on zmm the imul r64 "
	    "chain with that class's instructions between its links, once checked: "
	    "cpu.clock_ghz.*), best of 5 runs of ~3 ms; GHz = steps x latency / time");
#endif
	/* 0 = unknown: that ISA's rows are clocked by the imul chain instead. */
	peak_context_set_num(ctx, "cpubench.fp_add_latency_cycles", m->uarch.fp_add_latency);
	peak_context_set_num(ctx, "cpubench.fp_add256_latency_cycles", m->uarch.fp_add256_latency);
	peak_context_set_num(ctx, "cpubench.fp_add512_latency_cycles", m->uarch.fp_add512_latency);
	peak_context_set_num(ctx, "cpubench.imul_latency_cycles", m->uarch.imul_latency);
	peak_context_set_num(ctx, "cpubench.chains_vector", CPU_NACC);
	peak_context_set_num(ctx, "cpubench.chains_gpr", CPU_NACC_GPR);
	peak_context_set_str(ctx, "cpubench.verification",
			     "every run: fp lanes back at their start (identity pairs), integer "
			     "lanes equal to the closed form after n iterations");
	const char *hook = getenv("PEAKBENCH_TEST_PRETEND_MISSING");
	if (hook && *hook)
		peak_context_set_str(ctx, "cpubench.test_pretend_missing", hook);
	hook = getenv("PEAKBENCH_TEST_CORRUPT_KERNEL");
	if (hook && *hook)
		peak_context_set_str(ctx, "cpubench.test_corrupt_kernel", hook);
	return 0;
}

/* The sweep: the selected kernels per --threads count, on the harness (pinned teams); each
 * rate row followed by its frequency row. */
static int cpu_sweep(struct peak_bench_env *env)
{
	struct cpubench *b = env->state;
	const struct peak_machine *m = &env->m;
	b->w.mo = (struct cpu_measure_opts){
	    .min_time_s = b->o.common.min_time_s,
	    .reps = (unsigned)b->o.common.reps,
	    .cores = m->cores.value >= 1 ? (unsigned)m->cores.value : peak_team_allowed_cpus(),
	    .uarch = &m->uarch,
	    .uarch_claimed = &m->uarch_claimed,
	    .probe = m->probed ? &m->probe : NULL,
	    .load_clocks = b->clocks,
	    .ghz_hint = m->ghz.value,
	    .corrupt_kernel = getenv("PEAKBENCH_TEST_CORRUPT_KERNEL"),
	};
	const struct peak_bench_suite s = {.name = "cpu",
					   .kernels = b->bks,
					   .nkernels = b->nk,
					   .data = &b->w,
					   .pin = true,
					   .start_iters = 16,
					   .max_iters = UINT64_C(1) << 40};
	return peak_bench_main_sweep(env, &s);
}

static void cpu_defaults(void *state)
{
	struct cpubench_opts *o = state;
	o->tests = 3u;
	o->isa.all = true;
	o->precisions = (1u << CPU_F32) | (1u << CPU_F64);
	o->lanes = (1u << CPU_I32) | (1u << CPU_I64);
	o->formats.mask = (1u << PEAK_FMT_FP16) | (1u << PEAK_FMT_BF16) | (1u << PEAK_FMT_INT8);
}

static size_t cpu_options(void *state, struct peak_opt *t, size_t max)
{
	struct cpubench_opts *o = state;
	const struct peak_opt table[] = {
	    {"test", "LIST", "flops, iops (default flops,iops)", PEAK_OPT_CALLBACK, &o->tests, 0,
	     0, NULL, cb_test},
	    {"isa", "LIST", "scalar, sse, avx, avx2, avx512, all or best (default all)",
	     PEAK_OPT_CALLBACK, &o->isa, 0, 0, NULL, cb_isa},
	    {"precision", "LIST", "flops kernels: sp, dp (default sp,dp)", PEAK_OPT_CALLBACK,
	     &o->precisions, 0, 0, NULL, cb_precision},
	    {"lanes", "LIST", "iops kernels: integer lane bits 32, 64 (default 32,64)",
	     PEAK_OPT_CALLBACK, &o->lanes, 0, 0, NULL, cb_lanes},
	    {"number-formats", "LIST",
	     "fp16, bf16, int8 or none: the format kernels (AVX512-FP16, AVX512_BF16, VNNI, AMX) to "
	     "run (default: all three with --isa all)",
	     PEAK_OPT_CALLBACK, &o->formats, 0, 0, NULL, cb_formats},
	    PEAK_OPTS_COMMON(&o->common),
	};
	return peak_bench_opts_copy(t, max, table, sizeof table / sizeof table[0]);
}

static const struct peak_bench_program cpubench = {
    .name = "cpubench",
    .usage = "[options]",
    .summary = "GFLOPS and GIOPS of verified register-resident kernels per ISA, precision "
	       "and thread count, against the peak at the clock measured under each ISA.",
    .state_bytes = sizeof(struct cpubench),
    .common_offset = offsetof(struct cpubench, o.common),
    .defaults = cpu_defaults,
    .options = cpu_options,
    .machine = PEAK_BENCH_MACHINE_CPU,
    .check = cpu_check,
    .context = cpu_context,
    .sweep = cpu_sweep,
};

int main(int argc, char **argv)
{
	return peak_bench_main(argc, argv, &cpubench);
}
