/* Theoretical peaks: CPU (cores x GHz x ops per cycle for the ISA), memory (channels x
 * MT/s x 8), disk (rated MB/s, IOPS), network (link Gbit/s). Every input says where it
 * came from; peaks.conf and --set key=value override any of them. */
#ifndef PEAK_PEAK_H
#define PEAK_PEAK_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_context.h"
#include "peak_sysinfo.h"

enum peak_source {
	PEAK_SRC_UNKNOWN = 0,
	PEAK_SRC_MEASURED,
	PEAK_SRC_TABLE,   /* micro-architecture table, cpuid, SMBIOS, sysfs */
	PEAK_SRC_CONFIG,  /* peaks.conf or --set */
};

const char *peak_source_name(enum peak_source src);

struct peak_value {
	double value; /* meaningful only when source != PEAK_SRC_UNKNOWN */
	enum peak_source source;
	char note[96];
};

enum peak_isa { PEAK_ISA_SCALAR, PEAK_ISA_SSE, PEAK_ISA_AVX, PEAK_ISA_AVX2, PEAK_ISA_AVX512, PEAK_ISA_COUNT };
enum peak_precision { PEAK_PREC_SP, PEAK_PREC_DP, PEAK_PREC_COUNT };

const char *peak_isa_name(enum peak_isa isa);
/* Parse "scalar", "sse", "avx", "avx2", "avx512"; returns -1 when unknown. */
int peak_isa_parse(const char *name);
/* Vector width in bits (64 for scalar: one lane of a double). */
unsigned peak_isa_bits(enum peak_isa isa);
/* The one ISA-support check. Features an instruction sequence needs, as a bit mask; each
 * user names what its instructions use (an AVX2 integer kernel needs AVX2, not FMA). */
enum peak_feature {
	PEAK_FEAT_SSE2 = 1u << 0,
	PEAK_FEAT_SSE41 = 1u << 1, /* pmulld */
	PEAK_FEAT_AVX = 1u << 2,
	PEAK_FEAT_AVX2 = 1u << 3,
	PEAK_FEAT_FMA = 1u << 4, /* FMA3 on ymm state: vfmadd231sd/pd */
	PEAK_FEAT_AVX512F = 1u << 5,
	PEAK_FEAT_AVX512DQ = 1u << 6, /* vpmullq */
};
struct peak_isa_flags;
/* True when flags f (CPU and OS state, as peak_isa_detect or /proc/cpuinfo give them) hold
 * every feature of need; else false and reason names the first one missing: "avx2 not
 * reported by this CPU", "avx512f not enabled by the OS (XCR0)" (when warnings carries
 * the OS note) or "fma unknown: no ISA flags found" (warnings says the flags are unknown).
 * warnings may be NULL. */
bool peak_features_ok(const struct peak_isa_flags *f, const char *warnings, unsigned need,
		      char *reason, size_t reason_len);
/* peak_features_ok for this process (flags detected once). */
bool peak_cpu_can_run(unsigned need, char *reason, size_t reason_len);
/* The features an ISA's own instructions need: sse2, avx, avx2, avx512f (none for scalar). */
unsigned peak_isa_features(enum peak_isa isa);
/* True when this CPU (and OS) can run the ISA's peak kernels; reason says why not. AVX2's
 * peak is FMA's (peak_cpu_flops_per_cycle), so AVX2 here also needs FMA. */
bool peak_isa_supported(const struct peak_sysinfo *si, enum peak_isa isa, char *reason,
			size_t reason_len);

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
	char note[320];           /* measured: the per-cycle figures behind the units */
};
/* Every count above that is 0 (where the ISA exists) is unknown: the peaks that need it
 * are unknown, never a guess. */

/* The micro-architecture entry for this CPU (vendor, family, model, stepping), or, when
 * the table lacks it, the "unknown" entry (source PEAK_SRC_UNKNOWN, every count 0);
 * peak_machine_init then measures it (peak_uarch_probe.h). */
void peak_uarch_lookup(const struct peak_sysinfo *si, struct peak_uarch *u);
/* The table entry of that name (as peaks.conf's cpu.uarch gives it); false if none. */
bool peak_uarch_by_name(const char *name, struct peak_uarch *u);
/* True for a table entry's name or "measured": what cpu.uarch accepts. */
bool peak_uarch_name_known(const char *name);

/* Peaks configuration: key=value overrides from peaks.conf and --set. */
#define PEAK_CONFIG_MAX 32
struct peak_config {
	size_t n;
	char key[PEAK_CONFIG_MAX][48];
	double value[PEAK_CONFIG_MAX];
	char origin[PEAK_CONFIG_MAX][64]; /* "peaks.conf:3" or "--set" */
	char uarch[32];          /* cpu.uarch: a table entry's name or "measured"; "" unset */
	char uarch_origin[64];
};

/* Known keys (docs/peaks-conf.md): cpu.uarch (a name, not a number), cpu.cores, cpu.ghz, cpu.fma_units, cpu.fma512_units,
 * mem.channels, mem.mts, mem.gbps, disk.mbps, disk.iops, net.gbps. NULL-terminated. */
extern const char *const peak_config_keys[];

void peak_config_init(struct peak_config *cfg);
/* Load a peaks.conf file ("key = value", '#' comments). A missing file is not an error
 * when optional is true. Returns 0, or -1 with "peaks.conf:LINE: reason" in err. */
int peak_config_load(struct peak_config *cfg, const char *path, bool optional, char *err,
		     size_t err_len);
/* Apply one "key=value" (from --set). Returns 0, or -1 with a reason in err. */
int peak_config_set(struct peak_config *cfg, const char *assignment, char *err, size_t err_len);
/* Look up a key; returns true and the value when set. */
bool peak_config_get(const struct peak_config *cfg, const char *key, double *value);
/* Default search: $PEAKBENCH_CONF, else ./peaks.conf. Loads it when present. */
int peak_config_load_default(struct peak_config *cfg, char *err, size_t err_len);

/* All peak inputs of this machine. */
struct peak_machine {
	struct peak_uarch uarch;
	struct peak_value cores;        /* cores allowed to this process */
	struct peak_value ghz;          /* measured (dependent chain) unless overridden */
	struct peak_value nominal_ghz;  /* cpuid / brand string */
	struct peak_value mem_channels;
	struct peak_value mem_mts;
	struct peak_value mem_gbps;     /* channels x MT/s x 8 / 1000, or mem.gbps */
	struct peak_value disk_mbps;
	struct peak_value disk_iops;
	struct peak_value net_gbps;     /* link speed of the first up interface with a speed */
	char net_iface[32];
	/* The two frequency witnesses behind ghz (unknown when cpu.ghz is configured). */
	struct peak_value ghz_imul;     /* imul r64,r64 chain */
	struct peak_value ghz_addsd;    /* addsd chain (unknown when the FP add latency is) */
	double freq_spread_pct;         /* |imul - addsd| / max x 100; negative when unknown */
	unsigned freq_trials;           /* runs per chain; ghz_* are the best of them */
};

/* Fill every input: measure the frequency (unless cpu.ghz is configured), read SMBIOS
 * and sysfs, apply the config. root as in peak_sysinfo_collect. */
void peak_machine_init(struct peak_machine *m, const struct peak_sysinfo *si,
		       const struct peak_config *cfg, const char *root);

/* Floating-point operations per cycle per core for kernels of that ISA and precision.
 * avx2 and avx512 kernels use FMA: lanes x 2 x FMA units. scalar, sse and avx are the
 * baseline x86-64 / AVX1 instruction sets without FMA: lanes x add+mul ops per cycle.
 * Ops wider than a pipe run at pipe_bits/width. 0 if the ISA is unsupported by the uarch. */
double peak_cpu_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				enum peak_precision prec);
/* Flops per cycle per core of an add+mul kernel (no FMA, adds and muls 1:1) at that ISA's
 * width: lanes x addmul_ops (512-bit: addmul512_ops). */
double peak_cpu_addmul_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				       enum peak_precision prec);
/* Integer adds per cycle per core on lanes of lane_bits (32 or 64) for that ISA. */
double peak_cpu_int_ops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				  unsigned lane_bits);

/* Theoretical GFLOPS for `cores` cores at `ghz`. */
double peak_cpu_gflops(const struct peak_uarch *u, enum peak_isa isa, enum peak_precision prec,
		       unsigned cores, double ghz);

/* Add the peak inputs (value and source of each) to the context block. */
void peak_machine_to_context(const struct peak_machine *m, struct peak_context *ctx);

#endif
