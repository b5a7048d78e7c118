/* peak_peak: ISA names and support, the micro-architecture table, flops and integer ops
 * per cycle (known answers), and the frequency chains (sanity only: no timing thresholds). */
#include "peak_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peak_freq.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"
#include "peak_uarch_check.h"
#include "peak_uarch_probe.h"

static void fake_cpu(struct peak_sysinfo *si, const char *vendor, unsigned family, unsigned model,
		     unsigned stepping)
{
	memset(si, 0, sizeof *si);
	(void)snprintf(si->vendor, sizeof si->vendor, "%s", vendor);
	si->family = family;
	si->model = model;
	si->stepping = stepping;
	si->isa.sse2 = si->isa.sse4_2 = si->isa.avx = si->isa.avx2 = si->isa.fma = true;
}

static struct peak_uarch uarch_of(const char *vendor, unsigned family, unsigned model,
				  unsigned stepping)
{
	struct peak_sysinfo si;
	struct peak_uarch u;
	fake_cpu(&si, vendor, family, model, stepping);
	peak_uarch_lookup(&si, &u);
	return u;
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(peak_source_name(PEAK_SRC_MEASURED), "measured");
	assert_string_equal(peak_source_name(PEAK_SRC_TABLE), "table");
	assert_string_equal(peak_source_name(PEAK_SRC_CONFIG), "config");
	assert_string_equal(peak_source_name(PEAK_SRC_UNKNOWN), "unknown");
	const char *names[] = {"scalar", "sse", "avx", "avx2", "avx512"};
	const unsigned bits[] = {64, 128, 256, 256, 512};
	for (int i = 0; i < PEAK_ISA_COUNT; i++) {
		assert_string_equal(peak_isa_name((enum peak_isa)i), names[i]);
		assert_int_equal(peak_isa_parse(names[i]), i);
		assert_int_equal(peak_isa_bits((enum peak_isa)i), bits[i]);
	}
	assert_int_equal(peak_isa_parse("avx1024"), -1);
	assert_int_equal(peak_isa_parse(""), -1);
	assert_int_equal(peak_isa_parse(NULL), -1);
}

static void test_isa_supported(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	char reason[96];
	fake_cpu(&si, "GenuineIntel", 6, 158, 10); /* client Skylake: no AVX-512 */
	assert_true(peak_isa_supported(&si, PEAK_ISA_AVX2, reason, sizeof reason));
	assert_string_equal(reason, "");
	assert_false(peak_isa_supported(&si, PEAK_ISA_AVX512, reason, sizeof reason));
	assert_string_equal(reason, "avx512f not reported by this CPU");
	si.isa.fma = false;
	assert_false(peak_isa_supported(&si, PEAK_ISA_AVX2, reason, sizeof reason));
	assert_string_equal(reason, "fma not reported by this CPU");
	si.isa.avx512f = false;
	(void)snprintf(si.warnings, sizeof si.warnings,
		       "AVX-512 reported by the CPU but not enabled by the OS (XCR0)");
	assert_false(peak_isa_supported(&si, PEAK_ISA_AVX512, reason, sizeof reason));
	assert_string_equal(reason, "avx512f not enabled by the OS (XCR0)");
}

/* The one ISA check on synthetic flag sets: each caller names the features it uses. */
static void test_features_ok(void **state)
{
	(void)state;
	struct peak_isa_flags f;
	char reason[96];
	memset(&f, 0, sizeof f);
	f.sse2 = f.avx = f.avx2 = true; /* AVX2 without FMA (some VIA/Zhaoxin, masked VMs) */
	assert_true(peak_features_ok(&f, NULL, PEAK_FEAT_AVX2, reason, sizeof reason));
	assert_string_equal(reason, "");
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_AVX2 | PEAK_FEAT_FMA, reason,
				      sizeof reason));
	assert_string_equal(reason, "fma not reported by this CPU");
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_FMA, reason, sizeof reason));
	assert_string_equal(reason, "fma not reported by this CPU");
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_SSE41, reason, sizeof reason));
	assert_string_equal(reason, "sse4_1 not reported by this CPU");
	assert_true(peak_features_ok(&f, NULL, 0, reason, sizeof reason));
	/* The first missing feature is named, in table order. */
	memset(&f, 0, sizeof f);
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_AVX512F | PEAK_FEAT_AVX512DQ, reason,
				      sizeof reason));
	assert_string_equal(reason, "avx512f not reported by this CPU");
	f.avx512f = true;
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_AVX512F | PEAK_FEAT_AVX512DQ, reason,
				      sizeof reason));
	assert_string_equal(reason, "avx512dq not reported by this CPU");
	/* OS state: the sysinfo note turns "not reported" into "not enabled by the OS". */
	memset(&f, 0, sizeof f);
	f.sse2 = true;
	assert_false(peak_features_ok(&f, "AVX reported by the CPU but not enabled by the OS (XCR0)",
				      PEAK_FEAT_AVX2, reason, sizeof reason));
	assert_string_equal(reason, "avx2 not enabled by the OS (XCR0)");
	assert_false(peak_features_ok(&f, "ISA flags unknown: no flags line in /proc/cpuinfo",
				      PEAK_FEAT_FMA, reason, sizeof reason));
	assert_string_equal(reason, "fma unknown: no ISA flags found");
	assert_false(peak_features_ok(&f, NULL, 1u << 30, reason, sizeof reason));
	assert_string_equal(reason, "unknown ISA feature");
	assert_false(peak_features_ok(&f, NULL, PEAK_FEAT_AVX, NULL, 0)); /* no reason wanted */
	/* What each ISA's own instructions need; the AVX2 peak is FMA's. */
	assert_int_equal(peak_isa_features(PEAK_ISA_SCALAR), 0);
	assert_int_equal(peak_isa_features(PEAK_ISA_SSE), PEAK_FEAT_SSE2);
	assert_int_equal(peak_isa_features(PEAK_ISA_AVX2), PEAK_FEAT_AVX2);
	assert_int_equal(peak_isa_features(PEAK_ISA_AVX512), PEAK_FEAT_AVX512F);
	/* This process: scalar always runs; the answer agrees with the detected flags. */
	assert_true(peak_cpu_can_run(0, reason, sizeof reason));
	const char *note;
	peak_isa_detect(&f, &note);
	assert_int_equal(peak_cpu_can_run(PEAK_FEAT_AVX2 | PEAK_FEAT_FMA, reason, sizeof reason),
			 f.avx2 && f.fma);
	assert_true(f.sse2); /* every x86-64 */
}

/* Cascade Lake (family 6 model 85 stepping 7): 2 FMA units for 512-bit and 256-bit. */
static void test_cascade_lake(void **state)
{
	(void)state;
	struct peak_uarch u = uarch_of("GenuineIntel", 6, 85, 7);
	assert_string_equal(u.name, "cascadelake-server");
	assert_int_equal(u.source, PEAK_SRC_TABLE);
	assert_int_equal(u.fma_units, 2);
	assert_int_equal(u.fma512_units, 2);
	assert_int_equal(u.fp_add_latency, 4);
	assert_int_equal(u.imul_latency, 3);
	assert_int_equal(u.imul_units, 1);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 32, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_SP), 64, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 16, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_SP), 32, 0);
	/* No FMA: one add + one mul per cycle (ports 0 and 1). */
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX, PEAK_PREC_DP), 8, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_DP), 4, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_SP), 8, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SCALAR, PEAK_PREC_DP), 2, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SCALAR, PEAK_PREC_SP), 2, 0);
	assert_double_equal(peak_cpu_addmul_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 16,
			    0);
	/* Integer adds: 4 ALUs; vector adds on 3 ports (256-bit), 2 ports (512-bit). */
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_SCALAR, 64), 4, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_SSE, 32), 12, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_AVX2, 32), 24, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_AVX2, 64), 12, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_AVX512, 32), 32, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_AVX512, 16), 0, 0);
	/* 2 cores at 2.5 GHz: 160 GFLOPS double precision with AVX-512. */
	assert_double_equal(peak_cpu_gflops(&u, PEAK_ISA_AVX512, PEAK_PREC_DP, 2, 2.5), 160, 1e-9);
	assert_double_equal(peak_cpu_gflops(&u, PEAK_ISA_AVX2, PEAK_PREC_DP, 2, 2.5), 80, 1e-9);
}

static void test_table(void **state)
{
	(void)state;
	struct peak_uarch u = uarch_of("GenuineIntel", 6, 85, 4);
	assert_string_equal(u.name, "skylake-server");
	u = uarch_of("GenuineIntel", 6, 158, 10);
	assert_string_equal(u.name, "skylake-client");
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 16, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 0, 0);
	u = uarch_of("GenuineIntel", 6, 126, 5);
	assert_string_equal(u.name, "icelake-client");
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 16, 0);
	u = uarch_of("GenuineIntel", 6, 151, 2);
	assert_string_equal(u.name, "alderlake");
	/* Golden Cove's FP add latency: 2 or 3 by operand and width in the sources, so none
	 * in the table: the probe measures it on the machine. */
	assert_int_equal(u.fp_add_latency, 0);
	/* Adds on ports 1 and 5, muls on 0 and 1: 3 ops per cycle in a 1:1 mix. */
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_DP), 6, 0);
	/* Zen 1: 256-bit ops in two passes over 128-bit pipes. */
	u = uarch_of("AuthenticAMD", 23, 1, 1);
	assert_string_equal(u.name, "zen1");
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 8, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_DP), 8, 0);
	u = uarch_of("AuthenticAMD", 23, 0x31, 0);
	assert_string_equal(u.name, "zen2");
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 16, 0);
	u = uarch_of("AuthenticAMD", 25, 0x21, 0);
	assert_string_equal(u.name, "zen3");
	u = uarch_of("AuthenticAMD", 25, 0x61, 2);
	assert_string_equal(u.name, "zen4");
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 16, 0);
	assert_double_equal(peak_cpu_addmul_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 16,
			    0);
	/* Zen 4's vector 32-bit multiplies run on two pipes. */
	assert_int_equal(u.vec_int_mul_units, 2);
	/* So do Zen 3's (pmulld throughput 0.5: the table said 1 until a Zen 3 ran it). */
	u = uarch_of("AuthenticAMD", 25, 0x01, 1);
	assert_string_equal(u.name, "zen3");
	assert_int_equal(u.vec_int_mul_units, 2);
	/* Unknown CPU: no guess. Every count is 0, so every peak that needs one is unknown;
	 * only imul's latency (the clock's definition) is known. */
	u = uarch_of("CentaurHauls", 7, 1, 0);
	assert_string_equal(u.name, "unknown");
	assert_int_equal(u.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(u.fp_add_latency, 0);
	assert_int_equal(u.fma_units, 0);
	assert_int_equal(u.int_alu_units, 0);
	assert_int_equal(u.imul_latency, 3);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 0, 0);
	assert_double_equal(peak_cpu_int_ops_per_cycle(&u, PEAK_ISA_SCALAR, 64), 0, 0);
}

/* Recorded /proc/cpuinfo identities (tests/fixtures/cpus/NAME/proc/cpuinfo) of the CPUs
 * clouds rent today: each new table entry is found; a CPU without a sourced entry, or one
 * from the future, is "unknown" by lookup and, with a fake root, is not measured either:
 * never a table entry's guess. */
struct cpu_fixture {
	const char *dir, *uarch;
	enum peak_source source;
	double avx2_dp, avx512_dp; /* flops per cycle per core; 0 unknown or absent */
	unsigned fadd_lat;
};

static void test_cpu_fixtures(void **state)
{
	(void)state;
	static const struct cpu_fixture cases[] = {
	    {"zen4-genoa", "zen4", PEAK_SRC_TABLE, 16, 16, 3},
	    {"zen4c-bergamo", "zen4c", PEAK_SRC_TABLE, 16, 16, 3},
	    {"zen5-turin", "zen5", PEAK_SRC_TABLE, 16, 32, 2},
	    {"zen5c-turin-dense", "zen5", PEAK_SRC_TABLE, 16, 32, 2},
	    {"zen5-granite-ridge", "zen5", PEAK_SRC_TABLE, 16, 32, 2},
	    {"emerald-rapids", "emeraldrapids", PEAK_SRC_TABLE, 16, 32, 0},
	    {"granite-rapids", "graniterapids", PEAK_SRC_TABLE, 16, 32, 0},
	    {"meteor-lake", "meteorlake", PEAK_SRC_TABLE, 16, 0, 0},
	    {"zen5-strix-point", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	    {"sierra-forest", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	    {"arrow-lake", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	    {"lunar-lake", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	    {"future-amd", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	    {"future-intel", "unknown", PEAK_SRC_UNKNOWN, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct cpu_fixture *c = &cases[i];
		char root[512];
		(void)snprintf(root, sizeof root, "%s/cpus/%s", PEAK_FIXTURES_DIR, c->dir);
		static struct peak_sysinfo si;
		static struct peak_machine m;
		struct peak_config cfg;
		peak_config_init(&cfg);
		peak_sysinfo_collect(&si, root);
		peak_machine_init(&m, &si, &cfg, root);
		if (strcmp(m.uarch.name, c->uarch) != 0 || m.uarch.source != c->source)
			fail_msg("%s: uarch %s (%s), expected %s", c->dir, m.uarch.name,
				 peak_source_name(m.uarch.source), c->uarch);
		assert_double_equal(peak_cpu_flops_per_cycle(&m.uarch, PEAK_ISA_AVX2, PEAK_PREC_DP),
				    c->avx2_dp, 0);
		assert_double_equal(
		    peak_cpu_flops_per_cycle(&m.uarch, PEAK_ISA_AVX512, PEAK_PREC_DP), c->avx512_dp,
		    0);
		assert_int_equal(m.uarch.fp_add_latency, c->fadd_lat);
	}
}

/* cpu.uarch: a table name wins over the lookup (source config); "measured" under a fake
 * root measures nothing (the CPU described is not the one running); a bad name is a
 * usage error. */
static void test_uarch_override(void **state)
{
	(void)state;
	char root[512], err[200];
	(void)snprintf(root, sizeof root, "%s/cpus/future-amd", PEAK_FIXTURES_DIR);
	static struct peak_sysinfo si;
	static struct peak_machine m;
	struct peak_config cfg;
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cpu.uarch=zen5", err, sizeof err), 0);
	peak_sysinfo_collect(&si, root);
	peak_machine_init(&m, &si, &cfg, root);
	assert_string_equal(m.uarch.name, "zen5");
	assert_int_equal(m.uarch.source, PEAK_SRC_CONFIG);
	assert_non_null(strstr(m.uarch.note, "--set"));

	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cpu.uarch = measured", err, sizeof err), 0);
	peak_machine_init(&m, &si, &cfg, root);
	assert_int_equal(m.uarch.source, PEAK_SRC_UNKNOWN);
	assert_non_null(strstr(m.uarch.note, "fake root"));

	assert_int_equal(peak_config_set(&cfg, "cpu.uarch=zen9", err, sizeof err), -1);
	assert_non_null(strstr(err, "zen9"));
	assert_true(peak_uarch_name_known("measured"));
	assert_true(peak_uarch_name_known("cascadelake-server"));
	assert_false(peak_uarch_name_known("generic"));
	assert_false(peak_uarch_name_known(NULL));
}

/* The rounding rule: a figure up to 8% (at most 0.3) below an integer or 3% above it is
 * that integer; anything else is refused. */
static void test_round_units(void **state)
{
	(void)state;
	unsigned u = 99;
	const struct {
		double x;
		unsigned want; /* 0: refused */
	} cases[] = {
	    {1.97, 2}, {2.04, 2}, {0.98, 1}, {1.0, 1}, {3.9, 4}, {3.82, 4}, {6.0, 6}, {5.75, 6},
	    {1.5, 0},  {2.4, 0},  {3.19, 0}, {3.65, 0}, {0.0, 0}, {-1.0, 0}, {0.4, 0}, {5.6, 0},
	    {1.04, 0}, {0.91, 0}, {100, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool ok = peak_uarch_round_units(cases[i].x, &u);
		if (ok != (cases[i].want != 0) || u != cases[i].want)
			fail_msg("%.2f gave %u (%s), expected %u", cases[i].x, u,
				 ok ? "ok" : "refused", cases[i].want);
	}
	assert_false(peak_uarch_round_units(NAN, &u));
	assert_false(peak_uarch_round_units(INFINITY, &u));
	assert_int_equal(u, 0);
}

static struct peak_uarch_rates rates_all_nan(void)
{
	struct peak_uarch_rates r;
	double *d = (double *)&r;
	for (size_t i = 0; i < sizeof r / sizeof(double); i++)
		d[i] = NAN;
	r.ghz = 3.0;
	return r;
}

/* Measured figures to a micro-architecture: a full-width core, a core with 128-bit pipes
 * (256-bit ops at half rate), a core whose 512-bit ops take two passes, and a refused
 * figure that leaves exactly its own peaks unknown. */
static void test_from_rates(void **state)
{
	(void)state;
	struct peak_uarch u;
	struct peak_uarch_rates r = rates_all_nan();
	r.fma256 = 1.98, r.fma512 = 1.99, r.addmul128 = 3.95, r.addmul256 = 3.9;
	r.addmul512 = 3.96, r.int_add = 5.9, r.vint_add128 = 3.97, r.vint_add256 = 3.96;
	r.vint_add512 = 3.9, r.vint_mul128 = 1.99, r.fadd_lat64 = 2.01, r.fadd_lat256 = 2.0;
	r.fadd_lat512 = 2.02, r.imul64 = 0.99;
	peak_uarch_from_rates(&r, &u);
	assert_string_equal(u.name, "measured");
	assert_int_equal(u.source, PEAK_SRC_MEASURED);
	assert_int_equal(u.pipe_bits, 256);
	assert_int_equal(u.fma_units, 2);
	assert_int_equal(u.fma512_units, 2);
	assert_int_equal(u.addmul_ops, 4);
	assert_int_equal(u.addmul512_ops, 4);
	assert_int_equal(u.int_alu_units, 6);
	assert_int_equal(u.vec_int_add_units, 4);
	assert_int_equal(u.vec512_int_add_units, 4);
	assert_int_equal(u.vec_int_mul_units, 2);
	assert_int_equal(u.fp_add_latency, 2);
	assert_int_equal(u.fp_add512_latency, 2);
	assert_int_equal(u.imul_latency, 3);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 32, 0);
	assert_non_null(strstr(u.note, "fma256 1.98"));

	/* 128-bit pipes: one ymm FMA per cycle is two 128-bit units; no AVX-512. */
	r = rates_all_nan();
	r.fma256 = 1.0, r.addmul128 = 2.0, r.addmul256 = 0.99, r.int_add = 4.0;
	r.vint_add128 = 3.0, r.vint_add256 = 1.5, r.fadd_lat64 = 3.0, r.fadd_lat256 = 3.0;
	peak_uarch_from_rates(&r, &u);
	assert_int_equal(u.pipe_bits, 128);
	assert_int_equal(u.fma_units, 2);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 8, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_DP), 4, 0);
	assert_int_equal(u.fma512_units, 0);
	/* vadd256 1.5 is refused: the 256-bit integer peak is not derived from 128-bit. */
	assert_int_equal(u.vec_int_add_units, 0);

	/* Two-pass 512-bit ops (Zen 4): one zmm FMA per cycle against two ymm. */
	r = rates_all_nan();
	r.fma256 = 2.0, r.fma512 = 1.0, r.addmul128 = 3.8, r.addmul256 = 3.8, r.addmul512 = 1.7;
	r.fadd_lat64 = 3.0, r.fadd_lat256 = 3.0, r.fadd_lat512 = 2.5;
	peak_uarch_from_rates(&r, &u);
	assert_int_equal(u.fma_units, 2);
	assert_int_equal(u.fma512_units, 1);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 16, 0);
	/* Refused figures: 512-bit add+mul and the zmm add latency unknown, nothing else. */
	assert_int_equal(u.addmul512_ops, 0);
	assert_double_equal(peak_cpu_addmul_flops_per_cycle(&u, PEAK_ISA_AVX512, PEAK_PREC_DP), 0,
			    0);
	assert_int_equal(u.fp_add512_latency, 0);
	assert_int_equal(u.fp_add_latency, 3);
	assert_int_equal(u.addmul_ops, 4);
	assert_non_null(strstr(u.note, "addmul512 1.70 refused"));

	/* Inconsistent widths (256-bit add+mul neither equal to nor half of 128-bit): the
	 * pipe width is unknown, so every 256-bit peak is. */
	r = rates_all_nan();
	r.fma256 = 2.0, r.addmul128 = 4.0, r.addmul256 = 3.0;
	peak_uarch_from_rates(&r, &u);
	assert_int_equal(u.fma_units, 0);
	assert_int_equal(u.addmul_ops, 4);
	assert_int_equal(u.pipe_bits, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_SSE, PEAK_PREC_DP), 8, 0);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX, PEAK_PREC_DP), 0, 0);
}

/* A table entry whose sources leave counts unknown (Zen 5's multiply rates) gets them
 * from the probe, and only them: sourced counts never change, refused ones stay 0. */
static void test_fill_unknown(void **state)
{
	(void)state;
	char root[512];
	(void)snprintf(root, sizeof root, "%s/cpus/zen5-turin", PEAK_FIXTURES_DIR);
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, root);
	struct peak_uarch u;
	peak_uarch_lookup(&si, &u);
	assert_string_equal(u.name, "zen5");
	assert_int_equal(u.imul_units, 0);
	assert_int_equal(u.vec_int_mul_units, 0);
	assert_true(peak_uarch_has_unknown(&u, &si));
	/* Scalar multiplies have no peak until the count is known. */
	struct peak_uarch_rates r = rates_all_nan();
	r.imul64 = 2.97, r.vint_mul128 = 1.5 /* refused */, r.fma256 = 1.0 /* disagrees */;
	struct peak_uarch measured;
	peak_uarch_from_rates(&r, &measured);
	peak_uarch_fill_unknown(&u, &measured, &si, "measured");
	assert_int_equal(u.imul_units, 3);
	assert_int_equal(u.vec_int_mul_units, 0);
	assert_int_equal(u.fma_units, 2); /* the table's, not the probe's */
	assert_int_equal(u.source, PEAK_SRC_TABLE);
	assert_non_null(strstr(u.note, "imul_units=3"));
	assert_null(strstr(u.note, "vec_int_mul_units"));
	/* A sourced entry has nothing to fill. */
	(void)snprintf(root, sizeof root, "%s/cpus/zen4-genoa", PEAK_FIXTURES_DIR);
	peak_sysinfo_collect(&si, root);
	peak_uarch_lookup(&si, &u);
	assert_int_equal(u.imul_units, 1);
	assert_false(peak_uarch_has_unknown(&u, &si));
}

/* The probe on this CPU: the structure of what it returns, not its speed (no timing
 * thresholds): a clock, and every figure of an ISA this CPU lacks left unmeasured. */
static void test_probe_runs(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, "");
	static struct peak_probe p;
	assert_int_equal(peak_uarch_probe(&si, &p), 0);
	const struct peak_uarch_rates r = p.best;
	assert_true(p.passes >= 4 && p.passes <= PEAK_PROBE_MAX_PASSES);
	assert_true(p.seconds > 0);
	assert_true(r.ghz > 0);
	assert_true(r.addmul128 > 0);
	assert_true(r.int_add > 0);
	assert_true(r.fadd_lat64 > 0);
	if (!si.isa.avx512f) {
		assert_true(isnan(r.fma512));
		assert_true(isnan(r.fadd_lat512));
		assert_true(isnan(r.vint_mul512));
	} else {
		assert_true(r.fma512 > 0);
	}
	struct peak_uarch u;
	peak_uarch_from_rates(&r, &u);
	assert_int_equal(u.source, PEAK_SRC_MEASURED);
	assert_non_null(strstr(u.note, "per cycle at"));
}

static void test_freq_chains(void **state)
{
	(void)state;
	double samples[3] = {0, 0, 0};
	double gi = peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.001, 3, samples);
	assert_true(gi > 0);
	for (int i = 0; i < 3; i++)
		assert_true(samples[i] > 0 && samples[i] <= gi);
	assert_true(peak_freq_fp_ghz(4, 0.001, 2) > 0);
	assert_true(peak_freq_int_ghz(3, 0.001, 1) > 0);
	assert_double_equal(peak_freq_measure(PEAK_FREQ_ADDSD, 0, 0.001, 3, NULL), 0, 0);
	assert_double_equal(peak_freq_measure(PEAK_FREQ_IMUL, 3, 0.001, 0, NULL), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),        cmocka_unit_test(test_isa_supported),
	    cmocka_unit_test(test_features_ok),
	    cmocka_unit_test(test_cascade_lake), cmocka_unit_test(test_table),
	    cmocka_unit_test(test_freq_chains),  cmocka_unit_test(test_cpu_fixtures),
	    cmocka_unit_test(test_uarch_override), cmocka_unit_test(test_round_units),
	    cmocka_unit_test(test_from_rates),   cmocka_unit_test(test_probe_runs),
	    cmocka_unit_test(test_fill_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
