/* CPU frequency from dependent-latency chains written in inline asm, so the compiler can
 * neither reorder nor shorten them: each instruction needs the previous one's result, so a
 * chain of N instructions of latency L takes N x L cycles whatever the core's width. The
 * chains themselves are per architecture: peak_freq_x86.c (imul r64, addsd) and
 * peak_freq_arm64.c (add x, fadd d). */
#include <stddef.h>
#include <stdint.h>

#include "peak_freq.h"
#include "peak_time.h"

static uint64_t time_chain(enum peak_freq_chain chain, uint64_t iters)
{
	uint64_t t0 = peak_time_now_ns();
	if (chain == PEAK_FREQ_IMUL)
		peak_freq_chain_int(iters);
	else
		peak_freq_chain_fp(iters);
	return peak_time_now_ns() - t0;
}

double peak_freq_measure(enum peak_freq_chain chain, unsigned latency_cycles, double duration_s,
			 unsigned trials, double *samples_ghz)
{
#if PEAK_FREQ_INT_LATENCY
	/* This architecture's integer chain has one latency on every core (peak_freq.h). */
	if (chain == PEAK_FREQ_IMUL)
		latency_cycles = PEAK_FREQ_INT_LATENCY;
#endif
	if (latency_cycles == 0 || trials == 0 || !(duration_s > 0))
		return 0;
	/* Grow the iteration count until one run lasts a tenth of the target (this also warms
	 * the core up), then scale it to the target duration. */
	uint64_t iters = 64, ns = 0;
	const double target_ns = duration_s * 1e9;
	while (iters < (UINT64_C(1) << 40)) {
		ns = time_chain(chain, iters);
		if ((double)ns >= target_ns / 10)
			break;
		iters *= 4;
	}
	if (ns == 0)
		return 0;
	double scaled = (double)iters * target_ns / (double)ns;
	if (scaled >= 1)
		iters = (uint64_t)scaled;
	double best = 0;
	const double cycles = (double)iters * PEAK_FREQ_CHAIN_UNROLL * latency_cycles;
	for (unsigned t = 0; t < trials; t++) {
		ns = time_chain(chain, iters);
		double ghz = ns ? cycles / (double)ns : 0;
		if (samples_ghz)
			samples_ghz[t] = ghz;
		/* Best of several: an interrupt or a stolen time slice only ever slows a run. */
		if (ghz > best)
			best = ghz;
	}
	return best;
}

double peak_freq_int_ghz(unsigned latency_cycles, double duration_s, unsigned trials)
{
	return peak_freq_measure(PEAK_FREQ_IMUL, latency_cycles, duration_s, trials, NULL);
}

double peak_freq_fp_ghz(unsigned latency_cycles, double duration_s, unsigned trials)
{
	return peak_freq_measure(PEAK_FREQ_ADDSD, latency_cycles, duration_s, trials, NULL);
}
