/* The instruction-class loops on AArch64 (peak_loops.h): each is one asm statement that
 * loads its registers from struct peak_loop_regs, runs a 64-byte-aligned loop of
 * PEAK_LOOP_REPS copies of its block, and stores the chains back. Scalar loops use the
 * low lane of v0-v14 (d/s registers) and the general-purpose chains x4-x13 with operands
 * in x14, x15; NEON loops use whole v registers (.2d, .4s). */
#include <stddef.h>

#include "peak_loops.h"
#include "peak_loops_macros.h"

/* clang-format off */

/* The chains' offset in the struct: 15 vector registers of 64 bytes. */
#define G_OFF 960
_Static_assert(offsetof(struct peak_loop_regs, g) == G_OFF, "struct peak_loop_regs layout");

#define LOOP(block)                                                                                \
	".p2align 6\n"                                                                             \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_REPS) "\n\t" block ".endr\n\t"                                      \
	"subs %[n], %[n], #1\n\t"                                                                  \
	"b.ne 1b\n\t"


/* ---- FP and SIMD loops: pre and suf spell a register, "d", "s" (scalar) or "v" with the
 * NEON arrangement ".2d" / ".4s" ---- */

#define VR(i, pre, suf) pre #i suf
/* i = i op s */
#define OP3(i, pre, suf, op, s) op " " VR(i, pre, suf) ", " VR(i, pre, suf) ", " VR(s, pre, suf) "\n\t"

/* Scalar FMA, as x86's: x = x*v12 + v13, then x = x*v14 + v14 (fmadd d, n, m, a: n*m + a). */
#define FMADD_F(i, pre, suf) "fmadd " VR(i, pre, suf) ", " VR(i, pre, suf) ", " VR(12, pre, suf) ", " VR(13, pre, suf) "\n\t"
#define FMADD_G(i, pre, suf) "fmadd " VR(i, pre, suf) ", " VR(i, pre, suf) ", " VR(14, pre, suf) ", " VR(14, pre, suf) "\n\t"
#define FMADD_BLOCK(pre, suf) X12(FMADD_F, pre, suf) X12(FMADD_G, pre, suf)
/* NEON has no form that multiplies the accumulator: x = x + v12*v13 (fmla), then
 * x = x - v12*v13 (fmls). For cpubench's operands (2, -1) that is x - 2 + 2: the same
 * identity pair as x86's, exact for the small integers the chains start from. */
#define FMLA_F(i, pre, suf) "fmla " VR(i, pre, suf) ", " VR(12, pre, suf) ", " VR(13, pre, suf) "\n\t"
#define FMLS_G(i, pre, suf) "fmls " VR(i, pre, suf) ", " VR(12, pre, suf) ", " VR(13, pre, suf) "\n\t"
#define FMLA_BLOCK(pre, suf) X12(FMLA_F, pre, suf) X12(FMLS_G, pre, suf)
#define AM_1(a, m, pre, suf) OP3(a, pre, suf, "fadd", 12) OP3(m, pre, suf, "fmul", 13)
#define AM_2(a, m, pre, suf) OP3(a, pre, suf, "fsub", 12) OP3(m, pre, suf, "fmul", 14)
#define ADDMUL_BLOCK(pre, suf) P6(AM_1, pre, suf) P6(AM_2, pre, suf)
#define IADD_BLOCK(pre, suf) X12(OP3, pre, suf, "add", 12) X12(OP3, pre, suf, "add", 13)
#define IMUL_BLOCK(pre, suf) X12(OP3, pre, suf, "mul", 12) X12(OP3, pre, suf, "mul", 12)

/* Whole q registers in and out: the scalar loops use their low lane. */
#define V_LD(i, ...) "ldr q" #i ", [%[r], #" #i "*64]\n\t"
#define V_ST(i, ...) "str q" #i ", [%[r], #" #i "*64]\n\t"
#define CLOBBER_V                                                                                  \
	"cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",  \
	    "v12", "v13", "v14"

#define DEF_VLOOP(fn, block)                                                                       \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X15(V_LD) LOOP(block) X12(V_ST)                                   \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r)                                                      \
				 : CLOBBER_V);                                                     \
	}

DEF_VLOOP(peak_loop_scalar_sp_fma, FMADD_BLOCK("s", ""))
DEF_VLOOP(peak_loop_scalar_dp_fma, FMADD_BLOCK("d", ""))
DEF_VLOOP(peak_loop_scalar_sp_addmul, ADDMUL_BLOCK("s", ""))
DEF_VLOOP(peak_loop_scalar_dp_addmul, ADDMUL_BLOCK("d", ""))
DEF_VLOOP(peak_loop_neon_sp_fma, FMLA_BLOCK("v", ".4s"))
DEF_VLOOP(peak_loop_neon_dp_fma, FMLA_BLOCK("v", ".2d"))
DEF_VLOOP(peak_loop_neon_sp_addmul, ADDMUL_BLOCK("v", ".4s"))
DEF_VLOOP(peak_loop_neon_dp_addmul, ADDMUL_BLOCK("v", ".2d"))
DEF_VLOOP(peak_loop_neon_i32_add, IADD_BLOCK("v", ".4s"))
DEF_VLOOP(peak_loop_neon_i64_add, IADD_BLOCK("v", ".2d"))
DEF_VLOOP(peak_loop_neon_i32_mul, IMUL_BLOCK("v", ".4s"))

/* ---- general-purpose loops: chain i in x(4+i), operands g10, g11 in x14, x15 ---- */

#define GR(i, w) w STR(PEAK_GREG_##i)
#define PEAK_GREG_0  4
#define PEAK_GREG_1  5
#define PEAK_GREG_2  6
#define PEAK_GREG_3  7
#define PEAK_GREG_4  8
#define PEAK_GREG_5  9
#define PEAK_GREG_6  10
#define PEAK_GREG_7  11
#define PEAK_GREG_8  12
#define PEAK_GREG_9  13
#define PEAK_GREG_10 14
#define PEAK_GREG_11 15

#define G_OP(i, w, op, s) op " " GR(i, w) ", " GR(i, w) ", " GR(s, w) "\n\t"
#define GADD_BLOCK(w)     X10(G_OP, w, "add", 10) X10(G_OP, w, "add", 11)
/* x = x*K twice: AArch64 has no multiply by an immediate, so K sits in x15 (w15). */
#define GMUL_BLOCK(w)     X10(G_OP, w, "mul", 11) X10(G_OP, w, "mul", 11)

#define G_LD(i, w) "ldr " GR(i, w) ", [%[r], #" STR(G_OFF) "+" #i "*8]\n\t"
#define G_ST(i, w) "str " GR(i, w) ", [%[r], #" STR(G_OFF) "+" #i "*8]\n\t"
#define CLOBBER_G                                                                                  \
	"cc", "memory", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15"

/* setup runs after the loads: the multiply loops put K in x15 there. */
#define DEF_GLOOP(fn, w, setup, block)                                                             \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X12(G_LD, w) setup LOOP(block) X10(G_ST, w)                       \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r), [k64] "r"((uint64_t)PEAK_LOOP_IMUL64_K),            \
				   [k32] "r"((uint64_t)PEAK_LOOP_IMUL32_K)                         \
				 : CLOBBER_G);                                                     \
	}

DEF_GLOOP(peak_loop_scalar_i64_add, "x", "", GADD_BLOCK("x"))
DEF_GLOOP(peak_loop_scalar_i32_add, "w", "", GADD_BLOCK("w"))
DEF_GLOOP(peak_loop_scalar_i64_mul, "x", "mov x15, %[k64]\n\t", GMUL_BLOCK("x"))
DEF_GLOOP(peak_loop_scalar_i32_mul, "w", "mov x15, %[k32]\n\t", GMUL_BLOCK("w"))

/* ---- FP add latency chain (the probe's): twelve dependent fadd d on d0 ---- */

#define LAT_1(i, ...) "fadd d0, d0, d1\n\t"
PEAK_LOOP_PROTO(peak_loop_lat_fp64)
{
	(void)r;
	if (!n)
		return;
	__asm__ volatile("movi d0, #0\n\t"
			 "movi d1, #0\n\t"
			 ".p2align 6\n"
			 "1:\n\t"
			 ".rept " STR(PEAK_LOOP_LAT_REPS) "\n\t" X12(LAT_1) ".endr\n\t"
			 "subs %[n], %[n], #1\n\t"
			 "b.ne 1b\n\t"
			 : [n] "+r"(n)
			 :
			 : "cc", "v0", "v1");
}
/* clang-format on */
