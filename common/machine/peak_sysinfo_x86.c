/* The x86-64 half of peak_sysinfo: cpuid (vendor, family/model/stepping, brand string,
 * hypervisor leaf, leaf 0x16) and the ISA flags the CPU reports and the OS enables (XCR0). */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

#include "peak_sysinfo.h"
#include "peak_uarch_identity.h"

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void cpuid_regs(unsigned leaf, unsigned sub, unsigned r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Vendor, family/model/stepping and brand string from cpuid. */
static void collect_cpuid(struct peak_sysinfo *si, unsigned *max_leaf)
{
	unsigned r[4];
	*max_leaf = (unsigned)__get_cpuid_max(0, NULL);
	if (*max_leaf == 0) {
		peak_sysinfo_warn(si, "cpuid unavailable");
		return;
	}
	cpuid_regs(0, 0, r);
	memcpy(si->vendor, &r[1], 4);
	memcpy(si->vendor + 4, &r[3], 4);
	memcpy(si->vendor + 8, &r[2], 4);
	si->vendor[12] = '\0';

	cpuid_regs(1, 0, r);
	unsigned family = (r[0] >> 8) & 0xf, model = (r[0] >> 4) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	if (family == 6 || family >= 0xf)
		model += ((r[0] >> 16) & 0xf) << 4;
	si->family = family;
	si->model = model;
	si->stepping = r[0] & 0xf;

	if ((unsigned)__get_cpuid_max(0x80000000u, NULL) >= 0x80000004u) {
		char brand[49];
		for (unsigned i = 0; i < 3; i++) {
			cpuid_regs(0x80000002u + i, 0, r);
			memcpy(brand + 16 * i, r, 16);
		}
		brand[48] = '\0';
		const char *b = brand;
		while (*b == ' ')
			b++;
		copy_str(si->cpu_model, sizeof si->cpu_model, b);
	}
}

/* Hypervisor vendor from cpuid leaf 0x40000000 when the "hypervisor present" bit is set. */
static void collect_hypervisor(struct peak_sysinfo *si)
{
	static const struct {
		const char *sig, *name;
	} known[] = {
	    {"KVMKVMKVM", "kvm"},          {"Microsoft Hv", "hyperv"},   {"VMwareVMware", "vmware"},
	    {"XenVMMXenVMM", "xen"},       {"TCGTCGTCGTCG", "qemu-tcg"}, {"bhyve bhyve ", "bhyve"},
	    {" lrpepyh  vr", "parallels"}, {"ACRNACRNACRN", "acrn"},     {"QNXQVMBSQG", "qnx"},
	};
	unsigned r[4];
	cpuid_regs(1, 0, r);
	if (!(r[2] & (1u << 31))) {
		copy_str(si->hypervisor, sizeof si->hypervisor, "none");
		return;
	}
	cpuid_regs(0x40000000u, 0, r);
	char sig[32] = "";
	memcpy(sig, &r[1], 4);
	memcpy(sig + 4, &r[2], 4);
	memcpy(sig + 8, &r[3], 4);
	sig[12] = '\0';
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		if (strncmp(sig, known[i].sig, strlen(known[i].sig)) == 0) {
			copy_str(si->hypervisor, sizeof si->hypervisor, known[i].name);
			return;
		}
	}
	copy_str(si->hypervisor, sizeof si->hypervisor, sig[0] ? sig : "unidentified");
}

static unsigned long long read_xcr0(void)
{
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

/* ISA flags: the CPU must report them (__builtin_cpu_supports) and the OS must save the
 * registers on a context switch (XCR0 through XGETBV): YMM state for AVX, opmask and
 * ZMM state as well for AVX-512. */
void peak_isa_detect(struct peak_isa_flags *f, const char **os_note)
{
	unsigned r[4];
	bool os_avx = false, os_avx512 = false;
	__builtin_cpu_init();
	cpuid_regs(1, 0, r);
	if (r[2] & (1u << 27)) { /* OSXSAVE */
		unsigned long long xcr0 = read_xcr0();
		os_avx = (xcr0 & 0x6) == 0x6;
		os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
	}
	memset(f, 0, sizeof *f);
	f->sse2 = __builtin_cpu_supports("sse2");
	f->sse4_1 = __builtin_cpu_supports("sse4.1");
	f->sse4_2 = __builtin_cpu_supports("sse4.2");
	f->avx = os_avx && __builtin_cpu_supports("avx");
	f->avx2 = os_avx && __builtin_cpu_supports("avx2");
	f->fma = os_avx && __builtin_cpu_supports("fma");
	f->avx512f = os_avx512 && __builtin_cpu_supports("avx512f");
	f->avx512dq = os_avx512 && __builtin_cpu_supports("avx512dq");
	f->avx512bw = os_avx512 && __builtin_cpu_supports("avx512bw");
	f->avx512vl = os_avx512 && __builtin_cpu_supports("avx512vl");
	f->avx512_fp16 = os_avx512 && __builtin_cpu_supports("avx512fp16");
	const char *note = NULL;
	if (!os_avx && __builtin_cpu_supports("avx"))
		note = "AVX reported by the CPU but not enabled by the OS (XCR0)";
	else if (!os_avx512 && __builtin_cpu_supports("avx512f"))
		note = "AVX-512 reported by the CPU but not enabled by the OS (XCR0)";
	if (os_note)
		*os_note = note;
}

/* The identity features from cpuid leaf 7 (Intel SDM vol. 2, CPUID): what the CPU, or
 * its hypervisor, reports, whatever the OS enables (peak_uarch_identity.h). */
static unsigned collect_features(unsigned max_leaf)
{
	unsigned r[4], bits = 0;
	if (max_leaf < 7)
		return 0;
	cpuid_regs(7, 0, r);
	unsigned max_sub = r[0];
	const struct {
		unsigned reg, bit, feature;
	} leaf7[] = {
	    {1, 5, PEAK_CFEAT_AVX2},         {1, 16, PEAK_CFEAT_AVX512F},
	    {1, 21, PEAK_CFEAT_AVX512IFMA},  {2, 9, PEAK_CFEAT_VAES},
	    {2, 11, PEAK_CFEAT_AVX512_VNNI}, {3, 8, PEAK_CFEAT_AVX512_VP2INTERSECT},
	    {3, 23, PEAK_CFEAT_AVX512_FP16}, {3, 24, PEAK_CFEAT_AMX_TILE},
	};
	for (size_t i = 0; i < sizeof leaf7 / sizeof leaf7[0]; i++)
		if (r[leaf7[i].reg] & (1u << leaf7[i].bit))
			bits |= leaf7[i].feature;
	if (max_sub >= 1) {
		cpuid_regs(7, 1, r);
		bits |= r[0] & (1u << 4) ? PEAK_CFEAT_AVX_VNNI : 0;
		bits |= r[0] & (1u << 5) ? PEAK_CFEAT_AVX512_BF16 : 0;
		bits |= r[0] & (1u << 21) ? PEAK_CFEAT_AMX_FP16 : 0;
	}
	return bits;
}

static void collect_isa(struct peak_sysinfo *si)
{
	const char *note;
	peak_isa_detect(&si->isa, &note);
	if (note)
		peak_sysinfo_warn(si, note);
}

bool peak_sysinfo_collect_cpu(struct peak_sysinfo *si)
{
	unsigned max_leaf = 0;
	copy_str(si->arch, sizeof si->arch, "x86_64");
	collect_cpuid(si, &max_leaf);
	if (!max_leaf)
		return false;
	collect_isa(si);
	si->features = collect_features(max_leaf);
	collect_hypervisor(si);
	return true;
}

double peak_sysinfo_cpu_nominal_ghz(void)
{
	unsigned r[4];
	if ((unsigned)__get_cpuid_max(0, NULL) < 0x16)
		return 0;
	cpuid_regs(0x16, 0, r);
	return (r[0] & 0xffff) / 1000.0;
}
