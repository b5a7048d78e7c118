/* cpubench's aarch64 number-format kernels (neon_bf16_dot, neon_bf16_mmla, neon_int8_dot,
 * neon_int8_mmla): what cpu_fmt.c needs beyond the x86 forms (cpu_fmt_arm64.c). */
#ifndef CPU_FMT_ARM64_H
#define CPU_FMT_ARM64_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu_kernels.h"

/* The kernel's feature (HWCAP_ASIMDDP, HWCAP2_BF16, HWCAP2_I8MM) is reported; else why not. */
bool cpu_fmt_arm64_supported(const struct cpu_kernel *k, char *reason, size_t reason_len);
/* Operations one instruction performs, as the Arm ARM defines it: 16, 32, 32, 64. */
double cpu_fmt_arm64_ops_per_instr(const struct cpu_kernel *k);
/* Operations per cycle per core from the Arm table's entry of u->name; NAN unknown. */
double cpu_fmt_arm64_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u);
/* An INT8 kernel's per-lane growth per block (one step with B0, one with B1) for the
 * broadcast operand words a, b0, b1: signed x signed (SDOT, SMMLA); SMMLA's lane sums
 * 8 products, its A and B rows being the word twice. */
uint32_t cpu_fmt_arm64_int8_block(const struct cpu_kernel *k, uint32_t a, uint32_t b0, uint32_t b1);

#endif
