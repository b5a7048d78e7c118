/* Run-time choice of the membench kernel table: the widest ISA the CPU reports. */
#include <stdio.h>
#include <string.h>

#include "mem_kernels.h"
#include "peak_isa.h"

static const char *const isa_names[MEM_ISA_COUNT] = {"scalar", "sse2", "avx2",
						     "avx512", "neon", "sve"};

/* The other architecture's names are no choice at all (exit 2), not an ISA this CPU
 * lacks (exit 3). */
const char *const mem_isa_choices[] = {"auto", "scalar",
#if defined(__aarch64__)
				       "neon", "sve",
#else
				       "sse2", "avx2", "avx512",
#endif
				       NULL};

/* Only this architecture's kernels are built; the other's are NULL here. */
static const struct mem_ops *const all_ops[MEM_ISA_COUNT] = {
    [MEM_ISA_SCALAR] = &mem_ops_scalar,
#if defined(__x86_64__)
    [MEM_ISA_SSE2] = &mem_ops_sse2,
    [MEM_ISA_AVX2] = &mem_ops_avx2,
    [MEM_ISA_AVX512] = &mem_ops_avx512,
#endif
#if defined(__aarch64__)
    [MEM_ISA_NEON] = &mem_ops_neon,
    [MEM_ISA_SVE] = &mem_ops_sve,
#endif
};

const struct mem_ops *mem_ops_for(enum mem_isa isa)
{
	if ((unsigned)isa >= MEM_ISA_COUNT || !all_ops[isa])
		return &mem_ops_scalar;
	return all_ops[isa];
}

bool mem_isa_supported(enum mem_isa isa, char *reason, size_t reason_len)
{
	switch (isa) {
	case MEM_ISA_SCALAR:
		return peak_cpu_can_run(0, reason, reason_len);
	case MEM_ISA_SSE2: /* part of x86-64 */
		return peak_cpu_can_run(all_ops[isa] ? 0 : PEAK_FEAT_SSE2, reason, reason_len);
	case MEM_ISA_NEON: /* part of aarch64 */
		return peak_cpu_can_run(all_ops[isa] ? 0 : PEAK_FEAT_ASIMD, reason, reason_len);
	case MEM_ISA_AVX2:
		return peak_cpu_can_run(PEAK_FEAT_AVX2, reason, reason_len);
	case MEM_ISA_AVX512:
		return peak_cpu_can_run(PEAK_FEAT_AVX512F, reason, reason_len);
	case MEM_ISA_SVE: /* HWCAP_SVE; the kernels run at any vector length */
		return peak_cpu_can_run(PEAK_FEAT_SVE, reason, reason_len);
	default:
		if (reason && reason_len)
			snprintf(reason, reason_len, "this CPU does not report a known ISA");
		return false;
	}
}

enum mem_isa mem_isa_best(void)
{
	for (int isa = MEM_ISA_COUNT - 1; isa > MEM_ISA_SCALAR; isa--)
		if (mem_isa_supported((enum mem_isa)isa, NULL, 0))
			return (enum mem_isa)isa;
	return MEM_ISA_SCALAR;
}

const char *mem_isa_name(enum mem_isa isa)
{
	return (unsigned)isa < MEM_ISA_COUNT ? isa_names[isa] : "unknown";
}

int mem_isa_parse(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return -2;
	for (int isa = 0; isa < MEM_ISA_COUNT; isa++)
		if (strcmp(name, isa_names[isa]) == 0)
			return isa;
	return -1;
}
