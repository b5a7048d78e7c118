/* membench buffers: mmap + madvise, so the page size is chosen per buffer and the
 * first touch (by the worker that uses the buffer) places its pages. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "mem_alloc.h"

#define MEM_ALIGN ((size_t)2 << 20)

const char *mem_pages_name(enum mem_pages pages)
{
	switch (pages) {
	case MEM_PAGES_THP:
		return "thp";
	case MEM_PAGES_HUGETLB:
		return "hugetlb";
	case MEM_PAGES_4K:
	default:
		return "4k";
	}
}

int mem_buf_map(struct mem_buf *b, size_t bytes, enum mem_pages pages)
{
	memset(b, 0, sizeof(*b));
	if (bytes == 0) {
		errno = EINVAL;
		return -1;
	}
	size_t rounded = (bytes + MEM_ALIGN - 1) & ~(MEM_ALIGN - 1);
	if (pages == MEM_PAGES_HUGETLB) {
		/* Without MAP_NORESERVE the pool is reserved now: a short pool fails here
		 * with ENOMEM instead of a SIGBUS at first touch. */
		void *p = mmap(NULL, rounded, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		b->map = b->base = p;
		b->map_bytes = rounded;
	} else {
		/* Over-map by 2 MiB and align by hand: THP needs 2 MiB aligned ranges. */
		size_t len = rounded + MEM_ALIGN;
		char *p =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		b->map = p;
		b->map_bytes = len;
		b->base = (char *)(((uintptr_t)p + MEM_ALIGN - 1) & ~(uintptr_t)(MEM_ALIGN - 1));
		/* Advice failing (THP compiled out) is not fatal: the report checks smaps. */
		(void)madvise(b->base, rounded,
			      pages == MEM_PAGES_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	}
	b->bytes = bytes;
	b->pages = pages;
	return 0;
}

void mem_buf_unmap(struct mem_buf *b)
{
	if (b->map)
		(void)munmap(b->map, b->map_bytes);
	memset(b, 0, sizeof(*b));
}

uint64_t mem_buf_huge_bytes(const struct mem_buf *b)
{
	if (!b->base)
		return 0;
	if (b->pages == MEM_PAGES_HUGETLB)
		return b->bytes;
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 0;
	char line[512];
	bool inside = false;
	uint64_t kib = 0;
	uintptr_t want = (uintptr_t)b->base;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = want >= lo && want < hi;
			continue;
		}
		unsigned long v;
		if (inside && sscanf(line, "AnonHugePages: %lu kB", &v) == 1) {
			kib = v;
			break;
		}
	}
	fclose(f);
	return kib * 1024;
}

uint64_t mem_hugetlb_free_bytes(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char line[256];
	unsigned long free_pages = 0, size_kib = 0, v;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "HugePages_Free: %lu", &v) == 1)
			free_pages = v;
		else if (sscanf(line, "Hugepagesize: %lu kB", &v) == 1)
			size_kib = v;
	}
	fclose(f);
	return (uint64_t)free_pages * size_kib * 1024;
}

bool mem_thp_available(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return false;
	char line[128] = "";
	bool ok =
	    fgets(line, sizeof(line), f) && (strstr(line, "[always]") || strstr(line, "[madvise]"));
	fclose(f);
	return ok;
}
