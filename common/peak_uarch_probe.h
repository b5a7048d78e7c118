/* Micro-architecture measured, for a CPU the table does not know: how many instructions of
 * each class the core retires per cycle (throughput with independent chains, divided by
 * the imul-chain clock) and the FP add latency, each rounded to the integer that is the
 * architectural fact, or refused as unknown when the figure sits between two integers. */
#ifndef PEAK_UARCH_PROBE_H
#define PEAK_UARCH_PROBE_H

#include <stdbool.h>

#include "peak_isa.h"
#include "peak_sysinfo.h"
#include "peak_uarch.h"

/* What the probe measured. Throughputs are instructions per cycle, latencies cycles;
 * NAN where not measured (the ISA is missing or the run failed). */
struct peak_uarch_rates {
	double ghz;              /* imul r64 chain (latency 3): the clock everything divides by */
	double fma256, fma512;   /* vfmadd231pd ymm / zmm */
	double addmul128;        /* addpd + mulpd xmm, 1:1 (legacy SSE2, runs on every x86-64) */
	double addmul256, addmul512;
	double int_add;          /* add r64, r64 */
	double vint_add128, vint_add256, vint_add512; /* paddd xmm, vpaddd ymm / zmm */
	double vint_mul128;      /* pmulld xmm (SSE4.1) */
	double imul64;           /* imul r64, r64, imm */
	double fadd_lat64, fadd_lat256, fadd_lat512;  /* addsd, vaddpd ymm / zmm chains */
};

/* How far a figure may sit from an integer k >= 1 and still be read as k units. Noise
 * (steal, an SMT sibling of another tenant, interrupts) only ever slows a loop, so the
 * band is lopsided: down to 8% below k (at most 0.3), but only 3% above it, the timer's
 * and clock's own error. 3.19 is then neither 3 (6% above) nor 4 (20% below): refused,
 * rather than read as 3 units of a 4-unit core and turning every honest figure into an
 * above_peak alarm. */
#define PEAK_UNITS_BELOW_TOL 0.08
#define PEAK_UNITS_ABOVE_TOL 0.03
#define PEAK_UNITS_ABS_TOL   0.3

/* The integer unit count a measured per-cycle figure stands for: the smallest integer k
 * at or above the figure whose band holds it. Returns false (units 0) for a figure that
 * is not finite, below 0.5, or in no integer's band. */
bool peak_uarch_round_units(double per_cycle, unsigned *units);

/* Run the probe on this CPU (the calling thread, ~0.3 s). si says which ISAs may run.
 * Returns 0, or -1 when the clock itself could not be measured. */
int peak_uarch_probe(const struct peak_sysinfo *si, struct peak_uarch_rates *r);

/* Turn measured figures into a micro-architecture entry (name "measured", source
 * measured, a note with the figures). A class whose figure is refused gets 0 units, so the
 * peaks that need it are unknown rather than invented. Pure: unit-tested on fake rates. */
void peak_uarch_from_rates(const struct peak_uarch_rates *r, struct peak_uarch *u);

/* A table entry whose sources leave some counts unknown (0 where the ISA exists here):
 * true when any is. */
bool peak_uarch_has_unknown(const struct peak_uarch *u, const struct peak_sysinfo *si);

/* Fill the table entry's unknown counts from a measured entry (those the probe could
 * determine), naming them in the entry's note. Pure. */
void peak_uarch_fill_unknown(struct peak_uarch *u, const struct peak_uarch *measured,
			     const struct peak_sysinfo *si);

#endif
