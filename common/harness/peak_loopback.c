/* The loopback network's theoretical peak (see peak_loopback.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_loopback.h"
#include "peak_team.h"

#define MAX_COPIERS 256

struct copy_arg {
	uint8_t *src[MAX_COPIERS], *dst[MAX_COPIERS];
	int timed;
};

static int copy_fn(void *p, unsigned idx, unsigned n)
{
	(void)n;
	struct copy_arg *a = p;
	if (!a->timed) { /* first touch by the copier itself, untimed */
		a->src[idx] = peak_team_alloc_local(PEAK_LOOPBACK_BYTES);
		a->dst[idx] = peak_team_alloc_local(PEAK_LOOPBACK_BYTES);
		if (a->src[idx] == NULL || a->dst[idx] == NULL)
			return 1;
		memset(a->src[idx], 1, PEAK_LOOPBACK_BYTES);
		memset(a->dst[idx], 2, PEAK_LOOPBACK_BYTES);
		return 0;
	}
	memcpy(a->dst[idx], a->src[idx], PEAK_LOOPBACK_BYTES);
	/* Read one byte back so the copy cannot be dropped. */
	return ((volatile uint8_t *)a->dst[idx])[PEAK_LOOPBACK_BYTES / 2] == 1 ? 0 : 1;
}

int peak_loopback_measure(struct peak_loopback *lo)
{
	memset(lo, 0, sizeof *lo);
	unsigned n = peak_team_allowed_cpus();
	n = n < 1 ? 1 : n > MAX_COPIERS ? MAX_COPIERS : n;
	char err[160];
	struct peak_team *team = peak_team_create(n, true, err, sizeof err);
	struct copy_arg *a = calloc(1, sizeof *a);
	double best = 0;
	int rc = -1;
	if (!team || !a) {
		(void)snprintf(lo->note, sizeof lo->note, "copiers could not start: %.60s",
			       team ? "out of memory" : err);
		goto out;
	}
	if (peak_team_run(team, copy_fn, a, NULL, NULL) != 0) {
		(void)snprintf(lo->note, sizeof lo->note, "copy buffers could not be allocated");
		goto out;
	}
	a->timed = 1;
	for (int i = 0; i < PEAK_LOOPBACK_RUNS; i++) {
		uint64_t ns = 0;
		if (peak_team_run(team, copy_fn, a, &ns, NULL) != 0 || ns == 0) {
			(void)snprintf(lo->note, sizeof lo->note, "a copy run failed");
			goto out;
		}
		best = fmax(best, (double)PEAK_LOOPBACK_BYTES * n * 8.0 / (double)ns);
	}
	lo->gbps = best;
	lo->copiers = n;
	(void)snprintf(lo->note, sizeof lo->note,
		       "memcpy of %zu MiB by each of %u CPUs at once, bytes counted once, best "
		       "of %d",
		       PEAK_LOOPBACK_BYTES >> 20, n, PEAK_LOOPBACK_RUNS);
	rc = 0;
out:
	for (unsigned i = 0; a && i < n; i++) {
		if (a->src[i])
			peak_team_free_local(a->src[i], PEAK_LOOPBACK_BYTES);
		if (a->dst[i])
			peak_team_free_local(a->dst[i], PEAK_LOOPBACK_BYTES);
	}
	free(a);
	if (team)
		peak_team_destroy(team);
	return rc;
}

int peak_loopback_from_env(struct peak_loopback *lo)
{
	const char *s = getenv(PEAK_LOOPBACK_ENV);
	if (!s || !s[0])
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || !(v > 0))
		return -2;
	memset(lo, 0, sizeof *lo);
	lo->gbps = v;
	(void)snprintf(lo->note, sizeof lo->note,
		       "measured by peakinfo in this run (" PEAK_LOOPBACK_ENV ")");
	return 0;
}
