/* peakinfo's records: one struct peak_result per theoretical peak, the value in
 * "theoretical" (no samples: nothing was measured against it), the source and the inputs
 * in the flags. Frequencies are measured, so their rows carry the best run as a sample. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_freq.h"
#include "peak_time.h"
#include "peakinfo.h"

static const char *src_name(enum peak_source s)
{
	return peak_source_name(s);
}

static int emit(struct peak_output *out, struct peak_result *r)
{
	return peak_output_record(out, r);
}

/* The source of a CPU peak: config when any input was overridden, else that of the
 * frequency (measured), unknown when the frequency or core count is. */
static enum peak_source cpu_source(const struct peak_machine *m)
{
	if (m->ghz.source == PEAK_SRC_UNKNOWN || m->cores.source == PEAK_SRC_UNKNOWN)
		return PEAK_SRC_UNKNOWN;
	if (m->ghz.source == PEAK_SRC_CONFIG || m->cores.source == PEAK_SRC_CONFIG ||
	    m->uarch.source == PEAK_SRC_CONFIG)
		return PEAK_SRC_CONFIG;
	return m->ghz.source;
}

static const char *uarch_src(const struct peak_uarch *u)
{
	return u->source == PEAK_SRC_UNKNOWN ? "generic" : peak_source_name(u->source);
}

/* One CPU row: FLOPS (lane_bits 0, precision prec) or integer ops (lane_bits 32/64). */
static int cpu_row(struct peak_output *out, const struct peak_sysinfo *si,
		   const struct peak_machine *m, enum peak_isa isa, enum peak_precision prec,
		   unsigned lane_bits)
{
	struct peak_result r;
	char variant[32], flag[160], reason[96];
	const char *isa_name = peak_isa_name(isa);
	if (lane_bits)
		(void)snprintf(variant, sizeof variant, "%s_i%u", isa_name, lane_bits);
	else
		(void)snprintf(variant, sizeof variant, "%s_%s", isa_name,
			       prec == PEAK_PREC_SP ? "sp" : "dp");
	peak_result_init(&r, "cpu", "peak", variant, lane_bits ? "iops_int" : "flops",
			 lane_bits ? "GIOPS" : "GFLOPS");
	unsigned cores = m->cores.source != PEAK_SRC_UNKNOWN ? (unsigned)m->cores.value : 0;
	r.threads = cores;
	double per_cycle = lane_bits ? peak_cpu_int_ops_per_cycle(&m->uarch, isa, lane_bits)
				     : peak_cpu_flops_per_cycle(&m->uarch, isa, prec);
	enum peak_source src = cpu_source(m);
	if (!peak_isa_supported(si, isa, reason, sizeof reason)) {
		peak_result_flag(&r, "source=unknown");
		(void)snprintf(flag, sizeof flag, "unsupported: %s", reason);
		peak_result_flag(&r, flag);
		return emit(out, &r);
	}
	if (per_cycle <= 0) {
		peak_result_flag(&r, "source=unknown");
		(void)snprintf(flag, sizeof flag, "unsupported: no %s units in %s", isa_name,
			       m->uarch.name);
		peak_result_flag(&r, flag);
		return emit(out, &r);
	}
	(void)snprintf(flag, sizeof flag, "source=%s", src_name(src));
	peak_result_flag(&r, flag);
	if (src != PEAK_SRC_UNKNOWN)
		r.theoretical = per_cycle * cores * m->ghz.value;
	(void)snprintf(flag, sizeof flag, "per_cycle=%g", per_cycle);
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "cores=%u(%s)", cores, src_name(m->cores.source));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "ghz=%.3f(%s)", m->ghz.value, src_name(m->ghz.source));
	peak_result_flag(&r, flag);
	(void)snprintf(flag, sizeof flag, "uarch=%s(%s)", m->uarch.name, uarch_src(&m->uarch));
	peak_result_flag(&r, flag);
	if (!lane_bits && isa >= PEAK_ISA_AVX2)
		peak_result_flag(&r, "fma");
	/* The probe replaced a count this peak rests on (not one the claim lacked). */
	double claimed = lane_bits ? peak_cpu_int_ops_per_cycle(&m->uarch_claimed, isa, lane_bits)
				   : peak_cpu_flops_per_cycle(&m->uarch_claimed, isa, prec);
	if (claimed > 0 && claimed != per_cycle) {
		peak_result_flag(&r, "table_corrected");
		(void)snprintf(flag, sizeof flag, "claimed_per_cycle=%g", claimed);
		peak_result_flag(&r, flag);
	}
	return emit(out, &r);
}

/* The chains' rows by the instruction they time: x86-64's imul r64 and addsd, aarch64's
 * add x and fadd d (peak_freq.h). */
#if PEAK_FREQ_INT_LATENCY
#define FREQ_INT_VARIANT "add_chain"
#define FREQ_FP_VARIANT  "fadd_chain"
#define FREQ_VS          "vs_add"
#else
#define FREQ_INT_VARIANT "imul_chain"
#define FREQ_FP_VARIANT  "addsd_chain"
#define FREQ_VS          "vs_imul"
#endif

static int freq_rows(struct peak_output *out, const struct peak_machine *m)
{
	const struct {
		const char *variant;
		const struct peak_value *v;
	} chains[] = {{FREQ_INT_VARIANT, &m->ghz_imul}, {FREQ_FP_VARIANT, &m->ghz_addsd}};
	char flag[160];
	for (size_t i = 0; i < 2; i++) {
		struct peak_result r;
		peak_result_init(&r, "cpu", "frequency", chains[i].variant, "frequency", "GHz");
		r.threads = 1;
		double best = chains[i].v->value;
		(void)snprintf(flag, sizeof flag, "source=%s", src_name(chains[i].v->source));
		peak_result_flag(&r, flag);
		if (chains[i].v->source == PEAK_SRC_MEASURED)
			peak_result_set_samples(&r, &best, 1);
		peak_result_flag(&r, chains[i].v->note);
		if (i == 1 && m->freq_spread_pct >= 0) {
			(void)snprintf(flag, sizeof flag, FREQ_VS "=%.2f%%", m->freq_spread_pct);
			peak_result_flag(&r, flag);
			if (m->freq_spread_pct > 5)
				peak_result_flag(&r, "chains_disagree");
		}
		if (m->nominal_ghz.source != PEAK_SRC_UNKNOWN) {
			(void)snprintf(flag, sizeof flag, "nominal=%.3f", m->nominal_ghz.value);
			peak_result_flag(&r, flag);
		}
		if (emit(out, &r) != 0)
			return -1;
	}
	struct peak_result r;
	peak_result_init(&r, "cpu", "frequency", "nominal", "frequency", "GHz");
	if (m->nominal_ghz.source != PEAK_SRC_UNKNOWN)
		r.theoretical = m->nominal_ghz.value;
	(void)snprintf(flag, sizeof flag, "source=%s", src_name(m->nominal_ghz.source));
	peak_result_flag(&r, flag);
	peak_result_flag(&r, m->nominal_ghz.note);
	return emit(out, &r);
}

/* A row whose value is one peak_value (memory, disk, network). */
static int value_row(struct peak_output *out, const char *suite, const char *variant,
		     const char *metric, const char *unit, const struct peak_value *v,
		     const char *inputs)
{
	struct peak_result r;
	char flag[160];
	peak_result_init(&r, suite, "peak", variant, metric, unit);
	if (v->source != PEAK_SRC_UNKNOWN)
		r.theoretical = v->value;
	(void)snprintf(flag, sizeof flag, "source=%s", src_name(v->source));
	peak_result_flag(&r, flag);
	if (inputs && inputs[0])
		peak_result_flag(&r, inputs);
	if (v->note[0])
		peak_result_flag(&r, v->note);
	return emit(out, &r);
}

static int io_rows(struct peak_output *out, const struct peak_machine *m,
		   const struct peak_loopback *lo)
{
	char inputs[160], ch[32], mts[32];
	inputs[0] = '\0';
	{
		(void)snprintf(ch, sizeof ch, m->mem_channels.source ? "%g" : "unknown",
			       m->mem_channels.value);
		(void)snprintf(mts, sizeof mts, m->mem_mts.source ? "%g" : "unknown",
			       m->mem_mts.value);
		(void)snprintf(inputs, sizeof inputs, "channels=%s(%s);mts=%s(%s)", ch,
			       src_name(m->mem_channels.source), mts, src_name(m->mem_mts.source));
	}
	if (value_row(out, "memory", "dram", "throughput", "GB/s", &m->mem_gbps, inputs) != 0 ||
	    value_row(out, "disk", "rated", "throughput", "MB/s", &m->disk_mbps, NULL) != 0 ||
	    value_row(out, "disk", "rated", "iops", "IOPS", &m->disk_iops, NULL) != 0)
		return -1;
	const char *iface = m->net_iface[0] ? m->net_iface : "link";
	if (value_row(out, "network", iface, "throughput", "Gbit/s", &m->net_gbps, NULL) != 0)
		return -1;
	struct peak_value lv = {.value = lo->gbps,
				.source = lo->gbps > 0 ? PEAK_SRC_MEASURED : PEAK_SRC_UNKNOWN};
	(void)snprintf(lv.note, sizeof lv.note, "%s", lo->note);
	return value_row(out, "network", "loopback", "throughput", "Gbit/s", &lv, NULL);
}

int peakinfo_report(struct peak_output *out, const struct peak_sysinfo *si,
		    const struct peak_machine *m, const struct peak_loopback *lo)
{
	if (freq_rows(out, m) != 0)
		return -1;
	/* aarch64: the scalar rows, then NEON and SVE; the x86 vector ISAs are left out. */
	bool arm = strcmp(si->arch, "aarch64") == 0;
	int isa_end = arm ? PEAK_ISA_SCALAR + 1 : PEAK_ISA_COUNT;
	for (int isa = 0; isa < isa_end; isa++)
		for (int prec = 0; prec < PEAK_PREC_COUNT; prec++)
			if (cpu_row(out, si, m, (enum peak_isa)isa, (enum peak_precision)prec, 0) !=
			    0)
				return -1;
	if (arm && peakinfo_arm64_rows(out, si, m) != 0)
		return -1;
	for (int isa = 0; isa < isa_end; isa++)
		for (unsigned bits = 32; bits <= 64; bits += 32)
			if (cpu_row(out, si, m, (enum peak_isa)isa, PEAK_PREC_DP, bits) != 0)
				return -1;
	if (peakinfo_format_rows(out, m) != 0)
		return -1;
	return io_rows(out, m, lo);
}
