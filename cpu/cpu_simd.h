/* Kernel templates shared by the SIMD translation units. Before expanding one, a unit
 * defines V_T (vector type), V_FIELD (cpu_acc member), V_LANES, V_CFIELD (cpu_consts
 * member), V_LOAD, V_STORE, V_SET1 and the operations the template uses (V_FMADD, V_ADD,
 * V_SUB, V_MUL, V_MULLO). Each function gets its own target attribute, so only code that
 * the run-time check selected ever executes wide instructions. */
#ifndef CPU_SIMD_H
#define CPU_SIMD_H

#include "cpu_kernels_impl.h"

/* An empty asm that claims to modify x: integer chains cannot be folded (x + c + c into
 * x + 2c) or turned into closed forms by the compiler. No instruction is emitted. */
#define CPU_OPAQUE(x) __asm__("" : "+v"(x))

#define CPU_V_LOADN(n)  V_T a##n = V_LOAD(acc->v.V_FIELD + (n)*V_LANES);
#define CPU_V_STOREN(n) V_STORE(acc->v.V_FIELD + (n)*V_LANES, a##n);
#define CPU_V_CONSTS                                                                               \
	const V_T k0 = V_SET1(c->V_CFIELD[0]);                                                     \
	const V_T k1 = V_SET1(c->V_CFIELD[1]);
#define CPU_V_CONSTS3                                                                              \
	CPU_V_CONSTS                                                                               \
	const V_T k2 = V_SET1(c->V_CFIELD[2]);

/* FMA: x = x*2 + (-1), then x = x*0.5 + 0.5 (k0 = 2, k1 = -1, k2 = 0.5). */
#define CPU_V_FMA_F(n) a##n = V_FMADD(a##n, k0, k1);
#define CPU_V_FMA_G(n) a##n = V_FMADD(a##n, k2, k2);
#define CPU_DEF_FMA(fname, TGT)                                                                    \
	TGT void fname(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)            \
	{                                                                                          \
		CPU_X12(CPU_V_LOADN)                                                               \
		CPU_V_CONSTS3                                                                      \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			CPU_X12(CPU_V_FMA_F)                                                       \
			CPU_X12(CPU_V_FMA_G)                                                       \
		}                                                                                  \
		CPU_X12(CPU_V_STOREN)                                                              \
	}

/* Add+mul: chains 0-5 x + 1 then x - 1; chains 6-11 x * 2 then x * 0.5
 * (k0 = 1, k1 = 2, k2 = 0.5). Adds and multiplies interleave so both pipes stay busy. */
#define CPU_V_AM1(n) a##n = V_ADD(a##n, k0);
#define CPU_V_AM2(n) a##n = V_SUB(a##n, k0);
#define CPU_V_MM1(n) a##n = V_MUL(a##n, k1);
#define CPU_V_MM2(n) a##n = V_MUL(a##n, k2);
/* clang-format off */
#define CPU_DEF_ADDMUL(fname, TGT)                                                                 \
	TGT void fname(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)            \
	{                                                                                          \
		CPU_X12(CPU_V_LOADN)                                                               \
		CPU_V_CONSTS3                                                                      \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			CPU_V_AM1(0) CPU_V_MM1(6) CPU_V_AM1(1) CPU_V_MM1(7)                        \
			CPU_V_AM1(2) CPU_V_MM1(8) CPU_V_AM1(3) CPU_V_MM1(9)                        \
			CPU_V_AM1(4) CPU_V_MM1(10) CPU_V_AM1(5) CPU_V_MM1(11)                      \
			CPU_V_AM2(0) CPU_V_MM2(6) CPU_V_AM2(1) CPU_V_MM2(7)                        \
			CPU_V_AM2(2) CPU_V_MM2(8) CPU_V_AM2(3) CPU_V_MM2(9)                        \
			CPU_V_AM2(4) CPU_V_MM2(10) CPU_V_AM2(5) CPU_V_MM2(11)                      \
		}                                                                                  \
		CPU_X12(CPU_V_STOREN)                                                              \
	}
/* clang-format on */

/* Integer add: x += c1, then x += c2 (k0 = c1, k1 = c2), wrapping. */
#define CPU_V_IADD1(n)                                                                             \
	a##n = V_ADD(a##n, k0);                                                                    \
	CPU_OPAQUE(a##n);
#define CPU_V_IADD2(n)                                                                             \
	a##n = V_ADD(a##n, k1);                                                                    \
	CPU_OPAQUE(a##n);
#define CPU_DEF_IADD(fname, TGT)                                                                   \
	TGT void fname(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)            \
	{                                                                                          \
		CPU_X12(CPU_V_LOADN)                                                               \
		CPU_V_CONSTS                                                                       \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			CPU_X12(CPU_V_IADD1)                                                       \
			CPU_X12(CPU_V_IADD2)                                                       \
		}                                                                                  \
		CPU_X12(CPU_V_STOREN)                                                              \
	}

/* Integer multiply mix: x = x*a + b twice per iteration (k0 = a, k1 = b), wrapping. */
#define CPU_V_IMM(n)                                                                               \
	a##n = V_ADD(V_MULLO(a##n, k0), k1);                                                       \
	CPU_OPAQUE(a##n);
#define CPU_DEF_IMULMIX(fname, TGT)                                                                \
	TGT void fname(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)            \
	{                                                                                          \
		CPU_X12(CPU_V_LOADN)                                                               \
		CPU_V_CONSTS                                                                       \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			CPU_X12(CPU_V_IMM)                                                         \
			CPU_X12(CPU_V_IMM)                                                         \
		}                                                                                  \
		CPU_X12(CPU_V_STOREN)                                                              \
	}

/* Frequency chains: 16 dependent adds per iteration on one register; the result's lane 0
 * is iters x 16. V_LANE0(x) extracts it as uint64_t. */
#define CPU_CHAIN_STEP_FP x = V_ADD(x, one);
#define CPU_CHAIN_STEP_INT                                                                         \
	x = V_ADD(x, one);                                                                         \
	CPU_OPAQUE(x);
#define CPU_REP16(S) S S S S S S S S S S S S S S S S
#define CPU_DEF_CHAIN(fname, TGT, ONE, STEP)                                                       \
	TGT uint64_t fname(uint64_t iters)                                                         \
	{                                                                                          \
		struct cpu_acc out;                                                                \
		V_T x = V_SET1(0);                                                                 \
		const V_T one = V_SET1(ONE);                                                       \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			CPU_REP16(STEP)                                                            \
		}                                                                                  \
		V_STORE(out.v.V_FIELD, x);                                                         \
		return (uint64_t)out.v.V_FIELD[0];                                                 \
	}

#endif
