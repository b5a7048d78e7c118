/* Buffers for membench: anonymous mappings aligned to 2 MiB, with 4 KiB pages, transparent
 * huge pages (madvise) or hugetlbfs pages, touched by the thread that will use them. */
#ifndef MEM_ALLOC_H
#define MEM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mem_pages { MEM_PAGES_4K, MEM_PAGES_THP, MEM_PAGES_HUGETLB };

struct mem_buf {
	char *base; /* 2 MiB aligned (4 KiB pages: still 2 MiB aligned) */
	size_t bytes;
	void *map; /* what munmap gets */
	size_t map_bytes;
	enum mem_pages pages;
};

const char *mem_pages_name(enum mem_pages pages); /* "4k", "thp", "hugetlb" */

/* Map bytes (> 0) with the page kind; nothing is touched yet. Returns 0, or -1 with
 * errno set (hugetlb fails with ENOMEM when the pool is short). */
int mem_buf_map(struct mem_buf *b, size_t bytes, enum mem_pages pages);
void mem_buf_unmap(struct mem_buf *b);

/* Bytes of the mapping backed by huge pages (AnonHugePages of /proc/self/smaps for the
 * mapping that holds base); hugetlb mappings count whole. 0 when unknown. */
uint64_t mem_buf_huge_bytes(const struct mem_buf *b);

/* Free huge pages of the default size in the hugetlb pool, in bytes (0 when none). */
uint64_t mem_hugetlb_free_bytes(void);
/* True when transparent huge pages can be had with madvise (mode "always" or "madvise"). */
bool mem_thp_available(void);

#endif
