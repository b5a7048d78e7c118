/* Kernel and frequency-chain functions of each ISA translation unit (cpu_kernels_*.c). */
#ifndef CPU_KERNELS_IMPL_H
#define CPU_KERNELS_IMPL_H

#include "cpu_kernels.h"

#define CPU_X8(M)  M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#define CPU_X12(M) CPU_X8(M) M(8) M(9) M(10) M(11)
#define CPU_L8(M)  M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7)
#define CPU_L12(M) CPU_L8(M), M(8), M(9), M(10), M(11)

#define CPU_KERNEL_PROTO(name)                                                                     \
	void name(struct cpu_acc *acc, const struct cpu_consts *c, uint64_t iters)

/* scalar (inline asm: provably scalar) */
CPU_KERNEL_PROTO(cpu_k_scalar_sp_fma);
CPU_KERNEL_PROTO(cpu_k_scalar_dp_fma);
CPU_KERNEL_PROTO(cpu_k_scalar_sp_addmul);
CPU_KERNEL_PROTO(cpu_k_scalar_dp_addmul);
CPU_KERNEL_PROTO(cpu_k_scalar_i32_add);
CPU_KERNEL_PROTO(cpu_k_scalar_i64_add);
CPU_KERNEL_PROTO(cpu_k_scalar_i32_mulmix);
CPU_KERNEL_PROTO(cpu_k_scalar_i64_mulmix);
uint64_t cpu_chain_scalar_fp(uint64_t iters);
uint64_t cpu_chain_scalar_int(uint64_t iters);

/* SSE (128-bit, no FMA) */
CPU_KERNEL_PROTO(cpu_k_sse_sp_addmul);
CPU_KERNEL_PROTO(cpu_k_sse_dp_addmul);
CPU_KERNEL_PROTO(cpu_k_sse_i32_add);
CPU_KERNEL_PROTO(cpu_k_sse_i64_add);
CPU_KERNEL_PROTO(cpu_k_sse_i32_mulmix);
uint64_t cpu_chain_sse_fp(uint64_t iters);
uint64_t cpu_chain_sse_int(uint64_t iters);

/* AVX (256-bit floating point, no FMA, no 256-bit integers) */
CPU_KERNEL_PROTO(cpu_k_avx_sp_addmul);
CPU_KERNEL_PROTO(cpu_k_avx_dp_addmul);
uint64_t cpu_chain_avx_fp(uint64_t iters);

/* AVX2 + FMA */
CPU_KERNEL_PROTO(cpu_k_avx2_sp_fma);
CPU_KERNEL_PROTO(cpu_k_avx2_dp_fma);
CPU_KERNEL_PROTO(cpu_k_avx2_i32_add);
CPU_KERNEL_PROTO(cpu_k_avx2_i64_add);
CPU_KERNEL_PROTO(cpu_k_avx2_i32_mulmix);
uint64_t cpu_chain_avx2_int(uint64_t iters);

/* AVX-512 (F; DQ for the 64-bit multiply) */
CPU_KERNEL_PROTO(cpu_k_avx512_sp_fma);
CPU_KERNEL_PROTO(cpu_k_avx512_dp_fma);
CPU_KERNEL_PROTO(cpu_k_avx512_i32_add);
CPU_KERNEL_PROTO(cpu_k_avx512_i64_add);
CPU_KERNEL_PROTO(cpu_k_avx512_i32_mulmix);
CPU_KERNEL_PROTO(cpu_k_avx512_i64_mulmix);
uint64_t cpu_chain_avx512_fp(uint64_t iters);
uint64_t cpu_chain_avx512_int(uint64_t iters);

/* Multiplier of the scalar imul frequency chain (odd, so the chain never reaches 0). */
#define CPU_CHAIN_IMUL_FACTOR 0x9E3779B97F4A7C15ull

#endif
