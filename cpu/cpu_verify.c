/* Closed forms for every cpubench kernel: starting values, the constants, and the value
 * each lane must hold after n iterations. A kernel whose lanes differ fails the run. */
#include <inttypes.h>
#include <stdio.h>

#include "cpu_chains.h"
#include "cpu_kernels.h"

/* FMA: f(x) = 2x - 1 and g(y) = y/2 + 1/2 undo each other exactly for the small integers
 * the chains start from, in both precisions, so after any number of iterations every
 * lane is back at its start; a missing, doubled or wrong operation breaks that.
 * Add+mul: (x + 1) - 1 and (x * 2) * 0.5 are exact identities too.
 * Integers wrap modulo 2^w, so their closed forms also check the iteration count:
 * x0 + n (steps / 2) (c1 + c2) for the adds, and x0 a^(n steps) for the multiplies. */
void cpu_consts_init(const struct cpu_kernel *k, struct cpu_consts *c)
{
	if (cpu_fmt_kind(k)) {
		cpu_fmt_consts_init(k, c);
		return;
	}
	if (k->kind == CPU_KIND_ADDMUL) {
		c->f64[0] = 1.0, c->f64[1] = 2.0, c->f64[2] = 0.5;
		c->f32[0] = 1.0f, c->f32[1] = 2.0f, c->f32[2] = 0.5f;
	} else {
		c->f64[0] = 2.0, c->f64[1] = -1.0, c->f64[2] = 0.5;
		c->f32[0] = 2.0f, c->f32[1] = -1.0f, c->f32[2] = 0.5f;
	}
	if (k->kind == CPU_KIND_IMUL) {
		/* The loops' immediates (scalar) and their register operand (vector). */
		c->u64[0] = PEAK_LOOP_IMUL64_K;
		c->u64[1] = 0;
		c->u32[0] = PEAK_LOOP_IMUL32_K;
		c->u32[1] = 0;
	} else {
		c->u64[0] = 0x9E3779B97F4A7C15ull; /* large: the sums wrap quickly */
		c->u64[1] = 0xD1B54A32D192ED03ull;
		c->u32[0] = 0x9E3779B9u;
		c->u32[1] = 0x7F4A7C15u;
	}
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static size_t acc_count(const struct cpu_kernel *k)
{
	return (size_t)k->nacc * cpu_kernel_lanes(k);
}

/* Floating-point lanes start at 1, 2, 3, ... (exact in both precisions and through 2x - 1);
 * integer lanes at pseudo-random values. */
void cpu_acc_init(const struct cpu_kernel *k, struct cpu_acc *acc)
{
	if (cpu_fmt_kind(k)) {
		cpu_fmt_acc_init(k, acc);
		return;
	}
	size_t n = acc_count(k);
	for (size_t i = 0; i < n; i++) {
		switch (k->elem) {
		case CPU_F64:
			acc->v.f64[i] = (double)(i + 1);
			break;
		case CPU_F32:
			acc->v.f32[i] = (float)(i + 1);
			break;
		case CPU_I64:
			acc->v.u64[i] = mix64(i);
			break;
		case CPU_I32:
			acc->v.u32[i] = (uint32_t)mix64(i);
			break;
		case CPU_F16: /* cpu_fmt.c */
			break;
		}
	}
}

uint64_t cpu_affine_pow_u64(uint64_t x, uint64_t a, uint64_t b, uint64_t n)
{
	/* (A, B) is the map x -> A x + B applied so far; square (a, b) as n halves. */
	uint64_t ra = 1, rb = 0;
	while (n) {
		if (n & 1) {
			ra = a * ra;
			rb = a * rb + b;
		}
		b = a * b + b;
		a = a * a;
		n >>= 1;
	}
	return ra * x + rb;
}

uint32_t cpu_affine_pow_u32(uint32_t x, uint32_t a, uint32_t b, uint64_t n)
{
	/* Reduction mod 2^32 commutes with + and *, so the 32-bit lanes' answer is the low
	 * half of the 64-bit one. */
	return (uint32_t)cpu_affine_pow_u64(x, a, b, n);
}

static uint64_t expected_u64(const struct cpu_kernel *k, const struct cpu_consts *c, uint64_t x0,
			     uint64_t iters)
{
	uint64_t pairs = iters * (k->steps / 2);
	if (k->kind == CPU_KIND_IADD)
		return x0 + pairs * (c->u64[0] + c->u64[1]);
	return cpu_affine_pow_u64(x0, c->u64[0], 0, iters * k->steps);
}

static uint32_t expected_u32(const struct cpu_kernel *k, const struct cpu_consts *c, uint32_t x0,
			     uint64_t iters)
{
	uint64_t pairs = iters * (k->steps / 2);
	if (k->kind == CPU_KIND_IADD)
		return (uint32_t)(x0 + (uint32_t)pairs * (uint32_t)(c->u32[0] + c->u32[1]));
	return cpu_affine_pow_u32(x0, c->u32[0], 0, iters * k->steps);
}

int cpu_acc_verify(const struct cpu_kernel *k, const struct cpu_acc *acc,
		   const struct cpu_consts *c, uint64_t iters, char *err, size_t err_len)
{
	if (cpu_fmt_kind(k))
		return cpu_fmt_verify(k, acc, c, iters, err, err_len);
	struct cpu_acc start;
	cpu_acc_init(k, &start);
	size_t n = acc_count(k);
	for (size_t i = 0; i < n; i++) {
		unsigned lanes = cpu_kernel_lanes(k);
		unsigned chain = (unsigned)(i / lanes), lane = (unsigned)(i % lanes);
		char got[40], want[40];
		bool ok = true;
		switch (k->elem) {
		case CPU_F64:
			ok = acc->v.f64[i] == start.v.f64[i];
			snprintf(got, sizeof got, "%.17g", acc->v.f64[i]);
			snprintf(want, sizeof want, "%.17g", start.v.f64[i]);
			break;
		case CPU_F32:
			ok = acc->v.f32[i] == start.v.f32[i];
			snprintf(got, sizeof got, "%.9g", (double)acc->v.f32[i]);
			snprintf(want, sizeof want, "%.9g", (double)start.v.f32[i]);
			break;
		case CPU_I64: {
			uint64_t e = expected_u64(k, c, start.v.u64[i], iters);
			ok = acc->v.u64[i] == e;
			snprintf(got, sizeof got, "0x%016" PRIx64, acc->v.u64[i]);
			snprintf(want, sizeof want, "0x%016" PRIx64, e);
			break;
		}
		case CPU_I32: {
			uint32_t e = expected_u32(k, c, start.v.u32[i], iters);
			ok = acc->v.u32[i] == e;
			snprintf(got, sizeof got, "0x%08" PRIx32, acc->v.u32[i]);
			snprintf(want, sizeof want, "0x%08" PRIx32, e);
			break;
		}
		case CPU_F16: /* cpu_fmt.c */
			break;
		}
		if (!ok) {
			snprintf(err, err_len,
				 "%s: chain %u lane %u holds %s, closed form %s after %" PRIu64
				 " iterations",
				 k->name, chain, lane, got, want, iters);
			return -1;
		}
	}
	return 0;
}

/* ---- frequency chains ---- */

_Static_assert(PEAK_FREQ_LOAD_LINKS == CPU_CHAIN_STEPS, "a loaded chain's iteration is a step's");
_Static_assert(PEAK_FREQ_LOAD_K == CPU_CHAIN_IMUL_FACTOR, "one imul chain, one multiplier");

uint64_t cpu_chain_run(enum cpu_chain chain, uint64_t iters)
{
	if (chain == CPU_CHAIN_SCALAR_FP || chain == CPU_CHAIN_SCALAR_INT)
		return cpu_chain_scalar_int(iters);
	enum peak_freq_load load = cpu_chain_load(chain);
	if (load != PEAK_FREQ_LOAD_NONE)
		return peak_freq_load_run(load, PEAK_FREQ_FULL, iters);
	return 0; /* CPU_CHAIN_NONE, or a vector class where no loaded chain exists (aarch64) */
}

uint64_t cpu_chain_expected(enum cpu_chain chain, uint64_t iters)
{
	if (chain == CPU_CHAIN_NONE)
		return 0;
#if defined(__aarch64__)
	if (chain == CPU_CHAIN_SCALAR_FP || chain == CPU_CHAIN_SCALAR_INT)
		return 1 + iters * CPU_CHAIN_STEPS;
	return 0;
#else
	if (chain == CPU_CHAIN_SCALAR_FP || chain == CPU_CHAIN_SCALAR_INT)
		return cpu_affine_pow_u64(1, CPU_CHAIN_IMUL_FACTOR, 0, iters * CPU_CHAIN_STEPS);
	/* A loaded chain is the imul chain: the vector work beside it leaves it alone. */
	return cpu_affine_pow_u64(PEAK_FREQ_LOAD_START, PEAK_FREQ_LOAD_K, 0,
				  iters * CPU_CHAIN_STEPS);
#endif
}

/* Every clock chain steps at the anchor's latency, the one instruction whose latency is
 * known on every core of the architecture: imul r64 on x86-64 (3 cycles; the loaded
 * chains are imul links with the class's instructions between them), add x on aarch64
 * (1 cycle). No vector or FP latency enters a clock: those are measured against it by
 * the probe and check the table (peak_uarch_check.c). */
unsigned cpu_chain_latency(enum cpu_chain chain)
{
	if (chain == CPU_CHAIN_NONE)
		return 0;
#if defined(__aarch64__)
	return chain == CPU_CHAIN_SCALAR_FP || chain == CPU_CHAIN_SCALAR_INT ? 1 : 0;
#else
	return 3;
#endif
}

enum cpu_chain cpu_chain_clock(enum cpu_chain chain, unsigned *latency)
{
	/* Scalar FP work holds no licence: the plain anchor chain is its clock. Elsewhere a
	 * vector class without a loaded chain (aarch64) falls back to the anchor too. */
	if (chain == CPU_CHAIN_SCALAR_FP || !cpu_chain_latency(chain))
		chain = CPU_CHAIN_SCALAR_INT;
	*latency = cpu_chain_latency(chain);
	return chain;
}

const char *cpu_chain_name(enum cpu_chain chain)
{
	switch (chain) {
#if defined(__aarch64__)
	case CPU_CHAIN_SCALAR_FP: /* scalar FP holds no licence: the plain anchor */
	case CPU_CHAIN_SCALAR_INT:
		return "add x";
#else
	case CPU_CHAIN_SCALAR_FP: /* scalar FP holds no licence: the plain anchor */
	case CPU_CHAIN_SCALAR_INT:
		return "imul r64";
#endif
	case CPU_CHAIN_SSE_FP:
		return "imul r64 + addpd xmm";
	case CPU_CHAIN_AVX_FP:
		return "imul r64 + vmulpd ymm";
	case CPU_CHAIN_AVX512_FP:
		return "imul r64 + vfmadd231pd zmm";
	case CPU_CHAIN_SSE_INT:
		return "imul r64 + paddq xmm";
	case CPU_CHAIN_AVX2_INT:
		return "imul r64 + vpaddq ymm";
	case CPU_CHAIN_AVX512_INT:
		return "imul r64 + vpaddq zmm";
	case CPU_CHAIN_AVX512_FMA_LOAD:
		return "imul r64 + vfmadd231pd zmm";
	case CPU_CHAIN_AVX512_IMUL_LOAD:
		return "imul r64 + vpmulld zmm";
	case CPU_CHAIN_AVX512_BF16_LOAD:
		return "imul r64 + vdpbf16ps zmm";
	case CPU_CHAIN_AVX512_VNNI_LOAD:
		return "imul r64 + vpdpbusd zmm";
	case CPU_CHAIN_AVX512_FP16_LOAD:
		return "imul r64 + vfmadd231ph zmm";
	case CPU_CHAIN_AMX_LOAD:
		return "imul r64 + tdpbf16ps";
	case CPU_CHAIN_NONE:
		break;
	}
	return "none";
}

enum peak_freq_load cpu_chain_load(enum cpu_chain chain)
{
	switch (chain) {
	case CPU_CHAIN_SSE_FP:
		return PEAK_FREQ_LOAD_SSE_FP;
	case CPU_CHAIN_SSE_INT:
		return PEAK_FREQ_LOAD_SSE_INT;
	case CPU_CHAIN_AVX_FP:
		return PEAK_FREQ_LOAD_AVX_FP;
	case CPU_CHAIN_AVX2_INT:
		return PEAK_FREQ_LOAD_AVX2_INT;
	case CPU_CHAIN_AVX512_INT:
		return PEAK_FREQ_LOAD_AVX512_INT;
	case CPU_CHAIN_AVX512_FP: /* linpack's zmm solves: the FMA units' load */
	case CPU_CHAIN_AVX512_FMA_LOAD:
		return PEAK_FREQ_LOAD_AVX512_FMA;
	case CPU_CHAIN_AVX512_IMUL_LOAD:
		return PEAK_FREQ_LOAD_AVX512_IMUL;
	case CPU_CHAIN_AVX512_BF16_LOAD:
		return PEAK_FREQ_LOAD_AVX512_BF16;
	case CPU_CHAIN_AVX512_VNNI_LOAD:
		return PEAK_FREQ_LOAD_AVX512_VNNI;
	case CPU_CHAIN_AVX512_FP16_LOAD:
		return PEAK_FREQ_LOAD_AVX512_FP16;
	case CPU_CHAIN_AMX_LOAD:
		return PEAK_FREQ_LOAD_AMX;
	default:
		break;
	}
	return PEAK_FREQ_LOAD_NONE;
}
