/* AVX2 (256-bit) membench kernels; compiled with target("avx2"), run only when the CPU
 * reports AVX2. */
#include <immintrin.h>

#include "mem_kernels.h"

#define MEM_TARGET        "avx2"
#define MEM_VI            __m256i
#define MEM_VD            __m256d
#define MEM_LOAD(p)       _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define MEM_STORE(p, v)   _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define MEM_STREAM(p, v)  _mm256_stream_si256((__m256i *)(void *)(p), (v))
#define MEM_ADD64(a, b)   _mm256_add_epi64((a), (b))
#define MEM_SET1_64(x)    _mm256_set1_epi64x((long long)(x))
#define MEM_ZERO()        _mm256_setzero_si256()
#define MEM_LOADD(p)      _mm256_loadu_pd(p)
#define MEM_STORED(p, v)  _mm256_storeu_pd((p), (v))
#define MEM_STREAMD(p, v) _mm256_stream_pd((p), (v))
#define MEM_SET1D(x)      _mm256_set1_pd(x)
#define MEM_ADDD(a, b)    _mm256_add_pd((a), (b))
#define MEM_MULD(a, b)    _mm256_mul_pd((a), (b))

#include "mem_simd_impl.h"

const struct mem_ops mem_ops_avx2 = {
    .name = "avx2",
    .isa = MEM_ISA_AVX2,
    .vector_bytes = 32,
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
