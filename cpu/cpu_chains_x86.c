/* The x86-64 anchor chain: 16 dependent imul r64 per iteration on one register, so the
 * time is iters x 16 x 3 cycles. Inline asm, provably scalar; the result is checked by
 * the caller (cpu_chain_expected), so no step is skipped. */
#include "cpu_chains.h"
#include "cpu_kernels.h"

#define REP16(S) S S S S S S S S S S S S S S S S

/* One dependent imul after another (never an add-immediate, which some cores fold at
 * rename). */
uint64_t cpu_chain_scalar_int(uint64_t iters)
{
	uint64_t x = 1, a = CPU_CHAIN_IMUL_FACTOR;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("imulq %[a], %[x]\n\t")
				     : [x] "+r"(x)
				     : [a] "r"(a)
				     : "cc");
	return x;
}
