/* cpubench kernels: every kernel this CPU runs matches its closed form at tiny iteration
 * counts, a damaged lane is caught, the closed forms agree with a step-by-step replay,
 * and the frequency chains return what they must. */
#include "peak_cmocka.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_clock.h"
#include "cpu_kernels.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#endif

static void test_every_kernel_verifies(void **state)
{
	(void)state;
	static const uint64_t counts[] = {0, 1, 2, 7, 1000};
	unsigned ran = 0;
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		char reason[160], err[320];
		if (!cpu_kernel_supported(k, reason, sizeof reason)) {
			print_message("skip %s: %s\n", k->name, reason);
			continue;
		}
		struct cpu_consts c;
		cpu_consts_init(k, &c);
		for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
			struct cpu_acc acc;
			cpu_acc_init(k, &acc);
			cpu_kernel_run(k, &acc, &c, counts[j]);
			if (cpu_acc_verify(k, &acc, &c, counts[j], err, sizeof err) != 0)
				fail_msg("%s", err);
		}
		ran++;
	}
	assert_true(ran >= 8); /* scalar and SSE run on every x86-64 */
}

/* A kernel that did one bit of wrong work, or the wrong number of integer iterations,
 * must fail. */
static void test_damage_is_caught(void **state)
{
	(void)state;
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		char reason[160], err[320];
		if (!cpu_kernel_supported(k, reason, sizeof reason))
			continue;
		struct cpu_consts c;
		cpu_consts_init(k, &c);
		struct cpu_acc acc;
		cpu_acc_init(k, &acc);
		cpu_kernel_run(k, &acc, &c, 5);
		size_t last = (size_t)k->nacc * k->lanes - 1;
		struct cpu_acc bad = acc;
		switch (k->elem) {
		case CPU_F64:
			bad.v.f64[last] += 1.0;
			break;
		case CPU_F32:
			bad.v.f32[last] += 1.0f;
			break;
		case CPU_I64:
			bad.v.u64[last] ^= 1u;
			break;
		case CPU_I32:
			bad.v.u32[last] ^= 1u;
			break;
		case CPU_F16:
			bad.v.u16[last] ^= 1u;
			break;
		}
		assert_int_equal(cpu_acc_verify(k, &bad, &c, 5, err, sizeof err), -1);
		assert_non_null(strstr(err, k->name));
		if (k->test == CPU_TEST_IOPS) /* integer closed forms count iterations */
			assert_int_equal(cpu_acc_verify(k, &acc, &c, 4, err, sizeof err), -1);
	}
}

static void test_affine_pow_matches_replay(void **state)
{
	(void)state;
	uint64_t a = 6364136223846793005ull, b = 1442695040888963407ull;
	uint32_t a32 = 1664525u, b32 = 1013904223u;
	for (uint64_t n = 0; n < 300; n++) {
		uint64_t x = 12345;
		uint32_t y = 777;
		for (uint64_t i = 0; i < n; i++) {
			x = x * a + b;
			y = y * a32 + b32;
		}
		assert_true(cpu_affine_pow_u64(12345, a, b, n) == x);
		assert_true(cpu_affine_pow_u32(777, a32, b32, n) == y);
	}
}

static void test_ops_per_iter(void **state)
{
	(void)state;
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		if (cpu_fmt_kind(k))
			continue; /* test_format_ops */
		double per = (double)k->nacc * k->steps * k->lanes;
		bool two = k->kind == CPU_KIND_FMA;
		assert_double_equal(cpu_kernel_ops_per_iter(k), two ? 2 * per : per, 0);
		assert_true(k->steps % 2 == 0); /* the closed forms pair the steps */
		assert_int_equal(k->steps, PEAK_LOOP_STEPS);
		assert_double_equal(cpu_kernel_ops_per_instr(k), two ? 2.0 * k->lanes : k->lanes,
				    0);
		/* avx512_dp_fma: 12 chains x 8 steps x 8 lanes x 2 flops */
		if (strcmp(k->name, "avx512_dp_fma") == 0)
			assert_double_equal(cpu_kernel_ops_per_iter(k),
					    12 * PEAK_LOOP_STEPS * 8 * 2, 0);
	}
}

/* The format kernels count as their instructions define (issue 37): a multiply-add is 2. */
static void test_format_ops(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		double per_instr;
	} want[] = {
	    {"avx512_fp16_fma", 64}, /* 32 fp16 lanes x 2 */
	    {"avx512_bf16_dot", 64}, /* 32 bf16 pairs' products and adds */
	    {"avx512_bf16_dot_ymm", 32},
	    {"avx512_int8_dot", 128}, /* 64 byte products and their adds */
	    {"avx512_int8_dot_ymm", 64},
	    {"avxvnni_int8_dot", 64},
	    {"amx_bf16_tile", 16384}, /* 16 x 16 x 32 x 2 */
	    {"amx_fp16_tile", 16384},
	    {"amx_int8_tile_ss", 32768}, /* 16 x 16 x 64 x 2 */
	    {"amx_int8_tile_su", 32768},
	    {"amx_int8_tile_us", 32768},
	    {"amx_int8_tile_uu", 32768},
	};
	size_t found = 0;
	for (size_t i = 0; i < cpu_nkernels; i++)
		for (size_t j = 0; j < sizeof want / sizeof want[0]; j++) {
			const struct cpu_kernel *k = &cpu_kernels[i];
			if (strcmp(k->name, want[j].name) != 0)
				continue;
			found++;
			assert_true(cpu_fmt_kind(k));
			assert_double_equal(cpu_kernel_ops_per_instr(k), want[j].per_instr, 0);
			assert_double_equal(cpu_kernel_ops_per_iter(k),
					    (double)k->nacc * k->steps * want[j].per_instr, 0);
		}
#if defined(__x86_64__)
	assert_int_equal(found, sizeof want / sizeof want[0]);
#else
	assert_int_equal(found, 0);
#endif
}

static void test_chains(void **state)
{
	(void)state;
	static const struct {
		enum cpu_chain chain;
		enum peak_isa isa;
	} chains[] = {
	    {CPU_CHAIN_SCALAR_FP, PEAK_ISA_SCALAR},
	    {CPU_CHAIN_SCALAR_INT, PEAK_ISA_SCALAR},
	    {CPU_CHAIN_SSE_FP, PEAK_ISA_SSE},
	    {CPU_CHAIN_SSE_INT, PEAK_ISA_SSE},
	    {CPU_CHAIN_AVX_FP, PEAK_ISA_AVX},
	    {CPU_CHAIN_AVX2_INT, PEAK_ISA_AVX2},
	    {CPU_CHAIN_AVX512_FP, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_INT, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_FMA_LOAD, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_IMUL_LOAD, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_BF16_LOAD, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_VNNI_LOAD, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AVX512_FP16_LOAD, PEAK_ISA_AVX512},
	    {CPU_CHAIN_AMX_LOAD, PEAK_ISA_SCALAR},
	};
	for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
		char reason[160];
		if (!cpu_isa_supported(chains[i].isa, reason, sizeof reason))
			continue;
		if (cpu_chain_load(chains[i].chain) != PEAK_FREQ_LOAD_NONE &&
		    !peak_freq_load_runs_here(cpu_chain_load(chains[i].chain)))
			continue;
		for (uint64_t n = 0; n < 40; n += 13)
			assert_true(cpu_chain_run(chains[i].chain, n) ==
				    cpu_chain_expected(chains[i].chain, n));
	}
}

/* Every kernel's clock is anchor-timed (issue 41): the chain that clocks it steps at the
 * anchor's latency (imul r64: 3 on x86-64; add x: 1 on aarch64), a figure no table gives
 * (cpu_chain_clock takes none), and a vector kernel's chain on x86-64 is a loaded one:
 * the anchor with the class's instructions between its links, never a vector latency
 * chain. */
static void test_every_clock_is_anchored(void **state)
{
	(void)state;
#if defined(__aarch64__)
	const unsigned anchor = 1;
#else
	const unsigned anchor = 3;
#endif
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		unsigned lat = 0;
		enum cpu_chain c = cpu_chain_clock(k->chain, &lat);
		assert_int_equal(lat, anchor);
		if (c == CPU_CHAIN_SCALAR_INT)
			continue; /* the plain anchor */
#if defined(__x86_64__)
		assert_int_not_equal(cpu_chain_load(c), PEAK_FREQ_LOAD_NONE);
		assert_non_null(strstr(cpu_chain_name(c), "imul r64 + "));
#else
		fail_msg("%s: clocked by %s, not the add x anchor", k->name, cpu_chain_name(c));
#endif
	}
	/* linpack's two classes too. */
	unsigned lat = 0;
	enum cpu_chain zmm = cpu_chain_clock(CPU_CHAIN_AVX512_FP, &lat);
	assert_int_equal(lat, anchor);
#if defined(__x86_64__)
	assert_int_equal(cpu_chain_load(zmm), PEAK_FREQ_LOAD_AVX512_FMA);
	assert_int_equal(cpu_chain_load(cpu_chain_clock(CPU_CHAIN_AVX_FP, &lat)),
			 PEAK_FREQ_LOAD_AVX_FP);
#else
	assert_int_equal(zmm, CPU_CHAIN_SCALAR_INT);
#endif
}

/* The clock a row of this class gets from the loads' readings: its load's when believed,
 * else the plain chain's (cpu_clock_chain). */
static double row_clock(enum cpu_chain chain, const struct peak_freq_load_clock *clocks)
{
	unsigned lat;
	bool refused;
	enum cpu_chain c = cpu_clock_chain(chain, clocks, &lat, &refused);
	enum peak_freq_load load = cpu_chain_load(c);
	return load == PEAK_FREQ_LOAD_NONE ? clocks[PEAK_FREQ_LOAD_AVX2_INT].ghz_scalar
					   : clocks[load].ghz;
}

/* Issue 41: a core whose vector-integer latency is 2 or 3 gets the same clock as one whose
 * latency is 1. A chain timed at a claimed 1-cycle step reads scalar / latency; injected
 * as the AVX2 integer load's reading beside a 3.55 GHz anchor and an AVX-512 FMA load that
 * shows no licence, the 2- and 3-cycle readings are refused and the rows stand at the
 * anchor, as the 1-cycle one stands at its own (equal) reading. */
static void test_latency_does_not_move_the_clock(void **state)
{
	(void)state;
	const double scalar = 3.55;
	for (unsigned latency = 1; latency <= 3; latency++) {
		struct peak_freq_load_clock c[PEAK_FREQ_LOAD_COUNT] = {0};
		double reading = scalar / latency;
		c[PEAK_FREQ_LOAD_AVX2_INT] = (struct peak_freq_load_clock){
		    .ghz = reading, .ghz_light = reading, .ghz_scalar = scalar};
		c[PEAK_FREQ_LOAD_AVX512_FMA] = (struct peak_freq_load_clock){
		    .ghz = scalar, .ghz_light = scalar, .ghz_scalar = scalar};
		for (int l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
			if (c[l].ghz > 0)
				(void)peak_freq_load_check(&c[l]);
		(void)peak_freq_load_refuse_unexplained(c);
		assert_true(fabs(row_clock(CPU_CHAIN_AVX2_INT, c) - scalar) < 1e-9);
		unsigned lat;
		bool refused;
		(void)cpu_clock_chain(CPU_CHAIN_AVX2_INT, c, &lat, &refused);
		assert_true(refused == (latency > 1));
	}
}

/* Each kernel needs exactly the features its instructions use (peak_cpu_can_run): FMA
 * kernels below AVX-512 need FMA3, AVX2 integer kernels need AVX2 and not FMA, vpmullq needs
 * AVX-512DQ. */
static void test_kernel_features(void **state)
{
	(void)state;
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		bool fma = k->kind == CPU_KIND_FMA;
		if (k->isa != PEAK_ISA_AVX512) /* zmm FMAs are AVX-512F's own */
			assert_int_equal((k->need & PEAK_FEAT_FMA) != 0, fma);
		if (k->isa == PEAK_ISA_AVX2 && !fma)
			assert_int_equal(k->need & ~(unsigned)PEAK_FEAT_AVX2, 0);
		if (!strcmp(k->name, "avx512_i64_mul"))
			assert_true(k->need & PEAK_FEAT_AVX512DQ);
		if (!strcmp(k->name, "sse_i32_mul"))
			assert_true(k->need & PEAK_FEAT_SSE41);
		char reason[160];
		bool ok = cpu_kernel_supported(k, reason, sizeof reason);
		if (cpu_fmt_kind(
			k)) { /* the ISA's features and the format's (peak_formats_x86.h) */
#if defined(__x86_64__)
			char why[160];
			assert_int_equal(
			    ok, peak_cpu_can_run(peak_isa_features(k->isa) | k->need, NULL, 0) &&
				    peak_formats_x86_form_runs(k->name, why, sizeof why));
#endif
		} else if (k->loop) /* the answer is the common check's, ISA and kernel features */
			assert_int_equal(
			    ok, peak_cpu_can_run(peak_isa_features(k->isa) | k->need, NULL, 0));
		else
			assert_false(ok);
	}
}

/* Every kernel has its class in the probe (the same loop, or the dp/i32 loop of its width
 * and pipes), bar vpmullq, which no table count covers: a kernel's vs_probe is then
 * always there to read. */
static void test_probe_class(void **state)
{
	(void)state;
	struct peak_uarch_rates r;
	double *d = (double *)(void *)&r;
	for (size_t i = 0; i < sizeof r / sizeof(double); i++)
		d[i] = (double)(i + 1); /* each field its own value */
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		double v = cpu_kernel_probe_per_cycle(k, &r);
		bool none =
		    (k->kind == CPU_KIND_IMUL && k->elem == CPU_I64 && k->isa != PEAK_ISA_SCALAR) ||
		    k->kind == CPU_KIND_AMX; /* a tile multiply per 16 cycles: no class */
		if (none != isnan(v))
			fail_msg("%s: probe class %g", k->name, v);
	}
	assert_double_equal(cpu_kernel_probe_per_cycle(&cpu_kernels[1], &r), r.fma256, 0);
}

/* One definition: a kernel whose class the probe times with a loop of the same width and
 * element is that very loop (the same function), so it cannot fall short of the probe
 * for a reason of its own. The other kernels (sp, vector i64, scalar i32 and scalar fp)
 * have the loop of the same pipes as their class. */
static void test_kernel_is_probe_loop(void **state)
{
	(void)state;
	unsigned same = 0;
	for (size_t i = 0; i < cpu_nkernels; i++) {
		const struct cpu_kernel *k = &cpu_kernels[i];
		peak_loop_fn probe = peak_uarch_probe_loop(cpu_kernel_probe_class(k));
		if (!k->loop || !probe)
			continue;
		/* scalar: the i64 loops are the classes; vector: dp and i32 */
		bool own = k->isa == PEAK_ISA_SCALAR ? k->elem == CPU_I64
						     : k->elem == CPU_F64 || k->elem == CPU_I32;
		if (own) {
			if (k->loop != probe)
				fail_msg("%s: not the probe's loop for %s", k->name,
					 cpu_kernel_probe_class(k));
			same++;
		}
	}
	assert_true(same >= 8);
}

static void test_pretend_missing(void **state)
{
	(void)state;
	char reason[160];
	assert_int_equal(setenv("PEAKBENCH_TEST_PRETEND_MISSING", "sse,avx512", 1), 0);
	assert_false(cpu_isa_supported(PEAK_ISA_AVX512, reason, sizeof reason));
	assert_non_null(strstr(reason, "PEAKBENCH_TEST_PRETEND_MISSING"));
	assert_false(cpu_isa_supported(PEAK_ISA_SSE, reason, sizeof reason));
	assert_true(cpu_isa_supported(PEAK_ISA_SCALAR, reason, sizeof reason));
	assert_int_equal(unsetenv("PEAKBENCH_TEST_PRETEND_MISSING"), 0);
	assert_true(cpu_isa_supported(PEAK_ISA_SSE, reason, sizeof reason));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_kernel_verifies),
	    cmocka_unit_test(test_damage_is_caught),
	    cmocka_unit_test(test_affine_pow_matches_replay),
	    cmocka_unit_test(test_ops_per_iter),
	    cmocka_unit_test(test_format_ops),
	    cmocka_unit_test(test_chains),
	    cmocka_unit_test(test_every_clock_is_anchored),
	    cmocka_unit_test(test_latency_does_not_move_the_clock),
	    cmocka_unit_test(test_pretend_missing),
	    cmocka_unit_test(test_kernel_features),
	    cmocka_unit_test(test_probe_class),
	    cmocka_unit_test(test_kernel_is_probe_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
