/* Random orders for membench: a per-thread xoshiro256** generator, random permutations
 * of blocks (Fisher-Yates) and single-cycle pointer-chase rings of cache lines (Sattolo). */
#ifndef MEM_ORDER_H
#define MEM_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct mem_rng {
	uint64_t s[4];
};

/* Seed from one 64-bit value (expanded with splitmix64); threads pass seed + index. */
void mem_rng_seed(struct mem_rng *rng, uint64_t seed);
uint64_t mem_rng_next(struct mem_rng *rng);
/* Uniform in [0, n) without modulo bias (n >= 1). */
uint64_t mem_rng_below(struct mem_rng *rng, uint64_t n);
/* splitmix64 of x: a cheap bijective mixer, also used for buffer patterns. */
uint64_t mem_mix64(uint64_t x);

/* order[0..n) = a uniformly random permutation of 0..n-1. Past 64 Ki blocks it is built
 * bucket by bucket (mem_order_shuffle_buckets), so that its swaps stay in the caches. */
void mem_order_shuffle(uint32_t *order, size_t n, struct mem_rng *rng);
/* The same permutation law through 2^log2_buckets buckets: each index goes to a uniformly
 * drawn bucket (kept in index order), then each bucket is shuffled in place (Fisher-Yates).
 * The permutation is uniform for any bucket count (Rao and Sandelius): given the bucket
 * sizes k_b, each arrangement has probability buckets^-n x prod(1/k_b!), and the sum over
 * all size vectors is 1/n! by the multinomial theorem. Returns -1 (order untouched) when
 * the bucket table cannot be allocated. */
int mem_order_shuffle_buckets(uint32_t *order, size_t n, struct mem_rng *rng,
			      unsigned log2_buckets /* < 64 */);

/* Link the `lines` cache lines of buf (line_bytes apart, line_bytes >= sizeof(void *))
 * into one random cycle through every line: the first word of each line points to the
 * next line. Returns the start (line 0). lines >= 1. */
void *mem_chase_build(void *buf, size_t lines, size_t line_bytes, struct mem_rng *rng);

/* Follow the ring for `steps` dependent loads from p; returns where it stopped. */
void *mem_chase_walk(void *p, uint64_t steps);

#endif
