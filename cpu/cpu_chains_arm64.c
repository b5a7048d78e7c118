/* Frequency chains on aarch64: 16 dependent steps per iteration on one register, so the
 * time is iters x 16 x the step's latency. Only the scalar ones exist here (fadd d,
 * latency uarch.fp_add_latency; add x, one cycle on every Arm core); the x86 vector chains
 * have no aarch64 kernels that would need them. Inline asm, so provably scalar. */
#include "cpu_chains.h"
#include "cpu_kernels.h"

#define REP16(S) S S S S S S S S S S S S S S S S

/* One dependent fadd d after another: iters x 16 x fp_add_latency cycles. */
uint64_t cpu_chain_scalar_fp(uint64_t iters)
{
	double x = 0.0, one = 1.0;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("fadd %d[x], %d[x], %d[one]\n\t")
				     : [x] "+w"(x)
				     : [one] "w"(one));
	return (uint64_t)x;
}

/* One dependent add x after another (register operand): iters x 16 cycles; the result
 * is 1 + 16 iters (cpu_chain_expected). */
uint64_t cpu_chain_scalar_int(uint64_t iters)
{
	uint64_t x = 1, one = 1;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("add %[x], %[x], %[one]\n\t")
				     : [x] "+r"(x)
				     : [one] "r"(one));
	return x;
}
