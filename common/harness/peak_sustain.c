/* The sustained mode: one sampler thread that wakes on each whole second since the start
 * (absolute deadlines, so the seconds do not drift) and records the bytes moved in it. */
#define _GNU_SOURCE
#include "peak_sustain.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_bench.h"
#include "peak_context.h"
#include "peak_exit.h"
#include "peak_report.h"

/* The sampler sleeps to absolute CLOCK_MONOTONIC deadlines (clock_nanosleep has no
 * CLOCK_MONOTONIC_RAW, peak_time's clock, and the two differ by an offset that grows with
 * uptime): every time of this module is read from that one clock. */
static uint64_t mono_ns(void)
{
	struct timespec ts;
	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int peak_sustain_parse(const char *arg, void *dest, char *err, size_t err_len)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	double mult = 1;
	if (end != arg && *end != '\0' && end[1] == '\0') {
		mult = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 0;
		end++;
	}
	if (end == arg || *end != '\0' || errno != 0 || mult == 0 || !isfinite(v) ||
	    v * mult < PEAK_SUSTAIN_MIN_S || v * mult > PEAK_SUSTAIN_MAX_S) {
		snprintf(err, err_len,
			 "'%s' is not a duration of %.0f s to 24 h (e.g. 90s, 30m, 1h)", arg,
			 PEAK_SUSTAIN_MIN_S);
		return -1;
	}
	*(double *)dest = v * mult;
	return 0;
}

static void *sampler(void *arg)
{
	struct peak_sustain *s = arg;
	uint64_t prev_bytes = 0, prev_ns = s->start_ns;
	for (size_t k = 1; k <= s->cap; k++) {
		uint64_t due = s->start_ns + (uint64_t)k * 1000000000ull;
		struct timespec ts = {.tv_sec = (time_t)(due / 1000000000ull),
				      .tv_nsec = (long)(due % 1000000000ull)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		if (atomic_load(&s->stop))
			break;
		uint64_t now = mono_ns();
		uint64_t b = atomic_load_explicit(&s->bytes, memory_order_relaxed);
		/* a late wake-up stretches its second: divide by the time it really took */
		s->bytes_per_s[s->n++] = (double)(b - prev_bytes) * 1e9 / (double)(now - prev_ns);
		prev_bytes = b;
		prev_ns = now;
	}
	return NULL;
}

int peak_sustain_start(struct peak_sustain *s, double duration_s)
{
	memset(s, 0, sizeof *s);
	atomic_init(&s->bytes, 0);
	atomic_init(&s->stop, 0);
	s->cap = (size_t)duration_s;
	s->bytes_per_s = calloc(s->cap ? s->cap : 1, sizeof *s->bytes_per_s);
	if (s->bytes_per_s == NULL)
		return -1;
	s->start_ns = mono_ns();
	int rc = pthread_create(&s->thread, NULL, sampler, s);
	if (rc != 0) {
		free(s->bytes_per_s);
		s->bytes_per_s = NULL;
		errno = rc;
		return -1;
	}
	s->running = true;
	return 0;
}

bool peak_sustain_over(const struct peak_sustain *s, double duration_s)
{
	return (double)(mono_ns() - s->start_ns) >= (duration_s + PEAK_SUSTAIN_TAIL_S) * 1e9;
}

void peak_sustain_stop(struct peak_sustain *s)
{
	if (!s->running)
		return;
	/* past the end the sampler has returned; before it (the job failed), end it at once */
	if ((double)(mono_ns() - s->start_ns) < (double)s->cap * 1e9) {
		atomic_store(&s->stop, 1);
		(void)pthread_cancel(s->thread); /* clock_nanosleep is a cancellation point */
	}
	(void)pthread_join(s->thread, NULL);
	s->running = false;
}

void peak_sustain_free(struct peak_sustain *s)
{
	peak_sustain_stop(s);
	free(s->bytes_per_s);
	s->bytes_per_s = NULL;
}

/* "key=v" with decimals digits after the point. */
static void flag_num(struct peak_result *r, const char *key, int decimals, double v)
{
	char item[64];
	snprintf(item, sizeof item, "%s=%.*f", key, decimals, v);
	peak_result_flag(r, item);
}

static void make_row(struct peak_result *r, const struct peak_result *tmpl, const char *level,
		     const double *v, size_t n, double sustain_s)
{
	*r = *tmpl;
	snprintf(r->variant, sizeof r->variant, "%s", level);
	peak_result_set_samples(r, v, n);
	flag_num(r, "level_s", 0, (double)n);
	flag_num(r, "sustain_s", 0, sustain_s);
}

size_t peak_sustain_rows(const struct peak_sustain *s, double unit_per_byte_s, double *values,
			 const struct peak_result *tmpl, struct peak_changepoint *cp,
			 struct peak_result rows[2])
{
	for (size_t i = 0; i < s->n; i++)
		values[i] = s->bytes_per_s[i] * unit_per_byte_s;
	peak_changepoint_find(values, s->n, cp);
	if (s->n == 0)
		return 0;
	if (!cp->found) {
		make_row(&rows[0], tmpl, "baseline", values, s->n, (double)s->n);
		peak_result_flag(&rows[0], "no_knee");
		return 1;
	}
	make_row(&rows[0], tmpl, "burst", values, cp->index, (double)s->n);
	make_row(&rows[1], tmpl, "baseline", values + cp->index, s->n - cp->index, (double)s->n);
	for (int i = 0; i < 2; i++) {
		flag_num(&rows[i], "knee_s", 1, cp->knee);
		flag_num(&rows[i], "knee_confidence", 3, cp->confidence);
	}
	return 2;
}

int peak_sustain_record(const struct peak_sustain *s, double unit_per_byte_s,
			const struct peak_result *tmpl, const char *knee_key, struct peak_output *out,
			struct peak_context *ctx, struct peak_bench_err *e)
{
	struct peak_result rows[2];
	struct peak_changepoint cp;
	double *values = calloc(s->n ? s->n : 1, sizeof *values);
	if (values == NULL)
		return peak_bench_fail(e, PEAK_EXIT_FAIL, "out of memory");
	size_t n = peak_sustain_rows(s, unit_per_byte_s, values, tmpl, &cp, rows);
	peak_context_set_str(ctx, knee_key, cp.found ? "found" : cp.why);
	int rc =
	    n == 0 ? peak_bench_fail(e, PEAK_EXIT_FAIL, "--sustain: no whole second measured") : 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		peak_result_finish(&rows[i]);
		if (peak_output_record(out, &rows[i]) != 0)
			rc = peak_bench_fail(e, PEAK_EXIT_FAIL, "writing the results failed");
	}
	free(values);
	return rc;
}
