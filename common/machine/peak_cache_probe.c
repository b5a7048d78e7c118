/* The load-latency curve for peak_cache_knees (peak_cache.h): a random pointer chase, one
 * dependent load at a time, over working sets from 4 KiB to a few times the reported LLC.
 * Short by design (a few seconds): it runs once per run, before anything sized from the
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
/* Sweeps of the whole curve; each working set's latency is the median of its sweeps'. On
 * a cloud VM the L3 is shared with other tenants, and one sweep's knee wandered from 3.4
 * to 14 MiB (and once to the reported 32 MiB) between back-to-back runs on an idle Zen 4
 * guest whose membench curve leaves the L3 plateau at 8-11 MiB. */
#define PROBE_PASSES 3

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

/* The sweep of working sets from FIRST_BYTES to top, a quarter octave apart. */
static uint64_t working_set(unsigned k)
{
	return (uint64_t)((double)FIRST_BYTES * pow(2.0, k / 4.0)) / LINE_BYTES * LINE_BYTES;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
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
	size_t n = 0;
	while (n < max && working_set((unsigned)n) <= top)
		n++;
	char *buf = mmap(NULL, top, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 0;
#ifdef MADV_HUGEPAGE
	(void)madvise(buf, top, MADV_HUGEPAGE); /* fewer TLB misses: the knee is the cache's */
#endif
	uint32_t *order = malloc((size_t)(top / LINE_BYTES) * sizeof *order);
	double *ns = malloc(n * PROBE_PASSES * sizeof *ns);
	uint64_t seed = 0x9e3779b97f4a7c15u;
	/* Whole sweeps, one after another: a neighbour's burst on the shared cache then
	 * lands on different working sets in different sweeps, and the median drops it. */
	for (unsigned pass = 0; order && ns && pass < PROBE_PASSES; pass++) {
		for (size_t k = 0; k < n; k++) {
			size_t lines = (size_t)(working_set((unsigned)k) / LINE_BYTES);
			link_cycle(buf, order, lines, &seed);
			ns[k * PROBE_PASSES + pass] = chase_ns(buf, lines);
		}
	}
	if (!order || !ns)
		n = 0;
	for (size_t k = 0; k < n; k++) {
		qsort(ns + k * PROBE_PASSES, PROBE_PASSES, sizeof *ns, by_value);
		pts[k].bytes = working_set((unsigned)k);
		pts[k].ns = ns[k * PROBE_PASSES + PROBE_PASSES / 2];
	}
	free(ns);
	free(order);
	(void)munmap(buf, top);
	return n;
}
