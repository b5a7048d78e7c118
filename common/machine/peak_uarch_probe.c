/* The probe (see peak_uarch_probe.h): libpeak's instruction-class loops and three latency
 * chains, timed in passes against the imul-chain clock; each pass's figures kept. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_calib.h"
#include "peak_freq.h"
#include "peak_isa.h"
#include "peak_loops.h"
#include "peak_time.h"
#include "peak_uarch_probe.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#endif

/* The throughput classes run the loops cpubench runs (peak_loops.h), so a kernel and its
 * class are one definition. The registers start at zero: 0 + 0 and 0 * 0 never meet a
 * denormal, and no core skips work on zero operands. The latency chains are libpeak's
 * peak_loop_lat_* (twelve dependent FP adds on register 0 per block). */
#define LAT_REPS PEAK_LOOP_LAT_REPS
struct probe_class {
	peak_loop_fn loop;
	double per_iter;      /* instructions of the class per loop iteration */
	enum peak_isa isa;    /* what must be supported to run it */
	unsigned need;        /* PEAK_FEAT_* beyond the ISA's (pmulld: SSE4.1) */
	size_t offset;        /* where its figure goes in struct peak_uarch_rates */
	bool latency;         /* a dependent chain: the figure is cycles per instruction */
	/* The load whose clock the class runs at (peak_freq_load.h): its own instructions',
	 * or vfmadd zmm's for addmul512 (vmulpd zmm runs on the FMA units, and Intel's
	 * manual counts FP multiplies among the instructions that lower the clock). */
	enum peak_freq_load load;
	unsigned fmt_need;    /* x86 number formats: PEAK_FMTF_* (peak_formats_x86.h) */
};

/* Instructions of the class per iteration: a block is 24 (vector) or 20 (GPR). */
#define V_ALL (24.0 * PEAK_LOOP_REPS)
#define G_ALL (20.0 * PEAK_LOOP_REPS)
#define LAT   (12.0 * LAT_REPS)
#define AT(field) offsetof(struct peak_uarch_rates, field)
static const struct probe_class classes[] = {
    {peak_loop_avx2_dp_fma, V_ALL, PEAK_ISA_AVX2, 0, AT(fma256), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx512_dp_fma, V_ALL, PEAK_ISA_AVX512, 0, AT(fma512), false,
     PEAK_FREQ_LOAD_AVX512_FMA, 0},
    {peak_loop_sse_dp_addmul, V_ALL, PEAK_ISA_SSE, 0, AT(addmul128), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx_dp_addmul, V_ALL, PEAK_ISA_AVX, 0, AT(addmul256), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx512_dp_addmul, V_ALL, PEAK_ISA_AVX512, 0, AT(addmul512), false,
     PEAK_FREQ_LOAD_AVX512_FMA, 0},
    {peak_loop_scalar_i64_mul, G_ALL, PEAK_ISA_SCALAR, 0, AT(imul64), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_scalar_i64_add, G_ALL, PEAK_ISA_SCALAR, 0, AT(int_add), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sse_i32_add, V_ALL, PEAK_ISA_SSE, 0, AT(vint_add128), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx2_i32_add, V_ALL, PEAK_ISA_AVX2, 0, AT(vint_add256), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx512_i32_add, V_ALL, PEAK_ISA_AVX512, 0, AT(vint_add512), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sse_i32_mul, V_ALL, PEAK_ISA_SSE, PEAK_FEAT_SSE41, AT(vint_mul128), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx2_i32_mul, V_ALL, PEAK_ISA_AVX2, 0, AT(vint_mul256), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_avx512_i32_mul, V_ALL, PEAK_ISA_AVX512, 0, AT(vint_mul512), false,
     PEAK_FREQ_LOAD_AVX512_IMUL, 0},
    {peak_loop_lat_fp64, LAT, PEAK_ISA_SCALAR, 0, AT(fadd_lat64), true, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_lat_fp256, LAT, PEAK_ISA_AVX, 0, AT(fadd_lat256), true, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_lat_fp512, LAT, PEAK_ISA_AVX512, 0, AT(fadd_lat512), true, PEAK_FREQ_LOAD_NONE, 0},
#if defined(__x86_64__)
    /* The number formats: cpubench's format rows run these very loops. */
    {peak_loop_avx512_fp16_fma, V_ALL, PEAK_ISA_AVX512, 0, AT(fp16_fma512), false,
     PEAK_FREQ_LOAD_AVX512_FP16, PEAK_FMTF_AVX512_FP16},
    {peak_loop_avx512_bf16_dot, V_ALL, PEAK_ISA_AVX512, 0, AT(bf16_dot512), false,
     PEAK_FREQ_LOAD_AVX512_BF16, PEAK_FMTF_AVX512_BF16},
    {peak_loop_avx512_bf16_dot_ymm, V_ALL, PEAK_ISA_AVX512, 0, AT(bf16_dot256), false,
     PEAK_FREQ_LOAD_NONE, PEAK_FMTF_AVX512_BF16 | PEAK_FMTF_AVX512VL},
    {peak_loop_avx512_int8_dot, V_ALL, PEAK_ISA_AVX512, 0, AT(vnni512), false,
     PEAK_FREQ_LOAD_AVX512_VNNI, PEAK_FMTF_AVX512_VNNI},
    {peak_loop_avx512_int8_dot_ymm, V_ALL, PEAK_ISA_AVX512, 0, AT(vnni256), false,
     PEAK_FREQ_LOAD_NONE, PEAK_FMTF_AVX512_VNNI | PEAK_FMTF_AVX512VL},
    {peak_loop_avxvnni_int8_dot, V_ALL, PEAK_ISA_AVX2, 0, AT(avxvnni), false,
     PEAK_FREQ_LOAD_NONE, PEAK_FMTF_AVX_VNNI},
#endif
#if defined(__aarch64__)
    {peak_loop_neon_dp_fma, V_ALL, PEAK_ISA_NEON, 0, AT(neon_fma), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_neon_dp_addmul, V_ALL, PEAK_ISA_NEON, 0, AT(neon_addmul), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_neon_i32_add, V_ALL, PEAK_ISA_NEON, 0, AT(neon_vadd), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_neon_i32_mul, V_ALL, PEAK_ISA_NEON, 0, AT(neon_vmul), false, PEAK_FREQ_LOAD_NONE, 0},
    /* SVE at this process's vector length (peak_loops_sve.c): the loops cpubench's sve_*
     * rows run, one class per pipe kind (fp32 and fp64 share the FP pipes, the 32-bit lane
     * add the 64-bit one; the 64-bit lane multiply is its own: two micro-ops on Neoverse). */
    {peak_loop_sve_dp_fma, V_ALL, PEAK_ISA_SVE, 0, AT(sve_fma), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sve_dp_addmul, V_ALL, PEAK_ISA_SVE, 0, AT(sve_addmul), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sve_i32_add, V_ALL, PEAK_ISA_SVE, 0, AT(sve_vadd), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sve_i32_mul, V_ALL, PEAK_ISA_SVE, 0, AT(sve_vmul), false, PEAK_FREQ_LOAD_NONE, 0},
    {peak_loop_sve_i64_mul, V_ALL, PEAK_ISA_SVE, 0, AT(sve_vmul64), false, PEAK_FREQ_LOAD_NONE, 0},
#endif
};
#define NCLASSES (sizeof classes / sizeof classes[0])

/* The class's format extension runs here (always, for a class that needs none). */
static bool fmt_runs(const struct probe_class *c)
{
#if defined(__x86_64__)
	return !c->fmt_need || peak_fmt_can_run(c->fmt_need, NULL, 0);
#else
	(void)c;
	return true;
#endif
}

static double *figure_at(struct peak_uarch_rates *r, size_t offset)
{
	return (double *)(void *)((char *)r + offset);
}

static bool class_is_sve(const struct probe_class *c)
{
#if defined(__aarch64__)
	return c->isa == PEAK_ISA_SVE;
#else
	(void)c;
	return false;
#endif
}

/* The SVE vector length the SVE loops run at here: 0 without SVE, or when the length is
 * above what struct peak_loop_regs holds (the loops would read past it). */
static unsigned sve_bits_here(const struct peak_sysinfo *si)
{
#if defined(__aarch64__)
	if (!peak_isa_supported(si, PEAK_ISA_SVE, NULL, 0))
		return 0;
	unsigned vl = peak_isa_sve_vl_bits();
	return vl && vl <= PEAK_LOOP_SVE_MAX_BITS ? vl : 0;
#else
	(void)si;
	return 0;
#endif
}

static uint64_t time_loop(peak_loop_fn loop, uint64_t iters)
{
	static _Thread_local struct peak_loop_regs zero; /* stays zero: 0 op 0 is 0 */
	uint64_t t0 = peak_time_now_ns();
	loop(&zero, iters);
	return peak_time_now_ns() - t0;
}

static int calib_run(void *arg, uint64_t iters, uint64_t *elapsed_ns)
{
	*elapsed_ns = time_loop(((const struct probe_class *)arg)->loop, iters);
	return 0;
}

/* One class's loop, sized to last about 1 ms (libpeak's calibration): iterations per run. */
static uint64_t size_loop(const struct probe_class *c)
{
	uint64_t iters = 0;
	if (peak_calib_iterations(calib_run, (void *)(uintptr_t)c, 0.001, 16, UINT64_C(1) << 36,
				  &iters) != 0)
		return 0;
	return iters;
}

/* The clock a class's figure divides by, read right after its loop: the imul chain under
 * the class's own load when that load's clock was checked (Intel's cores run dense
 * 256/512-bit FMAs and multiplies at a lower clock, and a plain chain after the loop reads
 * the scalar one: 1.85 FMA-512 a cycle where the core does 2 at its AVX-512 clock), else
 * the plain imul chain. */
static double class_ghz(const struct probe_class *c, const struct peak_uarch_rates *best)
{
	if (c->load != PEAK_FREQ_LOAD_NONE && best->load_ghz[c->load] > 0)
		return peak_freq_load_ghz(c->load, PEAK_FREQ_FULL, 0.0002, 1);
	return peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.0002, 1, NULL);
}

/* One pass of one class: three runs, each followed at once by its clock (class_ghz). The
 * best loop rate (instructions per ns) over the best clock: a preempted run only looks
 * slower. NAN when it failed. */
static double probe_pass(const struct probe_class *c, const struct peak_uarch_rates *clocks,
			 uint64_t iters, double *best_rate, double *best_ghz)
{
	double rate = 0, ghz = 0;
	for (int t = 0; t < 3; t++) {
		uint64_t ns = time_loop(c->loop, iters);
		double g = class_ghz(c, clocks);
		if (ns)
			rate = fmax(rate, c->per_iter * (double)iters / (double)ns);
		ghz = fmax(ghz, g);
	}
	*best_rate = fmax(*best_rate, rate);
	*best_ghz = fmax(*best_ghz, ghz);
	if (!(rate > 0) || !(ghz > 0))
		return NAN;
	return c->latency ? ghz / rate : rate / ghz;
}

/* Passes over all classes: a class's runs are spread over the whole probe, so a burst of
 * contention (another tenant on the SMT sibling takes a share of the ALUs and makes a
 * 4-wide core look exactly 3-wide) has to last all of it to mislead. Classes still
 * unsettled after PASSES (their best figure between two integers) get more passes, up to
 * PEAK_PROBE_MAX_PASSES or BUDGET_S in all. */
#define PASSES   4
#define BUDGET_S 1.2

/* A figure the rounding reads as a unit count (or not measured at all). */
static bool settled(double v)
{
	unsigned u;
	return isnan(v) || peak_uarch_round_units(v, &u);
}

static void set_all_nan(struct peak_uarch_rates *r)
{
	r->ghz = NAN;
	r->neon_fma = r->neon_addmul = r->neon_vadd = r->neon_vmul = NAN;
	r->sve_fma = r->sve_addmul = r->sve_vadd = r->sve_vmul = r->sve_vmul64 = NAN;
	r->sve_vl_bits = NAN;
	r->fp16_fma512 = r->bf16_dot512 = r->bf16_dot256 = NAN;
	r->vnni512 = r->vnni256 = r->avxvnni = NAN;
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
		r->load_ghz[l] = NAN;
	for (size_t i = 0; i < NCLASSES; i++)
		*figure_at(r, classes[i].offset) = NAN;
}

/* One pass over the classes that can run here and are wanted; best figures into p->best. */
static void run_pass(struct peak_probe *p, const uint64_t *iters, const bool *want,
		     double *rate, double *ghz)
{
	struct peak_uarch_rates *pass = &p->pass[p->passes];
	set_all_nan(pass);
	pass->ghz = p->best.ghz;
	pass->sve_vl_bits = p->best.sve_vl_bits;
	memcpy(pass->load_ghz, p->best.load_ghz, sizeof pass->load_ghz);
	for (size_t i = 0; i < NCLASSES; i++)
		if (iters[i] && want[i])
			*figure_at(pass, classes[i].offset) =
			    probe_pass(&classes[i], &p->best, iters[i], &rate[i], &ghz[i]);
	p->passes++;
	for (size_t i = 0; i < NCLASSES; i++) {
		if (!iters[i] || !(rate[i] > 0) || !(ghz[i] > 0))
			continue;
		*figure_at(&p->best, classes[i].offset) =
		    classes[i].latency ? ghz[i] / rate[i] : rate[i] / ghz[i];
	}
}

/* The clock of each load a class that runs here needs, measured and checked once
 * (peak_freq_load_clock: about 20 ms a load); a refused one stays NAN. */
static void measure_loads(const uint64_t *iters, struct peak_uarch_rates *best)
{
	for (size_t i = 0; i < NCLASSES; i++) {
		enum peak_freq_load l = classes[i].load;
		if (!iters[i] || l == PEAK_FREQ_LOAD_NONE || !isnan(best->load_ghz[l]))
			continue;
		struct peak_freq_load_clock c;
		peak_freq_load_clock(l, 0.001, 3, &c);
		best->load_ghz[l] = c.ok ? c.ghz : 0; /* 0: tried, refused (NAN again below) */
	}
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
		if (!(best->load_ghz[l] > 0))
			best->load_ghz[l] = NAN;
}

int peak_uarch_probe(const struct peak_sysinfo *si, struct peak_probe *p)
{
	uint64_t iters[NCLASSES] = {0};
	double rate[NCLASSES] = {0}, ghz[NCLASSES] = {0};
	bool want[NCLASSES];
	uint64_t t0 = peak_time_now_ns();
	memset(p, 0, sizeof *p);
	set_all_nan(&p->best);
	p->best.ghz = peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.002, 20, NULL);
	if (!(p->best.ghz > 0))
		return -1;
	unsigned sve_bits = sve_bits_here(si);
	if (sve_bits)
		p->best.sve_vl_bits = sve_bits;
	for (size_t i = 0; i < NCLASSES; i++) {
		const struct probe_class *c = &classes[i];
		want[i] = true;
		if (class_is_sve(c) && !sve_bits)
			continue;
		if (peak_isa_supported(si, c->isa, NULL, 0) &&
		    (!c->need || peak_cpu_can_run(c->need, NULL, 0)) && fmt_runs(c))
			iters[i] = size_loop(c);
	}
	measure_loads(iters, &p->best);
	for (int k = 0; k < PASSES; k++)
		run_pass(p, iters, want, rate, ghz);
	while (p->passes < PEAK_PROBE_MAX_PASSES &&
	       (double)(peak_time_now_ns() - t0) * 1e-9 < BUDGET_S) {
		bool any = false;
		for (size_t i = 0; i < NCLASSES; i++) {
			want[i] = !settled(*figure_at(&p->best, classes[i].offset));
			any = any || (want[i] && iters[i]);
		}
		if (!any)
			break;
		run_pass(p, iters, want, rate, ghz);
	}
	p->seconds = (double)(peak_time_now_ns() - t0) * 1e-9;
	return 0;
}

bool peak_uarch_round_units(double per_cycle, unsigned *units)
{
	*units = 0;
	if (!isfinite(per_cycle) || per_cycle < 0.5 || per_cycle > 64)
		return false;
	for (double k = fmax(1.0, floor(per_cycle)); k <= ceil(per_cycle); k++) {
		double below = fmin(PEAK_UNITS_BELOW_TOL * k, PEAK_UNITS_ABS_TOL);
		if (per_cycle >= k - below && per_cycle <= k * (1 + PEAK_UNITS_ABOVE_TOL)) {
			*units = (unsigned)k;
			return true;
		}
	}
	return false;
}

static unsigned units_of(double per_cycle)
{
	unsigned u;
	return peak_uarch_round_units(per_cycle, &u) ? u : 0;
}

/* The figures by the names the note (and PEAKBENCH_TEST_PROBE_PASSES) give them. */
static const struct {
	const char *name;
	size_t offset;
} figures[] = {
    {"fma256", AT(fma256)},       {"fma512", AT(fma512)},         {"addmul128", AT(addmul128)},
    {"addmul256", AT(addmul256)}, {"addmul512", AT(addmul512)},   {"add64", AT(int_add)},
    {"vadd128", AT(vint_add128)}, {"vadd256", AT(vint_add256)},   {"vadd512", AT(vint_add512)},
    {"vmul128", AT(vint_mul128)}, {"vmul256", AT(vint_mul256)},   {"vmul512", AT(vint_mul512)},
    {"imul64", AT(imul64)},       {"addsd_lat", AT(fadd_lat64)},  {"vaddpd256_lat", AT(fadd_lat256)},
    {"vaddpd512_lat", AT(fadd_lat512)},
#if defined(__x86_64__)
    {"fp16_fma512", AT(fp16_fma512)}, {"bf16_dot512", AT(bf16_dot512)},
    {"bf16_dot256", AT(bf16_dot256)}, {"vnni512", AT(vnni512)},
    {"vnni256", AT(vnni256)},         {"avxvnni", AT(avxvnni)},
#endif
#if defined(__aarch64__)
    {"neon_fma", AT(neon_fma)},   {"neon_addmul", AT(neon_addmul)},
    {"neon_vadd", AT(neon_vadd)}, {"neon_vmul", AT(neon_vmul)},
    {"sve_fma", AT(sve_fma)},     {"sve_addmul", AT(sve_addmul)},
    {"sve_vadd", AT(sve_vadd)},   {"sve_vmul", AT(sve_vmul)},
    {"sve_vmul64", AT(sve_vmul64)},
#endif
};
#define NFIGURES (sizeof figures / sizeof figures[0])

static size_t figure_index(const char *name)
{
	size_t f = 0;
	while (f < NFIGURES && (!name || strcmp(figures[f].name, name) != 0))
		f++;
	return f;
}

double peak_uarch_rates_get(const struct peak_uarch_rates *r, const char *name)
{
	size_t f = figure_index(name);
	return f < NFIGURES ? *figure_at((struct peak_uarch_rates *)(uintptr_t)r, figures[f].offset)
			    : NAN;
}

peak_loop_fn peak_uarch_probe_loop(const char *name)
{
	size_t f = figure_index(name);
	for (size_t i = 0; f < NFIGURES && i < NCLASSES; i++)
		if (classes[i].offset == figures[f].offset && !classes[i].latency)
			return classes[i].loop;
	return NULL;
}

double peak_uarch_probe_rate_now(const char *name)
{
	size_t f = figure_index(name);
	for (size_t i = 0; f < NFIGURES && i < NCLASSES; i++) {
		const struct probe_class *c = &classes[i];
		if (c->offset != figures[f].offset || c->latency)
			continue;
		if (!c->loop) /* a class of the other architecture (peak_loops.h) */
			return NAN;
		uint64_t iters = size_loop(c);
		double best = 0;
		for (int t = 0; iters && t < 3; t++) {
			uint64_t ns = time_loop(c->loop, iters);
			if (ns)
				best = fmax(best, c->per_iter * (double)iters / (double)ns);
		}
		return best > 0 ? best : NAN;
	}
	return NAN;
}

/* sve_vl_bits=N (the first of a comma list: every run of a record ran at one length),
 * 128 to 2048 in steps of 128, into the best figures and every pass. */
static int parse_vl(const char *v, struct peak_probe *p)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || (*end && *end != ',') || x < 128 || x > 2048 || fmod(x, 128) != 0)
		return -1;
	p->best.sve_vl_bits = x;
	for (unsigned k = 0; k < PEAK_PROBE_MAX_PASSES; k++)
		p->pass[k].sve_vl_bits = x;
	return 0;
}

int peak_uarch_probe_parse(const char *spec, struct peak_probe *p, char *err, size_t err_len)
{
	memset(p, 0, sizeof *p);
	for (unsigned k = 0; k < PEAK_PROBE_MAX_PASSES; k++)
		set_all_nan(&p->pass[k]);
	set_all_nan(&p->best);
	char buf[1024];
	if (strlen(spec) >= sizeof buf) {
		(void)snprintf(err, err_len, "probe passes: too long");
		return -1;
	}
	(void)snprintf(buf, sizeof buf, "%s", spec);
	char *save = NULL;
	for (char *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(item, '=');
		size_t f = NFIGURES;
		if (eq) {
			*eq = '\0';
			f = figure_index(item);
		}
		if (eq && strcmp(item, "sve_vl_bits") == 0) {
			if (parse_vl(eq + 1, p) != 0) {
				(void)snprintf(err, err_len, "probe passes: bad sve_vl_bits '%s'",
					       eq + 1);
				return -1;
			}
			continue;
		}
		if (f == NFIGURES) {
			(void)snprintf(err, err_len, "probe passes: no figure '%s'", item);
			return -1;
		}
		unsigned k = 0;
		char *save2 = NULL;
		for (char *v = strtok_r(eq + 1, ",", &save2); v; v = strtok_r(NULL, ",", &save2)) {
			char *end;
			double x = strtod(v, &end);
			if (end == v || *end || k == PEAK_PROBE_MAX_PASSES || !(x > 0)) {
				(void)snprintf(err, err_len, "probe passes: bad value '%s' for %s",
					       v, figures[f].name);
				return -1;
			}
			*figure_at(&p->pass[k], figures[f].offset) = x;
			double *best = figure_at(&p->best, figures[f].offset);
			bool lat = strstr(figures[f].name, "_lat") != NULL;
			if (isnan(*best) || (lat ? x < *best : x > *best))
				*best = x;
			if (++k > p->passes)
				p->passes = k;
		}
	}
	return 0;
}

/* "name=1.98" for a measured figure, "name=?" for a refused one, nothing when absent. */
static void note_add(char *note, size_t len, const char *name, double v)
{
	size_t used = strlen(note);
	if (isnan(v) || used + 1 >= len)
		return;
	unsigned u;
	if (peak_uarch_round_units(v, &u))
		(void)snprintf(note + used, len - used, "%s%s %.2f", used ? ", " : "", name, v);
	else
		(void)snprintf(note + used, len - used, "%s%s %.2f refused", used ? ", " : "",
			       name, v);
}

void peak_uarch_from_rates(const struct peak_uarch_rates *r, struct peak_uarch *u)
{
	memset(u, 0, sizeof *u);
	(void)snprintf(u->name, sizeof u->name, "measured");
	u->source = PEAK_SRC_MEASURED;
	u->imul_latency = 3; /* the clock's own definition */
	/* Pipe width: 256-bit adds and multiplies at half the 128-bit rate mean 128-bit
	 * pipes taking two passes (Zen 1, Intel's E-cores); then a ymm instruction per cycle
	 * stands for two units of 128 bits. Unknown width: the 256-bit figures say nothing. */
	unsigned am128 = units_of(r->addmul128), am256 = units_of(r->addmul256);
	unsigned per_ymm = 0; /* units one ymm instruction per cycle stands for */
	if (am128 && am256 == am128) {
		u->pipe_bits = 256;
		per_ymm = 1;
	} else if (am128 && am256 && 2 * am256 == am128) {
		u->pipe_bits = 128;
		per_ymm = 2;
	} else if (am128 && isnan(r->addmul256)) {
		u->pipe_bits = 128; /* no AVX: only 128-bit ops run here */
	}
	u->addmul_ops = am128;
	u->fma_units = units_of(r->fma256) * per_ymm;
	u->fma512_units = units_of(r->fma512);
	u->addmul512_ops = units_of(r->addmul512);
	u->int_alu_units = units_of(r->int_add);
	u->vec_int_add_units = units_of(r->vint_add128);
	u->vec512_int_add_units = units_of(r->vint_add512);
	u->vec_int_mul_units = units_of(r->vint_mul128);
	u->imul_units = units_of(r->imul64);
	/* 256-bit integer adds must agree with the 128-bit count and the pipe width, or the
	 * AVX2 integer peak would be computed from a figure the core does not deliver. */
	unsigned vi256 = units_of(r->vint_add256);
	if (!isnan(r->vint_add256) && (per_ymm == 0 || vi256 * per_ymm != u->vec_int_add_units))
		u->vec_int_add_units = 0;
	u->fp_add_latency = units_of(r->fadd_lat64);
	u->fp_add256_latency = units_of(r->fadd_lat256);
	u->fp_add512_latency = units_of(r->fadd_lat512);
	/* The format rates are operations per cycle: instructions x what one does. */
	u->fp16_fma512_ops = units_of(r->fp16_fma512) * 64;
	u->bf16_dot512_ops = units_of(r->bf16_dot512) * 64;
	u->bf16_dot256_ops = units_of(r->bf16_dot256) * 32;
	u->vnni512_ops = units_of(r->vnni512) * 128;
	u->vnni256_ops = units_of(r->vnni256) * 64;
	u->avxvnni_ops = units_of(r->avxvnni) * 64;
#if defined(__aarch64__)
	/* NEON: 128-bit pipes, counted as the table counts them (peak_uarch_arm.c). */
	u->pipe_bits = 128;
	u->imul_latency = 1; /* the clock: add x */
	u->fma_units = units_of(r->neon_fma);
	u->addmul_ops = units_of(r->neon_addmul);
	u->vec_int_add_units = units_of(r->neon_vadd);
	u->vec_int_mul_units = units_of(r->neon_vmul);
	/* SVE: instructions per cycle at the length measured, which stands for the pipe width
	 * (a peak from these counts is the peak at that length). */
	u->sve_fma_units = units_of(r->sve_fma);
	u->sve_addmul_ops = units_of(r->sve_addmul);
	u->sve_vec_int_add_units = units_of(r->sve_vadd);
	u->sve_vec_int_mul_units = units_of(r->sve_vmul);
	u->sve_pipe_bits = r->sve_vl_bits >= 128 ? (unsigned)r->sve_vl_bits : 0;
#endif

	char *n = u->note;
	size_t len = sizeof u->note;
	if (r->ghz > 0)
		(void)snprintf(n, len, "per cycle at %.2f GHz (%s", r->ghz,
			       PEAK_FREQ_INT_LATENCY ? "add x" : "imul");
	else
		(void)snprintf(n, len, "per cycle (recorded passes");
	/* The loads' clocks their classes were divided by, where they differ from the imul
	 * clock (no colon or comma: a replay of the note splits on them). */
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++) {
		size_t used = strlen(n);
		if (r->load_ghz[l] > 0 && used < len &&
		    !(fabs(r->load_ghz[l] / r->ghz - 1) <= PEAK_FREQ_LOAD_TOL))
			(void)snprintf(n + used, len - used, "; %s %.2f GHz",
				       peak_freq_load_name((enum peak_freq_load)l), r->load_ghz[l]);
	}
	size_t used = strlen(n);
	if (used < len)
		(void)snprintf(n + used, len - used, "): ");
	size_t head = strlen(n);
	/* The SVE length first (a length, never a count: not rounded), so a note cut at its
	 * size keeps it and a replay of the note reads the SVE figures at the right length. */
	if (r->sve_vl_bits >= 128)
		(void)snprintf(n + head, len - head, "sve_vl_bits %.0f", r->sve_vl_bits);
	for (size_t i = 0; i < NFIGURES; i++)
		note_add(n + head, len - head, figures[i].name,
			 *figure_at((struct peak_uarch_rates *)(uintptr_t)r, figures[i].offset));
}
