/* AVX2 + FMA kernels (256-bit ymm): FMA in single and double precision, integer add on
 * 32- and 64-bit lanes, multiply mix on 32-bit lanes (no 64-bit lane multiply before
 * AVX-512DQ). */
#include <immintrin.h>

#include "cpu_simd.h"

#define TGT_FMA  __attribute__((target("avx2,fma")))
#define TGT_AVX2 __attribute__((target("avx2")))

#define V_T              __m256d
#define V_FIELD          f64
#define V_LANES          4
#define V_CFIELD         f64
#define V_LOAD(p)        _mm256_load_pd(p)
#define V_STORE(p, x)    _mm256_store_pd(p, x)
#define V_SET1(x)        _mm256_set1_pd(x)
#define V_FMADD(a, b, c) _mm256_fmadd_pd(a, b, c)
CPU_DEF_FMA(cpu_k_avx2_dp_fma, TGT_FMA)
#undef V_T
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_FMADD

#define V_T              __m256
#define V_FIELD          f32
#define V_LANES          8
#define V_CFIELD         f32
#define V_LOAD(p)        _mm256_load_ps(p)
#define V_STORE(p, x)    _mm256_store_ps(p, x)
#define V_SET1(x)        _mm256_set1_ps(x)
#define V_FMADD(a, b, c) _mm256_fmadd_ps(a, b, c)
CPU_DEF_FMA(cpu_k_avx2_sp_fma, TGT_FMA)
#undef V_T
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_FMADD

#define V_T           __m256i
#define V_LOAD(p)     _mm256_load_si256((const __m256i *)(const void *)(p))
#define V_STORE(p, x) _mm256_store_si256((__m256i *)(void *)(p), x)

#define V_FIELD       u32
#define V_LANES       8
#define V_CFIELD      u32
#define V_SET1(x)     _mm256_set1_epi32((int)(x))
#define V_ADD(a, b)   _mm256_add_epi32(a, b)
#define V_MULLO(a, b) _mm256_mullo_epi32(a, b)
CPU_DEF_IADD(cpu_k_avx2_i32_add, TGT_AVX2)
CPU_DEF_IMULMIX(cpu_k_avx2_i32_mulmix, TGT_AVX2)
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_SET1
#undef V_ADD
#undef V_MULLO

#define V_FIELD     u64
#define V_LANES     4
#define V_CFIELD    u64
#define V_SET1(x)   _mm256_set1_epi64x((long long)(x))
#define V_ADD(a, b) _mm256_add_epi64(a, b)
CPU_DEF_IADD(cpu_k_avx2_i64_add, TGT_AVX2)
CPU_DEF_CHAIN(cpu_chain_avx2_int, TGT_AVX2, 1, CPU_CHAIN_STEP_INT)
