/* The load-latency curve for peak_cache_knees (peak_cache.h): a random pointer chase, one
 * dependent load at a time, over working sets from 4 KiB to a few times the reported LLC.
 * Short by design (about a second): it runs once per run, before anything sized from the
 * caches. membench's latency test measures the full curve with statistics; this one only
 * has to find the plateaus, so each working set takes the best of many short chases. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "peak_cache.h"
#include "peak_time.h"

#define LINE_BYTES   64
#define FIRST_BYTES  ((uint64_t)4096)
#define CAP_BYTES    ((uint64_t)256 << 20) /* enough to see DRAM past any guest's share */
#define FLOOR_BYTES  ((uint64_t)64 << 20)  /* the top when the LLC is unknown or small */
/* 32 chases of 2048 loads, the fastest taken: a chase lasts 2-700 us, so on a busy
 * machine most of them run without being preempted, which one long chase would not. */
#define CHASE_STEPS  2048u
#define CHASE_RUNS   32

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Link the first `lines` lines of buf into one random cycle (Sattolo's shuffle of the
 * visiting order), so that the prefetchers cannot guess the next line. */
static void link_cycle(char *buf, uint32_t *order, size_t lines, uint64_t *seed)
{
	for (size_t i = 0; i < lines; i++)
		order[i] = (uint32_t)i;
	for (size_t i = lines - 1; i > 0; i--) {
		size_t j = (size_t)(xorshift(seed) % i);
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; i < lines; i++) {
		char *from = buf + (size_t)order[i] * LINE_BYTES;
		char *to = buf + (size_t)order[(i + 1) % lines] * LINE_BYTES;
		memcpy(from, &to, sizeof to);
	}
}

/* Best ns per load of CHASE_RUNS chases of CHASE_STEPS loads each, after one pass over the
 * working set in address order (its lines cached as far as they fit). */
static double chase_ns(char *buf, size_t lines)
{
	void *volatile sink;
	void *p = buf;
	uintptr_t touch = 0;
	for (size_t i = 0; i < lines; i++)
		touch += *(volatile uintptr_t *)(void *)(buf + i * LINE_BYTES);
	sink = (void *)touch;
	double best = 0;
	for (int r = 0; r < CHASE_RUNS; r++) {
		uint64_t t0 = peak_time_now_ns();
		for (unsigned s = 0; s < CHASE_STEPS; s++)
			p = *(void **)p;
		uint64_t t1 = peak_time_now_ns();
		double ns = (double)(t1 - t0) / CHASE_STEPS;
		if (r == 0 || ns < best)
			best = ns;
	}
	sink = p;
	(void)sink;
	return best;
}

size_t peak_cache_probe(uint64_t llc_reported, uint64_t mem_available,
			struct peak_cache_point *pts, size_t max)
{
	uint64_t top = llc_reported * 4 > FLOOR_BYTES ? llc_reported * 4 : FLOOR_BYTES;
	if (top > CAP_BYTES)
		top = CAP_BYTES;
	while (mem_available && top > FLOOR_BYTES / 16 && top > mem_available / 4)
		top /= 2;
	top = top / LINE_BYTES * LINE_BYTES;
	char *buf = mmap(NULL, top, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 0;
#ifdef MADV_HUGEPAGE
	(void)madvise(buf, top, MADV_HUGEPAGE); /* fewer TLB misses: the knee is the cache's */
#endif
	uint32_t *order = malloc((size_t)(top / LINE_BYTES) * sizeof *order);
	size_t n = 0;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (unsigned k = 0; order && n < max; k++) {
		uint64_t ws = (uint64_t)((double)FIRST_BYTES * pow(2.0, k / 4.0)) / LINE_BYTES *
			      LINE_BYTES;
		if (ws > top)
			break;
		size_t lines = (size_t)(ws / LINE_BYTES);
		link_cycle(buf, order, lines, &seed);
		pts[n].bytes = ws;
		pts[n].ns = chase_ns(buf, lines);
		n++;
	}
	free(order);
	(void)munmap(buf, top);
	return n;
}
