/* A cpubench kernel's run: its accumulators and operands into the registers of its
 * libpeak loop (peak_loops.h), the loop, and the chains back. */
#include <string.h>

#include "cpu_kernels.h"

static size_t elem_bytes(enum cpu_elem e)
{
	return e == CPU_F32 || e == CPU_I32 ? 4 : 8;
}

/* Operand j broadcast over a vector register's bytes. */
static void broadcast(unsigned char *reg, const struct cpu_kernel *k, const struct cpu_consts *c,
		      unsigned j)
{
	size_t size = elem_bytes(k->elem);
	const void *src = NULL;
	switch (k->elem) {
	case CPU_F64:
		src = &c->f64[j];
		break;
	case CPU_F32:
		src = &c->f32[j];
		break;
	case CPU_I64:
		src = j < 2 ? (const void *)&c->u64[j] : NULL;
		break;
	case CPU_I32:
		src = j < 2 ? (const void *)&c->u32[j] : NULL;
		break;
	case CPU_F16: /* cpu_fmt.c */
		break;
	}
	if (!src)
		return;
	for (size_t off = 0; off + size <= 64; off += size)
		memcpy(reg + off, src, size);
}

void cpu_kernel_run(const struct cpu_kernel *k, struct cpu_acc *acc, const struct cpu_consts *c,
		    uint64_t iters)
{
	if (cpu_fmt_kind(k)) {
		cpu_fmt_run(k, acc, c, iters);
		return;
	}
	struct peak_loop_regs r;
	memset(&r, 0, sizeof r);
	size_t vec = cpu_kernel_lanes(k) * elem_bytes(k->elem);
	bool gpr = k->nacc == PEAK_LOOP_GCHAINS && k->lanes == 1 &&
		   (k->elem == CPU_I32 || k->elem == CPU_I64);
	if (gpr) {
		for (unsigned i = 0; i < k->nacc; i++)
			r.g[i] = k->elem == CPU_I64 ? acc->v.u64[i] : acc->v.u32[i];
		r.g[10] = k->elem == CPU_I64 ? c->u64[0] : c->u32[0];
		r.g[11] = k->elem == CPU_I64 ? c->u64[1] : c->u32[1];
	} else {
		for (unsigned i = 0; i < k->nacc; i++)
			memcpy(r.v[i], (const unsigned char *)&acc->v + i * vec, vec);
		for (unsigned j = 0; j < 3; j++)
			broadcast(r.v[12 + j], k, c, j);
	}
	k->loop(&r, iters);
	if (gpr) {
		for (unsigned i = 0; i < k->nacc; i++) {
			if (k->elem == CPU_I64)
				acc->v.u64[i] = r.g[i];
			else
				acc->v.u32[i] = (uint32_t)r.g[i];
		}
	} else {
		for (unsigned i = 0; i < k->nacc; i++)
			memcpy((unsigned char *)&acc->v + i * vec, r.v[i], vec);
	}
}
