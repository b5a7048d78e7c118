/* peak_uarch_identity: every table entry states its core's features and caches, and the
 * model number is checked against them (synthetic masks: a Zen 4 reporting a Zen 2 model,
 * an Intel server core with AMX reporting client models, evidence that fits no entry or
 * entries with different counts; and what must stay consistent). */
#include "peak_cmocka.h"

#include <stdio.h>
#include <string.h>

#include "peak_sysinfo.h"
#include "peak_uarch.h"
#include "peak_uarch_identity.h"

#define F(x) PEAK_CFEAT_##x
#define ZEN4_FEATS                                                                                 \
	(F(AVX2) | F(AVX512F) | F(AVX512_VNNI) | F(AVX512_BF16) | F(AVX512IFMA) | F(VAES))
#define SPR_FEATS                                                                                  \
	(F(AVX2) | F(AVX512F) | F(AVX512_VNNI) | F(AVX512_BF16) | F(AVX512_FP16) | F(AVX512IFMA) | \
	 F(VAES) | F(AVX_VNNI) | F(AMX_TILE))

/* A CPU as the identity check sees it: vendor, family, model, features, L1d and L2 (KiB,
 * 0: not reported). */
static void fake(struct peak_sysinfo *si, const char *vendor, unsigned family, unsigned model,
		 unsigned feats, unsigned l1d_kib, unsigned l2_kib)
{
	memset(si, 0, sizeof *si);
	(void)snprintf(si->vendor, sizeof si->vendor, "%s", vendor);
	(void)snprintf(si->arch, sizeof si->arch, "x86_64");
	si->family = family;
	si->model = model;
	si->stepping = 1;
	si->features = feats;
	if (l1d_kib)
		si->caches[si->ncaches++] =
		    (struct peak_cache){.level = 1, .type = 'd', .size_bytes = l1d_kib * 1024ull};
	if (l2_kib)
		si->caches[si->ncaches++] =
		    (struct peak_cache){.level = 2, .type = 'u', .size_bytes = l2_kib * 1024ull};
}

static void has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' lacks '%s'", text, part);
}

/* Every x86 table row has a facts row of its vendor and name, and every facts row names a
 * table entry; what a core has it does not also lack. */
static void test_every_entry_stated(void **state)
{
	(void)state;
	const char *vendor, *name;
	size_t n = 0;
	for (size_t i = 0; peak_uarch_entry_at(i, &vendor, &name); i++, n++)
		if (!peak_uarch_facts_of(vendor, name))
			fail_msg("table entry %s %s states no features or caches", vendor, name);
	assert_true(n > 20);
	const struct peak_uarch_facts *f;
	struct peak_uarch u;
	for (size_t i = 0; (f = peak_uarch_facts_at(i)) != NULL; i++) {
		if (!peak_uarch_by_name(f->name, &u))
			fail_msg("facts row %s names no table entry", f->name);
		assert_int_equal(f->has & f->lacks, 0);
		assert_true(f->has & F(AVX2));
	}
}

static void test_features_parse(void **state)
{
	(void)state;
	unsigned bits = peak_core_features_parse(
	    "fpu avx2 avx512f avx512fp16x avx512_fp16 amx_tile amx_bf16 avx_vnni_int8 sha_ni");
	assert_int_equal(bits, F(AVX2) | F(AVX512F) | F(AVX512_FP16) | F(AMX_TILE));
	char names[128];
	peak_core_features_names(bits, names, sizeof names);
	assert_string_equal(names, "avx2 avx512f avx512_fp16 amx_tile");
	assert_int_equal(peak_core_features_parse(""), 0);
	assert_int_equal(peak_core_features_parse(NULL), 0);
}

/* A Zen 4 whose hypervisor reports a Zen 2 model (family 23 model 0x31): AVX-512 and a
 * 1 MiB L2 contradict zen2; the Zen 4 entries fit, with equal counts. */
static void test_zen4_as_zen2(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	struct peak_uarch u;
	struct peak_uarch_identity id;
	fake(&si, "AuthenticAMD", 23, 0x31, ZEN4_FEATS, 32, 1024);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);
	assert_string_equal(id.model_says, "zen2");
	assert_string_equal(u.name, "zen4-class");
	assert_int_equal(u.source, PEAK_SRC_TABLE);
	assert_int_equal(u.fma512_units, 1);
	has(id.note, "model 49 says zen2; avx512f, avx512_vnni, avx512_bf16, avx512ifma, vaes "
		     "and a 1 MiB L2 contradict it");
	has(id.note, "zen4 (Zen 4), zen4c (Zen 4c)");
	/* peak_uarch_lookup takes the same entry: every caller gets the checked one */
	peak_uarch_lookup(&si, &u);
	assert_string_equal(u.name, "zen4-class");
}

/* An Intel server core with AMX behind client models: Alder Lake's (151, hybrid: no
 * cache stated, AMX alone contradicts it) and Rocket Lake's (167, the record's). */
static void test_amx_server_as_client(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	struct peak_uarch u;
	struct peak_uarch_identity id;
	fake(&si, "GenuineIntel", 6, 151, SPR_FEATS, 48, 2048);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);
	assert_string_equal(id.model_says, "alderlake");
	assert_string_equal(u.name, "sapphirerapids-class");
	assert_int_equal(u.fma512_units, 2);
	assert_int_equal(u.int_alu_units, 5);
	has(id.note, "model 151 says alderlake; amx_tile contradicts it");

	fake(&si, "GenuineIntel", 6, 167, SPR_FEATS, 48, 2048);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);
	assert_string_equal(id.model_says, "rocketlake");
	assert_string_equal(u.name, "sapphirerapids-class");
	has(id.note, "avx512_bf16, avx512_fp16, avx_vnni, amx_tile and a 2 MiB L2 contradict it");
	has(id.note, "sapphirerapids (Golden Cove server), emeraldrapids (Raptor Cove server)");
	/* amx_fp16 as well: Granite Rapids alone fits, by its own name */
	fake(&si, "GenuineIntel", 6, 167, SPR_FEATS | F(AMX_FP16), 48, 2048);
	peak_uarch_identify(&si, &u, &id);
	assert_string_equal(u.name, "graniterapids");
	assert_true(peak_uarch_name_known("sapphirerapids-class"));
	assert_true(peak_uarch_by_name("sapphirerapids-class", &u));
	assert_int_equal(u.fma512_units, 2);
	assert_false(peak_uarch_name_known("nosuch-class"));
}

/* Contradicted, and nothing fits (a 4 MiB L2 is no entry's), or what fits disagrees on
 * the counts (a 256 KiB L2 and AVX2 alone: Haswell, Broadwell, Skylake client): no entry,
 * every count unknown, the probe measures. Never the masked one. */
static void test_masked_no_entry(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	struct peak_uarch u;
	struct peak_uarch_identity id;
	fake(&si, "GenuineIntel", 6, 167, SPR_FEATS, 48, 4096);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);
	assert_string_equal(u.name, "unknown");
	assert_int_equal(u.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(u.fma_units, 0);
	assert_int_equal(u.imul_latency, 3);
	has(id.note, "no table entry fits all that is reported");

	fake(&si, "GenuineIntel", 6, 85, F(AVX2), 32, 256);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);
	assert_string_equal(id.model_says, "skylake-server");
	assert_string_equal(u.name, "unknown");
	has(id.note, "a 256 KiB L2 contradicts it; the entries that fit differ in their counts");
}

/* What stays: a model whose features and caches agree; a hidden feature (AVX-512 off in
 * the VM) is no contradiction; nothing reported, nothing to contradict; a model in no
 * entry is unknown, not matched by features. */
static void test_consistent(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	struct peak_uarch u;
	struct peak_uarch_identity id;
	fake(&si, "AuthenticAMD", 25, 1, F(AVX2) | F(VAES), 32, 512);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_CONSISTENT);
	assert_string_equal(u.name, "zen3");
	assert_string_equal(id.note,
			    "model 1 says zen3; avx2, vaes, a 32 KiB L1d and a 512 KiB L2 agree");

	fake(&si, "GenuineIntel", 6, 85, F(AVX2), 0, 0);
	si.stepping = 7;
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_CONSISTENT);
	assert_string_equal(u.name, "cascadelake-server");

	fake(&si, "GenuineIntel", 6, 85, 0, 0, 0);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_CONSISTENT);
	has(id.note, "nothing reported to check it against");

	/* under qemu's translator the caches are not the emulated core's: not compared */
	fake(&si, "GenuineIntel", 6, 60, F(AVX2), 32, 1024);
	(void)snprintf(si.hypervisor, sizeof si.hypervisor, "qemu-tcg");
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_CONSISTENT);
	assert_string_equal(u.name, "haswell");
	assert_string_equal(id.note,
			    "model 60 says haswell; avx2 agrees (caches not compared under "
			    "qemu's translator)");
	(void)snprintf(si.hypervisor, sizeof si.hypervisor, "kvm");
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_MASKED);

	fake(&si, "GenuineIntel", 6, 250, SPR_FEATS, 48, 2048);
	peak_uarch_identify(&si, &u, &id);
	assert_int_equal(id.verdict, PEAK_IDENTITY_UNKNOWN);
	assert_string_equal(u.name, "unknown");
	assert_string_equal(peak_identity_name(id.verdict), "unknown");
	assert_string_equal(peak_identity_name(PEAK_IDENTITY_MASKED), "masked");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_entry_stated), cmocka_unit_test(test_features_parse),
	    cmocka_unit_test(test_zen4_as_zen2),       cmocka_unit_test(test_amx_server_as_client),
	    cmocka_unit_test(test_masked_no_entry),    cmocka_unit_test(test_consistent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
