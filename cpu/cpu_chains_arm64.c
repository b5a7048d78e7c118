/* The aarch64 anchor chain: 16 dependent add x per iteration on one register, one cycle a
 * step on every Arm core, so the time is iters x 16 cycles. No vector chain exists here:
 * the NEON and SVE rows are clocked by this one (no frequency licences are known on Arm).
 * Inline asm, so provably scalar. */
#include "cpu_chains.h"
#include "cpu_kernels.h"

#define REP16(S) S S S S S S S S S S S S S S S S

/* One dependent add x after another (register operand); the result is 1 + 16 iters
 * (cpu_chain_expected). */
uint64_t cpu_chain_scalar_int(uint64_t iters)
{
	uint64_t x = 1, one = 1;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("add %[x], %[x], %[one]\n\t")
				     : [x] "+r"(x)
				     : [one] "r"(one));
	return x;
}
