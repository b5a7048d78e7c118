/* The x86 number-format loops (peak_formats_x86.h): AVX512-FP16 FMA, AVX512_BF16 and VNNI
 * dot products, AVX-VNNI, and the AMX tile multiplies, in the style of peak_loops_x86.c
 * (one asm statement, a 64-byte-aligned loop of PEAK_LOOP_REPS blocks). The assembler
 * (binutils 2.40) takes every mnemonic, so no target attribute or -march enters the
 * build; callers run a loop only where peak_fmt_can_run says it runs. */
#include <stddef.h>
#include <string.h>

#include "peak_formats_x86.h"
#include "peak_loops_macros.h"

#define LOOP(block)                                                                                \
	".p2align 6\n"                                                                            \
	"1:\n\t"                                                                                   \
	".rept " STR(PEAK_LOOP_REPS) "\n\t" block ".endr\n\t"                                      \
	"decq %[n]\n\t"                                                                            \
	"jnz 1b\n\t"

#define R(W, i) "%%" W #i
/* Block: every chain once with operand s = v13, then once with v14 (24 instructions,
 * PEAK_LOOP_STEPS / PEAK_LOOP_REPS = 2 steps a chain). AT&T "op src2, src1, dst". */
#define FMA_F(i, W, op) op " " R(W, 13) ", " R(W, 12) ", " R(W, i) "\n\t" /* x*v12 + v13 */
#define FMA_G(i, W, op) op " " R(W, 14) ", " R(W, 14) ", " R(W, i) "\n\t" /* x*v14 + v14 */
#define DOT_F(i, W, op) op " " R(W, 13) ", " R(W, 12) ", " R(W, i) "\n\t" /* x += v12.v13 */
#define DOT_G(i, W, op) op " " R(W, 14) ", " R(W, 12) ", " R(W, i) "\n\t" /* x += v12.v14 */
#define FMA_BLOCK(W, op) X12(FMA_F, W, op) X12(FMA_G, W, op)
#define DOT_BLOCK(W, op) X12(DOT_F, W, op) X12(DOT_G, W, op)

#define V_LD(i, W, mov) mov " " #i "*64(%[r]), " R(W, i) "\n\t"
#define V_ST(i, W, mov) mov " " R(W, i) ", " #i "*64(%[r])\n\t"
#define CLOBBER_V                                                                                  \
	"cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",    \
	    "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14"

#define DEF_VLOOP(fn, W, mov, block)                                                               \
	PEAK_LOOP_PROTO(fn)                                                                        \
	{                                                                                          \
		if (!n)                                                                            \
			return;                                                                    \
		__asm__ volatile(X15(V_LD, W, mov) LOOP(block) X12(V_ST, W, mov) "vzeroupper\n\t"  \
				 : [n] "+r"(n)                                                     \
				 : [r] "r"(r)                                                      \
				 : CLOBBER_V);                                                     \
	}

/* clang-format off */
DEF_VLOOP(peak_loop_avx512_fp16_fma, "zmm", "vmovdqu64", FMA_BLOCK("zmm", "vfmadd213ph"))
DEF_VLOOP(peak_loop_avx512_bf16_dot, "zmm", "vmovdqu64", DOT_BLOCK("zmm", "vdpbf16ps"))
DEF_VLOOP(peak_loop_avx512_bf16_dot_ymm, "ymm", "vmovdqu", DOT_BLOCK("ymm", "vdpbf16ps"))
DEF_VLOOP(peak_loop_avx512_int8_dot, "zmm", "vmovdqu64", DOT_BLOCK("zmm", "vpdpbusd"))
/* EVEX-encoded ymm (AVX512_VNNI + VL) and VEX-encoded ymm (AVX-VNNI): the same operation,
 * different extensions and, on some cores, different ports. */
DEF_VLOOP(peak_loop_avx512_int8_dot_ymm, "ymm", "vmovdqu", DOT_BLOCK("ymm", "%{evex%} vpdpbusd"))
DEF_VLOOP(peak_loop_avxvnni_int8_dot, "ymm", "vmovdqu", DOT_BLOCK("ymm", "%{vex%} vpdpbusd"))
/* clang-format on */

/* ---- AMX ---- */

/* The tile configuration (ldtilecfg's 64-byte operand): palette 1, every tile 16 rows of
 * 64 bytes. */
struct tilecfg {
	unsigned char palette, start_row, reserved[14];
	unsigned short colsb[16];
	unsigned char rows[16];
};

static void tilecfg_init(struct tilecfg *c)
{
	memset(c, 0, sizeof *c);
	c->palette = 1;
	for (int i = 0; i < 8; i++) {
		c->colsb[i] = 64;
		c->rows[i] = 16;
	}
}

/* Per accumulator and iteration: C_i += A_(i&1) x B0, C_i += A_(i&1) x B1, twice
 * (PEAK_AMX_STEPS), the four accumulators interleaved so a tile multiply never waits on
 * the one before it. B0 is tmm6, B1 tmm7. */
#define T_OP(op, b, a, c) op " %%tmm" #b ", %%tmm" #a ", %%tmm" #c "\n\t"
#define T_HALF(op, b) T_OP(op, b, 4, 0) T_OP(op, b, 5, 1) T_OP(op, b, 4, 2) T_OP(op, b, 5, 3)
#define T_BLOCK(op)   T_HALF(op, 6) T_HALF(op, 7) T_HALF(op, 6) T_HALF(op, 7)
#define T_LD(t, base, off) "tileloadd " #off "(%[" #base "],%[stride],1), %%tmm" #t "\n\t"
#define T_ST(t, off)       "tilestored %%tmm" #t ", " #off "(%[c],%[stride],1)\n\t"
_Static_assert(PEAK_AMX_ACC == 4 && PEAK_AMX_STEPS == 4, "T_BLOCK's shape");

#define DEF_AMX(fn, op)                                                                            \
	static void fn(struct peak_amx_tiles *t, uint64_t n, const struct tilecfg *cfg)            \
	{                                                                                          \
		__asm__ volatile("ldtilecfg (%[cfg])\n\t" T_LD(0, c, 0) T_LD(1, c, 1024)           \
				     T_LD(2, c, 2048) T_LD(3, c, 3072) T_LD(4, a, 0)               \
					 T_LD(5, a, 1024) T_LD(6, b, 0) T_LD(7, b, 1024)           \
				 ".p2align 6\n"                                                   \
				 "1:\n\t" T_BLOCK(op) "decq %[n]\n\t"                              \
				 "jnz 1b\n\t" T_ST(0, 0) T_ST(1, 1024) T_ST(2, 2048)               \
				     T_ST(3, 3072) "tilerelease\n\t"                               \
				 : [n] "+r"(n)                                                     \
				 : [cfg] "r"(cfg), [c] "r"(t->c), [a] "r"(t->a), [b] "r"(t->b),    \
				   [stride] "r"((uint64_t)64)                                      \
				 : "cc", "memory");                                                \
	}

DEF_AMX(amx_bf16, "tdpbf16ps")
DEF_AMX(amx_fp16, "tdpfp16ps")
DEF_AMX(amx_ss, "tdpbssd")
DEF_AMX(amx_su, "tdpbsud")
DEF_AMX(amx_us, "tdpbusd")
DEF_AMX(amx_uu, "tdpbuud")

void peak_amx_run(enum peak_amx_op op, struct peak_amx_tiles *t, uint64_t n)
{
	static void (*const fns[PEAK_AMX_OP_COUNT])(struct peak_amx_tiles *, uint64_t,
						    const struct tilecfg *) = {
	    [PEAK_AMX_BF16] = amx_bf16, [PEAK_AMX_FP16] = amx_fp16, [PEAK_AMX_SS] = amx_ss,
	    [PEAK_AMX_SU] = amx_su,     [PEAK_AMX_US] = amx_us,     [PEAK_AMX_UU] = amx_uu,
	};
	_Alignas(64) struct tilecfg cfg;
	if (!n || (unsigned)op >= PEAK_AMX_OP_COUNT)
		return;
	tilecfg_init(&cfg);
	fns[op](t, n, &cfg);
}
