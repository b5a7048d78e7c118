/* The file-based half of peak_sysinfo: /proc and /sys, read under a root so that tests can
 * point it at a fake tree (tests/fixtures). Missing files leave "unknown" and a warning. */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peak_path.h"
#include "peak_sysinfo.h"
#include "peak_uarch_identity.h"
#include "peak_uarch.h"

#define CPU_SYSFS "/sys/devices/system/cpu"

unsigned peak_sysinfo_cpulist_count(const char *list)
{
	unsigned count = 0;
	const char *p = list;
	while (*p) {
		char *end;
		errno = 0;
		unsigned long a = strtoul(p, &end, 10);
		if (end == p || errno)
			return 0;
		unsigned long b = a;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || errno || b < a)
				return 0;
			p = end;
		}
		count += (unsigned)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p == '\n' || *p == ' ')
			break;
		else if (*p)
			return 0;
	}
	return count;
}

void peak_sysinfo_warn(struct peak_sysinfo *si, const char *warning)
{
	size_t used = strlen(si->warnings);
	size_t room = sizeof si->warnings - used;
	if (room <= 1)
		return;
	/* A warning past the room ends in "...": cut, and showing it. */
	(void)peak_fmt(si->warnings + used, room, "%s%s", used ? ";" : "", warning);
}

static void warnf(struct peak_sysinfo *si, const char *what, const char *path)
{
	char msg[PEAK_MSG_MAX];
	(void)peak_fmt(msg, sizeof msg, "%s: %s not readable", what, path);
	peak_sysinfo_warn(si, msg);
}

/* Truncating copy (snprintf would trip -Wformat-truncation on deliberate truncation). */
static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void read_meminfo(struct peak_sysinfo *si, const char *root)
{
	struct peak_meminfo mi;
	if (peak_meminfo_read(root, &mi) != 0) {
		warnf(si, "memory size unknown", "/proc/meminfo");
		return;
	}
	si->mem_total_bytes = mi.total_bytes;
	si->mem_available_bytes = mi.available_bytes;
	si->hugepage_bytes = mi.hugepage_bytes;
	if (!si->mem_total_bytes)
		peak_sysinfo_warn(si, "MemTotal missing from /proc/meminfo");
	if (!si->mem_available_bytes)
		peak_sysinfo_warn(si, "MemAvailable missing from /proc/meminfo");
}

/* Value after "key<TAB>: " on the first matching line of /proc/cpuinfo; "" when absent. */
static void cpuinfo_field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	out[0] = '\0';
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 ||
		    (p[klen] != '\t' && p[klen] != ' ' && p[klen] != ':'))
			continue;
		const char *colon = strchr(p, ':');
		const char *eol = strchr(p, '\n');
		if (!colon || (eol && colon > eol))
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		size_t n = eol ? (size_t)(eol - colon) : strlen(colon);
		if (n >= len)
			n = len - 1;
		memcpy(out, colon, n);
		out[n] = '\0';
		return;
	}
}

static bool has_word(const char *list, const char *word)
{
	size_t wlen = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += wlen) {
		bool start = p == list || p[-1] == ' ';
		bool end = p[wlen] == '\0' || p[wlen] == ' ';
		if (start && end)
			return true;
	}
	return false;
}

static unsigned count_lines_starting(const char *text, const char *prefix)
{
	unsigned n = 0;
	size_t plen = strlen(prefix);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, prefix, plen) == 0 && (p[plen] == '\t' || p[plen] == ' '))
			n++;
	return n;
}

/* aarch64's /proc/cpuinfo: no vendor, model name or flags, but the MIDR fields ("CPU
 * implementer", "CPU part", "CPU variant", "CPU revision") and "Features". The identity is
 * implementer, part and variant/revision (peak_sysinfo.h); the model name is the table's
 * core (peak_uarch_arm.c). For a fake root the Features are the ISA flags; the SVE vector
 * length is prctl's on the live machine only (cpuinfo does not state it). Returns true
 * for an aarch64 CPU (the x86 fields are then not read). */
static bool read_cpuinfo_arm(struct peak_sysinfo *si, const char *root, const char *text)
{
	char v[4096];
	bool live_arm = strcmp(si->arch, "aarch64") == 0;
	cpuinfo_field(text, "CPU implementer", v, sizeof v);
	if (v[0] && !si->family) {
		si->family = (unsigned)strtoul(v, NULL, 0);
		cpuinfo_field(text, "CPU part", v, sizeof v);
		si->model = (unsigned)strtoul(v, NULL, 0);
		cpuinfo_field(text, "CPU variant", v, sizeof v);
		unsigned variant = (unsigned)strtoul(v, NULL, 0);
		cpuinfo_field(text, "CPU revision", v, sizeof v);
		si->stepping = variant << 4 | ((unsigned)strtoul(v, NULL, 0) & 0xf);
	} else if (!v[0] && live_arm) {
		/* No MIDR fields (qemu-user shows the host's cpuinfo): the kernel's sysfs copy
		 * of MIDR_EL1, else the identity stays unknown. */
		if (peak_sysinfo_read(root, CPU_SYSFS "/cpu0/regs/identification/midr_el1", v,
				      sizeof v) != 0) {
			peak_sysinfo_warn(si, "CPU identity unknown: no CPU implementer in "
					      "/proc/cpuinfo, no midr_el1 in sysfs");
			return true;
		}
		unsigned long midr = strtoul(v, NULL, 16);
		si->family = (unsigned)(midr >> 24 & 0xff);
		si->model = (unsigned)(midr >> 4 & 0xfff);
		si->stepping = (unsigned)((midr >> 20 & 0xf) << 4 | (midr & 0xf));
	} else if (!v[0]) {
		return false;
	}
	copy_str(si->arch, sizeof si->arch, "aarch64");
	const char *impl = peak_uarch_arm_implementer(si->family);
	if (!si->vendor[0]) {
		if (impl)
			copy_str(si->vendor, sizeof si->vendor, impl);
		else
			(void)snprintf(si->vendor, sizeof si->vendor, "0x%02x", si->family);
	}
	if (!si->cpu_model[0])
		peak_uarch_arm_core_name(si->family, si->model, si->cpu_model, sizeof si->cpu_model);
	cpuinfo_field(text, "Features", v, sizeof v);
	if (root && root[0]) {
		if (!v[0]) {
			peak_sysinfo_warn(si, "ISA flags unknown: no Features line in /proc/cpuinfo");
			return true;
		}
		si->isa.asimd = has_word(v, "asimd");
		si->isa.sve = has_word(v, "sve");
		si->isa.sve2 = has_word(v, "sve2");
	}
	return true;
}


/* /proc/cpuinfo: the fallback (and, for a fake root, the only source) of the CPU identity,
 * the ISA flags, the CPU count and the hypervisor flag. */
static void read_cpuinfo(struct peak_sysinfo *si, const char *root, bool *hv_flag)
{
	const size_t text_len = 1u << 20;
	char v[4096];
	*hv_flag = false;
	char *text = malloc(text_len);
	if (!text || peak_sysinfo_read(root, "/proc/cpuinfo", text, text_len) != 0) {
		if (!si->cpu_model[0] || !si->vendor[0])
			warnf(si, "CPU identity unknown", "/proc/cpuinfo");
		free(text);
		return;
	}
	if (read_cpuinfo_arm(si, root, text)) {
		if (!si->logical_cpus)
			si->logical_cpus = count_lines_starting(text, "processor");
		free(text);
		return;
	}
	if (!si->vendor[0]) {
		cpuinfo_field(text, "vendor_id", v, sizeof v);
		if (v[0])
			copy_str(si->vendor, sizeof si->vendor, v);
		if (v[0] && !si->arch[0])
			copy_str(si->arch, sizeof si->arch, "x86_64");
	}
	if (!si->cpu_model[0]) {
		cpuinfo_field(text, "model name", v, sizeof v);
		if (v[0])
			copy_str(si->cpu_model, sizeof si->cpu_model, v);
	}
	if (!si->family) {
		cpuinfo_field(text, "cpu family", v, sizeof v);
		si->family = (unsigned)strtoul(v, NULL, 10);
		cpuinfo_field(text, "model", v, sizeof v);
		si->model = (unsigned)strtoul(v, NULL, 10);
		cpuinfo_field(text, "stepping", v, sizeof v);
		si->stepping = (unsigned)strtoul(v, NULL, 10);
	}
	cpuinfo_field(text, "flags", v, sizeof v);
	if (v[0]) {
		*hv_flag = has_word(v, "hypervisor");
		if (root && root[0]) {
			/* The kernel lists avx/avx512 only when it enabled their XSAVE state, so
			 * the flags already mean "CPU and OS". */
			struct peak_isa_flags *f = &si->isa;
			f->sse2 = has_word(v, "sse2");
			f->sse4_1 = has_word(v, "sse4_1");
			f->sse4_2 = has_word(v, "sse4_2");
			f->avx = has_word(v, "avx");
			f->avx2 = has_word(v, "avx2");
			f->fma = has_word(v, "fma");
			f->avx512f = has_word(v, "avx512f");
			f->avx512dq = has_word(v, "avx512dq");
			f->avx512bw = has_word(v, "avx512bw");
			f->avx512vl = has_word(v, "avx512vl");
			f->avx512_fp16 = has_word(v, "avx512_fp16");
		}
		if (!si->features)
			si->features = peak_core_features_parse(v);
	} else if (root && root[0] && strcmp(si->arch, "aarch64") != 0) {
		peak_sysinfo_warn(si, "ISA flags unknown: no flags line in /proc/cpuinfo");
	}
	if (!si->logical_cpus)
		si->logical_cpus = count_lines_starting(text, "processor");
	if (!si->cores) {
		/* "cpu cores" is per package; "physical id" numbers the packages. */
		cpuinfo_field(text, "cpu cores", v, sizeof v);
		unsigned per_pkg = (unsigned)strtoul(v, NULL, 10);
		unsigned pkgs = si->sockets;
		if (!pkgs) {
			unsigned maxid = 0;
			bool any = false;
			for (const char *p = strstr(text, "physical id"); p;
			     p = strstr(p + 1, "physical id")) {
				const char *c = strchr(p, ':');
				if (!c)
					break;
				unsigned id = (unsigned)strtoul(c + 1, NULL, 10);
				maxid = id > maxid ? id : maxid;
				any = true;
			}
			pkgs = any ? maxid + 1 : 0;
		}
		if (per_pkg && pkgs) {
			si->cores = per_pkg * pkgs;
			if (!si->sockets)
				si->sockets = pkgs;
		}
	}
	free(text);
}

/* Physical cores and packages from /sys/devices/system/cpu/cpuN/topology. */
static void read_topology(struct peak_sysinfo *si, const char *root)
{
	enum { MAXCPU = 1024 };
	long pkg_of[MAXCPU], core_of[MAXCPU];
	unsigned seen = 0, cores = 0, pkgs = 0;
	for (unsigned cpu = 0; cpu < MAXCPU && seen < si->logical_cpus; cpu++) {
		char path[128], buf[64];
		(void)snprintf(path, sizeof path, CPU_SYSFS "/cpu%u/topology/physical_package_id",
			       cpu);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) != 0)
			continue;
		long pkg = strtol(buf, NULL, 10);
		(void)snprintf(path, sizeof path, CPU_SYSFS "/cpu%u/topology/core_id", cpu);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) != 0)
			continue;
		long core = strtol(buf, NULL, 10);
		bool new_core = true, new_pkg = true;
		for (unsigned i = 0; i < seen; i++) {
			if (pkg_of[i] == pkg) {
				new_pkg = false;
				if (core_of[i] == core)
					new_core = false;
			}
		}
		pkg_of[seen] = pkg;
		core_of[seen] = core;
		seen++;
		cores += new_core;
		pkgs += new_pkg;
	}
	if (!seen)
		return;
	if (!si->cores)
		si->cores = cores;
	if (!si->sockets)
		si->sockets = pkgs;
}

static uint64_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end == 'K')
		v *= 1024u;
	else if (*end == 'M')
		v *= 1024u * 1024u;
	else if (*end == 'G')
		v *= 1024ull * 1024u * 1024u;
	return (uint64_t)v;
}

/* Caches of cpu0 from /sys/devices/system/cpu/cpu0/cache/indexN. */
static void read_caches(struct peak_sysinfo *si, const char *root)
{
	for (unsigned idx = 0; idx < 16 && si->ncaches < PEAK_MAX_CACHES; idx++) {
		char base[96], path[160], buf[256];
		(void)snprintf(base, sizeof base, CPU_SYSFS "/cpu0/cache/index%u", idx);
		(void)snprintf(path, sizeof path, "%s/level", base);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) != 0)
			break;
		struct peak_cache c = {.level = (unsigned)strtoul(buf, NULL, 10), .type = 'u'};
		(void)snprintf(path, sizeof path, "%s/type", base);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0)
			c.type = buf[0] == 'D' ? 'd' : buf[0] == 'I' ? 'i' : 'u';
		(void)snprintf(path, sizeof path, "%s/size", base);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0)
			c.size_bytes = parse_cache_size(buf);
		(void)snprintf(path, sizeof path, "%s/coherency_line_size", base);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0)
			c.line_bytes = (unsigned)strtoul(buf, NULL, 10);
		(void)snprintf(path, sizeof path, "%s/shared_cpu_list", base);
		if (peak_sysinfo_read(root, path, buf, sizeof buf) == 0)
			c.shared_by = peak_sysinfo_cpulist_count(buf);
		if (c.level && c.size_bytes)
			si->caches[si->ncaches++] = c;
	}
}

static unsigned count_numa_nodes(const char *root)
{
	char path[PEAK_PATH_MAX];
	if (!peak_sysinfo_path(path, sizeof path, root, "/sys/devices/system/node"))
		return 0;
	DIR *d = opendir(path);
	if (!d)
		return 0;
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' &&
		    e->d_name[4] <= '9')
			n++;
	(void)closedir(d);
	return n;
}

/* One line of sysfs into a short string field, "unknown" plus a warning when missing. */
static void read_setting(struct peak_sysinfo *si, const char *root, const char *path, char *out,
			 size_t len, const char *what)
{
	char buf[256];
	if (peak_sysinfo_read(root, path, buf, sizeof buf) != 0 || !buf[0]) {
		copy_str(out, len, "unknown");
		warnf(si, what, path);
		return;
	}
	/* THP style "always [madvise] never": keep the selected word. */
	char *open = strchr(buf, '['), *close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		copy_str(out, len, open + 1);
	} else {
		copy_str(out, len, buf);
	}
}

static void read_kernel(struct peak_sysinfo *si, const char *root)
{
	char type[128], rel[128];
	if (peak_sysinfo_read(root, "/proc/sys/kernel/osrelease", rel, sizeof rel) != 0) {
		copy_str(si->kernel, sizeof si->kernel, "unknown");
		warnf(si, "kernel unknown", "/proc/sys/kernel/osrelease");
		return;
	}
	if (peak_sysinfo_read(root, "/proc/sys/kernel/ostype", type, sizeof type) != 0)
		copy_str(type, sizeof type, "Linux");
	copy_str(si->kernel, sizeof si->kernel, type);
	size_t used = strlen(si->kernel);
	if (used + 1 < sizeof si->kernel) {
		si->kernel[used] = ' ';
		copy_str(si->kernel + used + 1, sizeof si->kernel - used - 1, rel);
	}
}

static void read_allowed(struct peak_sysinfo *si, const char *root)
{
	char text[4096];
	if (peak_sysinfo_read(root, "/proc/self/status", text, sizeof text) != 0)
		return;
	const char *p = strstr(text, "Cpus_allowed_list:");
	if (!p)
		return;
	p += strlen("Cpus_allowed_list:");
	while (*p == ' ' || *p == '\t')
		p++;
	char list[1024];
	size_t n = strcspn(p, "\n");
	if (n >= sizeof list)
		n = sizeof list - 1;
	memcpy(list, p, n);
	list[n] = '\0';
	si->allowed_cpus = peak_sysinfo_cpulist_count(list);
}

void peak_sysinfo_collect_files(struct peak_sysinfo *si, const char *root)
{
	char buf[1024];
	bool hv_flag = false;

	if (!si->logical_cpus && peak_sysinfo_read(root, CPU_SYSFS "/online", buf, sizeof buf) == 0)
		si->logical_cpus = peak_sysinfo_cpulist_count(buf);
	read_cpuinfo(si, root, &hv_flag);
	if (!si->logical_cpus)
		warnf(si, "CPU count unknown", CPU_SYSFS "/online");
	if (!si->allowed_cpus)
		read_allowed(si, root);
	if (!si->allowed_cpus)
		si->allowed_cpus = si->logical_cpus;
	if (!si->cores || !si->sockets)
		read_topology(si, root);
	if (!si->cores && si->logical_cpus) {
		si->cores = si->logical_cpus;
		peak_sysinfo_warn(si, "physical cores unknown: counting logical CPUs");
	}
	if (!si->sockets) {
		si->sockets = 1;
		peak_sysinfo_warn(si, "sockets unknown: assuming 1");
	}
	if (!si->ncaches)
		read_caches(si, root);
	if (!si->ncaches)
		peak_sysinfo_warn(si, "caches unknown");
	if (!si->numa_nodes)
		si->numa_nodes = count_numa_nodes(root);
	if (!si->numa_nodes) {
		si->numa_nodes = 1;
		peak_sysinfo_warn(si, "NUMA nodes unknown: assuming 1");
	}

	read_meminfo(si, root);
	read_kernel(si, root);
	read_setting(si, root, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
		     si->clocksource, sizeof si->clocksource, "clocksource unknown");
	read_setting(si, root, CPU_SYSFS "/cpu0/cpufreq/scaling_governor", si->governor,
		     sizeof si->governor, "governor unknown (no cpufreq: VM or no driver)");
	read_setting(si, root, "/sys/kernel/mm/transparent_hugepage/enabled", si->thp,
		     sizeof si->thp, "THP setting unknown");

	if (!si->hypervisor[0]) {
		if (peak_sysinfo_read(root, "/sys/hypervisor/type", buf, sizeof buf) == 0 && buf[0])
			copy_str(si->hypervisor, sizeof si->hypervisor, buf);
		else if (hv_flag)
			copy_str(si->hypervisor, sizeof si->hypervisor, "unidentified");
		else if (si->family)
			copy_str(si->hypervisor, sizeof si->hypervisor, "none");
	}

	if (peak_sysinfo_ticks(root, &si->steal_ticks, &si->total_ticks) != 0)
		warnf(si, "steal time unknown", "/proc/stat");
}
