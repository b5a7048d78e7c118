/* membench kernels: block copy / sum / fill walkers and the four STREAM kernels, one
 * table of function pointers per ISA (scalar, SSE2, AVX2, AVX-512), chosen at run time. */
#ifndef MEM_KERNELS_H
#define MEM_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mem_isa { MEM_ISA_SCALAR, MEM_ISA_SSE2, MEM_ISA_AVX2, MEM_ISA_AVX512, MEM_ISA_COUNT };

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

struct mem_ops {
	const char *name; /* "scalar", "sse2", "avx2", "avx512" */
	enum mem_isa isa;
	unsigned vector_bytes;
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
extern const struct mem_ops mem_ops_sse2;
extern const struct mem_ops mem_ops_avx2;
extern const struct mem_ops mem_ops_avx512;

/* Ops of an ISA (never NULL). */
const struct mem_ops *mem_ops_for(enum mem_isa isa);
/* True when this CPU runs the ISA; otherwise reason says why not. */
bool mem_isa_supported(enum mem_isa isa, char *reason, size_t reason_len);
/* Widest ISA this CPU runs. */
enum mem_isa mem_isa_best(void);
/* "auto" gives -2; an ISA name its enum; anything else -1. */
int mem_isa_parse(const char *name);

#endif
