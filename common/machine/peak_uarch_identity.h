/* The CPU's identity checked against the micro-architecture table: each x86 entry states
 * the ISA features its core has and lacks and its per-core L1d and L2, and the model
 * number's entry is used only when what the CPU reports agrees (peak_uarch_identity.c). */
#ifndef PEAK_UARCH_IDENTITY_H
#define PEAK_UARCH_IDENTITY_H

#include <stddef.h>

#include "peak_sysinfo.h"
#include "peak_uarch.h"

/* The features that tell x86 cores apart, by their /proc/cpuinfo names. A hypervisor can
 * hide a feature but not add one the host lacks: a feature reported that the entry's core
 * lacks contradicts the entry; one the entry has that is not reported does not. */
enum peak_core_feature {
	PEAK_CFEAT_AVX2 = 1u << 0,
	PEAK_CFEAT_AVX512F = 1u << 1,
	PEAK_CFEAT_AVX512_VNNI = 1u << 2,
	PEAK_CFEAT_AVX512_BF16 = 1u << 3,
	PEAK_CFEAT_AVX512_FP16 = 1u << 4,
	PEAK_CFEAT_AVX512IFMA = 1u << 5,
	PEAK_CFEAT_AVX512_VP2INTERSECT = 1u << 6,
	PEAK_CFEAT_AVX_VNNI = 1u << 7,
	PEAK_CFEAT_AMX_TILE = 1u << 8,
	PEAK_CFEAT_AMX_FP16 = 1u << 9,
	PEAK_CFEAT_VAES = 1u << 10,
};

/* The PEAK_CFEAT_* bits of a /proc/cpuinfo "flags" line. */
unsigned peak_core_features_parse(const char *flags);
/* "avx512_fp16 amx_tile" for the bits set (out "" for none). */
void peak_core_features_names(unsigned bits, char *out, size_t len);

enum peak_identity {
	PEAK_IDENTITY_UNKNOWN = 0, /* the model is in no table entry: measured */
	PEAK_IDENTITY_CONSISTENT,  /* what the CPU reports agrees with its model's entry */
	PEAK_IDENTITY_MASKED,      /* it contradicts the model's entry: that entry is not used */
	PEAK_IDENTITY_UNCHECKED,   /* aarch64: the Arm table states no features to check */
};
/* "consistent", "masked", "unknown", "unchecked": the context's cpu.identity. */
const char *peak_identity_name(enum peak_identity v);

struct peak_uarch_identity {
	enum peak_identity verdict;
	char model_says[32]; /* the entry the model number names ("" none) */
	char note[384];      /* why: the evidence for and against, and the entry used */
};

/* The table entry this CPU's identity supports, and the verdict: the model's entry when
 * nothing reported contradicts it; when something does, the entry (or class of entries
 * with equal counts, named "<first>-class") whose features and caches fit all that is
 * reported; else the "unknown" entry (every count 0: the probe measures). id may be NULL. */
void peak_uarch_identify(const struct peak_sysinfo *si, struct peak_uarch *u,
			 struct peak_uarch_identity *id);

/* What a table entry's core has (peak_uarch_identity.c's facts table): true and the facts
 * when the entry of that vendor and name states them. For tests and docs. */
struct peak_uarch_facts {
	const char *vendor, *name;
	unsigned has, lacks;      /* PEAK_CFEAT_* bits; a bit in neither is not stated */
	unsigned l1d_kib, l2_kib; /* per core; 0: not stated (hybrid cores differ) */
	const char *core;         /* "Golden Cove server": the core kind, for the report */
};
const struct peak_uarch_facts *peak_uarch_facts_of(const char *vendor, const char *name);
/* The i-th facts row, NULL past the last. */
const struct peak_uarch_facts *peak_uarch_facts_at(size_t i);

#endif
