/* The aarch64 number-format features from the auxiliary vector (peak_formats_feat_arm64.h).
 * Bits from Linux's arch/arm64/include/uapi/asm/hwcap.h; they are the kernel's ABI, so
 * they are spelled here for a libc whose headers predate them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "peak_formats_feat_arm64.h"

#define HWCAP_ASIMDDP_BIT (1ul << 20)
#define HWCAP2_I8MM_BIT   (1ul << 13)
#define HWCAP2_BF16_BIT   (1ul << 14)

const char *peak_arm64_fmt_feat_name(enum peak_arm64_fmt_feat f)
{
	switch (f) {
	case PEAK_ARM64_DOTPROD:
		return "dotprod";
	case PEAK_ARM64_BF16:
		return "bf16";
	case PEAK_ARM64_I8MM:
		return "i8mm";
	}
	return "?";
}

/* PEAKBENCH_TEST_PRETEND_MISSING=bf16,i8mm: the unsupported path on a core that has them. */
static bool pretend_missing(const char *name)
{
	const char *env = getenv("PEAKBENCH_TEST_PRETEND_MISSING");
	size_t len = strlen(name);
	for (const char *p = env; p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && strncmp(p, name, len) == 0)
			return true;
		p = end ? end + 1 : p + n;
	}
	return false;
}

bool peak_arm64_fmt_has(enum peak_arm64_fmt_feat f, char *reason, size_t reason_len)
{
	const char *name = peak_arm64_fmt_feat_name(f);
	if (pretend_missing(name)) {
		(void)snprintf(reason, reason_len,
			       "%s: pretending it is missing (PEAKBENCH_TEST_PRETEND_MISSING)",
			       name);
		return false;
	}
	unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
	bool has = f == PEAK_ARM64_DOTPROD ? (hw & HWCAP_ASIMDDP_BIT) != 0
		   : f == PEAK_ARM64_BF16  ? (hw2 & HWCAP2_BF16_BIT) != 0
					   : (hw2 & HWCAP2_I8MM_BIT) != 0;
	if (!has)
		(void)snprintf(reason, reason_len, "%s (%s) not reported by this CPU", name,
			       f == PEAK_ARM64_DOTPROD ? "HWCAP_ASIMDDP"
			       : f == PEAK_ARM64_BF16  ? "HWCAP2_BF16"
						       : "HWCAP2_I8MM");
	return has;
}
