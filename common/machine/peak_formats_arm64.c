/* The aarch64 format-peak list (peak_formats.h): FP64/FP32 from NEON or SVE, then the BF16
 * and INT8 forms cpubench runs on NEON registers, vector (BFDOT, SDOT) and matrix (BFMMLA,
 * SMMLA: a 2x2 block product inside one register), at the rates of the core's entry in
 * the Arm table (peak_uarch_arm.c, with their source). The probe does not measure these
 * forms: a core the table lacks (or a rate it has not) is unknown, never guessed. FP16
 * (FMLA .8h, FEAT_FP16) is not measured on aarch64 yet: its row says so. */
#include <stdio.h>
#include <string.h>

#include "peak_formats.h"
#include "peak_formats_feat_arm64.h"
#include "peak_uarch.h"

struct form {
	enum peak_number_format format;
	enum peak_format_unit unit;
	const char *isa, *variant;
	enum peak_arm64_fmt_feat need;
	unsigned ops_per_instr; /* as the Arm ARM defines the instruction */
	size_t rate;            /* offset of its per-cycle count in struct peak_uarch_arm */
};

#define RATE(field) offsetof(struct peak_uarch_arm, field)

/* The names are cpubench's variants (cpu_table.c); the report keys on them. */
static const struct form forms[] = {
    {PEAK_FMT_BF16, PEAK_FMT_VECTOR, "bf16", "neon_bf16_dot", PEAK_ARM64_BF16, PEAK_ARM_BFDOT_OPS,
     RATE(bf16_dot)},
    {PEAK_FMT_BF16, PEAK_FMT_MATRIX, "bf16", "neon_bf16_mmla", PEAK_ARM64_BF16, PEAK_ARM_BFMMLA_OPS,
     RATE(bf16_mmla)},
    {PEAK_FMT_INT8, PEAK_FMT_VECTOR, "dotprod", "neon_int8_dot", PEAK_ARM64_DOTPROD,
     PEAK_ARM_SDOT_OPS, RATE(int8_dot)},
    {PEAK_FMT_INT8, PEAK_FMT_MATRIX, "i8mm", "neon_int8_mmla", PEAK_ARM64_I8MM, PEAK_ARM_SMMLA_OPS,
     RATE(int8_mmla)},
};

bool peak_formats_arm64_form_runs(const char *variant, char *reason, size_t reason_len)
{
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(forms[i].variant, variant) == 0)
			return peak_arm64_fmt_has(forms[i].need, reason, reason_len);
	(void)snprintf(reason, reason_len, "no such format form: %s", variant);
	return false;
}

double peak_formats_arm64_ops_per_instr(const char *variant)
{
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(forms[i].variant, variant) == 0)
			return forms[i].ops_per_instr;
	return 0;
}

double peak_formats_arm64_ops_per_cycle(const char *core, const char *variant)
{
	const struct peak_uarch_arm *a = peak_uarch_arm_by_name(core);
	for (size_t i = 0; a && i < sizeof forms / sizeof forms[0]; i++)
		if (strcmp(forms[i].variant, variant) == 0) {
			unsigned per;
			memcpy(&per, (const char *)a + forms[i].rate, sizeof per);
			return (double)per * forms[i].ops_per_instr;
		}
	return 0;
}

void peak_formats_list(const struct peak_machine *m, unsigned threads, struct peak_format_list *out)
{
	out->n = 0;
	peak_formats_add_fp(out, m, threads);
	(void)peak_formats_add(out, m, threads, PEAK_FMT_FP16, PEAK_FMT_VECTOR, "fp16",
			       "neon_fp16_fma", 0, "",
			       "no FP16 kernel on aarch64 yet (FMLA .8h is not measured)");
	const struct peak_uarch_arm *a = peak_uarch_arm_by_name(m->uarch.name);
	for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
		const struct form *f = &forms[i];
		char why[PEAK_FMT_NOTE_LEN], note[PEAK_FMT_NOTE_LEN];
		bool runs = peak_arm64_fmt_has(f->need, why, sizeof why);
		double rate = peak_formats_arm64_ops_per_cycle(m->uarch.name, f->variant);
		if (rate > 0)
			(void)snprintf(note, sizeof note, "cpu.uarch %s: %s", m->uarch.name,
				       a->formats_source ? a->formats_source : a->source);
		else
			(void)snprintf(note, sizeof note, "no source gives %s's rate on %s%s%s",
				       f->variant, m->uarch.name,
				       a && a->formats_source ? ": " : "",
				       a && a->formats_source ? a->formats_source : "");
		struct peak_format_entry *e =
		    peak_formats_add(out, m, threads, f->format, f->unit, f->isa, f->variant, rate,
				     note, runs ? NULL : why);
		/* The rate is the Arm table's, whatever the probe did to the FP counts. */
		if (e && rate > 0)
			e->rate_source = PEAK_SRC_TABLE;
	}
}
