/* ISAs and the one ISA-support check: which vector extensions an instruction sequence
 * needs, and whether this CPU and OS give them (cpu, memory and peak all ask here). */
#ifndef PEAK_ISA_H
#define PEAK_ISA_H

#include <stdbool.h>
#include <stddef.h>

struct peak_sysinfo;

enum peak_isa { PEAK_ISA_SCALAR, PEAK_ISA_SSE, PEAK_ISA_AVX, PEAK_ISA_AVX2, PEAK_ISA_AVX512, PEAK_ISA_COUNT };
enum peak_precision { PEAK_PREC_SP, PEAK_PREC_DP, PEAK_PREC_COUNT };

const char *peak_isa_name(enum peak_isa isa);
/* Parse "scalar", "sse", "avx", "avx2", "avx512"; returns -1 when unknown. */
int peak_isa_parse(const char *name);
/* Vector width in bits (64 for scalar: one lane of a double). */
unsigned peak_isa_bits(enum peak_isa isa);
/* The one ISA-support check. Features an instruction sequence needs, as a bit mask; each
 * user names what its instructions use (an AVX2 integer kernel needs AVX2, not FMA). */
enum peak_feature {
	PEAK_FEAT_SSE2 = 1u << 0,
	PEAK_FEAT_SSE41 = 1u << 1, /* pmulld */
	PEAK_FEAT_AVX = 1u << 2,
	PEAK_FEAT_AVX2 = 1u << 3,
	PEAK_FEAT_FMA = 1u << 4, /* FMA3 on ymm state: vfmadd231sd/pd */
	PEAK_FEAT_AVX512F = 1u << 5,
	PEAK_FEAT_AVX512DQ = 1u << 6, /* vpmullq */
};
struct peak_isa_flags;
/* True when flags f (CPU and OS state, as peak_isa_detect or /proc/cpuinfo give them) hold
 * every feature of need; else false and reason names the first one missing: "avx2 not
 * reported by this CPU", "avx512f not enabled by the OS (XCR0)" (when warnings carries
 * the OS note) or "fma unknown: no ISA flags found" (warnings says the flags are unknown).
 * warnings may be NULL. */
bool peak_features_ok(const struct peak_isa_flags *f, const char *warnings, unsigned need,
		      char *reason, size_t reason_len);
/* peak_features_ok for this process (flags detected once). */
bool peak_cpu_can_run(unsigned need, char *reason, size_t reason_len);
/* The features an ISA's own instructions need: sse2, avx, avx2, avx512f (none for scalar). */
unsigned peak_isa_features(enum peak_isa isa);
/* True when this CPU (and OS) can run the ISA's peak kernels; reason says why not. AVX2's
 * peak is FMA's (peak_cpu_flops_per_cycle), so AVX2 here also needs FMA. */
bool peak_isa_supported(const struct peak_sysinfo *si, enum peak_isa isa, char *reason,
			size_t reason_len);

#endif
