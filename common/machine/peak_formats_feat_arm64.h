/* Which of the aarch64 number-format instructions this core runs (HWCAP/HWCAP2 from the
 * kernel's auxiliary vector), and why not where it does not. */
#ifndef PEAK_FORMATS_FEAT_ARM64_H
#define PEAK_FORMATS_FEAT_ARM64_H

#include <stdbool.h>
#include <stddef.h>

enum peak_arm64_fmt_feat {
	PEAK_ARM64_DOTPROD, /* SDOT/UDOT (FEAT_DotProd, HWCAP_ASIMDDP) */
	PEAK_ARM64_BF16,    /* BFDOT, BFMMLA (FEAT_BF16, HWCAP2_BF16) */
	PEAK_ARM64_I8MM,    /* SMMLA, UMMLA, USMMLA (FEAT_I8MM, HWCAP2_I8MM) */
};

/* True when the kernel reports the feature; otherwise reason says so ("bf16 (HWCAP2_BF16)
 * not reported by this CPU"). aarch64 builds only. Honors
 * PEAKBENCH_TEST_PRETEND_MISSING's names dotprod, bf16 and i8mm (docs/cpu.md). */
bool peak_arm64_fmt_has(enum peak_arm64_fmt_feat f, char *reason, size_t reason_len);
/* "dotprod", "bf16", "i8mm". */
const char *peak_arm64_fmt_feat_name(enum peak_arm64_fmt_feat f);

/* The cpubench format variants of aarch64 (peak_formats_arm64.c): whether that variant
 * ("neon_bf16_dot", "neon_bf16_mmla", "neon_int8_dot", "neon_int8_mmla") runs here (else
 * reason), the operations one of its instructions performs, and its operations per cycle
 * per core on the Arm table's core of that name (0: unknown or absent). */
bool peak_formats_arm64_form_runs(const char *variant, char *reason, size_t reason_len);
double peak_formats_arm64_ops_per_instr(const char *variant);
double peak_formats_arm64_ops_per_cycle(const char *core, const char *variant);

#endif
