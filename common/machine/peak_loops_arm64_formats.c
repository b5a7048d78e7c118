/* The aarch64 number-format loops (peak_loops.h): BF16 and INT8 dot products and matrix
 * multiply-accumulates on NEON registers, in the layout of the other loops: 12 chains in
 * v0-v11 (fp32 or int32 accumulators, .4s), operands in v12 (A), v13 (B1) and v14 (B2).
 * Each block runs every chain once with (A, B1) and once with (A, B2). Compiled for
 * +bf16+i8mm+dotprod (common/CMakeLists.txt): the caller runs a loop only where the HWCAP
 * bits say the core has it (peak_formats_feat_arm64.c).
 *
 * What one instruction does, per the Arm Architecture Reference Manual (DDI 0487):
 *   BFDOT  Vd.4s, Vn.8h, Vm.8h   lane i += n[2i]m[2i] + n[2i+1]m[2i+1]: 8 products, 16 flop
 *   BFMMLA Vd.4s, Vn.8h, Vm.8h   2x2 += (2x4 rows of n) x (2x4 rows of m)^T: 16 products,
 *                                 32 flop
 *   SDOT   Vd.4s, Vn.16b, Vm.16b lane i += sum over k<4 of n[4i+k]m[4i+k]: 16 products, 32 ops
 *   SMMLA  Vd.4s, Vn.16b, Vm.16b 2x2 += (2x8 rows of n) x (2x8 rows of m)^T: 32 products,
 *                                 64 ops */
#include <stddef.h>

#include "peak_loops.h"
#include "peak_loops_macros.h"

/* clang-format off */

#define LOOP(block)                                                                                \
	".p2align 6\n"                                                                             \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_REPS) "\n\t" block ".endr\n\t"                                      \
	"subs %[n], %[n], #1\n\t"                                                                  \
	"b.ne 1b\n\t"

/* chain i op= A x B1, then A x B2 */
#define STEP_1(i, op, arr) op " v" #i ".4s, v12" arr ", v13" arr "\n\t"
#define STEP_2(i, op, arr) op " v" #i ".4s, v12" arr ", v14" arr "\n\t"
#define BLOCK(op, arr) X12(STEP_1, op, arr) X12(STEP_2, op, arr)

#define V_LD(i, ...) "ldr q" #i ", [%[r], #" #i "*64]\n\t"
#define V_ST(i, ...) "str q" #i ", [%[r], #" #i "*64]\n\t"

#define DEF_FLOOP(fn, op, arr)                                                                     \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X15(V_LD) LOOP(BLOCK(op, arr)) X12(V_ST)                          \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r)                                                      \
				 : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", \
				   "v8", "v9", "v10", "v11", "v12", "v13", "v14");                 \
	}

DEF_FLOOP(peak_loop_neon_bf16_dot, "bfdot", ".8h")
DEF_FLOOP(peak_loop_neon_bf16_mmla, "bfmmla", ".8h")
DEF_FLOOP(peak_loop_neon_int8_dot, "sdot", ".16b")
DEF_FLOOP(peak_loop_neon_int8_mmla, "smmla", ".16b")
/* clang-format on */
