/* SVE membench kernels for aarch64, at whatever vector length this process runs with
 * (svcntd() at run time: 128 to 2048 bits, never a table). Compiled for +sve alone
 * (memory/CMakeLists.txt) and chosen only where HWCAP_SVE is set (mem_kernels.c).
 * SVE vectors have no size at compile time, so the kernels cannot share
 * mem_simd_impl.h (sizeof, arrays of vectors): they follow its structure, with a
 * predicated tail (whilelt) where the fixed-width kernels finish with scalar words. */
#include <arm_sve.h>

#include "mem_kernels.h"

/* Whole 64-bit words; block_bytes is a multiple of 8 and bases are 8-byte aligned. */
#define W64(p)  ((uint64_t *)(void *)(p))
#define CW64(p) ((const uint64_t *)(const void *)(p))

/* One vector of words: stnt1d (the non-temporal hint) where x86 streams, else st1d. */
static inline void st_u64(svbool_t pg, uint64_t *p, svuint64_t v, bool nt)
{
	if (nt)
		svstnt1_u64(pg, p, v);
	else
		svst1_u64(pg, p, v);
}

static inline void st_f64(svbool_t pg, double *p, svfloat64_t v, bool nt)
{
	if (nt)
		svstnt1_f64(pg, p, v);
	else
		svst1_f64(pg, p, v);
}

/* Unrolled by 4 vectors as the fixed-width kernels are: enough loads and stores in
 * flight to keep the ports busy. svld1_vnum addresses vector k after p, whatever VL is. */
static inline void copy_block(uint64_t *d, const uint64_t *s, size_t words, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	size_t i = 0;
	for (; i + 4 * vl <= words; i += 4 * vl) {
		svuint64_t v0 = svld1_u64(all, s + i), v1 = svld1_vnum_u64(all, s + i, 1);
		svuint64_t v2 = svld1_vnum_u64(all, s + i, 2), v3 = svld1_vnum_u64(all, s + i, 3);
		st_u64(all, d + i, v0, nt);
		st_u64(all, d + i + vl, v1, nt);
		st_u64(all, d + i + 2 * vl, v2, nt);
		st_u64(all, d + i + 3 * vl, v3, nt);
	}
	for (; i < words; i += vl) {
		svbool_t pg = svwhilelt_b64_u64(i, words);
		st_u64(pg, d + i, svld1_u64(pg, s + i), nt);
	}
}

static inline void fill_block(uint64_t *d, svuint64_t v, size_t words, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	size_t i = 0;
	for (; i + 4 * vl <= words; i += 4 * vl) {
		st_u64(all, d + i, v, nt);
		st_u64(all, d + i + vl, v, nt);
		st_u64(all, d + i + 2 * vl, v, nt);
		st_u64(all, d + i + 3 * vl, v, nt);
	}
	for (; i < words; i += vl)
		st_u64(svwhilelt_b64_u64(i, words), d + i, v, nt);
}

/* Four accumulators: one add per load, never a chain longer than the loads. The tail's
 * inactive lanes load as zero, so adding the whole vector adds only the block's words. */
static inline void sum_block(const uint64_t *s, size_t words, svuint64_t *a0, svuint64_t *a1,
			     svuint64_t *a2, svuint64_t *a3)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	size_t i = 0;
	for (; i + 4 * vl <= words; i += 4 * vl) {
		*a0 = svadd_u64_x(all, *a0, svld1_u64(all, s + i));
		*a1 = svadd_u64_x(all, *a1, svld1_vnum_u64(all, s + i, 1));
		*a2 = svadd_u64_x(all, *a2, svld1_vnum_u64(all, s + i, 2));
		*a3 = svadd_u64_x(all, *a3, svld1_vnum_u64(all, s + i, 3));
	}
	for (; i < words; i += vl)
		*a0 = svadd_u64_x(all, *a0, svld1_u64(svwhilelt_b64_u64(i, words), s + i));
}

static void walk_copy(char *dst, const char *src, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	for (uint64_t left = w->count; left > 0; left--) {
		size_t off = mem_walk_block(w, pos) * bb;
		copy_block(W64(dst + off), CW64(src + off), bb / 8, w->nt);
		if (++pos == w->nblocks)
			pos = 0;
	}
	if (w->nt)
		mem_nt_fence();
}

static uint64_t walk_sum(const char *src, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	svuint64_t a0 = svdup_n_u64(0), a1 = a0, a2 = a0, a3 = a0;
	for (uint64_t left = w->count; left > 0; left--) {
		sum_block(CW64(src + mem_walk_block(w, pos) * bb), bb / 8, &a0, &a1, &a2, &a3);
		if (++pos == w->nblocks)
			pos = 0;
	}
	const svbool_t all = svptrue_b64();
	a0 = svadd_u64_x(all, svadd_u64_x(all, a0, a1), svadd_u64_x(all, a2, a3));
	return svaddv_u64(all, a0); /* wraps modulo 2^64, as the other kernels' sums */
}

static void walk_fill(char *dst, uint64_t value, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	const svuint64_t v = svdup_n_u64(value);
	for (uint64_t left = w->count; left > 0; left--) {
		fill_block(W64(dst + mem_walk_block(w, pos) * bb), v, bb / 8, w->nt);
		if (++pos == w->nblocks)
			pos = 0;
	}
	if (w->nt)
		mem_nt_fence();
}

/* STREAM kernels: the reference's arithmetic, a multiply then an add, never fused
 * (memkernels is built with -ffp-contract=off on aarch64: no fmla, the results round as
 * the x86 kernels'). Two vectors per iteration, predicated tail. */
static void s_copy(double *c, const double *a, size_t n, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	size_t j = 0;
	for (; j + 2 * vl <= n; j += 2 * vl) {
		svfloat64_t x0 = svld1_f64(all, a + j), x1 = svld1_vnum_f64(all, a + j, 1);
		st_f64(all, c + j, x0, nt);
		st_f64(all, c + j + vl, x1, nt);
	}
	for (; j < n; j += vl) {
		svbool_t pg = svwhilelt_b64_u64(j, n);
		st_f64(pg, c + j, svld1_f64(pg, a + j), nt);
	}
	if (nt)
		mem_nt_fence();
}

static void s_scale(double *b, const double *c, double s, size_t n, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	const svfloat64_t vs = svdup_n_f64(s);
	size_t j = 0;
	for (; j + 2 * vl <= n; j += 2 * vl) {
		svfloat64_t x0 = svmul_f64_x(all, vs, svld1_f64(all, c + j));
		svfloat64_t x1 = svmul_f64_x(all, vs, svld1_vnum_f64(all, c + j, 1));
		st_f64(all, b + j, x0, nt);
		st_f64(all, b + j + vl, x1, nt);
	}
	for (; j < n; j += vl) {
		svbool_t pg = svwhilelt_b64_u64(j, n);
		st_f64(pg, b + j, svmul_f64_x(pg, vs, svld1_f64(pg, c + j)), nt);
	}
	if (nt)
		mem_nt_fence();
}

static void s_add(double *c, const double *a, const double *b, size_t n, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	size_t j = 0;
	for (; j + 2 * vl <= n; j += 2 * vl) {
		svfloat64_t x0 = svadd_f64_x(all, svld1_f64(all, a + j), svld1_f64(all, b + j));
		svfloat64_t x1 =
		    svadd_f64_x(all, svld1_vnum_f64(all, a + j, 1), svld1_vnum_f64(all, b + j, 1));
		st_f64(all, c + j, x0, nt);
		st_f64(all, c + j + vl, x1, nt);
	}
	for (; j < n; j += vl) {
		svbool_t pg = svwhilelt_b64_u64(j, n);
		st_f64(pg, c + j, svadd_f64_x(pg, svld1_f64(pg, a + j), svld1_f64(pg, b + j)), nt);
	}
	if (nt)
		mem_nt_fence();
}

static inline svfloat64_t triad(svbool_t pg, const double *b, const double *c, svfloat64_t vs)
{
	return svadd_f64_x(pg, svld1_f64(pg, b), svmul_f64_x(pg, vs, svld1_f64(pg, c)));
}

static void s_triad(double *a, const double *b, const double *c, double s, size_t n, bool nt)
{
	const svbool_t all = svptrue_b64();
	const size_t vl = svcntd();
	const svfloat64_t vs = svdup_n_f64(s);
	size_t j = 0;
	for (; j + 2 * vl <= n; j += 2 * vl) {
		svfloat64_t x0 = triad(all, b + j, c + j, vs);
		svfloat64_t x1 = triad(all, b + j + vl, c + j + vl, vs);
		st_f64(all, a + j, x0, nt);
		st_f64(all, a + j + vl, x1, nt);
	}
	for (; j < n; j += vl) {
		svbool_t pg = svwhilelt_b64_u64(j, n);
		st_f64(pg, a + j, triad(pg, b + j, c + j, vs), nt);
	}
	if (nt)
		mem_nt_fence();
}

const struct mem_ops mem_ops_sve = {
    .name = "sve",
    .isa = MEM_ISA_SVE,
    .vector_bytes = 0, /* scalable: svcntb() bytes, known only at run time */
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
