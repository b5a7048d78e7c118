/* membench kernels: block copy / sum / fill walkers and the four STREAM kernels, one
 * table of function pointers per ISA (scalar; x86-64: SSE2, AVX2, AVX-512; aarch64:
 * NEON, SVE), chosen at run time. */
#ifndef MEM_KERNELS_H
#define MEM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mem_isa {
	MEM_ISA_SCALAR,
	MEM_ISA_SSE2,
	MEM_ISA_AVX2,
	MEM_ISA_AVX512,
	MEM_ISA_NEON,
	MEM_ISA_SVE,
	MEM_ISA_COUNT
};

/* Which blocks a walker visits: `count` visits starting at position `pos` of a cycle of
 * `nblocks` positions; position i is block order[i], or block i when order is NULL
 * (sequential). Walkers wrap around at nblocks. Block b starts at base + b * block_bytes.
 * block_bytes is a multiple of 8. nt asks for non-temporal stores (callers only ask when
 * block_bytes and the base are multiples of 64). */
struct mem_walk {
	size_t block_bytes;
	const uint32_t *order;
	size_t nblocks;
	size_t pos;
	uint64_t count;
	bool nt;
};

/* The block at position pos of a walk: the random order's, or pos itself. */
static inline size_t mem_walk_block(const struct mem_walk *w, size_t pos)
{
	return w->order ? (size_t)w->order[pos] : pos;
}

struct mem_ops {
	const char *name; /* "scalar", "sse2", "avx2", "avx512", "neon", "sve" */
	enum mem_isa isa;
	unsigned vector_bytes; /* 0 for SVE: its length is the process's, known at run time */
	/* Copy every visited block b: dst_base's block b = src_base's block b. */
	void (*copy)(char *dst_base, const char *src_base, const struct mem_walk *w);
	/* Wrapping 64-bit sum of every word of every visited block. */
	uint64_t (*sum)(const char *src_base, const struct mem_walk *w);
	/* Store `value` in every word of every visited block. */
	void (*fill)(char *dst_base, uint64_t value, const struct mem_walk *w);
	/* STREAM kernels over n doubles (nt: non-temporal stores; arrays 64-byte aligned). */
	void (*stream_copy)(double *c, const double *a, size_t n, bool nt);
	void (*stream_scale)(double *b, const double *c, double s, size_t n, bool nt);
	void (*stream_add)(double *c, const double *a, const double *b, size_t n, bool nt);
	void (*stream_triad)(double *a, const double *b, const double *c, double s, size_t n,
			     bool nt);
};

extern const struct mem_ops mem_ops_scalar;
#if defined(__x86_64__)
extern const struct mem_ops mem_ops_sse2;
extern const struct mem_ops mem_ops_avx2;
extern const struct mem_ops mem_ops_avx512;
#endif
#if defined(__aarch64__)
extern const struct mem_ops mem_ops_neon;
extern const struct mem_ops mem_ops_sve;
#endif
/* --isa's choices: "auto" and this build's ISAs (x86-64: scalar, sse2, avx2, avx512;
 * aarch64: scalar, neon, sve), NULL-terminated. */
extern const char *const mem_isa_choices[];

/* One 8-byte non-temporal store, and the fence after a run of them (the scalar kernels').
 * x86-64: movnti and sfence. aarch64: stnp of the two 32-bit halves (its only
 * non-temporal stores are pairs) and dmb ishst. */
#if defined(__x86_64__)
#include <emmintrin.h>
static inline void mem_stream8(void *p, uint64_t x)
{
	_mm_stream_si64((long long *)p, (long long)x);
}
static inline void mem_nt_fence(void)
{
	_mm_sfence();
}
#else
static inline void mem_stream8(void *p, uint64_t x)
{
	__asm__ volatile("stnp %w[lo], %w[hi], [%[p]]"
			 :
			 : [lo] "r"(x), [hi] "r"(x >> 32), [p] "r"(p)
			 : "memory");
}
static inline void mem_nt_fence(void)
{
	__asm__ volatile("dmb ishst" ::: "memory");
}
#endif

/* Ops of an ISA (never NULL: the scalar ones for an ISA of another architecture, which
 * mem_isa_supported refuses first). */
const struct mem_ops *mem_ops_for(enum mem_isa isa);
/* True when this CPU runs the ISA; otherwise reason says why not. */
bool mem_isa_supported(enum mem_isa isa, char *reason, size_t reason_len);
/* Widest ISA this CPU runs. */
enum mem_isa mem_isa_best(void);
/* An ISA's name ("sve"), of either architecture. */
const char *mem_isa_name(enum mem_isa isa);
/* "auto" gives -2; an ISA name its enum; anything else -1. */
int mem_isa_parse(const char *name);

#endif
