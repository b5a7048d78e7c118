/* The AArch64 frequency chains (peak_freq.h): add x, x, y is one cycle on every Arm core
 * (PEAK_FREQ_INT_LATENCY); fadd d (2 cycles on Neoverse N1, V1, N2, V2 by their Software
 * Optimization Guides, the table's fp_add_latency) is the second witness. The timer is
 * clock_gettime (peak_time.c, the generic timer through the vDSO), never a cycle counter. */
#include <stdint.h>

#include "peak_freq.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/* clang-format off */
void peak_freq_chain_int(uint64_t iters)
{
	uint64_t x = 0x9e3779b97f4a7c15u, y = 1, n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(PEAK_FREQ_CHAIN_UNROLL) "\n\t"
			 "add %[x], %[x], %[y]\n\t"
			 ".endr\n\t"
			 "subs %[n], %[n], #1\n\t"
			 "b.ne 1b\n\t"
			 : [x] "+r"(x), [n] "+r"(n)
			 : [y] "r"(y)
			 : "cc");
}

void peak_freq_chain_fp(uint64_t iters)
{
	/* 1.0 + 2^-60 rounds back to 1.0: no denormals, no growth, same latency forever. */
	double x = 1.0, y = 0x1p-60;
	uint64_t n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(PEAK_FREQ_CHAIN_UNROLL) "\n\t"
			 "fadd %d[x], %d[x], %d[y]\n\t"
			 ".endr\n\t"
			 "subs %[n], %[n], #1\n\t"
			 "b.ne 1b\n\t"
			 : [x] "+w"(x), [n] "+r"(n)
			 : [y] "w"(y)
			 : "cc");
}
/* clang-format on */
