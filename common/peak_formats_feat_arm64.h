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

#endif
