/* membench orders: every random order is a permutation (each block exactly once), the
 * pointer chase is one cycle through every line, buffers are aligned as promised. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "mem_order.h"

static void test_shuffle_is_permutation(void **state)
{
	(void)state;
	/* 300007 and 1 << 20 go through buckets (8 and 16 of them) */
	static const size_t sizes[] = {1, 2, 3, 10, 1000, 100003, 300007, (size_t)1 << 20};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		uint32_t *order = malloc(n * sizeof(uint32_t));
		unsigned char *seen = calloc(n, 1);
		assert_true(order && seen);
		struct mem_rng rng;
		mem_rng_seed(&rng, 7 + k);
		mem_order_shuffle(order, n, &rng);
		size_t moved = 0;
		for (size_t i = 0; i < n; i++) {
			assert_true(order[i] < n);
			assert_int_equal(seen[order[i]], 0);
			seen[order[i]] = 1;
			moved += order[i] != i;
		}
		if (n >= 1000)
			assert_true(moved > n / 2); /* really shuffled */
		free(seen);
		free(order);
	}
}

/* Each index's position after the bucketed shuffle of n = 4 over 4 buckets, 24000 times:
 * every one of the 24 orders should come about 1000 times (sd 31). A biased construction
 * (buckets kept in index order, or a bucket's size tied to its number) misses by hundreds. */
static void test_bucket_shuffle_is_uniform(void **state)
{
	(void)state;
	enum { N = 4, ORDERS = 24, TRIALS = 24000 };
	unsigned count[ORDERS] = {0};
	struct mem_rng rng;
	mem_rng_seed(&rng, 2026);
	for (int t = 0; t < TRIALS; t++) {
		uint32_t o[N];
		assert_int_equal(mem_order_shuffle_buckets(o, N, &rng, 2), 0);
		/* the order's rank among the 24 (Lehmer code) */
		unsigned rank = 0;
		for (int i = 0; i < N; i++) {
			unsigned smaller = 0;
			for (int j = i + 1; j < N; j++)
				smaller += o[j] < o[i];
			rank = rank * (unsigned)(N - i) + smaller;
		}
		assert_true(rank < ORDERS);
		count[rank]++;
	}
	for (int r = 0; r < ORDERS; r++) {
		assert_true(count[r] > 850);
		assert_true(count[r] < 1150);
	}
	/* one bucket is the plain Fisher-Yates */
	uint32_t one[10];
	assert_int_equal(mem_order_shuffle_buckets(one, 10, &rng, 0), 0);
	unsigned seen = 0;
	for (int i = 0; i < 10; i++)
		seen |= 1u << one[i];
	assert_int_equal(seen, 0x3ff);
}

static void test_seeds(void **state)
{
	(void)state;
	uint32_t a[64], b[64], c[64];
	struct mem_rng r1, r2, r3;
	mem_rng_seed(&r1, 1);
	mem_rng_seed(&r2, 1);
	mem_rng_seed(&r3, 2);
	mem_order_shuffle(a, 64, &r1);
	mem_order_shuffle(b, 64, &r2);
	mem_order_shuffle(c, 64, &r3);
	assert_memory_equal(a, b, sizeof(a));
	assert_true(memcmp(a, c, sizeof(a)) != 0);
	for (int i = 0; i < 10000; i++) {
		assert_true(mem_rng_below(&r1, 1) == 0);
		assert_true(mem_rng_below(&r1, 3) < 3);
		assert_true(mem_rng_below(&r1, UINT64_MAX) < UINT64_MAX);
	}
}

static void test_chase_one_cycle(void **state)
{
	(void)state;
	static const size_t lines_list[] = {1, 2, 3, 64, 1000, 4097};
	static const size_t line_bytes[] = {64, 128};
	for (size_t k = 0; k < 6; k++)
		for (size_t l = 0; l < 2; l++) {
			size_t lines = lines_list[k], lb = line_bytes[l];
			char *buf = aligned_alloc(64, lines * lb);
			unsigned char *seen = calloc(lines, 1);
			assert_true(buf && seen);
			struct mem_rng rng;
			mem_rng_seed(&rng, 99 + k);
			void *start = mem_chase_build(buf, lines, lb, &rng);
			assert_ptr_equal(start, buf);
			void *p = start;
			for (size_t i = 0; i < lines; i++) {
				size_t off = (size_t)((char *)p - buf);
				assert_true(off % lb == 0 && off / lb < lines);
				assert_int_equal(seen[off / lb], 0); /* never twice in one cycle */
				seen[off / lb] = 1;
				p = *(void **)p;
			}
			assert_ptr_equal(p, start); /* back after exactly `lines` steps */
			assert_ptr_equal(mem_chase_walk(start, lines), start);
			assert_ptr_equal(mem_chase_walk(start, 3 * lines), start);
			free(seen);
			free(buf);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shuffle_is_permutation),
	    cmocka_unit_test(test_bucket_shuffle_is_uniform),
	    cmocka_unit_test(test_seeds),
	    cmocka_unit_test(test_chase_one_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
