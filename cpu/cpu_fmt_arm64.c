/* cpubench's aarch64 number-format kernels (cpu_fmt_arm64.h). The loops are libpeak's
 * (peak_loops_arm64_formats.c); the operands are cpu_fmt.c's, each 32-bit word broadcast
 * over v12-v14: BF16 pairs (1, 2), (3, 0.5), (-3, -0.5), so a BFDOT lane grows by 4 then
 * 4 less, a BFMMLA lane (four products: the pair twice) by 8 then 8 less, back at its start
 * exactly; INT8 quads, read as signed bytes by SDOT and SMMLA, so the lanes wrap modulo
 * 2^32 and count the iterations. */
#include <math.h>
#include <string.h>

#include "cpu_fmt_arm64.h"
#include "peak_formats_feat_arm64.h"

bool cpu_fmt_arm64_supported(const struct cpu_kernel *k, char *reason, size_t reason_len)
{
	return peak_formats_arm64_form_runs(k->name, reason, reason_len);
}

double cpu_fmt_arm64_ops_per_instr(const struct cpu_kernel *k)
{
	return peak_formats_arm64_ops_per_instr(k->name);
}

double cpu_fmt_arm64_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u)
{
	double v = peak_formats_arm64_ops_per_cycle(u->name, k->name);
	return v > 0 ? v : NAN;
}

static int32_t sdot4(uint32_t a, uint32_t b)
{
	int32_t s = 0;
	for (int j = 0; j < 4; j++)
		s += (int32_t)(int8_t)(a >> (8 * j)) * (int32_t)(int8_t)(b >> (8 * j));
	return s;
}

uint32_t cpu_fmt_arm64_int8_block(const struct cpu_kernel *k, uint32_t a, uint32_t b0, uint32_t b1)
{
	uint32_t per = (uint32_t)sdot4(a, b0) + (uint32_t)sdot4(a, b1);
	return strstr(k->name, "mmla") ? 2 * per : per;
}
