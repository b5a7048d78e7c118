/* CPU frequency measured with dependent-latency chains: an instruction of known latency
 * repeated so each depends on the previous one; cycles = chain length x latency.
 * add-immediate is avoided: some cores fold dependent add-immediates at rename. */
#ifndef PEAK_FREQ_H
#define PEAK_FREQ_H

#include <stdint.h>

/* GHz from a chain of imul r64,r64 (latency_cycles each, 3 on every x86-64 since Core 2
 * and Zen). Best of `trials` runs of about duration_s each; 0 on failure. */
double peak_freq_int_ghz(unsigned latency_cycles, double duration_s, unsigned trials);

/* GHz from a chain of scalar double adds (addsd; 4 cycles on Skylake, 3 on Zen). */
double peak_freq_fp_ghz(unsigned latency_cycles, double duration_s, unsigned trials);

/* PEAK_FREQ_IMUL: the integer chain, imul r64 on x86-64 and add x on aarch64 (one cycle a
 * link on every Arm core; AArch64 has no add fold at rename that we know of, and its mul
 * latency differs by core). PEAK_FREQ_ADDSD: the scalar FP add chain (addsd, fadd d). */
enum peak_freq_chain { PEAK_FREQ_IMUL, PEAK_FREQ_ADDSD };

/* The integer chain's latency when the architecture fixes it (aarch64: 1), which then
 * replaces the caller's latency_cycles (written for x86's imul); 0 on x86-64. */
#if defined(__aarch64__)
#define PEAK_FREQ_INT_LATENCY 1
#else
#define PEAK_FREQ_INT_LATENCY 0
#endif
/* imul r64's latency: 3 cycles on Intel's cores since Core 2 and AMD's since Zen
 * (uops.info): the x86-64 anchor every clock is timed at, not a table's entry. */
#define PEAK_FREQ_IMUL_LATENCY 3

/* Instructions per loop iteration of a chain: long enough that the loop's own counter and
 * branch, which run on other pipes in parallel with the chain, never shorten or lengthen
 * it. */
#define PEAK_FREQ_CHAIN_UNROLL 256
/* The architecture's chains (peak_freq_x86.c, peak_freq_arm64.c): iters x
 * PEAK_FREQ_CHAIN_UNROLL dependent instructions. */
void peak_freq_chain_int(uint64_t iters);
void peak_freq_chain_fp(uint64_t iters);

/* The chain of that kind: best GHz of `trials` runs of about duration_s each (after a
 * warm-up that sizes them); samples_ghz (NULL or room for trials values) receives every
 * run's GHz. 0 on failure or with a zero latency. */
double peak_freq_measure(enum peak_freq_chain chain, unsigned latency_cycles, double duration_s,
			 unsigned trials, double *samples_ghz);

#endif
