/* Run-time choice of the membench kernel table: the widest ISA the CPU reports. */
#include <stdio.h>
#include <string.h>

#include "mem_kernels.h"

static const struct mem_ops *const all_ops[MEM_ISA_COUNT] = {
    [MEM_ISA_SCALAR] = &mem_ops_scalar,
    [MEM_ISA_SSE2] = &mem_ops_sse2,
    [MEM_ISA_AVX2] = &mem_ops_avx2,
    [MEM_ISA_AVX512] = &mem_ops_avx512,
};

const struct mem_ops *mem_ops_for(enum mem_isa isa)
{
	if ((unsigned)isa >= MEM_ISA_COUNT)
		return &mem_ops_scalar;
	return all_ops[isa];
}

bool mem_isa_supported(enum mem_isa isa, char *reason, size_t reason_len)
{
	const char *need = NULL;
	bool ok = true;
	__builtin_cpu_init();
	switch (isa) {
	case MEM_ISA_SCALAR:
	case MEM_ISA_SSE2: /* part of x86-64 */
		break;
	case MEM_ISA_AVX2:
		ok = __builtin_cpu_supports("avx2");
		need = "avx2";
		break;
	case MEM_ISA_AVX512:
		ok = __builtin_cpu_supports("avx512f");
		need = "avx512f";
		break;
	default:
		ok = false;
		need = "a known ISA";
		break;
	}
	if (!ok && reason && reason_len)
		snprintf(reason, reason_len, "this CPU does not report %s", need);
	return ok;
}

enum mem_isa mem_isa_best(void)
{
	for (int isa = MEM_ISA_COUNT - 1; isa > MEM_ISA_SCALAR; isa--)
		if (mem_isa_supported((enum mem_isa)isa, NULL, 0))
			return (enum mem_isa)isa;
	return MEM_ISA_SCALAR;
}

int mem_isa_parse(const char *name)
{
	if (strcmp(name, "auto") == 0)
		return -2;
	for (int isa = 0; isa < MEM_ISA_COUNT; isa++)
		if (strcmp(name, all_ops[isa]->name) == 0)
			return isa;
	return -1;
}
