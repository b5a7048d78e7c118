/* The clock while a vector class's heavy instructions run. Intel cores lower the clock
 * under dense 256- and 512-bit FP and integer-multiply work (the AVX "frequency licences"
 * of Intel's optimization manual), so a peak for those rows at the scalar clock is too
 * high. The reading: the dependent imul r64 chain (3 cycles a link on every x86-64 core,
 * on a port the vector units do not use) with independent vector instructions of the class
 * between its links, below the unit's saturation; the chain bounds the loop, so cycles =
 * links x 3 and no vector latency enters the figure. Checked before it is believed
 * (peak_freq_load_clock). */
#ifndef PEAK_FREQ_LOAD_H
#define PEAK_FREQ_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The work between the chain's links. NONE: the plain chain. SCALAR: vmulsd xmm, the
 * control (scalar code holds no licence, so it must read the plain chain's clock). */
enum peak_freq_load {
	PEAK_FREQ_LOAD_NONE,
	PEAK_FREQ_LOAD_SCALAR,   /* vmulsd xmm */
	PEAK_FREQ_LOAD_AVX2_FMA, /* vfmadd231pd ymm */
	PEAK_FREQ_LOAD_AVX512_FMA, /* vfmadd231pd zmm */
	PEAK_FREQ_LOAD_AVX2_IMUL,  /* vpmulld ymm */
	PEAK_FREQ_LOAD_AVX512_IMUL, /* vpmulld zmm */
	PEAK_FREQ_LOAD_COUNT
};

/* Vector instructions per chain link: the class's own density (FULL) and half of it
 * (HALF), which must read the same clock if the chain, not the vector work, bounds the
 * loop. FMA classes run 2 a link (0.67 a cycle) at full, multiply classes 1 a link (0.33
 * a cycle: vpmulld runs at under one a cycle on Intel cores). */
enum peak_freq_density { PEAK_FREQ_FULL, PEAK_FREQ_HALF };

/* Chain links per iteration of a loaded chain (cpubench's CPU_CHAIN_STEPS). */
#define PEAK_FREQ_LOAD_LINKS 16
/* The chain's start and multiplier: after n links it holds K^n (mod 2^64). */
#define PEAK_FREQ_LOAD_START 1u
#define PEAK_FREQ_LOAD_K     0x9E3779B97F4A7C15ull

/* A reading is refused when two readings that must agree differ by more than this. */
#define PEAK_FREQ_LOAD_TOL 0.03

/* The load's name in flags and context keys (avx512_fma, ...). */
const char *peak_freq_load_name(enum peak_freq_load load);
/* True when this architecture has the load's chain and this CPU runs its instructions. */
bool peak_freq_load_runs_here(enum peak_freq_load load);
/* iters x PEAK_FREQ_LOAD_LINKS links with the load between them; returns the chain's
 * value (PEAK_FREQ_LOAD_K to the power of the links), 0 where the load has no chain. */
uint64_t peak_freq_load_run(enum peak_freq_load load, enum peak_freq_density d, uint64_t iters);
/* GHz of one load at one density: best of `trials` runs of about duration_s. 0 when it
 * cannot run here or the chain's value came out wrong. */
double peak_freq_load_ghz(enum peak_freq_load load, enum peak_freq_density d, double duration_s,
			  unsigned trials);

/* One load's clock and the readings that check it. */
struct peak_freq_load_clock {
	double ghz;         /* the full-density reading: the clock under the load */
	double ghz_half;    /* the same at half density */
	double ghz_scalar;  /* the plain chain */
	double ghz_control; /* the chain with scalar vmulsd at full density */
	bool ok;            /* every check held: ghz is the load's clock */
	char why[96];       /* when refused, which check failed */
};

/* Measure and check one load's clock. Refused (ok false, why says which) when the control
 * and the plain chain disagree (scalar work beside the chain slows it: the method does not
 * hold on this core), the two densities disagree (the vector work, not the chain, bounds
 * the loop), or the load's clock is above the scalar one. */
void peak_freq_load_clock(enum peak_freq_load load, double duration_s, unsigned trials,
			  struct peak_freq_load_clock *c);
/* The checks alone, on readings already taken (the test's entry point). */
bool peak_freq_load_check(struct peak_freq_load_clock *c);

#endif
