/* cpubench's number-format kernels (cpu_kernels.h, CPU_KIND_BF16_DOT, CPU_KIND_INT8_DOT,
 * CPU_KIND_AMX and the fp16 FMA): their operands, start values, run and closed forms.
 * The loops are libpeak's (peak_loops_fmt_x86.c), the ones the probe times.
 *
 * Closed forms. fp16 FMA: x*2 - 1 then x*0.5 + 0.5, the identity pair of the FP kernels,
 * exact for the small integers the lanes start at (fp16 holds integers to 2048). BF16
 * dot: x += (1, 2).(3, 0.5) = 4, then x += (1, 2).(-3, -0.5) = -4: back at the start,
 * exactly. INT8 dot: x += u8.s8 quads with two operands, wrapping modulo 2^32, so the
 * value counts the iterations. AMX: C += A x B0 and C += A x B1 twice an iteration; for
 * the FP tiles B1 = -B0 (small integers: every sum exact), for INT8 C grows by
 * 2 (A x B0 + A x B1) an iteration, computed here with the form's signedness. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpu_kernels.h"
#include "peak_formats.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#else
#include "cpu_fmt_arm64.h"
#endif

bool cpu_fmt_kind(const struct cpu_kernel *k)
{
	return k->elem == CPU_F16 || k->kind == CPU_KIND_BF16_DOT ||
	       k->kind == CPU_KIND_INT8_DOT || k->kind == CPU_KIND_AMX;
}

/* Half-precision bits of a small positive or negative integer or power of two's
 * multiple: exact for |v| < 2048 with at most 11 significant bits. */
static uint16_t fp16_bits(double v)
{
	uint16_t sign = v < 0 ? 0x8000 : 0;
	v = fabs(v);
	if (v == 0)
		return sign;
	int e = (int)floor(log2(v));
	double frac = v / ldexp(1.0, e) - 1.0; /* [0, 1) */
	return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | (uint16_t)lrint(frac * 1024));
}

/* bf16 is the upper half of the fp32 pattern (exact for these values). */
static uint16_t bf16_bits(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof u);
	return (uint16_t)(u >> 16);
}

static uint32_t pair(uint16_t lo, uint16_t hi)
{
	return (uint32_t)lo | (uint32_t)hi << 16;
}

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	return x ^ (x >> 16);
}

/* The int8 dot's operands: u8 {200, 17, 255, 3}, s8 {-128, 77, 5, -1} and
 * s8 {127, -3, -100, 9}, little-endian in one word. */
#define I8_A  0x03FF11C8u
#define I8_B0 0xFF054D80u
#define I8_B1 0x099CFD7Fu

static bool amx_fp(const struct cpu_kernel *k)
{
	return k->kind == CPU_KIND_AMX && k->elem == CPU_F32;
}

static void amx_tiles_init(const struct cpu_kernel *k, struct cpu_consts *c)
{
	for (unsigned t = 0; t < 2; t++)
		for (unsigned i = 0; i < 1024; i++) {
			uint32_t r = mix32(t * 4096 + i);
			c->amx_a[t][i] = (unsigned char)r;
			c->amx_b[0][i] = (unsigned char)mix32(0x10000 + i);
			c->amx_b[1][i] = (unsigned char)mix32(0x20000 + i);
		}
	if (!amx_fp(k))
		return;
	/* 16-bit elements, small integers -4..4; B1 = -B0. */
	bool fp16 = strcmp(k->name, "amx_fp16_tile") == 0;
	for (unsigned t = 0; t < 2; t++)
		for (unsigned i = 0; i < 512; i++) {
			float a = (float)((int)(mix32(t * 4096 + i) % 9) - 4);
			float b = (float)((int)(mix32(0x10000 + i) % 9) - 4);
			uint16_t ab = fp16 ? fp16_bits(a) : bf16_bits(a);
			uint16_t bb = fp16 ? fp16_bits(b) : bf16_bits(b);
			uint16_t nb = fp16 ? fp16_bits(-b) : bf16_bits(-b);
			memcpy(&c->amx_a[t][2 * i], &ab, 2);
			if (t == 0) {
				memcpy(&c->amx_b[0][2 * i], &bb, 2);
				memcpy(&c->amx_b[1][2 * i], &nb, 2);
			}
		}
}

void cpu_fmt_consts_init(const struct cpu_kernel *k, struct cpu_consts *c)
{
	memset(c->fmt, 0, sizeof c->fmt);
	if (k->elem == CPU_F16) {
		c->fmt[0] = pair(fp16_bits(2.0), fp16_bits(2.0));
		c->fmt[1] = pair(fp16_bits(-1.0), fp16_bits(-1.0));
		c->fmt[2] = pair(fp16_bits(0.5), fp16_bits(0.5));
	} else if (k->kind == CPU_KIND_BF16_DOT) {
		c->fmt[0] = pair(bf16_bits(1.0f), bf16_bits(2.0f));
		c->fmt[1] = pair(bf16_bits(3.0f), bf16_bits(0.5f));
		c->fmt[2] = pair(bf16_bits(-3.0f), bf16_bits(-0.5f));
	} else if (k->kind == CPU_KIND_INT8_DOT) {
		c->fmt[0] = I8_A, c->fmt[1] = I8_B0, c->fmt[2] = I8_B1;
	} else if (k->kind == CPU_KIND_AMX) {
		amx_tiles_init(k, c);
	}
}

static size_t acc_count(const struct cpu_kernel *k)
{
	return (size_t)k->nacc * k->lanes;
}

void cpu_fmt_acc_init(const struct cpu_kernel *k, struct cpu_acc *acc)
{
	size_t n = acc_count(k);
	for (size_t i = 0; i < n; i++) {
		if (k->elem == CPU_F16)
			acc->v.u16[i] = fp16_bits((double)(i % 1024 + 1));
		else if (k->elem == CPU_F32)
			acc->v.f32[i] = (float)(i + 1);
		else
			acc->v.u32[i] = mix32((uint32_t)i + 77u);
	}
}

void cpu_fmt_run(const struct cpu_kernel *k, struct cpu_acc *acc, const struct cpu_consts *c,
		 uint64_t iters)
{
#if defined(__x86_64__)
	if (k->kind == CPU_KIND_AMX) {
		_Alignas(64) struct peak_amx_tiles t;
		memcpy(t.c, acc->v.u32, sizeof t.c);
		memcpy(t.a, c->amx_a, sizeof t.a);
		memcpy(t.b, c->amx_b, sizeof t.b);
		/* Linux grants the tiles per process; asking again is a syscall, and makes
		 * sure a thread never touches them without the permission. */
		if (peak_amx_request(NULL, 0))
			peak_amx_run((enum peak_amx_op)k->amx_op, &t, iters);
		memcpy(acc->v.u32, t.c, sizeof t.c);
		return;
	}
#endif
	/* The vector forms, x86 and aarch64 alike: chains in v0-v11, operands broadcast. */
	struct peak_loop_regs r;
	memset(&r, 0, sizeof r);
	size_t vec = (size_t)k->lanes * (k->elem == CPU_F16 ? 2 : 4);
	for (unsigned i = 0; i < k->nacc; i++)
		memcpy(r.v[i], (const unsigned char *)&acc->v + i * vec, vec);
	for (unsigned j = 0; j < 3; j++)
		for (size_t off = 0; off < 64; off += 4)
			memcpy(&r.v[12 + j][off], &c->fmt[j], 4);
	k->loop(&r, iters);
	for (unsigned i = 0; i < k->nacc; i++)
		memcpy((unsigned char *)&acc->v + i * vec, r.v[i], vec);
}

static int32_t byte_val(unsigned char b, bool is_signed)
{
	return is_signed ? (int32_t)(int8_t)b : (int32_t)b;
}

/* One int8 dot of four bytes of a and b with their signedness. */
static uint32_t dot4(const unsigned char *a, bool as, const unsigned char *b, bool bs)
{
	int32_t s = 0;
	for (int j = 0; j < 4; j++)
		s += byte_val(a[j], as) * byte_val(b[j], bs);
	return (uint32_t)s;
}

/* Element (m, n) of A x B for an INT8 tile form: sum over 16 quads. */
static uint32_t amx_int8_elem(const struct cpu_kernel *k, const unsigned char *a,
			      const unsigned char *b, unsigned m, unsigned n)
{
	/* tdpbssd, tdpbsud, tdpbusd, tdpbuud: A's sign, then B's (peak_amx_op order). */
	bool as = false, bs = false;
#if defined(__x86_64__)
	as = k->amx_op == PEAK_AMX_SS || k->amx_op == PEAK_AMX_SU;
	bs = k->amx_op == PEAK_AMX_SS || k->amx_op == PEAK_AMX_US;
#else
	(void)k;
#endif
	uint32_t s = 0;
	for (unsigned q = 0; q < 16; q++)
		s += dot4(a + m * 64 + 4 * q, as, b + q * 64 + 4 * n, bs);
	return s;
}

static uint32_t expected_i32(const struct cpu_kernel *k, const struct cpu_consts *c,
			     size_t i, uint32_t x0, uint64_t iters)
{
#if defined(__aarch64__)
	if (k->kind == CPU_KIND_INT8_DOT) /* SDOT, SMMLA: signed x signed */
		return x0 + (uint32_t)(iters * (k->steps / 2)) *
				cpu_fmt_arm64_int8_block(k, c->fmt[0], c->fmt[1], c->fmt[2]);
#endif
	if (k->kind == CPU_KIND_INT8_DOT) {
		unsigned char a[4], b0[4], b1[4];
		memcpy(a, &c->fmt[0], 4), memcpy(b0, &c->fmt[1], 4), memcpy(b1, &c->fmt[2], 4);
		uint32_t d = dot4(a, false, b0, true) + dot4(a, false, b1, true);
		return x0 + (uint32_t)(iters * (k->steps / 2)) * d;
	}
	size_t tile = i / 256, m = (i % 256) / 16, n = i % 16;
	const unsigned char *a = c->amx_a[tile & 1];
	uint32_t d = amx_int8_elem(k, a, c->amx_b[0], (unsigned)m, (unsigned)n) +
		     amx_int8_elem(k, a, c->amx_b[1], (unsigned)m, (unsigned)n);
	return x0 + (uint32_t)(iters * (k->steps / 2)) * d;
}

int cpu_fmt_verify(const struct cpu_kernel *k, const struct cpu_acc *acc,
		   const struct cpu_consts *c, uint64_t iters, char *err, size_t err_len)
{
	struct cpu_acc start;
	cpu_fmt_acc_init(k, &start);
	size_t n = acc_count(k);
	for (size_t i = 0; i < n; i++) {
		char got[40], want[40];
		bool ok;
		if (k->elem == CPU_F16) {
			ok = acc->v.u16[i] == start.v.u16[i];
			(void)snprintf(got, sizeof got, "fp16 0x%04x", acc->v.u16[i]);
			(void)snprintf(want, sizeof want, "0x%04x", start.v.u16[i]);
		} else if (k->elem == CPU_F32) {
			ok = acc->v.f32[i] == start.v.f32[i];
			(void)snprintf(got, sizeof got, "%.9g", (double)acc->v.f32[i]);
			(void)snprintf(want, sizeof want, "%.9g", (double)start.v.f32[i]);
		} else {
			uint32_t e = expected_i32(k, c, i, start.v.u32[i], iters);
			ok = acc->v.u32[i] == e;
			(void)snprintf(got, sizeof got, "0x%08" PRIx32, acc->v.u32[i]);
			(void)snprintf(want, sizeof want, "0x%08" PRIx32, e);
		}
		if (!ok) {
			(void)snprintf(err, err_len,
				       "%s: chain %zu element %zu holds %s, closed form %s after %" PRIu64
				       " iterations",
				       k->name, i / k->lanes, i % k->lanes, got, want, iters);
			return -1;
		}
	}
	return 0;
}

double cpu_fmt_ops_per_instr(const struct cpu_kernel *k)
{
#if defined(__aarch64__)
	return cpu_fmt_arm64_ops_per_instr(k);
#endif
	switch (k->kind) {
	case CPU_KIND_BF16_DOT:
		return (double)k->lanes * 4;
	case CPU_KIND_INT8_DOT:
		return (double)k->lanes * 8;
	case CPU_KIND_AMX: /* 16 x 16 elements, each K products and K adds */
		return (double)k->lanes * 2 * (k->elem == CPU_F32 ? 32 : 64);
	default:
		return (double)k->lanes * 2; /* fp16 FMA */
	}
}

int cpu_fmt_format(const struct cpu_kernel *k)
{
	if (k->elem == CPU_F16 || strcmp(k->name, "amx_fp16_tile") == 0)
		return PEAK_FMT_FP16;
	if (k->kind == CPU_KIND_BF16_DOT || strcmp(k->name, "amx_bf16_tile") == 0)
		return PEAK_FMT_BF16;
	return PEAK_FMT_INT8;
}

const char *cpu_fmt_probe_class(const struct cpu_kernel *k)
{
	static const char *const names[][2] = {
	    {"avx512_fp16_fma", "fp16_fma512"}, {"avx512_bf16_dot", "bf16_dot512"},
	    {"avx512_bf16_dot_ymm", "bf16_dot256"}, {"avx512_int8_dot", "vnni512"},
	    {"avx512_int8_dot_ymm", "vnni256"},     {"avxvnni_int8_dot", "avxvnni"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i][0], k->name) == 0)
			return names[i][1];
	return NULL;
}

double cpu_fmt_ops_per_cycle(const struct cpu_kernel *k, const struct peak_uarch *u)
{
#if defined(__aarch64__)
	return cpu_fmt_arm64_ops_per_cycle(k, u);
#endif
	static const struct {
		const char *name;
		size_t off;
	} rates[] = {
	    {"avx512_fp16_fma", offsetof(struct peak_uarch, fp16_fma512_ops)},
	    {"avx512_bf16_dot", offsetof(struct peak_uarch, bf16_dot512_ops)},
	    {"avx512_bf16_dot_ymm", offsetof(struct peak_uarch, bf16_dot256_ops)},
	    {"avx512_int8_dot", offsetof(struct peak_uarch, vnni512_ops)},
	    {"avx512_int8_dot_ymm", offsetof(struct peak_uarch, vnni256_ops)},
	    {"avxvnni_int8_dot", offsetof(struct peak_uarch, avxvnni_ops)},
	    {"amx_bf16_tile", offsetof(struct peak_uarch, amx_bf16_ops)},
	    {"amx_fp16_tile", offsetof(struct peak_uarch, amx_fp16_ops)},
	    {"amx_int8_tile_ss", offsetof(struct peak_uarch, amx_int8_ops)},
	    {"amx_int8_tile_su", offsetof(struct peak_uarch, amx_int8_ops)},
	    {"amx_int8_tile_us", offsetof(struct peak_uarch, amx_int8_ops)},
	    {"amx_int8_tile_uu", offsetof(struct peak_uarch, amx_int8_ops)},
	};
	for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
		if (strcmp(rates[i].name, k->name) != 0)
			continue;
		unsigned v;
		memcpy(&v, (const char *)u + rates[i].off, sizeof v);
		return v ? (double)v : NAN;
	}
	return NAN;
}
