/* The knee of a sustained run: the one point where a per-second series changes level (a
 * burst allowance spent, a token bucket empty). Pure functions on a recorded series. */
#ifndef PEAK_CHANGEPOINT_H
#define PEAK_CHANGEPOINT_H

#include <stdbool.h>
#include <stddef.h>

/* The fewest samples a level is made of: a one-second "burst" is noise, not a level. */
#define PEAK_CHANGEPOINT_MIN_SEGMENT 2
/* The smallest change that is a knee, relative to the higher level (10%): a drift of a
 * few percent on a shaped link is the same rate. */
#define PEAK_CHANGEPOINT_MIN_JUMP 0.10
/* The confidence a knee needs (1 - the permutation test's p-value). */
#define PEAK_CHANGEPOINT_MIN_CONFIDENCE 0.99
/* The permutations of the test: the highest confidence it can give is 1 - 1/(this + 1). */
#define PEAK_CHANGEPOINT_PERMUTATIONS 999

struct peak_changepoint {
	bool found;        /* a knee: the fields below describe two levels */
	size_t index;      /* the first sample of the level after the knee (0 when none) */
	double knee;       /* when, in samples from the start (a per-second series: seconds),
			    * to a fraction: the seconds that straddle the knee say how far in */
	double before;     /* the level before: the segment's median (the whole series' when
			    * no knee) */
	double after;      /* the level after (NAN when no knee) */
	double confidence; /* 1 - p of the permutation test, 0 when no split was tried */
	double noise;      /* the within-segment standard deviation (pooled) */
	const char *why;   /* no knee: the reason in a few words ("flat", "not sure: chance
			    * splits as well", "a ramp, not a step", "too short", "change below
			    * 10%"); NULL when found */
};

/* Find the best single change point of x (n samples) by least squares, and decide whether
 * it is a knee: the split must be better than chance (a permutation test with a fixed
 * seed: the same series gives the same answer), a step must fit better than a straight
 * line (a ramp has no knee), and the levels must differ by PEAK_CHANGEPOINT_MIN_JUMP. */
void peak_changepoint_find(const double *x, size_t n, struct peak_changepoint *out);

#endif
