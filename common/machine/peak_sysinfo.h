/* The machine and run context: CPU, ISA, topology and caches (hwloc), NUMA (libnuma),
 * memory, kernel, hypervisor, clocksource, governor, THP, steal time, build. Every
 * source may be missing (VMs hide a lot): a warning is recorded, never a failure. */
#ifndef PEAK_SYSINFO_H
#define PEAK_SYSINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peak_cache.h"
#include "peak_cloud.h"
#include "peak_context.h"
#include "peak_path.h"

#define PEAK_MAX_CACHES 8

struct peak_cache {
	unsigned level;       /* 1, 2, 3 */
	char type;            /* 'd' data, 'i' instruction, 'u' unified */
	uint64_t size_bytes;  /* one instance */
	unsigned line_bytes;
	unsigned shared_by;   /* logical CPUs sharing one instance (0 unknown) */
};

struct peak_isa_flags {
	bool sse2, sse4_2, avx, avx2, fma, avx512f, avx512dq, avx512bw, avx512vl, avx512_fp16;
	bool sse4_1; /* pmulld; not listed in cpu.isa */
	/* aarch64: HWCAP_ASIMD, HWCAP_SVE, HWCAP2_SVE2 (or /proc/cpuinfo's Features), and the
	 * SVE vector length this process runs with (prctl PR_SVE_GET_VL; 0 unknown or no SVE:
	 * never from a table, Graviton3 is 256-bit and Graviton4 128-bit). */
	bool asimd, sve, sve2;
	unsigned sve_vl_bits;
};

/* This process's ISA flags: each one the CPU reports (cpuid) and, for AVX and AVX-512, the
 * OS saves the registers of (XCR0); *os_note (may be NULL) gets the sentence saying the OS
 * left AVX or AVX-512 disabled, or NULL. On aarch64: getauxval(AT_HWCAP, AT_HWCAP2) and
 * prctl(PR_SVE_GET_VL). No files read: cheap enough for any check. */
void peak_isa_detect(struct peak_isa_flags *f, const char **os_note);

struct peak_sysinfo {
	char cpu_model[128];
	char vendor[16];
	/* x86: cpuid family, model, stepping. aarch64 (arch "aarch64"): family is the MIDR
	 * implementer (0x41 Arm, 0xc0 Ampere, 0x48 HiSilicon), model the part number (0xd0c
	 * Neoverse N1), stepping variant << 4 | revision. */
	unsigned family, model, stepping;
	char arch[16];         /* "x86_64" or "aarch64": the CPU the identity describes */
	struct peak_isa_flags isa;
	unsigned features;     /* x86: the features that tell cores apart, as the CPU reports
				* them (PEAK_CFEAT_*: peak_uarch_identity.h); 0 unknown */
	unsigned logical_cpus; /* online */
	unsigned allowed_cpus; /* in this process's affinity mask */
	unsigned cores;        /* physical cores (hwloc, else logical_cpus) */
	unsigned sockets;
	unsigned numa_nodes;
	double nominal_ghz;    /* from the brand string or cpuid leaf 0x16; 0 unknown */
	struct peak_cache caches[PEAK_MAX_CACHES];
	unsigned ncaches;
	/* L1d, L2, L3 as reported (caches) and as this run uses them: the measured knee
	 * where the latency curve says less (peak_cache.h; PEAK_CACHE_ENV). */
	struct peak_cache_sizes cache;
	uint64_t mem_total_bytes, mem_available_bytes;
	uint64_t hugepage_bytes; /* default huge page size; 0 unknown */
	char kernel[128];
	char hypervisor[32];   /* "none" on bare metal */
	char clocksource[32];
	char governor[32];
	char thp[32];
	uint64_t steal_ticks;  /* /proc/stat steal at collection time */
	uint64_t total_ticks;
	/* The cloud and instance type: DMI here (peak_sysinfo_collect); peak_bench_main adds
	 * PEAK_CLOUD_ENV, peaks.conf / --set and the metadata request (peak_cloud_identify). */
	struct peak_cloud cloud;
	char warnings[512];    /* semicolon-separated */
	char root[PEAK_PATH_MAX]; /* the tree it was collected from ("": the live system) */
};

/* Collect from the running system. root is "" for the real /proc and /sys, or a fake
 * tree (tests/fixtures) whose proc/ and sys/ replace them; hwloc/libnuma/cpuid are only
 * consulted when root is "". Always fills every field (unknown: 0 or "unknown"). */
void peak_sysinfo_collect(struct peak_sysinfo *si, const char *root);

/* Largest cache of the given level ('d' or 'u'), 0 when unknown. */
uint64_t peak_sysinfo_cache_bytes(const struct peak_sysinfo *si, unsigned level);
/* Size of the last-level cache, 0 when unknown. */
uint64_t peak_sysinfo_llc_bytes(const struct peak_sysinfo *si);
/* The effective size of level 1-3 (si->cache: the knee of the run's latency curve when it
 * says less than the reported size, else the reported size), 0 when unknown. What
 * anything sized from a cache uses. */
uint64_t peak_sysinfo_cache_effective_bytes(const struct peak_sysinfo *si, unsigned level);
/* The effective size of the last level reported, 0 when unknown. */
uint64_t peak_sysinfo_llc_effective_bytes(const struct peak_sysinfo *si);

/* Steal ticks and total ticks now (root as above); returns 0 or -1. */
int peak_sysinfo_ticks(const char *root, uint64_t *steal, uint64_t *total);
/* The same and the idle ticks (idle + iowait: no CPU wanted to run). */
int peak_sysinfo_ticks_idle(const char *root, uint64_t *steal, uint64_t *total, uint64_t *idle);

/* Fill the context block: sysinfo fields, the build (compiler, flags, git revision),
 * the timestamp and the clock. */
void peak_sysinfo_to_context(const struct peak_sysinfo *si, struct peak_context *ctx);

/* At the end of a run: add steal % over the run (since si was collected) to the context
 * as "steal.percent" and return it (0 when unknown). Callers flag results "steal" above 1%. */
double peak_sysinfo_finish(const struct peak_sysinfo *si, struct peak_context *ctx);

/* Helpers shared inside libpeak (peak_sysinfo*.c, peak_peak.c) and by tests. */

/* root + path into out (root NULL or "" for the live system); false (errno ENAMETOOLONG)
 * when the two do not fit in len: the caller fails, never opens a cut path. */
bool peak_sysinfo_path(char *out, size_t len, const char *root, const char *path);
/* Read the text file root + path (path starts with '/') into buf, trailing whitespace
 * removed. Returns 0, or -1 when it cannot be read. */
int peak_sysinfo_read(const char *root, const char *path, char *buf, size_t len);
/* Read up to len bytes of root + path; returns the count, or -1. */
long peak_sysinfo_read_bytes(const char *root, const char *path, void *buf, size_t len);
/* Number of CPUs in a cpulist such as "0-3,8,10-11"; 0 when it does not parse. */
unsigned peak_sysinfo_cpulist_count(const char *list);
/* Append a warning to si->warnings (semicolon-separated, truncated when full). */
void peak_sysinfo_warn(struct peak_sysinfo *si, const char *warning);
/* The architecture's own identification of the live CPU (peak_sysinfo_x86.c: cpuid
 * identity, ISA with XCR0, hypervisor; peak_sysinfo_arm64.c: ISA from HWCAP and prctl).
 * Returns false when the CPU could not identify itself (then /proc/cpuinfo is all). */
bool peak_sysinfo_collect_cpu(struct peak_sysinfo *si);
/* The nominal GHz the CPU itself states (x86: cpuid leaf 0x16); 0 when it states none. */
double peak_sysinfo_cpu_nominal_ghz(void);
/* The file-based half of peak_sysinfo_collect (/proc and /sys under root): fills the
 * fields still unknown (0 or "") after cpuid/hwloc/libnuma. */
void peak_sysinfo_collect_files(struct peak_sysinfo *si, const char *root);

/* /proc/meminfo under root ("" for the real one): the one reader, for peak_sysinfo and
 * the page allocator. Fields the file lacks stay 0 with their bit clear in found. */
struct peak_meminfo {
	uint64_t total_bytes, available_bytes; /* MemTotal, MemAvailable */
	uint64_t hugepage_bytes;               /* Hugepagesize */
	uint64_t hugepages_total, hugepages_free, hugepages_rsvd; /* HugePages_*: pages */
	unsigned found;                                           /* PEAK_MEMINFO_* bits */
};
#define PEAK_MEMINFO_TOTAL         1u
#define PEAK_MEMINFO_AVAILABLE     2u
#define PEAK_MEMINFO_HUGEPAGESIZE  4u
#define PEAK_MEMINFO_HP_TOTAL      8u
#define PEAK_MEMINFO_HP_FREE       16u
#define PEAK_MEMINFO_HP_RSVD       32u
/* Returns 0, or -1 when the file cannot be read (mi zeroed). */
int peak_meminfo_read(const char *root, struct peak_meminfo *mi);

#endif
