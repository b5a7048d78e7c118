/* The micro-architecture table: per-core unit counts and latencies of the CPUs the
 * sources cover, looked up by vendor/family/model/stepping or by name. */
#include <stdio.h>
#include <string.h>

#include "peak_sysinfo.h"
#include "peak_uarch.h"
#include "peak_uarch_formats.h"

/* The micro-architecture table. Figures are per core, from the vendors' optimization
 * manuals and published instruction tables (Agner Fog, uops.info); widths per cycle are
 * throughput, latencies are in cycles. Xeon Bronze/Silver and some Gold 5xxx parts have
 * one 512-bit FMA unit, not two: peaks.conf cpu.fma512_units = 1 fixes that. A CPU that
 * is not here is measured (peak_uarch_probe.c), never guessed: entries are added only
 * with a source. Not here for want of one, so measured: Intel's E-core servers (Sierra
 * Forest, Crestmont) and Lion Cove clients (Arrow Lake, Lunar Lake), whose vector port
 * counts no manual or table we hold states; Zen 5 mobile parts (Strix Point, Krackan,
 * Strix Halo), whose 512-bit path is narrower than Turin's and not documented per model.
 * The FP add latency is the same for every width in all entries (uops.info). */
struct uarch_entry {
	const char *vendor;
	unsigned family, model_lo, model_hi, stepping_lo, stepping_hi;
	const char *name;
	unsigned fma, fma512, vadd, vadd512, alu, vmul, fadd_lat, imul_lat, pipe, ops, ops512;
	unsigned imul; /* imul r64 per cycle; 0 where no source gives it (measured) */
};

/* clang-format off */
static const struct uarch_entry uarch_table[] = {
	/* vendor family models steppings name fma fma512 vadd vadd512 alu vmul fadd imul_lat
	 * pipe addmul_ops addmul512_ops imul. "uops.info" is its measured throughput (TP, cycles
	 * per instruction) and port map for the named core; the counts are 1/TP. A 0 is a count
	 * the sources leave unsettled or that is not a whole number per cycle: the probe measures
	 * it on the machine (peak_uarch_probe.c). docs/cpu.md lists each count with its source. */
	/* Haswell, Broadwell: uops.info HSW/BDW. FMA p01, vpaddd p15, add r64 p0156, FP add p1
	 * (lat 3) against mul p01, imul r64 p1 (lat 3). PMULLD is 2 uops on p0 alone (TP 2.00):
	 * half a multiply per cycle, which the table cannot hold, so vmul is 0. */
	{"GenuineIntel", 6, 60, 60, 0, 15, "haswell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 63, 63, 0, 15, "haswell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 69, 70, 0, 15, "haswell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 61, 61, 0, 15, "broadwell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 71, 71, 0, 15, "broadwell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 79, 79, 0, 15, "broadwell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 86, 86, 0, 15, "broadwell", 2, 0, 2, 0, 4, 0, 3, 3, 256, 2, 0, 1},
	/* Skylake, Kaby/Coffee/Comet Lake: uops.info SKL/KBL/CFL. FMA, FP add and mul all on
	 * p01 (lat 4), vpaddd p015, add r64 p0156, VPMULLD 2 uops on p01 (TP 1.00). */
	{"GenuineIntel", 6, 78, 78, 0, 15, "skylake-client", 2, 0, 3, 0, 4, 1, 4, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 94, 94, 0, 15, "skylake-client", 2, 0, 3, 0, 4, 1, 4, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 142, 142, 0, 15, "skylake-client", 2, 0, 3, 0, 4, 1, 4, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 158, 158, 0, 15, "skylake-client", 2, 0, 3, 0, 4, 1, 4, 3, 256, 2, 0, 1},
	{"GenuineIntel", 6, 165, 166, 0, 15, "skylake-client", 2, 0, 3, 0, 4, 1, 4, 3, 256, 2, 0, 1},
	/* Skylake-SP, Cascade Lake (steppings 5-7), Cooper Lake (10-11): uops.info SKX/CLX as
	 * Skylake for 256 bits; 512-bit FMA, FP add, FP mul and vpaddd on p05 (TP 0.50), FP add
	 * latency 4 at every width. Cooper Lake is the Cascade Lake core (no table of its own). */
	{"GenuineIntel", 6, 85, 85, 5, 7, "cascadelake-server", 2, 2, 3, 2, 4, 1, 4, 3, 256, 2, 2, 1},
	{"GenuineIntel", 6, 85, 85, 10, 11, "cooperlake-server", 2, 2, 3, 2, 4, 1, 4, 3, 256, 2, 2, 1},
	{"GenuineIntel", 6, 85, 85, 0, 15, "skylake-server", 2, 2, 3, 2, 4, 1, 4, 3, 256, 2, 2, 1},
	/* Ice Lake-SP: OSACA's measured ICX model (512-bit FMA, add, mul, vpaddd on p05, FP add
	 * lat 4, add r64 p0156); VPMULLD from uops.info ICL, the same Sunny Cove core. */
	{"GenuineIntel", 6, 106, 106, 0, 15, "icelake-server", 2, 2, 3, 2, 4, 1, 4, 3, 256, 2, 2, 1},
	{"GenuineIntel", 6, 108, 108, 0, 15, "icelake-server", 2, 2, 3, 2, 4, 1, 4, 3, 256, 2, 2, 1},
	/* Client Ice Lake, Tiger Lake, Rocket Lake: uops.info ICL/TGL/RKL. 256-bit as Skylake;
	 * 512-bit FMA, FP add and mul on p0 only (TP 1.00), vpaddd zmm on p05. */
	{"GenuineIntel", 6, 125, 126, 0, 15, "icelake-client", 2, 1, 3, 2, 4, 1, 4, 3, 256, 2, 1, 1},
	{"GenuineIntel", 6, 140, 141, 0, 15, "tigerlake", 2, 1, 3, 2, 4, 1, 4, 3, 256, 2, 1, 1},
	{"GenuineIntel", 6, 167, 167, 0, 15, "rocketlake", 2, 1, 3, 2, 4, 1, 4, 3, 256, 2, 1, 1},
	/* Alder/Raptor Lake P-cores (Golden/Raptor Cove): uops.info ADL-P. FMA and FP mul p01,
	 * FP add p15 (3 adds + muls per cycle in a 1:1 mix), vpaddd p015, add r64 on five ports
	 * (TP 0.20), VPMULLD 2 uops on p01 (TP 1.00). AVX-512 fused off. FP add latency 0:
	 * uops.info gives 3 for vaddpd but [2;3] for addsd/addpd, OSACA's measured SPR model 2
	 * for both. E-cores are slower: the peak assumes P-cores. */
	{"GenuineIntel", 6, 151, 151, 0, 15, "alderlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	{"GenuineIntel", 6, 154, 154, 0, 15, "alderlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	{"GenuineIntel", 6, 183, 183, 0, 15, "raptorlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	{"GenuineIntel", 6, 186, 186, 0, 15, "raptorlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	{"GenuineIntel", 6, 191, 191, 0, 15, "raptorlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	/* Meteor Lake (0xAA, 0xAC): Redwood Cove P-cores, which the Intel optimization manual
	 * (Golden Cove / Redwood Cove chapter) gives Golden Cove's ports: counts as Alder Lake,
	 * FP add latency 0 likewise. Hybrid: the peak assumes P-cores. */
	{"GenuineIntel", 6, 170, 170, 0, 15, "meteorlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	{"GenuineIntel", 6, 172, 172, 0, 15, "meteorlake", 2, 0, 3, 0, 5, 1, 0, 3, 256, 3, 0, 1},
	/* Sapphire and Emerald Rapids: OSACA's measured SPR model (FP add p15, mul and FMA p01;
	 * 512-bit FMA, add, mul and vpaddd on p05; add r64 on five ports; imul p1); VPMULLD from
	 * uops.info ADL-P, the same Golden Cove core. FP add latency 0 as for Alder Lake:
	 * 2 for the VEX forms, 3 for zmm in that model. */
	{"GenuineIntel", 6, 143, 143, 0, 15, "sapphirerapids", 2, 2, 3, 2, 5, 1, 0, 3, 256, 3, 2, 1},
	{"GenuineIntel", 6, 207, 207, 0, 15, "emeraldrapids", 2, 2, 3, 2, 5, 1, 0, 3, 256, 3, 2, 1},
	/* Granite Rapids (0xAD SP/AP, 0xAE D): Redwood Cove server cores, Sapphire Rapids'
	 * execution ports (Intel optimization manual) with two 512-bit FMA units. */
	{"GenuineIntel", 6, 173, 174, 0, 15, "graniterapids", 2, 2, 3, 2, 5, 1, 0, 3, 256, 3, 2, 1},
	/* Zen 1 and Zen+: uops.info Zen+. Four 128-bit FP pipes (FMA/mul FP01, add FP23, vector
	 * integer add FP013), 256-bit ops as two; four ALUs; imul r64 TP 1.00, lat 3. PMULLD
	 * runs on FP0 alone at TP 2.00 (half per cycle): vmul 0. Hygon family 18h (Dhyana) is
	 * this core by Linux's and Xen's account; no instruction table measures it. */
	{"AuthenticAMD", 23, 0x00, 0x2f, 0, 15, "zen1", 2, 0, 3, 0, 4, 0, 3, 3, 128, 4, 0, 1},
	{"HygonGenuine", 24, 0x00, 0xff, 0, 15, "zen1", 2, 0, 3, 0, 4, 0, 3, 3, 128, 4, 0, 1},
	/* Zen 2: uops.info Zen 2. As Zen+ at 256 bits per pipe; PMULLD still FP0 alone at
	 * TP 2.00 measured (1.00 computed from its one uop): vmul 0. */
	{"AuthenticAMD", 23, 0x30, 0xff, 0, 15, "zen2", 2, 0, 3, 0, 4, 0, 3, 3, 256, 4, 0, 1},
	/* Zen 3: uops.info Zen 3. FMA/mul FP01, FP add FP23 (lat 3), vector integer add
	 * FP0123, PMULLD on FP0 and FP3 at TP 0.50 (the probe: 1.95-1.98 on an EPYC 7xx3),
	 * add r64 TP 0.25 (four ALUs), imul r64 TP 1.00. */
	{"AuthenticAMD", 25, 0x00, 0x0f, 0, 15, "zen3", 2, 0, 4, 0, 4, 2, 3, 3, 256, 4, 0, 1},
	{"AuthenticAMD", 25, 0x20, 0x5f, 0, 15, "zen3", 2, 0, 4, 0, 4, 2, 3, 3, 256, 4, 0, 1},
	/* Zen 4: uops.info Zen 4 as Zen 3 (PMULLD on FP01, TP 0.50; the probe measures 2.00 on
	 * an EPYC 9004); 512-bit ops in two passes: vfmadd, vaddpd, vmulpd zmm TP 1.00, vpaddd
	 * zmm TP 0.50, FP add latency 3 at every width. */
	{"AuthenticAMD", 25, 0x10, 0x1f, 0, 15, "zen4", 2, 1, 4, 2, 4, 2, 3, 3, 256, 4, 2, 1},
	{"AuthenticAMD", 25, 0x60, 0x7f, 0, 15, "zen4", 2, 1, 4, 2, 4, 2, 3, 3, 256, 4, 2, 1},
	/* Zen 4c (Bergamo, Siena: 0xA0-0xAF): the Zen 4 core in a denser layout, same
	 * execution units (AMD family 19h software optimization guide). */
	{"AuthenticAMD", 25, 0xa0, 0xaf, 0, 15, "zen4c", 2, 1, 4, 2, 4, 2, 3, 3, 256, 4, 2, 1},
	/* Zen 5 and 5c with the full 512-bit datapath: Turin (0x00-0x0F), Turin dense
	 * (0x10-0x1F), Granite Ridge (0x40-0x4F). Two 512-bit FMA pipes and two FADD pipes
	 * of latency 2, four vector integer ALUs, six integer ALUs (AMD family 1Ah software
	 * optimization guide; numberworld.org's Zen 5 AVX-512 teardown). Its vector and
	 * scalar multiply rates are in no source we hold: 0, measured at run time. */
	{"AuthenticAMD", 26, 0x00, 0x1f, 0, 15, "zen5", 2, 2, 4, 4, 6, 0, 2, 3, 256, 4, 4, 0},
	{"AuthenticAMD", 26, 0x40, 0x4f, 0, 15, "zen5", 2, 2, 4, 4, 6, 0, 2, 3, 256, 4, 4, 0},
};
/* clang-format on */

static void uarch_from_entry(const struct uarch_entry *e, struct peak_uarch *u)
{
	memset(u, 0, sizeof *u);
	(void)snprintf(u->name, sizeof u->name, "%s", e->name);
	u->source = PEAK_SRC_TABLE;
	u->fma_units = e->fma;
	u->fma512_units = e->fma512;
	u->vec_int_add_units = e->vadd;
	u->vec512_int_add_units = e->vadd512;
	u->int_alu_units = e->alu;
	u->vec_int_mul_units = e->vmul;
	u->imul_units = e->imul;
	u->fp_add_latency = u->fp_add256_latency = e->fadd_lat;
	u->fp_add512_latency = e->fma512 ? e->fadd_lat : 0;
	u->imul_latency = e->imul_lat;
	u->pipe_bits = e->pipe;
	u->addmul_ops = e->ops;
	u->addmul512_ops = e->ops512;
	peak_uarch_formats_fill(u);
}

/* aarch64: the MIDR pair (peak_uarch_arm.c); unknown cores measured. */
static bool lookup_arm(const struct peak_sysinfo *si, struct peak_uarch *u)
{
	const struct peak_uarch_arm *a = peak_uarch_arm_find(si->family, si->model);
	if (a) {
		peak_uarch_arm_fill(a, u);
		return true;
	}
	memset(u, 0, sizeof *u);
	(void)snprintf(u->name, sizeof u->name, "unknown");
	u->source = PEAK_SRC_UNKNOWN;
	u->imul_latency = 1;
	(void)snprintf(u->note, sizeof u->note,
		       "implementer 0x%02x part 0x%03x is not in the table", si->family, si->model);
	return false;
}

bool peak_uarch_lookup_model(const struct peak_sysinfo *si, struct peak_uarch *u)
{
	if (strcmp(si->arch, "aarch64") == 0)
		return lookup_arm(si, u);
	for (size_t i = 0; i < sizeof uarch_table / sizeof uarch_table[0]; i++) {
		const struct uarch_entry *e = &uarch_table[i];
		if (strcmp(si->vendor, e->vendor) != 0 || si->family != e->family ||
		    si->model < e->model_lo || si->model > e->model_hi ||
		    si->stepping < e->stepping_lo || si->stepping > e->stepping_hi)
			continue;
		uarch_from_entry(e, u);
		return true;
	}
	/* Not in the table: every count unknown. imul r64,r64 is 3 cycles on every x86-64
	 * since Core 2 and Zen: the one fact the frequency chain needs. */
	memset(u, 0, sizeof *u);
	(void)snprintf(u->name, sizeof u->name, "unknown");
	u->source = PEAK_SRC_UNKNOWN;
	u->imul_latency = 3;
	(void)snprintf(u->note, sizeof u->note, "%s family %u model %u is not in the table",
		       si->vendor, si->family, si->model);
	return false;
}

bool peak_uarch_by_name(const char *name, struct peak_uarch *u)
{
	const struct peak_uarch_arm *a = peak_uarch_arm_by_name(name);
	if (a) {
		peak_uarch_arm_fill(a, u);
		return true;
	}
	for (size_t i = 0; i < sizeof uarch_table / sizeof uarch_table[0]; i++)
		if (name && strcmp(name, uarch_table[i].name) == 0) {
			uarch_from_entry(&uarch_table[i], u);
			return true;
		}
	/* "sapphirerapids-class": the entries with that one's counts (peak_uarch_identity.h) */
	size_t n = name ? strlen(name) : 0, suffix = strlen("-class");
	char base[sizeof u->name];
	if (n > suffix && n - suffix < sizeof base && strcmp(name + n - suffix, "-class") == 0) {
		(void)snprintf(base, sizeof base, "%.*s", (int)(n - suffix), name);
		if (peak_uarch_by_name(base, u)) {
			(void)snprintf(u->name, sizeof u->name, "%s", name);
			return true;
		}
	}
	return false;
}

bool peak_uarch_entry_at(size_t i, const char **vendor, const char **name)
{
	if (i >= sizeof uarch_table / sizeof uarch_table[0])
		return false;
	*vendor = uarch_table[i].vendor;
	*name = uarch_table[i].name;
	return true;
}

bool peak_uarch_name_known(const char *name)
{
	struct peak_uarch u;
	return name && (strcmp(name, "measured") == 0 || peak_uarch_by_name(name, &u));
}
