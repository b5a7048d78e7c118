/* The x86-64 loaded chains (peak_freq_load.h): imul r64 links with independent vector
 * instructions between them, in eight accumulators (registers 0-7; 8 and 9 hold zero
 * operands, so no lane ever leaves zero and no denormal appears). Two instructions a
 * link reuse an accumulator every fourth link (12 cycles), fewer less often: longer than
 * any FMA's latency (4-5) or vpmulld's (10 on Intel, by uops.info), so the vector work
 * never waits on itself and the imul chain alone sets the time. */
#include <stdint.h>

#include "peak_formats_x86.h"
#include "peak_freq_load.h"
#include "peak_isa.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

#define IM               "imulq %[k], %[x]\n\t"
#define V_AVX512_FMA(i)  "vfmadd231pd %%zmm9, %%zmm8, %%zmm" #i "\n\t"
#define V_AVX512_IMUL(i) "vpmulld %%zmm8, %%zmm" #i ", %%zmm" #i "\n\t"
#define V_NONE(i)        ""
#define V_BF16(i)        "vdpbf16ps %%zmm9, %%zmm8, %%zmm" #i "\n\t"
#define V_VNNI(i)        "vpdpbusd %%zmm9, %%zmm8, %%zmm" #i "\n\t"
#define V_FP16(i)        "vfmadd231ph %%zmm9, %%zmm8, %%zmm" #i "\n\t"
/* The 256- and 512-bit classes write each accumulator from the two zero registers: no
 * instruction waits on another, whatever the class's latency. The SSE classes are the
 * legacy two-operand forms (a core with SSE2 and no AVX runs them): each adds zero to its
 * accumulator, reused every fourth link as above. */
#define V_SSE_FP(i)     "addpd %%xmm8, %%xmm" #i "\n\t"
#define V_SSE_INT(i)    "paddq %%xmm8, %%xmm" #i "\n\t"
#define V_AVX_FP(i)     "vmulpd %%ymm9, %%ymm8, %%ymm" #i "\n\t"
#define V_AVX2_INT(i)   "vpaddq %%ymm9, %%ymm8, %%ymm" #i "\n\t"
#define V_AVX512_INT(i) "vpaddq %%zmm9, %%zmm8, %%zmm" #i "\n\t"

/* Two vector instructions a link over four links; one and a half over sixteen; one a
 * link, or half, over eight. */
#define D2(V) IM V(0) V(1) IM V(2) V(3) IM V(4) V(5) IM V(6) V(7)
#define D15(V)                                                                                     \
	IM V(0) V(1) IM V(2) IM V(3) V(4) IM V(5) IM V(6) V(7) IM V(0) IM V(1) V(2) IM V(3)        \
	    IM V(4) V(5) IM V(6) IM V(7) V(0) IM V(1) IM V(2) V(3) IM V(4) IM V(5) V(6) IM V(7)
#define D1(V) IM V(0) IM V(1) IM V(2) IM V(3) IM V(4) IM V(5) IM V(6) IM V(7)
#define DH(V) IM V(0) IM IM V(1) IM IM V(2) IM IM V(3) IM
/* A body is PEAK_FREQ_LOAD_LINKS links. */
#define BODY_2(V)  D2(V) D2(V) D2(V) D2(V)
#define BODY_15(V) D15(V)
#define BODY_1(V)  D1(V) D1(V)
#define BODY_H(V)  DH(V) DH(V)

#define ZERO(i)  "vpxor %%xmm" #i ", %%xmm" #i ", %%xmm" #i "\n\t"
#define ZERO_ALL ZERO(0) ZERO(1) ZERO(2) ZERO(3) ZERO(4) ZERO(5) ZERO(6) ZERO(7) ZERO(8) ZERO(9)

/* The SSE loads in legacy encoding throughout: pxor to zero, and no vzeroupper (AVX's). */
#define PZERO(i)  "pxor %%xmm" #i ", %%xmm" #i "\n\t"
#define PZERO_ALL PZERO(0) PZERO(1) PZERO(2) PZERO(3) PZERO(4) PZERO(5) PZERO(6) PZERO(7) PZERO(8)

/* One loaded chain: zero the registers (zero), run the body iters times, then tail. */
/* clang-format off */
#define DEF_LOADED_AS(fn, body, zero, tail)                                                        \
	static uint64_t fn(uint64_t iters)                                                         \
	{                                                                                          \
		uint64_t x = PEAK_FREQ_LOAD_START, k = PEAK_FREQ_LOAD_K, n = iters;                \
		if (!n)                                                                            \
			return x;                                                                  \
		__asm__ volatile(zero                                                              \
				 ".p2align 6\n"                                                   \
				 "1:\n\t" body                                                     \
				 "decq %[n]\n\t"                                                   \
				 "jnz 1b\n\t"                                                      \
				 tail                                                              \
				 : [x] "+r"(x), [n] "+r"(n)                                        \
				 : [k] "r"(k)                                                      \
				 : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",   \
				   "xmm7", "xmm8", "xmm9");                                        \
		return x;                                                                          \
	}
#define DEF_LOADED(fn, body)     DEF_LOADED_AS(fn, body, ZERO_ALL, "vzeroupper\n\t")
#define DEF_LOADED_SSE(fn, body) DEF_LOADED_AS(fn, body, PZERO_ALL, "")

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
DEF_LOADED(bf16_full, BODY_2(V_BF16))
DEF_LOADED(bf16_light, BODY_15(V_BF16))
DEF_LOADED(vnni_full, BODY_2(V_VNNI))
DEF_LOADED(vnni_light, BODY_15(V_VNNI))
DEF_LOADED(fp16_full, BODY_2(V_FP16))
DEF_LOADED(fp16_light, BODY_15(V_FP16))
DEF_LOADED_SSE(sse_fp_full, BODY_2(V_SSE_FP))
DEF_LOADED_SSE(sse_fp_light, BODY_15(V_SSE_FP))
DEF_LOADED_SSE(sse_int_full, BODY_2(V_SSE_INT))
DEF_LOADED_SSE(sse_int_light, BODY_15(V_SSE_INT))
DEF_LOADED(avx_fp_full, BODY_2(V_AVX_FP))
DEF_LOADED(avx_fp_light, BODY_15(V_AVX_FP))
DEF_LOADED(avx2_int_full, BODY_2(V_AVX2_INT))
DEF_LOADED(avx2_int_light, BODY_15(V_AVX2_INT))
DEF_LOADED(avx512_int_full, BODY_2(V_AVX512_INT))
DEF_LOADED(avx512_int_light, BODY_15(V_AVX512_INT))
/* clang-format on */

/* AMX: 16 links with two (full) or one (light) tdpbf16ps between them; four bodies in
 * turn, so each accumulator (tmm0-3) waits 96 cycles or more for its next multiply, past
 * the tile unit's latency; A and B are the zero tiles ldtilecfg leaves. The loop leaves
 * after any body: n need not be a multiple of four. */
struct amx_cfg {
	unsigned char palette, start_row, reserved[14];
	unsigned short colsb[16];
	unsigned char rows[16];
};
#define T(c)       "tdpbf16ps %%tmm6, %%tmm4, %%tmm" #c "\n\t"
#define L8         IM IM IM IM IM IM IM IM
#define FULL(a, b) T(a) L8 T(b) L8
#define LIGHT(a)   T(a) L8 L8
#define NEXT                                                                                       \
	"decq %[n]\n\t"                                                                            \
	"jz 2f\n\t"
#define DEF_AMX_LOADED(fn, b0, b1, b2, b3)                                                         \
	static uint64_t fn(uint64_t iters)                                                         \
	{                                                                                          \
		uint64_t x = PEAK_FREQ_LOAD_START, k = PEAK_FREQ_LOAD_K, n = iters;                \
		_Alignas(64) struct amx_cfg cfg = {.palette = 1};                                  \
		for (int i = 0; i < 8; i++)                                                        \
			cfg.colsb[i] = 64, cfg.rows[i] = 16;                                       \
		if (!n || !peak_amx_request(NULL, 0))                                              \
			return n ? 0 : x;                                                          \
		__asm__ volatile("ldtilecfg (%[cfg])\n\t"                                          \
				 ".p2align 6\n"                                                    \
				 "1:\n\t" b0 NEXT b1 NEXT b2 NEXT b3 "decq %[n]\n\t"               \
				 "jnz 1b\n"                                                        \
				 "2:\n\t"                                                          \
				 "tilerelease\n\t"                                                 \
				 : [x] "+r"(x), [n] "+r"(n)                                        \
				 : [k] "r"(k), [cfg] "r"(&cfg)                                     \
				 : "cc", "memory");                                                \
		return x;                                                                          \
	}
DEF_AMX_LOADED(amx_full, FULL(0, 1), FULL(2, 3), FULL(0, 1), FULL(2, 3))
DEF_AMX_LOADED(amx_light, LIGHT(0), LIGHT(1), LIGHT(2), LIGHT(3))

/* The features each load's instructions need (vpxor xmm: AVX). */
static const unsigned need[PEAK_FREQ_LOAD_COUNT] = {
    [PEAK_FREQ_LOAD_NONE] = 0,
    [PEAK_FREQ_LOAD_AVX512_FMA] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AVX512_IMUL] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AVX512_BF16] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AVX512_VNNI] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AVX512_FP16] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
    [PEAK_FREQ_LOAD_AMX] = PEAK_FEAT_AVX,
    [PEAK_FREQ_LOAD_SSE_FP] = PEAK_FEAT_SSE2,
    [PEAK_FREQ_LOAD_SSE_INT] = PEAK_FEAT_SSE2,
    [PEAK_FREQ_LOAD_AVX_FP] = PEAK_FEAT_AVX,
    [PEAK_FREQ_LOAD_AVX2_INT] = PEAK_FEAT_AVX | PEAK_FEAT_AVX2,
    [PEAK_FREQ_LOAD_AVX512_INT] = PEAK_FEAT_AVX | PEAK_FEAT_AVX512F,
};
/* ... and the number-format extension each needs (peak_formats_x86.h). */
static const unsigned need_fmt[PEAK_FREQ_LOAD_COUNT] = {
    [PEAK_FREQ_LOAD_AVX512_BF16] = PEAK_FMTF_AVX512_BF16,
    [PEAK_FREQ_LOAD_AVX512_VNNI] = PEAK_FMTF_AVX512_VNNI,
    [PEAK_FREQ_LOAD_AVX512_FP16] = PEAK_FMTF_AVX512_FP16,
    [PEAK_FREQ_LOAD_AMX] = PEAK_FMTF_AMX_TILE | PEAK_FMTF_AMX_BF16,
};

bool peak_freq_load_runs_here(enum peak_freq_load load)
{
	if ((unsigned)load >= PEAK_FREQ_LOAD_COUNT)
		return false;
	if (need[load] && !peak_cpu_can_run(need[load], NULL, 0))
		return false;
	if (need_fmt[load] && !peak_fmt_can_run(need_fmt[load], NULL, 0))
		return false;
	return load != PEAK_FREQ_LOAD_AMX || peak_amx_request(NULL, 0);
}

uint64_t peak_freq_load_run(enum peak_freq_load load, enum peak_freq_density d, uint64_t iters)
{
	static uint64_t (*const fns[PEAK_FREQ_LOAD_COUNT][2])(uint64_t) = {
	    [PEAK_FREQ_LOAD_NONE] = {plain, plain},
	    [PEAK_FREQ_LOAD_AVX512_FMA] = {avx512_fma_full, avx512_fma_light},
	    [PEAK_FREQ_LOAD_AVX512_IMUL] = {avx512_imul_full, avx512_imul_light},
	    [PEAK_FREQ_LOAD_AVX512_BF16] = {bf16_full, bf16_light},
	    [PEAK_FREQ_LOAD_AVX512_VNNI] = {vnni_full, vnni_light},
	    [PEAK_FREQ_LOAD_AVX512_FP16] = {fp16_full, fp16_light},
	    [PEAK_FREQ_LOAD_AMX] = {amx_full, amx_light},
	    [PEAK_FREQ_LOAD_SSE_FP] = {sse_fp_full, sse_fp_light},
	    [PEAK_FREQ_LOAD_SSE_INT] = {sse_int_full, sse_int_light},
	    [PEAK_FREQ_LOAD_AVX_FP] = {avx_fp_full, avx_fp_light},
	    [PEAK_FREQ_LOAD_AVX2_INT] = {avx2_int_full, avx2_int_light},
	    [PEAK_FREQ_LOAD_AVX512_INT] = {avx512_int_full, avx512_int_light},
	};
	if ((unsigned)load >= PEAK_FREQ_LOAD_COUNT)
		return 0;
	return fns[load][d == PEAK_FREQ_LIGHT](iters);
}
