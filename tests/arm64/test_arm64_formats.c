/* The aarch64 number-format loops (common/peak_loops_arm64_formats.c) against the
 * instructions' definitions in the Arm ARM: each loop runs n iterations on operands of
 * mixed signs and sizes, and every accumulator lane must equal what C computes from the
 * definition (BFDOT: two bf16 products per fp32 lane; BFMMLA: 2x4 by 4x2; SDOT: four byte
 * products per int32 lane; SMMLA: 2x8 by 8x2). The values are small integers, exact in
 * bf16 and fp32, so the result does not depend on BFDOT's rounding mode. A loop whose
 * feature this CPU lacks is skipped with the reason; with none of them the test exits 77
 * (under qemu-aarch64 -cpu max all three are emulated; -cpu neoverse-n1 has dotprod only). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "peak_cmocka.h"
#include "peak_formats_feat_arm64.h"
#include "peak_loops.h"

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
static int a_of(int k) { return (k % 5) - 2; }       /* -2..2 */
static int b1_of(int k) { return (k % 7) - 3; }      /* -3..3 */
static int b2_of(int k) { return ((3 * k) % 4) - 1; } /* -1..2 */

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
			int64_t inc = lane_inc(&start, 13, i, bf, mmla) + lane_inc(&start, 14, i, bf, mmla);
			if (bf) {
				float got, x0;
				memcpy(&got, &r.v[c][4 * i], 4);
				memcpy(&x0, &start.v[c][4 * i], 4);
				double want = (double)x0 + (double)steps * (double)inc;
				if ((double)got != want)
					fail_msg("chain %d lane %d after %llu iterations: %g, want %g", c,
						 i, (unsigned long long)n, (double)got, want);
			} else {
				uint32_t got, x0;
				memcpy(&got, &r.v[c][4 * i], 4);
				memcpy(&x0, &start.v[c][4 * i], 4);
				uint32_t want = x0 + (uint32_t)steps * (uint32_t)inc;
				if (got != want)
					fail_msg("chain %d lane %d after %llu iterations: %u, want %u", c,
						 i, (unsigned long long)n, got, want);
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

static void test_bfdot(void **s) { (void)s; run(PEAK_ARM64_BF16, peak_loop_neon_bf16_dot, true, false); }
static void test_bfmmla(void **s) { (void)s; run(PEAK_ARM64_BF16, peak_loop_neon_bf16_mmla, true, true); }
static void test_sdot(void **s) { (void)s; run(PEAK_ARM64_DOTPROD, peak_loop_neon_int8_dot, false, false); }
static void test_smmla(void **s) { (void)s; run(PEAK_ARM64_I8MM, peak_loop_neon_int8_mmla, false, true); }

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
