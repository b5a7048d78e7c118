/* Effective cache sizes from a load-latency curve: where each level's plateau ends (its
 * knee), held against the size the machine reports. A hypervisor may report the host's
 * last-level cache to a guest that gets a share of it; the curve says what this process
 * can use. Pure functions: the curve comes from peak_cache_probe or a recorded run. */
#ifndef PEAK_CACHE_KNEE_H
#define PEAK_CACHE_KNEE_H

#include <stddef.h>
#include <stdint.h>

#define PEAK_CACHE_LEVELS 3 /* L1d, L2, L3 */

/* One point of the curve: a working set and its latency per dependent load. */
struct peak_cache_point {
	uint64_t bytes;
	double ns;
};

enum peak_cache_verdict {
	PEAK_CACHE_UNMEASURED, /* no curve, or no reported size to hold it against */
	PEAK_CACHE_NO_KNEE,    /* the curve shows no plateau for this level, or never leaves it */
	PEAK_CACHE_AGREES,     /* the knee is within an octave of the reported size */
	PEAK_CACHE_SMALLER     /* the knee is more than an octave below: the knee is the size */
};

struct peak_cache_level {
	uint64_t reported_bytes;  /* 0 unknown */
	uint64_t knee_bytes;      /* last working set served at the level's latency; 0 none */
	double plateau_ns;        /* the level's latency (median of its plateau); 0 none */
	uint64_t effective_bytes; /* knee when SMALLER, else the reported size */
	enum peak_cache_verdict verdict;
};

/* Find the knee of each level on the curve pts (n points, any order) and decide each
 * effective size. reported[i] is level i+1's reported size (0 unknown). */
void peak_cache_knees(const struct peak_cache_point *pts, size_t n,
		      const uint64_t reported[PEAK_CACHE_LEVELS],
		      struct peak_cache_level out[PEAK_CACHE_LEVELS]);

/* The verdict's word for context keys and reports: "unmeasured", "no_knee", "agrees",
 * "smaller". */
const char *peak_cache_verdict_name(enum peak_cache_verdict v);

#endif
