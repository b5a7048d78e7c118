/* The SVE instruction-class loops (peak_loops.h), at whatever vector length this process
 * runs with: registers are loaded and stored whole with an all-true predicate (ld1b/st1b,
 * VL bytes of each 64-byte slot of struct peak_loop_regs), so one loop serves 128- to
 * 512-bit vectors. This file is compiled for +sve (common/CMakeLists.txt); callers run it
 * only where HWCAP_SVE is set (peak_isa.h). */
#include "peak_loops.h"
#include "peak_loops_macros.h"

/* clang-format off */

#define LOOP(block)                                                                                \
	".p2align 6\n"                                                                             \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_REPS) "\n\t" block ".endr\n\t"                                      \
	"subs %[n], %[n], #1\n\t"                                                                  \
	"b.ne 1b\n\t"


#define Z(i, t) "z" #i "." t
/* i = i op s, unpredicated */
#define OP3(i, t, op, s) op " " Z(i, t) ", " Z(i, t) ", " Z(s, t) "\n\t"
/* i = i op s, predicated (mul has no unpredicated SVE form) */
#define OPP(i, t, op, s) op " " Z(i, t) ", p0/m, " Z(i, t) ", " Z(s, t) "\n\t"
/* fmad zdn, pg/m, zm, za: zdn = zdn*zm + za */
#define FMAD_F(i, t)    "fmad " Z(i, t) ", p0/m, " Z(12, t) ", " Z(13, t) "\n\t"
#define FMAD_G(i, t)    "fmad " Z(i, t) ", p0/m, " Z(14, t) ", " Z(14, t) "\n\t"
#define FMA_BLOCK(t)    X12(FMAD_F, t) X12(FMAD_G, t)
#define AM_1(a, m, t)   OP3(a, t, "fadd", 12) OP3(m, t, "fmul", 13)
#define AM_2(a, m, t)   OP3(a, t, "fsub", 12) OP3(m, t, "fmul", 14)
#define ADDMUL_BLOCK(t) P6(AM_1, t) P6(AM_2, t)
#define IADD_BLOCK(t)   X12(OP3, t, "add", 12) X12(OP3, t, "add", 13)
#define IMUL_BLOCK(t)   X12(OPP, t, "mul", 12) X12(OPP, t, "mul", 12)

/* Register i from / to byte 64 i of r: the first VL bytes of its slot. */
#define Z_LD(i, ...) "add %[t], %[r], #" #i "*64\n\tld1b {z" #i ".b}, p0/z, [%[t]]\n\t"
#define Z_ST(i, ...) "add %[t], %[r], #" #i "*64\n\tst1b {z" #i ".b}, p0, [%[t]]\n\t"
#define CLOBBER_Z                                                                                  \
	"cc", "memory", "p0", "z0", "z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8", "z9", "z10",   \
	    "z11", "z12", "z13", "z14"

#define DEF_ZLOOP(fn, block)                                                                       \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		uint64_t t;                                                                        \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile("ptrue p0.b\n\t" X15(Z_LD) LOOP(block) X12(Z_ST)                  \
				 : [n] "+r"(n), [t] "=&r"(t)                                       \
				 : [r] "r"(r)                                                      \
				 : CLOBBER_Z);                                                     \
	}

DEF_ZLOOP(peak_loop_sve_sp_fma, FMA_BLOCK("s"))
DEF_ZLOOP(peak_loop_sve_dp_fma, FMA_BLOCK("d"))
DEF_ZLOOP(peak_loop_sve_sp_addmul, ADDMUL_BLOCK("s"))
DEF_ZLOOP(peak_loop_sve_dp_addmul, ADDMUL_BLOCK("d"))
DEF_ZLOOP(peak_loop_sve_i32_add, IADD_BLOCK("s"))
DEF_ZLOOP(peak_loop_sve_i64_add, IADD_BLOCK("d"))
DEF_ZLOOP(peak_loop_sve_i32_mul, IMUL_BLOCK("s"))
DEF_ZLOOP(peak_loop_sve_i64_mul, IMUL_BLOCK("d"))
/* clang-format on */
