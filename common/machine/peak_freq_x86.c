/* The x86-64 frequency chains (peak_freq.h): imul r64,r64 (3 cycles) is not folded at
 * rename the way add-immediate chains are on recent cores; addsd (4 cycles on Skylake, 3
 * on Zen) is an independent second witness. */
#include <stdint.h>

#include "peak_freq.h"

#define STR_(x) #x
#define STR(x)  STR_(x)

/* clang-format off */
void peak_freq_chain_int(uint64_t iters)
{
	uint64_t x = 0x9e3779b97f4a7c15u, n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(PEAK_FREQ_CHAIN_UNROLL) "\n\t"
			 "imulq %[x], %[x]\n\t"
			 ".endr\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 : [x] "+r"(x), [n] "+r"(n)
			 :
			 : "cc");
}

void peak_freq_chain_fp(uint64_t iters)
{
	/* 1.0 + 2^-60 rounds back to 1.0: no denormals, no growth, same latency forever. */
	double x = 1.0, y = 0x1p-60;
	uint64_t n = iters;
	__asm__ volatile("1:\n\t"
			 ".rept " STR(PEAK_FREQ_CHAIN_UNROLL) "\n\t"
			 "addsd %[y], %[x]\n\t"
			 ".endr\n\t"
			 "decq %[n]\n\t"
			 "jnz 1b\n\t"
			 : [x] "+x"(x), [n] "+r"(n)
			 : [y] "x"(y)
			 : "cc");
}

/* clang-format on */
