/* Theoretical peaks: the micro-architecture table, per-cycle widths per ISA, and the
 * machine's peak inputs (frequency, memory, disk, network), each with where it came from. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peak_freq.h"
#include "peak_peak.h"
#include "peak_uarch_check.h"
#include "peak_uarch_probe.h"

const char *peak_source_name(enum peak_source src)
{
	switch (src) {
	case PEAK_SRC_MEASURED:
		return "measured";
	case PEAK_SRC_TABLE:
		return "table";
	case PEAK_SRC_CONFIG:
		return "config";
	case PEAK_SRC_PUBLISHED:
		return "published";
	case PEAK_SRC_UNKNOWN:
	default:
		return "unknown";
	}
}

/* Fraction of full rate for an op of `bits` on pipes of pipe_bits. Every x86-64 pipe is
 * at least 128 bits; wider ops on pipes of unknown width have an unknown rate (0). */
static double width_factor(const struct peak_uarch *u, unsigned bits)
{
	if (!u->pipe_bits)
		return bits <= 128 ? 1.0 : 0.0;
	return bits <= u->pipe_bits ? 1.0 : (double)u->pipe_bits / bits;
}

double peak_cpu_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				enum peak_precision prec)
{
	if ((unsigned)isa >= PEAK_ISA_COUNT || (unsigned)prec >= PEAK_PREC_COUNT)
		return 0;
	unsigned bits = peak_isa_bits(isa);
	double lanes = isa == PEAK_ISA_SCALAR ? 1 : bits / (prec == PEAK_PREC_SP ? 32.0 : 64.0);
	switch (isa) {
	case PEAK_ISA_SCALAR:
	case PEAK_ISA_SSE:
	case PEAK_ISA_AVX:
		/* No FMA: adds and multiplies, one flop per lane each. */
		return peak_cpu_addmul_flops_per_cycle(u, isa, prec);
	case PEAK_ISA_AVX2:
		return lanes * 2 * u->fma_units * width_factor(u, bits);
	case PEAK_ISA_AVX512:
		/* fma512_units already counts two-pass 512-bit execution (Zen 4: 1). */
		return lanes * 2 * u->fma512_units;
	case PEAK_ISA_COUNT:
	default:
		return 0;
	}
}

double peak_cpu_addmul_flops_per_cycle(const struct peak_uarch *u, enum peak_isa isa,
				       enum peak_precision prec)
{
	if ((unsigned)isa >= PEAK_ISA_COUNT || (unsigned)prec >= PEAK_PREC_COUNT)
		return 0;
	unsigned bits = peak_isa_bits(isa);
	double lanes = isa == PEAK_ISA_SCALAR ? 1 : bits / (prec == PEAK_PREC_SP ? 32.0 : 64.0);
	/* One flop per lane per add or mul. 512-bit ops have their own rate: Skylake-SP runs
	 * them on 2 ports, Zen 4 in two passes over its 2 add + 2 mul pipes (2 per cycle). */
	if (isa == PEAK_ISA_AVX512)
		return lanes * u->addmul512_ops;
	return lanes * u->addmul_ops * width_factor(u, bits);
}

double peak_cpu_int_ops_per_cycle(const struct peak_uarch *u, enum peak_isa isa, unsigned lane_bits)
{
	if (lane_bits != 32 && lane_bits != 64)
		return 0;
	switch (isa) {
	case PEAK_ISA_SCALAR:
		return u->int_alu_units;
	case PEAK_ISA_SSE:
	case PEAK_ISA_AVX: /* AVX1 has no 256-bit integer ops: its integer kernels are 128-bit */
		return 128.0 / lane_bits * u->vec_int_add_units * width_factor(u, 128);
	case PEAK_ISA_AVX2:
		return 256.0 / lane_bits * u->vec_int_add_units * width_factor(u, 256);
	case PEAK_ISA_AVX512:
		return 512.0 / lane_bits * u->vec512_int_add_units;
	case PEAK_ISA_COUNT:
	default:
		return 0;
	}
}

double peak_cpu_gflops(const struct peak_uarch *u, enum peak_isa isa, enum peak_precision prec,
		       unsigned cores, double ghz)
{
	return peak_cpu_flops_per_cycle(u, isa, prec) * cores * ghz;
}

static void set_value(struct peak_value *v, double value, enum peak_source src, const char *note)
{
	v->value = value;
	v->source = src;
	(void)peak_fmt(v->note, sizeof v->note, "%s", note ? note : "");
}

static bool config_value(const struct peak_config *cfg, const char *key, struct peak_value *v)
{
	double x;
	if (!cfg || !peak_config_get(cfg, key, &x))
		return false;
	const char *origin = "";
	for (size_t i = 0; i < cfg->n; i++)
		if (strcmp(cfg->key[i], key) == 0)
			origin = cfg->origin[i];
	/* Fits: a known key (under 48 bytes) and an origin of PEAK_CONFIG_ORIGIN_LEN. */
	char note[sizeof v->note];
	(void)peak_fmt(note, sizeof note, "%s from %s", key, origin);
	set_value(v, x, PEAK_SRC_CONFIG, note);
	return true;
}

/* The chains' names in the notes: x86-64's imul r64 and addsd, aarch64's add x (latency 1
 * on every Arm core) and fadd d. */
#if PEAK_FREQ_INT_LATENCY
#define INT_CHAIN      "add x"
#define INT_CHAIN_FULL "add x"
#define FP_CHAIN       "fadd d"
#else
#define INT_CHAIN      "imul"
#define INT_CHAIN_FULL "imul r64"
#define FP_CHAIN       "addsd"
#endif

/* Frequency: the anchor chain (imul r64 on x86-64, add x on aarch64: a step whose latency
 * is the same on every core of the architecture), or cpu.ghz. Short runs, many of them: on
 * a shared VM a preempted run only looks slower, so the best of 40 runs of 2 ms is the
 * clock, and 40 x 2 ms per chain keeps peakinfo quick. The FP add chain is timed beside it
 * as a witness of the table's FP add latency, never as a clock: the cycles it takes a step
 * at the anchor's clock are its measured latency (issue 41: a clock timed at a table's
 * latency halved the Zen 5 record's vector-integer peaks). */
static void machine_frequency(struct peak_machine *m, const struct peak_config *cfg)
{
	const double run_s = 0.002;
	m->freq_trials = 40;
	m->freq_spread_pct = -1;
	set_value(&m->ghz_imul, 0, PEAK_SRC_UNKNOWN, "not measured: cpu.ghz configured");
	set_value(&m->ghz_addsd, 0, PEAK_SRC_UNKNOWN, "not measured: cpu.ghz configured");
	if (config_value(cfg, "cpu.ghz", &m->ghz))
		return;

	char note[128];
	const unsigned anchor =
	    PEAK_FREQ_INT_LATENCY ? PEAK_FREQ_INT_LATENCY : PEAK_FREQ_IMUL_LATENCY;
	double gi = peak_freq_measure(PEAK_FREQ_IMUL, anchor, run_s, m->freq_trials, NULL);
	(void)snprintf(note, sizeof note, "%s chain (latency %u) best of %u", INT_CHAIN_FULL,
		       anchor, m->freq_trials);
	set_value(&m->ghz_imul, gi, gi > 0 ? PEAK_SRC_MEASURED : PEAK_SRC_UNKNOWN, note);
	double gf = 0;
	if (m->uarch.fp_add_latency) {
		gf = peak_freq_measure(PEAK_FREQ_ADDSD, m->uarch.fp_add_latency, run_s,
				       m->freq_trials, NULL);
		(void)snprintf(note, sizeof note,
			       "%s chain (latency %u in %s) best of %u: a witness, not the clock",
			       FP_CHAIN, m->uarch.fp_add_latency, m->uarch.name, m->freq_trials);
		set_value(&m->ghz_addsd, gf, gf > 0 ? PEAK_SRC_MEASURED : PEAK_SRC_UNKNOWN, note);
	} else {
		set_value(&m->ghz_addsd, 0, PEAK_SRC_UNKNOWN,
			  "fp add latency unknown for this uarch");
	}
	if (!(gi > 0)) {
		set_value(&m->ghz, 0, PEAK_SRC_UNKNOWN, "frequency chain failed: set cpu.ghz");
		return;
	}
	if (gf > 0) {
		/* The FP add's cycles at the anchor's clock: the table's latency x gi / gf. */
		m->freq_spread_pct = 100.0 * fabs(gi - gf) / fmax(gi, gf);
		(void)snprintf(note, sizeof note,
			       INT_CHAIN " chain; " FP_CHAIN " measured %.2f cycles a step at it "
					 "(table %u)",
			       m->uarch.fp_add_latency * gi / gf, m->uarch.fp_add_latency);
		set_value(&m->ghz, gi, PEAK_SRC_MEASURED, note);
	} else {
		set_value(&m->ghz, gi, PEAK_SRC_MEASURED, INT_CHAIN " chain");
	}
}

/* SMBIOS type 17 (Memory Device): populated DIMMs and their configured speed. Readable by
 * root only on most systems; absent in many VMs. Returns the number of populated DIMMs. */
static unsigned smbios_memory(const char *root, double *mts_out)
{
	char dirpath[PEAK_PATH_MAX];
	if (!peak_fmt(dirpath, sizeof dirpath, "%s/sys/firmware/dmi/entries", root ? root : ""))
		return 0; /* a root too long for the kernel has no such folder either */
	DIR *d = opendir(dirpath);
	if (!d)
		return 0;
	unsigned dimms = 0;
	double mts_min = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, "17-", 3) != 0)
			continue;
		char path[NAME_MAX + 64]; /* fits: d_name is at most NAME_MAX */
		unsigned char b[256];
		(void)peak_fmt(path, sizeof path, "/sys/firmware/dmi/entries/%s/raw", e->d_name);
		long n = peak_sysinfo_read_bytes(root, path, b, sizeof b);
		if (n < 0x17 || b[0] != 17 || b[1] > n)
			continue;
		unsigned len = b[1];
		unsigned size = (unsigned)(b[0x0c] | b[0x0d] << 8);
		if (size == 0 || size == 0xffff)
			continue; /* empty slot or unknown size */
		unsigned speed = (unsigned)(b[0x15] | b[0x16] << 8);
		if (speed == 0xffff && len >= 0x58)
			speed = (unsigned)(b[0x54] | b[0x55] << 8 | b[0x56] << 16);
		if (len >= 0x22) {
			unsigned conf = (unsigned)(b[0x20] | b[0x21] << 8);
			if (conf == 0xffff && len >= 0x5c)
				conf = (unsigned)(b[0x58] | b[0x59] << 8 | b[0x5a] << 16);
			if (conf && conf != 0xffff)
				speed = conf;
		}
		dimms++;
		if (speed && speed != 0xffff && (mts_min == 0 || speed < mts_min))
			mts_min = speed;
	}
	(void)closedir(d);
	*mts_out = mts_min;
	return dimms;
}

static void machine_memory(struct peak_machine *m, const struct peak_config *cfg, const char *root)
{
	double mts = 0;
	unsigned dimms = smbios_memory(root, &mts);
	if (!config_value(cfg, "mem.channels", &m->mem_channels)) {
		if (dimms)
			set_value(&m->mem_channels, dimms, PEAK_SRC_TABLE,
				  "SMBIOS populated DIMMs (assumes one per channel)");
		else
			set_value(&m->mem_channels, 0, PEAK_SRC_UNKNOWN,
				  "no SMBIOS memory devices readable: set mem.channels");
	}
	if (!config_value(cfg, "mem.mts", &m->mem_mts)) {
		if (mts > 0)
			set_value(&m->mem_mts, mts, PEAK_SRC_TABLE, "SMBIOS configured speed");
		else
			set_value(&m->mem_mts, 0, PEAK_SRC_UNKNOWN, "no SMBIOS speed: set mem.mts");
	}
	if (config_value(cfg, "mem.gbps", &m->mem_gbps))
		return;
	if (m->mem_channels.source == PEAK_SRC_UNKNOWN || m->mem_mts.source == PEAK_SRC_UNKNOWN) {
		set_value(&m->mem_gbps, 0, PEAK_SRC_UNKNOWN,
			  "channels or MT/s unknown: set mem.gbps or mem.channels + mem.mts");
		return;
	}
	char note[96];
	(void)snprintf(note, sizeof note, "%g channels x %g MT/s x 8 bytes", m->mem_channels.value,
		       m->mem_mts.value);
	bool cfg_input =
	    m->mem_channels.source == PEAK_SRC_CONFIG || m->mem_mts.source == PEAK_SRC_CONFIG;
	set_value(&m->mem_gbps, m->mem_channels.value * m->mem_mts.value * 8 / 1000,
		  cfg_input ? PEAK_SRC_CONFIG : PEAK_SRC_TABLE, note);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* Link speed of the first (by name) up, non-loopback interface that reports one. */
static void machine_network(struct peak_machine *m, const char *root)
{
	char dirpath[PEAK_PATH_MAX], names[64][32];
	size_t n = 0;
	/* An interface's name is under IFNAMSIZ (16) bytes: a longer entry is none, skipped. */
	DIR *d = peak_fmt(dirpath, sizeof dirpath, "%s/sys/class/net", root ? root : "")
		     ? opendir(dirpath)
		     : NULL;
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL && n < 64)
			if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof names[0])
				(void)snprintf(names[n++], sizeof names[0], "%s", e->d_name);
		(void)closedir(d);
	}
	qsort(names, n, sizeof names[0], name_cmp);
	char unknown_up[64] = "";
	for (size_t i = 0; i < n; i++) {
		char path[128], buf[64];
		(void)snprintf(path, sizeof path, "/sys/class/net/%.31s/type", names[i]);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0 && strcmp(buf, "772") == 0)
			continue; /* ARPHRD_LOOPBACK */
		if (strcmp(names[i], "lo") == 0)
			continue;
		(void)snprintf(path, sizeof path, "/sys/class/net/%.31s/operstate", names[i]);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) != 0 || strcmp(buf, "up") != 0)
			continue;
		(void)snprintf(path, sizeof path, "/sys/class/net/%.31s/speed", names[i]);
		long mbps = -1;
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0)
			mbps = strtol(buf, NULL, 10);
		if (mbps <= 0) { /* -1: the driver does not know (virtio) */
			if (!unknown_up[0])
				(void)snprintf(unknown_up, sizeof unknown_up, "%.31s", names[i]);
			continue;
		}
		(void)snprintf(m->net_iface, sizeof m->net_iface, "%.31s", names[i]);
		char note[96];
		(void)snprintf(note, sizeof note, "%.31s link speed %ld Mbit/s (sysfs)", names[i],
			       mbps);
		set_value(&m->net_gbps, (double)mbps / 1000.0, PEAK_SRC_TABLE, note);
		return;
	}
	char note[96];
	if (unknown_up[0]) {
		(void)snprintf(m->net_iface, sizeof m->net_iface, "%s", unknown_up);
		(void)snprintf(note, sizeof note, "%s reports no link speed: set net.gbps",
			       unknown_up);
	} else {
		(void)snprintf(note, sizeof note,
			       "no up interface with a link speed: set net.gbps");
	}
	set_value(&m->net_gbps, 0, PEAK_SRC_UNKNOWN, note);
}

/* cpu.uarch=measured, or a CPU the table lacks: the probe's counts. A class it could not
 * settle takes the table entry's count where this CPU has one (never 0 for a count the
 * table knows); otherwise it stays unknown. */
static void uarch_measure(struct peak_machine *m, const struct peak_sysinfo *si, const char *why)
{
	struct peak_uarch *u = &m->uarch;
	char reason[sizeof u->note];
	(void)snprintf(reason, sizeof reason, "%s", why); /* why may be u->note itself */
	struct peak_uarch table = *u;
	if (peak_uarch_probe(si, &m->probe) != 0) {
		(void)snprintf(u->note, sizeof u->note, "%.200s; the probe's clock failed", reason);
		return;
	}
	m->probed = true;
	peak_uarch_from_rates(&m->probe.best, u);
	if (table.source == PEAK_SRC_TABLE && peak_uarch_has_unknown(u, si))
		peak_uarch_fill_unknown(u, &table, si, "unsettled, the table's");
}

/* Probe this CPU (or take recorded passes: recorded non-NULL) and, with check, check the
 * entry in use against it (apply: correct what it proves wrong); counts its sources lack
 * are filled from the probe. */
static void uarch_check(struct peak_machine *m, const struct peak_sysinfo *si, bool check,
			bool apply, const char *recorded)
{
	char err[160];
	if (recorded && peak_uarch_probe_parse(recorded, &m->probe, err, sizeof err) != 0) {
		(void)snprintf(m->uarch.probe_notes, sizeof m->uarch.probe_notes, "%s", err);
		return;
	}
	if (!recorded && peak_uarch_probe(si, &m->probe) != 0) {
		(void)snprintf(m->uarch.probe_notes, sizeof m->uarch.probe_notes,
			       "the probe's clock failed: the entry is unchecked");
		return;
	}
	m->probed = true;
	if (check)
		(void)peak_uarch_check(&m->uarch, &m->probe, si, apply);
	/* Every unknown count the probe settled, the format rates' included (which
	 * peak_uarch_has_unknown leaves out): filling is cheap and fills only what is 0. */
	struct peak_uarch measured;
	peak_uarch_from_rates(&m->probe.best, &measured);
	peak_uarch_fill_unknown(&m->uarch, &measured, si, "what its sources lack, measured");
}

/* The table entry, or cpu.uarch from peaks.conf (a name, or "measured" to run the probe
 * on any CPU), or, for a CPU the table lacks, the probe. With check, the probe then checks
 * a table or cpu.uarch entry (peak_uarch_check.h); without, it only fills counts the
 * table lacks. With a fake root (tests) the CPU described is not the one running: nothing
 * is measured and it stays unknown. */
static void machine_uarch(struct peak_machine *m, const struct peak_sysinfo *si,
			  const struct peak_config *cfg, bool real_cpu, bool check)
{
	peak_uarch_identify(si, &m->uarch, &m->identity);
	const char *want = cfg ? cfg->uarch : "";
	bool forced = strcmp(want, "measured") == 0;
	if (want[0] && !forced && peak_uarch_by_name(want, &m->uarch)) {
		m->uarch.source = PEAK_SRC_CONFIG;
		(void)peak_fmt(m->uarch.note, sizeof m->uarch.note, "cpu.uarch from %s",
			       cfg->uarch_origin); /* fits: note is PEAK_MSG_MAX */
	}
	m->uarch_claimed = m->uarch;
	/* Test hook: a recorded machine's probe passes checked against its entry under a fake
	 * root, as the probe's own would be on that machine (tests/machines). */
	const char *recorded = getenv("PEAKBENCH_TEST_PROBE_PASSES");
	if (!real_cpu && check && recorded && *recorded && m->uarch.source != PEAK_SRC_UNKNOWN &&
	    !forced) {
		uarch_check(m, si, true, !(cfg && cfg->trust_table), recorded);
		return;
	}
	if (!real_cpu) {
		if (forced)
			(void)snprintf(m->uarch.note, sizeof m->uarch.note,
				       "cpu.uarch=measured: not measured under a fake root");
		return;
	}
	if (forced || m->uarch.source == PEAK_SRC_UNKNOWN) {
		uarch_measure(m, si, forced ? "cpu.uarch=measured" : m->uarch.note);
		m->uarch_claimed = m->uarch; /* measured: no claim was corrected */
		return;
	}
	if (check || peak_uarch_has_unknown(&m->uarch, si))
		uarch_check(m, si, check, !(cfg && cfg->trust_table), NULL);
}

static void machine_init(struct peak_machine *m, const struct peak_sysinfo *si,
			 const struct peak_config *cfg, const char *root, bool check)
{
	memset(m, 0, sizeof *m);
	const char *r = root ? root : "";
	machine_uarch(m, si, cfg, r[0] == '\0', check);
	double x;
	unsigned fma512_table = m->uarch.fma512_units;
	if (cfg && peak_config_get(cfg, "cpu.fma_units", &x)) {
		m->uarch.fma_units = (unsigned)x;
		if (m->uarch.fma512_units || si->isa.avx512f)
			m->uarch.fma512_units = (unsigned)x;
		m->uarch.source = PEAK_SRC_CONFIG;
	}
	if (cfg && peak_config_get(cfg, "cpu.fma512_units", &x)) {
		m->uarch.fma512_units = (unsigned)x;
		m->uarch.source = PEAK_SRC_CONFIG;
	}
	/* 512-bit adds and muls run on the 512-bit FMA pipes: scale their rate alike. */
	if (m->uarch.fma512_units != fma512_table)
		m->uarch.addmul512_ops =
		    fma512_table ? m->uarch.addmul512_ops * m->uarch.fma512_units / fma512_table
				 : m->uarch.fma512_units;

	if (!config_value(cfg, "cpu.cores", &m->cores)) {
		unsigned cores = si->allowed_cpus;
		if (si->cores && si->cores < cores)
			cores = si->cores; /* SMT siblings share the FP units */
		char note[96];
		(void)snprintf(note, sizeof note, "min of allowed CPUs %u and physical cores %u",
			       si->allowed_cpus, si->cores);
		set_value(&m->cores, cores, cores ? PEAK_SRC_TABLE : PEAK_SRC_UNKNOWN, note);
	}
	machine_frequency(m, cfg);
	if (si->nominal_ghz > 0)
		set_value(&m->nominal_ghz, si->nominal_ghz, PEAK_SRC_TABLE,
			  "cpuid brand string or leaf 0x16");
	else
		set_value(&m->nominal_ghz, 0, PEAK_SRC_UNKNOWN, "no GHz in the brand string");

	machine_memory(m, cfg, r);
	if (!config_value(cfg, "disk.mbps", &m->disk_mbps))
		set_value(&m->disk_mbps, 0, PEAK_SRC_UNKNOWN, "no rated figure: set disk.mbps");
	if (!config_value(cfg, "disk.iops", &m->disk_iops))
		set_value(&m->disk_iops, 0, PEAK_SRC_UNKNOWN, "no rated figure: set disk.iops");
	if (!config_value(cfg, "net.gbps", &m->net_gbps))
		machine_network(m, r);
	peak_machine_cloud_limits(m, &si->cloud, si->logical_cpus, cfg);
}

void peak_machine_init(struct peak_machine *m, const struct peak_sysinfo *si,
		       const struct peak_config *cfg, const char *root)
{
	machine_init(m, si, cfg, root, false);
}

void peak_machine_init_cpu(struct peak_machine *m, const struct peak_sysinfo *si,
			   const struct peak_config *cfg, const char *root)
{
	machine_init(m, si, cfg, root, true);
}

static void value_to_context(struct peak_context *ctx, const char *key, const struct peak_value *v)
{
	char k[PEAK_CONTEXT_KEY_LEN];
	if (v->source != PEAK_SRC_UNKNOWN)
		peak_context_set_num(ctx, key, v->value);
	else
		peak_context_set_str(ctx, key, "unknown");
	(void)snprintf(k, sizeof k, "%s_source", key);
	peak_context_set_str(ctx, k, peak_source_name(v->source));
	if (v->note[0]) {
		(void)snprintf(k, sizeof k, "%s_note", key);
		peak_context_set_str(ctx, k, v->note);
	}
}

void peak_machine_to_context(const struct peak_machine *m, struct peak_context *ctx)
{
	peak_context_set_str(ctx, "cpu.identity", peak_identity_name(m->identity.verdict));
	if (m->identity.note[0])
		peak_context_set_str(ctx, "cpu.identity_note", m->identity.note);
	peak_context_set_str(ctx, "peak.uarch", m->uarch.name);
	peak_context_set_str(ctx, "peak.uarch_source", peak_source_name(m->uarch.source));
	if (m->uarch.note[0])
		peak_context_set_str(ctx, "peak.uarch_note", m->uarch.note);
	peak_context_set_str(ctx, "peak.table_corrected",
			     m->uarch.corrected[0] ? m->uarch.corrected : "none");
	if (m->uarch.probe_notes[0])
		peak_context_set_str(ctx, "peak.probe_notes", m->uarch.probe_notes);
	if (m->probed) {
		struct peak_uarch fig;
		peak_uarch_from_rates(&m->probe.best, &fig); /* its note spells the figures */
		peak_context_set_str(ctx, "peak.probe", fig.note);
		peak_context_set_num(ctx, "peak.probe_seconds", m->probe.seconds);
		peak_context_set_num(ctx, "peak.probe_passes", m->probe.passes);
	} else {
		peak_context_set_str(ctx, "peak.probe", "not run");
	}
	peak_context_set_num(ctx, "peak.fma_units", m->uarch.fma_units);
	peak_context_set_num(ctx, "peak.fma512_units", m->uarch.fma512_units);
	value_to_context(ctx, "peak.cores", &m->cores);
	value_to_context(ctx, "peak.ghz", &m->ghz);
	if (m->ghz.source == PEAK_SRC_MEASURED)
		peak_context_set_num(ctx, "cpu.ghz.measured", m->ghz.value);
	else
		peak_context_set_str(ctx, "cpu.ghz.measured", "not measured");
	value_to_context(ctx, "cpu.ghz.imul", &m->ghz_imul);
	value_to_context(ctx, "cpu.ghz.addsd", &m->ghz_addsd);
	if (m->freq_spread_pct >= 0)
		peak_context_set_num(ctx, "cpu.ghz.spread_pct", m->freq_spread_pct);
	else
		peak_context_set_str(ctx, "cpu.ghz.spread_pct", "unknown");
	value_to_context(ctx, "peak.nominal_ghz", &m->nominal_ghz);
	value_to_context(ctx, "peak.mem_channels", &m->mem_channels);
	value_to_context(ctx, "peak.mem_mts", &m->mem_mts);
	value_to_context(ctx, "peak.mem_gbps", &m->mem_gbps);
	value_to_context(ctx, "peak.disk_mbps", &m->disk_mbps);
	value_to_context(ctx, "peak.disk_iops", &m->disk_iops);
	value_to_context(ctx, "peak.net_gbps", &m->net_gbps);
	peak_context_set_str(ctx, "peak.net_iface", m->net_iface[0] ? m->net_iface : "none");
	peak_machine_cloud_to_context(m, ctx);
}
