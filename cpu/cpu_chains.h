/* The frequency chains of each ISA (cpu_chains_x86.c, cpu_chains_arm64.c): one dependent add (or imul) after
 * another, iters x CPU_CHAIN_STEPS of them, read by cpu_chain_run. */
#ifndef CPU_CHAINS_H
#define CPU_CHAINS_H

#include <stdint.h>

/* Every architecture: the scalar FP add chain and the integer chain (x86-64: imul r64;
 * aarch64: add x, whose result is 1 + 16 iters). */
uint64_t cpu_chain_scalar_fp(uint64_t iters);
uint64_t cpu_chain_scalar_int(uint64_t iters);
#if defined(__x86_64__)
uint64_t cpu_chain_sse_fp(uint64_t iters);
uint64_t cpu_chain_sse_int(uint64_t iters);
uint64_t cpu_chain_avx_fp(uint64_t iters);
uint64_t cpu_chain_avx2_int(uint64_t iters);
uint64_t cpu_chain_avx512_fp(uint64_t iters);
uint64_t cpu_chain_avx512_int(uint64_t iters);
#endif

/* Multiplier of the scalar imul frequency chain (odd, so the chain never reaches 0). */
#define CPU_CHAIN_IMUL_FACTOR 0x9E3779B97F4A7C15ull

#endif
