/* The clock under a vector class's load (peak_freq_load.h): the loaded chains timed, their
 * value checked, and the three checks that decide whether a reading is believed. The
 * chains themselves are x86-64's (peak_freq_load_x86.c); elsewhere no load has one. */
#include <math.h>
#include <stdio.h>

#include "peak_freq_load.h"
#include "peak_time.h"

const char *peak_freq_load_name(enum peak_freq_load load)
{
	static const char *const names[PEAK_FREQ_LOAD_COUNT] = {
	    [PEAK_FREQ_LOAD_NONE] = "scalar",
	    [PEAK_FREQ_LOAD_AVX512_FMA] = "avx512_fma",
	    [PEAK_FREQ_LOAD_AVX512_IMUL] = "avx512_imul",
	    [PEAK_FREQ_LOAD_AVX512_BF16] = "avx512_bf16",
	    [PEAK_FREQ_LOAD_AVX512_VNNI] = "avx512_vnni",
	    [PEAK_FREQ_LOAD_AVX512_FP16] = "avx512_fp16",
	    [PEAK_FREQ_LOAD_AMX] = "amx",
	    [PEAK_FREQ_LOAD_SSE_FP] = "sse_fp",
	    [PEAK_FREQ_LOAD_SSE_INT] = "sse_int",
	    [PEAK_FREQ_LOAD_AVX_FP] = "avx_fp",
	    [PEAK_FREQ_LOAD_AVX2_INT] = "avx2_int",
	    [PEAK_FREQ_LOAD_AVX512_INT] = "avx512_int",
	};
	return (unsigned)load < PEAK_FREQ_LOAD_COUNT ? names[load] : "?";
}

#if !defined(__x86_64__)
/* No frequency licences are known on other architectures, and no loaded chain exists:
 * every row there is clocked by the plain chains (peak_freq.h). */
bool peak_freq_load_runs_here(enum peak_freq_load load)
{
	(void)load;
	return false;
}

uint64_t peak_freq_load_run(enum peak_freq_load load, enum peak_freq_density d, uint64_t iters)
{
	(void)load;
	(void)d;
	(void)iters;
	return 0;
}
#endif

/* PEAK_FREQ_LOAD_K to the power links (mod 2^64): the chain's value after that many. */
static uint64_t expected_value(uint64_t links)
{
	uint64_t r = PEAK_FREQ_LOAD_START, b = PEAK_FREQ_LOAD_K;
	for (; links; links >>= 1, b *= b)
		if (links & 1)
			r *= b;
	return r;
}

/* One timed run; 0 when the chain's value is wrong (it did not run every link). */
static uint64_t timed_run(enum peak_freq_load load, enum peak_freq_density d, uint64_t iters)
{
	uint64_t t0 = peak_time_now_ns();
	uint64_t v = peak_freq_load_run(load, d, iters);
	uint64_t ns = peak_time_now_ns() - t0;
	return v == expected_value(iters * PEAK_FREQ_LOAD_LINKS) ? ns : 0;
}

double peak_freq_load_ghz(enum peak_freq_load load, enum peak_freq_density d, double duration_s,
			  unsigned trials)
{
	if (!peak_freq_load_runs_here(load) || trials == 0 || !(duration_s > 0))
		return 0;
	/* Grow the run until it lasts a tenth of the target (this also brings the core into
	 * the load's licence), then scale it to the target. */
	uint64_t iters = 16, ns = 0;
	const double target_ns = duration_s * 1e9;
	while (iters < (UINT64_C(1) << 36)) {
		ns = timed_run(load, d, iters);
		if (ns == 0)
			return 0;
		if ((double)ns >= target_ns / 10)
			break;
		iters *= 4;
	}
	double scaled = (double)iters * target_ns / (double)ns;
	if (scaled >= 1)
		iters = (uint64_t)scaled;
	/* imul r64's latency: 3 cycles on Intel's cores since Core 2 and AMD's since Zen
	 * (uops.info; peak_freq.h). */
	const double cycles = (double)iters * PEAK_FREQ_LOAD_LINKS * 3;
	double best = 0;
	for (unsigned t = 0; t < trials; t++) {
		ns = timed_run(load, d, iters);
		if (ns == 0)
			return 0;
		best = fmax(best, cycles / (double)ns); /* a preempted run only looks slower */
	}
	return best;
}

static bool apart(double a, double b)
{
	return !(a > 0) || !(b > 0) || fabs(a / b - 1) > PEAK_FREQ_LOAD_TOL;
}

bool peak_freq_load_check(struct peak_freq_load_clock *c)
{
	c->ok = false;
	if (!(c->ghz > 0) || !(c->ghz_scalar > 0))
		(void)snprintf(c->why, sizeof c->why, "not measured");
	else if (apart(c->ghz, c->ghz_light))
		(void)snprintf(c->why, sizeof c->why,
			       "full density reads %.2f GHz and light %.2f: not the chain alone",
			       c->ghz, c->ghz_light);
	else if (c->ghz > c->ghz_scalar * (1 + PEAK_FREQ_LOAD_TOL))
		(void)snprintf(c->why, sizeof c->why, "%.2f GHz is above the scalar clock %.2f",
			       c->ghz, c->ghz_scalar);
	else {
		c->ok = true;
		c->why[0] = '\0';
	}
	return c->ok;
}

bool peak_freq_load_licenses(enum peak_freq_load load)
{
	switch (load) {
	case PEAK_FREQ_LOAD_AVX512_FMA:
	case PEAK_FREQ_LOAD_AVX512_IMUL:
	case PEAK_FREQ_LOAD_AVX512_BF16:
	case PEAK_FREQ_LOAD_AVX512_VNNI:
	case PEAK_FREQ_LOAD_AVX512_FP16:
	case PEAK_FREQ_LOAD_AMX:
		return true;
	default: /* the narrower classes, and 512-bit adds: light work on every core */
		break;
	}
	return false;
}

/* A licence for load l: another heavy 512-bit load's accepted clock below its scalar one. */
static bool licence_seen(const struct peak_freq_load_clock *clocks, size_t l)
{
	for (size_t o = 0; o < PEAK_FREQ_LOAD_COUNT; o++) {
		const struct peak_freq_load_clock *c = &clocks[o];
		if (o != l && peak_freq_load_licenses((enum peak_freq_load)o) && c->ok &&
		    c->ghz < c->ghz_scalar * (1 - PEAK_FREQ_LOAD_TOL))
			return true;
	}
	return false;
}

unsigned peak_freq_load_refuse_unexplained(struct peak_freq_load_clock *clocks)
{
	bool refuse[PEAK_FREQ_LOAD_COUNT] = {false};
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++) /* judged before any is refused */
		refuse[l] = clocks[l].ok &&
			    clocks[l].ghz < PEAK_FREQ_LOAD_FLOOR * clocks[l].ghz_scalar &&
			    !licence_seen(clocks, l);
	unsigned refused = 0;
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++) {
		struct peak_freq_load_clock *c = &clocks[l];
		if (!refuse[l])
			continue;
		c->ok = false;
		(void)snprintf(c->why, sizeof c->why,
			       "%.2f GHz is %.2f of the imul clock %.2f, and no heavy 512-bit "
			       "load's licence was seen",
			       c->ghz, c->ghz / c->ghz_scalar, c->ghz_scalar);
		refused++;
	}
	return refused;
}

void peak_freq_load_clock(enum peak_freq_load load, double duration_s, unsigned trials,
			  struct peak_freq_load_clock *c)
{
	*c = (struct peak_freq_load_clock){0};
	if (!peak_freq_load_runs_here(load)) {
		(void)snprintf(c->why, sizeof c->why, "no %s chain on this CPU",
			       peak_freq_load_name(load));
		return;
	}
	/* The plain chain first, before any wide instruction has run, and again at the end
	 * (the best of the two: a licence held over from earlier code only slows it); the
	 * lighter density before the full one. */
	c->ghz_scalar = peak_freq_load_ghz(PEAK_FREQ_LOAD_NONE, PEAK_FREQ_FULL, duration_s, trials);
	c->ghz_light = peak_freq_load_ghz(load, PEAK_FREQ_LIGHT, duration_s, trials);
	c->ghz = peak_freq_load_ghz(load, PEAK_FREQ_FULL, duration_s, trials);
	c->ghz_scalar = fmax(c->ghz_scalar, peak_freq_load_ghz(PEAK_FREQ_LOAD_NONE, PEAK_FREQ_FULL,
							       duration_s, trials));
	(void)peak_freq_load_check(c);
}
