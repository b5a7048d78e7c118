/* NEON (Advanced SIMD) membench kernels for aarch64, where every core has them. The unit
 * is a pair of q registers (32 bytes): AArch64 loads and stores pairs (ldp/stp q), and its
 * non-temporal store, stnp, exists only as a pair, so the x86 NT-store paths become stnp. */
#include <arm_neon.h>

#include "mem_kernels.h"

typedef struct {
	uint64x2_t lo, hi;
} mem_neon_vi;
typedef struct {
	float64x2_t lo, hi;
} mem_neon_vd;

static inline mem_neon_vi vi_load(const void *p)
{
	const uint64_t *q = p;
	return (mem_neon_vi){vld1q_u64(q), vld1q_u64(q + 2)};
}
static inline void vi_store(void *p, mem_neon_vi v)
{
	uint64_t *q = p;
	vst1q_u64(q, v.lo);
	vst1q_u64(q + 2, v.hi);
}
static inline void vi_stream(void *p, mem_neon_vi v)
{
	__asm__ volatile("stnp %q[a], %q[b], [%[p]]"
			 :
			 : [a] "w"(v.lo), [b] "w"(v.hi), [p] "r"(p)
			 : "memory");
}
static inline mem_neon_vi vi_add(mem_neon_vi a, mem_neon_vi b)
{
	return (mem_neon_vi){vaddq_u64(a.lo, b.lo), vaddq_u64(a.hi, b.hi)};
}
static inline mem_neon_vi vi_set1(uint64_t x)
{
	return (mem_neon_vi){vdupq_n_u64(x), vdupq_n_u64(x)};
}
static inline mem_neon_vd vd_load(const double *p)
{
	return (mem_neon_vd){vld1q_f64(p), vld1q_f64(p + 2)};
}
static inline void vd_store(double *p, mem_neon_vd v)
{
	vst1q_f64(p, v.lo);
	vst1q_f64(p + 2, v.hi);
}
static inline void vd_stream(double *p, mem_neon_vd v)
{
	__asm__ volatile("stnp %q[a], %q[b], [%[p]]"
			 :
			 : [a] "w"(v.lo), [b] "w"(v.hi), [p] "r"(p)
			 : "memory");
}
static inline mem_neon_vd vd_set1(double x)
{
	return (mem_neon_vd){vdupq_n_f64(x), vdupq_n_f64(x)};
}
static inline mem_neon_vd vd_add(mem_neon_vd a, mem_neon_vd b)
{
	return (mem_neon_vd){vaddq_f64(a.lo, b.lo), vaddq_f64(a.hi, b.hi)};
}
static inline mem_neon_vd vd_mul(mem_neon_vd a, mem_neon_vd b)
{
	return (mem_neon_vd){vmulq_f64(a.lo, b.lo), vmulq_f64(a.hi, b.hi)};
}

/* Sums reduce through MEM_STORE into words (mem_simd_impl.h), so the pair is stored as
 * 4 words. */
#define MEM_TARGET        "+simd"
#define MEM_VI            mem_neon_vi
#define MEM_VD            mem_neon_vd
#define MEM_LOAD(p)       vi_load(p)
#define MEM_STORE(p, v)   vi_store((p), (v))
#define MEM_STREAM(p, v)  vi_stream((p), (v))
#define MEM_ADD64(a, b)   vi_add((a), (b))
#define MEM_SET1_64(x)    vi_set1((uint64_t)(x))
#define MEM_ZERO()        vi_set1(0)
#define MEM_LOADD(p)      vd_load(p)
#define MEM_STORED(p, v)  vd_store((p), (v))
#define MEM_STREAMD(p, v) vd_stream((p), (v))
#define MEM_SET1D(x)      vd_set1(x)
#define MEM_ADDD(a, b)    vd_add((a), (b))
#define MEM_MULD(a, b)    vd_mul((a), (b))
/* stnp is ordered like any store for this thread; the barrier orders it for the others
 * as sfence does on x86. */
#define MEM_FENCE() __asm__ volatile("dmb ishst" ::: "memory")

#include "mem_simd_impl.h"

const struct mem_ops mem_ops_neon = {
    .name = "neon",
    .isa = MEM_ISA_NEON,
    .vector_bytes = 16,
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
