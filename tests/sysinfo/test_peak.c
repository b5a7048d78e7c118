/* peak_peak: ISA names and support, the micro-architecture table, flops and integer ops
 * per cycle (known answers), and the frequency chains (sanity only: no timing thresholds). */
#include "peak_cmocka.h"

#include <string.h>

#include "peak_freq.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"

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
	assert_int_equal(u.fp_add_latency, 3);
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
	/* Unknown CPU: the conservative generic entry, marked as such. */
	u = uarch_of("CentaurHauls", 7, 1, 0);
	assert_string_equal(u.name, "generic");
	assert_int_equal(u.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(u.fp_add_latency, 0);
	assert_int_equal(u.imul_latency, 3);
	assert_double_equal(peak_cpu_flops_per_cycle(&u, PEAK_ISA_AVX2, PEAK_PREC_DP), 4, 0);
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
	    cmocka_unit_test(test_cascade_lake), cmocka_unit_test(test_table),
	    cmocka_unit_test(test_freq_chains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
