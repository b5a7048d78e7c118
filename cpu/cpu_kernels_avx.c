/* AVX kernels (256-bit ymm floating point without FMA: Sandy Bridge, Ivy Bridge): the
 * add+mul kernel, and the vaddpd ymm frequency chain the AVX2 rows use too. */
#include <immintrin.h>

#include "cpu_simd.h"

#define TGT_AVX __attribute__((target("avx")))

#define V_T           __m256d
#define V_FIELD       f64
#define V_LANES       4
#define V_CFIELD      f64
#define V_LOAD(p)     _mm256_load_pd(p)
#define V_STORE(p, x) _mm256_store_pd(p, x)
#define V_SET1(x)     _mm256_set1_pd(x)
#define V_ADD(a, b)   _mm256_add_pd(a, b)
#define V_SUB(a, b)   _mm256_sub_pd(a, b)
#define V_MUL(a, b)   _mm256_mul_pd(a, b)
CPU_DEF_ADDMUL(cpu_k_avx_dp_addmul, TGT_AVX)
CPU_DEF_CHAIN(cpu_chain_avx_fp, TGT_AVX, 1.0, CPU_CHAIN_STEP_FP)
#undef V_T
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_ADD
#undef V_SUB
#undef V_MUL

#define V_T           __m256
#define V_FIELD       f32
#define V_LANES       8
#define V_CFIELD      f32
#define V_LOAD(p)     _mm256_load_ps(p)
#define V_STORE(p, x) _mm256_store_ps(p, x)
#define V_SET1(x)     _mm256_set1_ps(x)
#define V_ADD(a, b)   _mm256_add_ps(a, b)
#define V_SUB(a, b)   _mm256_sub_ps(a, b)
#define V_MUL(a, b)   _mm256_mul_ps(a, b)
CPU_DEF_ADDMUL(cpu_k_avx_sp_addmul, TGT_AVX)
