/* The sustained mode of diskbench and netbench (--sustain DURATION): a sampler thread that
 * records the bytes moved in every second of one long job, and the rows made of that
 * series: "burst" and "baseline" either side of its knee (peak_changepoint), or one
 * "baseline" when the series holds one level. */
#ifndef PEAK_SUSTAIN_H
#define PEAK_SUSTAIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_changepoint.h"
#include "peak_result.h"

/* --sustain's range in seconds: two levels of PEAK_CHANGEPOINT_MIN_SEGMENT seconds at the
 * least, a day at the most. */
#define PEAK_SUSTAIN_MIN_S 4.0
#define PEAK_SUSTAIN_MAX_S 86400.0
/* The job runs this much past the last sample's end, so that no second is cut short. */
#define PEAK_SUSTAIN_TAIL_S 0.25

/* Parse a duration ("90", "90s", "30m", "1h", "1.5h") into seconds (a double at dest), within
 * PEAK_SUSTAIN_MIN_S..PEAK_SUSTAIN_MAX_S: a PEAK_OPT_CALLBACK. 0, or -1 with err. */
int peak_sustain_parse(const char *arg, void *dest, char *err, size_t err_len);

struct peak_sustain {
	atomic_uint_fast64_t bytes; /* the job adds what it moved (relaxed) */
	double *bytes_per_s;        /* one value per whole second of the run */
	size_t n, cap;
	uint64_t start_ns;
	pthread_t thread;
	atomic_int stop;
	bool running;
};

/* Start sampling for duration_s (whole seconds are kept). 0, or -1 (out of memory,
 * no thread) with errno set. */
int peak_sustain_start(struct peak_sustain *s, double duration_s);
/* True once the job should end: duration_s + PEAK_SUSTAIN_TAIL_S since the start. */
bool peak_sustain_over(const struct peak_sustain *s, double duration_s);
/* Wait for the sampler (it ends after its last second, or at once when asked) and keep the
 * series. */
void peak_sustain_stop(struct peak_sustain *s);
void peak_sustain_free(struct peak_sustain *s);

/* The rows of a sustained run: its series in the row's unit (values, n: unit_per_byte_s
 * times bytes per second), the knee found in it (cp), and the rows made from tmpl
 * (suite, test, metric, unit, threads, block...): rows[0] "burst" (the seconds before the
 * knee) and rows[1] "baseline" (after), or rows[0] "baseline" alone. Each row's samples
 * are its seconds (they point into values, which must outlive the rows), its flags say
 * knee_s, knee_confidence, level_s and sustain_s (docs/results-schema.md). Returns the
 * row count (0 when there is no whole second); theoretical and finish are the caller's. */
size_t peak_sustain_rows(const struct peak_sustain *s, double unit_per_byte_s, double *values,
			 const struct peak_result *tmpl, struct peak_changepoint *cp,
			 struct peak_result rows[2]);

struct peak_output;
struct peak_context;
struct peak_bench_err;
/* peak_sustain_rows from tmpl, each row finished and written to out; the context key
 * knee_key says "found" or why no knee. 0, or peak_bench_fail's -1 with e set (no whole
 * second measured, out of memory, a write that failed). */
int peak_sustain_record(const struct peak_sustain *s, double unit_per_byte_s,
			const struct peak_result *tmpl, const char *knee_key, struct peak_output *out,
			struct peak_context *ctx, struct peak_bench_err *e);

#endif
