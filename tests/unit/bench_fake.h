/* What the harness's unit tests share: the common options of a quick fake sweep, and a
 * CSV reporter on a temporary file whose rows the tests read back. */
#ifndef BENCH_FAKE_H
#define BENCH_FAKE_H

#include "peak_cmocka.h"

#include <stdio.h>
#include <string.h>

#include "peak_bench.h"

/* Fixed repetitions (--ci 0): the fake kernels' samples are timings, so a count that
 * followed their spread would make the call counts below a matter of chance; the adaptive
 * rule has its own tests on scripted samples (test_reps.c). */
static inline void common(struct peak_common_opts *c, uint64_t reps)
{
	peak_opts_common_defaults(c);
	c->reps = reps;
	c->ci_pct = 0;
	c->min_time_s = 0.0001;
	c->quiet = true;
}

static inline int open_out(struct peak_output *o, FILE **f)
{
	*f = tmpfile();
	assert_non_null(*f);
	memset(o, 0, sizeof *o);
	o->rep.ops = &peak_report_csv;
	o->rep.out = *f;
	struct peak_context ctx;
	peak_context_init(&ctx);
	return peak_output_begin(o, &ctx);
}

/* Everything the reporter wrote to f, into buf (at most len - 1 bytes); closes f. */
static inline void read_back(FILE *f, char *buf, size_t len)
{
	fflush(f);
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

#endif
