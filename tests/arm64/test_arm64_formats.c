/* The aarch64 number-format loops (common/machine/peak_loops_arm64_formats.c) against the
 * instructions' definitions in the Arm ARM: each loop runs n iterations on operands of
 * mixed signs and sizes, and every accumulator lane must equal what C computes from the
 * definition (BFDOT: two bf16 products per fp32 lane; BFMMLA: 2x4 by 4x2; SDOT: four byte
 * products per int32 lane; SMMLA: 2x8 by 8x2). The values are small integers, exact in
 * bf16 and fp32, so the result does not depend on BFDOT's rounding mode. A loop whose
 * feature this CPU lacks is skipped with the reason; with none of them the test exits 77
 * (under qemu-aarch64 -cpu max all three are emulated; -cpu neoverse-n1 has dotprod only).
 * Also cpubench's four kernels through cpu_fmt.c (closed forms, a wrong lane caught, ops per
 * instruction and per cycle), and the format-peak list of an N2 and of a core the table
 * lacks (peak_formats_arm64.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernels.h"
#include "peak_cmocka.h"
#include "peak_formats.h"
#include "peak_formats_feat_arm64.h"
#include "peak_loops.h"
#include "peak_uarch.h"

#define CHAINS PEAK_LOOP_VCHAINS

/* bf16 of a small integer: the top half of its fp32 pattern (exact). */
static uint16_t bf16(int v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return (uint16_t)(u >> 16);
}

/* Operand element k of A, B1, B2 (distinct signs and sizes, small enough to stay exact). */
static int a_of(int k)
{
	return (k % 5) - 2;
} /* -2..2 */
static int b1_of(int k)
{
	return (k % 7) - 3;
} /* -3..3 */
static int b2_of(int k)
{
	return ((3 * k) % 4) - 1;
} /* -1..2 */

static void fill_bf16(struct peak_loop_regs *r)
{
	memset(r, 0, sizeof *r);
	for (int k = 0; k < 8; k++) {
		uint16_t a = bf16(a_of(k)), b1 = bf16(b1_of(k)), b2 = bf16(b2_of(k));
		memcpy(&r->v[12][2 * k], &a, 2);
		memcpy(&r->v[13][2 * k], &b1, 2);
		memcpy(&r->v[14][2 * k], &b2, 2);
	}
	for (int c = 0; c < CHAINS; c++)
		for (int i = 0; i < 4; i++) {
			float x = (float)(c * 4 + i + 1);
			memcpy(&r->v[c][4 * i], &x, 4);
		}
}

static void fill_int8(struct peak_loop_regs *r)
{
	memset(r, 0, sizeof *r);
	for (int k = 0; k < 16; k++) {
		/* bytes up to +-120: the products reach the int8 range's ends */
		r->v[12][k] = (unsigned char)(int8_t)(a_of(k) * 60);
		r->v[13][k] = (unsigned char)(int8_t)(b1_of(k) * 40);
		r->v[14][k] = (unsigned char)(int8_t)(b2_of(k) * 50 + 7);
	}
	for (int c = 0; c < CHAINS; c++)
		for (int i = 0; i < 4; i++) {
			int32_t x = (int32_t)(0x01000193u * (uint32_t)(c * 4 + i + 1));
			memcpy(&r->v[c][4 * i], &x, 4);
		}
}

static int val(const struct peak_loop_regs *r, int reg, int k, bool bf)
{
	if (bf) {
		uint16_t h;
		memcpy(&h, &r->v[reg][2 * k], 2);
		uint32_t u = (uint32_t)h << 16;
		float f;
		memcpy(&f, &u, 4);
		return (int)f;
	}
	return (int8_t)r->v[reg][k];
}

/* Lane i's increment for one instruction on (A = v12, B = v[b]): dot over the lane's
 * group (dot) or the 2x2 block's row/column (mmla: lane i = row i/2, column i%2). */
static int64_t lane_inc(const struct peak_loop_regs *r, int b, int i, bool bf, bool mmla)
{
	int k = bf ? (mmla ? 4 : 2) : (mmla ? 8 : 4); /* products per lane */
	int arow = mmla ? i / 2 : i, brow = mmla ? i % 2 : i;
	int64_t s = 0;
	for (int j = 0; j < k; j++)
		s += (int64_t)val(r, 12, arow * k + j, bf) * val(r, b, brow * k + j, bf);
	return s;
}

static void check(peak_loop_fn fn, bool bf, bool mmla, uint64_t n)
{
	static struct peak_loop_regs r, start;
	if (bf)
		fill_bf16(&r);
	else
		fill_int8(&r);
	start = r;
	fn(&r, n);
	/* Each iteration runs PEAK_LOOP_REPS blocks; a block is one step on v13, one on v14. */
	uint64_t steps = n * PEAK_LOOP_REPS;
	for (int c = 0; c < CHAINS; c++)
		for (int i = 0; i < 4; i++) {
			int64_t inc =
			    lane_inc(&start, 13, i, bf, mmla) + lane_inc(&start, 14, i, bf, mmla);
			if (bf) {
				float got, x0;
				memcpy(&got, &r.v[c][4 * i], 4);
				memcpy(&x0, &start.v[c][4 * i], 4);
				double want = (double)x0 + (double)steps * (double)inc;
				if ((double)got != want)
					fail_msg(
					    "chain %d lane %d after %llu iterations: %g, want %g",
					    c, i, (unsigned long long)n, (double)got, want);
			} else {
				uint32_t got, x0;
				memcpy(&got, &r.v[c][4 * i], 4);
				memcpy(&x0, &start.v[c][4 * i], 4);
				uint32_t want = x0 + (uint32_t)steps * (uint32_t)inc;
				if (got != want)
					fail_msg(
					    "chain %d lane %d after %llu iterations: %u, want %u",
					    c, i, (unsigned long long)n, got, want);
			}
		}
	/* The operands are not written. */
	assert_memory_equal(r.v[12], start.v[12], 16);
	assert_memory_equal(r.v[14], start.v[14], 16);
}

static void run(enum peak_arm64_fmt_feat f, peak_loop_fn fn, bool bf, bool mmla)
{
	char why[160];
	if (!peak_arm64_fmt_has(f, why, sizeof why)) {
		printf("skipped: %s\n", why);
		skip();
	}
	check(fn, bf, mmla, 1);
	check(fn, bf, mmla, 5);
	fn(NULL, 0); /* n = 0 does nothing, touching nothing */
}

static void test_bfdot(void **s)
{
	(void)s;
	run(PEAK_ARM64_BF16, peak_loop_neon_bf16_dot, true, false);
}
static void test_bfmmla(void **s)
{
	(void)s;
	run(PEAK_ARM64_BF16, peak_loop_neon_bf16_mmla, true, true);
}
static void test_sdot(void **s)
{
	(void)s;
	run(PEAK_ARM64_DOTPROD, peak_loop_neon_int8_dot, false, false);
}
static void test_smmla(void **s)
{
	(void)s;
	run(PEAK_ARM64_I8MM, peak_loop_neon_int8_mmla, false, true);
}

static const struct cpu_kernel *kernel(const char *name)
{
	for (size_t i = 0; i < cpu_nkernels; i++)
		if (strcmp(cpu_kernels[i].name, name) == 0)
			return &cpu_kernels[i];
	fail_msg("no cpubench kernel %s", name);
	return NULL;
}

/* cpubench's rows: the kernel runs n iterations through cpu_kernel_run and its closed form
 * (cpu_fmt.c: BF16 back at the start, INT8 grown by signed products) holds; one lane
 * changed is caught. Counted as the Arm ARM defines the instructions; an N2's rates. */
static void test_cpubench_kernels(void **s)
{
	(void)s;
	static const struct {
		const char *name;
		double per_instr, n2_per_cycle;
	} want[] = {
	    {"neon_bf16_dot", 16, 32},
	    {"neon_bf16_mmla", 32, 64},
	    {"neon_int8_dot", 32, 64},
	    {"neon_int8_mmla", 64, 128},
	};
	struct peak_uarch n2;
	peak_uarch_arm_fill(peak_uarch_arm_by_name("Neoverse-N2"), &n2);
	unsigned ran = 0;
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct cpu_kernel *k = kernel(want[i].name);
		assert_double_equal(cpu_kernel_ops_per_instr(k), want[i].per_instr, 0);
		assert_double_equal(cpu_kernel_ops_per_iter(k),
				    want[i].per_instr * PEAK_LOOP_VCHAINS * PEAK_LOOP_STEPS, 0);
		assert_double_equal(cpu_kernel_ops_per_cycle(k, &n2), want[i].n2_per_cycle, 0);
		char why[160];
		if (!cpu_kernel_supported(k, why, sizeof why)) {
			printf("%s: %s\n", k->name, why);
			assert_non_null(strstr(why, "not reported by this CPU"));
			continue;
		}
		static struct cpu_consts c;
		static struct cpu_acc acc;
		char err[256] = "";
		cpu_consts_init(k, &c);
		for (uint64_t n = 1; n <= 7; n += 3) {
			cpu_acc_init(k, &acc);
			cpu_kernel_run(k, &acc, &c, n);
			if (cpu_acc_verify(k, &acc, &c, n, err, sizeof err) != 0)
				fail_msg("%s", err);
		}
		acc.v.u32[5] ^= 0x100; /* a lane the instruction got wrong */
		assert_int_not_equal(cpu_acc_verify(k, &acc, &c, 7, err, sizeof err), 0);
		/* the counted iterations matter: INT8 lanes grow, so 6 is not 7 */
		if (k->test == CPU_TEST_IOPS) {
			acc.v.u32[5] ^= 0x100;
			assert_int_not_equal(cpu_acc_verify(k, &acc, &c, 6, err, sizeof err), 0);
		}
		ran++;
	}
	/* a core the table lacks: no rate, never a guess */
	struct peak_uarch unknown;
	memset(&unknown, 0, sizeof unknown);
	(void)snprintf(unknown.name, sizeof unknown.name, "measured");
	assert_true(isnan(cpu_kernel_ops_per_cycle(kernel("neon_int8_mmla"), &unknown)));
	printf("%u of 4 kernels ran here\n", ran);
}

static struct peak_machine machine(const char *core)
{
	struct peak_machine m;
	memset(&m, 0, sizeof m);
	const struct peak_uarch_arm *a = peak_uarch_arm_by_name(core);
	if (a)
		peak_uarch_arm_fill(a, &m.uarch);
	else
		(void)snprintf(m.uarch.name, sizeof m.uarch.name, "%s", core);
	m.cores = (struct peak_value){.value = 2, .source = PEAK_SRC_MEASURED};
	m.ghz = (struct peak_value){.value = 3.0, .source = PEAK_SRC_MEASURED};
	return m;
}

/* An N2 at 3 GHz on 2 cores: BFDOT 32, BFMMLA 64, SDOT 64, SMMLA 128 per cycle, the peak
 * rate x 3 x 2 where this CPU runs the form, else the reason and no peak. FP16 is listed,
 * unsupported with its reason. */
static void test_list_n2(void **s)
{
	(void)s;
	static const struct {
		const char *variant;
		enum peak_number_format f;
		enum peak_format_unit u;
		enum peak_arm64_fmt_feat need;
		double per_cycle;
	} want[] = {
	    {"neon_bf16_dot", PEAK_FMT_BF16, PEAK_FMT_VECTOR, PEAK_ARM64_BF16, 32},
	    {"neon_bf16_mmla", PEAK_FMT_BF16, PEAK_FMT_MATRIX, PEAK_ARM64_BF16, 64},
	    {"neon_int8_dot", PEAK_FMT_INT8, PEAK_FMT_VECTOR, PEAK_ARM64_DOTPROD, 64},
	    {"neon_int8_mmla", PEAK_FMT_INT8, PEAK_FMT_MATRIX, PEAK_ARM64_I8MM, 128},
	};
	struct peak_machine m = machine("Neoverse-N2");
	static struct peak_format_list l;
	peak_formats_list(&m, 0, &l);
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const struct peak_format_entry *e = peak_formats_find(&l, want[i].variant);
		assert_non_null(e);
		assert_int_equal(e->format, want[i].f);
		assert_int_equal(e->unit, want[i].u);
		assert_string_equal(e->test, want[i].f == PEAK_FMT_INT8 ? "iops" : "flops");
		assert_double_equal(e->ops_per_cycle, want[i].per_cycle, 0);
		assert_non_null(strstr(e->rate_note, "AArch64SchedNeoverseN2"));
		char why[160];
		if (peak_arm64_fmt_has(want[i].need, why, sizeof why)) {
			assert_true(e->supported);
			assert_double_equal(e->peak_g_per_s, want[i].per_cycle * 3.0 * 2, 1e-9);
		} else {
			assert_false(e->supported);
			assert_string_equal(e->reason, why);
			assert_double_equal(e->peak_g_per_s, 0, 0);
		}
	}
	const struct peak_format_entry *fp16 = peak_formats_find(&l, "neon_fp16_fma");
	assert_non_null(fp16);
	assert_false(fp16->supported);
	assert_true(fp16->reason[0] != 0);
	/* FP64 first, from NEON or SVE (whichever the CPU model runs) */
	assert_int_equal(l.e[0].format, PEAK_FMT_FP64);
	assert_true(strstr(l.e[0].variant, "_dp_fma") != NULL);
}

/* A core the table lacks (AmpereOne's counts are measured; "measured" is no entry): every
 * rate unknown with the reason, never a guess; and a pretend-missing feature's reason. */
static void test_list_unknown_core(void **s)
{
	(void)s;
	static struct peak_format_list l;
	struct peak_machine m = machine("measured");
	peak_formats_list(&m, 1, &l);
	const struct peak_format_entry *e = peak_formats_find(&l, "neon_int8_mmla");
	assert_non_null(e);
	assert_double_equal(e->ops_per_cycle, 0, 0);
	assert_double_equal(e->peak_g_per_s, 0, 0);
	assert_non_null(strstr(e->rate_note, "no source gives"));
	assert_int_equal(setenv("PEAKBENCH_TEST_PRETEND_MISSING", "bf16", 1), 0);
	m = machine("Neoverse-V2");
	peak_formats_list(&m, 1, &l);
	e = peak_formats_find(&l, "neon_bf16_mmla");
	assert_false(e->supported);
	assert_non_null(strstr(e->reason, "PEAKBENCH_TEST_PRETEND_MISSING"));
	assert_double_equal(e->ops_per_cycle, 128, 0);
	assert_int_equal(unsetenv("PEAKBENCH_TEST_PRETEND_MISSING"), 0);
}

int main(void)
{
	char why[160];
	if (!peak_arm64_fmt_has(PEAK_ARM64_DOTPROD, why, sizeof why) &&
	    !peak_arm64_fmt_has(PEAK_ARM64_BF16, why, sizeof why) &&
	    !peak_arm64_fmt_has(PEAK_ARM64_I8MM, why, sizeof why)) {
		printf("skipped: none of dotprod, bf16, i8mm runs here (%s)\n", why);
		return 77;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bfdot),
	    cmocka_unit_test(test_bfmmla),
	    cmocka_unit_test(test_sdot),
	    cmocka_unit_test(test_smmla),
	    cmocka_unit_test(test_cpubench_kernels),
	    cmocka_unit_test(test_list_n2),
	    cmocka_unit_test(test_list_unknown_core),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
