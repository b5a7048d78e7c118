/* The kernel's counters that libpeak reads again and again: /proc/meminfo (memory and huge
 * pages: peak_meminfo_read) and /proc/stat's first line (steal and total ticks:
 * peak_sysinfo_ticks), under an injectable root as the rest of peak_sysinfo's files. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peak_sysinfo.h"

/* Value of "Key:   123" in meminfo-style text: 1 with *v set, 0 when absent. */
static int meminfo_value(const char *text, const char *key, uint64_t *v)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			*v = (uint64_t)strtoull(p + klen + 1, NULL, 10);
			return 1;
		}
	}
	return 0;
}

int peak_meminfo_read(const char *root, struct peak_meminfo *mi)
{
	static const struct {
		const char *key;
		size_t off;
		uint64_t unit; /* "kB" fields are bytes / 1024; HugePages_* count pages */
		unsigned bit;
	} fields[] = {
	    {"MemTotal", offsetof(struct peak_meminfo, total_bytes), 1024, PEAK_MEMINFO_TOTAL},
	    {"MemAvailable", offsetof(struct peak_meminfo, available_bytes), 1024,
	     PEAK_MEMINFO_AVAILABLE},
	    {"Hugepagesize", offsetof(struct peak_meminfo, hugepage_bytes), 1024,
	     PEAK_MEMINFO_HUGEPAGESIZE},
	    {"HugePages_Total", offsetof(struct peak_meminfo, hugepages_total), 1,
	     PEAK_MEMINFO_HP_TOTAL},
	    {"HugePages_Free", offsetof(struct peak_meminfo, hugepages_free), 1,
	     PEAK_MEMINFO_HP_FREE},
	    {"HugePages_Rsvd", offsetof(struct peak_meminfo, hugepages_rsvd), 1,
	     PEAK_MEMINFO_HP_RSVD},
	};
	char text[8192];
	memset(mi, 0, sizeof *mi);
	if (peak_sysinfo_read(root, "/proc/meminfo", text, sizeof text) != 0)
		return -1;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		uint64_t v;
		if (meminfo_value(text, fields[i].key, &v)) {
			*(uint64_t *)(void *)((char *)mi + fields[i].off) = v * fields[i].unit;
			mi->found |= fields[i].bit;
		}
	}
	return 0;
}

int peak_sysinfo_ticks(const char *root, uint64_t *steal, uint64_t *total)
{
	uint64_t idle;
	return peak_sysinfo_ticks_idle(root, steal, total, &idle);
}

int peak_sysinfo_ticks_idle(const char *root, uint64_t *steal, uint64_t *total, uint64_t *idle)
{
	char text[512];
	if (peak_sysinfo_read(root, "/proc/stat", text, sizeof text) != 0)
		return -1;
	if (strncmp(text, "cpu ", 4) != 0)
		return -1;
	/* user nice system idle iowait irq softirq steal [guest guest_nice]; guest time is
	 * already counted in user, so the total stops at steal. */
	unsigned long long v[8] = {0};
	char *p = text + 4;
	int n;
	for (n = 0; n < 8; n++) {
		char *end;
		v[n] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	if (n < 4)
		return -1;
	uint64_t sum = 0;
	for (int i = 0; i < n; i++)
		sum += v[i];
	*steal = n >= 8 ? v[7] : 0;
	*total = sum;
	*idle = v[3] + (n >= 5 ? v[4] : 0);
	return 0;
}
