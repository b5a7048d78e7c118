/* Random orders for membench: xoshiro256** (Blackman and Vigna), Fisher-Yates shuffles
 * and Sattolo cycles, all built outside the timed region. */
#include "mem_order.h"

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

void mem_order_shuffle(uint32_t *order, size_t n, struct mem_rng *rng)
{
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)mem_rng_below(rng, i);
		uint32_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
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
