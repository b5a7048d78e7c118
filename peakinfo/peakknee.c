/* peakknee: the change-point finder of --sustain (peak_changepoint) on any per-second
 * series, one number a line on stdin (a reference tool's intervals: iperf3 -i 1, fio's
 * bandwidth log), so ours and a tool's run are judged by the same finder.
 * Prints key=value lines: found, seconds, before, after, knee_s, confidence, noise, why. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_changepoint.h"
#include "peak_exit.h"

#define MAX_SAMPLES (25u * 3600u) /* a day at one a second, and an hour over */

int main(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "--help") == 0) {
			printf("Usage: peakknee < SERIES\nThe knee of a per-second series (one "
			       "number a "
			       "line): level before, after, when, how sure.\n");
			return PEAK_EXIT_OK;
		}
		fprintf(stderr, "peakknee: takes no argument (the series comes on stdin)\n");
		return PEAK_EXIT_USAGE;
	}
	double *x = malloc(MAX_SAMPLES * sizeof *x);
	if (x == NULL)
		return PEAK_EXIT_FAIL;
	size_t n = 0;
	char line[128];
	while (fgets(line, sizeof line, stdin) != NULL) {
		char *end;
		double v = strtod(line, &end);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (end == line || *end != '\0' || !isfinite(v) || n == MAX_SAMPLES) {
			fprintf(stderr,
				"peakknee: line %zu is not a number (or more than %u lines)\n",
				n + 1, MAX_SAMPLES);
			free(x);
			return PEAK_EXIT_USAGE;
		}
		x[n++] = v;
	}
	struct peak_changepoint cp;
	peak_changepoint_find(x, n, &cp);
	printf("found=%d\nseconds=%zu\nbefore=%.6g\nafter=%.6g\nknee_s=%.2f\nconfidence=%.3f\n"
	       "noise=%.6g\nwhy=%s\n",
	       cp.found ? 1 : 0, n, cp.before, cp.after, cp.knee, cp.confidence, cp.noise,
	       cp.why ? cp.why : "");
	free(x);
	return PEAK_EXIT_OK;
}
