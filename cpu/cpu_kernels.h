/* cpubench kernels: a descriptor table of register-resident throughput kernels per ISA
 * (FMA, add+mul, integer add, integer multiply mix), each verified against a closed form. */
#ifndef CPU_KERNELS_H
#define CPU_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_freq_load.h"
#include "peak_loops.h"
#include "peak_peak.h"
#include "peak_uarch_probe.h"

/* The kernels are libpeak's instruction-class loops (peak_loops.h), the very loops the
 * probe measures the core with: 12 chains in vector registers, 10 in general-purpose
 * ones, PEAK_LOOP_STEPS dependent steps per chain per iteration. */
#define CPU_NACC          PEAK_LOOP_VCHAINS
#define CPU_NACC_GPR      PEAK_LOOP_GCHAINS
#define CPU_VEC_MAX_BYTES 64
/* Dependent steps per loop iteration of a frequency chain. */
#define CPU_CHAIN_STEPS 16

enum cpu_kind {
	CPU_KIND_FMA,    /* x = x*2 - 1, then x = x*0.5 + 0.5: identity pair, 2 flops each */
	CPU_KIND_ADDMUL, /* half the chains x + 1, x - 1; half x * 2, x * 0.5: 1 flop each */
	CPU_KIND_IADD,   /* x += c1, x += c2 (wrapping): 1 op each */
	CPU_KIND_IMUL,   /* x = x * a (wrapping, a odd): 1 op each */
	/* Number formats (cpu_fmt.c; x86 only): */
	CPU_KIND_BF16_DOT, /* vdpbf16ps: x += a.b over bf16 pairs, then x += a.(-b): 4 flops
			    * a fp32 lane */
	CPU_KIND_INT8_DOT, /* vpdpbusd: x += u8 quads . s8 quads (two operands): 8 ops a lane */
	CPU_KIND_AMX,      /* a tile multiply C += A x B (cpu_kernel.amx_op): 2 x K ops an
			    * element of C (K = 32 bf16/fp16, 64 int8) */
};

/* CPU_F16: IEEE half-precision lanes (AVX512-FP16), kept as their bits. */
enum cpu_elem { CPU_F32, CPU_F64, CPU_I32, CPU_I64, CPU_F16 };
enum cpu_test { CPU_TEST_FLOPS, CPU_TEST_IOPS };

/* Which chain measures the clock under this kernel's load. Every one is the anchor chain
 * (imul r64 on x86-64, add x on aarch64): plain for the scalar classes, and with the
 * class's instructions between its links for the vector ones (peak_freq_load.h): the clock
 * while that class holds its licence, whatever the vector latencies. A loaded chain is used
 * only once its checks held (cpu_measure.c); aarch64 has none, its rows take the plain. */
enum cpu_chain {
	CPU_CHAIN_NONE,
	CPU_CHAIN_SCALAR_FP,        /* the plain anchor: scalar FP holds no licence */
	CPU_CHAIN_SSE_FP,           /* addpd xmm */
	CPU_CHAIN_AVX_FP,           /* vmulpd ymm */
	CPU_CHAIN_AVX512_FP,        /* vfmadd231pd zmm (linpack's zmm solves) */
	CPU_CHAIN_SCALAR_INT,       /* the plain anchor */
	CPU_CHAIN_SSE_INT,          /* paddq xmm */
	CPU_CHAIN_AVX2_INT,         /* vpaddq ymm */
	CPU_CHAIN_AVX512_INT,       /* vpaddq zmm */
	CPU_CHAIN_AVX512_FMA_LOAD,  /* vfmadd231pd zmm */
	CPU_CHAIN_AVX512_IMUL_LOAD, /* vpmulld zmm */
	CPU_CHAIN_AVX512_BF16_LOAD, /* vdpbf16ps zmm */
	CPU_CHAIN_AVX512_VNNI_LOAD, /* vpdpbusd zmm */
	CPU_CHAIN_AVX512_FP16_LOAD, /* vfmadd231ph zmm */
	CPU_CHAIN_AMX_LOAD,         /* tdpbf16ps, for every AMX row */
};

/* Constants read at run time so the compiler cannot fold the chains; their values depend
 * on the kernel's kind (cpu_consts_init). */
struct cpu_consts {
	double f64[3]; /* fma: 2, -1, 0.5; addmul: 1, 2, 0.5 */
	float f32[3];
	uint64_t u64[2]; /* iadd: c1, c2; imul: a (PEAK_LOOP_IMUL64_K), unused */
	uint32_t u32[2];
	/* The format kinds' operands v12, v13, v14 as 32-bit words broadcast over the
	 * register (bf16 pairs, int8 quads, fp16 pairs): cpu_fmt.c. */
	uint32_t fmt[3];
	/* AMX: the A tiles (two) and B tiles (two), 16 rows of 64 bytes each. */
	_Alignas(64) unsigned char amx_a[2][1024];
	_Alignas(64) unsigned char amx_b[2][1024];
};

/* One thread's accumulators: nacc vectors of `lanes` elements each, vector k lane j at
 * index k * lanes + j. The AMX kernels' are 4 tiles of 16 x 16 32-bit elements. */
#define CPU_ACC_BYTES 4096
_Static_assert(CPU_ACC_BYTES >= CPU_NACC * CPU_VEC_MAX_BYTES, "vector chains fit");
struct cpu_acc {
	_Alignas(64) union {
		double f64[CPU_ACC_BYTES / 8];
		float f32[CPU_ACC_BYTES / 4];
		uint64_t u64[CPU_ACC_BYTES / 8];
		uint32_t u32[CPU_ACC_BYTES / 4];
		uint16_t u16[CPU_ACC_BYTES / 2];
	} v;
};

struct cpu_kernel {
	const char *name; /* the result's variant: "avx512_dp_fma" */
	enum cpu_test test;
	enum peak_isa isa;
	enum cpu_kind kind;
	enum cpu_elem elem;
	unsigned lanes; /* elements per vector (1 for scalar; 0: SVE, the process's length:
			 * cpu_kernel_lanes) */
	unsigned nacc;  /* independent chains */
	unsigned steps; /* dependent steps per chain per loop iteration (PEAK_LOOP_STEPS) */
	unsigned need;  /* PEAK_FEAT_* its instructions use beyond its ISA's (peak_cpu_can_run) */
	peak_loop_fn loop; /* NULL when no instruction exists (then unsupported: no vpmullq) */
	enum cpu_chain chain;
	int amx_op; /* CPU_KIND_AMX: enum peak_amx_op (peak_formats_x86.h) */
};

extern const struct cpu_kernel cpu_kernels[];
extern const size_t cpu_nkernels;

/* Elements per vector: k->lanes, or for SVE kernels this process's vector length over the
 * element width. */
unsigned cpu_kernel_lanes(const struct cpu_kernel *k);

/* Run iters iterations of k's loop on acc (its chains) with c's operands. */
void cpu_kernel_run(const struct cpu_kernel *k, struct cpu_acc *acc, const struct cpu_consts *c,
		    uint64_t iters);
/* Operations (flops or integer ops) one call with iters = 1 performs in one thread. */
double cpu_kernel_ops_per_iter(const struct cpu_kernel *k);
/* Peak operations per cycle per core for this kernel on that micro-architecture; NAN
 * when the table cannot say (64-bit lane multiplies). */
double cpu_kernel_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u);
/* Operations one instruction of the kernel's class performs (lanes, x 2 for FMA). */
double cpu_kernel_ops_per_instr(const struct cpu_kernel *k);
/* The probe's class of the kernel (its figure's name in peak_uarch_probe.h): the same
 * libpeak loop for dp, i32 and scalar i64 kernels, the dp or i32 loop of the same width
 * and pipes for the others; NULL when the probe has no such class (vpmullq). */
const char *cpu_kernel_probe_class(const struct cpu_kernel *k);
/* The probe's figure for that class on this core: instructions per cycle; NAN without. */
double cpu_kernel_probe_per_cycle(const struct cpu_kernel *k, const struct peak_uarch_rates *r);
/* True when the kernel can run here; otherwise reason says why. Honors the test hook
 * PEAKBENCH_TEST_PRETEND_MISSING=isa[,isa] (docs/cpu.md). */
bool cpu_kernel_supported(const struct cpu_kernel *k, char *reason, size_t reason_len);
/* True when the ISA itself can run here (its widest feature: fma is not needed for sse). */
bool cpu_isa_supported(enum peak_isa isa, char *reason, size_t reason_len);
/* The format kinds (cpu_fmt.c): operands, start values, run and closed form. */
bool cpu_fmt_kind(const struct cpu_kernel *k);
void cpu_fmt_consts_init(const struct cpu_kernel *k, struct cpu_consts *c);
void cpu_fmt_acc_init(const struct cpu_kernel *k, struct cpu_acc *acc);
void cpu_fmt_run(const struct cpu_kernel *k, struct cpu_acc *acc, const struct cpu_consts *c,
		 uint64_t iters);
int cpu_fmt_verify(const struct cpu_kernel *k, const struct cpu_acc *acc,
		   const struct cpu_consts *c, uint64_t iters, char *err, size_t err_len);
/* Ops per instruction (lanes x 4, lanes x 8, 16 x 16 x 2K) and per cycle per core from the
 * table's format rates (peak_uarch.h); NAN unknown. */
double cpu_fmt_ops_per_instr(const struct cpu_kernel *k);
/* The number format a format kernel computes in (enum peak_number_format: FP16, BF16, INT8). */
int cpu_fmt_format(const struct cpu_kernel *k);
/* The probe's figure name of a format kernel's loop; NULL for AMX (no class). */
const char *cpu_fmt_probe_class(const struct cpu_kernel *k);
double cpu_fmt_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u);
/* "sp", "dp", "i32", "i64", "f16". */
const char *cpu_elem_name(enum cpu_elem e);

/* Closed forms (cpu_verify.c). */
void cpu_consts_init(const struct cpu_kernel *k, struct cpu_consts *c);
/* Initial accumulator values, distinct per chain and lane. */
void cpu_acc_init(const struct cpu_kernel *k, struct cpu_acc *acc);
/* 0 when every lane equals its closed form after `iters` iterations; else -1 and the first
 * wrong lane in err. */
int cpu_acc_verify(const struct cpu_kernel *k, const struct cpu_acc *acc,
		   const struct cpu_consts *c, uint64_t iters, char *err, size_t err_len);
/* x after n steps of x = x * a + b modulo 2^64 (or 2^32), in O(log n) (b = 0: x a^n). */
uint64_t cpu_affine_pow_u64(uint64_t x, uint64_t a, uint64_t b, uint64_t n);
uint32_t cpu_affine_pow_u32(uint32_t x, uint32_t a, uint32_t b, uint64_t n);

/* Frequency chains: run iters x CPU_CHAIN_STEPS dependent steps, return a value the
 * caller checks with cpu_chain_expected (so the chain cannot be skipped). */
uint64_t cpu_chain_run(enum cpu_chain chain, uint64_t iters);
uint64_t cpu_chain_expected(enum cpu_chain chain, uint64_t iters);
/* Cycles of one step: the anchor's (imul r64: 3; add x: 1), never a table's; 0 when the
 * chain does not exist here. */
unsigned cpu_chain_latency(enum cpu_chain chain);
/* The chain that clocks a kernel of this chain: its loaded chain, or the plain anchor for
 * scalar work and where no loaded chain exists. *latency gets its step's cycles. */
enum cpu_chain cpu_chain_clock(enum cpu_chain chain, unsigned *latency);
const char *cpu_chain_name(enum cpu_chain chain);
/* The load a loaded chain runs (peak_freq_load.h); PEAK_FREQ_LOAD_NONE for the others. */
enum peak_freq_load cpu_chain_load(enum cpu_chain chain);

#endif
