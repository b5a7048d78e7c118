/* Buffers for the thread team: NUMA-local, first-touched memory, on small pages or, when
 * asked, on huge pages (hugetlb from the pool, else transparent huge pages). */
#define _GNU_SOURCE
#include "peak_sysinfo.h"
#include "peak_team.h"

#include <errno.h>
#include <inttypes.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1 */
#endif

#define THP_BYTES        (2ull << 20)
#define THP_ENABLED_PATH "/sys/kernel/mm/transparent_hugepage/enabled"

static size_t small_page_bytes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	return page > 0 ? (size_t)page : 4096;
}

static size_t round_up(size_t bytes, size_t unit)
{
	return (bytes + unit - 1) / unit * unit;
}

/* First touch by the caller: the pages are placed on the caller's node now, not later
 * inside a timed region. */
static void touch(void *p, size_t bytes)
{
	size_t step = small_page_bytes();
	for (size_t off = 0; off < bytes; off += step)
		((volatile char *)p)[off] = 0;
}

/* First touch page by page in the order k * stride mod n, with stride near 0.618 n,
 * coprime with n and neither 1 nor n - 1. Pages the kernel hands out in a run (ascending
 * or descending frame numbers) then land stride^-1 frames apart from their virtual
 * neighbour, never one apart, so no two of them merge into one DMA segment. */
static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static size_t scatter_stride(size_t n)
{
	for (size_t i = 0; n >= 5 && i < n - 3; i++) {
		size_t s = 2 + (n * 618 / 1000 - 2 + i) % (n - 3); /* 2 .. n-2, from 0.618 n on */
		if (gcd(s, n) == 1)
			return s;
	}
	return 1; /* 3, 4 or 6 pages have no such stride: in order */
}

static void touch_scattered(void *p, size_t bytes)
{
	size_t step = small_page_bytes(), n = (bytes + step - 1) / step;
	size_t stride = scatter_stride(n);
	for (size_t k = 0; k < n; k++)
		((volatile char *)p)[k * stride % n * step] = 0;
}

/* Small pages on the caller's node (libnuma when available), not yet touched. */
static void *map_small(size_t bytes, bool *numa)
{
	void *p;
	*numa = numa_available() >= 0;
	if (*numa)
		return numa_alloc_local(bytes);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *peak_team_alloc_local(size_t bytes)
{
	bool numa;
	if (bytes == 0)
		return NULL;
	void *p = map_small(bytes, &numa);
	if (p)
		touch(p, bytes);
	return p;
}

void peak_team_free_local(void *ptr, size_t bytes)
{
	if (!ptr)
		return;
	if (numa_available() >= 0)
		numa_free(ptr, bytes);
	else
		(void)munmap(ptr, bytes);
}

const char *peak_pages_name(enum peak_pages pages)
{
	switch (pages) {
	case PEAK_PAGES_HUGETLB:
		return "hugetlb";
	case PEAK_PAGES_THP:
		return "thp";
	case PEAK_PAGES_THP_REQUESTED:
		return "thp-requested";
	case PEAK_PAGES_SCATTERED:
		return "scattered";
	case PEAK_PAGES_SHARED:
		return "shared";
	case PEAK_PAGES_SMALL:
		break;
	}
	return "small";
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	if (!buf || len == 0)
		return;
	size_t used = strnlen(buf, len);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

int peak_team_hugetlb_pool(struct peak_hugetlb_pool *pool)
{
	const unsigned want = PEAK_MEMINFO_HP_TOTAL | PEAK_MEMINFO_HP_FREE | PEAK_MEMINFO_HP_RSVD |
			      PEAK_MEMINFO_HUGEPAGESIZE;
	struct peak_meminfo mi;
	memset(pool, 0, sizeof(*pool));
	if (peak_meminfo_read("", &mi) != 0 || (mi.found & want) != want || !mi.hugepage_bytes)
		return -1;
	pool->total = mi.hugepages_total;
	pool->free = mi.hugepages_free;
	pool->reserved = mi.hugepages_rsvd;
	pool->page_bytes = mi.hugepage_bytes;
	pool->available = pool->free > pool->reserved ? pool->free - pool->reserved : 0;
	return 0;
}

/* Hugetlb pages of the default size, or NULL with the reason appended to why. */
static void *map_hugetlb(size_t bytes, size_t *map_bytes, char *why, size_t why_len)
{
	struct peak_hugetlb_pool pool;
	if (peak_team_hugetlb_pool(&pool) != 0) {
		appendf(why, why_len, "hugetlb: no HugePages lines in /proc/meminfo");
		return NULL;
	}
	*map_bytes = round_up(bytes, (size_t)pool.page_bytes);
	/* MAP_PRIVATE reserves the pages at mmap time: a pool without room fails here with
	 * ENOMEM rather than with SIGBUS at first touch. */
	void *p = mmap(NULL, *map_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p != MAP_FAILED)
		return p;
	appendf(why, why_len,
		"hugetlb: %s (%" PRIu64 " of %" PRIu64 " %" PRIu64
		"-KiB pages available, %zu needed)",
		strerror(errno), pool.available, pool.total, pool.page_bytes >> 10,
		*map_bytes / (size_t)pool.page_bytes);
	return NULL;
}

/* Whether THP can be had at all: "never" in sysfs, or a kernel without THP, cannot. */
static bool thp_possible(char *why, size_t why_len)
{
	char line[128] = "";
	FILE *f = fopen(THP_ENABLED_PATH, "re");
	if (!f) {
		appendf(why, why_len, "THP: %s: %s", THP_ENABLED_PATH, strerror(errno));
		return false;
	}
	bool ok = fgets(line, sizeof(line), f) != NULL && !strstr(line, "[never]");
	(void)fclose(f);
	if (!ok)
		appendf(why, why_len, "THP: %s is never", THP_ENABLED_PATH);
	return ok;
}

bool peak_team_thp_available(void)
{
	return thp_possible(NULL, 0);
}

/* Over the mappings overlapping [ptr, ptr+bytes): 1 when all are backed by anonymous huge
 * pages, 0 when not, -1 when smaps cannot tell; *huge_bytes (may be NULL) gets the sum of
 * their AnonHugePages. */
static int smaps_huge(const void *ptr, size_t bytes, uint64_t *huge_bytes)
{
	char line[1024];
	unsigned long long total_huge_kb = 0;
	uintptr_t lo = (uintptr_t)ptr, hi = lo + bytes;
	unsigned long long start, end, kb;
	unsigned long long size_kb = 0, huge_kb = 0;
	bool in = false, seen = false, all = true;

	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -1;
	/* Per mapping: a header "start-end perms ..." then "Key: value kB" lines. Our range may
	 * share a mapping with a neighbour the kernel merged it with: then all of that mapping
	 * must be huge for ours to be. */
	while (fgets(line, sizeof(line), f)) {
		if (!strchr(line, '\n')) { /* a long path: the rest of the line is no header */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		if (sscanf(line, "%llx-%llx ", &start, &end) == 2) {
			if (in)
				all = all && size_kb == huge_kb;
			in = start < hi && end > lo;
			seen = seen || in;
			size_kb = huge_kb = 0;
		} else if (in && sscanf(line, "Size: %llu kB", &kb) == 1) {
			size_kb = kb;
		} else if (in && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1) {
			huge_kb = kb;
			total_huge_kb += kb;
		}
	}
	(void)fclose(f);
	if (in)
		all = all && size_kb == huge_kb;
	if (huge_bytes)
		*huge_bytes = total_huge_kb << 10;
	return seen ? all : -1;
}

int peak_team_thp_backed(const void *ptr, size_t bytes)
{
	return smaps_huge(ptr, bytes, NULL);
}

uint64_t peak_team_huge_bytes(const struct peak_mem *m)
{
	uint64_t huge = 0;
	if (!m->ptr)
		return 0;
	if (m->pages == PEAK_PAGES_HUGETLB)
		return m->map_bytes;
	return smaps_huge(m->ptr, m->map_bytes, &huge) < 0 ? 0 : huge;
}

/* A 2 MiB-aligned mapping advised for THP, touched; NULL with the reason in why. */
static void *map_thp(size_t bytes, size_t *map_bytes, enum peak_pages *pages, char *why,
		     size_t why_len)
{
	if (!thp_possible(why, why_len))
		return NULL;
	*map_bytes = round_up(bytes, THP_BYTES);
	size_t span = *map_bytes + THP_BYTES;
	uint8_t *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		appendf(why, why_len, "THP: mmap: %s", strerror(errno));
		return NULL;
	}
	uint8_t *p = (uint8_t *)round_up((size_t)(uintptr_t)raw, THP_BYTES);
	size_t head = (size_t)(p - raw), tail = span - head - *map_bytes;
	if (head)
		(void)munmap(raw, head);
	if (tail)
		(void)munmap(p + *map_bytes, tail);
	if (madvise(p, *map_bytes, MADV_HUGEPAGE) != 0) {
		appendf(why, why_len, "THP: madvise(MADV_HUGEPAGE): %s", strerror(errno));
		(void)munmap(p, *map_bytes);
		return NULL;
	}
	touch(p, *map_bytes);
	/* Faults get huge pages when the kernel has free 2 MiB blocks; when some did not,
	 * ask it to collapse them now (Linux 6.1+; best effort), then look again. */
	int backed = peak_team_thp_backed(p, *map_bytes);
	if (backed == 0 && madvise(p, *map_bytes, MADV_COLLAPSE) == 0)
		backed = peak_team_thp_backed(p, *map_bytes);
	*pages = backed == 1 ? PEAK_PAGES_THP : PEAK_PAGES_THP_REQUESTED;
	return p;
}

int peak_team_alloc_pages(struct peak_mem *m, size_t bytes, unsigned flags, char *why,
			  size_t why_len)
{
	memset(m, 0, sizeof(*m));
	if (why && why_len)
		why[0] = '\0';
	if (bytes == 0)
		return -1;
	m->bytes = bytes;
	if (flags & PEAK_PAGES_TRY_HUGETLB) {
		m->ptr = map_hugetlb(bytes, &m->map_bytes, why, why_len);
		if (m->ptr) {
			m->pages = PEAK_PAGES_HUGETLB;
			touch(m->ptr, m->map_bytes);
			return 0;
		}
	}
	if (flags & PEAK_PAGES_TRY_THP) {
		if ((flags & PEAK_PAGES_TRY_HUGETLB) && why && why[0])
			appendf(why, why_len, "; ");
		m->ptr = map_thp(bytes, &m->map_bytes, &m->pages, why, why_len);
		if (m->ptr)
			return 0;
	}
	if ((flags & PEAK_PAGES_REQUIRED) &&
	    (flags & (PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_TRY_THP)))
		return -1;
	m->pages = (flags & PEAK_PAGES_SCATTER) ? PEAK_PAGES_SCATTERED : PEAK_PAGES_SMALL;
	m->map_bytes = bytes;
	m->ptr = map_small(bytes, &m->numa);
	if (!m->ptr) {
		appendf(why, why_len, "%s%s", why && why[0] ? "; " : "", "out of memory");
		return -1;
	}
	/* Small means small: where THP is "always", the kernel would otherwise back a large
	 * mapping with huge pages behind the caller's back. EINVAL: a kernel without THP. */
	(void)madvise(m->ptr, bytes, MADV_NOHUGEPAGE);
	if (m->pages == PEAK_PAGES_SCATTERED)
		touch_scattered(m->ptr, bytes);
	else
		touch(m->ptr, bytes);
	return 0;
}

int peak_team_map_shared(struct peak_mem *m, int fd, uint64_t offset, size_t bytes)
{
	memset(m, 0, sizeof(*m));
	if (bytes == 0 || offset % small_page_bytes()) {
		errno = EINVAL;
		return -1;
	}
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)offset);
	if (p == MAP_FAILED)
		return -1;
	m->ptr = p;
	m->bytes = m->map_bytes = bytes;
	m->pages = PEAK_PAGES_SHARED;
	/* Write faults that keep the file's bytes: the pages are allocated now (in order
	 * where the file has holes), and whatever the other process left there stays. */
	for (size_t off = 0; off < bytes; off += small_page_bytes()) {
		volatile char *c = (volatile char *)p + off;
		*c = *c;
	}
	return 0;
}

int peak_team_free_pages(struct peak_mem *m)
{
	int rc = 0;
	if (!m->ptr)
		return 0;
	if (m->numa)
		numa_free(m->ptr, m->bytes);
	else
		rc = munmap(m->ptr, m->map_bytes);
	memset(m, 0, sizeof(*m));
	return rc;
}
