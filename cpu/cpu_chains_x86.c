/* Frequency chains per ISA: 16 dependent steps per iteration on one register, so the
 * time is iters x 16 x the step's latency. The scalar ones are inline asm (provably
 * scalar); each SIMD one carries its own target attribute and runs only where its ISA
 * does. The result is checked by the caller (cpu_chain_expected), so no chain is skipped. */
#include <immintrin.h>

#include "cpu_chains.h"
#include "cpu_kernels.h"

#define REP16(S) S S S S S S S S S S S S S S S S

/* One dependent addsd after another: iters x 16 x fp_add_latency cycles. */
uint64_t cpu_chain_scalar_fp(uint64_t iters)
{
	double x = 0.0, one = 1.0;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("addsd %[one], %[x]\n\t") : [x] "+x"(x) : [one] "x"(one));
	return (uint64_t)x;
}

/* One dependent imul after another (never an add-immediate, which some cores fold at
 * rename): iters x 16 x imul_latency cycles. */
uint64_t cpu_chain_scalar_int(uint64_t iters)
{
	uint64_t x = 1, a = CPU_CHAIN_IMUL_FACTOR;
	for (uint64_t i = 0; i < iters; i++)
		__asm__ __volatile__(REP16("imulq %[a], %[x]\n\t") : [x] "+r"(x) : [a] "r"(a) : "cc");
	return x;
}

/* An empty asm that claims to modify x: the integer chain cannot be folded into one add
 * of 16. No instruction is emitted. */
#define OPAQUE(x) __asm__("" : "+v"(x))

/* T: vector type; SET1, ADD: its intrinsics; STORE writes it to an array of E. */
#define DEF_CHAIN(fname, TGT, T, E, SET1, ADD, STORE, ONE, OPQ)                                    \
	TGT uint64_t fname(uint64_t iters)                                                         \
	{                                                                                          \
		_Alignas(64) E out[64 / sizeof(E)];                                                \
		T x = SET1(0);                                                                     \
		const T one = SET1(ONE);                                                           \
		for (uint64_t i = 0; i < iters; i++) {                                             \
			REP16(x = ADD(x, one); OPQ)                                                \
		}                                                                                  \
		STORE((void *)out, x);                                                             \
		return (uint64_t)out[0];                                                           \
	}
#define FP_OPQ
#define INT_OPQ OPAQUE(x);

#define ST_PD(p, x)   _mm_store_pd((double *)(p), x)
#define ST_SI(p, x)   _mm_store_si128((__m128i *)(p), x)
#define ST_PD256(p, x) _mm256_store_pd((double *)(p), x)
#define ST_SI256(p, x) _mm256_store_si256((__m256i *)(p), x)
#define ST_PD512(p, x) _mm512_store_pd(p, x)
#define ST_SI512(p, x) _mm512_store_si512(p, x)
#define SET1_Q(v)      _mm_set1_epi64x((long long)(v))
#define SET1_Q256(v)   _mm256_set1_epi64x((long long)(v))
#define SET1_Q512(v)   _mm512_set1_epi64((long long)(v))

/* clang-format off */
DEF_CHAIN(cpu_chain_sse_fp, __attribute__((target("sse2"))), __m128d, double, _mm_set1_pd,
	  _mm_add_pd, ST_PD, 1.0, FP_OPQ)
DEF_CHAIN(cpu_chain_sse_int, __attribute__((target("sse2"))), __m128i, uint64_t, SET1_Q,
	  _mm_add_epi64, ST_SI, 1, INT_OPQ)
DEF_CHAIN(cpu_chain_avx_fp, __attribute__((target("avx"))), __m256d, double, _mm256_set1_pd,
	  _mm256_add_pd, ST_PD256, 1.0, FP_OPQ)
DEF_CHAIN(cpu_chain_avx2_int, __attribute__((target("avx2"))), __m256i, uint64_t, SET1_Q256,
	  _mm256_add_epi64, ST_SI256, 1, INT_OPQ)
DEF_CHAIN(cpu_chain_avx512_fp, __attribute__((target("avx512f"))), __m512d, double,
	  _mm512_set1_pd, _mm512_add_pd, ST_PD512, 1.0, FP_OPQ)
DEF_CHAIN(cpu_chain_avx512_int, __attribute__((target("avx512f"))), __m512i, uint64_t,
	  SET1_Q512, _mm512_add_epi64, ST_SI512, 1, INT_OPQ)
/* clang-format on */
