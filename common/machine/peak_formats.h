/* The machine's peak per number format (FP64, FP32, FP16, BF16, INT8) and unit kind (vector
 * or matrix): one entry per instruction form a cpubench row runs, with its per-core
 * per-cycle rate, the clock it runs at, the peak for a number of threads, and why it is
 * unsupported where it is. peakinfo's format table, cpubench's `theoretical` for its
 * format rows and the report read it (docs/cpu.md, "Number formats"). The list is built by
 * the architecture's own file: peak_formats_x86.c, peak_formats_arm64.c. */
#ifndef PEAK_FORMATS_H
#define PEAK_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_freq_load.h"
#include "peak_peak.h"

enum peak_number_format {
	PEAK_FMT_FP64,
	PEAK_FMT_FP32,
	PEAK_FMT_FP16,
	PEAK_FMT_BF16,
	PEAK_FMT_INT8,
	PEAK_FMT_COUNT
};

/* Vector units (SIMD registers: AVX-512, NEON, SVE) or matrix units (AMX tiles; Arm's
 * BFMMLA/SMMLA, which multiply 2x4 by 4x2 blocks inside a vector register, count as
 * matrix). */
enum peak_format_unit { PEAK_FMT_VECTOR, PEAK_FMT_MATRIX, PEAK_FMT_UNIT_COUNT };

/* Sizes of the entry's strings. */
#define PEAK_FMT_NAME_LEN   32
#define PEAK_FMT_NOTE_LEN   200
/* Entries a list holds at most (x86 has 15 forms, arm64 about 8). */
#define PEAK_FMT_MAX        24

struct peak_format_entry {
	enum peak_number_format format;
	enum peak_format_unit unit;
	char isa[PEAK_FMT_NAME_LEN];     /* the ISA extension: "avx512_bf16", "avx_vnni", "amx",
					  * "avx512" (FP64/FP32), "neon", "sve", "i8mm" */
	char variant[PEAK_FMT_NAME_LEN]; /* cpubench's row variant ("avx512_bf16_dot",
					  * "amx_int8_tile_ss", "avx512_dp_fma"): the names are
					  * fixed, the report keys on them */
	const char *test;                /* cpubench's test: "flops" (FP formats, GFLOPS) or
					  * "iops" (INT8, GIOPS) */
	double ops_per_cycle;            /* per core per cycle, counted as the instruction
					  * defines (a multiply-add is 2); 0 unknown */
	enum peak_source rate_source;    /* TABLE, MEASURED (the probe corrected or filled it),
					  * CONFIG */
	bool table_corrected;            /* the probe replaced the table's rate (both figures in
					  * rate_note and peak.table_corrected) */
	char rate_note[PEAK_FMT_NOTE_LEN]; /* where the rate comes from: the source named */
	double ghz;                      /* the clock the peak uses; 0 unknown */
	char clock_key[PEAK_FMT_NAME_LEN]; /* the context key it comes from: "cpu.ghz" until a
					    * clock under the format is measured, then
					    * "cpu.clock_ghz.amx" and the like */
	enum peak_freq_load load;        /* the loaded chain that reads the clock under this
					  * form (peak_freq_load.h); PEAK_FREQ_LOAD_NONE: the
					  * plain clock (cpu.ghz) is its clock */
	unsigned threads;                /* the peak's threads (cores running the rows) */
	double peak_g_per_s;             /* ops_per_cycle x ghz x threads / 1: GFLOPS or GIOPS;
					  * 0 unknown or unsupported */
	bool supported;                  /* this CPU and OS run the form */
	char reason[PEAK_FMT_NOTE_LEN];  /* unsupported: why ("avx512_bf16 not reported by this
					  * CPU", "AMX: XTILEDATA not permitted: ..."); or, when
					  * supported with an unknown rate, why it is unknown */
};

struct peak_format_list {
	size_t n;
	struct peak_format_entry e[PEAK_FMT_MAX];
};

/* "fp64", "fp32", "fp16", "bf16", "int8". */
const char *peak_format_name(enum peak_number_format f);
/* "vector", "matrix". */
const char *peak_format_unit_name(enum peak_format_unit u);
/* "GFLOPS" for the FP formats, "GIOPS" for INT8. */
const char *peak_format_rate_unit(enum peak_number_format f);

/* This machine's entries for `threads` threads (0: m->cores), every form of the
 * architecture listed, unsupported ones with their reason, each at m->ghz (clock_key
 * "cpu.ghz") until a clock under it is set (peak_format_set_clock). m is after
 * peak_machine_init_cpu: its uarch entry (corrected by the probe) gives the rates.
 * Defined per architecture (peak_formats_x86.c, peak_formats_arm64.c). */
void peak_formats_list(const struct peak_machine *m, unsigned threads,
		       struct peak_format_list *out);

/* The entry of that cpubench variant, or NULL. */
const struct peak_format_entry *peak_formats_find(const struct peak_format_list *l,
						  const char *variant);
/* Set an entry's clock (GHz > 0) and the key it came from, and recompute its peak. */
void peak_format_set_clock(struct peak_format_entry *e, double ghz, const char *clock_key);

/* Shared by the architectures' lists (peak_formats.c): append one entry (NULL when full),
 * its peak computed from rate, m's clock and threads; supported false when reason is not
 * NULL. */
struct peak_format_entry *peak_formats_add(struct peak_format_list *l,
					   const struct peak_machine *m, unsigned threads,
					   enum peak_number_format f, enum peak_format_unit u,
					   const char *isa, const char *variant, double ops_per_cycle,
					   const char *rate_note, const char *reason);
/* Append the FP64 and FP32 vector entries: the widest ISA this CPU runs (peak_isa.h) and
 * its FMA (or add+mul) rate from m's uarch entry; every architecture's list starts so. */
void peak_formats_add_fp(struct peak_format_list *l, const struct peak_machine *m,
			 unsigned threads);

#endif
