/* The SIMD kernels, written once and compiled per ISA: mem_simd_{sse2,avx2,avx512,neon}.c
 * define the vector type and intrinsics below, then include this file. Every function
 * carries the ISA's target attribute, so the suite never needs -march. */
#include <string.h>

#ifndef MEM_TARGET
#error "define MEM_TARGET and the MEM_* intrinsics before including mem_simd_impl.h"
#endif

/* After non-temporal stores: x86's sfence (their weak order); a file may name its own. */
#ifndef MEM_FENCE
#define MEM_FENCE() _mm_sfence()
#endif

#define MEM_FN  static __attribute__((target(MEM_TARGET)))
#define MEM_INL static inline __attribute__((target(MEM_TARGET), always_inline))
#define VB      ((size_t)sizeof(MEM_VI))
#define VD      (VB / sizeof(double))

/* Unrolled by 4 vectors: enough independent loads and stores in flight to keep the
 * load/store ports busy; the block copy is then bound by memory, not by the loop. */
MEM_INL void copy_block(char *d, const char *s, size_t bytes, bool nt)
{
	size_t i = 0;
	if (nt) {
		for (; i + 4 * VB <= bytes; i += 4 * VB) {
			MEM_VI v0 = MEM_LOAD(s + i), v1 = MEM_LOAD(s + i + VB);
			MEM_VI v2 = MEM_LOAD(s + i + 2 * VB), v3 = MEM_LOAD(s + i + 3 * VB);
			MEM_STREAM(d + i, v0);
			MEM_STREAM(d + i + VB, v1);
			MEM_STREAM(d + i + 2 * VB, v2);
			MEM_STREAM(d + i + 3 * VB, v3);
		}
		for (; i + VB <= bytes; i += VB)
			MEM_STREAM(d + i, MEM_LOAD(s + i));
	} else {
		for (; i + 4 * VB <= bytes; i += 4 * VB) {
			MEM_VI v0 = MEM_LOAD(s + i), v1 = MEM_LOAD(s + i + VB);
			MEM_VI v2 = MEM_LOAD(s + i + 2 * VB), v3 = MEM_LOAD(s + i + 3 * VB);
			MEM_STORE(d + i, v0);
			MEM_STORE(d + i + VB, v1);
			MEM_STORE(d + i + 2 * VB, v2);
			MEM_STORE(d + i + 3 * VB, v3);
		}
		for (; i + VB <= bytes; i += VB)
			MEM_STORE(d + i, MEM_LOAD(s + i));
	}
	for (; i < bytes; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		memcpy(d + i, &x, 8);
	}
}

MEM_INL void fill_block(char *d, MEM_VI v, uint64_t value, size_t bytes, bool nt)
{
	size_t i = 0;
	if (nt) {
		for (; i + 4 * VB <= bytes; i += 4 * VB) {
			MEM_STREAM(d + i, v);
			MEM_STREAM(d + i + VB, v);
			MEM_STREAM(d + i + 2 * VB, v);
			MEM_STREAM(d + i + 3 * VB, v);
		}
		for (; i + VB <= bytes; i += VB)
			MEM_STREAM(d + i, v);
	} else {
		for (; i + 4 * VB <= bytes; i += 4 * VB) {
			MEM_STORE(d + i, v);
			MEM_STORE(d + i + VB, v);
			MEM_STORE(d + i + 2 * VB, v);
			MEM_STORE(d + i + 3 * VB, v);
		}
		for (; i + VB <= bytes; i += VB)
			MEM_STORE(d + i, v);
	}
	for (; i < bytes; i += 8)
		memcpy(d + i, &value, 8);
}

/* Four accumulators: one add per load, never a dependency chain longer than the loads. */
MEM_INL uint64_t sum_block(const char *s, size_t bytes, MEM_VI *a0, MEM_VI *a1, MEM_VI *a2,
			   MEM_VI *a3)
{
	size_t i = 0;
	uint64_t tail = 0;
	for (; i + 4 * VB <= bytes; i += 4 * VB) {
		*a0 = MEM_ADD64(*a0, MEM_LOAD(s + i));
		*a1 = MEM_ADD64(*a1, MEM_LOAD(s + i + VB));
		*a2 = MEM_ADD64(*a2, MEM_LOAD(s + i + 2 * VB));
		*a3 = MEM_ADD64(*a3, MEM_LOAD(s + i + 3 * VB));
	}
	for (; i + VB <= bytes; i += VB)
		*a0 = MEM_ADD64(*a0, MEM_LOAD(s + i));
	for (; i < bytes; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		tail += x;
	}
	return tail;
}

MEM_FN void walk_copy(char *dst, const char *src, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	for (uint64_t left = w->count; left > 0; left--) {
		size_t off = mem_walk_block(w, pos) * bb;
		copy_block(dst + off, src + off, bb, w->nt);
		if (++pos == w->nblocks)
			pos = 0;
	}
	if (w->nt)
		MEM_FENCE();
}

MEM_FN uint64_t walk_sum(const char *src, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	MEM_VI a0 = MEM_ZERO(), a1 = MEM_ZERO(), a2 = MEM_ZERO(), a3 = MEM_ZERO();
	uint64_t total = 0;
	for (uint64_t left = w->count; left > 0; left--) {
		total += sum_block(src + mem_walk_block(w, pos) * bb, bb, &a0, &a1, &a2, &a3);
		if (++pos == w->nblocks)
			pos = 0;
	}
	a0 = MEM_ADD64(MEM_ADD64(a0, a1), MEM_ADD64(a2, a3));
	uint64_t lanes[VB / 8];
	memcpy(lanes, &a0, VB);
	for (size_t k = 0; k < VB / 8; k++)
		total += lanes[k];
	return total;
}

MEM_FN void walk_fill(char *dst, uint64_t value, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	MEM_VI v = MEM_SET1_64(value);
	for (uint64_t left = w->count; left > 0; left--) {
		fill_block(dst + mem_walk_block(w, pos) * bb, v, value, bb, w->nt);
		if (++pos == w->nblocks)
			pos = 0;
	}
	if (w->nt)
		MEM_FENCE();
}

/* STREAM kernels: the arithmetic of the reference (no FMA, so results round the same
 * way as STREAM's C code), two vectors per iteration, scalar tail. */
#define STREAM_STORE(nt, p, v)                                                                     \
	do {                                                                                       \
		if (nt)                                                                            \
			MEM_STREAMD(p, v);                                                         \
		else                                                                               \
			MEM_STORED(p, v);                                                          \
	} while (0)

MEM_FN void s_copy(double *c, const double *a, size_t n, bool nt)
{
	size_t j = 0;
	for (; j + 2 * VD <= n; j += 2 * VD) {
		MEM_VD x0 = MEM_LOADD(a + j), x1 = MEM_LOADD(a + j + VD);
		STREAM_STORE(nt, c + j, x0);
		STREAM_STORE(nt, c + j + VD, x1);
	}
	for (; j < n; j++)
		c[j] = a[j];
	if (nt)
		MEM_FENCE();
}

MEM_FN void s_scale(double *b, const double *c, double s, size_t n, bool nt)
{
	MEM_VD vs = MEM_SET1D(s);
	size_t j = 0;
	for (; j + 2 * VD <= n; j += 2 * VD) {
		MEM_VD x0 = MEM_MULD(vs, MEM_LOADD(c + j));
		MEM_VD x1 = MEM_MULD(vs, MEM_LOADD(c + j + VD));
		STREAM_STORE(nt, b + j, x0);
		STREAM_STORE(nt, b + j + VD, x1);
	}
	for (; j < n; j++)
		b[j] = s * c[j];
	if (nt)
		MEM_FENCE();
}

MEM_FN void s_add(double *c, const double *a, const double *b, size_t n, bool nt)
{
	size_t j = 0;
	for (; j + 2 * VD <= n; j += 2 * VD) {
		MEM_VD x0 = MEM_ADDD(MEM_LOADD(a + j), MEM_LOADD(b + j));
		MEM_VD x1 = MEM_ADDD(MEM_LOADD(a + j + VD), MEM_LOADD(b + j + VD));
		STREAM_STORE(nt, c + j, x0);
		STREAM_STORE(nt, c + j + VD, x1);
	}
	for (; j < n; j++)
		c[j] = a[j] + b[j];
	if (nt)
		MEM_FENCE();
}

MEM_FN void s_triad(double *a, const double *b, const double *c, double s, size_t n, bool nt)
{
	MEM_VD vs = MEM_SET1D(s);
	size_t j = 0;
	for (; j + 2 * VD <= n; j += 2 * VD) {
		MEM_VD x0 = MEM_ADDD(MEM_LOADD(b + j), MEM_MULD(vs, MEM_LOADD(c + j)));
		MEM_VD x1 = MEM_ADDD(MEM_LOADD(b + j + VD), MEM_MULD(vs, MEM_LOADD(c + j + VD)));
		STREAM_STORE(nt, a + j, x0);
		STREAM_STORE(nt, a + j + VD, x1);
	}
	for (; j < n; j++)
		a[j] = b[j] + s * c[j];
	if (nt)
		MEM_FENCE();
}

#undef STREAM_STORE
