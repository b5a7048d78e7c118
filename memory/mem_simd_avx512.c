/* AVX-512 (512-bit) membench kernels; compiled with target("avx512f"), run only when the
 * CPU reports AVX-512F. */
#include <immintrin.h>

#include "mem_kernels.h"

#define MEM_TARGET        "avx512f"
#define MEM_VI            __m512i
#define MEM_VD            __m512d
#define MEM_LOAD(p)       _mm512_loadu_si512((const void *)(p))
#define MEM_STORE(p, v)   _mm512_storeu_si512((void *)(p), (v))
#define MEM_STREAM(p, v)  _mm512_stream_si512((void *)(p), (v))
#define MEM_ADD64(a, b)   _mm512_add_epi64((a), (b))
#define MEM_SET1_64(x)    _mm512_set1_epi64((long long)(x))
#define MEM_ZERO()        _mm512_setzero_si512()
#define MEM_LOADD(p)      _mm512_loadu_pd(p)
#define MEM_STORED(p, v)  _mm512_storeu_pd((p), (v))
#define MEM_STREAMD(p, v) _mm512_stream_pd((p), (v))
#define MEM_SET1D(x)      _mm512_set1_pd(x)
#define MEM_ADDD(a, b)    _mm512_add_pd((a), (b))
#define MEM_MULD(a, b)    _mm512_mul_pd((a), (b))

#include "mem_simd_impl.h"

const struct mem_ops mem_ops_avx512 = {
    .name = "avx512",
    .isa = MEM_ISA_AVX512,
    .vector_bytes = 64,
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
