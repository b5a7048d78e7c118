/* The format-peak API (peak_formats.h): names, the list's entries and peaks, the table's
 * format rates and their sources, and (x86) the AMX permission's refusals, each one the
 * machine in front of the test cannot produce, through the request's seam. */
#include "peak_cmocka.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "peak_formats.h"
#include "peak_uarch_formats.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#endif

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(peak_format_name(PEAK_FMT_FP64), "fp64");
	assert_string_equal(peak_format_name(PEAK_FMT_BF16), "bf16");
	assert_string_equal(peak_format_name(PEAK_FMT_INT8), "int8");
	assert_string_equal(peak_format_rate_unit(PEAK_FMT_INT8), "GIOPS");
	assert_string_equal(peak_format_rate_unit(PEAK_FMT_FP16), "GFLOPS");
	assert_string_equal(peak_format_unit_name(PEAK_FMT_MATRIX), "matrix");
}

/* A machine of a table entry, its clock and cores known. */
static void fake_machine(struct peak_machine *m, const char *uarch)
{
	memset(m, 0, sizeof *m);
	assert_true(peak_uarch_by_name(uarch, &m->uarch));
	m->ghz = (struct peak_value){.value = 2.0, .source = PEAK_SRC_MEASURED};
	m->cores = (struct peak_value){.value = 4, .source = PEAK_SRC_TABLE};
}

/* Every entry: a variant, a test matching its format, and either a peak that is its rate
 * x clock x threads, or no peak; unsupported ones say why. */
static void test_list_entries(void **state)
{
	(void)state;
	struct peak_machine m;
	fake_machine(&m, "sapphirerapids");
	struct peak_format_list l;
	peak_formats_list(&m, 3, &l);
	assert_true(l.n >= 2);
	assert_int_equal(l.e[0].format, PEAK_FMT_FP64);
	assert_int_equal(l.e[1].format, PEAK_FMT_FP32);
	for (size_t i = 0; i < l.n; i++) {
		const struct peak_format_entry *e = &l.e[i];
		assert_true(e->variant[0] != '\0');
		assert_string_equal(e->test, e->format == PEAK_FMT_INT8 ? "iops" : "flops");
		assert_int_equal(e->threads, 3);
		if (!e->supported) {
			assert_true(e->reason[0] != '\0');
			assert_true(e->peak_g_per_s == 0);
			continue;
		}
		if (e->ops_per_cycle > 0)
			assert_double_equal(e->peak_g_per_s, e->ops_per_cycle * 2.0 * 3, 1e-9);
		else
			assert_true(e->peak_g_per_s == 0);
	}
	/* A clock measured under the format replaces cpu.ghz and the peak follows it. */
	struct peak_format_entry e = l.e[0];
	if (e.supported && e.ops_per_cycle > 0) {
		peak_format_set_clock(&e, 1.5, "cpu.clock_ghz.avx512_fma");
		assert_double_equal(e.peak_g_per_s, e.ops_per_cycle * 1.5 * 3, 1e-9);
		assert_string_equal(e.clock_key, "cpu.clock_ghz.avx512_fma");
	}
	assert_non_null(peak_formats_find(&l, l.e[1].variant));
	assert_null(peak_formats_find(&l, "no_such_variant"));
}

#if defined(__x86_64__)
/* The figures: Sapphire Rapids AMX 1024 BF16 flop and 2048 INT8 ops a cycle,
 * Zen 4 64 BF16 flop and 128 INT8 ops; every row of the format table names its source and
 * an entry of the x86 table. */
static void test_table_rates_and_sources(void **state)
{
	(void)state;
	struct peak_uarch u;
	assert_true(peak_uarch_by_name("sapphirerapids", &u));
	assert_int_equal(u.amx_bf16_ops, 1024);
	assert_int_equal(u.amx_int8_ops, 2048);
	assert_non_null(u.formats_source);
	assert_true(peak_uarch_by_name("zen4", &u));
	assert_int_equal(u.bf16_dot512_ops, 64);
	assert_int_equal(u.vnni512_ops, 128);
	assert_int_equal(u.amx_bf16_ops, 0); /* no AMX */
	assert_true(peak_uarch_by_name("haswell", &u));
	assert_int_equal(u.vnni512_ops, 0); /* no entry: unknown, never a guess */
	assert_null(u.formats_source);
	const char *name, *source;
	size_t n = 0;
	for (; peak_uarch_formats_entry_at(n, &name, &source); n++) {
		assert_true(peak_uarch_by_name(name, &u));
		assert_non_null(source);
		assert_true(strlen(source) > 10);
	}
	assert_true(n >= 5);
}

static int prctl_errno; /* what the fake sets on failure */
static unsigned long prctl_supp;
static int prctl_fail_code; /* the code that fails, 0 none */

static long fake_prctl(int code, unsigned long arg)
{
	if (code == prctl_fail_code) {
		errno = prctl_errno;
		return -1;
	}
	if (code == PEAK_ARCH_GET_XCOMP_SUPP)
		*(unsigned long *)arg = prctl_supp;
	return 0;
}

#define AMX_OK (PEAK_FMTF_AMX_TILE | PEAK_FMTF_AMX_XCR0)
static bool request(unsigned feats, int fail_code, int err, unsigned long supp, char *why)
{
	prctl_fail_code = fail_code, prctl_errno = err, prctl_supp = supp;
	why[0] = '\0';
	return peak_amx_request_with(feats, fake_prctl, why, 200);
}

/* Each refusal is a reason, never a crash: no AMX, the state masked by the hypervisor
 * (XCR0), a kernel before 5.16, one that does not offer tile data, a sigaltstack too
 * small; and the grant when all hold. */
static void test_amx_permission(void **state)
{
	(void)state;
	char why[200];
	unsigned long tiles = 1ul << PEAK_XFEATURE_XTILEDATA;
	assert_false(request(0, 0, 0, tiles, why));
	assert_non_null(strstr(why, "amx_tile not reported"));
	assert_false(request(PEAK_FMTF_AMX_TILE, 0, 0, tiles, why));
	assert_non_null(strstr(why, "XCR0"));
	assert_false(request(AMX_OK, PEAK_ARCH_GET_XCOMP_SUPP, EINVAL, tiles, why));
	assert_non_null(strstr(why, "kernel before 5.16"));
	assert_false(request(AMX_OK, 0, 0, 0x3, why));
	assert_non_null(strstr(why, "does not offer XTILEDATA"));
	assert_false(request(AMX_OK, PEAK_ARCH_REQ_XCOMP_PERM, ENOSPC, tiles, why));
	assert_non_null(strstr(why, "sigaltstack is too small"));
	assert_false(request(AMX_OK, PEAK_ARCH_REQ_XCOMP_PERM, EPERM, tiles, why));
	assert_non_null(strstr(why, "refused"));
	assert_true(request(AMX_OK, 0, 0, tiles, why));
	/* This machine: granted only where the CPU and the OS both have AMX. */
	bool has = (peak_fmt_features() & AMX_OK) == AMX_OK;
	if (!peak_amx_request(why, sizeof why)) {
		print_message("AMX here: %s\n", why);
		assert_true(why[0] != '\0');
	} else {
		assert_true(has);
	}
}

/* The test hook removes a format (PEAKBENCH_TEST_PRETEND_MISSING), and the list then
 * says why. */
static void test_pretend_missing(void **state)
{
	(void)state;
	assert_int_equal(setenv("PEAKBENCH_TEST_PRETEND_MISSING", "bf16,vnni,fp16,avxvnni,amx", 1), 0);
	char why[160];
	assert_false(peak_fmt_can_run(PEAK_FMTF_AVX512_BF16, why, sizeof why));
	assert_non_null(strstr(why, "avx512_bf16"));
	assert_false(peak_formats_x86_form_runs("amx_int8_tile_ss", why, sizeof why));
	struct peak_machine m;
	fake_machine(&m, "zen4");
	struct peak_format_list l;
	peak_formats_list(&m, 0, &l);
	for (size_t i = 2; i < l.n; i++) {
		assert_false(l.e[i].supported);
		assert_true(strstr(l.e[i].reason, "not reported") != NULL);
	}
	assert_int_equal(unsetenv("PEAKBENCH_TEST_PRETEND_MISSING"), 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_list_entries),
#if defined(__x86_64__)
	    cmocka_unit_test(test_table_rates_and_sources),
	    cmocka_unit_test(test_amx_permission),
	    cmocka_unit_test(test_pretend_missing),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
