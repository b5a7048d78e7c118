/* The model number is a claim (hypervisors' CPU templates mask it): the entry it names is
 * checked against the features and per-core caches the CPU reports, and replaced by the
 * entry those fit, or by none (then the probe measures). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "peak_path.h"
#include "peak_uarch_identity.h"

static const struct {
	unsigned bit;
	const char *name; /* as /proc/cpuinfo spells it */
} feature_names[] = {
    {PEAK_CFEAT_AVX2, "avx2"},
    {PEAK_CFEAT_AVX512F, "avx512f"},
    {PEAK_CFEAT_AVX512_VNNI, "avx512_vnni"},
    {PEAK_CFEAT_AVX512_BF16, "avx512_bf16"},
    {PEAK_CFEAT_AVX512_FP16, "avx512_fp16"},
    {PEAK_CFEAT_AVX512IFMA, "avx512ifma"},
    {PEAK_CFEAT_AVX512_VP2INTERSECT, "avx512_vp2intersect"},
    {PEAK_CFEAT_AVX_VNNI, "avx_vnni"},
    {PEAK_CFEAT_AMX_TILE, "amx_tile"},
    {PEAK_CFEAT_AMX_FP16, "amx_fp16"},
    {PEAK_CFEAT_VAES, "vaes"},
};
#define NFEATURES (sizeof feature_names / sizeof feature_names[0])

#define F(x)     PEAK_CFEAT_##x
#define FEAT_ALL ((F(VAES) << 1) - 1u)
/* What a core lacks: every feature above that it neither has nor leaves unstated. */
#define LACKS_REST(has, unstated) (FEAT_ALL & ~(unsigned)(has) & ~(unsigned)(unstated))
#define SKX                       (F(AVX2) | F(AVX512F))
#define ICL                       (SKX | F(AVX512_VNNI) | F(AVX512IFMA) | F(VAES))
#define SPR                       (ICL | F(AVX512_BF16) | F(AVX512_FP16) | F(AVX_VNNI) | F(AMX_TILE))
#define ZEN4                      (ICL | F(AVX512_BF16))

/* What each table entry's core has and lacks, and its L1d and L2 per core (never the L3:
 * VMs and SKUs vary it). Features: GCC's -march=<name> feature lists (gcc.gnu.org "x86
 * Options") and LLVM's X86.td processor definitions, which name the same sets; Alder Lake's
 * AVX-512 is left unstated (early steppings ran it with the E-cores off), as is Sapphire
 * Rapids' VP2INTERSECT (LLVM listed it, then dropped it). Caches: Intel's 64 and IA-32
 * Architectures Optimization Reference Manual (cache parameters per microarchitecture) and
 * AMD's software optimization guides for families 17h, 19h and 1Ah; WikiChip's pages of
 * each core agree. Hybrid clients (Alder, Raptor, Meteor Lake) state no cache: their P- and
 * E-cores differ. docs/cpu.md has the table. */
/* clang-format off */
static const struct peak_uarch_facts facts[] = {
	{.vendor = "GenuineIntel", .name = "haswell", .has = F(AVX2), .lacks = LACKS_REST(F(AVX2), 0),
	 .l1d_kib = 32, .l2_kib = 256, .core = "Haswell"},
	{.vendor = "GenuineIntel", .name = "broadwell", .has = F(AVX2), .lacks = LACKS_REST(F(AVX2), 0),
	 .l1d_kib = 32, .l2_kib = 256, .core = "Broadwell"},
	{.vendor = "GenuineIntel", .name = "skylake-client", .has = F(AVX2),
	 .lacks = LACKS_REST(F(AVX2), 0), .l1d_kib = 32, .l2_kib = 256, .core = "Skylake client"},
	{.vendor = "GenuineIntel", .name = "skylake-server", .has = SKX, .lacks = LACKS_REST(SKX, 0),
	 .l1d_kib = 32, .l2_kib = 1024, .core = "Skylake server"},
	{.vendor = "GenuineIntel", .name = "cascadelake-server", .has = SKX | F(AVX512_VNNI),
	 .lacks = LACKS_REST(SKX | F(AVX512_VNNI), 0), .l1d_kib = 32, .l2_kib = 1024,
	 .core = "Cascade Lake server"},
	{.vendor = "GenuineIntel", .name = "cooperlake-server",
	 .has = SKX | F(AVX512_VNNI) | F(AVX512_BF16),
	 .lacks = LACKS_REST(SKX | F(AVX512_VNNI) | F(AVX512_BF16), 0), .l1d_kib = 32,
	 .l2_kib = 1024, .core = "Cooper Lake server"},
	{.vendor = "GenuineIntel", .name = "icelake-server", .has = ICL, .lacks = LACKS_REST(ICL, 0),
	 .l1d_kib = 48, .l2_kib = 1280, .core = "Sunny Cove server"},
	{.vendor = "GenuineIntel", .name = "icelake-client", .has = ICL, .lacks = LACKS_REST(ICL, 0),
	 .l1d_kib = 48, .l2_kib = 512, .core = "Sunny Cove client"},
	{.vendor = "GenuineIntel", .name = "tigerlake", .has = ICL | F(AVX512_VP2INTERSECT),
	 .lacks = LACKS_REST(ICL | F(AVX512_VP2INTERSECT), 0), .l1d_kib = 48, .l2_kib = 1280,
	 .core = "Willow Cove"},
	{.vendor = "GenuineIntel", .name = "rocketlake", .has = ICL, .lacks = LACKS_REST(ICL, 0),
	 .l1d_kib = 48, .l2_kib = 512, .core = "Cypress Cove"},
	{.vendor = "GenuineIntel", .name = "alderlake", .has = F(AVX2) | F(AVX_VNNI) | F(VAES),
	 .lacks = F(AMX_TILE) | F(AMX_FP16), .core = "Golden Cove + Gracemont hybrid"},
	{.vendor = "GenuineIntel", .name = "raptorlake", .has = F(AVX2) | F(AVX_VNNI) | F(VAES),
	 .lacks = LACKS_REST(F(AVX2) | F(AVX_VNNI) | F(VAES), 0),
	 .core = "Raptor Cove + Gracemont hybrid"},
	{.vendor = "GenuineIntel", .name = "meteorlake", .has = F(AVX2) | F(AVX_VNNI) | F(VAES),
	 .lacks = LACKS_REST(F(AVX2) | F(AVX_VNNI) | F(VAES), 0),
	 .core = "Redwood Cove + Crestmont hybrid"},
	{.vendor = "GenuineIntel", .name = "sapphirerapids", .has = SPR,
	 .lacks = LACKS_REST(SPR, F(AVX512_VP2INTERSECT)), .l1d_kib = 48, .l2_kib = 2048,
	 .core = "Golden Cove server"},
	{.vendor = "GenuineIntel", .name = "emeraldrapids", .has = SPR,
	 .lacks = LACKS_REST(SPR, F(AVX512_VP2INTERSECT)), .l1d_kib = 48, .l2_kib = 2048,
	 .core = "Raptor Cove server"},
	{.vendor = "GenuineIntel", .name = "graniterapids", .has = SPR | F(AMX_FP16),
	 .lacks = LACKS_REST(SPR | F(AMX_FP16), F(AVX512_VP2INTERSECT)), .l1d_kib = 48,
	 .l2_kib = 2048, .core = "Redwood Cove server"},
	{.vendor = "AuthenticAMD", .name = "zen1", .has = F(AVX2), .lacks = LACKS_REST(F(AVX2), 0),
	 .l1d_kib = 32, .l2_kib = 512, .core = "Zen/Zen+"},
	{.vendor = "HygonGenuine", .name = "zen1", .has = F(AVX2), .lacks = LACKS_REST(F(AVX2), 0),
	 .l1d_kib = 32, .l2_kib = 512, .core = "Dhyana (Zen)"},
	{.vendor = "AuthenticAMD", .name = "zen2", .has = F(AVX2), .lacks = LACKS_REST(F(AVX2), 0),
	 .l1d_kib = 32, .l2_kib = 512, .core = "Zen 2"},
	{.vendor = "AuthenticAMD", .name = "zen3", .has = F(AVX2) | F(VAES),
	 .lacks = LACKS_REST(F(AVX2) | F(VAES), 0), .l1d_kib = 32, .l2_kib = 512, .core = "Zen 3"},
	{.vendor = "AuthenticAMD", .name = "zen4", .has = ZEN4, .lacks = LACKS_REST(ZEN4, 0),
	 .l1d_kib = 32, .l2_kib = 1024, .core = "Zen 4"},
	{.vendor = "AuthenticAMD", .name = "zen4c", .has = ZEN4, .lacks = LACKS_REST(ZEN4, 0),
	 .l1d_kib = 32, .l2_kib = 1024, .core = "Zen 4c"},
	{.vendor = "AuthenticAMD", .name = "zen5", .has = ZEN4 | F(AVX_VNNI) | F(AVX512_VP2INTERSECT),
	 .lacks = LACKS_REST(ZEN4 | F(AVX_VNNI) | F(AVX512_VP2INTERSECT), 0), .l1d_kib = 48,
	 .l2_kib = 1024, .core = "Zen 5"},
};
/* clang-format on */
#define NFACTS (sizeof facts / sizeof facts[0])

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word)) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
		if (start && end)
			return true;
	}
	return false;
}

unsigned peak_core_features_parse(const char *flags)
{
	unsigned bits = 0;
	for (size_t i = 0; flags && i < NFEATURES; i++)
		if (has_word(flags, feature_names[i].name))
			bits |= feature_names[i].bit;
	return bits;
}

void peak_core_features_names(unsigned bits, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < NFEATURES && used < len; i++) {
		if (!(bits & feature_names[i].bit))
			continue;
		int w = snprintf(out + used, len - used, "%s%s", used ? " " : "",
				 feature_names[i].name);
		if (w > 0)
			used += (size_t)w;
	}
}

const char *peak_identity_name(enum peak_identity v)
{
	switch (v) {
	case PEAK_IDENTITY_CONSISTENT:
		return "consistent";
	case PEAK_IDENTITY_MASKED:
		return "masked";
	case PEAK_IDENTITY_UNCHECKED:
		return "unchecked";
	case PEAK_IDENTITY_UNKNOWN:
		break;
	}
	return "unknown";
}

const struct peak_uarch_facts *peak_uarch_facts_at(size_t i)
{
	return i < NFACTS ? &facts[i] : NULL;
}

const struct peak_uarch_facts *peak_uarch_facts_of(const char *vendor, const char *name)
{
	for (size_t i = 0; vendor && name && i < NFACTS; i++)
		if (strcmp(facts[i].vendor, vendor) == 0 && strcmp(facts[i].name, name) == 0)
			return &facts[i];
	return NULL;
}

/* What the CPU reports: its identity features and its L1d and L2 per core (0 unknown). */
struct reported {
	unsigned feats, l1d_kib, l2_kib;
};

static unsigned cache_kib(const struct peak_sysinfo *si, unsigned level)
{
	for (unsigned i = 0; i < si->ncaches; i++)
		if (si->caches[i].level == level && si->caches[i].type != 'i')
			return (unsigned)(si->caches[i].size_bytes / 1024);
	return 0;
}

static bool cache_differs(unsigned reported_kib, unsigned entry_kib)
{
	return reported_kib && entry_kib && reported_kib != entry_kib;
}

static bool contradicts(const struct peak_uarch_facts *f, const struct reported *r)
{
	return (r->feats & f->lacks) || cache_differs(r->l1d_kib, f->l1d_kib) ||
	       cache_differs(r->l2_kib, f->l2_kib);
}

/* An entry fits when nothing reported contradicts it and every feature it has is seen. */
static bool fits(const struct peak_uarch_facts *f, const struct reported *r)
{
	return !contradicts(f, r) && (f->has & ~r->feats) == 0;
}

/* "a 2 MiB L2", "a 1.25 MiB L2", "a 48 KiB L1d" */
static void cache_words(unsigned kib, const char *what, char *out, size_t len)
{
	if (kib >= 1024)
		(void)peak_fmt(out, len, "a %g MiB %s", kib / 1024.0, what);
	else
		(void)peak_fmt(out, len, "a %u KiB %s", kib, what);
}

/* The evidence as prose, "a, b and c": the features of bits and, when the flags say so,
 * the reported L1d and L2. Returns the number of items. */
static size_t evidence_words(unsigned bits, const struct reported *r, bool l1d, bool l2, char *out,
			     size_t len)
{
	char items[NFEATURES + 2][40];
	size_t n = 0;
	for (size_t i = 0; i < NFEATURES; i++)
		if (bits & feature_names[i].bit)
			(void)peak_fmt(items[n++], sizeof items[0], "%s", feature_names[i].name);
	if (l1d)
		cache_words(r->l1d_kib, "L1d", items[n++], sizeof items[0]);
	if (l2)
		cache_words(r->l2_kib, "L2", items[n++], sizeof items[0]);
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
		int w = snprintf(out + used, len - used, "%s%s", sep, items[i]);
		if (w > 0)
			used += (size_t)w;
	}
	return n;
}

/* The counts a peak needs: two entries agreeing on all of them are one for the peaks. */
static bool same_counts(const struct peak_uarch *a, const struct peak_uarch *b)
{
	return a->fma_units == b->fma_units && a->fma512_units == b->fma512_units &&
	       a->vec_int_add_units == b->vec_int_add_units &&
	       a->vec512_int_add_units == b->vec512_int_add_units &&
	       a->int_alu_units == b->int_alu_units &&
	       a->vec_int_mul_units == b->vec_int_mul_units && a->imul_units == b->imul_units &&
	       a->fp_add_latency == b->fp_add_latency &&
	       a->fp_add256_latency == b->fp_add256_latency &&
	       a->fp_add512_latency == b->fp_add512_latency && a->imul_latency == b->imul_latency &&
	       a->pipe_bits == b->pipe_bits && a->addmul_ops == b->addmul_ops &&
	       a->addmul512_ops == b->addmul512_ops;
}

static void set_unknown(struct peak_uarch *u, const char *note)
{
	memset(u, 0, sizeof *u);
	(void)peak_fmt(u->name, sizeof u->name, "unknown");
	u->source = PEAK_SRC_UNKNOWN;
	u->imul_latency = 3; /* imul r64 on every x86-64 since Core 2 and Zen: the clock chain */
	(void)peak_fmt(u->note, sizeof u->note, "%s", note);
}

/* The entries of this vendor that fit what is reported: u gets their counts and name (one
 * name, or "<first>-class" for several with equal counts), and what names them; false
 * when none fits or their counts differ (u untouched). */
static bool pick_by_features(const char *vendor, const struct reported *r, struct peak_uarch *u,
			     char *which, size_t len)
{
	struct peak_uarch first, other;
	size_t n = 0, used = 0;
	bool agree = true;
	which[0] = '\0';
	for (size_t i = 0; i < NFACTS; i++) {
		const struct peak_uarch_facts *f = &facts[i];
		if (strcmp(f->vendor, vendor) != 0 || !fits(f, r) ||
		    !peak_uarch_by_name(f->name, n ? &other : &first))
			continue;
		if (n && !same_counts(&first, &other))
			agree = false;
		int w = snprintf(which + used, used < len ? len - used : 0, "%s%s (%s)",
				 n ? ", " : "", f->name, f->core);
		if (w > 0)
			used += (size_t)w;
		n++;
	}
	if (!n || !agree)
		return false;
	if (n > 1) {
		char base[sizeof first.name];
		memcpy(base, first.name, sizeof base);
		(void)peak_fmt(first.name, sizeof first.name, "%.24s-class", base);
	}
	*u = first;
	return true;
}

static void judge(const struct peak_sysinfo *si, const struct reported *r, struct peak_uarch *u,
		  struct peak_uarch_identity *id)
{
	const struct peak_uarch_facts *f = peak_uarch_facts_of(si->vendor, u->name);
	(void)peak_fmt(id->model_says, sizeof id->model_says, "%s", u->name);
	char ev[200], which[200];
	if (!f) { /* an entry without facts is a table defect: unit-tested never to happen */
		id->verdict = PEAK_IDENTITY_CONSISTENT;
		(void)peak_fmt(id->note, sizeof id->note, "model %u says %s; no facts to check",
			       si->model, u->name);
		return;
	}
	if (!contradicts(f, r)) {
		id->verdict = PEAK_IDENTITY_CONSISTENT;
		size_t n = evidence_words(r->feats & f->has, r, r->l1d_kib && f->l1d_kib,
					  r->l2_kib && f->l2_kib, ev, sizeof ev);
		int w = snprintf(id->note, sizeof id->note, "model %u says %s; %s", si->model,
				 u->name, ev[0] ? ev : "nothing reported to check it against");
		if (n && w > 0 && (size_t)w < sizeof id->note)
			(void)peak_fmt(id->note + w, sizeof id->note - (size_t)w,
				       n == 1 ? " agrees" : " agree");
		return;
	}
	id->verdict = PEAK_IDENTITY_MASKED;
	size_t n = evidence_words(r->feats & f->lacks, r, cache_differs(r->l1d_kib, f->l1d_kib),
				  cache_differs(r->l2_kib, f->l2_kib), ev, sizeof ev);
	const char *verb = n == 1 ? "contradicts" : "contradict";
	if (pick_by_features(si->vendor, r, u, which, sizeof which)) {
		(void)peak_fmt(id->note, sizeof id->note,
			       "model %u says %s; %s %s it; all that is reported fits %s: %s",
			       si->model, id->model_says, ev, verb, u->name, which);
		(void)peak_fmt(u->note, sizeof u->note, "chosen by features (cpu.identity)");
		return;
	}
	(void)peak_fmt(id->note, sizeof id->note,
		       "model %u says %s; %s %s it; %s: no table entry used, measured", si->model,
		       id->model_says, ev, verb,
		       which[0] ? "the entries that fit differ in their counts"
				: "no table entry fits all that is reported");
	set_unknown(u, "the model's entry is contradicted (cpu.identity)");
}

void peak_uarch_identify(const struct peak_sysinfo *si, struct peak_uarch *u,
			 struct peak_uarch_identity *id)
{
	struct peak_uarch_identity scratch;
	if (!id)
		id = &scratch;
	memset(id, 0, sizeof *id);
	if (!peak_uarch_lookup_model(si, u)) {
		id->verdict = PEAK_IDENTITY_UNKNOWN;
		(void)peak_fmt(id->note, sizeof id->note, "%s", u->note);
		return;
	}
	if (strcmp(si->arch, "aarch64") == 0) {
		id->verdict = PEAK_IDENTITY_UNCHECKED;
		(void)peak_fmt(id->model_says, sizeof id->model_says, "%s", u->name);
		(void)peak_fmt(id->note, sizeof id->note,
			       "part 0x%03x says %s; the Arm table states no features to check",
			       si->model, u->name);
		return;
	}
	struct reported r = {si->features, cache_kib(si, 1), cache_kib(si, 2)};
	/* Under qemu's translator the caches are the host's (qemu-user: hwloc reads the host's
	 * sysfs) or qemu's invention (full system: 4 MiB L2 on most models), never the
	 * emulated core's: only the features, which qemu reports for the model, are checked. */
	bool tcg = strcmp(si->hypervisor, "qemu-tcg") == 0;
	if (tcg)
		r.l1d_kib = r.l2_kib = 0;
	judge(si, &r, u, id);
	if (tcg) {
		size_t used = strlen(id->note);
		(void)peak_fmt(id->note + used, sizeof id->note - used,
			       " (caches not compared under qemu's translator)");
	}
}

/* Defined here, not in peak_uarch.c, so that the table (peak_uarch.c) needs nothing of the
 * check built on it: the lookup every caller uses is the checked one. */
void peak_uarch_lookup(const struct peak_sysinfo *si, struct peak_uarch *u)
{
	peak_uarch_identify(si, u, NULL);
}
