/* The micro-architecture entry checked against the probe (peak_uarch_check.h), and its
 * unknown counts filled from another source. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_isa.h"
#if defined(__x86_64__)
#include "peak_formats_x86.h"
#endif
#include "peak_uarch_check.h"

/* Each count, with the probe figure that measures it and what must run here for it. */
struct count_item {
	const char *name;
	size_t offset;     /* in struct peak_uarch */
	const char *figure;
	size_t rate;       /* in struct peak_uarch_rates */
	enum peak_isa isa;
	unsigned bits;     /* the class's vector width: a 256-bit class on 128-bit pipes runs
			    * at half the count (Zen 1); 0: SVE, the length the probe ran at */
	bool latency;
	unsigned ops;      /* the count is operations per cycle, this many an instruction
			    * (the number formats); 0: the count is instructions per cycle */
	unsigned fmt_need; /* x86 number formats: PEAK_FMTF_* that must run here */
};
/* name: the probe note's name for the figure (peak_uarch_probe.c) */
#define UC(f, name, fig, isa, bits, lat)                                                           \
	{#f, offsetof(struct peak_uarch, f), name, offsetof(struct peak_uarch_rates, fig), isa,     \
	 bits, lat, 0, 0}
/* A format rate: ops per cycle, `ops` an instruction (peak_uarch.h). bits 512 for every
 * one: the rates are per instruction of their own width, never scaled by pipe width. */
#define FC(f, name, fig, isa, bits, ops, need)                                                     \
	{#f,  offsetof(struct peak_uarch, f), name, offsetof(struct peak_uarch_rates, fig), isa,    \
	 bits, false, ops, need}
static const struct count_item counts[] = {
#if defined(__aarch64__)
    /* aarch64: the NEON classes and the scalar integer ones (peak_uarch_probe.h). */
    UC(fma_units, "neon_fma", neon_fma, PEAK_ISA_NEON, 128, false),
    UC(addmul_ops, "neon_addmul", neon_addmul, PEAK_ISA_NEON, 128, false),
    UC(vec_int_add_units, "neon_vadd", neon_vadd, PEAK_ISA_NEON, 128, false),
    UC(vec_int_mul_units, "neon_vmul", neon_vmul, PEAK_ISA_NEON, 128, false),
    UC(int_alu_units, "add64", int_add, PEAK_ISA_SCALAR, 64, false),
    UC(imul_units, "imul64", imul64, PEAK_ISA_SCALAR, 64, false),
    UC(fp_add_latency, "addsd_lat", fadd_lat64, PEAK_ISA_SCALAR, 64, true),
    /* SVE: instructions per cycle at the process's vector length. */
    UC(sve_fma_units, "sve_fma", sve_fma, PEAK_ISA_SVE, 0, false),
    UC(sve_addmul_ops, "sve_addmul", sve_addmul, PEAK_ISA_SVE, 0, false),
    UC(sve_vec_int_add_units, "sve_vadd", sve_vadd, PEAK_ISA_SVE, 0, false),
    UC(sve_vec_int_mul_units, "sve_vmul", sve_vmul, PEAK_ISA_SVE, 0, false),
#else
    UC(fma_units, "fma256", fma256, PEAK_ISA_AVX2, 256, false),
    UC(fma512_units, "fma512", fma512, PEAK_ISA_AVX512, 512, false),
    UC(vec_int_add_units, "vadd128", vint_add128, PEAK_ISA_SSE, 128, false),
    UC(vec512_int_add_units, "vadd512", vint_add512, PEAK_ISA_AVX512, 512, false),
    UC(int_alu_units, "add64", int_add, PEAK_ISA_SCALAR, 64, false),
    UC(vec_int_mul_units, "vmul128", vint_mul128, PEAK_ISA_SSE, 128, false),
    UC(imul_units, "imul64", imul64, PEAK_ISA_SCALAR, 64, false),
    UC(fp_add_latency, "addsd_lat", fadd_lat64, PEAK_ISA_SCALAR, 64, true),
    UC(fp_add256_latency, "vaddpd256_lat", fadd_lat256, PEAK_ISA_AVX, 256, true),
    UC(fp_add512_latency, "vaddpd512_lat", fadd_lat512, PEAK_ISA_AVX512, 512, true),
    UC(addmul_ops, "addmul128", addmul128, PEAK_ISA_SCALAR, 128, false),
    UC(addmul512_ops, "addmul512", addmul512, PEAK_ISA_AVX512, 512, false),
    FC(fp16_fma512_ops, "fp16_fma512", fp16_fma512, PEAK_ISA_AVX512, 512, 64,
       PEAK_FMTF_AVX512_FP16),
    FC(bf16_dot512_ops, "bf16_dot512", bf16_dot512, PEAK_ISA_AVX512, 512, 64,
       PEAK_FMTF_AVX512_BF16),
    FC(bf16_dot256_ops, "bf16_dot256", bf16_dot256, PEAK_ISA_AVX512, 512, 32,
       PEAK_FMTF_AVX512_BF16 | PEAK_FMTF_AVX512VL),
    FC(vnni512_ops, "vnni512", vnni512, PEAK_ISA_AVX512, 512, 128, PEAK_FMTF_AVX512_VNNI),
    FC(vnni256_ops, "vnni256", vnni256, PEAK_ISA_AVX512, 512, 64,
       PEAK_FMTF_AVX512_VNNI | PEAK_FMTF_AVX512VL),
    FC(avxvnni_ops, "avxvnni", avxvnni, PEAK_ISA_AVX2, 512, 64, PEAK_FMTF_AVX_VNNI),
#endif
};
#define NCOUNTS (sizeof counts / sizeof counts[0])

static unsigned *count_at(const struct peak_uarch *u, const struct count_item *c)
{
	return (unsigned *)((char *)(uintptr_t)u + c->offset);
}

static double figure_of(const struct peak_uarch_rates *r, const struct count_item *c)
{
	return *(const double *)(const void *)((const char *)r + c->rate);
}

static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - used) /* cut: the note ends in "..." (peak_fmt) */
		memcpy(buf + len - 4, "...", 4);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Per-cycle figure the count stands for (throughputs scale with the pipe width). SVE: a
 * vector longer than the entry's pipes takes more passes (vl_bits: the probe's length). */
static double scale_of(const struct peak_uarch *u, const struct count_item *c, double vl_bits)
{
	if (c->bits == 0)
		return u->sve_pipe_bits && vl_bits > u->sve_pipe_bits ? u->sve_pipe_bits / vl_bits
								      : 1.0;
	if (c->latency || c->bits <= 128 || c->bits >= 512 || !u->pipe_bits ||
	    u->pipe_bits >= c->bits)
		return 1.0;
	return (double)u->pipe_bits / c->bits;
}

/* True when figure f (per cycle, or cycles for a latency) says the count is wrong: beyond
 * the rounding band on the side noise cannot reach, and nearer another count. */
static bool beyond(const struct count_item *c, double count, double scale, double f)
{
	if (!isfinite(f) || f <= 0)
		return false;
	double v = f / scale;
	if (c->latency)
		return v < count * (1 - PEAK_UNITS_ABOVE_TOL) && lround(v) < (long)count;
	return v > count * (1 + PEAK_UNITS_ABOVE_TOL) && lround(v) > (long)count;
}

/* The best figure sits below the count's band: the probe could not reach the table. */
static bool short_of(const struct count_item *c, double count, double scale, double best)
{
	if (!isfinite(best) || best <= 0)
		return false;
	double v = best / scale;
	if (c->latency)
		return v > count * (1 + PEAK_UNITS_BELOW_TOL);
	return v < count - fmin(PEAK_UNITS_BELOW_TOL * count, PEAK_UNITS_ABS_TOL);
}

static bool check_one(struct peak_uarch *u, const struct count_item *c, const struct peak_probe *p,
		      bool apply)
{
	unsigned *count = count_at(u, c);
	double scale = scale_of(u, c, p->best.sve_vl_bits);
	/* A format rate is checked in instructions per cycle, the figure's unit, so a
	 * correction is a whole number of them. */
	unsigned per = c->ops ? c->ops : 1;
	double instr = (double)*count / per;
	double wrong[PEAK_PROBE_MAX_PASSES];
	unsigned nwrong = 0;
	char figs[96] = "";
	for (unsigned i = 0; i < p->passes && i < PEAK_PROBE_MAX_PASSES; i++) {
		double f = figure_of(&p->pass[i], c);
		if (isfinite(f))
			append(figs, sizeof figs, "%s%.2f", figs[0] ? ", " : "", f);
		if (beyond(c, instr, scale, f))
			wrong[nwrong++] = f;
	}
	if (nwrong >= PEAK_CHECK_MIN_PASSES) {
		qsort(wrong, nwrong, sizeof wrong[0], cmp_double);
		double med = nwrong % 2 ? wrong[nwrong / 2]
					: (wrong[nwrong / 2 - 1] + wrong[nwrong / 2]) / 2;
		long fixed = lround(med / scale);
		if (fixed < 1)
			fixed = 1;
		char *dst = apply ? u->corrected : u->probe_notes;
		size_t len = apply ? sizeof u->corrected : sizeof u->probe_notes;
		append(dst, len, "%s%s: table %u, probe %ld (%s %s%s)%s", dst[0] ? "; " : "",
		       c->name, *count, fixed * per, c->figure, figs,
		       c->latency ? " cycles" : " per cycle",
		       apply ? "" : ", not applied: cpu.trust=table");
		if (apply)
			*count = (unsigned)fixed * per;
		return true;
	}
	if (short_of(c, instr, scale, figure_of(&p->best, c)))
		append(u->probe_notes, sizeof u->probe_notes,
		       "%s%s: probe %s %.2f short of table %u (the table stands)",
		       u->probe_notes[0] ? "; " : "", c->name, c->figure,
		       figure_of(&p->best, c) * per, *count);
	return false;
}

/* The count's class runs here: its ISA, and its format extension where it has one. */
static bool item_runs(const struct peak_sysinfo *si, const struct count_item *c)
{
	if (!peak_isa_supported(si, c->isa, NULL, 0))
		return false;
#if defined(__x86_64__)
	return !c->fmt_need || peak_fmt_can_run(c->fmt_need, NULL, 0);
#else
	return true;
#endif
}

unsigned peak_uarch_check(struct peak_uarch *u, const struct peak_probe *p,
			  const struct peak_sysinfo *si, bool apply)
{
	unsigned wrong = 0;
	for (size_t i = 0; i < NCOUNTS; i++) {
		const struct count_item *c = &counts[i];
		if (!*count_at(u, c) || !item_runs(si, c))
			continue; /* unknown counts are filled, not checked */
		if (check_one(u, c, p, apply))
			wrong++;
	}
	return wrong;
}

bool peak_uarch_has_unknown(const struct peak_uarch *u, const struct peak_sysinfo *si)
{
	/* The format rates are left out: an unknown one is filled when the probe runs for a
	 * CPU binary (peak_uarch_fill_unknown), and must not make membench or diskbench
	 * probe the core for a figure none of their rows uses. */
	for (size_t i = 0; i < NCOUNTS; i++)
		if (!counts[i].ops && *count_at(u, &counts[i]) == 0 && item_runs(si, &counts[i]))
			return true;
	return false;
}

void peak_uarch_fill_unknown(struct peak_uarch *u, const struct peak_uarch *from,
			     const struct peak_sysinfo *si, const char *what)
{
	char filled[320] = "";
	for (size_t i = 0; i < NCOUNTS; i++) {
		const struct count_item *c = &counts[i];
		unsigned *dst = count_at(u, c), v = *count_at(from, c);
		if (*dst || !v || !item_runs(si, c))
			continue;
		*dst = v;
		append(filled, sizeof filled, "%s%s=%u", filled[0] ? ", " : "", c->name, v);
		/* An SVE count is per instruction at a width: an entry without one takes the
		 * source's (the probe's: its vector length). */
		if (c->bits == 0 && !u->sve_pipe_bits)
			u->sve_pipe_bits = from->sve_pipe_bits;
	}
	if (filled[0])
		append(u->note, sizeof u->note, "%s%s: %s", u->note[0] ? "; " : "", what, filled);
}
