/* The x86 format-peak list (peak_formats.h): FP64/FP32 from the widest FMA ISA, then every
 * FP16, BF16 and INT8 form cpubench runs, vector (AVX-512, AVX-VNNI) and matrix (AMX), at
 * the rates of the uarch entry (peak_uarch_formats.c, corrected by the probe). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "peak_formats.h"
#include "peak_formats_x86.h"

struct form {
	enum peak_number_format format;
	enum peak_format_unit unit;
	const char *isa, *variant;
	unsigned need; /* PEAK_FMTF_* */
	size_t rate;   /* offset of the rate in struct peak_uarch */
	enum peak_freq_load load; /* the chain of its clock: cpubench's row's (cpu_table.c) */
};

#define RATE(field) offsetof(struct peak_uarch, field)
#define F512        PEAK_FMTF_AVX512
#define VL          (PEAK_FMTF_AVX512 | PEAK_FMTF_AVX512VL)
#define AMX         PEAK_FMTF_AMX_TILE

/* The names are cpubench's variants; the report and the arm64 list key on them. */
static const struct form forms[] = {
    {PEAK_FMT_FP16, PEAK_FMT_VECTOR, "avx512_fp16", "avx512_fp16_fma",
     F512 | PEAK_FMTF_AVX512_FP16, RATE(fp16_fma512_ops), PEAK_FREQ_LOAD_AVX512_FP16},
    {PEAK_FMT_BF16, PEAK_FMT_VECTOR, "avx512_bf16", "avx512_bf16_dot",
     F512 | PEAK_FMTF_AVX512_BF16, RATE(bf16_dot512_ops), PEAK_FREQ_LOAD_AVX512_BF16},
    {PEAK_FMT_BF16, PEAK_FMT_VECTOR, "avx512_bf16", "avx512_bf16_dot_ymm",
     VL | PEAK_FMTF_AVX512_BF16, RATE(bf16_dot256_ops), PEAK_FREQ_LOAD_NONE},
    {PEAK_FMT_INT8, PEAK_FMT_VECTOR, "avx512_vnni", "avx512_int8_dot",
     F512 | PEAK_FMTF_AVX512_VNNI, RATE(vnni512_ops), PEAK_FREQ_LOAD_AVX512_VNNI},
    {PEAK_FMT_INT8, PEAK_FMT_VECTOR, "avx512_vnni", "avx512_int8_dot_ymm",
     VL | PEAK_FMTF_AVX512_VNNI, RATE(vnni256_ops), PEAK_FREQ_LOAD_NONE},
    {PEAK_FMT_INT8, PEAK_FMT_VECTOR, "avx_vnni", "avxvnni_int8_dot", PEAK_FMTF_AVX_VNNI,
     RATE(avxvnni_ops), PEAK_FREQ_LOAD_NONE},
    {PEAK_FMT_BF16, PEAK_FMT_MATRIX, "amx", "amx_bf16_tile", AMX | PEAK_FMTF_AMX_BF16,
     RATE(amx_bf16_ops), PEAK_FREQ_LOAD_AMX},
    {PEAK_FMT_FP16, PEAK_FMT_MATRIX, "amx", "amx_fp16_tile", AMX | PEAK_FMTF_AMX_FP16,
     RATE(amx_fp16_ops), PEAK_FREQ_LOAD_AMX},
    {PEAK_FMT_INT8, PEAK_FMT_MATRIX, "amx", "amx_int8_tile_ss", AMX | PEAK_FMTF_AMX_INT8,
     RATE(amx_int8_ops), PEAK_FREQ_LOAD_AMX},
    {PEAK_FMT_INT8, PEAK_FMT_MATRIX, "amx", "amx_int8_tile_su", AMX | PEAK_FMTF_AMX_INT8,
     RATE(amx_int8_ops), PEAK_FREQ_LOAD_AMX},
    {PEAK_FMT_INT8, PEAK_FMT_MATRIX, "amx", "amx_int8_tile_us", AMX | PEAK_FMTF_AMX_INT8,
     RATE(amx_int8_ops), PEAK_FREQ_LOAD_AMX},
    {PEAK_FMT_INT8, PEAK_FMT_MATRIX, "amx", "amx_int8_tile_uu", AMX | PEAK_FMTF_AMX_INT8,
     RATE(amx_int8_ops), PEAK_FREQ_LOAD_AMX},
};

bool peak_formats_x86_form_runs(const char *variant, char *reason, size_t reason_len)
{
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		if (strcmp(forms[i].variant, variant) != 0)
			continue;
		if (!peak_fmt_can_run(forms[i].need, reason, reason_len))
			return false;
		return !(forms[i].need & AMX) || peak_amx_request(reason, reason_len);
	}
	(void)snprintf(reason, reason_len, "no such format form: %s", variant);
	return false;
}

void peak_formats_list(const struct peak_machine *m, unsigned threads,
		       struct peak_format_list *out)
{
	out->n = 0;
	peak_formats_add_fp(out, m, threads);
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		const struct form *f = &forms[i];
		char why[PEAK_FMT_NOTE_LEN], note[PEAK_FMT_NOTE_LEN];
		bool runs = peak_formats_x86_form_runs(f->variant, why, sizeof why);
		unsigned rate, claimed;
		memcpy(&rate, (const char *)&m->uarch + f->rate, sizeof rate);
		memcpy(&claimed, (const char *)&m->uarch_claimed + f->rate, sizeof claimed);
		bool corrected = claimed && rate && claimed != rate;
		if (corrected)
			(void)snprintf(note, sizeof note,
				       "the probe's, %u a cycle, in place of cpu.uarch %s's %u (%s)",
				       rate, m->uarch.name, claimed,
				       m->uarch.formats_source ? m->uarch.formats_source : "");
		else if (rate && !claimed && m->uarch.source == PEAK_SRC_TABLE)
			(void)snprintf(note, sizeof note,
				       "measured by the probe: no source gives %s's rate on %s",
				       f->variant, m->uarch.name);
		else if (rate)
			(void)snprintf(note, sizeof note, "cpu.uarch %s (%s): %s", m->uarch.name,
				       peak_source_name(m->uarch.source),
				       m->uarch.formats_source ? m->uarch.formats_source
							       : "the probe's instructions a cycle x "
								 "the operations of each");
		else
			(void)snprintf(note, sizeof note,
				       "no source gives %s's rate on %s: the probe measures it",
				       f->variant, m->uarch.name);
		struct peak_format_entry *e = peak_formats_add(
		    out, m, threads, f->format, f->unit, f->isa, f->variant, rate, note,
		    runs ? NULL : why);
		if (!e)
			continue;
		e->load = f->load;
		e->table_corrected = corrected;
		if (rate && (corrected || !claimed))
			e->rate_source = PEAK_SRC_MEASURED;
	}
}
