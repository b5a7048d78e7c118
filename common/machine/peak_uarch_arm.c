/* The aarch64 micro-architecture table: cores keyed on the MIDR pair (implementer, part)
 * from /proc/cpuinfo, with their FP/SIMD pipes and where each figure comes from. */
#include <stdio.h>
#include <string.h>

#include "peak_uarch.h"

/* Keyed on the pair, never on the part alone: part numbers belong to their implementer,
 * and HiSilicon (0x48) reuses 0xd40 for a core of its own, which is no Neoverse V1. Figures are
 * per core, instructions per cycle (throughput) and latencies in cycles, from Arm's Software
 * Optimization Guide (SWOG) of each core, its "Instruction characteristics" tables (the rows
 * named beside each figure). They were checked against LLVM's scheduling model of the core
 * (llvm/lib/Target/AArch64/AArch64SchedNeoverse{N1,V1,N2,V2}.td), which transcribes those
 * tables row by row: a row there that issues to a group of k pipes is k per cycle, one of m
 * micro-ops on one pipe is 1/m. A count that is not a whole number per cycle (N1's X-form MUL,
 * 1/3), or that no source we read gives, is 0: measured by the probe on the machine, never
 * guessed. docs/arm64.md has the table of figures and rows. */
/* The number-format rates (BFDOT, BFMMLA, SDOT, SMMLA per cycle) come from LLVM's scheduling
 * models of the N2, V1 and V2 (AArch64SchedNeoverse{N2,V1,V2}.td, transcriptions of the
 * SWOGs), as issue 37 gives them in flop or ops per cycle per core: N2 BFDOT 32, BFMMLA 64,
 * SDOT 64, SMMLA 128 (two of each per cycle, on V0/V1); V1 and V2 twice that (four, on
 * V0-V3). Not re-read from the guides here (docs/arm64.md). */
#define FMT_N2                                                                                     \
	"LLVM AArch64SchedNeoverseN2.td (from the N2 SWOG, 109914): BFDOT, BFMMLA, SDOT, SMMLA "   \
	"2 per cycle"
#define FMT_V                                                                                      \
	"LLVM AArch64SchedNeoverseV1.td / V2.td (from the V1 and V2 SWOGs): BFDOT, BFMMLA, SDOT, " \
	"SMMLA 4 per cycle"
/* clang-format off */
static const struct peak_uarch_arm arm_table[] = {
	/* Neoverse N1: SWOG PJDOC-466751330-9707 (developer.arm.com 109896). FP/ASIMD pipes
	 * V0, V1 (128-bit): "ASIMD FP multiply accumulate" FMLA on V, latency 4, 2 per cycle;
	 * "FP arithmetic" FADD on V, latency 2; "FP multiply" FMUL on V: 2 add+mul per cycle;
	 * "ASIMD arith, basic" on V: 2. "ASIMD multiply, Q-form" MUL .4s is two micro-ops on V0
	 * (1/2 per cycle): measured. Integer: "ALU, basic" on S0, S1 and M: 3 ADD per cycle;
	 * "Multiply accumulate, X-form" MUL x on M at 1/3 per cycle (the multiplier stalls two
	 * extra cycles): not a whole count, measured (0). No SVE. Graviton2 and Ampere Altra
	 * both report Arm's 0x41/0xd0c. */
	{.implementer = 0x41, .part = 0xd0c, .core = "Neoverse-N1",
	 .systems = "Graviton2, Ampere Altra", .neon_fma_pipes = 2, .vint_add = 2, .addmul = 2,
	 .fadd_latency = 2, .int_alu = 3,
	 .source = "Arm Neoverse N1 Software Optimization Guide (PJDOC-466751330-9707)",
	 .formats_source = "no BF16 or I8MM (Armv8.2); SDOT's rate not read from a source: "
			   "unknown"},
	/* Neoverse V1: SWOG developer.arm.com 109897. FP/ASIMD pipes V0-V3 (128-bit): FMLA on
	 * V, latency 4: 4 per cycle; FADD latency 2 and FMUL on V: 4 add+mul; "ASIMD arith,
	 * basic" on V: 4; "ASIMD multiply" on V0, V2: 2. SVE (256-bit, V0/V1 and V2/V3 paired):
	 * "SVE floating point multiply accumulate" FMLA/FMAD on V01: 2 per cycle; SVE FADD,
	 * FSUB, FMUL on V01: 2 add+mul; "SVE arithmetic, basic" ADD on V01: 2; "SVE multiply,
	 * B, H, S element size" on V0: 1 (the D size, two micro-ops on V0, is 1/2). Integer:
	 * "ALU, basic" on S0, S1, M0, M1: 4 ADD; "Multiply" MUL on M0, M1: 2. */
	{.implementer = 0x41, .part = 0xd40, .core = "Neoverse-V1", .systems = "Graviton3",
	 .neon_fma_pipes = 4, .sve_fma_pipes = 2, .sve_pipe_bits = 256, .vint_add = 4,
	 .vint_mul = 2, .addmul = 4, .fadd_latency = 2, .int_alu = 4, .imul = 2, .sve_addmul = 2,
	 .sve_vint_add = 2, .sve_vint_mul = 1,
	 .source = "Arm Neoverse V1 Software Optimization Guide (109897)",
	 .bf16_dot = 4, .bf16_mmla = 4, .int8_dot = 4, .int8_mmla = 4, .formats_source = FMT_V},
	/* Neoverse N2: SWOG developer.arm.com 109914. FP/ASIMD/SVE pipes V0, V1 (128-bit, SVE
	 * 128-bit): FMLA on V: 2 per cycle; "FP arithmetic" FADD on V, latency 2; FMUL on V: 2
	 * add+mul; "ASIMD arith, basic" on V: 2; "ASIMD multiply" on V0: 1. SVE: FADD, FSUB,
	 * FMUL on V: 2 add+mul; "Arithmetic, basic" ADD on V: 2; "Multiply, B, H, S element
	 * size" on V0: 1. SVE FMLA/FMAD: 2 per cycle, as before (the model's write type for it
	 * was not read; the core has only V0, V1, so 2 is its ceiling). Integer: "ALU, basic" on S0, S1, M0,
	 * M1: 4 ADD; "Multiply" on M0, M1: 2. */
	{.implementer = 0x41, .part = 0xd49, .core = "Neoverse-N2", .systems = "Azure Cobalt 100",
	 .neon_fma_pipes = 2, .sve_fma_pipes = 2, .sve_pipe_bits = 128, .vint_add = 2,
	 .vint_mul = 1, .addmul = 2, .fadd_latency = 2, .int_alu = 4, .imul = 2, .sve_addmul = 2,
	 .sve_vint_add = 2, .sve_vint_mul = 1,
	 .source = "Arm Neoverse N2 Software Optimization Guide (109914)",
	 .bf16_dot = 2, .bf16_mmla = 2, .int8_dot = 2, .int8_mmla = 2, .formats_source = FMT_N2},
	/* Neoverse V2: SWOG PJDOC-466751330-593177 r0p2 (developer.arm.com 109898). FP/ASIMD/SVE
	 * pipes V0-V3 (128-bit, SVE 128-bit): FMLA on V, latency 4: 4 per cycle; "FP arithmetic"
	 * FADD on V, latency 2; FMUL on V: 4 add+mul; "ASIMD arith, basic" on V: 4; "ASIMD
	 * multiply" on V0, V2: 2. SVE: "Floating point multiply accumulate" on V: 4; FADD,
	 * FSUB on V: 4 add+mul; "Arithmetic, basic" ADD on V: 4; "Multiply, B, H, S element
	 * size" on V0, V2: 2. Integer (section 3.4, 3.5): "ALU, basic" on S0-S3, M0, M1: 6 ADD;
	 * "Multiply" on M0, M1: 2. */
	{.implementer = 0x41, .part = 0xd4f, .core = "Neoverse-V2",
	 .systems = "Graviton4, Google Axion, NVIDIA Grace", .neon_fma_pipes = 4,
	 .sve_fma_pipes = 4, .sve_pipe_bits = 128, .vint_add = 4, .vint_mul = 2, .addmul = 4,
	 .fadd_latency = 2, .int_alu = 6, .imul = 2, .sve_addmul = 4, .sve_vint_add = 4,
	 .sve_vint_mul = 2,
	 .source = "Arm Neoverse V2 Software Optimization Guide (PJDOC-466751330-593177 r0p2)",
	 .bf16_dot = 4, .bf16_mmla = 4, .int8_dot = 4, .int8_mmla = 4, .formats_source = FMT_V},
	/* AmpereOne (0xac3) and AmpereOne A (0xac4): Ampere's own cores. Ampere publishes no
	 * optimization guide with per-instruction throughput, and no measurement we found gives
	 * them: every count measured (the names are Ampere's, the MIDR values Linux's arch/arm64
	 * cputype list). */
	{.implementer = 0xc0, .part = 0xac3, .core = "AmpereOne", .systems = "AmpereOne",
	 .source = "no published pipe counts: measured"},
	{.implementer = 0xc0, .part = 0xac4, .core = "AmpereOne-A", .systems = "AmpereOne A",
	 .source = "no published pipe counts: measured"},
};
/* clang-format on */

const struct peak_uarch_arm *peak_uarch_arm_find(unsigned implementer, unsigned part)
{
	for (size_t i = 0; i < sizeof arm_table / sizeof arm_table[0]; i++)
		if (arm_table[i].implementer == implementer && arm_table[i].part == part)
			return &arm_table[i];
	return NULL;
}

const struct peak_uarch_arm *peak_uarch_arm_by_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof arm_table / sizeof arm_table[0]; i++)
		if (strcmp(arm_table[i].core, name) == 0)
			return &arm_table[i];
	return NULL;
}

const char *peak_uarch_arm_implementer(unsigned implementer)
{
	/* The Arm ARM's MIDR_EL1 implementer codes. */
	switch (implementer) {
	case 0x41:
		return "ARM";
	case 0x42:
		return "Broadcom";
	case 0x43:
		return "Cavium";
	case 0x46:
		return "Fujitsu";
	case 0x48:
		return "HiSilicon";
	case 0x4e:
		return "NVIDIA";
	case 0x51:
		return "Qualcomm";
	case 0x61:
		return "Apple";
	case 0x6d:
		return "Microsoft";
	case 0xc0:
		return "Ampere";
	default:
		return NULL;
	}
}

void peak_uarch_arm_core_name(unsigned implementer, unsigned part, char *out, size_t len)
{
	const struct peak_uarch_arm *a = peak_uarch_arm_find(implementer, part);
	const char *impl = peak_uarch_arm_implementer(implementer);
	if (a)
		(void)snprintf(out, len, "%s (%s)", a->core, a->systems);
	else
		(void)snprintf(out, len, "%s part 0x%03x", impl ? impl : "unknown implementer",
			       part);
}

double peak_uarch_arm_neon_dp_flops_per_cycle(const struct peak_uarch_arm *a)
{
	/* fmla .2d: 2 lanes x 2 flops per pipe */
	return a ? a->neon_fma_pipes * 2.0 * 2.0 : 0;
}

double peak_uarch_arm_sve_dp_flops_per_cycle(const struct peak_uarch_arm *a)
{
	/* A vector longer than the pipe takes more passes: the rate is the pipes' width,
	 * whatever the vector length (V1 at VL 256 and 128 alike). */
	return a ? a->sve_fma_pipes * (a->sve_pipe_bits / 64.0) * 2.0 : 0;
}

double peak_uarch_arm_dp_flops_per_cycle(const struct peak_uarch_arm *a, bool sve)
{
	double neon = peak_uarch_arm_neon_dp_flops_per_cycle(a);
	double v = sve ? peak_uarch_arm_sve_dp_flops_per_cycle(a) : 0;
	return v > neon ? v : neon;
}

void peak_uarch_arm_fill(const struct peak_uarch_arm *a, struct peak_uarch *u)
{
	memset(u, 0, sizeof *u);
	(void)snprintf(u->name, sizeof u->name, "%s", a->core);
	u->source = PEAK_SRC_TABLE;
	u->fma_units = a->neon_fma_pipes;
	u->vec_int_add_units = a->vint_add;
	u->vec_int_mul_units = a->vint_mul;
	u->int_alu_units = a->int_alu;
	u->imul_units = a->imul;
	u->fp_add_latency = u->fp_add256_latency = a->fadd_latency;
	u->imul_latency = 1; /* the integer clock chain: add x, one cycle on every Arm core */
	u->pipe_bits = 128;
	u->addmul_ops = a->addmul;
	u->sve_fma_units = a->sve_fma_pipes;
	u->sve_addmul_ops = a->sve_addmul;
	u->sve_vec_int_add_units = a->sve_vint_add;
	u->sve_vec_int_mul_units = a->sve_vint_mul;
	u->sve_pipe_bits = a->sve_pipe_bits;
	(void)snprintf(u->note, sizeof u->note, "%s", a->source);
}
