/* The cpubench descriptor table: every kernel with its ISA, precision, work per iteration,
 * run-time support check and frequency chain. Kernels an ISA cannot express stay in the
 * table with the reason, so they are reported rather than silently missing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#else
#include "cpu_fmt_arm64.h"
#endif

static bool unsupported(char *reason, size_t reason_len, const char *what)
{
	snprintf(reason, reason_len, "%s", what);
	return false;
}

#define NO_MUL64 "no 64-bit lane multiply below AVX-512DQ (vpmullq); see avx512_i64_mul"

/* The features each kernel's instructions use, for peak_cpu_can_run. */
#define F_NONE  0u
#define F_FMA   PEAK_FEAT_FMA
/* Scalar FMA: x86's vfmadd needs FMA3; AArch64's fmadd is in the base ISA. */
#if defined(__aarch64__)
#define F_SFMA F_NONE
#else
#define F_SFMA F_FMA
#endif
#define F_SSE41 PEAK_FEAT_SSE41
#define F_AVX   PEAK_FEAT_AVX
#define F_AVX2  PEAK_FEAT_AVX2
#define F_A2FMA (PEAK_FEAT_AVX2 | PEAK_FEAT_FMA)
#define F_512F  PEAK_FEAT_AVX512F
#define F_512DQ (PEAK_FEAT_AVX512F | PEAK_FEAT_AVX512DQ)

#define K(nm, tst, is, kd, el, ln, na, st, sup, fn, ch)                                            \
	{                                                                                          \
		.name = nm, .test = tst, .isa = is, .kind = kd, .elem = el, .lanes = ln,           \
		.nacc = na, .steps = st, .need = sup, .loop = fn, .chain = ch                  \
	}
#define AMX_K(nm, tst, el, op)                                                                     \
	{                                                                                          \
		.name = nm, .test = tst, .isa = PEAK_ISA_SCALAR, .kind = CPU_KIND_AMX, .elem = el, \
		.lanes = 256, .nacc = PEAK_AMX_ACC, .steps = PEAK_AMX_STEPS, .need = F_NONE,       \
		.loop = NULL, .chain = CPU_CHAIN_AMX_LOAD, .amx_op = op                            \
	}
#define FL CPU_TEST_FLOPS
#define IO CPU_TEST_IOPS
#define ST PEAK_LOOP_STEPS

const struct cpu_kernel cpu_kernels[] = {
    /* flops */
    K("scalar_sp_fma", FL, PEAK_ISA_SCALAR, CPU_KIND_FMA, CPU_F32, 1, CPU_NACC, ST, F_SFMA,
      peak_loop_scalar_sp_fma, CPU_CHAIN_SCALAR_FP),
    K("scalar_dp_fma", FL, PEAK_ISA_SCALAR, CPU_KIND_FMA, CPU_F64, 1, CPU_NACC, ST, F_SFMA,
      peak_loop_scalar_dp_fma, CPU_CHAIN_SCALAR_FP),
    K("scalar_sp_addmul", FL, PEAK_ISA_SCALAR, CPU_KIND_ADDMUL, CPU_F32, 1, CPU_NACC, ST, F_NONE,
      peak_loop_scalar_sp_addmul, CPU_CHAIN_SCALAR_FP),
    K("scalar_dp_addmul", FL, PEAK_ISA_SCALAR, CPU_KIND_ADDMUL, CPU_F64, 1, CPU_NACC, ST, F_NONE,
      peak_loop_scalar_dp_addmul, CPU_CHAIN_SCALAR_FP),
    K("sse_sp_addmul", FL, PEAK_ISA_SSE, CPU_KIND_ADDMUL, CPU_F32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_sse_sp_addmul, CPU_CHAIN_SSE_FP),
    K("sse_dp_addmul", FL, PEAK_ISA_SSE, CPU_KIND_ADDMUL, CPU_F64, 2, CPU_NACC, ST, F_NONE,
      peak_loop_sse_dp_addmul, CPU_CHAIN_SSE_FP),
    K("avx_sp_addmul", FL, PEAK_ISA_AVX, CPU_KIND_ADDMUL, CPU_F32, 8, CPU_NACC, ST, F_AVX,
      peak_loop_avx_sp_addmul, CPU_CHAIN_AVX_FP),
    K("avx_dp_addmul", FL, PEAK_ISA_AVX, CPU_KIND_ADDMUL, CPU_F64, 4, CPU_NACC, ST, F_AVX,
      peak_loop_avx_dp_addmul, CPU_CHAIN_AVX_FP),
    K("avx2_sp_fma", FL, PEAK_ISA_AVX2, CPU_KIND_FMA, CPU_F32, 8, CPU_NACC, ST, F_A2FMA,
      peak_loop_avx2_sp_fma, CPU_CHAIN_AVX_FP),
    K("avx2_dp_fma", FL, PEAK_ISA_AVX2, CPU_KIND_FMA, CPU_F64, 4, CPU_NACC, ST, F_A2FMA,
      peak_loop_avx2_dp_fma, CPU_CHAIN_AVX_FP),
    K("avx512_sp_fma", FL, PEAK_ISA_AVX512, CPU_KIND_FMA, CPU_F32, 16, CPU_NACC, ST, F_512F,
      peak_loop_avx512_sp_fma, CPU_CHAIN_AVX512_FMA_LOAD),
    K("avx512_dp_fma", FL, PEAK_ISA_AVX512, CPU_KIND_FMA, CPU_F64, 8, CPU_NACC, ST, F_512F,
      peak_loop_avx512_dp_fma, CPU_CHAIN_AVX512_FMA_LOAD),
    /* integer ops */
    K("scalar_i32_add", IO, PEAK_ISA_SCALAR, CPU_KIND_IADD, CPU_I32, 1, CPU_NACC_GPR, ST, F_NONE,
      peak_loop_scalar_i32_add, CPU_CHAIN_SCALAR_INT),
    K("scalar_i64_add", IO, PEAK_ISA_SCALAR, CPU_KIND_IADD, CPU_I64, 1, CPU_NACC_GPR, ST, F_NONE,
      peak_loop_scalar_i64_add, CPU_CHAIN_SCALAR_INT),
    K("scalar_i32_mul", IO, PEAK_ISA_SCALAR, CPU_KIND_IMUL, CPU_I32, 1, CPU_NACC_GPR, ST,
      F_NONE, peak_loop_scalar_i32_mul, CPU_CHAIN_SCALAR_INT),
    K("scalar_i64_mul", IO, PEAK_ISA_SCALAR, CPU_KIND_IMUL, CPU_I64, 1, CPU_NACC_GPR, ST,
      F_NONE, peak_loop_scalar_i64_mul, CPU_CHAIN_SCALAR_INT),
    K("sse_i32_add", IO, PEAK_ISA_SSE, CPU_KIND_IADD, CPU_I32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_sse_i32_add, CPU_CHAIN_SSE_INT),
    K("sse_i64_add", IO, PEAK_ISA_SSE, CPU_KIND_IADD, CPU_I64, 2, CPU_NACC, ST, F_NONE,
      peak_loop_sse_i64_add, CPU_CHAIN_SSE_INT),
    K("sse_i32_mul", IO, PEAK_ISA_SSE, CPU_KIND_IMUL, CPU_I32, 4, CPU_NACC, ST, F_SSE41,
      peak_loop_sse_i32_mul, CPU_CHAIN_SSE_INT),
    K("sse_i64_mul", IO, PEAK_ISA_SSE, CPU_KIND_IMUL, CPU_I64, 2, CPU_NACC, ST, F_NONE,
      NULL, CPU_CHAIN_SSE_INT),
    K("avx2_i32_add", IO, PEAK_ISA_AVX2, CPU_KIND_IADD, CPU_I32, 8, CPU_NACC, ST, F_AVX2,
      peak_loop_avx2_i32_add, CPU_CHAIN_AVX2_INT),
    K("avx2_i64_add", IO, PEAK_ISA_AVX2, CPU_KIND_IADD, CPU_I64, 4, CPU_NACC, ST, F_AVX2,
      peak_loop_avx2_i64_add, CPU_CHAIN_AVX2_INT),
    K("avx2_i32_mul", IO, PEAK_ISA_AVX2, CPU_KIND_IMUL, CPU_I32, 8, CPU_NACC, ST, F_AVX2,
      peak_loop_avx2_i32_mul, CPU_CHAIN_AVX2_INT),
    K("avx2_i64_mul", IO, PEAK_ISA_AVX2, CPU_KIND_IMUL, CPU_I64, 4, CPU_NACC, ST, F_NONE,
      NULL, CPU_CHAIN_AVX2_INT),
    K("avx512_i32_add", IO, PEAK_ISA_AVX512, CPU_KIND_IADD, CPU_I32, 16, CPU_NACC, ST, F_512F,
      peak_loop_avx512_i32_add, CPU_CHAIN_AVX512_INT),
    K("avx512_i64_add", IO, PEAK_ISA_AVX512, CPU_KIND_IADD, CPU_I64, 8, CPU_NACC, ST, F_512F,
      peak_loop_avx512_i64_add, CPU_CHAIN_AVX512_INT),
    K("avx512_i32_mul", IO, PEAK_ISA_AVX512, CPU_KIND_IMUL, CPU_I32, 16, CPU_NACC, ST,
      F_512F, peak_loop_avx512_i32_mul, CPU_CHAIN_AVX512_IMUL_LOAD),
    K("avx512_i64_mul", IO, PEAK_ISA_AVX512, CPU_KIND_IMUL, CPU_I64, 8, CPU_NACC, ST,
      F_512DQ, peak_loop_avx512_i64_mul, CPU_CHAIN_AVX512_IMUL_LOAD),
#if defined(__x86_64__)
    /* Number formats (cpu_fmt.c; rates peak_uarch_formats.c; support and AMX permission
     * peak_formats_x86.c). The names are the format API's variants (peak_formats.h). */
    K("avx512_fp16_fma", FL, PEAK_ISA_AVX512, CPU_KIND_FMA, CPU_F16, 32, CPU_NACC, ST, F_512F,
      peak_loop_avx512_fp16_fma, CPU_CHAIN_AVX512_FP16_LOAD),
    K("avx512_bf16_dot", FL, PEAK_ISA_AVX512, CPU_KIND_BF16_DOT, CPU_F32, 16, CPU_NACC, ST,
      F_512F, peak_loop_avx512_bf16_dot, CPU_CHAIN_AVX512_BF16_LOAD),
    K("avx512_bf16_dot_ymm", FL, PEAK_ISA_AVX512, CPU_KIND_BF16_DOT, CPU_F32, 8, CPU_NACC, ST,
      F_512F, peak_loop_avx512_bf16_dot_ymm, CPU_CHAIN_AVX_FP),
    K("avx512_int8_dot", IO, PEAK_ISA_AVX512, CPU_KIND_INT8_DOT, CPU_I32, 16, CPU_NACC, ST,
      F_512F, peak_loop_avx512_int8_dot, CPU_CHAIN_AVX512_VNNI_LOAD),
    K("avx512_int8_dot_ymm", IO, PEAK_ISA_AVX512, CPU_KIND_INT8_DOT, CPU_I32, 8, CPU_NACC, ST,
      F_512F, peak_loop_avx512_int8_dot_ymm, CPU_CHAIN_AVX2_INT),
    K("avxvnni_int8_dot", IO, PEAK_ISA_AVX2, CPU_KIND_INT8_DOT, CPU_I32, 8, CPU_NACC, ST,
      F_AVX2, peak_loop_avxvnni_int8_dot, CPU_CHAIN_AVX2_INT),
    /* AMX: 4 accumulator tiles of 16 x 16 (lanes 256), PEAK_AMX_STEPS multiplies each an
     * iteration, clocked by the imul chain with tile multiplies between its links. */
    AMX_K("amx_bf16_tile", FL, CPU_F32, PEAK_AMX_BF16),
    AMX_K("amx_fp16_tile", FL, CPU_F32, PEAK_AMX_FP16),
    AMX_K("amx_int8_tile_ss", IO, CPU_I32, PEAK_AMX_SS),
    AMX_K("amx_int8_tile_su", IO, CPU_I32, PEAK_AMX_SU),
    AMX_K("amx_int8_tile_us", IO, CPU_I32, PEAK_AMX_US),
    AMX_K("amx_int8_tile_uu", IO, CPU_I32, PEAK_AMX_UU),
#endif
#if defined(__aarch64__)
    /* aarch64 NEON (peak_loops_arm64.c): fmla/fmls pairs, fadd/fsub + fmul, add, mul .4s.
     * NEON has no 64-bit lane multiply: neon_i64_mul stays unsupported. Clocked by the
     * scalar chains (fadd d, add x): NEON's FP add latency is the scalar one on every
     * Neoverse core (SWOG). */
    K("neon_sp_fma", FL, PEAK_ISA_NEON, CPU_KIND_FMA, CPU_F32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_sp_fma, CPU_CHAIN_SCALAR_FP),
    K("neon_dp_fma", FL, PEAK_ISA_NEON, CPU_KIND_FMA, CPU_F64, 2, CPU_NACC, ST, F_NONE,
      peak_loop_neon_dp_fma, CPU_CHAIN_SCALAR_FP),
    K("neon_sp_addmul", FL, PEAK_ISA_NEON, CPU_KIND_ADDMUL, CPU_F32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_sp_addmul, CPU_CHAIN_SCALAR_FP),
    K("neon_dp_addmul", FL, PEAK_ISA_NEON, CPU_KIND_ADDMUL, CPU_F64, 2, CPU_NACC, ST, F_NONE,
      peak_loop_neon_dp_addmul, CPU_CHAIN_SCALAR_FP),
    K("neon_i32_add", IO, PEAK_ISA_NEON, CPU_KIND_IADD, CPU_I32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_i32_add, CPU_CHAIN_SCALAR_INT),
    K("neon_i64_add", IO, PEAK_ISA_NEON, CPU_KIND_IADD, CPU_I64, 2, CPU_NACC, ST, F_NONE,
      peak_loop_neon_i64_add, CPU_CHAIN_SCALAR_INT),
    K("neon_i32_mul", IO, PEAK_ISA_NEON, CPU_KIND_IMUL, CPU_I32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_i32_mul, CPU_CHAIN_SCALAR_INT),
    K("neon_i64_mul", IO, PEAK_ISA_NEON, CPU_KIND_IMUL, CPU_I64, 2, CPU_NACC, ST, F_NONE,
      NULL, CPU_CHAIN_SCALAR_INT),
    /* SVE (peak_loops_sve.c) at this process's vector length (lanes 0: cpu_kernel_lanes):
     * fmad in x86's form (x*v12 + v13, x*v14 + v14), fadd/fsub + fmul, add, mul (with a
     * 64-bit lane form). */
    K("sve_sp_fma", FL, PEAK_ISA_SVE, CPU_KIND_FMA, CPU_F32, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_sp_fma, CPU_CHAIN_SCALAR_FP),
    K("sve_dp_fma", FL, PEAK_ISA_SVE, CPU_KIND_FMA, CPU_F64, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_dp_fma, CPU_CHAIN_SCALAR_FP),
    K("sve_sp_addmul", FL, PEAK_ISA_SVE, CPU_KIND_ADDMUL, CPU_F32, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_sp_addmul, CPU_CHAIN_SCALAR_FP),
    K("sve_dp_addmul", FL, PEAK_ISA_SVE, CPU_KIND_ADDMUL, CPU_F64, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_dp_addmul, CPU_CHAIN_SCALAR_FP),
    K("sve_i32_add", IO, PEAK_ISA_SVE, CPU_KIND_IADD, CPU_I32, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_i32_add, CPU_CHAIN_SCALAR_INT),
    K("sve_i64_add", IO, PEAK_ISA_SVE, CPU_KIND_IADD, CPU_I64, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_i64_add, CPU_CHAIN_SCALAR_INT),
    K("sve_i32_mul", IO, PEAK_ISA_SVE, CPU_KIND_IMUL, CPU_I32, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_i32_mul, CPU_CHAIN_SCALAR_INT),
    K("sve_i64_mul", IO, PEAK_ISA_SVE, CPU_KIND_IMUL, CPU_I64, 0, CPU_NACC, ST, F_NONE,
      peak_loop_sve_i64_mul, CPU_CHAIN_SCALAR_INT),
    /* Number formats on NEON registers (peak_loops_arm64_formats.c, cpu_fmt_arm64.c): BFDOT
     * and SDOT (vector), BFMMLA and SMMLA (matrix: a 2x2 block product in a register), the
     * x86 dot kinds' operands and closed forms; rates from the Arm table. */
    K("neon_bf16_dot", FL, PEAK_ISA_NEON, CPU_KIND_BF16_DOT, CPU_F32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_bf16_dot, CPU_CHAIN_SCALAR_FP),
    K("neon_bf16_mmla", FL, PEAK_ISA_NEON, CPU_KIND_BF16_DOT, CPU_F32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_bf16_mmla, CPU_CHAIN_SCALAR_FP),
    K("neon_int8_dot", IO, PEAK_ISA_NEON, CPU_KIND_INT8_DOT, CPU_I32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_int8_dot, CPU_CHAIN_SCALAR_INT),
    K("neon_int8_mmla", IO, PEAK_ISA_NEON, CPU_KIND_INT8_DOT, CPU_I32, 4, CPU_NACC, ST, F_NONE,
      peak_loop_neon_int8_mmla, CPU_CHAIN_SCALAR_INT),
#endif
};
const size_t cpu_nkernels = sizeof cpu_kernels / sizeof cpu_kernels[0];

static unsigned lane_bits(const struct cpu_kernel *k);

unsigned cpu_kernel_lanes(const struct cpu_kernel *k)
{
#if defined(__aarch64__)
	if (k->isa == PEAK_ISA_SVE) {
		unsigned vl = peak_isa_sve_vl_bits();
		return vl <= PEAK_LOOP_SVE_MAX_BITS ? vl / lane_bits(k) : 0;
	}
#endif
	return k->lanes;
}

double cpu_kernel_ops_per_iter(const struct cpu_kernel *k)
{
	if (cpu_fmt_kind(k))
		return (double)k->nacc * k->steps * cpu_fmt_ops_per_instr(k);
	unsigned per_step = k->kind == CPU_KIND_FMA ? 2 : 1;
	return (double)k->nacc * k->steps * cpu_kernel_lanes(k) * per_step;
}

double cpu_kernel_ops_per_instr(const struct cpu_kernel *k)
{
	if (cpu_fmt_kind(k))
		return cpu_fmt_ops_per_instr(k);
	return (double)cpu_kernel_lanes(k) * (k->kind == CPU_KIND_FMA ? 2 : 1);
}

const char *cpu_kernel_probe_class(const struct cpu_kernel *k)
{
	if (cpu_fmt_kind(k))
		return cpu_fmt_probe_class(k);
#if defined(__aarch64__)
	/* The aarch64 classes: NEON's, which scalar fmadd and fadd/fmul share (the same FP
	 * pipes), the scalar integer loops, and SVE's at the process's vector length (fp32
	 * rows on the fp64 loop's pipes, the 64-bit lane add on the 32-bit one's). */
	if (k->isa == PEAK_ISA_SVE) {
		switch (k->kind) {
		case CPU_KIND_FMA:
			return "sve_fma";
		case CPU_KIND_ADDMUL:
			return "sve_addmul";
		case CPU_KIND_IADD:
			return "sve_vadd";
		case CPU_KIND_IMUL:
			return k->elem == CPU_I32 ? "sve_vmul" : "sve_vmul64";
		case CPU_KIND_BF16_DOT: /* the format kinds: cpu_fmt.c */
		case CPU_KIND_INT8_DOT:
		case CPU_KIND_AMX:
			break;
		}
		return NULL;
	}
	switch (k->kind) {
	case CPU_KIND_FMA:
		return "neon_fma";
	case CPU_KIND_ADDMUL:
		return "neon_addmul";
	case CPU_KIND_IADD:
		return k->isa == PEAK_ISA_SCALAR ? "add64" : "neon_vadd";
	case CPU_KIND_IMUL:
		return k->isa == PEAK_ISA_SCALAR ? "imul64" : k->elem == CPU_I32 ? "neon_vmul" : NULL;
	case CPU_KIND_BF16_DOT: /* the format kinds: cpu_fmt.c */
	case CPU_KIND_INT8_DOT:
	case CPU_KIND_AMX:
		break;
	}
	return NULL;
#endif
	switch (k->kind) {
	case CPU_KIND_FMA: /* scalar FMAs issue to the same pipes as packed ones */
		return k->isa == PEAK_ISA_AVX512 ? "fma512" : "fma256";
	case CPU_KIND_ADDMUL:
		return k->isa == PEAK_ISA_AVX512 ? "addmul512"
		       : k->isa == PEAK_ISA_AVX  ? "addmul256"
						 : "addmul128";
	case CPU_KIND_IADD:
		return k->isa == PEAK_ISA_SCALAR ? "add64"
		       : k->isa == PEAK_ISA_AVX2 ? "vadd256"
		       : k->isa == PEAK_ISA_AVX512 ? "vadd512"
						   : "vadd128";
	case CPU_KIND_IMUL:
		if (k->isa == PEAK_ISA_SCALAR)
			return "imul64";
		if (k->elem == CPU_I64)
			return NULL; /* vpmullq: no class */
		return k->isa == PEAK_ISA_AVX2 ? "vmul256"
		       : k->isa == PEAK_ISA_AVX512 ? "vmul512"
						   : "vmul128";
	case CPU_KIND_BF16_DOT: /* the format kinds: cpu_fmt.c */
	case CPU_KIND_INT8_DOT:
	case CPU_KIND_AMX:
		break;
	}
	return NULL;
}

double cpu_kernel_probe_per_cycle(const struct cpu_kernel *k, const struct peak_uarch_rates *r)
{
	const char *cls = cpu_kernel_probe_class(k);
	return cls ? peak_uarch_rates_get(r, cls) : NAN;
}

static unsigned lane_bits(const struct cpu_kernel *k)
{
	return k->elem == CPU_F16 ? 16 : k->elem == CPU_F32 || k->elem == CPU_I32 ? 32 : 64;
}

/* FMA: libpeak's lanes x 2 x FMA units for avx2/avx512; scalar FMA is one lane per FMA
 * unit. Add+mul: lanes x 2 x add+mul pairs per cycle. Integer add: the vector/ALU add
 * ports. Multiply: imul r32/r64 as the table's imul_units, vpmulld as its
 * vec_int_mul_units (512-bit scaled like 512-bit FMAs). The table has no 64-bit lane
 * multiply rate: vpmullq rows carry no theoretical peak. */
double cpu_kernel_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u)
{
	if (cpu_fmt_kind(k))
		return cpu_fmt_ops_per_cycle(k, u);
	enum peak_precision prec = k->elem == CPU_F32 ? PEAK_PREC_SP : PEAK_PREC_DP;
	unsigned bits = cpu_kernel_lanes(k) * lane_bits(k);
	/* Pipes of unknown width: 128-bit ops run at full rate on any, wider ones unknown. */
	double width = !u->pipe_bits ? (bits <= 128 ? 1.0 : 0.0)
		       : bits <= u->pipe_bits ? 1.0 : (double)u->pipe_bits / bits;
	double v = NAN;
#if defined(__aarch64__)
	if (k->isa == PEAK_ISA_NEON) {
		/* 128-bit pipes: fma_units FMLA, addmul_ops FADD/FMUL, vec_int_add_units ADD,
		 * vec_int_mul_units MUL per cycle (peak_uarch_arm.c). */
		unsigned per = k->kind == CPU_KIND_FMA      ? 2 * u->fma_units
			       : k->kind == CPU_KIND_ADDMUL ? u->addmul_ops
			       : k->kind == CPU_KIND_IADD   ? u->vec_int_add_units
			       : k->elem == CPU_I32         ? u->vec_int_mul_units
							    : 0;
		v = (double)k->lanes * per;
		return isfinite(v) && v > 0 ? v : NAN;
	}
	if (k->isa == PEAK_ISA_SVE) {
		/* The SVE counts are instructions per cycle at up to the pipes' width: a vector
		 * wider than a pipe takes more passes, a narrower one fills it no further, so
		 * the lanes per cycle are the smaller of the two widths'. The 64-bit lane
		 * multiply has no count (two micro-ops on Neoverse: half a MUL per cycle on V1
		 * and N2): no peak. */
		unsigned w = bits < u->sve_pipe_bits ? bits : u->sve_pipe_bits;
		unsigned per = k->kind == CPU_KIND_FMA      ? 2 * u->sve_fma_units
			       : k->kind == CPU_KIND_ADDMUL ? u->sve_addmul_ops
			       : k->kind == CPU_KIND_IADD   ? u->sve_vec_int_add_units
			       : k->elem == CPU_I32         ? u->sve_vec_int_mul_units
							    : 0;
		v = (double)per * w / lane_bits(k);
		return isfinite(v) && v > 0 ? v : NAN;
	}
#endif

	switch (k->kind) {
	case CPU_KIND_FMA:
		v = k->isa == PEAK_ISA_SCALAR ? 2.0 * u->fma_units
					      : peak_cpu_flops_per_cycle(u, k->isa, prec);
		break;
	case CPU_KIND_ADDMUL:
		v = peak_cpu_addmul_flops_per_cycle(u, k->isa, prec);
		break;
	case CPU_KIND_IADD:
		v = peak_cpu_int_ops_per_cycle(u, k->isa, lane_bits(k));
		break;
	case CPU_KIND_IMUL:
		if (k->isa == PEAK_ISA_SCALAR)
			v = u->imul_units;
		else if (k->elem == CPU_I32 && k->isa == PEAK_ISA_AVX512)
			v = u->fma_units ? (double)k->lanes * u->vec_int_mul_units *
					       u->fma512_units / u->fma_units
					 : NAN;
		else if (k->elem == CPU_I32)
			v = k->lanes * u->vec_int_mul_units * width;
		break;
	case CPU_KIND_BF16_DOT: /* the format kinds: cpu_fmt.c */
	case CPU_KIND_INT8_DOT:
	case CPU_KIND_AMX:
		break;
	}
	return isfinite(v) && v > 0 ? v : NAN;
}

const char *cpu_elem_name(enum cpu_elem e)
{
	switch (e) {
	case CPU_F32:
		return "sp";
	case CPU_F64:
		return "dp";
	case CPU_I32:
		return "i32";
	case CPU_I64:
		return "i64";
	case CPU_F16:
		return "f16";
	}
	return "?";
}

static const char *isa_token(enum peak_isa isa)
{
	return (unsigned)isa < PEAK_ISA_COUNT ? peak_isa_name(isa) : "?";
}

/* Test hook: PEAKBENCH_TEST_PRETEND_MISSING=avx512[,avx2...] makes those ISAs unsupported,
 * so the exit-3 path is tested on a CPU that has everything. */
static bool pretend_missing(enum peak_isa isa)
{
	const char *env = getenv("PEAKBENCH_TEST_PRETEND_MISSING");
	if (!env || !*env)
		return false;
	const char *want = isa_token(isa);
	size_t len = strlen(want);
	for (const char *p = env; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && strncmp(p, want, len) == 0)
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

bool cpu_isa_supported(enum peak_isa isa, char *reason, size_t reason_len)
{
	if (pretend_missing(isa))
		return unsupported(reason, reason_len,
				   "pretending it is missing (PEAKBENCH_TEST_PRETEND_MISSING)");
	return peak_cpu_can_run(peak_isa_features(isa), reason, reason_len);
}

bool cpu_kernel_supported(const struct cpu_kernel *k, char *reason, size_t reason_len)
{
	if (!cpu_isa_supported(k->isa, reason, reason_len) ||
	    !peak_cpu_can_run(k->need, reason, reason_len))
		return false;
#if defined(__x86_64__)
	if (cpu_fmt_kind(k))
		return peak_formats_x86_form_runs(k->name, reason, reason_len);
#else
	if (cpu_fmt_kind(k))
		return cpu_fmt_arm64_supported(k, reason, reason_len);
#endif
#if defined(__aarch64__)
	if (k->isa == PEAK_ISA_SVE && !cpu_kernel_lanes(k)) {
		char vl[96];
		(void)snprintf(vl, sizeof vl, "SVE vector length %u bits is above the %u the kernels hold",
			       peak_isa_sve_vl_bits(), PEAK_LOOP_SVE_MAX_BITS);
		return unsupported(reason, reason_len, vl);
	}
#endif
	if (k->loop)
		return true;
#if defined(__aarch64__)
	if (k->isa == PEAK_ISA_NEON)
		return unsupported(reason, reason_len,
				   "no 64-bit lane multiply in NEON (mul has no .2d form)");
#endif
	return unsupported(reason, reason_len, NO_MUL64);
}
