/* The probe: how many instructions of each class the core retires per cycle (throughput
 * with independent chains, divided by the imul-chain clock) and the FP add latency, each
 * rounded to the integer that is the architectural fact, or refused as unknown when the
 * figure sits between two integers. It measures a CPU the table does not know, and checks
 * the table on every run for one it does (peak_uarch_check.h). */
#ifndef PEAK_UARCH_PROBE_H
#define PEAK_UARCH_PROBE_H

#include <stdbool.h>

#include "peak_freq_load.h"
#include "peak_isa.h"
#include "peak_loops.h"
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
	double vint_mul256, vint_mul512; /* vpmulld ymm / zmm */
	double imul64;           /* imul r64, r64, imm */
	double fadd_lat64, fadd_lat256, fadd_lat512;  /* addsd, vaddpd ymm / zmm chains */
	/* aarch64 (NAN elsewhere): NEON fmla/fmls .2d, fadd/fsub + fmul .2d (1:1), add .4s,
	 * mul .4s; with int_add (add x), imul64 (mul x) and fadd_lat64 (fadd d) above. */
	double neon_fma, neon_addmul, neon_vadd, neon_vmul;
	/* SVE at this process's vector length, sve_vl_bits (NAN without SVE, or a length above
	 * PEAK_LOOP_SVE_MAX_BITS): fmad .d, fadd/fsub + fmul .d (1:1), add .s, mul .s and
	 * mul .d, instructions per cycle. */
	double sve_fma, sve_addmul, sve_vadd, sve_vmul, sve_vmul64;
	double sve_vl_bits; /* not a figure: the length the SVE figures were measured at */
	/* x86 number formats (peak_loops_fmt_x86.c; NAN where the CPU lacks the extension),
	 * instructions per cycle: vfmadd213ph zmm, vdpbf16ps zmm / ymm, vpdpbusd zmm / ymm
	 * (EVEX), {vex} vpdpbusd ymm. AMX has no class: a tile multiply every 16 cycles is
	 * no whole count (its rate rests on the table and the row's own figure). */
	double fp16_fma512, bf16_dot512, bf16_dot256, vnni512, vnni256, avxvnni;
	/* Not figures: the clock of each load (peak_freq_load.h) its classes (fma512 and
	 * addmul512, vmul512) were divided by instead of ghz, once that load's checks
	 * held; NAN when not measured or refused (those classes then divide by ghz). */
	double load_ghz[PEAK_FREQ_LOAD_COUNT];
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

/* What one probe run measured: the best figure of each class over all passes (what the
 * unit counts are read from), and each pass's own figures (what the table is checked
 * against: peak_uarch_check.h). */
#define PEAK_PROBE_MAX_PASSES 10
struct peak_probe {
	struct peak_uarch_rates best;
	struct peak_uarch_rates pass[PEAK_PROBE_MAX_PASSES]; /* NAN where a pass skipped it */
	unsigned passes;
	double seconds; /* how long the probe took */
};

/* On aarch64 the clock is the add x chain (one cycle a link) and the classes are the
 * aarch64 loops: the integer ones above, the NEON figures (note names neon_fma,
 * neon_addmul, neon_vadd, neon_vmul) and, where SVE runs, the SVE ones (sve_fma,
 * sve_addmul, sve_vadd, sve_vmul, sve_vmul64; recorded passes give the length they ran at
 * as sve_vl_bits=N, one value). */
/* Run the probe on this CPU (the calling thread, about a second). si says which ISAs may
 * run. Returns 0, or -1 when the clock itself could not be measured. */
int peak_uarch_probe(const struct peak_sysinfo *si, struct peak_probe *p);

/* Recorded passes instead of a run (tests and replays of recorded machines): spec is
 * "name=v1,v2,...;name=..." with the note's figure names (fma256, vmul128, add64,
 * addsd_lat, ...), one value per pass; the best of each is the largest (the smallest for a
 * latency). Returns 0, or -1 with the reason in err. */
int peak_uarch_probe_parse(const char *spec, struct peak_probe *p, char *err, size_t err_len);

/* A figure by its note name ("fma256", "vmul128", ...); NAN for an unknown name. */
double peak_uarch_rates_get(const struct peak_uarch_rates *r, const char *name);
/* The loop the probe times for the throughput figure of that name (the libpeak loop a
 * cpubench kernel of the class runs too); NULL for a latency or an unknown name. */
peak_loop_fn peak_uarch_probe_loop(const char *name);

/* The class's loop timed now on the calling thread (the caller's ISA check passed):
 * instructions per ns, best of three runs of about 1 ms; NAN for no such class. Divided
 * by a clock read at the same moment it is the probe's figure then (cpubench reads it
 * after every repetition, beside the kernel's own rate). */
double peak_uarch_probe_rate_now(const char *name);

/* Turn measured figures into a micro-architecture entry (name "measured", source
 * measured, a note with the figures). A class whose figure is refused gets 0 units, so the
 * peaks that need it are unknown rather than invented. Pure: unit-tested on fake rates. */
void peak_uarch_from_rates(const struct peak_uarch_rates *r, struct peak_uarch *u);

#endif
