/* The aarch64 micro-architecture table: cores keyed on the MIDR pair (implementer, part)
 * from /proc/cpuinfo, with their FP/SIMD pipes and where each figure comes from. */
#include <stdio.h>
#include <string.h>

#include "peak_uarch.h"

/* Keyed on the pair, never on the part alone: part numbers belong to their implementer,
 * and HiSilicon (0x48) reuses 0xd40 for a core of its own, which is no Neoverse V1. Figures are
 * per core, from Arm's Software Optimization Guide (SWOG) of each core: its "Instruction
 * characteristics" tables (FMLA, FADD, FMUL, ADD, MUL: throughput and pipes) and its
 * pipeline overview. A 0 is a count the guide leaves unsettled for us or a core without a
 * guide we hold: measured by the probe on the machine, never guessed. */
/* clang-format off */
static const struct peak_uarch_arm arm_table[] = {
	/* Neoverse N1 (SWOG): two 128-bit FP/ASIMD
	 * pipes V0, V1, both running FMLA, FADD, FMUL and ASIMD integer add; FADD latency 2;
	 * integer pipes S0, S1 (single-cycle) and M (multi-cycle, also ALU ops): 3 adds per
	 * cycle, MUL on M alone. Graviton2 and Ampere Altra both report Arm's 0x41/0xd0c. */
	{0x41, 0xd0c, "Neoverse-N1", "Graviton2, Ampere Altra", 2, 0, 0, 2, 2, 2, 3, 1,
	 "Arm Neoverse N1 Software Optimization Guide"},
	/* Neoverse V1 (SWOG): four 128-bit FP/ASIMD pipes V0-V3 for NEON FMLA
	 * (4 per cycle), SVE FMLA on two 256-bit pipes (V0/V1 and V2/V3 paired: 2 per cycle at
	 * 256 bits). FADD latency 2. Integer counts: probe. */
	{0x41, 0xd40, "Neoverse-V1", "Graviton3", 4, 2, 256, 4, 4, 2, 0, 0,
	 "Arm Neoverse V1 Software Optimization Guide"},
	/* Neoverse N2 (SWOG): two 128-bit FP/ASIMD/SVE pipes
	 * V0, V1; SVE is 128-bit. FADD latency 2. Integer counts: probe. */
	{0x41, 0xd49, "Neoverse-N2", "Azure Cobalt 100", 2, 2, 128, 2, 2, 2, 0, 0,
	 "Arm Neoverse N2 Software Optimization Guide"},
	/* Neoverse V2 (SWOG): four 128-bit FP/ASIMD/SVE pipes
	 * V0-V3; SVE is 128-bit. FADD latency 2. Integer counts: probe. */
	{0x41, 0xd4f, "Neoverse-V2", "Graviton4, Google Axion, NVIDIA Grace", 4, 4, 128, 4, 4, 2, 0, 0,
	 "Arm Neoverse V2 Software Optimization Guide"},
	/* AmpereOne (0xac3) and AmpereOne A (0xac4): Ampere's own cores. No optimization guide
	 * we hold gives their pipes: every count measured (the names are Ampere's, the MIDR
	 * values Linux's arch/arm64 cputype list). */
	{0xc0, 0xac3, "AmpereOne", "AmpereOne", 0, 0, 0, 0, 0, 0, 0, 0,
	 "no published pipe counts: measured"},
	{0xc0, 0xac4, "AmpereOne-A", "AmpereOne A", 0, 0, 0, 0, 0, 0, 0, 0,
	 "no published pipe counts: measured"},
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
	u->int_alu_units = a->int_alu;
	u->imul_units = a->imul;
	u->fp_add_latency = u->fp_add256_latency = a->fadd_latency;
	u->imul_latency = 1; /* the integer clock chain: add x, one cycle on every Arm core */
	u->pipe_bits = 128;
	u->addmul_ops = a->addmul;
	u->sve_fma_units = a->sve_fma_pipes;
	u->sve_pipe_bits = a->sve_pipe_bits;
	(void)snprintf(u->note, sizeof u->note, "%s", a->source);
}
