/* The format-peak list's shared half (peak_formats.h): names, the entry builder, and the
 * FP64/FP32 entries every architecture starts from. */
#include <stdio.h>
#include <string.h>

#include "peak_formats.h"

const char *peak_format_name(enum peak_number_format f)
{
	static const char *const names[PEAK_FMT_COUNT] = {
	    [PEAK_FMT_FP64] = "fp64", [PEAK_FMT_FP32] = "fp32", [PEAK_FMT_FP16] = "fp16",
	    [PEAK_FMT_BF16] = "bf16", [PEAK_FMT_INT8] = "int8",
	};
	return (unsigned)f < PEAK_FMT_COUNT ? names[f] : "?";
}

const char *peak_format_unit_name(enum peak_format_unit u)
{
	return u == PEAK_FMT_VECTOR ? "vector" : u == PEAK_FMT_MATRIX ? "matrix" : "?";
}

const char *peak_format_rate_unit(enum peak_number_format f)
{
	return f == PEAK_FMT_INT8 ? "GIOPS" : "GFLOPS";
}

static void recompute(struct peak_format_entry *e)
{
	e->peak_g_per_s = e->supported && e->ops_per_cycle > 0 && e->ghz > 0
				  ? e->ops_per_cycle * e->ghz * e->threads
				  : 0;
}

void peak_format_set_clock(struct peak_format_entry *e, double ghz, const char *clock_key)
{
	if (!(ghz > 0))
		return;
	e->ghz = ghz;
	(void)snprintf(e->clock_key, sizeof e->clock_key, "%s", clock_key ? clock_key : "");
	recompute(e);
}

const struct peak_format_entry *peak_formats_find(const struct peak_format_list *l,
						  const char *variant)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->e[i].variant, variant) == 0)
			return &l->e[i];
	return NULL;
}

struct peak_format_entry *peak_formats_add(struct peak_format_list *l,
					   const struct peak_machine *m, unsigned threads,
					   enum peak_number_format f, enum peak_format_unit u,
					   const char *isa, const char *variant, double ops_per_cycle,
					   const char *rate_note, const char *reason)
{
	if (l->n >= PEAK_FMT_MAX)
		return NULL;
	struct peak_format_entry *e = &l->e[l->n++];
	memset(e, 0, sizeof *e);
	e->format = f;
	e->unit = u;
	(void)snprintf(e->isa, sizeof e->isa, "%s", isa);
	(void)snprintf(e->variant, sizeof e->variant, "%s", variant);
	e->test = f == PEAK_FMT_INT8 ? "iops" : "flops";
	e->ops_per_cycle = ops_per_cycle > 0 ? ops_per_cycle : 0;
	e->rate_source = e->ops_per_cycle > 0 ? m->uarch.source : PEAK_SRC_UNKNOWN;
	(void)snprintf(e->rate_note, sizeof e->rate_note, "%s", rate_note ? rate_note : "");
	e->supported = reason == NULL;
	(void)snprintf(e->reason, sizeof e->reason, "%s", reason ? reason : "");
	e->threads = threads ? threads
		     : m->cores.source != PEAK_SRC_UNKNOWN ? (unsigned)m->cores.value
							   : 0;
	if (m->ghz.source != PEAK_SRC_UNKNOWN)
		e->ghz = m->ghz.value;
	(void)snprintf(e->clock_key, sizeof e->clock_key, "cpu.ghz");
	recompute(e);
	return e;
}

/* The widest ISA whose FMA (or add+mul) kernels run here: its features, and FMA for AVX2
 * (peak_isa.h). */
static int widest_isa(char *reason, size_t len)
{
	for (int isa = PEAK_ISA_COUNT - 1; isa >= 0; isa--) {
#if defined(__aarch64__)
		/* SVE beyond the loops' 512 bits, or NEON: the list keeps the one the rows run */
		if (isa == PEAK_ISA_SVE && peak_isa_sve_vl_bits() > 512)
			continue;
#endif
		unsigned need = peak_isa_features((enum peak_isa)isa);
		if (isa == PEAK_ISA_AVX2)
			need |= PEAK_FEAT_FMA;
		if (peak_cpu_can_run(need, reason, len))
			return isa;
	}
	return PEAK_ISA_SCALAR;
}

void peak_formats_add_fp(struct peak_format_list *l, const struct peak_machine *m,
			 unsigned threads)
{
	char why[160];
	enum peak_isa isa = (enum peak_isa)widest_isa(why, sizeof why);
	const char *name = peak_isa_name(isa);
	bool fma = isa != PEAK_ISA_SCALAR && isa != PEAK_ISA_SSE && isa != PEAK_ISA_AVX;
	static const enum peak_number_format fmts[] = {PEAK_FMT_FP64, PEAK_FMT_FP32};
	for (size_t i = 0; i < 2; i++) {
		enum peak_precision prec = fmts[i] == PEAK_FMT_FP64 ? PEAK_PREC_DP : PEAK_PREC_SP;
		char variant[PEAK_FMT_NAME_LEN], note[PEAK_FMT_NOTE_LEN];
		(void)snprintf(variant, sizeof variant, "%s_%s_%s", name,
			       prec == PEAK_PREC_DP ? "dp" : "sp", fma ? "fma" : "addmul");
		double rate = peak_cpu_flops_per_cycle(&m->uarch, isa, prec);
		(void)snprintf(note, sizeof note, "cpu.uarch %s (%s): %s", m->uarch.name,
			       peak_source_name(m->uarch.source),
			       fma ? "lanes x 2 x FMA pipes" : "lanes x adds+muls per cycle");
		struct peak_format_entry *e = peak_formats_add(
		    l, m, threads, fmts[i], PEAK_FMT_VECTOR, name, variant, rate, note, NULL);
		if (e && isa == PEAK_ISA_AVX512) /* Intel's FMA licence (peak_freq_load.h) */
			e->load = PEAK_FREQ_LOAD_AVX512_FMA;
	}
}
