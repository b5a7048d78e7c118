/* The cache sizes a run works with: each level's reported size (cpuid, hwloc, sysfs) and
 * its effective size (peak_cache_knee.h: the measured latency curve's knee when it says
 * less), with the method. One curve per run: peakinfo measures it (peak_cache_probe),
 * run_all.sh hands the result to every binary through PEAK_CACHE_ENV, and every binary's
 * sizing (membench's flags, STREAM's arrays, non-temporal stores) reads the effective size. */
#ifndef PEAK_CACHE_H
#define PEAK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "peak_cache_knee.h"
#include "peak_context.h"

/* "l1d=BYTES:VERDICT,l2=BYTES:VERDICT,l3=BYTES:VERDICT", as peakinfo's context states it
 * (the `peakresults cache-env` command prints it from peakinfo's JSON). */
#define PEAK_CACHE_ENV "PEAKBENCH_CACHE_EFFECTIVE"

struct peak_cache_sizes {
	uint64_t reported[PEAK_CACHE_LEVELS];  /* L1d, L2, L3; 0 unknown */
	uint64_t effective[PEAK_CACHE_LEVELS]; /* 0 unknown */
	enum peak_cache_verdict verdict[PEAK_CACHE_LEVELS];
	char source[64]; /* "reported", "measured" (this process), "measured by peakinfo" */
};

/* The reported sizes (L1d, L2, L3; 0 unknown), effective = reported, source "reported";
 * then, when PEAK_CACHE_ENV is set, the run's measured sizes from it. A malformed variable
 * leaves the reported sizes and returns -1 with the reason in why (why_len bytes). */
int peak_cache_sizes_init(struct peak_cache_sizes *cs,
			  const uint64_t reported[PEAK_CACHE_LEVELS], char *why, size_t why_len);

/* Take the knees of a curve measured by this process. */
void peak_cache_sizes_measured(struct peak_cache_sizes *cs,
			       const struct peak_cache_level lv[PEAK_CACHE_LEVELS]);

/* cache.{l1d,l2,l3}_{reported,effective,verdict} and cache.method. */
void peak_cache_to_context(const struct peak_cache_sizes *cs, struct peak_context *ctx);

/* Measure a load-latency curve (one thread, a random pointer chase over transparent huge
 * pages where the kernel gives them, best of 32 short chases per working set, working sets
 * 4 KiB x 2^(k/4) up to 4x the reported LLC, at most 256 MiB and a quarter of the memory
 * available; each working set the median of three whole sweeps) into pts; returns the count
 * (0 when nothing could be mapped). 1.2-1.5 s on a 2-vCPU Zen 3 guest, 3.4 s on the Zen 5
 * record (a 508 MiB L3 reported: the sweep runs to its cap; cache.curve_seconds says). */
size_t peak_cache_probe(uint64_t llc_reported, uint64_t mem_available,
			struct peak_cache_point *pts, size_t max);
#define PEAK_CACHE_PROBE_MAX 96

#endif
