/* The instruction-class loops: one inline-asm loop per class (FMA, add+mul, integer add,
 * integer multiply mix) and width, shared by the probe (peak_uarch_probe.c), which reads
 * the core's per-cycle rate from them, and by cpubench, which runs the very same loops on
 * its verified accumulators. One definition, so a kernel cannot fall short of the probe
 * for a reason of its own (docs/cpu.md). */
#ifndef PEAK_LOOPS_H
#define PEAK_LOOPS_H

#include <stdint.h>

/* Chains per loop: 12 in vector registers 0-11 (operands in 12-14), 10 in general-purpose
 * registers (operands in two more). 12 vector chains hide a latency of 6 cycles on 2
 * pipes, 4 on 3, 3 on 4, or pmulld's 10 on one (Intel); 10 GPR chains feed 10 ALUs (x86
 * cores have at most 6) and hide imul's 3 cycles on 3 multipliers. */
#define PEAK_LOOP_VCHAINS 12
#define PEAK_LOOP_GCHAINS 10
/* Each loop iteration runs its block this many times, so the loop's own dec/jnz is about
 * 1% of the instructions, and every chain advances PEAK_LOOP_STEPS dependent steps. */
#define PEAK_LOOP_REPS  4
#define PEAK_LOOP_STEPS (2 * PEAK_LOOP_REPS)

/* The multipliers of the scalar multiply loops are immediates (imul's register form runs
 * at 5/6 of a multiply per cycle on Zen 4): odd, so no lane ever reaches 0, and within
 * imm32. */
#define PEAK_LOOP_IMUL64_K 1103515245
#define PEAK_LOOP_IMUL32_K 1664525

/* The registers a loop starts from and ends with. v[0..11] are the vector chains and
 * v[12..14] the operands, as many bytes of each as the loop's width; g[0..9] are the
 * general-purpose chains and g[10..11] the operands. */
struct peak_loop_regs {
	_Alignas(64) unsigned char v[15][64];
	uint64_t g[12];
};

/* Run n iterations (n >= 1; 0 does nothing) on r, leaving the chains' values in r. The
 * caller runs a loop only when its ISA runs here. Operands per kind:
 *   fma:    x = x*v12 + v13, then x = x*v14 + v14 (vfmadd213)
 *   addmul: chains 0-5 x + v12 then x - v12; chains 6-11 x * v13 then x * v14
 *   add:    x += op0, then x += op1 (vector: v12, v13; GPR: g10, g11)
 *   mul:    x = x*op0, twice (vector: v12; GPR: the immediate PEAK_LOOP_IMUL*_K) */
typedef void (*peak_loop_fn)(struct peak_loop_regs *r, uint64_t n);

#define PEAK_LOOP_PROTO(name) void name(struct peak_loop_regs *r, uint64_t n)

/* Scalar loops exist on every architecture: x86-64 (peak_loops_x86.c, SSE/AVX registers)
 * and aarch64 (peak_loops_arm64.c: fmadd, fadd/fsub/fmul, add, mul on d/s and x/w
 * registers, the same operands and so the same closed forms). */
PEAK_LOOP_PROTO(peak_loop_scalar_sp_fma);
PEAK_LOOP_PROTO(peak_loop_scalar_dp_fma);
PEAK_LOOP_PROTO(peak_loop_scalar_sp_addmul);
PEAK_LOOP_PROTO(peak_loop_scalar_dp_addmul);
PEAK_LOOP_PROTO(peak_loop_scalar_i32_add);
PEAK_LOOP_PROTO(peak_loop_scalar_i64_add);
PEAK_LOOP_PROTO(peak_loop_scalar_i32_mul);
PEAK_LOOP_PROTO(peak_loop_scalar_i64_mul);
/* FP add latency chains (the probe's): twelve dependent adds on register 0 per block,
 * PEAK_LOOP_LAT_REPS blocks per iteration; r is unused. addsd / fadd d. */
#define PEAK_LOOP_LAT_REPS 8
PEAK_LOOP_PROTO(peak_loop_lat_fp64);

#if defined(__x86_64__)
/* vaddpd ymm / zmm latency chains */
PEAK_LOOP_PROTO(peak_loop_lat_fp256);
PEAK_LOOP_PROTO(peak_loop_lat_fp512);
/* FMA */
PEAK_LOOP_PROTO(peak_loop_avx2_sp_fma);
PEAK_LOOP_PROTO(peak_loop_avx2_dp_fma);
PEAK_LOOP_PROTO(peak_loop_avx512_sp_fma);
PEAK_LOOP_PROTO(peak_loop_avx512_dp_fma);
/* add+mul, no FMA (scalar and sse in the legacy SSE encoding, avx and avx512 in VEX/EVEX) */
PEAK_LOOP_PROTO(peak_loop_sse_sp_addmul);
PEAK_LOOP_PROTO(peak_loop_sse_dp_addmul);
PEAK_LOOP_PROTO(peak_loop_avx_sp_addmul);
PEAK_LOOP_PROTO(peak_loop_avx_dp_addmul);
PEAK_LOOP_PROTO(peak_loop_avx512_dp_addmul);
/* integer add */
PEAK_LOOP_PROTO(peak_loop_sse_i32_add);
PEAK_LOOP_PROTO(peak_loop_sse_i64_add);
PEAK_LOOP_PROTO(peak_loop_avx2_i32_add);
PEAK_LOOP_PROTO(peak_loop_avx2_i64_add);
PEAK_LOOP_PROTO(peak_loop_avx512_i32_add);
PEAK_LOOP_PROTO(peak_loop_avx512_i64_add);
/* integer multiply, nothing beside it: on Zen 3 an add beside each pmulld takes the
 * multiplier's pipes a share of the time, and 2 multiplies per cycle read 1.6 (pmulld is
 * SSE4.1, vpmullq AVX-512DQ) */
PEAK_LOOP_PROTO(peak_loop_sse_i32_mul);
PEAK_LOOP_PROTO(peak_loop_avx2_i32_mul);
PEAK_LOOP_PROTO(peak_loop_avx512_i32_mul);
PEAK_LOOP_PROTO(peak_loop_avx512_i64_mul);
#else
/* The x86 vector ISAs do not exist on this architecture: their loops are NULL, and the
 * kernels and probe classes that name them stay in their tables, reported unsupported
 * (their ISA check fails first: peak_isa.c). */
#define peak_loop_lat_fp256        ((peak_loop_fn)0)
#define peak_loop_lat_fp512        ((peak_loop_fn)0)
#define peak_loop_avx2_sp_fma      ((peak_loop_fn)0)
#define peak_loop_avx2_dp_fma      ((peak_loop_fn)0)
#define peak_loop_avx512_sp_fma    ((peak_loop_fn)0)
#define peak_loop_avx512_dp_fma    ((peak_loop_fn)0)
#define peak_loop_sse_sp_addmul    ((peak_loop_fn)0)
#define peak_loop_sse_dp_addmul    ((peak_loop_fn)0)
#define peak_loop_avx_sp_addmul    ((peak_loop_fn)0)
#define peak_loop_avx_dp_addmul    ((peak_loop_fn)0)
#define peak_loop_avx512_dp_addmul ((peak_loop_fn)0)
#define peak_loop_sse_i32_add      ((peak_loop_fn)0)
#define peak_loop_sse_i64_add      ((peak_loop_fn)0)
#define peak_loop_avx2_i32_add     ((peak_loop_fn)0)
#define peak_loop_avx2_i64_add     ((peak_loop_fn)0)
#define peak_loop_avx512_i32_add   ((peak_loop_fn)0)
#define peak_loop_avx512_i64_add   ((peak_loop_fn)0)
#define peak_loop_sse_i32_mul      ((peak_loop_fn)0)
#define peak_loop_avx2_i32_mul     ((peak_loop_fn)0)
#define peak_loop_avx512_i32_mul   ((peak_loop_fn)0)
#define peak_loop_avx512_i64_mul   ((peak_loop_fn)0)
#endif

#if defined(__aarch64__)
/* NEON (Advanced SIMD, 128-bit, every AArch64 core): fmla, fadd/fsub/fmul, add, mul on
 * v registers, the same operands as the x86 loops (peak_loops_arm64.c). */
PEAK_LOOP_PROTO(peak_loop_neon_sp_fma);
PEAK_LOOP_PROTO(peak_loop_neon_dp_fma);
PEAK_LOOP_PROTO(peak_loop_neon_sp_addmul);
PEAK_LOOP_PROTO(peak_loop_neon_dp_addmul);
PEAK_LOOP_PROTO(peak_loop_neon_i32_add);
PEAK_LOOP_PROTO(peak_loop_neon_i64_add);
PEAK_LOOP_PROTO(peak_loop_neon_i32_mul);
/* SVE at this process's vector length (peak_loops_sve.c, compiled for +sve, run only
 * with HWCAP_SVE and a length of at most 512 bits, what struct peak_loop_regs holds):
 * fmad (x = x*v12 + v13, then x*v14 + v14: x86's form), fadd/fsub + fmul, add, mul. */
#define PEAK_LOOP_SVE_MAX_BITS 512
PEAK_LOOP_PROTO(peak_loop_sve_sp_fma);
PEAK_LOOP_PROTO(peak_loop_sve_dp_fma);
PEAK_LOOP_PROTO(peak_loop_sve_sp_addmul);
PEAK_LOOP_PROTO(peak_loop_sve_dp_addmul);
PEAK_LOOP_PROTO(peak_loop_sve_i32_add);
PEAK_LOOP_PROTO(peak_loop_sve_i64_add);
PEAK_LOOP_PROTO(peak_loop_sve_i32_mul);
PEAK_LOOP_PROTO(peak_loop_sve_i64_mul);
/* Number formats (peak_loops_arm64_formats.c; run only where HWCAP/HWCAP2 report them):
 * chains v0-v11 are .4s accumulators (fp32 for BF16, int32 for INT8), each advanced by
 * (v12, v13) then (v12, v14). bfdot and bfmmla need FEAT_BF16 (HWCAP2_BF16), sdot the dot
 * product (HWCAP_ASIMDDP), smmla FEAT_I8MM (HWCAP2_I8MM). */
PEAK_LOOP_PROTO(peak_loop_neon_bf16_dot);
PEAK_LOOP_PROTO(peak_loop_neon_bf16_mmla);
PEAK_LOOP_PROTO(peak_loop_neon_int8_dot);
PEAK_LOOP_PROTO(peak_loop_neon_int8_mmla);
#endif

#endif
