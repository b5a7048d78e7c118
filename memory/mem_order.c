/* Random orders for membench: xoshiro256** (Blackman and Vigna), Fisher-Yates shuffles
 * (by buckets for large orders) and Sattolo cycles, all built outside the timed region. */
#include "mem_order.h"

#include <stdlib.h>

uint64_t mem_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void mem_rng_seed(struct mem_rng *rng, uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		seed = mem_mix64(seed);
		rng->s[i] = seed;
	}
	if ((rng->s[0] | rng->s[1] | rng->s[2] | rng->s[3]) == 0)
		rng->s[0] = 1;
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t mem_rng_next(struct mem_rng *rng)
{
	uint64_t *s = rng->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Lemire's multiply-shift with rejection: unbiased and without a division per draw. */
uint64_t mem_rng_below(struct mem_rng *rng, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)mem_rng_next(rng) * n;
	uint64_t low = (uint64_t)m;
	if (low < n) {
		uint64_t threshold = (0 - n) % n;
		while (low < threshold) {
			m = (unsigned __int128)mem_rng_next(rng) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

/* Fisher-Yates over order[0..n), whatever it holds. */
static void shuffle_in_place(uint32_t *order, size_t n, struct mem_rng *rng)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)mem_rng_below(rng, i);
		uint32_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

/* A bucket of this many indices (256 KiB) is shuffled in the core's own caches. A plain
 * Fisher-Yates over a larger order waits on a miss at every swap: 60 ns an index on a
 * Zen 3 guest, 8 s for membench's 8-byte blocks over 1 GiB at one thread. */
#define BUCKET_INDICES (1u << 16)
/* At most 1024 buckets: the scatter pass then writes 1024 streams, each sequential, whose
 * open lines (64 KiB) stay in L1/L2. */
#define MAX_LOG2_BUCKETS 10u

int mem_order_shuffle_buckets(uint32_t *order, size_t n, struct mem_rng *rng, unsigned log2_buckets)
{
	const size_t nb = (size_t)1 << log2_buckets;
	size_t *next = calloc(nb + 1, sizeof(size_t));
	if (!next)
		return -1;
	/* Draw every index's bucket twice from the same generator state: once to count the
	 * buckets' sizes, once to place the indices (no side array of n bucket numbers). A
	 * bucket is the draw's top bits: uniform, as the bucket count is a power of two. */
	const struct mem_rng start = *rng;
	const unsigned shift = 64u - log2_buckets;
	for (size_t i = 0; i < n; i++)
		next[log2_buckets ? mem_rng_next(rng) >> shift : 0]++;
	size_t at = 0;
	for (size_t b = 0; b < nb; b++) {
		size_t k = next[b];
		next[b] = at;
		at += k;
	}
	next[nb] = n;
	*rng = start;
	for (size_t i = 0; i < n; i++)
		order[next[log2_buckets ? mem_rng_next(rng) >> shift : 0]++] = (uint32_t)i;
	/* next[b] is now bucket b's end, which is bucket b + 1's start */
	for (size_t b = 0, from = 0; b < nb; from = next[b], b++)
		shuffle_in_place(order + from, next[b] - from, rng);
	free(next);
	return 0;
}

void mem_order_shuffle(uint32_t *order, size_t n, struct mem_rng *rng)
{
	unsigned log2_buckets = 0;
	while (log2_buckets < MAX_LOG2_BUCKETS && ((size_t)BUCKET_INDICES << log2_buckets) < n)
		log2_buckets++;
	if (log2_buckets > 0 && mem_order_shuffle_buckets(order, n, rng, log2_buckets) == 0)
		return;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	shuffle_in_place(order, n, rng);
}

/* Sattolo's algorithm (j < i strictly) yields a cyclic permutation: one cycle through
 * every line, so the chase never falls into a short loop that stays in cache. The
 * successor indices live in the lines themselves while shuffling (no side array), then
 * become pointers. */
void *mem_chase_build(void *buf, size_t lines, size_t line_bytes, struct mem_rng *rng)
{
	char *base = buf;
	for (size_t i = 0; i < lines; i++)
		*(uintptr_t *)(void *)(base + i * line_bytes) = i;
	for (size_t i = lines; i > 1; i--) {
		size_t j = (size_t)mem_rng_below(rng, i - 1);
		uintptr_t *a = (uintptr_t *)(void *)(base + (i - 1) * line_bytes);
		uintptr_t *b = (uintptr_t *)(void *)(base + j * line_bytes);
		uintptr_t t = *a;
		*a = *b;
		*b = t;
	}
	for (size_t i = 0; i < lines; i++) {
		uintptr_t *slot = (uintptr_t *)(void *)(base + i * line_bytes);
		*slot = (uintptr_t)(base + *slot * line_bytes);
	}
	return base;
}

/* Each load's address is the previous load's value: the loads cannot overlap, so the
 * time per step is the load-to-use latency of wherever the line lives. Unrolled by 16 so
 * the loop branch is noise. */
void *mem_chase_walk(void *p, uint64_t steps)
{
	void **q = p;
	uint64_t i = steps;
	for (; i >= 16; i -= 16) {
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
		q = *q;
	}
	for (; i > 0; i--)
		q = *q;
	return q;
}
