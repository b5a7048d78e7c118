/* A team of pthreads: pinned one per allowed CPU (round-robin when oversubscribed),
 * each runs the same function on its own index, started and stopped at barriers.
 * Team time = latest finish - earliest start, never shorter than the slowest thread. */
#ifndef PEAK_TEAM_H
#define PEAK_TEAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct peak_team;

/* Work of one thread. Return 0 on success; any non-zero makes peak_team_run fail. */
typedef int (*peak_team_fn)(void *arg, unsigned thread_index, unsigned nthreads);

/* Create nthreads workers. pin: bind worker i to the i-th allowed CPU (mod count).
 * Returns NULL with a message in err when threads cannot be created. */
struct peak_team *peak_team_create(unsigned nthreads, bool pin, char *err, size_t err_len);

/* Confine the calling thread, and the threads it starts afterwards, to cpus[0..n) (a
 * --cpus option: fio's --cpus_allowed, iperf3's -A). Returns 0; -1 with errno EINVAL and
 * *bad set when a CPU is one this thread may not run on; -1 with errno from the kernel. */
int peak_team_confine(const uint64_t *cpus, size_t n, long *bad);

/* Run fn on every worker, all released from one barrier.
 * team_ns (may be NULL): latest finish - earliest start over the team.
 * thread_ns (may be NULL, else nthreads entries): each worker's own elapsed time.
 * Returns 0, or the first non-zero value a worker returned. */
int peak_team_run(struct peak_team *team, peak_team_fn fn, void *arg, uint64_t *team_ns,
		  uint64_t *thread_ns);

unsigned peak_team_size(const struct peak_team *team);
/* CPU worker i is pinned to, or -1 when not pinned. */
int peak_team_cpu(const struct peak_team *team, unsigned thread_index);
/* True when there are more workers than CPUs this process may run on. */
bool peak_team_oversubscribed(const struct peak_team *team);
/* True when pinning was asked for and every worker was pinned. */
bool peak_team_pinned(const struct peak_team *team);

void peak_team_destroy(struct peak_team *team);

/* Number of CPUs in this process's affinity mask. */
unsigned peak_team_allowed_cpus(void);

/* Memory on the calling thread's NUMA node (libnuma when available), page-aligned
 * and touched by the caller so its pages land where the caller runs. NULL on failure. */
void *peak_team_alloc_local(size_t bytes);
void peak_team_free_local(void *ptr, size_t bytes);

/* The page kind a buffer got, weakest first. SHARED: a file's pages mapped shared
 * (peak_team_map_shared), whatever kind the file has. SCATTERED: small pages first-touched
 * out of order (PEAK_PAGES_SCATTER). THP_REQUESTED: the mapping was advised for transparent huge
 * pages but /proc/self/smaps did not confirm that all of it got them. */
enum peak_pages {
	PEAK_PAGES_SHARED,
	PEAK_PAGES_SCATTERED,
	PEAK_PAGES_SMALL,
	PEAK_PAGES_THP_REQUESTED,
	PEAK_PAGES_THP,
	PEAK_PAGES_HUGETLB
};

/* What peak_team_alloc_pages tries, in this order; with neither, small pages (4 KiB). */
#define PEAK_PAGES_TRY_HUGETLB 1u /* from the hugetlb pool, when it has room */
#define PEAK_PAGES_TRY_THP     2u /* transparent huge pages: 2 MiB-aligned, MADV_HUGEPAGE */
#define PEAK_PAGES_HUGE        (PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_TRY_THP)
#define PEAK_PAGES_REQUIRED    4u /* fail rather than fall back to small pages */
/* Small pages first-touched in a strided order, so that no two neighbouring pages are
 * physically adjacent: each 4 KiB page is a DMA segment of its own, as in a malloc'd
 * buffer whose pages the kernel handed out in no order (fio's, docs/disk.md), instead of
 * whatever contiguity the kernel's free lists happen to give in order. Only with small. */
#define PEAK_PAGES_SCATTER 8u

/* A buffer from peak_team_alloc_pages; give it back with peak_team_free_pages only. */
struct peak_mem {
	void *ptr;
	size_t bytes;     /* asked for */
	size_t map_bytes; /* mapped: bytes rounded up to the page size */
	enum peak_pages pages;
	bool numa; /* small pages from libnuma */
};

/* Page-aligned, first-touched memory of the kind flags ask for, falling back to small
 * pages on the caller's NUMA node unless PEAK_PAGES_REQUIRED. why (may be NULL) gets the
 * reason a huge kind that was tried could not be had, also on success. Returns 0, or -1
 * (bytes 0, out of memory, or a required kind not available: the reason is in why). */
int peak_team_alloc_pages(struct peak_mem *m, size_t bytes, unsigned flags, char *why,
			  size_t why_len);
/* bytes of the open file fd from offset (a multiple of the page size; the file must hold
 * offset + bytes), mapped shared and first-touched in order. Another process that maps the
 * same range of the same file (fio --mem=mmapshared:FILE) does its I/O to and from the
 * very same physical pages, whatever their layout. Returns 0, or -1 with errno. */
int peak_team_map_shared(struct peak_mem *m, int fd, uint64_t offset, size_t bytes);
/* Unmap as it was mapped. Returns 0, or -1 with errno from munmap. */
int peak_team_free_pages(struct peak_mem *m);
/* "hugetlb", "thp", "thp-requested", "small", "scattered" or "shared". */
const char *peak_pages_name(enum peak_pages pages);

/* The hugetlb pool of the default huge page size, from /proc/meminfo. */
struct peak_hugetlb_pool {
	uint64_t total, free, reserved;
	uint64_t available; /* free - reserved: what a new mapping can still reserve */
	uint64_t page_bytes;
};
/* Returns 0, or -1 when /proc/meminfo has no hugetlb lines. */
int peak_team_hugetlb_pool(struct peak_hugetlb_pool *pool);
/* 1 when /proc/self/smaps shows every mapping overlapping [ptr, ptr+bytes) backed by
 * anonymous huge pages, 0 when not, -1 when it cannot tell. */
int peak_team_thp_backed(const void *ptr, size_t bytes);
/* Bytes of m backed by huge pages: all of a hugetlb buffer, else the AnonHugePages that
 * /proc/self/smaps shows for the mappings it overlaps; 0 when unknown. */
uint64_t peak_team_huge_bytes(const struct peak_mem *m);
/* True when transparent huge pages can be had with madvise (sysfs mode not "never"). */
bool peak_team_thp_available(void);

#endif
