/* The machine and run context: the CPU's own identification (peak_sysinfo_x86.c: cpuid;
 * peak_sysinfo_arm64.c: HWCAP, prctl), hwloc topology and caches, libnuma nodes, then the
 * /proc and /sys files (peak_sysinfo_proc.c); the context block. */
#define _GNU_SOURCE
#include <hwloc.h>
#include <numa.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peak_sysinfo.h"
#include "peak_time.h"

#ifndef PEAK_BUILD_CFLAGS
#define PEAK_BUILD_CFLAGS "unknown"
#endif
#ifndef PEAK_BUILD_TYPE
#define PEAK_BUILD_TYPE "unknown"
#endif
#ifndef PEAK_GIT_REV
#define PEAK_GIT_REV "unknown"
#endif

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void collect_hwloc(struct peak_sysinfo *si)
{
	hwloc_topology_t topo;
	if (hwloc_topology_init(&topo) != 0) {
		peak_sysinfo_warn(si, "hwloc unavailable: topology from sysfs");
		return;
	}
	/* hwloc 2 drops instruction caches unless asked. */
	(void)hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_load(topo) != 0) {
		hwloc_topology_destroy(topo);
		peak_sysinfo_warn(si, "hwloc could not load the topology: using sysfs");
		return;
	}
	int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	int pkgs = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	if (cores > 0)
		si->cores = (unsigned)cores;
	if (pkgs > 0)
		si->sockets = (unsigned)pkgs;
	static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE,
						 HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
						 HWLOC_OBJ_L4CACHE};
	for (size_t i = 0; i < sizeof types / sizeof types[0] && si->ncaches < PEAK_MAX_CACHES;
	     i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, types[i], 0);
		if (!o || !o->attr)
			continue;
		struct peak_cache c = {
		    .level = o->attr->cache.depth,
		    .type = o->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? 'd'
			    : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? 'i'
										 : 'u',
		    .size_bytes = o->attr->cache.size,
		    .line_bytes = o->attr->cache.linesize,
		};
		int w = o->cpuset ? hwloc_bitmap_weight(o->cpuset) : 0;
		c.shared_by = w > 0 ? (unsigned)w : 0;
		if (c.size_bytes)
			si->caches[si->ncaches++] = c;
	}
	hwloc_topology_destroy(topo);
}

static void collect_numa_affinity(struct peak_sysinfo *si)
{
	if (numa_available() >= 0) {
		int nodes = numa_num_configured_nodes();
		if (nodes > 0)
			si->numa_nodes = (unsigned)nodes;
	} else {
		peak_sysinfo_warn(si, "libnuma: NUMA not available");
	}
	const size_t max_cpus = 8192;
	cpu_set_t *set = CPU_ALLOC(max_cpus);
	if (!set)
		return;
	size_t size = CPU_ALLOC_SIZE(max_cpus);
	CPU_ZERO_S(size, set);
	if (sched_getaffinity(0, size, set) == 0)
		si->allowed_cpus = (unsigned)CPU_COUNT_S(size, set);
	else
		peak_sysinfo_warn(si, "sched_getaffinity failed");
	CPU_FREE(set);
}

/* "... @ 2.50GHz" or "... 2500MHz" at the end of a brand string; 0 when absent. */
static double brand_ghz(const char *brand)
{
	const char *at = strrchr(brand, '@');
	const char *p = at ? at + 1 : brand;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			continue;
		char *end;
		double v = strtod(p, &end);
		while (*end == ' ')
			end++;
		if (strncmp(end, "GHz", 3) == 0 && v > 0.1 && v < 20)
			return v;
		if (strncmp(end, "MHz", 3) == 0 && v > 100 && v < 20000)
			return v / 1000.0;
		p = end - 1;
	}
	return 0;
}

void peak_sysinfo_collect(struct peak_sysinfo *si, const char *root)
{
	bool real = !root || !root[0], cpu = false;
	memset(si, 0, sizeof *si);
	/* --root passed peak_path_check, so it fits. A longer one the kernel could not open
	 * either: it reads nothing (every file unknown), never a cut path's tree. */
	if (!real && !peak_fmt(si->root, sizeof si->root, "%s", root))
		(void)peak_fmt(si->root, sizeof si->root, "%s", "/nonexistent: --root too long");
	if (!real)
		root = si->root;
	if (real) {
		cpu = peak_sysinfo_collect_cpu(si);
		collect_hwloc(si);
		collect_numa_affinity(si);
	}
	peak_sysinfo_collect_files(si, real ? "" : root);

	peak_cloud_from_dmi(&si->cloud, real ? "" : root);

	si->nominal_ghz = brand_ghz(si->cpu_model);
	if (si->nominal_ghz == 0 && real && cpu)
		si->nominal_ghz = peak_sysinfo_cpu_nominal_ghz();
	if (si->nominal_ghz == 0)
		peak_sysinfo_warn(si, strcmp(si->arch, "aarch64") == 0
					  ? "nominal frequency unknown (aarch64 states none)"
					  : "nominal frequency unknown (no brand string GHz, no cpuid 0x16)");

	char *fields[] = {si->cpu_model,   si->vendor,   si->kernel, si->hypervisor,
			  si->clocksource, si->governor, si->thp};
	size_t lens[] = {sizeof si->cpu_model,  sizeof si->vendor,      sizeof si->kernel,
			 sizeof si->hypervisor, sizeof si->clocksource, sizeof si->governor,
			 sizeof si->thp};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (!fields[i][0])
			copy_str(fields[i], lens[i], "unknown");
	if (!strcmp(si->hypervisor, "unknown"))
		peak_sysinfo_warn(si, "hypervisor unknown");
	if (!si->allowed_cpus)
		si->allowed_cpus = si->logical_cpus;
	uint64_t reported[PEAK_CACHE_LEVELS];
	char why[PEAK_CONTEXT_VALUE_LEN];
	for (unsigned k = 0; k < PEAK_CACHE_LEVELS; k++)
		reported[k] = peak_sysinfo_cache_bytes(si, k + 1);
	if (peak_cache_sizes_init(&si->cache, reported, why, sizeof why) != 0)
		peak_sysinfo_warn(si, why);
}

uint64_t peak_sysinfo_cache_bytes(const struct peak_sysinfo *si, unsigned level)
{
	uint64_t best = 0;
	for (unsigned i = 0; i < si->ncaches; i++) {
		const struct peak_cache *c = &si->caches[i];
		if (c->level == level && c->type != 'i' && c->size_bytes > best)
			best = c->size_bytes;
	}
	return best;
}

uint64_t peak_sysinfo_llc_bytes(const struct peak_sysinfo *si)
{
	for (unsigned level = 4; level >= 1; level--) {
		uint64_t b = peak_sysinfo_cache_bytes(si, level);
		if (b)
			return b;
	}
	return 0;
}

static void isa_list(const struct peak_isa_flags *f, char *out, size_t len)
{
	const struct {
		bool on;
		const char *name;
	} flags[] = {
	    {f->sse2, "sse2"},         {f->sse4_2, "sse4_2"},
	    {f->avx, "avx"},           {f->avx2, "avx2"},
	    {f->fma, "fma"},           {f->avx512f, "avx512f"},
	    {f->avx512dq, "avx512dq"}, {f->avx512bw, "avx512bw"},
	    {f->avx512vl, "avx512vl"}, {f->avx512_fp16, "avx512_fp16"},
	    {f->asimd, "asimd"},       {f->sve, "sve"},
	    {f->sve2, "sve2"},
	};
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		if (!flags[i].on)
			continue;
		int w = snprintf(out + used, len - used, "%s%s", used ? " " : "", flags[i].name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
	if (!out[0])
		copy_str(out, len, "unknown");
}

static void set_count(struct peak_context *ctx, const char *key, double v)
{
	if (v > 0)
		peak_context_set_num(ctx, key, v);
	else
		peak_context_set_str(ctx, key, "unknown");
}

static void caches_to_context(const struct peak_sysinfo *si, struct peak_context *ctx)
{
	const struct {
		const char *key;
		unsigned level;
		char type;
	} want[] = {{"cache.l1d", 1, 'd'},
		    {"cache.l1i", 1, 'i'},
		    {"cache.l2", 2, 'u'},
		    {"cache.l3", 3, 'u'}};
	for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
		const struct peak_cache *found = NULL;
		for (unsigned i = 0; i < si->ncaches && !found; i++) {
			const struct peak_cache *c = &si->caches[i];
			bool data_ok = want[w].type == 'i' ? c->type == 'i' : c->type != 'i';
			if (c->level == want[w].level && data_ok)
				found = c;
		}
		char key[PEAK_CONTEXT_KEY_LEN];
		set_count(ctx, want[w].key, found ? (double)found->size_bytes : 0);
		if (found && found->shared_by) {
			(void)snprintf(key, sizeof key, "%s_shared_by", want[w].key);
			peak_context_set_num(ctx, key, found->shared_by);
		}
	}
	set_count(ctx, "cache.line_bytes", si->ncaches ? si->caches[0].line_bytes : 0);
	peak_cache_to_context(&si->cache, ctx);
}

static void build_to_context(struct peak_context *ctx)
{
#ifdef __clang__
	peak_context_set_str(ctx, "build.compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
	peak_context_set_str(ctx, "build.compiler", "gcc " __VERSION__);
#else
	peak_context_set_str(ctx, "build.compiler", "unknown");
#endif
	peak_context_set_str(ctx, "build.cflags", PEAK_BUILD_CFLAGS);
	peak_context_set_str(ctx, "build.type", PEAK_BUILD_TYPE);
	peak_context_set_str(ctx, "git.revision", PEAK_GIT_REV);
}

uint64_t peak_sysinfo_cache_effective_bytes(const struct peak_sysinfo *si, unsigned level)
{
	return level >= 1 && level <= PEAK_CACHE_LEVELS ? si->cache.effective[level - 1] : 0;
}

uint64_t peak_sysinfo_llc_effective_bytes(const struct peak_sysinfo *si)
{
	for (unsigned level = PEAK_CACHE_LEVELS; level >= 1; level--) {
		uint64_t b = peak_sysinfo_cache_effective_bytes(si, level);
		if (b)
			return b;
	}
	return peak_sysinfo_llc_bytes(si); /* a level 4 only */
}

void peak_sysinfo_to_context(const struct peak_sysinfo *si, struct peak_context *ctx)
{
	char buf[PEAK_CONTEXT_VALUE_LEN];
	peak_context_set_str(ctx, "cpu.vendor", si->vendor);
	peak_context_set_str(ctx, "cpu.model", si->cpu_model);
	set_count(ctx, "cpu.family", si->family);
	set_count(ctx, "cpu.model_number", si->model);
	if (si->family)
		peak_context_set_num(ctx, "cpu.stepping", si->stepping);
	else
		peak_context_set_str(ctx, "cpu.stepping", "unknown");
	isa_list(&si->isa, buf, sizeof buf);
	peak_context_set_str(ctx, "cpu.isa", buf);
	if (strcmp(si->arch, "aarch64") == 0) {
		/* The MIDR pair in the hex the Arm manuals and /proc/cpuinfo use, and the SVE
		 * vector length this process runs with (prctl; 0 none or unknown). */
		peak_context_set_str(ctx, "cpu.arch", si->arch);
		(void)snprintf(buf, sizeof buf, "0x%02x", si->family);
		peak_context_set_str(ctx, "cpu.implementer", buf);
		(void)snprintf(buf, sizeof buf, "0x%03x", si->model);
		peak_context_set_str(ctx, "cpu.part", buf);
		set_count(ctx, "cpu.sve_vl_bits", si->isa.sve_vl_bits);
	}
	set_count(ctx, "cpu.logical", si->logical_cpus);
	set_count(ctx, "cpu.allowed", si->allowed_cpus);
	set_count(ctx, "cpu.cores", si->cores);
	set_count(ctx, "cpu.sockets", si->sockets);
	set_count(ctx, "cpu.ghz.nominal", si->nominal_ghz);
	set_count(ctx, "numa.nodes", si->numa_nodes);
	caches_to_context(si, ctx);
	set_count(ctx, "mem.total_bytes", (double)si->mem_total_bytes);
	set_count(ctx, "mem.available_bytes", (double)si->mem_available_bytes);
	set_count(ctx, "mem.hugepage_bytes", (double)si->hugepage_bytes);
	peak_context_set_str(ctx, "os.kernel", si->kernel);
	peak_context_set_str(ctx, "hypervisor", si->hypervisor);
	peak_context_set_str(ctx, "clocksource", si->clocksource);
	peak_context_set_str(ctx, "governor", si->governor);
	peak_context_set_str(ctx, "thp", si->thp);
	peak_cloud_to_context(&si->cloud, ctx);
	build_to_context(ctx);

	struct tm tm;
	time_t now = time(NULL);
	if (gmtime_r(&now, &tm) && strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0)
		peak_context_set_str(ctx, "timestamp", buf);
	else
		peak_context_set_str(ctx, "timestamp", "unknown");
	peak_context_set_str(ctx, "clock.source", "CLOCK_MONOTONIC_RAW");
	peak_context_set_num(ctx, "clock.resolution_ns", (double)peak_time_resolution_ns());
	peak_context_set_num(ctx, "clock.overhead_ns", peak_time_overhead_ns());

	/* One context warning per sysinfo warning. */
	char warnings[sizeof si->warnings];
	copy_str(warnings, sizeof warnings, si->warnings);
	char *save = NULL;
	for (char *w = strtok_r(warnings, ";", &save); w; w = strtok_r(NULL, ";", &save))
		peak_context_warn(ctx, w);
}

double peak_sysinfo_finish(const struct peak_sysinfo *si, struct peak_context *ctx)
{
	uint64_t steal, total;
	const char *root = si->root;
	if (si->total_ticks == 0 || peak_sysinfo_ticks(root, &steal, &total) != 0 ||
	    total <= si->total_ticks || steal < si->steal_ticks) {
		peak_context_set_str(ctx, "steal.percent", "unknown");
		return 0;
	}
	double pct = 100.0 * (double)(steal - si->steal_ticks) / (double)(total - si->total_ticks);
	peak_context_set_num(ctx, "steal.percent", pct);
	if (pct > 1.0) {
		char msg[96];
		(void)snprintf(msg, sizeof msg, "steal %.1f%% over the run", pct);
		peak_context_warn(ctx, msg);
	}
	return pct;
}
