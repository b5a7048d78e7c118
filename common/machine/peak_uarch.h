/* The micro-architecture facts a CPU peak needs (units per cycle, latencies), where each
 * came from, and the table of the CPUs the sources cover (peak_uarch.c). */
#ifndef PEAK_UARCH_H
#define PEAK_UARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_path.h"

struct peak_sysinfo;

enum peak_source {
	PEAK_SRC_UNKNOWN = 0,
	PEAK_SRC_MEASURED,
	PEAK_SRC_TABLE,   /* micro-architecture table, cpuid, SMBIOS, sysfs */
	PEAK_SRC_CONFIG,  /* peaks.conf or --set */
	PEAK_SRC_PUBLISHED, /* the instance type's published limit (peak_cloud_limits.h) */
};

/* Micro-architecture facts the CPU peak needs (from a table keyed by vendor/family/model). */
struct peak_uarch {
	char name[32];          /* "skylake-server", "zen3", "measured", "unknown" */
	enum peak_source source;
	unsigned fma_units;     /* FMA pipes per core for the widest vector (1 or 2) */
	unsigned fma512_units;  /* FMA pipes for 512-bit ops (0: no AVX-512) */
	unsigned vec_int_add_units;    /* vector integer adds per cycle (128/256-bit) */
	unsigned vec512_int_add_units; /* for 512-bit */
	unsigned int_alu_units; /* scalar integer ALUs (adds per cycle) */
	unsigned vec_int_mul_units;    /* vector 32-bit integer multiplies per cycle */
	unsigned imul_units;    /* scalar imul r64 per cycle (1 on every sourced core) */
	unsigned fp_add_latency;  /* cycles of a scalar or xmm FP add (frequency chains); 0 unknown */
	unsigned fp_add256_latency; /* the same for vaddpd ymm; 0 unknown */
	unsigned fp_add512_latency; /* the same for vaddpd zmm; 0 unknown or no AVX-512 */
	unsigned imul_latency;    /* cycles of imul r64, r64 */
	unsigned pipe_bits;       /* width of one vector pipe: 128 on Zen 1 (256-bit ops take two
				   * passes), 256 elsewhere; wider ops run at pipe_bits/width */
	unsigned addmul_ops;      /* FP adds + muls per cycle in a 1:1 mix without FMA (scalar,
				   * SSE, AVX), at pipe width: Skylake 2, Alder Lake 3, Zen 4 */
	unsigned addmul512_ops;   /* the same for 512-bit ops (0: no AVX-512) */
	unsigned sve_fma_units;   /* aarch64: SVE FMLA/FMAD per cycle (0: no SVE or unknown) */
	unsigned sve_addmul_ops;  /* aarch64: SVE FADD/FSUB + FMUL per cycle in a 1:1 mix */
	unsigned sve_vec_int_add_units; /* aarch64: SVE ADD (vectors) per cycle */
	unsigned sve_vec_int_mul_units; /* aarch64: SVE MUL .s per cycle */
	unsigned sve_pipe_bits;   /* aarch64: width of one SVE pipe (V1 256, N2 and V2 128); the
				   * SVE counts above are instructions per cycle at a vector length
				   * up to this width (a wider vector takes more passes); measured:
				   * the vector length the probe ran at */
	/* Number formats (peak_uarch_formats.c, each with its source; docs/cpu.md): operations
	 * per cycle per core, counted as the instruction defines (a multiply-add is 2; a
	 * vpdpbusd byte product and its add are 2). 0 unknown or absent. */
	unsigned fp16_fma512_ops; /* vfmadd231ph zmm (AVX512-FP16) */
	unsigned bf16_dot512_ops; /* vdpbf16ps zmm (AVX512_BF16) */
	unsigned bf16_dot256_ops; /* vdpbf16ps ymm (AVX512_BF16 + VL) */
	unsigned vnni512_ops;     /* vpdpbusd zmm (AVX512_VNNI) */
	unsigned vnni256_ops;     /* vpdpbusd ymm (AVX512_VNNI + VL) */
	unsigned avxvnni_ops;     /* {vex} vpdpbusd ymm (AVX-VNNI) */
	unsigned amx_bf16_ops;    /* tdpbf16ps (AMX-BF16) */
	unsigned amx_int8_ops;    /* tdpbssd and its sign forms (AMX-INT8) */
	unsigned amx_fp16_ops;    /* tdpfp16ps (AMX-FP16) */
	const char *formats_source; /* where those counts come from; NULL when none is known */
	char note[PEAK_MSG_MAX];  /* measured: the per-cycle figures behind the units; or
				   * "cpu.uarch from" a whole peaks.conf path */
	char corrected[320];      /* counts the probe proved wrong and replaced, both numbers
				   * and the figures ("" when none: peak_uarch_check.h) */
	char probe_notes[320];    /* what the probe found and left alone */
};
/* Every count above that is 0 (where the ISA exists) is unknown: the peaks that need it
 * are unknown, never a guess. */

/* The micro-architecture entry for this CPU: the one its model (vendor, family, model,
 * stepping) names when its features and caches agree, else the one they fit
 * (peak_uarch_identity.h); or, when none is supported, the "unknown" entry (source
 * PEAK_SRC_UNKNOWN, every count 0): peak_machine_init then measures it
 * (peak_uarch_probe.h). Defined in peak_uarch_identity.c, with the check. */
void peak_uarch_lookup(const struct peak_sysinfo *si, struct peak_uarch *u);
/* The entry the model names, unchecked; false (u the "unknown" entry) when none does. */
bool peak_uarch_lookup_model(const struct peak_sysinfo *si, struct peak_uarch *u);
/* The table entry of that name (as peaks.conf's cpu.uarch gives it; "NAME-class" is
 * NAME's counts under that name); false if none. */
bool peak_uarch_by_name(const char *name, struct peak_uarch *u);
/* The i-th x86 table row's vendor and name; false past the last (tests). */
bool peak_uarch_entry_at(size_t i, const char **vendor, const char **name);
/* True for a table entry's name or "measured": what cpu.uarch accepts. */
bool peak_uarch_name_known(const char *name);

/* aarch64 cores by MIDR pair (peak_uarch_arm.c); each entry names its source. */
struct peak_uarch_arm {
	unsigned implementer, part; /* "CPU implementer", "CPU part" */
	const char *core;           /* "Neoverse-V1" */
	const char *systems;        /* where it is rented: "Graviton3" */
	unsigned neon_fma_pipes;    /* 128-bit pipes running NEON FMLA (per cycle) */
	unsigned sve_fma_pipes;     /* pipes running SVE FMLA; 0: no SVE or unknown */
	unsigned sve_pipe_bits;     /* width of one SVE FMLA pipe (V1 256, N2 and V2 128) */
	unsigned vint_add;          /* ASIMD integer adds per cycle */
	unsigned vint_mul;          /* ASIMD MUL .4s per cycle; 0 measured */
	unsigned addmul;            /* FADD + FMUL per cycle in a 1:1 mix */
	unsigned fadd_latency;      /* cycles of FADD (scalar and vector) */
	unsigned int_alu;           /* ADD x per cycle; 0 measured */
	unsigned imul;              /* MUL x per cycle; 0 measured (or not a whole number) */
	unsigned sve_addmul;        /* SVE FADD/FSUB + FMUL per cycle in a 1:1 mix; 0 measured */
	unsigned sve_vint_add;      /* SVE ADD per cycle; 0 measured */
	unsigned sve_vint_mul;      /* SVE MUL .s per cycle; 0 measured */
	const char *source;
	/* Number formats, instructions per cycle per core (NEON, 128-bit; peak_formats_arm64.c
	 * counts them as the instruction defines): 0 where the core lacks the instruction or
	 * no source we read gives it (formats_source says which). */
	unsigned bf16_dot;          /* BFDOT .4s (16 flop each) */
	unsigned bf16_mmla;         /* BFMMLA (32 flop each) */
	unsigned int8_dot;          /* SDOT .4s (32 ops each) */
	unsigned int8_mmla;         /* SMMLA (64 ops each) */
	const char *formats_source;
};
/* The entry of that implementer and part, or NULL. */
const struct peak_uarch_arm *peak_uarch_arm_find(unsigned implementer, unsigned part);
/* The entry of that core name ("Neoverse-N1"), or NULL. */
const struct peak_uarch_arm *peak_uarch_arm_by_name(const char *name);
/* "Neoverse-V1 (Graviton3)", or "HiSilicon part 0xd40" for a pair the table lacks. */
/* The MIDR implementer's name ("ARM", "Ampere", "HiSilicon"...); NULL when unknown. */
const char *peak_uarch_arm_implementer(unsigned implementer);
void peak_uarch_arm_core_name(unsigned implementer, unsigned part, char *out, size_t len);
/* Peak double-precision flops per cycle per core: NEON fmla .2d, SVE fmla .d (at the
 * pipes' width), and the larger of the two (sve: the CPU runs SVE). 0 when unknown. */
double peak_uarch_arm_neon_dp_flops_per_cycle(const struct peak_uarch_arm *a);
double peak_uarch_arm_sve_dp_flops_per_cycle(const struct peak_uarch_arm *a);
double peak_uarch_arm_dp_flops_per_cycle(const struct peak_uarch_arm *a, bool sve);
/* Operations one NEON number-format instruction performs, as the Arm ARM defines it (a
 * multiply-add is 2): BFDOT .4s 4 lanes x 2 bf16 products, BFMMLA a 2x4 by 4x2 product
 * into 2x2, SDOT .4s 4 lanes x 4 byte products, SMMLA 2x8 by 8x2 into 2x2. */
#define PEAK_ARM_BFDOT_OPS  16
#define PEAK_ARM_BFMMLA_OPS 32
#define PEAK_ARM_SDOT_OPS   32
#define PEAK_ARM_SMMLA_OPS  64
/* The generic micro-architecture entry (peak_uarch) of an Arm table entry. */
void peak_uarch_arm_fill(const struct peak_uarch_arm *a, struct peak_uarch *u);

#endif
