/* ISA names and widths, and the one ISA-support check (peak_isa.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "peak_isa.h"
#include "peak_sysinfo.h"

static const char *const isa_names[PEAK_ISA_COUNT] = {"scalar", "sse", "avx", "avx2", "avx512",
#if defined(__aarch64__)
							"neon", "sve",
#endif
};
static const unsigned isa_bits[PEAK_ISA_COUNT] = {64, 128, 256, 256, 512,
#if defined(__aarch64__)
						  128, 0, /* SVE: peak_isa_sve_vl_bits */
#endif
};

const char *peak_isa_name(enum peak_isa isa)
{
	return (unsigned)isa < PEAK_ISA_COUNT ? isa_names[isa] : "unknown";
}

int peak_isa_parse(const char *name)
{
	for (int i = 0; i < PEAK_ISA_COUNT; i++)
		if (name && strcmp(name, isa_names[i]) == 0)
			return i;
	return -1;
}

unsigned peak_isa_bits(enum peak_isa isa)
{
#if defined(__aarch64__)
	if (isa == PEAK_ISA_SVE)
		return peak_isa_sve_vl_bits();
#endif
	return (unsigned)isa < PEAK_ISA_COUNT ? isa_bits[isa] : 0;
}

static const struct {
	unsigned bit;
	const char *name;
	const char *os_hint; /* the sysinfo warning when the OS left its state disabled */
} features[] = {
    {PEAK_FEAT_SSE2, "sse2", NULL},
    {PEAK_FEAT_SSE41, "sse4_1", NULL},
    {PEAK_FEAT_AVX, "avx", "AVX reported by the CPU but not enabled"},
    {PEAK_FEAT_AVX2, "avx2", "AVX reported by the CPU but not enabled"},
    {PEAK_FEAT_FMA, "fma", "AVX reported by the CPU but not enabled"},
    {PEAK_FEAT_AVX512F, "avx512f", "AVX-512 reported by the CPU but not enabled"},
    {PEAK_FEAT_AVX512DQ, "avx512dq", "AVX-512 reported by the CPU but not enabled"},
    {PEAK_FEAT_ASIMD, "asimd", NULL},
    {PEAK_FEAT_SVE, "sve", NULL},
    {PEAK_FEAT_SVE2, "sve2", NULL},
};

static bool has_feature(const struct peak_isa_flags *f, unsigned bit)
{
	switch (bit) {
	case PEAK_FEAT_SSE2:
		return f->sse2;
	case PEAK_FEAT_SSE41:
		return f->sse4_1;
	case PEAK_FEAT_AVX:
		return f->avx;
	case PEAK_FEAT_AVX2:
		return f->avx2;
	case PEAK_FEAT_FMA:
		return f->fma;
	case PEAK_FEAT_AVX512F:
		return f->avx512f;
	case PEAK_FEAT_AVX512DQ:
		return f->avx512dq;
	case PEAK_FEAT_ASIMD:
		return f->asimd;
	case PEAK_FEAT_SVE:
		return f->sve;
	case PEAK_FEAT_SVE2:
		return f->sve2;
	default:
		return false;
	}
}

bool peak_features_ok(const struct peak_isa_flags *f, const char *warnings, unsigned need,
		      char *reason, size_t reason_len)
{
	if (reason && reason_len)
		reason[0] = '\0';
	unsigned known = 0;
	for (size_t i = 0; i < sizeof features / sizeof features[0]; i++) {
		known |= features[i].bit;
		if (!(need & features[i].bit) || has_feature(f, features[i].bit))
			continue;
		if (reason && reason_len) {
			const char *name = features[i].name, *hint = features[i].os_hint;
			if (!(features[i].bit & PEAK_FEAT_NATIVE))
				(void)snprintf(reason, reason_len, "%s is not an %s feature", name,
					       PEAK_FEAT_NATIVE & PEAK_FEAT_ASIMD ? "aarch64"
										  : "x86-64");
			else if (warnings && strstr(warnings, "ISA flags unknown"))
				(void)snprintf(reason, reason_len, "%s unknown: no ISA flags found",
					       name);
			else if (warnings && hint && strstr(warnings, hint))
				(void)snprintf(reason, reason_len,
					       "%s not enabled by the OS (XCR0)", name);
			else
				(void)snprintf(reason, reason_len, "%s not reported by this CPU",
					       name);
		}
		return false;
	}
	if (need & ~known) {
		if (reason && reason_len)
			(void)snprintf(reason, reason_len, "unknown ISA feature");
		return false;
	}
	return true;
}

static struct peak_isa_flags process_flags;
static const char *process_note;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;

static void detect_process_flags(void)
{
	peak_isa_detect(&process_flags, &process_note);
}

bool peak_cpu_can_run(unsigned need, char *reason, size_t reason_len)
{
	(void)pthread_once(&process_once, detect_process_flags);
	return peak_features_ok(&process_flags, process_note, need, reason, reason_len);
}

unsigned peak_isa_sve_vl_bits(void)
{
	(void)pthread_once(&process_once, detect_process_flags);
	return process_flags.sve ? process_flags.sve_vl_bits : 0;
}

unsigned peak_isa_features(enum peak_isa isa)
{
	switch (isa) {
	case PEAK_ISA_SCALAR:
		return 0;
	case PEAK_ISA_SSE:
		return PEAK_FEAT_SSE2;
	case PEAK_ISA_AVX:
		return PEAK_FEAT_AVX;
	case PEAK_ISA_AVX2:
		return PEAK_FEAT_AVX2;
	case PEAK_ISA_AVX512:
		return PEAK_FEAT_AVX512F;
#if defined(__aarch64__)
	case PEAK_ISA_NEON:
		return PEAK_FEAT_ASIMD;
	case PEAK_ISA_SVE:
		return PEAK_FEAT_SVE;
#endif
	case PEAK_ISA_COUNT:
	default:
		return ~0u; /* no flag set holds every bit: "unknown ISA feature" */
	}
}

bool peak_isa_supported(const struct peak_sysinfo *si, enum peak_isa isa, char *reason,
			size_t reason_len)
{
	if ((unsigned)isa >= PEAK_ISA_COUNT) {
		if (reason && reason_len)
			(void)snprintf(reason, reason_len, "unknown ISA");
		return false;
	}
	unsigned need = peak_isa_features(isa) | (isa == PEAK_ISA_AVX2 ? PEAK_FEAT_FMA : 0u);
	return peak_features_ok(&si->isa, si->warnings, need, reason, reason_len);
}
