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

enum peak_freq_chain { PEAK_FREQ_IMUL, PEAK_FREQ_ADDSD };

/* The chain of that kind: best GHz of `trials` runs of about duration_s each (after a
 * warm-up that sizes them); samples_ghz (NULL or room for trials values) receives every
 * run's GHz. 0 on failure or with a zero latency. */
double peak_freq_measure(enum peak_freq_chain chain, unsigned latency_cycles, double duration_s,
			 unsigned trials, double *samples_ghz);

#endif
