/* The table checked by the probe (peak_uarch_check.h) on fake passes: a count exceeded in
 * two passes of three is corrected and named with both numbers; in one pass it is not; a
 * probe short of the table leaves the table standing with a note; a class the probe did
 * not settle or run keeps the table's count, never 0; cpu.trust=table corrects nothing;
 * a latency the chains beat is corrected the other way round. */
#include "peak_cmocka.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "peak_uarch_check.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#endif

static struct peak_sysinfo si; /* a fake Zen 4 with AVX-512 masked off: SSE to AVX2 */

static int setup(void **state)
{
	(void)state;
	char root[512];
	(void)snprintf(root, sizeof root, "%s/cpus/zen4-genoa", PEAK_FIXTURES_DIR);
	peak_sysinfo_collect(&si, root);
	si.isa.avx512f = false; /* the counts checked below are the SSE/AVX2 ones */
	return 0;
}

static struct peak_uarch zen3_with_vmul(unsigned vmul)
{
	struct peak_uarch u;
	assert_true(peak_uarch_by_name("zen3", &u));
	u.vec_int_mul_units = vmul;
	return u;
}

static void parse(const char *spec, struct peak_probe *p)
{
	char err[160];
	if (peak_uarch_probe_parse(spec, p, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static void test_above_in_two_passes_corrects(void **state)
{
	(void)state;
	static struct peak_probe p;
	parse("vmul128=1.95,1.98,1.20;vadd128=3.97,3.96,3.3", &p);
	struct peak_uarch u = zen3_with_vmul(1);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 1);
	assert_int_equal(u.vec_int_mul_units, 2);
	assert_non_null(strstr(u.corrected, "vec_int_mul_units: table 1, probe 2"));
	assert_non_null(strstr(u.corrected, "vmul128 1.95, 1.98, 1.20"));
	assert_int_equal(u.vec_int_add_units, 4); /* agreed: untouched, not named */
	assert_null(strstr(u.corrected, "vec_int_add_units"));
}

static void test_above_in_one_pass_does_not(void **state)
{
	(void)state;
	static struct peak_probe p;
	parse("vmul128=1.95,1.01,0.98", &p);
	struct peak_uarch u = zen3_with_vmul(1);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.vec_int_mul_units, 1);
	assert_string_equal(u.corrected, "");
	/* Within the rounding band above the count: timer error, not a wrong table. */
	parse("vmul128=1.02,1.03,1.02", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.vec_int_mul_units, 1);
}

static void test_below_keeps_table(void **state)
{
	(void)state;
	static struct peak_probe p;
	parse("vmul128=1.20,1.31,1.25;add64=2.9,2.95,3.0", &p);
	struct peak_uarch u = zen3_with_vmul(2);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.vec_int_mul_units, 2);
	assert_int_equal(u.int_alu_units, 4);
	assert_string_equal(u.corrected, "");
	assert_non_null(strstr(u.probe_notes, "vec_int_mul_units: probe vmul128 1.31 short of "
					      "table 2 (the table stands)"));
	assert_non_null(strstr(u.probe_notes, "int_alu_units"));
}

static void test_unsettled_keeps_table(void **state)
{
	(void)state;
	static struct peak_probe p;
	/* fma256 never measured; vadd128 between two counts in one pass only */
	parse("vadd128=3.5,4.0,3.9", &p);
	struct peak_uarch u = zen3_with_vmul(2);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.fma_units, 2);
	assert_int_equal(u.vec_int_add_units, 4);
	assert_int_equal(u.addmul_ops, 4);
	assert_int_equal(u.fp_add_latency, 3);
}

static void test_trust_table(void **state)
{
	(void)state;
	static struct peak_probe p;
	parse("vmul128=1.95,1.98,1.97", &p);
	struct peak_uarch u = zen3_with_vmul(1);
	assert_int_equal(peak_uarch_check(&u, &p, &si, false), 1);
	assert_int_equal(u.vec_int_mul_units, 1);
	assert_string_equal(u.corrected, "");
	assert_non_null(strstr(u.probe_notes, "not applied: cpu.trust=table"));
}

/* Latencies: a chain faster than the table's latency in two passes is the table's error
 * (noise only lengthens a chain); one slower is a note. */
static void test_latency(void **state)
{
	(void)state;
	static struct peak_probe p;
	struct peak_uarch u = zen3_with_vmul(2);
	u.fp_add_latency = 4;
	parse("addsd_lat=3.02,3.05,3.9", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 1);
	assert_int_equal(u.fp_add_latency, 3);
	assert_non_null(strstr(u.corrected, "fp_add_latency: table 4, probe 3"));
	u = zen3_with_vmul(2);
	parse("addsd_lat=3.9,4.0,3.8", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.fp_add_latency, 3);
	assert_non_null(strstr(u.probe_notes, "fp_add_latency"));
}

/* 128-bit pipes (Zen 1): one ymm FMA per cycle is the table's 2 FMA units, not 1. */
static void test_pipe_width(void **state)
{
	(void)state;
	static struct peak_probe p;
	struct peak_uarch u;
	assert_true(peak_uarch_by_name("zen1", &u));
	parse("fma256=0.99,1.0,0.98", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.fma_units, 2);
}

#if defined(__x86_64__)
/* A format rate is operations per cycle, checked in whole instructions: Sapphire Rapids'
 * vpdpbusd zmm, one port by LLVM's model (128 ops a cycle), two by measurements: the
 * probe's two passes at 2 a cycle make it 256; a probe at 1.3 (nearer 1) corrects nothing. The
 * format classes run only where the CPU has the extension: elsewhere this skips. */
static void test_format_rate_in_instructions(void **state)
{
	(void)state;
	if (!peak_fmt_can_run(PEAK_FMTF_AVX512_VNNI, NULL, 0)) {
		print_message("skip: this CPU has no AVX512_VNNI, its class does not run here\n");
		return;
	}
	struct peak_sysinfo s = si;
	s.isa.avx512f = true;
	static struct peak_probe p;
	struct peak_uarch u;
	assert_true(peak_uarch_by_name("sapphirerapids", &u));
	assert_int_equal(u.vnni512_ops, 128);
	parse("vnni512=1.97,1.99,1.10", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &s, true), 1);
	assert_int_equal(u.vnni512_ops, 256);
	assert_non_null(strstr(u.corrected, "vnni512_ops: table 128, probe 256"));
	assert_true(peak_uarch_by_name("sapphirerapids", &u));
	parse("vnni512=1.30,1.32,1.29", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &s, true), 0);
	assert_int_equal(u.vnni512_ops, 128);
}
#endif

static void test_parse_errors(void **state)
{
	(void)state;
	static struct peak_probe p;
	char err[160];
	assert_int_equal(peak_uarch_probe_parse("bogus=1", &p, err, sizeof err), -1);
	assert_non_null(strstr(err, "bogus"));
	assert_int_equal(peak_uarch_probe_parse("vmul128=x", &p, err, sizeof err), -1);
	assert_int_equal(peak_uarch_probe_parse("vmul128", &p, err, sizeof err), -1);
	assert_int_equal(peak_uarch_probe_parse("addsd_lat=3.1,2.9", &p, err, sizeof err), 0);
	assert_int_equal(p.passes, 2);
	assert_double_equal(p.best.fadd_lat64, 2.9, 0); /* a latency's best is its least */
	assert_true(isnan(p.pass[0].fma256));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_above_in_two_passes_corrects),
	    cmocka_unit_test(test_above_in_one_pass_does_not),
	    cmocka_unit_test(test_below_keeps_table),
	    cmocka_unit_test(test_unsettled_keeps_table),
	    cmocka_unit_test(test_trust_table),
	    cmocka_unit_test(test_latency),
	    cmocka_unit_test(test_pipe_width),
	    cmocka_unit_test(test_parse_errors),
#if defined(__x86_64__)
	    cmocka_unit_test(test_format_rate_in_instructions),
#endif
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
