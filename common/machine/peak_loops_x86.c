/* The x86-64 instruction-class loops (peak_loops.h): each is one asm statement that loads its
 * registers from struct peak_loop_regs, runs a 64-byte-aligned loop of PEAK_LOOP_REPS
 * copies of its block, and stores the chains back. The compiler needs no target attribute
 * for them: the assembler takes any instruction, and callers run only what runs here. */
#include <stddef.h>

#include "peak_loops.h"
#include "peak_loops_macros.h"


/* Each loop starts on a 64-byte boundary, so no figure depends on where the linker places
 * it (front ends fetch in aligned blocks). */
#define LOOP(block)                                                                                \
	".p2align 6\n"                                                                            \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_REPS) "\n\t" block ".endr\n\t"                                      \
	"decq %[n]\n\t"                                                                            \
	"jnz 1b\n\t"


/* ---- vector loops: W is the register file, "xmm", "ymm" or "zmm" ---- */

#define R(W, i) "%%" W #i
/* i = i op s, legacy two-operand SSE encoding (no VEX: the SSE rows measure SSE code). */
#define I2(i, W, op, s) op " " R(W, s) ", " R(W, i) "\n\t"
/* i = i op s, VEX or EVEX three-operand encoding. */
#define I3(i, W, op, s) op " " R(W, s) ", " R(W, i) ", " R(W, i) "\n\t"

/* x = x*v12 + v13, then x = x*v14 + v14 (AT&T vfmadd213 s3, s2, d: d = s2*d + s3). */
#define FMA_F(i, W, op)      op " " R(W, 13) ", " R(W, 12) ", " R(W, i) "\n\t"
#define FMA_G(i, W, op)      op " " R(W, 14) ", " R(W, 14) ", " R(W, i) "\n\t"
#define FMA_BLOCK(W, op)     X12(FMA_F, W, op) X12(FMA_G, W, op)
#define AM_1(a, m, F, W, add, sub, mul) F(a, W, add, 12) F(m, W, mul, 13)
#define AM_2(a, m, F, W, add, sub, mul) F(a, W, sub, 12) F(m, W, mul, 14)
#define ADDMUL_BLOCK(F, W, add, sub, mul)                                                          \
	P6(AM_1, F, W, add, sub, mul) P6(AM_2, F, W, add, sub, mul)
#define IADD_BLOCK(F, W, op) X12(F, W, op, 12) X12(F, W, op, 13)
#define IMUL_BLOCK(F, W, mul) X12(F, W, mul, 12) X12(F, W, mul, 12)

#define V_LD(i, W, mov) mov " " #i "*64(%[r]), " R(W, i) "\n\t"
#define V_ST(i, W, mov) mov " " R(W, i) ", " #i "*64(%[r])\n\t"
#define CLOBBER_V                                                                                  \
	"cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",    \
	    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14"

/* mov: movdqu (legacy SSE), vmovdqu (VEX) or vmovdqu64 (EVEX); tail: vzeroupper after VEX
 * and EVEX code, so legacy SSE code after it pays no transition. */
#define DEF_VLOOP(fn, W, mov, block, tail)                                                         \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X15(V_LD, W, mov) LOOP(block) X12(V_ST, W, mov) tail              \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r)                                                      \
				 : CLOBBER_V);                                                     \
	}

#define VZ "vzeroupper\n\t"
/* clang-format off */
DEF_VLOOP(peak_loop_scalar_sp_fma, "xmm", "vmovdqu", FMA_BLOCK("xmm", "vfmadd213ss"), VZ)
DEF_VLOOP(peak_loop_scalar_dp_fma, "xmm", "vmovdqu", FMA_BLOCK("xmm", "vfmadd213sd"), VZ)
DEF_VLOOP(peak_loop_avx2_sp_fma, "ymm", "vmovdqu", FMA_BLOCK("ymm", "vfmadd213ps"), VZ)
DEF_VLOOP(peak_loop_avx2_dp_fma, "ymm", "vmovdqu", FMA_BLOCK("ymm", "vfmadd213pd"), VZ)
DEF_VLOOP(peak_loop_avx512_sp_fma, "zmm", "vmovdqu64", FMA_BLOCK("zmm", "vfmadd213ps"), VZ)
DEF_VLOOP(peak_loop_avx512_dp_fma, "zmm", "vmovdqu64", FMA_BLOCK("zmm", "vfmadd213pd"), VZ)

DEF_VLOOP(peak_loop_scalar_sp_addmul, "xmm", "movdqu", ADDMUL_BLOCK(I2, "xmm", "addss", "subss", "mulss"), "")
DEF_VLOOP(peak_loop_scalar_dp_addmul, "xmm", "movdqu", ADDMUL_BLOCK(I2, "xmm", "addsd", "subsd", "mulsd"), "")
DEF_VLOOP(peak_loop_sse_sp_addmul, "xmm", "movdqu", ADDMUL_BLOCK(I2, "xmm", "addps", "subps", "mulps"), "")
DEF_VLOOP(peak_loop_sse_dp_addmul, "xmm", "movdqu", ADDMUL_BLOCK(I2, "xmm", "addpd", "subpd", "mulpd"), "")
DEF_VLOOP(peak_loop_avx_sp_addmul, "ymm", "vmovdqu", ADDMUL_BLOCK(I3, "ymm", "vaddps", "vsubps", "vmulps"), VZ)
DEF_VLOOP(peak_loop_avx_dp_addmul, "ymm", "vmovdqu", ADDMUL_BLOCK(I3, "ymm", "vaddpd", "vsubpd", "vmulpd"), VZ)
DEF_VLOOP(peak_loop_avx512_dp_addmul, "zmm", "vmovdqu64", ADDMUL_BLOCK(I3, "zmm", "vaddpd", "vsubpd", "vmulpd"), VZ)

DEF_VLOOP(peak_loop_sse_i32_add, "xmm", "movdqu", IADD_BLOCK(I2, "xmm", "paddd"), "")
DEF_VLOOP(peak_loop_sse_i64_add, "xmm", "movdqu", IADD_BLOCK(I2, "xmm", "paddq"), "")
DEF_VLOOP(peak_loop_avx2_i32_add, "ymm", "vmovdqu", IADD_BLOCK(I3, "ymm", "vpaddd"), VZ)
DEF_VLOOP(peak_loop_avx2_i64_add, "ymm", "vmovdqu", IADD_BLOCK(I3, "ymm", "vpaddq"), VZ)
DEF_VLOOP(peak_loop_avx512_i32_add, "zmm", "vmovdqu64", IADD_BLOCK(I3, "zmm", "vpaddd"), VZ)
DEF_VLOOP(peak_loop_avx512_i64_add, "zmm", "vmovdqu64", IADD_BLOCK(I3, "zmm", "vpaddq"), VZ)

DEF_VLOOP(peak_loop_sse_i32_mul, "xmm", "movdqu", IMUL_BLOCK(I2, "xmm", "pmulld"), "")
DEF_VLOOP(peak_loop_avx2_i32_mul, "ymm", "vmovdqu", IMUL_BLOCK(I3, "ymm", "vpmulld"), VZ)
DEF_VLOOP(peak_loop_avx512_i32_mul, "zmm", "vmovdqu64", IMUL_BLOCK(I3, "zmm", "vpmulld"), VZ)
DEF_VLOOP(peak_loop_avx512_i64_mul, "zmm", "vmovdqu64", IMUL_BLOCK(I3, "zmm", "vpmullq"), VZ)
/* clang-format on */

/* ---- general-purpose loops: chains in the 14 registers every build leaves free ---- */

/* Chain i's register, 64- or 32-bit; 10 and 11 hold the operands. rbp (the frame pointer
 * of sanitizer builds) and rsp stay out; [r] and [n] get rsi and rdi. */
#define G64_0  "rax"
#define G64_1  "rcx"
#define G64_2  "rdx"
#define G64_3  "r8"
#define G64_4  "r9"
#define G64_5  "r10"
#define G64_6  "r11"
#define G64_7  "r12"
#define G64_8  "r13"
#define G64_9  "r14"
#define G64_10 "rbx"
#define G64_11 "r15"
#define G32_0  "eax"
#define G32_1  "ecx"
#define G32_2  "edx"
#define G32_3  "r8d"
#define G32_4  "r9d"
#define G32_5  "r10d"
#define G32_6  "r11d"
#define G32_7  "r12d"
#define G32_8  "r13d"
#define G32_9  "r14d"
#define G32_10 "ebx"
#define G32_11 "r15d"
#define GR(sz, i) "%%" G##sz##_##i

#define G_OP(i, sz, op, s) op " " GR(sz, s) ", " GR(sz, i) "\n\t"
/* x = x*K: imul's immediate form. */
#define G_IMUL(i, sz, imul, k) imul " $" STR(k) ", " GR(sz, i) ", " GR(sz, i) "\n\t"
#define GADD_BLOCK(sz, op)          X10(G_OP, sz, op, 10) X10(G_OP, sz, op, 11)
#define GIMUL_BLOCK(sz, imul, k)    X10(G_IMUL, sz, imul, k) X10(G_IMUL, sz, imul, k)

#define G_LD(i, sz, mov) mov " " #i "*8+%c[g](%[r]), " GR(sz, i) "\n\t"
#define G_ST(i, sz, mov) mov " " GR(sz, i) ", " #i "*8+%c[g](%[r])\n\t"
#define CLOBBER_G                                                                                  \
	"cc", "memory", "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13", "r14", \
	    "r15"

#define DEF_GLOOP(fn, sz, mov, block)                                                              \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X12(G_LD, sz, mov) LOOP(block) X10(G_ST, sz, mov)                 \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r), [g] "i"(offsetof(struct peak_loop_regs, g))         \
				 : CLOBBER_G);                                                     \
	}

/* clang-format off */
DEF_GLOOP(peak_loop_scalar_i64_add, 64, "movq", GADD_BLOCK(64, "addq"))
DEF_GLOOP(peak_loop_scalar_i32_add, 32, "movl", GADD_BLOCK(32, "addl"))
DEF_GLOOP(peak_loop_scalar_i64_mul, 64, "movq", GIMUL_BLOCK(64, "imulq", PEAK_LOOP_IMUL64_K))
DEF_GLOOP(peak_loop_scalar_i32_mul, 32, "movl", GIMUL_BLOCK(32, "imull", PEAK_LOOP_IMUL32_K))
/* clang-format on */

/* ---- FP add latency chains (the probe's): twelve dependent adds on register 0 ---- */

#define LAT_LOOP(body)                                                                             \
	".p2align 6\n"                                                                            \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_LAT_REPS) "\n\t" body ".endr\n\t"                                   \
	"decq %[n]\n\t"                                                                            \
	"jnz 1b\n\t"
#define X12L(m) m(0) m(1) m(2) m(3) m(4) m(5) m(6) m(7) m(8) m(9) m(10) m(11)
#define LAT_S(i) "addsd %%xmm1, %%xmm0\n\t"
#define LAT_Y(i) "vaddpd %%ymm1, %%ymm0, %%ymm0\n\t"
#define LAT_Z(i) "vaddpd %%zmm1, %%zmm0, %%zmm0\n\t"
#define DEF_LAT(fn, zero, body, tail)                                                              \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		(void)r;                                                                           \
		if (n)                                                                             \
			__asm__ volatile(zero LAT_LOOP(body) tail                                  \
					 : [n] "+r"(n)                                             \
					 :                                                         \
					 : "cc", "xmm0", "xmm1");                                  \
	}
#define ZERO_S "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\t"
#define ZERO_V "vpxor %%xmm0, %%xmm0, %%xmm0\n\tvpxor %%xmm1, %%xmm1, %%xmm1\n\t"
DEF_LAT(peak_loop_lat_fp64, ZERO_S, X12L(LAT_S), "")
DEF_LAT(peak_loop_lat_fp256, ZERO_V, X12L(LAT_Y), "vzeroupper\n\t")
DEF_LAT(peak_loop_lat_fp512, ZERO_V, X12L(LAT_Z), "vzeroupper\n\t")
