/* The clock while a vector class's heavy instructions run. Intel cores lower the clock
 * under dense 256- and 512-bit FP and integer-multiply work (the AVX "frequency licences"
 * of Intel's optimization manual), so a peak for those rows at the scalar clock is too
 * high. The reading: the dependent imul r64 chain (3 cycles a link on every x86-64 core,
 * on Intel's port 1, which the 512-bit FMA and multiply units do not use) with independent
 * vector instructions of the class between its links, below the unit's saturation; the
 * chain bounds the loop, so cycles = links x 3 and no vector latency enters the figure.
 * Checked before it is believed (peak_freq_load_clock). */
#ifndef PEAK_FREQ_LOAD_H
#define PEAK_FREQ_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The work between the chain's links. NONE: the plain chain, the same loop with nothing
 * between its links: the scalar clock every load's clock is checked against.
 * Every vector class cpubench and linpack clock has a load: no clock that enters a peak is
 * timed at an instruction latency from a table or the code (the Zen 5 record: vpaddq takes
 * 2 cycles there, and a chain timed at 1 read half the clock). On Intel's cores the 128-
 * and 256-bit instructions may issue to port 1 beside imul (uops.info); the chain is the
 * loop's oldest instruction whenever it is ready, so it should win that port, and where it
 * does not the two densities disagree and the reading is refused: the rows then stand at
 * the scalar clock (peak_freq_load_check). */
enum peak_freq_load {
	PEAK_FREQ_LOAD_NONE,
	PEAK_FREQ_LOAD_AVX512_FMA,  /* vfmadd231pd zmm */
	PEAK_FREQ_LOAD_AVX512_IMUL, /* vpmulld zmm */
	/* The number formats (issue 37): each may hold a licence of its own. Densities as the
	 * FMA load's (2 and 1.5 a link: at most one unit's rate), bar AMX's. */
	PEAK_FREQ_LOAD_AVX512_BF16, /* vdpbf16ps zmm */
	PEAK_FREQ_LOAD_AVX512_VNNI, /* vpdpbusd zmm */
	PEAK_FREQ_LOAD_AVX512_FP16, /* vfmadd231ph zmm */
	/* tdpbf16ps: one a 8 links (24 cycles) and one a 16, below the tile unit's one per 16
	 * cycles (Intel's optimization manual), so the tiles never back up into the chain. */
	PEAK_FREQ_LOAD_AMX,
	/* The narrower classes and the 512-bit integer adds (issue 41): no instruction waits on
	 * another long enough to delay the chain (peak_freq_load_x86.c). */
	PEAK_FREQ_LOAD_SSE_FP,     /* addpd xmm */
	PEAK_FREQ_LOAD_SSE_INT,    /* paddq xmm */
	PEAK_FREQ_LOAD_AVX_FP,     /* vmulpd ymm: a heavy 256-bit FP op on AVX-only cores too */
	PEAK_FREQ_LOAD_AVX2_INT,   /* vpaddq ymm */
	PEAK_FREQ_LOAD_AVX512_INT, /* vpaddq zmm */
	PEAK_FREQ_LOAD_COUNT
};

/* Vector instructions per chain link: the class's density (FULL) and a lighter one
 * (LIGHT), which must read the same clock if the chain, not the vector work, bounds the
 * loop, and if both hold the class's licence. FMA: 2 a link and 1.5 (0.67 and 0.5 a
 * cycle: below one unit's 1 a cycle, as Zen 4 runs zmm FMAs; at or above the one heavy
 * instruction every two cycles Skylake-SP needs before it lowers the clock to the
 * licence, as T. Downs measured, travisdowns.github.io; the Intel record's core lowered
 * it at 0.25 a cycle already). vpmulld: 1 a link and 1 every two links (0.33 and 0.17 a
 * cycle: it runs at most one a cycle, as two micro-ops, on Intel's cores by uops.info).
 * Readings that disagree are refused, and the rows stand at the scalar clock. */
enum peak_freq_density { PEAK_FREQ_FULL, PEAK_FREQ_LIGHT };

/* Chain links per iteration of a loaded chain (cpubench's CPU_CHAIN_STEPS). */
#define PEAK_FREQ_LOAD_LINKS 16
/* The chain's start and multiplier: after n links it holds K^n (mod 2^64). */
#define PEAK_FREQ_LOAD_START 1u
#define PEAK_FREQ_LOAD_K     0x9E3779B97F4A7C15ull

/* A reading is refused when two readings that must agree differ by more than this. */
#define PEAK_FREQ_LOAD_TOL 0.03
/* A load's clock under this fraction of the scalar clock is believed only where a licence
 * explains it: another load of heavy 512-bit work (peak_freq_load_licenses) was seen below
 * the scalar clock on this core (a core that lowers its clock for vector work does so for
 * its 512-bit FMAs and multiplies first). Intel's deepest 256-bit licences are above it
 * (Skylake-SP's AVX2 heavy bins, in its specification update, are 0.8-0.9 of the non-AVX ones); the
 * Zen 5 record's vpaddq chains at a claimed latency read 0.49 beside a 512-bit FMA clock of 1.00.
 */
#define PEAK_FREQ_LOAD_FLOOR 0.80

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
	double ghz;        /* the full-density reading: the clock under the load */
	double ghz_light;  /* the same at the lighter density */
	double ghz_scalar; /* the plain chain, before and after the loaded readings (the best) */
	bool ok;           /* every check held: ghz is the load's clock */
	char why[96];      /* when refused, which check failed */
};

/* Measure and check one load's clock. Refused (ok false, why says which) when the two
 * densities disagree (the vector work delays the chain: a saturated unit, or a port it
 * shares with imul, as 256-bit FMAs share Intel's port 1; or the lighter density does not
 * hold the licence), or the load's clock is above the scalar one. A scalar control beside
 * the chain (vmulsd) was tried and dropped: on Intel's cores it shares port 1 with imul
 * and would refuse the zmm loads, which do not. */
void peak_freq_load_clock(enum peak_freq_load load, double duration_s, unsigned trials,
			  struct peak_freq_load_clock *c);
/* The checks alone, on readings already taken (the test's entry point). */
bool peak_freq_load_check(struct peak_freq_load_clock *c);
/* True for the loads whose lowered clock is a licence that explains another's: the heavy
 * 512-bit work (FMAs, multiplies, dot products) and AMX's tiles; not 512-bit adds. */
bool peak_freq_load_licenses(enum peak_freq_load load);
/* The floor rule on readings already checked (clocks: PEAK_FREQ_LOAD_COUNT entries): a load
 * below PEAK_FREQ_LOAD_FLOOR of its scalar clock that no other load's licence explains is
 * refused, its why saying so. Returns the number refused. */
unsigned peak_freq_load_refuse_unexplained(struct peak_freq_load_clock *clocks);

#endif
