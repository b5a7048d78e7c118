/* ISAs and the one ISA-support check: which vector extensions an instruction sequence
 * needs, and whether this CPU and OS give them (cpu, memory and peak all ask here). */
#ifndef PEAK_ISA_H
#define PEAK_ISA_H

#include <stdbool.h>
#include <stddef.h>

struct peak_sysinfo;

/* The x86 ISAs stay in every build (the tables name them; on aarch64 they are reported
 * unsupported); NEON exists only in aarch64 builds, so x86 lists are unchanged. */
enum peak_isa {
	PEAK_ISA_SCALAR,
	PEAK_ISA_SSE,
	PEAK_ISA_AVX,
	PEAK_ISA_AVX2,
	PEAK_ISA_AVX512,
#if defined(__aarch64__)
	PEAK_ISA_NEON, /* Advanced SIMD, 128-bit */
	PEAK_ISA_SVE,  /* scalable: this process's vector length (peak_isa_sve_vl_bits) */
#endif
	PEAK_ISA_COUNT
};
enum peak_precision { PEAK_PREC_SP, PEAK_PREC_DP, PEAK_PREC_COUNT };

const char *peak_isa_name(enum peak_isa isa);
/* Parse "scalar", "sse", "avx", "avx2", "avx512" (and "neon" on aarch64); -1 when unknown. */
int peak_isa_parse(const char *name);
/* Vector width in bits (64 for scalar: one lane of a double; SVE: this process's). */
unsigned peak_isa_bits(enum peak_isa isa);
/* This process's SVE vector length in bits (prctl PR_SVE_GET_VL); 0 without SVE. */
unsigned peak_isa_sve_vl_bits(void);
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
	PEAK_FEAT_ASIMD = 1u << 7,    /* aarch64 NEON (HWCAP_ASIMD) */
	PEAK_FEAT_SVE = 1u << 8,      /* HWCAP_SVE */
	PEAK_FEAT_SVE2 = 1u << 9,     /* HWCAP2_SVE2 */
};
/* The features of this build's architecture (a feature of the other one is reported
 * "x86 feature: this is an aarch64 build" and vice versa). */
#if defined(__aarch64__)
#define PEAK_FEAT_NATIVE (PEAK_FEAT_ASIMD | PEAK_FEAT_SVE | PEAK_FEAT_SVE2)
#else
#define PEAK_FEAT_NATIVE                                                                           \
	(PEAK_FEAT_SSE2 | PEAK_FEAT_SSE41 | PEAK_FEAT_AVX | PEAK_FEAT_AVX2 | PEAK_FEAT_FMA |       \
	 PEAK_FEAT_AVX512F | PEAK_FEAT_AVX512DQ)
#endif
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
