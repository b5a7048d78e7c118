/* The aarch64 format-peak list (peak_formats.h).
 *
 * PLACEHOLDER for engineer 7 (h/formatsarm, issue 37 arm64): only the FP64/FP32 vector
 * entries today. To add: BF16 (BFDOT vector, BFMMLA matrix) and INT8 (SDOT vector, SMMLA
 * matrix) entries with their Neoverse rates and sources (peak_uarch_arm.c), unsupported
 * with the reason where HWCAP2_BF16 / HWCAP2_I8MM / HWCAP_ASIMDDP are absent. */
#include "peak_formats.h"

void peak_formats_list(const struct peak_machine *m, unsigned threads,
		       struct peak_format_list *out)
{
	out->n = 0;
	peak_formats_add_fp(out, m, threads);
}
