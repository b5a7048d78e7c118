/* The aarch64 half of peak_sysinfo: the ISA from the kernel's hardware capabilities
 * (getauxval AT_HWCAP, AT_HWCAP2) and the SVE vector length this process runs with
 * (prctl PR_SVE_GET_VL). The identity (MIDR) comes from /proc/cpuinfo
 * (peak_sysinfo_proc.c): user space cannot read MIDR_EL1 without the kernel's emulation. */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#include "peak_sysinfo.h"

/* The bits of the arm64 uapi <asm/hwcap.h>, spelled here in case the libc headers are
 * older than SVE. */
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1UL << 1)
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2 (1UL << 1)
#endif
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK 0xffff
#endif

void peak_isa_detect(struct peak_isa_flags *f, const char **os_note)
{
	unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
	memset(f, 0, sizeof *f);
	f->asimd = (hwcap & HWCAP_ASIMD) != 0;
	f->sve = (hwcap & HWCAP_SVE) != 0;
	f->sve2 = f->sve && (hwcap2 & HWCAP2_SVE2) != 0;
	if (f->sve) {
		/* Bytes; the kernel may give each process a shorter length than the hardware's
		 * (prctl PR_SVE_SET_VL, /proc/sys/abi/sve_default_vector_length). */
		int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
		if (vl > 0)
			f->sve_vl_bits = 8u * ((unsigned)vl & PR_SVE_VL_LEN_MASK);
	}
	if (os_note)
		*os_note = NULL;
}

bool peak_sysinfo_collect_cpu(struct peak_sysinfo *si)
{
	(void)snprintf(si->arch, sizeof si->arch, "aarch64");
	peak_isa_detect(&si->isa, NULL);
	if (si->isa.sve && !si->isa.sve_vl_bits)
		peak_sysinfo_warn(si, "SVE vector length unknown: prctl(PR_SVE_GET_VL) failed");
	/* The identity is /proc/cpuinfo's (MIDR fields): nothing here names the CPU. */
	return false;
}

double peak_sysinfo_cpu_nominal_ghz(void)
{
	return 0; /* AArch64 states no nominal frequency to user space */
}
