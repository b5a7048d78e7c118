/* SSE kernels (128-bit xmm, legacy encoding): add+mul in single and double precision
 * (SSE has no FMA), integer add on 32- and 64-bit lanes, multiply mix on 32-bit lanes
 * (pmulld, SSE4.1). */
#include <immintrin.h>

#include "cpu_simd.h"

#define TGT_SSE2  __attribute__((target("sse2")))
#define TGT_SSE41 __attribute__((target("sse4.1")))

#define V_T           __m128d
#define V_FIELD       f64
#define V_LANES       2
#define V_CFIELD      f64
#define V_LOAD(p)     _mm_load_pd(p)
#define V_STORE(p, x) _mm_store_pd(p, x)
#define V_SET1(x)     _mm_set1_pd(x)
#define V_ADD(a, b)   _mm_add_pd(a, b)
#define V_SUB(a, b)   _mm_sub_pd(a, b)
#define V_MUL(a, b)   _mm_mul_pd(a, b)
CPU_DEF_ADDMUL(cpu_k_sse_dp_addmul, TGT_SSE2)
CPU_DEF_CHAIN(cpu_chain_sse_fp, TGT_SSE2, 1.0, CPU_CHAIN_STEP_FP)
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

#define V_T           __m128
#define V_FIELD       f32
#define V_LANES       4
#define V_CFIELD      f32
#define V_LOAD(p)     _mm_load_ps(p)
#define V_STORE(p, x) _mm_store_ps(p, x)
#define V_SET1(x)     _mm_set1_ps(x)
#define V_ADD(a, b)   _mm_add_ps(a, b)
#define V_SUB(a, b)   _mm_sub_ps(a, b)
#define V_MUL(a, b)   _mm_mul_ps(a, b)
CPU_DEF_ADDMUL(cpu_k_sse_sp_addmul, TGT_SSE2)
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

#define V_T           __m128i
#define V_LOAD(p)     _mm_load_si128((const __m128i *)(const void *)(p))
#define V_STORE(p, x) _mm_store_si128((__m128i *)(void *)(p), x)

#define V_FIELD       u32
#define V_LANES       4
#define V_CFIELD      u32
#define V_SET1(x)     _mm_set1_epi32((int)(x))
#define V_ADD(a, b)   _mm_add_epi32(a, b)
#define V_MULLO(a, b) _mm_mullo_epi32(a, b)
CPU_DEF_IADD(cpu_k_sse_i32_add, TGT_SSE2)
CPU_DEF_IMULMIX(cpu_k_sse_i32_mulmix, TGT_SSE41)
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_SET1
#undef V_ADD
#undef V_MULLO

#define V_FIELD     u64
#define V_LANES     2
#define V_CFIELD    u64
#define V_SET1(x)   _mm_set1_epi64x((long long)(x))
#define V_ADD(a, b) _mm_add_epi64(a, b)
CPU_DEF_IADD(cpu_k_sse_i64_add, TGT_SSE2)
CPU_DEF_CHAIN(cpu_chain_sse_int, TGT_SSE2, 1, CPU_CHAIN_STEP_INT)
