/* Scalar membench kernels: one 8-byte load or store at a time. This file is compiled
 * with -fno-tree-vectorize -fno-tree-loop-distribute-patterns (memory/CMakeLists.txt) so
 * the compiler neither vectorises the loops nor turns them into memcpy/memset calls. */
#include <string.h>

#include "mem_kernels.h"

static inline uint64_t load8(const char *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

static inline void store8(char *p, uint64_t x, bool nt)
{
	if (nt)
		mem_stream8(p, x);
	else
		memcpy(p, &x, 8);
}

/* 8-byte blocks (the PA1 case): the visit is one load or store, so the walk itself must
 * cost next to nothing. These loops run over runs of consecutive positions (up to the
 * wrap-around), with the order lookup hoisted out of the sequential case. */
typedef void (*seg_fn)(uint64_t *d, const uint64_t *s, const uint32_t *order, size_t pos, size_t n,
		       uint64_t *acc);

static void seg_copy(uint64_t *d, const uint64_t *s, const uint32_t *order, size_t pos, size_t n,
		     uint64_t *acc)
{
	(void)acc;
	if (order)
		for (size_t i = pos; i < pos + n; i++)
			d[order[i]] = s[order[i]];
	else
		for (size_t i = pos; i < pos + n; i++)
			d[i] = s[i];
}

static void seg_sum(uint64_t *d, const uint64_t *s, const uint32_t *order, size_t pos, size_t n,
		    uint64_t *acc)
{
	(void)d;
	uint64_t a = *acc;
	if (order)
		for (size_t i = pos; i < pos + n; i++)
			a += s[order[i]];
	else
		for (size_t i = pos; i < pos + n; i++)
			a += s[i];
	*acc = a;
}

static void seg_fill(uint64_t *d, const uint64_t *s, const uint32_t *order, size_t pos, size_t n,
		     uint64_t *acc)
{
	(void)s;
	const uint64_t v = *acc;
	if (order)
		for (size_t i = pos; i < pos + n; i++)
			d[order[i]] = v;
	else
		for (size_t i = pos; i < pos + n; i++)
			d[i] = v;
}

static void walk8(seg_fn fn, uint64_t *d, const uint64_t *s, const struct mem_walk *w,
		  uint64_t *acc)
{
	size_t pos = w->pos;
	for (uint64_t left = w->count; left > 0;) {
		size_t n = w->nblocks - pos;
		if (n > left)
			n = (size_t)left;
		fn(d, s, w->order, pos, n, acc);
		left -= n;
		pos += n;
		if (pos == w->nblocks)
			pos = 0;
	}
}

static void walk_copy(char *dst, const char *src, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	if (bb == 8 && !w->nt) {
		walk8(seg_copy, (uint64_t *)(void *)dst, (const uint64_t *)(const void *)src, w,
		      NULL);
		return;
	}
	for (uint64_t left = w->count; left > 0; left--) {
		size_t off = mem_walk_block(w, pos) * bb;
		for (size_t i = 0; i < bb; i += 8)
			store8(dst + off + i, load8(src + off + i), w->nt);
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
	uint64_t s0 = 0, s1 = 0;
	if (bb == 8) {
		walk8(seg_sum, NULL, (const uint64_t *)(const void *)src, w, &s0);
		return s0;
	}
	for (uint64_t left = w->count; left > 0; left--) {
		const char *p = src + mem_walk_block(w, pos) * bb;
		size_t i = 0;
		for (; i + 16 <= bb; i += 16) {
			s0 += load8(p + i);
			s1 += load8(p + i + 8);
		}
		if (i < bb)
			s0 += load8(p + i);
		if (++pos == w->nblocks)
			pos = 0;
	}
	return s0 + s1;
}

static void walk_fill(char *dst, uint64_t value, const struct mem_walk *w)
{
	size_t pos = w->pos;
	const size_t bb = w->block_bytes;
	if (bb == 8 && !w->nt) {
		uint64_t v = value;
		walk8(seg_fill, (uint64_t *)(void *)dst, NULL, w, &v);
		return;
	}
	for (uint64_t left = w->count; left > 0; left--) {
		size_t off = mem_walk_block(w, pos) * bb;
		for (size_t i = 0; i < bb; i += 8)
			store8(dst + off + i, value, w->nt);
		if (++pos == w->nblocks)
			pos = 0;
	}
	if (w->nt)
		mem_nt_fence();
}

static inline void stored(double *p, double v, bool nt)
{
	uint64_t x;
	memcpy(&x, &v, 8);
	store8((char *)p, x, nt);
}

static void s_copy(double *c, const double *a, size_t n, bool nt)
{
	for (size_t j = 0; j < n; j++)
		stored(c + j, a[j], nt);
	if (nt)
		mem_nt_fence();
}

static void s_scale(double *b, const double *c, double s, size_t n, bool nt)
{
	for (size_t j = 0; j < n; j++)
		stored(b + j, s * c[j], nt);
	if (nt)
		mem_nt_fence();
}

static void s_add(double *c, const double *a, const double *b, size_t n, bool nt)
{
	for (size_t j = 0; j < n; j++)
		stored(c + j, a[j] + b[j], nt);
	if (nt)
		mem_nt_fence();
}

static void s_triad(double *a, const double *b, const double *c, double s, size_t n, bool nt)
{
	for (size_t j = 0; j < n; j++)
		stored(a + j, b[j] + s * c[j], nt);
	if (nt)
		mem_nt_fence();
}

const struct mem_ops mem_ops_scalar = {
    .name = "scalar",
    .isa = MEM_ISA_SCALAR,
    .vector_bytes = 8,
    .copy = walk_copy,
    .sum = walk_sum,
    .fill = walk_fill,
    .stream_copy = s_copy,
    .stream_scale = s_scale,
    .stream_add = s_add,
    .stream_triad = s_triad,
};
