/* membench kernels at tiny sizes, for every ISA this CPU runs (x86-64: scalar, SSE2, AVX2,
 * AVX-512; aarch64: scalar, NEON, SVE at the process's vector length; the others skip with
 * the reason): the copy copies exactly the visited blocks, the fill fills them, the sum is
 * right, STREAM kernels match scalar C. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "mem_kernels.h"
#include "mem_order.h"

#define NBLOCKS 13

static const size_t block_sizes[] = {8, 16, 24, 64, 72, 200, 256, 320, 4096, 8200};

static uint64_t *pattern_buf(size_t words, uint64_t seed)
{
	uint64_t *w = aligned_alloc(64, (words * 8 + 63) / 64 * 64);
	assert_non_null(w);
	for (size_t i = 0; i < words; i++)
		w[i] = mem_mix64(seed + i);
	return w;
}

/* Mark which blocks a walk visits. */
static void visited(const struct mem_walk *w, bool *seen)
{
	memset(seen, 0, w->nblocks * sizeof(bool));
	size_t pos = w->pos;
	for (uint64_t i = 0; i < w->count; i++) {
		seen[w->order ? w->order[pos] : pos] = true;
		pos = (pos + 1) % w->nblocks;
	}
}

/* Walks to try: sequential and random, from the start and mid-way with wrap-around. */
static size_t walks(struct mem_walk *out, size_t bb, const uint32_t *order, bool nt)
{
	static const size_t starts[] = {0, 5, 11};
	static const uint64_t counts[] = {1, 4, NBLOCKS, 2 * NBLOCKS + 3};
	size_t n = 0;
	for (int r = 0; r < 2; r++)
		for (size_t s = 0; s < 3; s++)
			for (size_t c = 0; c < 4; c++)
				out[n++] = (struct mem_walk){.block_bytes = bb,
							     .order = r ? order : NULL,
							     .nblocks = NBLOCKS,
							     .pos = starts[s],
							     .count = counts[c],
							     .nt = nt};
	return n;
}

static void check_ops(const struct mem_ops *ops)
{
	uint32_t order[NBLOCKS];
	struct mem_rng rng;
	mem_rng_seed(&rng, 42);
	mem_order_shuffle(order, NBLOCKS, &rng);
	bool seen[NBLOCKS];
	struct mem_walk ws[24];
	for (size_t bi = 0; bi < sizeof(block_sizes) / sizeof(block_sizes[0]); bi++) {
		size_t bb = block_sizes[bi], words = bb / 8 * NBLOCKS;
		for (int nt = 0; nt < 2; nt++) {
			if (nt && bb % 64)
				continue;
			size_t nw = walks(ws, bb, order, nt);
			for (size_t k = 0; k < nw; k++) {
				const struct mem_walk *w = &ws[k];
				visited(w, seen);
				uint64_t *src = pattern_buf(words, 1), *dst = pattern_buf(words, 7);
				uint64_t *orig = pattern_buf(words, 7);
				ops->copy((char *)dst, (const char *)src, w);
				for (size_t b = 0; b < NBLOCKS; b++) {
					const uint64_t *want = seen[b] ? src : orig;
					assert_memory_equal(dst + b * bb / 8, want + b * bb / 8,
							    bb);
				}
				/* The sum counts a block once per visit. */
				uint64_t want_sum = 0;
				size_t pos = w->pos;
				for (uint64_t v = 0; v < w->count; v++) {
					size_t b = w->order ? w->order[pos] : pos;
					for (size_t i = 0; i < bb / 8; i++)
						want_sum += src[b * bb / 8 + i];
					pos = (pos + 1) % NBLOCKS;
				}
				assert_true(ops->sum((const char *)src, w) == want_sum);
				/* Fill: visited blocks hold the value, the others are untouched. */
				const uint64_t value = 0xabcdef0123456789ULL;
				ops->fill((char *)orig, value, w);
				uint64_t *before = pattern_buf(words, 7);
				for (size_t b = 0; b < NBLOCKS; b++)
					for (size_t i = 0; i < bb / 8; i++) {
						size_t at = b * bb / 8 + i;
						assert_true(orig[at] ==
							    (seen[b] ? value : before[at]));
					}
				free(before);
				free(orig);
				free(dst);
				free(src);
			}
		}
	}
}

static void check_stream(const struct mem_ops *ops)
{
	static const size_t sizes[] = {1, 7, 16, 33, 1000};
	for (size_t si = 0; si < 5; si++)
		for (int nt = 0; nt < 2; nt++) {
			size_t n = sizes[si], bytes = (n * 8 + 63) / 64 * 64;
			double *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes),
			       *c = aligned_alloc(64, bytes);
			assert_true(a && b && c);
			for (size_t j = 0; j < n; j++) {
				a[j] = 1.0 + (double)j;
				b[j] = 2.0 - (double)j * 0.5;
				c[j] = 0.0;
			}
			ops->stream_copy(c, a, n, nt);
			for (size_t j = 0; j < n; j++)
				assert_double_equal(c[j], 1.0 + (double)j, 0);
			ops->stream_scale(b, c, 3.0, n, nt);
			for (size_t j = 0; j < n; j++)
				assert_double_equal(b[j], 3.0 * (1.0 + (double)j), 0);
			ops->stream_add(c, a, b, n, nt);
			for (size_t j = 0; j < n; j++)
				assert_double_equal(c[j], 4.0 * (1.0 + (double)j), 0);
			ops->stream_triad(a, b, c, 3.0, n, nt);
			for (size_t j = 0; j < n; j++)
				assert_double_equal(a[j], 15.0 * (1.0 + (double)j), 0);
			free(c);
			free(b);
			free(a);
		}
}

static void test_isa(void **state)
{
	enum mem_isa isa = (enum mem_isa)(intptr_t)*state;
	char reason[96];
	if (!mem_isa_supported(isa, reason, sizeof(reason))) {
		print_message("skipping %s: %s\n", mem_isa_name(isa), reason);
		skip();
	}
	const struct mem_ops *ops = mem_ops_for(isa);
	assert_int_equal(ops->isa, isa);
	check_ops(ops);
	check_stream(ops);
}

/* --isa's choices: "auto", then this build's ISAs (names of the other architecture are
 * no choice: exit 2, not 3). */
static bool is_choice(const char *name)
{
	for (size_t i = 0; mem_isa_choices[i]; i++)
		if (strcmp(mem_isa_choices[i], name) == 0)
			return true;
	return false;
}

static void test_dispatch(void **state)
{
	(void)state;
	assert_int_equal(mem_isa_parse("auto"), -2);
	assert_int_equal(mem_isa_parse("avx512"), MEM_ISA_AVX512);
	assert_int_equal(mem_isa_parse("neon"), MEM_ISA_NEON);
	assert_int_equal(mem_isa_parse("sve"), MEM_ISA_SVE);
	assert_int_equal(mem_isa_parse("scalar"), MEM_ISA_SCALAR);
	assert_int_equal(mem_isa_parse("mmx"), -1);
	assert_string_equal(mem_isa_name(MEM_ISA_SVE), "sve");
	assert_true(is_choice("auto") && is_choice("scalar"));
	assert_true(mem_isa_supported(mem_isa_best(), NULL, 0));
	char reason[96] = "";
#if defined(__aarch64__)
	/* NEON is part of aarch64; SVE where HWCAP_SVE says so, and then it is the widest. */
	assert_true(is_choice("neon") && is_choice("sve"));
	assert_false(is_choice("sse2") || is_choice("avx2") || is_choice("avx512"));
	assert_true(mem_isa_supported(MEM_ISA_NEON, NULL, 0));
	assert_false(mem_isa_supported(MEM_ISA_SSE2, reason, sizeof(reason)));
	assert_true(reason[0] != '\0');
	bool sve = mem_isa_supported(MEM_ISA_SVE, NULL, 0);
	assert_int_equal(mem_isa_best(), sve ? MEM_ISA_SVE : MEM_ISA_NEON);
	assert_int_equal(mem_ops_for(MEM_ISA_SVE)->isa, MEM_ISA_SVE);
#else
	assert_true(is_choice("sse2") && is_choice("avx2") && is_choice("avx512"));
	assert_false(is_choice("neon") || is_choice("sve"));
	assert_true(mem_isa_supported(MEM_ISA_SSE2, NULL, 0));
	assert_false(mem_isa_supported(MEM_ISA_NEON, reason, sizeof(reason)));
	assert_true(reason[0] != '\0');
	assert_false(mem_isa_supported(MEM_ISA_SVE, NULL, 0));
	/* No kernels of the other architecture here: the scalar ones stand in. */
	assert_int_equal(mem_ops_for(MEM_ISA_SVE)->isa, MEM_ISA_SCALAR);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_SCALAR),
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_SSE2),
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_AVX2),
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_AVX512),
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_NEON),
	    cmocka_unit_test_prestate(test_isa, (void *)(intptr_t)MEM_ISA_SVE),
	    cmocka_unit_test(test_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
