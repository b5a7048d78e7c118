/* AVX-512 kernels (512-bit zmm): FMA in single and double precision, integer add and
 * multiply mix on 32- and 64-bit lanes (vpmullq needs AVX-512DQ). */
#include <immintrin.h>

#include "cpu_simd.h"

#define TGT_F  __attribute__((target("avx512f")))
#define TGT_DQ __attribute__((target("avx512f,avx512dq")))

#define V_T              __m512d
#define V_FIELD          f64
#define V_LANES          8
#define V_CFIELD         f64
#define V_LOAD(p)        _mm512_load_pd(p)
#define V_STORE(p, x)    _mm512_store_pd(p, x)
#define V_SET1(x)        _mm512_set1_pd(x)
#define V_FMADD(a, b, c) _mm512_fmadd_pd(a, b, c)
#define V_ADD(a, b)      _mm512_add_pd(a, b)
CPU_DEF_FMA(cpu_k_avx512_dp_fma, TGT_F)
CPU_DEF_CHAIN(cpu_chain_avx512_fp, TGT_F, 1.0, CPU_CHAIN_STEP_FP)
#undef V_T
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_FMADD
#undef V_ADD

#define V_T              __m512
#define V_FIELD          f32
#define V_LANES          16
#define V_CFIELD         f32
#define V_LOAD(p)        _mm512_load_ps(p)
#define V_STORE(p, x)    _mm512_store_ps(p, x)
#define V_SET1(x)        _mm512_set1_ps(x)
#define V_FMADD(a, b, c) _mm512_fmadd_ps(a, b, c)
CPU_DEF_FMA(cpu_k_avx512_sp_fma, TGT_F)
#undef V_T
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_LOAD
#undef V_STORE
#undef V_SET1
#undef V_FMADD

#define V_T           __m512i
#define V_LOAD(p)     _mm512_load_si512((const void *)(p))
#define V_STORE(p, x) _mm512_store_si512((void *)(p), x)

#define V_FIELD       u32
#define V_LANES       16
#define V_CFIELD      u32
#define V_SET1(x)     _mm512_set1_epi32((int)(x))
#define V_ADD(a, b)   _mm512_add_epi32(a, b)
#define V_MULLO(a, b) _mm512_mullo_epi32(a, b)
CPU_DEF_IADD(cpu_k_avx512_i32_add, TGT_F)
CPU_DEF_IMULMIX(cpu_k_avx512_i32_mulmix, TGT_F)
#undef V_FIELD
#undef V_LANES
#undef V_CFIELD
#undef V_SET1
#undef V_ADD
#undef V_MULLO

#define V_FIELD       u64
#define V_LANES       8
#define V_CFIELD      u64
#define V_SET1(x)     _mm512_set1_epi64((long long)(x))
#define V_ADD(a, b)   _mm512_add_epi64(a, b)
#define V_MULLO(a, b) _mm512_mullo_epi64(a, b)
CPU_DEF_IADD(cpu_k_avx512_i64_add, TGT_F)
CPU_DEF_IMULMIX(cpu_k_avx512_i64_mulmix, TGT_DQ)
CPU_DEF_CHAIN(cpu_chain_avx512_int, TGT_F, 1, CPU_CHAIN_STEP_INT)
