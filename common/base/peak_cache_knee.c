/* The knee finder: plateaus of a load-latency curve, the size where each one ends, and the
 * effective size of each cache level held against the reported one (peak_cache_knee.h).
 *
 * The rule, in three constants. A plateau is a run of at least PLATEAU_MIN_POINTS (4)
 * consecutive working sets whose latencies stay within PLATEAU_SPREAD of each other (a
 * level serves them all at its own latency); its latency is their median. The level's knee
 * is the last working set before the latency rises above KNEE_RISE times the plateau's and
 * stays there for the next point too (one noisy point is no knee). The search for the next
 * level's plateau starts at that rise. A knee within one octave of the reported size agrees
 * with it, and the reported size stands: a random chase leaves a plateau before the cache
 * is full (set conflicts, replacement, prefetch misses), so a knee a little below the
 * reported size says nothing against it. A knee further below is the size this process can
 * use. None of the three depends on a machine: latencies are compared only with latencies
 * of the same curve. */
#include <stdlib.h>
#include <string.h>

#include "peak_cache_knee.h"

#define PLATEAU_SPREAD     1.25
#define PLATEAU_MIN_POINTS 4
#define KNEE_RISE          1.5

static int by_bytes(const void *a, const void *b)
{
	const struct peak_cache_point *x = a, *y = b;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_ns(const struct peak_cache_point *p, size_t n)
{
	double v[64];
	if (n > sizeof v / sizeof v[0])
		n = sizeof v / sizeof v[0]; /* a plateau's first 64 points are plenty */
	for (size_t i = 0; i < n; i++)
		v[i] = p[i].ns;
	qsort(v, n, sizeof v[0], by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The first plateau at or after index from: [*lo, *hi]. Returns 0, or -1 when none. */
static int find_plateau(const struct peak_cache_point *p, size_t n, size_t from, size_t *lo,
			size_t *hi)
{
	for (size_t i = from; i < n; i++) {
		double mn = p[i].ns, mx = p[i].ns;
		size_t j = i;
		while (j + 1 < n) {
			double a = p[j + 1].ns < mn ? p[j + 1].ns : mn;
			double b = p[j + 1].ns > mx ? p[j + 1].ns : mx;
			if (a <= 0 || b > a * PLATEAU_SPREAD)
				break;
			mn = a, mx = b, j++;
		}
		if (j - i + 1 >= PLATEAU_MIN_POINTS) {
			*lo = i, *hi = j;
			return 0;
		}
	}
	return -1;
}

/* Index of the first point after lo that rises above limit and stays above it at the next
 * point (or is the last point); n when the curve never leaves the plateau. */
static size_t find_rise(const struct peak_cache_point *p, size_t n, size_t lo, double limit)
{
	for (size_t m = lo + 1; m < n; m++)
		if (p[m].ns > limit && (m + 1 == n || p[m + 1].ns > limit))
			return m;
	return n;
}

static void judge(struct peak_cache_level *lv)
{
	if (!lv->knee_bytes) {
		lv->verdict = PEAK_CACHE_NO_KNEE;
		lv->effective_bytes = lv->reported_bytes;
	} else if (lv->knee_bytes * 2 >= lv->reported_bytes) {
		lv->verdict = PEAK_CACHE_AGREES;
		lv->effective_bytes = lv->reported_bytes;
	} else {
		lv->verdict = PEAK_CACHE_SMALLER;
		lv->effective_bytes = lv->knee_bytes;
	}
}

void peak_cache_knees(const struct peak_cache_point *pts, size_t n,
		      const uint64_t reported[PEAK_CACHE_LEVELS],
		      struct peak_cache_level out[PEAK_CACHE_LEVELS])
{
	memset(out, 0, PEAK_CACHE_LEVELS * sizeof out[0]);
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++)
		out[k].reported_bytes = reported[k], out[k].effective_bytes = reported[k];
	struct peak_cache_point *p = n ? malloc(n * sizeof *p) : NULL;
	if (!p)
		return; /* no curve: every level unmeasured, the reported sizes stand */
	memcpy(p, pts, n * sizeof *p);
	qsort(p, n, sizeof *p, by_bytes);
	size_t from = 0;
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++) {
		struct peak_cache_level *lv = &out[k];
		size_t lo, hi;
		if (!lv->reported_bytes)
			continue; /* a level the machine does not report is not invented */
		/* A plateau that starts above the reported size belongs to a later level (the
		 * curve began past this one): this level has no knee and the plateau waits. */
		if (find_plateau(p, n, from, &lo, &hi) != 0 || p[lo].bytes > lv->reported_bytes) {
			judge(lv);
			continue;
		}
		lv->plateau_ns = median_ns(p + lo, hi - lo + 1);
		size_t rise = find_rise(p, n, lo, lv->plateau_ns * KNEE_RISE);
		if (rise < n)
			lv->knee_bytes = p[rise - 1].bytes;
		judge(lv);
		if (rise >= n)
			break; /* the curve ends on this plateau: no later level is measured */
		from = rise;
	}
	free(p);
}

const char *peak_cache_verdict_name(enum peak_cache_verdict v)
{
	switch (v) {
	case PEAK_CACHE_NO_KNEE:
		return "no_knee";
	case PEAK_CACHE_AGREES:
		return "agrees";
	case PEAK_CACHE_SMALLER:
		return "smaller";
	case PEAK_CACHE_UNMEASURED:
		break;
	}
	return "unmeasured";
}
