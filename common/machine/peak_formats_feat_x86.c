/* x86 number-format features and the AMX permission (peak_formats_x86.h). */
#include <cpuid.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "peak_formats_x86.h"

/* Debian 12's headers predate the AMX arch_prctl codes: peak_formats_x86.h has them. */
#define ARCH_GET_XCOMP_SUPP PEAK_ARCH_GET_XCOMP_SUPP
#define ARCH_REQ_XCOMP_PERM PEAK_ARCH_REQ_XCOMP_PERM
#define XFEATURE_XTILEDATA  PEAK_XFEATURE_XTILEDATA
#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif
/* The XSAVE area AMX adds: 8 KiB of tile data and 64 bytes of configuration. A signal
 * stack must hold it beside the rest of the frame. */
#define AMX_STATE_BYTES (8192 + 64)

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (uint64_t)hi << 32 | lo;
}

static unsigned detect(void)
{
	unsigned a, b, c, d, f = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) /* OSXSAVE */
		return 0;
	uint64_t xcr0 = xgetbv0();
	bool ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	unsigned b0 = b, c0 = c, d0 = d;
	__cpuid_count(7, 1, a, b, c, d);
	unsigned a1 = a;
	if (zmm && (b0 & (1u << 16))) {
		f |= PEAK_FMTF_AVX512;
		if (b0 & (1u << 31))
			f |= PEAK_FMTF_AVX512VL;
		if (a1 & (1u << 5))
			f |= PEAK_FMTF_AVX512_BF16;
		if (c0 & (1u << 11))
			f |= PEAK_FMTF_AVX512_VNNI;
		if (d0 & (1u << 23))
			f |= PEAK_FMTF_AVX512_FP16;
	}
	if (ymm && (a1 & (1u << 4)))
		f |= PEAK_FMTF_AVX_VNNI;
	if (d0 & (1u << 24))
		f |= PEAK_FMTF_AMX_TILE;
	if (d0 & (1u << 22))
		f |= PEAK_FMTF_AMX_BF16;
	if (d0 & (1u << 25))
		f |= PEAK_FMTF_AMX_INT8;
	if (a1 & (1u << 21))
		f |= PEAK_FMTF_AMX_FP16;
	if ((xcr0 & (3u << 17)) == (3u << 17))
		f |= PEAK_FMTF_AMX_XCR0;
	return f;
}

/* PEAKBENCH_TEST_PRETEND_MISSING's format tokens (cpu_table.c's hook, for the ISAs). */
static unsigned pretend_missing(void)
{
	static const struct {
		const char *token;
		unsigned feats;
	} tokens[] = {
	    {"fp16", PEAK_FMTF_AVX512_FP16},   {"bf16", PEAK_FMTF_AVX512_BF16},
	    {"vnni", PEAK_FMTF_AVX512_VNNI},   {"avxvnni", PEAK_FMTF_AVX_VNNI},
	    {"amx", PEAK_FMTF_AMX_TILE},       {"avx512", PEAK_FMTF_AVX512},
	};
	const char *env = getenv("PEAKBENCH_TEST_PRETEND_MISSING");
	unsigned off = 0;
	if (!env)
		return 0;
	for (size_t i = 0; i < sizeof tokens / sizeof tokens[0]; i++) {
		size_t len = strlen(tokens[i].token);
		for (const char *p = env; (p = strstr(p, tokens[i].token)) != NULL; p += len)
			if ((p == env || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
				off |= tokens[i].feats;
	}
	return off;
}

/* Detected once per process, as peak_isa_detect's flags are (cpuid does not change). */
static pthread_once_t feats_once = PTHREAD_ONCE_INIT;
static unsigned feats_detected;

static void feats_init(void)
{
	feats_detected = detect();
}

unsigned peak_fmt_features(void)
{
	(void)pthread_once(&feats_once, feats_init);
	return feats_detected & ~pretend_missing();
}

bool peak_fmt_can_run(unsigned need, char *reason, size_t reason_len)
{
	static const struct {
		unsigned feat;
		const char *name;
	} names[] = {
	    {PEAK_FMTF_AVX512, "avx512f (with the OS's zmm state)"},
	    {PEAK_FMTF_AVX512VL, "avx512vl"},
	    {PEAK_FMTF_AVX512_BF16, "avx512_bf16"},
	    {PEAK_FMTF_AVX512_VNNI, "avx512_vnni"},
	    {PEAK_FMTF_AVX512_FP16, "avx512_fp16"},
	    {PEAK_FMTF_AVX_VNNI, "avx_vnni"},
	    {PEAK_FMTF_AMX_TILE, "amx_tile"},
	    {PEAK_FMTF_AMX_BF16, "amx_bf16"},
	    {PEAK_FMTF_AMX_INT8, "amx_int8"},
	    {PEAK_FMTF_AMX_FP16, "amx_fp16"},
	};
	unsigned have = peak_fmt_features();
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if ((need & names[i].feat) && !(have & names[i].feat)) {
			if (reason && reason_len)
				(void)snprintf(reason, reason_len, "%s not reported by this CPU",
					       names[i].name);
			return false;
		}
	return true;
}

static long prctl_syscall(int code, unsigned long arg)
{
	return syscall(SYS_arch_prctl, code, arg);
}

bool peak_amx_request(char *reason, size_t reason_len)
{
	return peak_amx_request_with(peak_fmt_features(), prctl_syscall, reason, reason_len);
}

bool peak_amx_request_with(unsigned feats, peak_amx_prctl_fn amx_prctl, char *reason,
			   size_t reason_len)
{
	char dummy[8];
	if (!reason || !reason_len) {
		reason = dummy;
		reason_len = sizeof dummy;
	}
	if (!(feats & PEAK_FMTF_AMX_TILE)) {
		(void)snprintf(reason, reason_len, "amx_tile not reported by this CPU");
		return false;
	}
	if (!(feats & PEAK_FMTF_AMX_XCR0)) {
		(void)snprintf(reason, reason_len,
			       "AMX reported by cpuid but its tile state is not enabled in XCR0 "
			       "(bits 17-18): the hypervisor or kernel masks it");
		return false;
	}
	unsigned long supported = 0;
	if (amx_prctl(ARCH_GET_XCOMP_SUPP, (unsigned long)&supported) != 0) {
		(void)snprintf(reason, reason_len,
			       "arch_prctl(ARCH_GET_XCOMP_SUPP) failed (%s): kernel before 5.16, "
			       "no AMX permission interface",
			       strerror(errno));
		return false;
	}
	if (!(supported & (1ul << XFEATURE_XTILEDATA))) {
		(void)snprintf(reason, reason_len,
			       "the kernel does not offer XTILEDATA (ARCH_GET_XCOMP_SUPP 0x%lx)",
			       supported);
		return false;
	}
	if (amx_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) {
		/* The kernel checks every thread's sigaltstack against the signal frame the
		 * tiles would need (AT_MINSIGSTKSZ grows by their 8 KiB) and refuses with
		 * ENOSPC when one is too small. */
		if (errno == ENOSPC) {
			(void)snprintf(reason, reason_len,
				       "arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) refused: a "
				       "sigaltstack is too small for the %d bytes of tile state "
				       "(AT_MINSIGSTKSZ %lu)",
				       AMX_STATE_BYTES, getauxval(AT_MINSIGSTKSZ));
			return false;
		}
		(void)snprintf(reason, reason_len,
			       "arch_prctl(ARCH_REQ_XCOMP_PERM, XTILEDATA) refused: %s",
			       strerror(errno));
		return false;
	}
	return true;
}
