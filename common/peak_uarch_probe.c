/* The measured micro-architecture (see peak_uarch_probe.h): inline-asm loops that each
 * saturate one instruction class, timed against the imul-chain clock. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "peak_calib.h"
#include "peak_freq.h"
#include "peak_time.h"
#include "peak_uarch_probe.h"

/* Each loop body repeats its block 8 times per iteration, so the loop's own dec/jnz is
 * about 1% of the instructions. The loops are asm only: the compiler needs no target
 * attribute for them, and the caller runs a loop only when its ISA can run here. All
 * registers start at zero: 0 + 0 and 0 * 0 never meet a denormal, and no core skips work
 * on zero operands. */
#define STR_(x) #x
#define STR(x)  STR_(x)
#define REPS    8

/* Each loop starts on a 64-byte boundary, so no figure depends on where the linker
 * happens to place its loop (front ends fetch in aligned blocks). */
#define LOOP(body)                                                                                 \
	".p2align 6\n"                                                                            \
	"1:\n\t"                                                                                   \
	".rept " STR(REPS) "\n\t" body ".endr\n\t"                                                 \
	"decq %[n]\n\t"                                                                            \
	"jnz 1b\n\t"

/* Zero registers 0-15 (VEX vpxor also clears the upper lanes of ymm and zmm). */
#define Z(i)    "vpxor %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
#define ZERO_V  Z(0) Z(1) Z(2) Z(3) Z(4) Z(5) Z(6) Z(7) Z(8) Z(9) Z(10) Z(11) Z(12) Z(13) Z(14) Z(15)
#define ZS(i)   "pxor %%xmm" #i ", %%xmm" #i "\n\t"
#define ZERO_S  ZS(0) ZS(1) ZS(2) ZS(3) ZS(4) ZS(5) ZS(6) ZS(7) ZS(8) ZS(9) ZS(10) ZS(11) ZS(12) ZS(13) ZS(14) ZS(15)
#define CLOBBER_V                                                                                  \
	"cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
	    "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"

/* Twelve independent accumulators, registers 0-11, with operands in 12 and 13: enough to
 * hide a latency of 6 cycles on 2 units or 4 cycles on 3. */
#define X12(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11)
/* Six adds (registers 0-5) against six multiplies (6-11), operand in 14: hides a latency
 * of 3 on 2 adders plus 3 on 2 multipliers (Zen), or 3-4 on 2 shared pipes (Intel). Seven
 * of each read 3.82 of Zen 4's 4 per cycle, six read 4.00: more chains than the
 * schedulers hold in flight only cost throughput. */
#define ADDMUL6(a) a(0, 6) a(1, 7) a(2, 8) a(3, 9) a(4, 10) a(5, 11)

#define DEF_LOOP(fn, zero, body, tail)                                                             \
	static void fn(uint64_t n)                                                                 \
	{                                                                                          \
		__asm__ volatile(zero LOOP(body) tail : [n] "+r"(n) : : CLOBBER_V);                \
	}

/* clang-format off */
#define FMA_Y(i)  "vfmadd231pd %%ymm13, %%ymm12, %%ymm" #i "\n\t"
#define FMA_Z(i)  "vfmadd231pd %%zmm13, %%zmm12, %%zmm" #i "\n\t"
#define AM_X(a, m) "addpd %%xmm14, %%xmm" #a "\n\t" "mulpd %%xmm14, %%xmm" #m "\n\t"
#define AM_Y(a, m) "vaddpd %%ymm14, %%ymm" #a ", %%ymm" #a "\n\t" "vmulpd %%ymm14, %%ymm" #m ", %%ymm" #m "\n\t"
#define AM_Z(a, m) "vaddpd %%zmm14, %%zmm" #a ", %%zmm" #a "\n\t" "vmulpd %%zmm14, %%zmm" #m ", %%zmm" #m "\n\t"
#define PADD_X(i) "paddd %%xmm12, %%xmm" #i "\n\t"
#define PADD_Y(i) "vpaddd %%ymm12, %%ymm" #i ", %%ymm" #i "\n\t"
#define PADD_Z(i) "vpaddd %%zmm12, %%zmm" #i ", %%zmm" #i "\n\t"
#define PMUL_X(i) "pmulld %%xmm12, %%xmm" #i "\n\t"
/* Latency: twelve dependent adds on register 0. */
#define LAT_S(i)  "addsd %%xmm1, %%xmm0\n\t"
#define LAT_Y(i)  "vaddpd %%ymm1, %%ymm0, %%ymm0\n\t"
#define LAT_Z(i)  "vaddpd %%zmm1, %%zmm0, %%zmm0\n\t"

DEF_LOOP(loop_fma256, ZERO_V, X12(FMA_Y), "vzeroupper\n\t")
DEF_LOOP(loop_fma512, ZERO_V, X12(FMA_Z), "vzeroupper\n\t")
DEF_LOOP(loop_addmul128, ZERO_S, ADDMUL6(AM_X), "")
DEF_LOOP(loop_addmul256, ZERO_V, ADDMUL6(AM_Y), "vzeroupper\n\t")
DEF_LOOP(loop_addmul512, ZERO_V, ADDMUL6(AM_Z), "vzeroupper\n\t")
DEF_LOOP(loop_vint_add128, ZERO_S, X12(PADD_X), "")
DEF_LOOP(loop_vint_add256, ZERO_V, X12(PADD_Y), "vzeroupper\n\t")
DEF_LOOP(loop_vint_add512, ZERO_V, X12(PADD_Z), "vzeroupper\n\t")
DEF_LOOP(loop_vint_mul128, ZERO_S, X12(PMUL_X), "")
DEF_LOOP(loop_lat64, ZERO_S, X12(LAT_S), "")
DEF_LOOP(loop_lat256, ZERO_V, X12(LAT_Y), "vzeroupper\n\t")
DEF_LOOP(loop_lat512, ZERO_V, X12(LAT_Z), "vzeroupper\n\t")
/* clang-format on */

/* Ten independent chains in general-purpose registers, the instruction given per chain:
 * enough for 10 ALUs (every x86-64 core so far has at most 6) and for 3 multipliers of
 * latency 3. k is a register operand the body may use. The chains are early-clobber
 * ("+&r"): all start at 1 like k, and without it the compiler gave k and a0 one register,
 * so every add depended on a0's chain (3.33 per cycle instead of 3.95 on Zen 4). */
#define DEF_GPR_LOOP(fn, insn)                                                                     \
	static void fn(uint64_t n)                                                                 \
	{                                                                                          \
		uint64_t a0 = 1, a1 = 1, a2 = 1, a3 = 1, a4 = 1, a5 = 1, a6 = 1, a7 = 1, a8 = 1,   \
			 a9 = 1, k = 1;                                                            \
		__asm__ volatile(LOOP(insn(0) insn(1) insn(2) insn(3) insn(4) insn(5) insn(6)      \
					  insn(7) insn(8) insn(9))                                 \
				 : [n] "+&r"(n), [a0] "+&r"(a0), [a1] "+&r"(a1), [a2] "+&r"(a2),   \
				   [a3] "+&r"(a3), [a4] "+&r"(a4), [a5] "+&r"(a5), [a6] "+&r"(a6), \
				   [a7] "+&r"(a7), [a8] "+&r"(a8), [a9] "+&r"(a9)                  \
				 : [k] "r"(k)                                                      \
				 : "cc");                                                          \
	}

/* add of a register, which no core folds at rename (add-immediate chains may be). */
#define ADDQ(i) "addq %[k], %[a" #i "]\n\t"
/* imul's immediate form: the two-register form reads 5/6 of a multiply per cycle on Zen 4
 * and misleads. */
#define IMULQ(i) "imulq $3, %[a" #i "], %[a" #i "]\n\t"
DEF_GPR_LOOP(loop_int_add, ADDQ)
DEF_GPR_LOOP(loop_imul64, IMULQ)

struct probe_class {
	void (*loop)(uint64_t n);
	double per_iter;      /* instructions of the class per loop iteration */
	enum peak_isa isa;    /* what must be supported to run it */
	bool sse41;           /* pmulld also needs SSE4.1 */
	size_t offset;        /* where its figure goes in struct peak_uarch_rates */
	bool latency;         /* a dependent chain: the figure is cycles per instruction */
};

#define AT(field) offsetof(struct peak_uarch_rates, field)
static const struct probe_class classes[] = {
    {loop_fma256, 12 * REPS, PEAK_ISA_AVX2, false, AT(fma256), false},
    {loop_fma512, 12 * REPS, PEAK_ISA_AVX512, false, AT(fma512), false},
    {loop_addmul128, 12 * REPS, PEAK_ISA_SSE, false, AT(addmul128), false},
    {loop_addmul256, 12 * REPS, PEAK_ISA_AVX, false, AT(addmul256), false},
    {loop_addmul512, 12 * REPS, PEAK_ISA_AVX512, false, AT(addmul512), false},
    {loop_imul64, 10 * REPS, PEAK_ISA_SCALAR, false, AT(imul64), false},
    {loop_int_add, 10 * REPS, PEAK_ISA_SCALAR, false, AT(int_add), false},
    {loop_vint_add128, 12 * REPS, PEAK_ISA_SSE, false, AT(vint_add128), false},
    {loop_vint_add256, 12 * REPS, PEAK_ISA_AVX2, false, AT(vint_add256), false},
    {loop_vint_add512, 12 * REPS, PEAK_ISA_AVX512, false, AT(vint_add512), false},
    {loop_vint_mul128, 12 * REPS, PEAK_ISA_SSE, true, AT(vint_mul128), false},
    {loop_lat64, 12 * REPS, PEAK_ISA_SCALAR, false, AT(fadd_lat64), true},
    {loop_lat256, 12 * REPS, PEAK_ISA_AVX, false, AT(fadd_lat256), true},
    {loop_lat512, 12 * REPS, PEAK_ISA_AVX512, false, AT(fadd_lat512), true},
};

static uint64_t time_loop(void (*loop)(uint64_t), uint64_t iters)
{
	uint64_t t0 = peak_time_now_ns();
	loop(iters);
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

/* A few runs of one class, each followed at once by a short imul chain: right after wide
 * vector code the core may still run at that code's lower clock (Intel's AVX-512
 * licence), and the chain then reads that clock. Keeps the best loop rate (instructions
 * per ns) and the best clock: a preempted run only looks slower. */
static void probe_pass(const struct probe_class *c, uint64_t iters, double *best_rate,
		       double *best_ghz)
{
	for (int t = 0; t < 3; t++) {
		uint64_t ns = time_loop(c->loop, iters);
		double ghz = peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.0002, 1, NULL);
		if (ns)
			*best_rate = fmax(*best_rate, c->per_iter * (double)iters / (double)ns);
		*best_ghz = fmax(*best_ghz, ghz);
	}
}

#define NCLASSES (sizeof classes / sizeof classes[0])
/* Passes over all classes: a class's runs are spread over the whole probe (~0.5 s), so a
 * burst of contention (another tenant on the SMT sibling takes a share of the ALUs and
 * makes a 4-wide core look exactly 3-wide) has to last all of it to mislead. */
#define PASSES 4

int peak_uarch_probe(const struct peak_sysinfo *si, struct peak_uarch_rates *r)
{
	uint64_t iters[NCLASSES] = {0};
	double rate[NCLASSES] = {0}, ghz[NCLASSES] = {0};
	for (size_t i = 0; i < NCLASSES; i++)
		*(double *)((char *)r + classes[i].offset) = NAN;
	r->ghz = peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.002, 20, NULL);
	if (!(r->ghz > 0))
		return -1;
	for (size_t i = 0; i < NCLASSES; i++) {
		const struct probe_class *c = &classes[i];
		/* pmulld is SSE4.1; every CPU with SSE4.2 (what sysinfo records) has it. */
		if (peak_isa_supported(si, c->isa, NULL, 0) && (!c->sse41 || si->isa.sse4_2))
			iters[i] = size_loop(c);
	}
	for (int p = 0; p < PASSES; p++)
		for (size_t i = 0; i < NCLASSES; i++)
			if (iters[i])
				probe_pass(&classes[i], iters[i], &rate[i], &ghz[i]);
	for (size_t i = 0; i < NCLASSES; i++) {
		if (!iters[i] || !(rate[i] > 0) || !(ghz[i] > 0))
			continue;
		double v = classes[i].latency ? ghz[i] / rate[i] : rate[i] / ghz[i];
		*(double *)((char *)r + classes[i].offset) = v;
	}
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

	char *n = u->note;
	size_t len = sizeof u->note;
	(void)snprintf(n, len, "per cycle at %.2f GHz (imul): ", r->ghz);
	size_t head = strlen(n);
	note_add(n + head, len - head, "fma256", r->fma256);
	note_add(n + head, len - head, "fma512", r->fma512);
	note_add(n + head, len - head, "addmul128", r->addmul128);
	note_add(n + head, len - head, "addmul256", r->addmul256);
	note_add(n + head, len - head, "addmul512", r->addmul512);
	note_add(n + head, len - head, "add64", r->int_add);
	note_add(n + head, len - head, "vadd128", r->vint_add128);
	note_add(n + head, len - head, "vadd256", r->vint_add256);
	note_add(n + head, len - head, "vadd512", r->vint_add512);
	note_add(n + head, len - head, "vmul128", r->vint_mul128);
	note_add(n + head, len - head, "imul64", r->imul64);
	note_add(n + head, len - head, "addsd_lat", r->fadd_lat64);
	note_add(n + head, len - head, "vaddpd256_lat", r->fadd_lat256);
	note_add(n + head, len - head, "vaddpd512_lat", r->fadd_lat512);
}

/* The counts an entry needs on this CPU, by name, with whether its ISA exists here. */
struct uarch_count {
	const char *name;
	size_t offset;
	enum peak_isa isa;
};
#define UC(f, isa) {#f, offsetof(struct peak_uarch, f), isa}
static const struct uarch_count counts[] = {
    UC(fma_units, PEAK_ISA_AVX2),          UC(fma512_units, PEAK_ISA_AVX512),
    UC(vec_int_add_units, PEAK_ISA_SSE),   UC(vec512_int_add_units, PEAK_ISA_AVX512),
    UC(int_alu_units, PEAK_ISA_SCALAR),    UC(vec_int_mul_units, PEAK_ISA_SSE),
    UC(imul_units, PEAK_ISA_SCALAR),       UC(fp_add_latency, PEAK_ISA_SCALAR),
    UC(fp_add256_latency, PEAK_ISA_AVX),   UC(fp_add512_latency, PEAK_ISA_AVX512),
    UC(addmul_ops, PEAK_ISA_SCALAR),       UC(addmul512_ops, PEAK_ISA_AVX512),
};

static unsigned *count_at(const struct peak_uarch *u, const struct uarch_count *c)
{
	return (unsigned *)((char *)(uintptr_t)u + c->offset);
}

bool peak_uarch_has_unknown(const struct peak_uarch *u, const struct peak_sysinfo *si)
{
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
		if (*count_at(u, &counts[i]) == 0 && peak_isa_supported(si, counts[i].isa, NULL, 0))
			return true;
	return false;
}

void peak_uarch_fill_unknown(struct peak_uarch *u, const struct peak_uarch *measured,
			     const struct peak_sysinfo *si)
{
	char filled[200] = "";
	for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
		const struct uarch_count *c = &counts[i];
		unsigned *dst = count_at(u, c), v = *count_at(measured, c);
		if (*dst || !v || !peak_isa_supported(si, c->isa, NULL, 0))
			continue;
		*dst = v;
		size_t used = strlen(filled);
		(void)snprintf(filled + used, sizeof filled - used, "%s%s=%u", used ? ", " : "",
			       c->name, v);
	}
	if (filled[0])
		(void)snprintf(u->note, sizeof u->note, "table, with what its sources lack measured: %s",
			       filled);
	else
		(void)snprintf(u->note, sizeof u->note,
			       "table; what its sources lack could not be measured cleanly");
}
