/* peakinfo's aarch64 CPU rows: NEON and SVE peaks per precision and integer lane, from the
 * entry in use: the MIDR table's (with its source, checked by the probe) or, for a core the
 * table lacks, the probe's counts. Portable: an aarch64 sysinfo from a recorded root gives
 * the same rows on any host. */
#include <stdio.h>
#include <string.h>

#include "peak_uarch.h"
#include "peakinfo.h"

struct arm_row {
	const char *isa;
	unsigned lane_bits; /* 0: flops */
	enum peak_precision prec;
};

/* Per cycle per core from the entry u (the table's, the probe's, or the table's as the
 * probe corrected it): NEON on 128-bit pipes; SVE at its pipes' width, whatever length
 * prctl gives (a longer vector takes more passes, so the peak is the pipes'). FMA rows
 * count FMLA, integer rows ADD. 0 unknown. */
static double arm_per_cycle(const struct peak_uarch *u, const struct arm_row *row)
{
	bool sve = strcmp(row->isa, "sve") == 0;
	double bits = sve ? u->sve_pipe_bits : 128.0;
	if (row->lane_bits)
		return bits / row->lane_bits *
		       (sve ? u->sve_vec_int_add_units : u->vec_int_add_units);
	double lanes = bits / (row->prec == PEAK_PREC_SP ? 32.0 : 64.0);
	return lanes * 2.0 * (sve ? u->sve_fma_units : u->fma_units);
}

static int arm_row_emit(struct peak_output *out, const struct peak_sysinfo *si,
			const struct peak_machine *m, const struct arm_row *row)
{
	struct peak_result r;
	char variant[32], flag[200];
	const struct peak_uarch_arm *a = peak_uarch_arm_find(si->family, si->model);
	bool sve = strcmp(row->isa, "sve") == 0;
	if (row->lane_bits)
		(void)snprintf(variant, sizeof variant, "%s_i%u", row->isa, row->lane_bits);
	else
		(void)snprintf(variant, sizeof variant, "%s_%s", row->isa,
			       row->prec == PEAK_PREC_SP ? "sp" : "dp");
	peak_result_init(&r, "cpu", "peak", variant, row->lane_bits ? "iops_int" : "flops",
			 row->lane_bits ? "GIOPS" : "GFLOPS");
	unsigned cores = m->cores.source != PEAK_SRC_UNKNOWN ? (unsigned)m->cores.value : 0;
	r.threads = cores;
	if ((sve && !si->isa.sve) || (!sve && !si->isa.asimd)) {
		peak_result_flag(&r, "source=unknown");
		(void)snprintf(flag, sizeof flag, "unsupported: %s not reported by this CPU",
			       sve ? "sve" : "asimd");
		peak_result_flag(&r, flag);
		return peak_output_record(out, &r);
	}
	double per_cycle = arm_per_cycle(&m->uarch, row);
	if (per_cycle <= 0) {
		peak_result_flag(&r, "source=unknown");
		(void)snprintf(flag, sizeof flag, "unsupported: no %s %s figure for %s", row->isa,
			       row->lane_bits ? "integer" : "FMA", si->cpu_model);
		peak_result_flag(&r, flag);
		return peak_output_record(out, &r);
	}
	bool known = m->ghz.source != PEAK_SRC_UNKNOWN && m->cores.source != PEAK_SRC_UNKNOWN;
	(void)snprintf(flag, sizeof flag, "source=%s",
		       known ? peak_source_name(m->ghz.source) : "unknown");
	peak_result_flag(&r, flag);
	if (known)
		r.theoretical = per_cycle * cores * m->ghz.value;
	(void)snprintf(flag, sizeof flag, "per_cycle=%g", per_cycle);
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "cores=%u(%s)", cores, peak_source_name(m->cores.source));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "ghz=%.3f(%s)", m->ghz.value,
		       peak_source_name(m->ghz.source));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "uarch=%s(%s)", a ? a->core : m->uarch.name,
		       a ? "table" : peak_source_name(m->uarch.source));
	peak_result_flag(&r, flag);
	if (a) {
		(void)snprintf(flag, sizeof flag, "per_cycle_source=%s", a->source);
		peak_result_flag(&r, flag);
	}
	/* The probe replaced a count this peak rests on (not one the claim lacked). */
	double claimed = arm_per_cycle(&m->uarch_claimed, row);
	if (claimed > 0 && claimed != per_cycle) {
		peak_result_flag(&r, "table_corrected");
		(void)snprintf(flag, sizeof flag, "claimed_per_cycle=%g", claimed);
		peak_result_flag(&r, flag);
	}
	if (sve) {
		(void)snprintf(flag, sizeof flag, "sve_vl_bits=%u", si->isa.sve_vl_bits);
		peak_result_flag(&r, flag);
	}
	if (!row->lane_bits)
		peak_result_flag(&r, "fma");
	return peak_output_record(out, &r);
}

int peakinfo_arm64_rows(struct peak_output *out, const struct peak_sysinfo *si,
			const struct peak_machine *m)
{
	static const struct arm_row rows[] = {
	    {"neon", 0, PEAK_PREC_SP}, {"neon", 0, PEAK_PREC_DP},  {"sve", 0, PEAK_PREC_SP},
	    {"sve", 0, PEAK_PREC_DP},  {"neon", 32, PEAK_PREC_DP}, {"neon", 64, PEAK_PREC_DP},
	    {"sve", 32, PEAK_PREC_DP}, {"sve", 64, PEAK_PREC_DP},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (arm_row_emit(out, si, m, &rows[i]) != 0)
			return -1;
	return 0;
}
