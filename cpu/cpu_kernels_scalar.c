/* Scalar kernels in inline asm, so they stay scalar whatever the compiler does (this file
 * is also built with -fno-tree-vectorize, and tests/cpu checks the disassembly). One asm
 * statement is one loop iteration: every chain advances `steps` dependent steps. */
#include <stdint.h>

#include "cpu_kernels_impl.h"

/* ---- floating point: 12 chains in xmm registers ---- */

#define LOAD_F64(n)  double a##n = acc->v.f64[n];
#define LOAD_F32(n)  float a##n = acc->v.f32[n];
#define STORE_F64(n) acc->v.f64[n] = a##n;
#define STORE_F32(n) acc->v.f32[n] = a##n;
#define OUT_X(n)     [a##n] "+x"(a##n)
#define OUT_R(n)     [a##n] "+r"(a##n)

/* x = x*2 + (-1), then x = x*0.5 + 0.5: AT&T "vfmadd213sd s3, s2, d" is d = d*s2 + s3. */
#define FMA_F_SD(n) "vfmadd213sd %[m1], %[two], %[a" #n "]\n\t"
#define FMA_G_SD(n) "vfmadd213sd %[half], %[half], %[a" #n "]\n\t"
#define FMA_F_SS(n) "vfmadd213ss %[m1], %[two], %[a" #n "]\n\t"
#define FMA_G_SS(n) "vfmadd213ss %[half], %[half], %[a" #n "]\n\t"

void cpu_k_scalar_dp_fma(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X12(LOAD_F64)
	double two = c->f64[0], m1 = c->f64[1], half = c->f64[2];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X12(FMA_F_SD) CPU_X12(FMA_G_SD)
				     : CPU_L12(OUT_X)
				     : [two] "x"(two), [m1] "x"(m1), [half] "x"(half));
	CPU_X12(STORE_F64)
}

void cpu_k_scalar_sp_fma(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X12(LOAD_F32)
	float two = c->f32[0], m1 = c->f32[1], half = c->f32[2];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X12(FMA_F_SS) CPU_X12(FMA_G_SS)
				     : CPU_L12(OUT_X)
				     : [two] "x"(two), [m1] "x"(m1), [half] "x"(half));
	CPU_X12(STORE_F32)
}

/* Add+multiply without FMA (legacy SSE2 encoding, runs on every x86-64): chains 0-5 add
 * 1 then subtract 1, chains 6-11 multiply by 2 then by 0.5. */
#define AM1_SD(n) "addsd %[one], %[a" #n "]\n\t"
#define AM2_SD(n) "subsd %[one], %[a" #n "]\n\t"
#define MM1_SD(n) "mulsd %[two], %[a" #n "]\n\t"
#define MM2_SD(n) "mulsd %[half], %[a" #n "]\n\t"
#define AM1_SS(n) "addss %[one], %[a" #n "]\n\t"
#define AM2_SS(n) "subss %[one], %[a" #n "]\n\t"
#define MM1_SS(n) "mulss %[two], %[a" #n "]\n\t"
#define MM2_SS(n) "mulss %[half], %[a" #n "]\n\t"
/* clang-format off */
#define ADDMUL_BODY(SFX)                                                                           \
	AM1_##SFX(0) MM1_##SFX(6) AM1_##SFX(1) MM1_##SFX(7) AM1_##SFX(2) MM1_##SFX(8)             \
	AM1_##SFX(3) MM1_##SFX(9) AM1_##SFX(4) MM1_##SFX(10) AM1_##SFX(5) MM1_##SFX(11)           \
	AM2_##SFX(0) MM2_##SFX(6) AM2_##SFX(1) MM2_##SFX(7) AM2_##SFX(2) MM2_##SFX(8)             \
	AM2_##SFX(3) MM2_##SFX(9) AM2_##SFX(4) MM2_##SFX(10) AM2_##SFX(5) MM2_##SFX(11)
/* clang-format on */

void cpu_k_scalar_dp_addmul(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X12(LOAD_F64)
	double one = c->f64[0], two = c->f64[1], half = c->f64[2];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(ADDMUL_BODY(SD)
				     : CPU_L12(OUT_X)
				     : [one] "x"(one), [two] "x"(two), [half] "x"(half));
	CPU_X12(STORE_F64)
}

void cpu_k_scalar_sp_addmul(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X12(LOAD_F32)
	float one = c->f32[0], two = c->f32[1], half = c->f32[2];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(ADDMUL_BODY(SS)
				     : CPU_L12(OUT_X)
				     : [one] "x"(one), [two] "x"(two), [half] "x"(half));
	CPU_X12(STORE_F32)
}

/* ---- integers: 8 chains in general-purpose registers ---- */

#define LOAD_U64(n)  uint64_t a##n = acc->v.u64[n];
#define LOAD_U32(n)  uint32_t a##n = acc->v.u32[n];
#define STORE_U64(n) acc->v.u64[n] = a##n;
#define STORE_U32(n) acc->v.u32[n] = a##n;
/* Four steps per iteration (c1, c2, c1, c2): 32 adds against one fused dec+jnz, so the
 * loop costs about 3% of the 4 ALU ports instead of 6%. */
#define ADDQ1(n) "addq %[c1], %[a" #n "]\n\t"
#define ADDQ2(n) "addq %[c2], %[a" #n "]\n\t"
#define ADDL1(n) "addl %[c1], %[a" #n "]\n\t"
#define ADDL2(n) "addl %[c2], %[a" #n "]\n\t"

void cpu_k_scalar_i64_add(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X8(LOAD_U64)
	uint64_t c1 = c->u64[0], c2 = c->u64[1];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X8(ADDQ1) CPU_X8(ADDQ2) CPU_X8(ADDQ1) CPU_X8(ADDQ2)
				     : CPU_L8(OUT_R)
				     : [c1] "r"(c1), [c2] "r"(c2)
				     : "cc");
	CPU_X8(STORE_U64)
}

void cpu_k_scalar_i32_add(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X8(LOAD_U32)
	uint32_t c1 = c->u32[0], c2 = c->u32[1];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X8(ADDL1) CPU_X8(ADDL2) CPU_X8(ADDL1) CPU_X8(ADDL2)
				     : CPU_L8(OUT_R)
				     : [c1] "r"(c1), [c2] "r"(c2)
				     : "cc");
	CPU_X8(STORE_U32)
}

/* x = x*a + b: imul (latency 3, one per cycle) then add, two steps per iteration. */
#define MULQ(n)                                                                                    \
	"imulq %[ma], %[a" #n "]\n\t"                                                              \
	"addq %[mb], %[a" #n "]\n\t"
#define MULL(n)                                                                                    \
	"imull %[ma], %[a" #n "]\n\t"                                                              \
	"addl %[mb], %[a" #n "]\n\t"

void cpu_k_scalar_i64_mulmix(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X8(LOAD_U64)
	uint64_t ma = c->u64[0], mb = c->u64[1];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X8(MULQ) CPU_X8(MULQ)
				     : CPU_L8(OUT_R)
				     : [ma] "r"(ma), [mb] "r"(mb)
				     : "cc");
	CPU_X8(STORE_U64)
}

void cpu_k_scalar_i32_mulmix(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)
{
	CPU_X8(LOAD_U32)
	uint32_t ma = c->u32[0], mb = c->u32[1];
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CPU_X8(MULL) CPU_X8(MULL)
				     : CPU_L8(OUT_R)
				     : [ma] "r"(ma), [mb] "r"(mb)
				     : "cc");
	CPU_X8(STORE_U32)
}

/* ---- frequency chains ---- */

#define CHAIN16(S) S S S S S S S S S S S S S S S S

/* One dependent addsd after another: iters x 16 x fp_add_latency cycles. */
uint64_t cpu_chain_scalar_fp(uint64_t iters)
{
	double x = 0.0, one = 1.0;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CHAIN16("addsd %[one], %[x]\n\t")
				     : [x] "+x"(x)
				     : [one] "x"(one));
	return (uint64_t)x;
}

/* One dependent imul after another (never an add-immediate, which some cores fold at
 * rename): iters x 16 x imul_latency cycles. */
uint64_t cpu_chain_scalar_int(uint64_t iters)
{
	uint64_t x = 1, a = CPU_CHAIN_IMUL_FACTOR;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(CHAIN16("imulq %[a], %[x]\n\t")
				     : [x] "+r"(x)
				     : [a] "r"(a)
				     : "cc");
	return x;
}
