/* The x86-64 loaded chains (peak_freq_load.h): imul r64 links with independent vector
 * instructions between them, in eight accumulators (registers 0-7; 8 and 9 hold zero
 * operands, so no lane ever leaves zero and no denormal appears). Two instructions a
 * link reuse an accumulator every fourth link (12 cycles), fewer less often: longer than
 * any FMA's latency (4-5) or vpmulld's (10 on Intel, by uops.info), so the vector work
 * never waits on itself and the imul chain alone sets the time. */
#include <stdint.h>

#include "peak_freq_load.h"
#include "peak_isa.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

#define IM "imulq %[k], %[x]\n\t"
#define V_AVX512_FMA(i)  "vfmadd231pd %%zmm9, %%zmm8, %%zmm" #i "\n\t"
#define V_AVX512_IMUL(i) "vpmulld %%zmm8, %%zmm" #i ", %%zmm" #i "\n\t"
#define V_NONE(i)        ""

/* Two vector instructions a link over four links; one and a half over sixteen; one a
 * link, or half, over eight. */
#define D2(V)  IM V(0) V(1) IM V(2) V(3) IM V(4) V(5) IM V(6) V(7)
#define D15(V) IM V(0) V(1) IM V(2) IM V(3) V(4) IM V(5) IM V(6) V(7) IM V(0) IM V(1) V(2) \
	IM V(3) IM V(4) V(5) IM V(6) IM V(7) V(0) IM V(1) IM V(2) V(3) IM V(4) IM V(5) V(6) IM V(7)
#define D1(V)  IM V(0) IM V(1) IM V(2) IM V(3) IM V(4) IM V(5) IM V(6) IM V(7)
#define DH(V)  IM V(0) IM IM V(1) IM IM V(2) IM IM V(3) IM
/* A body is PEAK_FREQ_LOAD_LINKS links. */
#define BODY_2(V)  D2(V) D2(V) D2(V) D2(V)
#define BODY_15(V) D15(V)
#define BODY_1(V)  D1(V) D1(V)
#define BODY_H(V)  DH(V) DH(V)

#define ZERO(i) "vpxor %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
#define ZERO_ALL ZERO(0) ZERO(1) ZERO(2) ZERO(3) ZERO(4) ZERO(5) ZERO(6) ZERO(7) ZERO(8) ZERO(9)

/* clang-format off */
#define DEF_LOADED(fn, body)                                                                       \
	static uint64_t fn(uint64_t iters)                                                         \
	{                                                                                          \
		uint64_t x = PEAK_FREQ_LOAD_START, k = PEAK_FREQ_LOAD_K, n = iters;                \
		if (!n)                                                                            \
			return x;                                                                  \
		__asm__ volatile(ZERO_ALL                                                          \
				 ".p2align 6\n"                                                   \
				 "1:\n\t" body                                                     \
				 "decq %[n]\n\t"                                                   \
				 "jnz 1b\n\t"                                                      \
				 "vzeroupper\n\t"                                                  \
				 : [x] "+r"(x), [n] "+r"(n)                                        \
				 : [k] "r"(k)                                                      \
				 : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",   \
				   "xmm7", "xmm8", "xmm9");                                        \
		return x;                                                                          \
	}

/* The plain chain has no vector instruction, but the same loop, so it runs no vpxor. */
static uint64_t plain(uint64_t iters)
{
	uint64_t x = PEAK_FREQ_LOAD_START, k = PEAK_FREQ_LOAD_K, n = iters;
	if (!n)
		return x;
	__asm__ volatile(".p2align 6\n"
			 "1:\n\t" BODY_1(V_NONE)
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 : [x] "+r"(x), [n] "+r"(n)
			 : [k] "r"(k)
			 : "cc");
	return x;
}

DEF_LOADED(avx512_fma_full, BODY_2(V_AVX512_FMA))
DEF_LOADED(avx512_fma_light, BODY_15(V_AVX512_FMA))
DEF_LOADED(avx512_imul_full, BODY_1(V_AVX512_IMUL))
DEF_LOADED(avx512_imul_light, BODY_H(V_AVX512_IMUL))
/* clang-format on */

/* The features each load's instructions need (vpxor xmm: AVX). */
static const unsigned need[PEAK_FREQ_LOAD_COUNT] = {
    [PEAK_FREQ_LOAD_NONE] = 0,
    [PEAK_FREQ_LOAD_AVX512_FMA] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AVX512_IMUL] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
};

bool peak_freq_load_runs_here(enum peak_freq_load load)
{
	if ((unsigned)load >= PEAK_FREQ_LOAD_COUNT)
		return false;
	return !need[load] || peak_cpu_can_run(need[load], NULL, 0);
}

uint64_t peak_freq_load_run(enum peak_freq_load load, enum peak_freq_density d, uint64_t iters)
{
	static uint64_t (*const fns[PEAK_FREQ_LOAD_COUNT][2])(uint64_t) = {
	    [PEAK_FREQ_LOAD_NONE] = {plain, plain},
	    [PEAK_FREQ_LOAD_AVX512_FMA] = {avx512_fma_full, avx512_fma_light},
	    [PEAK_FREQ_LOAD_AVX512_IMUL] = {avx512_imul_full, avx512_imul_light},
	};
	if ((unsigned)load >= PEAK_FREQ_LOAD_COUNT)
		return 0;
	return fns[load][d == PEAK_FREQ_LIGHT](iters);
}
