/* The plain anchor chain of each ISA (cpu_chains_x86.c, cpu_chains_arm64.c): one dependent
 * imul (x86-64) or add (aarch64) after another, iters x CPU_CHAIN_STEPS of them, read by
 * cpu_chain_run. The vector classes' chains are this anchor with the class's instructions
 * between its links (peak_freq_load.h). */
#ifndef CPU_CHAINS_H
#define CPU_CHAINS_H

#include <stdint.h>

/* x86-64: imul r64, whose result is CPU_CHAIN_IMUL_FACTOR^(16 iters); aarch64: add x,
 * whose result is 1 + 16 iters. */
uint64_t cpu_chain_scalar_int(uint64_t iters);

/* Multiplier of the scalar imul frequency chain (odd, so the chain never reaches 0). */
#define CPU_CHAIN_IMUL_FACTOR 0x9E3779B97F4A7C15ull

#endif
