/* The knee of a sustained run: least squares picks the split, a permutation test says how
 * sure, a straight line fitted to the same series says whether it is a step at all. */
#include "peak_changepoint.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The split of x that leaves the least squared error about two means; returns the error
 * it removes from the one-mean fit, and the split in *at (the first index after it). */
static double best_split(const double *x, size_t n, size_t *at)
{
	double total = 0, total_sq = 0;
	for (size_t i = 0; i < n; i++) {
		total += x[i];
		total_sq += x[i] * x[i];
	}
	double sse_one = total_sq - total * total / (double)n;
	double best = INFINITY, s = 0, q = 0;
	*at = 0;
	for (size_t k = 1; k + PEAK_CHANGEPOINT_MIN_SEGMENT <= n; k++) {
		s += x[k - 1];
		q += x[k - 1] * x[k - 1];
		if (k < PEAK_CHANGEPOINT_MIN_SEGMENT)
			continue;
		double a = (double)k, b = (double)(n - k);
		double sse = (q - s * s / a) + ((total_sq - q) - (total - s) * (total - s) / b);
		if (sse < best) {
			best = sse;
			*at = k;
		}
	}
	double gain = sse_one - best;
	return gain > 0 ? gain : 0;
}

/* The squared error left by the least-squares line through (i, x[i]). */
static double line_sse(const double *x, size_t n)
{
	double mt = ((double)n - 1) / 2, mx = 0;
	for (size_t i = 0; i < n; i++)
		mx += x[i];
	mx /= (double)n;
	double stt = 0, stx = 0, sxx = 0;
	for (size_t i = 0; i < n; i++) {
		double dt = (double)i - mt, dx = x[i] - mx;
		stt += dt * dt;
		stx += dt * dx;
		sxx += dx * dx;
	}
	double sse = sxx - stx * stx / stt;
	return sse > 0 ? sse : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of x[0..n) through the scratch buffer tmp (n doubles). */
static double median(const double *x, size_t n, double *tmp)
{
	memcpy(tmp, x, n * sizeof *x);
	qsort(tmp, n, sizeof *tmp, cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The share of the second at value v spent at the level before (0..1). */
static double share_before(double v, double before, double after)
{
	double f = (v - after) / (before - after);
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* 1 - p: how many shuffles of x (a fixed-seed xorshift, so a series always gives the same
 * answer) leave a best split that removes at least gain, out of PEAK_CHANGEPOINT_PERMUTATIONS;
 * tmp is n doubles of scratch. */
static double permutation_confidence(const double *x, size_t n, double gain, double *tmp)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned as_good = 0;
	memcpy(tmp, x, n * sizeof *x);
	for (unsigned p = 0; p < PEAK_CHANGEPOINT_PERMUTATIONS; p++) {
		for (size_t i = n - 1; i > 0; i--) {
			seed ^= seed << 13;
			seed ^= seed >> 7;
			seed ^= seed << 17;
			size_t j = (size_t)(seed % (uint64_t)(i + 1));
			double t = tmp[i];
			tmp[i] = tmp[j];
			tmp[j] = t;
		}
		size_t at;
		/* a shuffle as good within rounding counts as good: a flat series is no knee */
		if (best_split(tmp, n, &at) >= gain * (1 - 1e-9))
			as_good++;
	}
	return 1.0 - (double)(as_good + 1) / (double)(PEAK_CHANGEPOINT_PERMUTATIONS + 1);
}

static void no_knee(struct peak_changepoint *out, const char *why)
{
	out->found = false;
	out->index = 0;
	out->knee = NAN;
	out->after = NAN;
	out->why = why;
}

void peak_changepoint_find(const double *x, size_t n, struct peak_changepoint *out)
{
	memset(out, 0, sizeof *out);
	out->before = NAN;
	no_knee(out, "too short");
	double *tmp = n ? malloc(n * sizeof *tmp) : NULL;
	if (tmp == NULL)
		return;
	out->before = median(x, n, tmp);
	if (n < 2 * PEAK_CHANGEPOINT_MIN_SEGMENT)
		goto done;
	size_t k;
	double gain = best_split(x, n, &k);
	double sse_line = line_sse(x, n);
	double total = 0, total_sq = 0;
	for (size_t i = 0; i < n; i++) {
		total += x[i];
		total_sq += x[i] * x[i];
	}
	double sse_step = total_sq - total * total / (double)n - gain;
	if (sse_step < 0)
		sse_step = 0;
	out->noise = sqrt(sse_step / (double)(n - 2));
	if (gain <= 0) {
		no_knee(out, "flat");
		goto done;
	}
	out->confidence = permutation_confidence(x, n, gain, tmp);
	double before = median(x, k, tmp), after = median(x + k, n - k, tmp);
	double high = fmax(fabs(before), fabs(after));
	if (out->confidence < PEAK_CHANGEPOINT_MIN_CONFIDENCE)
		no_knee(out, "not sure: chance splits as well");
	else if (fabs(before - after) < PEAK_CHANGEPOINT_MIN_JUMP * high)
		no_knee(out, "change below 10%");
	else if (sse_step > 0.5 * sse_line) /* a line explains it as well: a ramp */
		no_knee(out, "a ramp, not a step");
	else {
		out->found = true;
		out->why = NULL;
		out->index = k;
		out->before = before;
		out->after = after;
		out->knee = (double)(k - 1) + share_before(x[k - 1], before, after) +
			    share_before(x[k], before, after);
	}
done:
	free(tmp);
}
