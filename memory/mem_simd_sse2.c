/* SSE2 (128-bit) membench kernels: the x86-64 baseline, so they run everywhere. */
#include <immintrin.h>

#include "mem_kernels.h"

#define MEM_TARGET        "sse2"
#define MEM_VI            __m128i
#define MEM_VD            __m128d
#define MEM_LOAD(p)       _mm_loadu_si128((const __m128i *)(const void *)(p))
#define MEM_STORE(p, v)   _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define MEM_STREAM(p, v)  _mm_stream_si128((__m128i *)(void *)(p), (v))
#define MEM_ADD64(a, b)   _mm_add_epi64((a), (b))
#define MEM_SET1_64(x)    _mm_set1_epi64x((long long)(x))
#define MEM_ZERO()        _mm_setzero_si128()
#define MEM_LOADD(p)      _mm_loadu_pd(p)
#define MEM_STORED(p, v)  _mm_storeu_pd((p), (v))
#define MEM_STREAMD(p, v) _mm_stream_pd((p), (v))
#define MEM_SET1D(x)      _mm_set1_pd(x)
#define MEM_ADDD(a, b)    _mm_add_pd((a), (b))
#define MEM_MULD(a, b)    _mm_mul_pd((a), (b))

#include "mem_simd_impl.h"

const struct mem_ops mem_ops_sse2 = {
    .name = "sse2",
    .isa = MEM_ISA_SSE2,
    .vector_bytes = 16,
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
