/* CPU frequency from dependent-latency chains written in inline asm, so the compiler can
 * neither reorder nor shorten them: each instruction needs the previous one's result, so a
 * chain of N instructions of latency L takes N x L cycles whatever the core's width.
 * imul r64,r64 (3 cycles) is not folded at rename the way add-immediate chains are on
 * recent cores; addsd (4 cycles on Skylake, 3 on Zen) is an independent second witness. */
#include <stddef.h>
#include <stdint.h>

#include "peak_freq.h"
#include "peak_time.h"

/* Instructions per loop iteration: long enough that the loop's dec/jnz, which run on other
 * ports in parallel with the chain, never shorten or lengthen it. */
#define CHAIN_UNROLL 256
#define STR_(x)      #x
#define STR(x)       STR_(x)

/* clang-format off */
static void chain_imul(uint64_t iters)
{
	uint64_t x = 0x9e3779b97f4a7c15u, n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(CHAIN_UNROLL) "\n\t"
			 "imulq %[x], %[x]\n\t"
			 ".endr\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 : [x] "+r"(x), [n] "+r"(n)
			 :
			 : "cc");
}

static void chain_addsd(uint64_t iters)
{
	/* 1.0 + 2^-60 rounds back to 1.0: no denormals, no growth, same latency forever. */
	double x = 1.0, y = 0x1p-60;
	uint64_t n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(CHAIN_UNROLL) "\n\t"
			 "addsd %[y], %[x]\n\t"
			 ".endr\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 : [x] "+x"(x), [n] "+r"(n)
			 : [y] "x"(y)
			 : "cc");
}

/* clang-format on */

static uint64_t time_chain(enum peak_freq_chain chain, uint64_t iters)
{
	uint64_t t0 = peak_time_now_ns();
	if (chain == PEAK_FREQ_IMUL)
		chain_imul(iters);
	else
		chain_addsd(iters);
	return peak_time_now_ns() - t0;
}

double peak_freq_measure(enum peak_freq_chain chain, unsigned latency_cycles, double duration_s,
			 unsigned trials, double *samples_ghz)
{
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
	const double cycles = (double)iters * CHAIN_UNROLL * latency_cycles;
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
