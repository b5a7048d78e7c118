/* peak_sysinfo against fake /proc and /sys trees (tests/fixtures): a complete tree gives
 * known answers, a sparse or missing one still gives a complete context with warnings. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>

#include "peak_context.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"

#define FULL    PEAK_FIXTURES_DIR "/sysroot-full"
#define SPARSE  PEAK_FIXTURES_DIR "/sysroot-sparse"
#define MISSING PEAK_FIXTURES_DIR "/no-such-root"

/* Every key peak_sysinfo_to_context promises, whatever the tree holds. */
static const char *const context_keys[] = {
    "cpu.vendor",
    "cpu.model",
    "cpu.family",
    "cpu.model_number",
    "cpu.stepping",
    "cpu.isa",
    "cpu.logical",
    "cpu.allowed",
    "cpu.cores",
    "cpu.sockets",
    "cpu.ghz.nominal",
    "numa.nodes",
    "cache.l1d",
    "cache.l1i",
    "cache.l2",
    "cache.l3",
    "cache.line_bytes",
    "mem.total_bytes",
    "mem.available_bytes",
    "mem.hugepage_bytes",
    "os.kernel",
    "hypervisor",
    "cloud.provider",
    "cloud.instance_type",
    "cloud.source",
    "clocksource",
    "governor",
    "thp",
    "build.compiler",
    "build.cflags",
    "build.type",
    "git.revision",
    "timestamp",
    "clock.resolution_ns",
    "clock.overhead_ns",
};

static void assert_complete(const struct peak_context *ctx)
{
	for (size_t i = 0; i < sizeof context_keys / sizeof context_keys[0]; i++) {
		const char *v = peak_context_get(ctx, context_keys[i]);
		if (!v || !v[0])
			print_error("context key %s missing or empty\n", context_keys[i]);
		assert_non_null(v);
		assert_true(v[0] != '\0');
	}
}

static void test_full_tree(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, FULL);
	assert_string_equal(si.vendor, "GenuineIntel");
	assert_string_equal(si.cpu_model, "Intel(R) Xeon(R) Processor @ 2.50GHz");
	assert_int_equal(si.family, 6);
	assert_int_equal(si.model, 85);
	assert_int_equal(si.stepping, 7);
	assert_true(si.isa.sse2 && si.isa.sse4_2 && si.isa.avx && si.isa.avx2 && si.isa.fma);
	assert_true(si.isa.avx512f && si.isa.avx512dq && si.isa.avx512bw && si.isa.avx512vl);
	assert_false(si.isa.avx512_fp16);
	assert_int_equal(si.logical_cpus, 2);
	assert_int_equal(si.allowed_cpus, 2);
	assert_int_equal(si.cores, 2);
	assert_int_equal(si.sockets, 1);
	assert_int_equal(si.numa_nodes, 1);
	assert_double_equal(si.nominal_ghz, 2.5, 1e-9);
	assert_int_equal(peak_sysinfo_cache_bytes(&si, 1), 32768);
	assert_int_equal(peak_sysinfo_cache_bytes(&si, 2), 1048576);
	assert_int_equal(peak_sysinfo_llc_bytes(&si), 36608u * 1024u);
	assert_int_equal(si.mem_total_bytes, 24684096ull * 1024u);
	assert_int_equal(si.mem_available_bytes, 24275568ull * 1024u);
	assert_int_equal(si.hugepage_bytes, 2u << 20);
	assert_string_equal(si.kernel, "Linux 6.1.0-fixture-amd64");
	assert_string_equal(si.hypervisor, "unidentified"); /* cpuinfo flag, no /sys/hypervisor */
	assert_string_equal(si.clocksource, "tsc");
	assert_string_equal(si.governor, "performance");
	assert_string_equal(si.thp, "madvise");
	assert_int_equal(si.steal_ticks, 778);
	assert_int_equal(si.total_ticks, 4496 + 2522 + 43800 + 1430 + 145 + 778);
	if (si.warnings[0])
		print_error("unexpected warnings: %s\n", si.warnings);
	assert_string_equal(si.warnings, "");

	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_complete(&ctx);
	assert_string_equal(peak_context_get(&ctx, "cpu.isa"),
			    "sse2 sse4_2 avx avx2 fma avx512f avx512dq avx512bw avx512vl");
	assert_string_equal(peak_context_get(&ctx, "cpu.family"), "6");
	assert_string_equal(peak_context_get(&ctx, "cache.l1d"), "32768");
	/* Ticks do not move in a fake tree: steal over the run is unknown, not 0 or NaN. */
	assert_double_equal(peak_sysinfo_finish(&si, &ctx), 0, 0);
	assert_string_equal(peak_context_get(&ctx, "steal.percent"), "unknown");
}

static void test_sparse_tree(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, SPARSE);
	assert_string_equal(si.vendor, "AuthenticAMD");
	assert_int_equal(si.family, 23);
	assert_int_equal(si.model, 49);
	assert_int_equal(si.logical_cpus, 4); /* counted from cpuinfo: no sysfs */
	assert_int_equal(si.allowed_cpus, 4);
	assert_int_equal(si.cores, 4);
	assert_int_equal(si.sockets, 1);
	assert_int_equal(si.numa_nodes, 1);
	assert_false(si.isa.avx2);
	assert_double_equal(si.nominal_ghz, 0, 0);
	assert_int_equal(si.mem_total_bytes, 1000000ull * 1024u);
	assert_int_equal(si.mem_available_bytes, 0);
	assert_string_equal(si.hypervisor, "xen");
	assert_string_equal(si.kernel, "unknown");
	assert_string_equal(si.clocksource, "unknown");
	assert_string_equal(si.governor, "unknown");
	assert_string_equal(si.thp, "unknown");
	assert_int_equal(si.ncaches, 0);
	assert_int_equal(si.steal_ticks, 0);
	assert_int_equal(si.total_ticks, 1020);
	assert_non_null(strstr(si.warnings, "MemAvailable"));
	assert_non_null(strstr(si.warnings, "caches unknown"));
	assert_non_null(strstr(si.warnings, "ISA flags unknown"));

	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_complete(&ctx);
	assert_string_equal(peak_context_get(&ctx, "cache.l1d"), "unknown");
	assert_string_equal(peak_context_get(&ctx, "cpu.isa"), "unknown");
	assert_non_null(peak_context_get(&ctx, "warnings"));
}

static void test_missing_tree(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, MISSING);
	assert_string_equal(si.cpu_model, "unknown");
	assert_string_equal(si.vendor, "unknown");
	assert_string_equal(si.hypervisor, "unknown");
	assert_int_equal(si.logical_cpus, 0);
	assert_int_equal(si.mem_total_bytes, 0);
	assert_true(strlen(si.warnings) > 0);
	assert_true(strlen(si.warnings) < sizeof si.warnings);

	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_complete(&ctx);
	assert_string_equal(peak_context_get(&ctx, "cpu.logical"), "unknown");
	assert_string_equal(peak_context_get(&ctx, "mem.total_bytes"), "unknown");
	char reason[96];
	assert_true(peak_isa_supported(&si, PEAK_ISA_SCALAR, reason, sizeof reason));
	assert_false(peak_isa_supported(&si, PEAK_ISA_AVX2, reason, sizeof reason));
	assert_string_equal(reason, "avx2 not reported by this CPU");
}

static void test_live_system(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	peak_sysinfo_collect(&si, "");
	assert_true(si.logical_cpus >= 1);
	assert_true(si.allowed_cpus >= 1 && si.allowed_cpus <= si.logical_cpus);
	assert_true(si.isa.sse2); /* every x86-64 */
	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_complete(&ctx);
	double steal = peak_sysinfo_finish(&si, &ctx);
	assert_true(steal >= 0 && steal <= 100);
	assert_non_null(peak_context_get(&ctx, "steal.percent"));
}

static void test_cpulist(void **state)
{
	(void)state;
	assert_int_equal(peak_sysinfo_cpulist_count("0"), 1);
	assert_int_equal(peak_sysinfo_cpulist_count("0-3"), 4);
	assert_int_equal(peak_sysinfo_cpulist_count("0-3,8,10-11"), 7);
	assert_int_equal(peak_sysinfo_cpulist_count("0-1\n"), 2);
	assert_int_equal(peak_sysinfo_cpulist_count(""), 0);
	assert_int_equal(peak_sysinfo_cpulist_count("x"), 0);
	assert_int_equal(peak_sysinfo_cpulist_count("3-1"), 0);
}

static void test_read_helpers(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(peak_sysinfo_read(FULL, "/sys/devices/system/cpu/online", buf, sizeof buf),
			 0);
	assert_string_equal(buf, "0-1"); /* newline trimmed */
	assert_int_equal(peak_sysinfo_read(FULL, "/nope", buf, sizeof buf), -1);
	uint64_t steal = 1, total = 1;
	assert_int_equal(peak_sysinfo_ticks(MISSING, &steal, &total), -1);
	struct peak_sysinfo si;
	memset(&si, 0, sizeof si);
	for (int i = 0; i < 100; i++)
		peak_sysinfo_warn(&si, "a fairly long warning that fills the buffer quickly");
	assert_true(strlen(si.warnings) < sizeof si.warnings);
}

/* The machine inputs from the fake tree: SMBIOS DIMMs, sysfs link speed, config. */
static void test_machine_full(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_config cfg;
	static struct peak_machine m;
	char err[256];
	peak_sysinfo_collect(&si, FULL);
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cpu.ghz=2.0", err, sizeof err), 0);
	peak_machine_init(&m, &si, &cfg, FULL);
	assert_string_equal(m.uarch.name, "cascadelake-server");
	assert_int_equal(m.uarch.source, PEAK_SRC_TABLE);
	assert_int_equal(m.cores.source, PEAK_SRC_TABLE);
	assert_double_equal(m.cores.value, 2, 0);
	assert_int_equal(m.ghz.source, PEAK_SRC_CONFIG);
	assert_double_equal(m.ghz.value, 2.0, 0);
	assert_int_equal(m.ghz_imul.source, PEAK_SRC_UNKNOWN); /* not measured when configured */
	assert_int_equal(m.nominal_ghz.source, PEAK_SRC_TABLE);
	assert_double_equal(m.nominal_ghz.value, 2.5, 1e-9);
	/* Two populated DIMMs (the third slot is empty) at the configured 2933 MT/s. */
	assert_int_equal(m.mem_channels.source, PEAK_SRC_TABLE);
	assert_double_equal(m.mem_channels.value, 2, 0);
	assert_double_equal(m.mem_mts.value, 2933, 0);
	assert_int_equal(m.mem_gbps.source, PEAK_SRC_TABLE);
	assert_double_equal(m.mem_gbps.value, 2 * 2933 * 8 / 1000.0, 1e-9);
	assert_int_equal(m.disk_mbps.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(m.disk_iops.source, PEAK_SRC_UNKNOWN);
	/* eth0 is up at 25000 Mbit/s; eth1 (faster) is down; lo is skipped. */
	assert_string_equal(m.net_iface, "eth0");
	assert_int_equal(m.net_gbps.source, PEAK_SRC_TABLE);
	assert_double_equal(m.net_gbps.value, 25, 1e-9);
	assert_double_equal(peak_cpu_gflops(&m.uarch, PEAK_ISA_AVX512, PEAK_PREC_DP,
					    (unsigned)m.cores.value, m.ghz.value),
			    128, 1e-9);

	static struct peak_context ctx;
	peak_context_init(&ctx);
	peak_machine_to_context(&m, &ctx);
	assert_string_equal(peak_context_get(&ctx, "peak.uarch"), "cascadelake-server");
	assert_string_equal(peak_context_get(&ctx, "peak.ghz_source"), "config");
	assert_string_equal(peak_context_get(&ctx, "peak.disk_mbps"), "unknown");
	assert_string_equal(peak_context_get(&ctx, "peak.net_gbps_source"), "table");
}

static void test_machine_overrides(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_config cfg;
	static struct peak_machine m;
	char err[256];
	peak_sysinfo_collect(&si, FULL);
	peak_config_init(&cfg);
	const char *sets[] = {"cpu.ghz=3",     "cpu.cores=1",    "cpu.fma_units=1", "mem.mts=3200",
			      "disk.mbps=250", "disk.iops=3000", "net.gbps=10"};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		assert_int_equal(peak_config_set(&cfg, sets[i], err, sizeof err), 0);
	peak_machine_init(&m, &si, &cfg, FULL);
	assert_int_equal(m.uarch.source, PEAK_SRC_CONFIG);
	assert_int_equal(m.uarch.fma_units, 1);
	assert_int_equal(m.uarch.fma512_units, 1);
	assert_double_equal(peak_cpu_flops_per_cycle(&m.uarch, PEAK_ISA_AVX512, PEAK_PREC_DP), 16,
			    0);
	assert_double_equal(m.cores.value, 1, 0);
	assert_int_equal(m.mem_mts.source, PEAK_SRC_CONFIG);
	assert_int_equal(m.mem_channels.source, PEAK_SRC_TABLE);
	assert_int_equal(m.mem_gbps.source, PEAK_SRC_CONFIG); /* an input was configured */
	assert_double_equal(m.mem_gbps.value, 2 * 3200 * 8 / 1000.0, 1e-9);
	assert_double_equal(m.disk_mbps.value, 250, 0);
	assert_double_equal(m.disk_iops.value, 3000, 0);
	assert_int_equal(m.net_gbps.source, PEAK_SRC_CONFIG);
	assert_double_equal(m.net_gbps.value, 10, 0);
}

static void test_machine_sparse(void **state)
{
	(void)state;
	static struct peak_sysinfo si;
	static struct peak_config cfg;
	static struct peak_machine m;
	char err[256];
	peak_sysinfo_collect(&si, SPARSE);
	peak_config_init(&cfg);
	assert_int_equal(peak_config_set(&cfg, "cpu.ghz=2.25", err, sizeof err), 0);
	peak_machine_init(&m, &si, &cfg, SPARSE);
	assert_string_equal(m.uarch.name, "zen2");
	assert_int_equal(m.nominal_ghz.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(m.mem_gbps.source, PEAK_SRC_UNKNOWN);
	assert_int_equal(m.net_gbps.source, PEAK_SRC_UNKNOWN); /* ens5 speed is -1 */
	assert_string_equal(m.net_iface, "ens5");
	assert_non_null(strstr(m.net_gbps.note, "no link speed"));
}

/* The run's effective cache sizes: reported without PEAKBENCH_CACHE_EFFECTIVE; with it,
 * a level judged "smaller" takes the measured size and the others keep the reported one;
 * a malformed variable is a warning and the reported sizes stand. */
static void test_cache_effective(void **state)
{
	(void)state;
	struct peak_sysinfo si;
	struct peak_context ctx;
	assert_int_equal(unsetenv(PEAK_CACHE_ENV), 0);
	peak_sysinfo_collect(&si, FULL);
	assert_int_equal(peak_sysinfo_llc_effective_bytes(&si), 36608u * 1024u);
	assert_string_equal(si.cache.source, "reported");
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_string_equal(peak_context_get(&ctx, "cache.l3_effective"), "37486592");
	assert_string_equal(peak_context_get(&ctx, "cache.l3_verdict"), "unmeasured");
	assert_string_equal(peak_context_get(&ctx, "cache.method"), "reported (no latency curve)");

	assert_int_equal(
	    setenv(PEAK_CACHE_ENV, "l1d=16384:agrees,l2=1048576:agrees,l3=14107840:smaller", 1), 0);
	peak_sysinfo_collect(&si, FULL);
	assert_int_equal(peak_sysinfo_cache_effective_bytes(&si, 1), 32768); /* agrees: reported */
	assert_int_equal(peak_sysinfo_cache_effective_bytes(&si, 3), 14107840);
	assert_int_equal(peak_sysinfo_llc_effective_bytes(&si), 14107840);
	assert_int_equal(peak_sysinfo_llc_bytes(&si), 36608u * 1024u); /* the reported, kept */
	peak_context_init(&ctx);
	peak_sysinfo_to_context(&si, &ctx);
	assert_string_equal(peak_context_get(&ctx, "cache.l3_reported"), "37486592");
	assert_string_equal(peak_context_get(&ctx, "cache.l3_effective"), "14107840");
	assert_non_null(strstr(peak_context_get(&ctx, "cache.method"), "l3 smaller"));

	assert_int_equal(setenv(PEAK_CACHE_ENV, "l3=14107840", 1), 0);
	peak_sysinfo_collect(&si, FULL);
	assert_int_equal(peak_sysinfo_llc_effective_bytes(&si), 36608u * 1024u);
	assert_non_null(strstr(si.warnings, PEAK_CACHE_ENV));
	assert_int_equal(unsetenv(PEAK_CACHE_ENV), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_tree),      cmocka_unit_test(test_sparse_tree),
	    cmocka_unit_test(test_missing_tree),   cmocka_unit_test(test_live_system),
	    cmocka_unit_test(test_cpulist),        cmocka_unit_test(test_read_helpers),
	    cmocka_unit_test(test_machine_full),   cmocka_unit_test(test_machine_overrides),
	    cmocka_unit_test(test_machine_sparse), cmocka_unit_test(test_cache_effective),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
