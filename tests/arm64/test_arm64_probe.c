/* The aarch64 probe's SVE classes (aarch64 builds only): recorded SVE passes checked against
 * the Neoverse entries (a count beaten in two passes corrected, a longer vector than the
 * pipes read at the pipes' width, a short probe leaving the table standing), the measured
 * entry's SVE counts and width, cpubench's SVE rows' classes and peaks from the recorded
 * cores, and the probe run on this CPU: its SVE classes run at the process's vector length
 * (under qemu-user the figures are the translator's; whatever they are, a count is only
 * ever the integer a figure rounds to, or refused). No timing thresholds. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cpu_kernels.h"
#include "peak_cmocka.h"
#include "peak_isa.h"
#include "peak_sysinfo.h"
#include "peak_uarch.h"
#include "peak_uarch_check.h"
#include "peak_uarch_probe.h"

static void collect(const char *dir, struct peak_sysinfo *si)
{
	char root[512];
	(void)snprintf(root, sizeof root, "%s/%s", PEAK_ARM64_FIXTURES, dir);
	peak_sysinfo_collect(si, root);
}

static void parse(const char *spec, struct peak_probe *p)
{
	char err[160];
	if (peak_uarch_probe_parse(spec, p, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static struct peak_uarch entry(const char *core)
{
	struct peak_uarch u;
	assert_true(peak_uarch_by_name(core, &u));
	return u;
}

/* V1's own SVE figures at 256 bits agree with its entry: nothing corrected or noted. */
static void test_v1_agrees(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	collect("graviton3", &si);
	parse("sve_vl_bits=256;sve_fma=1.98,2.01,1.97;sve_addmul=1.99,2.00;sve_vadd=2.00,1.96;"
	      "sve_vmul=0.99,1.00",
	      &p);
	assert_double_equal(p.best.sve_vl_bits, 256, 0);
	struct peak_uarch u = entry("Neoverse-V1");
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_string_equal(u.corrected, "");
	assert_string_equal(u.probe_notes, "");
	assert_int_equal(u.sve_fma_units, 2);
	assert_int_equal(u.sve_vec_int_mul_units, 1);
}

/* A count the probe beats in two passes is corrected, both numbers named (N2's SVE MUL
 * claimed 1: two passes at 1.97 and 1.99 make it 2); cpu.trust=table only names it. */
static void test_beaten_twice_corrected(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	collect("cobalt100", &si);
	parse("sve_vl_bits=128;sve_vmul=1.97,1.99,1.02", &p);
	struct peak_uarch u = entry("Neoverse-N2");
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 1);
	assert_int_equal(u.sve_vec_int_mul_units, 2);
	assert_non_null(strstr(u.corrected, "sve_vec_int_mul_units: table 1, probe 2"));
	assert_non_null(strstr(u.corrected, "sve_vmul 1.97, 1.99, 1.02"));
	struct peak_uarch t = entry("Neoverse-N2");
	assert_int_equal(peak_uarch_check(&t, &p, &si, false), 1);
	assert_int_equal(t.sve_vec_int_mul_units, 1);
	assert_non_null(strstr(t.probe_notes, "not applied"));
}

/* A vector longer than the entry's pipes takes more passes: V2's four 128-bit FMA pipes
 * run two 256-bit FMADs a cycle, which is no correction; one a cycle is short of it. */
static void test_longer_vector_at_pipe_width(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	collect("graviton4", &si);
	parse("sve_vl_bits=256;sve_fma=2.00,1.99,1.97", &p);
	struct peak_uarch u = entry("Neoverse-V2");
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_string_equal(u.probe_notes, "");
	parse("sve_vl_bits=256;sve_fma=1.00,0.99", &p);
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.sve_fma_units, 4); /* the table stands */
	assert_non_null(
	    strstr(u.probe_notes, "sve_fma_units: probe sve_fma 1.00 short of table 4"));
}

/* A CPU without SVE (N1) checks none of the SVE counts, whatever the passes say. */
static void test_no_sve_not_checked(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	collect("graviton2", &si);
	parse("sve_vl_bits=128;sve_fma=3.0,3.0", &p);
	struct peak_uarch u = entry("Neoverse-N1");
	assert_int_equal(peak_uarch_check(&u, &p, &si, true), 0);
	assert_int_equal(u.sve_fma_units, 0);
}

static void test_bad_vector_length_refused(void **state)
{
	(void)state;
	static struct peak_probe p;
	char err[160];
	assert_int_equal(peak_uarch_probe_parse("sve_vl_bits=200", &p, err, sizeof err), -1);
	assert_non_null(strstr(err, "sve_vl_bits"));
}

/* The measured entry: SVE counts at the length measured, which is then its pipe width; a
 * figure between two integers is refused (0), and the note gives the length first. */
static void test_from_rates(void **state)
{
	(void)state;
	static struct peak_probe p;
	parse("sve_vl_bits=256;sve_fma=2.01;sve_addmul=1.50;sve_vadd=3.98;sve_vmul=0.99;"
	      "sve_vmul64=0.50",
	      &p);
	struct peak_uarch u;
	peak_uarch_from_rates(&p.best, &u);
	assert_int_equal(u.sve_fma_units, 2);
	assert_int_equal(u.sve_addmul_ops, 0);
	assert_int_equal(u.sve_vec_int_add_units, 4);
	assert_int_equal(u.sve_vec_int_mul_units, 1);
	assert_int_equal(u.sve_pipe_bits, 256);
	assert_non_null(strstr(u.note, "(recorded passes): sve_vl_bits 256, "));
	assert_non_null(strstr(u.note, "sve_addmul 1.50 refused"));
	/* the note replays: its "name value" pairs parse back to the same length */
	static struct peak_probe again;
	parse("sve_vl_bits=256", &again);
	assert_double_equal(again.pass[0].sve_vl_bits, 256, 0);
}

/* An entry with no SVE width (a core the table lacks) takes the probe's with its counts. */
static void test_fill_takes_width(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	collect("graviton3", &si);
	parse("sve_vl_bits=256;sve_fma=2.0", &p);
	struct peak_uarch measured, u;
	peak_uarch_from_rates(&p.best, &measured);
	memset(&u, 0, sizeof u);
	peak_uarch_fill_unknown(&u, &measured, &si, "measured");
	assert_int_equal(u.sve_fma_units, 2);
	assert_int_equal(u.sve_pipe_bits, 256);
}

static const struct cpu_kernel *kernel(const char *name)
{
	for (size_t i = 0; i < cpu_nkernels; i++)
		if (strcmp(cpu_kernels[i].name, name) == 0)
			return &cpu_kernels[i];
	fail_msg("no kernel %s", name);
	return NULL;
}

/* Every SVE row has a probe class, and the dp and i32 rows' class is their own loop. */
static void test_sve_rows_have_classes(void **state)
{
	(void)state;
	static const char *const rows[] = {"sve_sp_fma",    "sve_dp_fma",  "sve_sp_addmul",
					   "sve_dp_addmul", "sve_i32_add", "sve_i64_add",
					   "sve_i32_mul",   "sve_i64_mul"};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		assert_non_null(cpu_kernel_probe_class(kernel(rows[i])));
	static const char *const own[] = {"sve_dp_fma", "sve_dp_addmul", "sve_i32_add",
					  "sve_i32_mul", "sve_i64_mul"};
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
		const struct cpu_kernel *k = kernel(own[i]);
		assert_ptr_equal(peak_uarch_probe_loop(cpu_kernel_probe_class(k)), k->loop);
	}
}

/* cpubench's SVE peaks from the recorded cores' entries at this process's vector length
 * (qemu's 128 or 256 bits): the guides' pipes at the smaller of the vector's and the
 * pipes' widths; at the cores' own lengths the published DP flops per cycle (V1 at 256:
 * 16, N2 at 128: 8, V2 at 128: 16). No SVE here: nothing to compute. */
static void test_sve_row_peaks(void **state)
{
	(void)state;
	unsigned vl = peak_isa_sve_vl_bits();
	if (!vl || vl > PEAK_LOOP_SVE_MAX_BITS)
		skip();
	static const struct {
		const char *dir;
		unsigned native_vl;
		double dp_fma_at_native;
	} cores[] = {{"graviton3", 256, 16}, {"cobalt100", 128, 8}, {"graviton4", 128, 16}};
	for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++) {
		static struct peak_sysinfo si;
		collect(cores[i].dir, &si);
		struct peak_uarch u;
		peak_uarch_lookup(&si, &u);
		double w = vl < u.sve_pipe_bits ? vl : u.sve_pipe_bits;
		double dp_fma = cpu_kernel_ops_per_cycle(kernel("sve_dp_fma"), &u);
		assert_double_equal(dp_fma, 2.0 * u.sve_fma_units * w / 64, 1e-12);
		if (vl == cores[i].native_vl)
			assert_double_equal(dp_fma, cores[i].dp_fma_at_native, 1e-12);
		assert_double_equal(cpu_kernel_ops_per_cycle(kernel("sve_sp_addmul"), &u),
				    u.sve_addmul_ops * w / 32, 1e-12);
		assert_double_equal(cpu_kernel_ops_per_cycle(kernel("sve_i64_add"), &u),
				    u.sve_vec_int_add_units * w / 64, 1e-12);
		assert_double_equal(cpu_kernel_ops_per_cycle(kernel("sve_i32_mul"), &u),
				    u.sve_vec_int_mul_units * w / 32, 1e-12);
		assert_true(isnan(cpu_kernel_ops_per_cycle(kernel("sve_i64_mul"), &u)));
	}
}

/* The probe on this CPU: the SVE classes run where SVE runs (at the process's length) and
 * nowhere else, and each count the measured entry takes is the integer its figure rounds
 * to, or 0 (refused). */
static void test_probe_runs(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_probe p;
	peak_sysinfo_collect(&si, "");
	assert_int_equal(peak_uarch_probe(&si, &p), 0);
	unsigned vl = si.isa.sve ? peak_isa_sve_vl_bits() : 0;
	bool runs = vl && vl <= PEAK_LOOP_SVE_MAX_BITS;
	const double figs[] = {p.best.sve_fma, p.best.sve_addmul, p.best.sve_vadd, p.best.sve_vmul,
			       p.best.sve_vmul64};
	for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++)
		assert_int_equal(!!isfinite(figs[i]), runs);
	struct peak_uarch u;
	peak_uarch_from_rates(&p.best, &u);
	if (!runs) {
		assert_true(isnan(p.best.sve_vl_bits));
		assert_int_equal(u.sve_pipe_bits, 0);
		assert_null(strstr(u.note, "sve_"));
		return;
	}
	assert_double_equal(p.best.sve_vl_bits, vl, 0);
	assert_int_equal(u.sve_pipe_bits, vl);
	assert_non_null(strstr(u.note, "sve_vl_bits"));
	const unsigned counts[] = {u.sve_fma_units, u.sve_addmul_ops, u.sve_vec_int_add_units,
				   u.sve_vec_int_mul_units};
	for (size_t i = 0; i < 4; i++) {
		unsigned want;
		if (!peak_uarch_round_units(figs[i], &want))
			want = 0;
		assert_int_equal(counts[i], want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v1_agrees),
	    cmocka_unit_test(test_beaten_twice_corrected),
	    cmocka_unit_test(test_longer_vector_at_pipe_width),
	    cmocka_unit_test(test_no_sve_not_checked),
	    cmocka_unit_test(test_bad_vector_length_refused),
	    cmocka_unit_test(test_from_rates),
	    cmocka_unit_test(test_fill_takes_width),
	    cmocka_unit_test(test_sve_rows_have_classes),
	    cmocka_unit_test(test_sve_row_peaks),
	    cmocka_unit_test(test_probe_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
