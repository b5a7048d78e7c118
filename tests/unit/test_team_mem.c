/* peak_team_alloc_pages (the one page allocator: membench, diskbench): each page kind is
 * what it says, checked against /proc/self/smaps with a parser of the test's own; hugetlb
 * and THP cases skip, with the reason, where the machine has none. peak_meminfo_read (the
 * one /proc/meminfo reader) on fixture files. */
#define _GNU_SOURCE
#include "peak_cmocka.h"
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "peak_sysinfo.h"
#include "peak_team.h"

/* KernelPageSize and AnonHugePages (kB) of the mapping holding addr; 0 when found. */
struct vma_info {
	unsigned long long kernel_page_kb, anon_huge_kb, size_kb;
};

static int vma_of(const void *addr, struct vma_info *v)
{
	char line[4096];
	unsigned long long lo, hi, kb;
	uintptr_t a = (uintptr_t)addr;
	int state = -1; /* -1 not found, 0 inside, 1 done */
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	memset(v, 0, sizeof(*v));
	while (state != 1 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2) {
			if (state == 0)
				state = 1;
			else if (a >= lo && a < hi)
				state = 0;
		} else if (state == 0) {
			if (sscanf(line, "KernelPageSize: %llu kB", &kb) == 1)
				v->kernel_page_kb = kb;
			else if (sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
				v->anon_huge_kb = kb;
			else if (sscanf(line, "Size: %llu kB", &kb) == 1)
				v->size_kb = kb;
		}
	}
	fclose(f);
	return state >= 0 ? 0 : -1;
}

static bool thp_enabled(void)
{
	char line[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return false;
	bool ok = fgets(line, sizeof(line), f) && !strstr(line, "[never]");
	fclose(f);
	return ok;
}

static unsigned long long overcommit_hugepages(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/vm/nr_overcommit_hugepages", "r");
	if (f) {
		if (fscanf(f, "%llu", &n) != 1)
			n = 0;
		fclose(f);
	}
	return n;
}

static void fill_and_check(struct peak_mem *m)
{
	unsigned char *p = m->ptr;
	memset(p, 0x5a, m->bytes);
	p[m->bytes - 1] = 0xa5;
	assert_int_equal(p[0], 0x5a);
	assert_int_equal(p[m->bytes / 2], 0x5a);
	assert_int_equal(p[m->bytes - 1], 0xa5);
}

static void test_small(void **state)
{
	(void)state;
	struct peak_mem m;
	struct vma_info v;
	char why[256];
	size_t bytes = 8u << 20;
	assert_int_equal(peak_team_alloc_pages(&m, bytes, 0, why, sizeof(why)), 0);
	assert_non_null(m.ptr);
	assert_int_equal(m.pages, PEAK_PAGES_SMALL);
	assert_int_equal((uintptr_t)m.ptr % 4096, 0);
	assert_true(m.map_bytes >= bytes);
	fill_and_check(&m);
	/* Small means no huge page anywhere in it, even where THP is "always". */
	assert_int_equal(vma_of(m.ptr, &v), 0);
	assert_int_equal(v.kernel_page_kb, 4);
	assert_int_equal(v.anon_huge_kb, 0);
	assert_int_equal(peak_team_thp_backed(m.ptr, bytes), 0);
	assert_int_equal(peak_team_huge_bytes(&m), 0);
	assert_int_equal(peak_team_free_pages(&m), 0);
	assert_null(m.ptr);
	assert_int_equal(peak_team_huge_bytes(&m), 0); /* freed: nothing to count */
	assert_int_equal(peak_team_alloc_pages(&m, 0, 0, NULL, 0), -1);
}

static void test_hugetlb(void **state)
{
	(void)state;
	struct peak_hugetlb_pool pool;
	struct peak_mem m;
	struct vma_info v;
	char why[256];
	if (peak_team_hugetlb_pool(&pool) != 0 || pool.available < 2) {
		print_message("skipped: fewer than 2 hugetlb pages available (vm.nr_hugepages)\n");
		skip();
	}
	size_t bytes = (size_t)pool.page_bytes + 1; /* needs two pages */
	if (peak_team_alloc_pages(&m, bytes, PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_REQUIRED, why,
				  sizeof(why)) != 0) {
		/* Someone else (DPDK) may have taken the pages since we looked. */
		if (peak_team_hugetlb_pool(&pool) == 0 && pool.available < 2) {
			print_message("skipped: the hugetlb pool emptied meanwhile: %s\n", why);
			skip();
		}
		fail_msg("hugetlb refused with %llu pages available: %s",
			 (unsigned long long)pool.available, why);
	}
	assert_int_equal(m.pages, PEAK_PAGES_HUGETLB);
	assert_string_equal(peak_pages_name(m.pages), "hugetlb");
	assert_int_equal(m.map_bytes, 2 * pool.page_bytes);
	assert_int_equal((uintptr_t)m.ptr % pool.page_bytes, 0);
	fill_and_check(&m);
	assert_int_equal(vma_of(m.ptr, &v), 0);
	assert_int_equal(v.kernel_page_kb, pool.page_bytes >> 10);
	assert_int_equal(peak_team_huge_bytes(&m), m.map_bytes); /* hugetlb counts whole */
	assert_int_equal(peak_team_free_pages(&m), 0);
}

static void test_hugetlb_refused(void **state)
{
	(void)state;
	struct peak_hugetlb_pool pool;
	struct peak_mem m;
	char why[256];
	if (overcommit_hugepages() > 0) {
		print_message("skipped: vm.nr_overcommit_hugepages lets the pool grow\n");
		skip();
	}
	if (peak_team_hugetlb_pool(&pool) != 0)
		pool = (struct peak_hugetlb_pool){.page_bytes = 2u << 20};
	/* More pages than the pool holds: required hugetlb fails with the reason, nothing
	 * is mapped. Also runs (and matters) where the pool is empty. */
	size_t bytes = (size_t)((pool.total + 1) * pool.page_bytes);
	assert_int_equal(peak_team_alloc_pages(&m, bytes,
					       PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_REQUIRED, why,
					       sizeof(why)),
			 -1);
	assert_null(m.ptr);
	assert_non_null(strstr(why, "hugetlb"));
}

static void test_thp(void **state)
{
	(void)state;
	struct peak_mem m;
	struct vma_info v;
	char why[256];
	if (!thp_enabled()) {
		print_message("skipped: transparent huge pages are off (never, or not built)\n");
		skip();
	}
	size_t bytes = 4u << 20;
	assert_int_equal(peak_team_alloc_pages(&m, bytes, PEAK_PAGES_TRY_THP | PEAK_PAGES_REQUIRED,
					       why, sizeof(why)),
			 0);
	assert_true(m.pages == PEAK_PAGES_THP || m.pages == PEAK_PAGES_THP_REQUESTED);
	assert_int_equal((uintptr_t)m.ptr % (2u << 20), 0);
	assert_int_equal(m.map_bytes, bytes);
	fill_and_check(&m);
	assert_int_equal(vma_of(m.ptr, &v), 0);
	/* peak_team_huge_bytes counts what smaps counts (the test's own parser). */
	assert_int_equal(peak_team_huge_bytes(&m), (uint64_t)v.anon_huge_kb << 10);
	if (m.pages == PEAK_PAGES_THP)
		assert_true(peak_team_huge_bytes(&m) >= bytes);
	else
		print_message("note: THP not confirmed (memory fragmented?)\n");
	assert_int_equal(peak_team_free_pages(&m), 0);
}

/* Page frame numbers of [p, p + n pages) from /proc/self/pagemap; 0 when the kernel
 * hides them (no CAP_SYS_ADMIN) or a page is not present. Returns -1 when unreadable. */
static int frames_of(const void *p, size_t n, uint64_t *pfn)
{
	FILE *f = fopen("/proc/self/pagemap", "rb");
	if (!f)
		return -1;
	int rc = fseeko(f, (off_t)((uintptr_t)p / 4096 * 8), SEEK_SET) == 0 &&
			 fread(pfn, 8, n, f) == n
		     ? 0
		     : -1;
	fclose(f);
	for (size_t i = 0; rc == 0 && i < n; i++)
		pfn[i] = (pfn[i] >> 63) ? pfn[i] & ((1ull << 55) - 1) : 0;
	return rc;
}

/* SCATTER: small pages, touched out of order, so that virtual neighbours are not
 * physical neighbours (each page its own DMA segment). The frames are checked where the
 * kernel shows them (root); elsewhere only the kind and the memory are. */
static void test_scattered(void **state)
{
	(void)state;
	struct peak_mem m;
	struct vma_info v;
	enum { PAGES = 257 };
	static uint64_t pfn[PAGES];
	assert_int_equal(peak_team_alloc_pages(&m, PAGES * 4096u, PEAK_PAGES_SCATTER, NULL, 0), 0);
	assert_int_equal(m.pages, PEAK_PAGES_SCATTERED);
	assert_int_equal(vma_of(m.ptr, &v), 0);
	assert_int_equal(v.kernel_page_kb, 4);
	assert_int_equal(v.anon_huge_kb, 0);
	fill_and_check(&m);
	if (frames_of(m.ptr, PAGES, pfn) == 0 && pfn[0] != 0) {
		unsigned adjacent = 0;
		for (size_t i = 1; i < PAGES; i++)
			adjacent += pfn[i] != 0 && pfn[i] == pfn[i - 1] + 1;
		print_message("note: %u of %d neighbouring pages physically adjacent\n", adjacent,
			      PAGES - 1);
		assert_true(adjacent <= PAGES / 16);
	} else {
		print_message("note: page frames hidden (no CAP_SYS_ADMIN): contiguity not checked\n");
	}
	assert_int_equal(peak_team_free_pages(&m), 0);
	/* Huge kinds ignore SCATTER; a small buffer of 1-3 pages is touched in order. */
	assert_int_equal(peak_team_alloc_pages(&m, 3 * 4096u, PEAK_PAGES_SCATTER, NULL, 0), 0);
	assert_int_equal(m.pages, PEAK_PAGES_SCATTERED);
	fill_and_check(&m);
	assert_int_equal(peak_team_free_pages(&m), 0);
}

/* A file's pages mapped shared: two mappings of one range (two processes, in diskbench
 * and fio) are the same memory, the first touch keeps what the file held, and the pages
 * are the same frames where the kernel shows them. */
static void test_shared(void **state)
{
	(void)state;
	struct peak_mem a, b;
	enum { PAGES = 4 };
	uint64_t fa[PAGES], fb[PAGES];
	int fd = memfd_create("peak-test-shared", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (PAGES + 1) * 4096), 0);
	assert_int_equal(pwrite(fd, "kept", 4, 4096), 4);
	assert_int_equal(peak_team_map_shared(&a, fd, 4096, PAGES * 4096u), 0);
	assert_int_equal(a.pages, PEAK_PAGES_SHARED);
	assert_int_equal(a.bytes, PAGES * 4096u);
	assert_memory_equal(a.ptr, "kept", 4);
	assert_int_equal(peak_team_map_shared(&b, fd, 4096, PAGES * 4096u), 0);
	assert_ptr_not_equal(a.ptr, b.ptr);
	memset(a.ptr, 0x5a, PAGES * 4096u);
	for (size_t i = 0; i < PAGES * 4096u; i += 4095)
		assert_int_equal(((unsigned char *)b.ptr)[i], 0x5a);
	if (frames_of(a.ptr, PAGES, fa) == 0 && frames_of(b.ptr, PAGES, fb) == 0 && fa[0] != 0)
		assert_memory_equal(fa, fb, sizeof(fa));
	assert_int_equal(peak_team_free_pages(&a), 0);
	assert_int_equal(peak_team_free_pages(&b), 0);
	/* an offset inside a page, or nothing to map: refused */
	assert_int_equal(peak_team_map_shared(&a, fd, 100, 4096), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(peak_team_map_shared(&a, fd, 0, 0), -1);
	assert_null(a.ptr);
	close(fd);
	assert_int_equal(peak_team_map_shared(&a, fd, 0, 4096), -1); /* a closed fd */
}

static void test_huge_falls_back(void **state)
{
	(void)state;
	struct peak_mem m;
	char why[512];
	/* Without REQUIRED, a huge request always gets memory, of whatever kind it says. */
	assert_int_equal(peak_team_alloc_pages(&m, 3u << 20, PEAK_PAGES_HUGE, why, sizeof(why)), 0);
	assert_non_null(m.ptr);
	assert_true(m.map_bytes >= m.bytes);
	if (m.pages == PEAK_PAGES_SMALL)
		assert_true(why[0] != '\0'); /* says why not huge */
	fill_and_check(&m);
	assert_int_equal(peak_team_free_pages(&m), 0);
	assert_int_equal(peak_team_free_pages(&m), 0); /* freeing twice is harmless */
}

/* peak_team_thp_available says what sysfs says (the test's own reader). */
static void test_thp_available(void **state)
{
	(void)state;
	assert_int_equal(peak_team_thp_available(), thp_enabled());
	if (!thp_enabled()) {
		struct peak_mem m;
		char why[256];
		assert_int_equal(peak_team_alloc_pages(&m, 2u << 20,
						       PEAK_PAGES_TRY_THP | PEAK_PAGES_REQUIRED,
						       why, sizeof(why)),
				 -1);
		assert_non_null(strstr(why, "THP"));
	}
}

static void test_meminfo_fixture(void **state)
{
	(void)state;
	struct peak_meminfo mi;
	assert_int_equal(peak_meminfo_read(PEAK_FIXTURES_DIR "/meminfo-hugetlb", &mi), 0);
	assert_int_equal(mi.total_bytes, 65536000ull << 10);
	assert_int_equal(mi.available_bytes, 52428800ull << 10);
	assert_int_equal(mi.hugepage_bytes, 1ull << 30);
	assert_int_equal(mi.hugepages_total, 512);
	assert_int_equal(mi.hugepages_free, 300);
	assert_int_equal(mi.hugepages_rsvd, 44);
	assert_int_equal(mi.found, PEAK_MEMINFO_TOTAL | PEAK_MEMINFO_AVAILABLE |
				       PEAK_MEMINFO_HUGEPAGESIZE | PEAK_MEMINFO_HP_TOTAL |
				       PEAK_MEMINFO_HP_FREE | PEAK_MEMINFO_HP_RSVD);

	/* sysroot-full has HugePages_Total and Hugepagesize only: the rest stays unfound. */
	assert_int_equal(peak_meminfo_read(PEAK_FIXTURES_DIR "/sysroot-full", &mi), 0);
	assert_int_equal(mi.total_bytes, 24684096ull << 10);
	assert_int_equal(mi.hugepage_bytes, 2ull << 20);
	assert_int_equal(mi.hugepages_total, 0);
	assert_true(mi.found & PEAK_MEMINFO_HP_TOTAL);
	assert_false(mi.found & (PEAK_MEMINFO_HP_FREE | PEAK_MEMINFO_HP_RSVD));

	/* sysroot-sparse lacks MemAvailable. */
	assert_int_equal(peak_meminfo_read(PEAK_FIXTURES_DIR "/sysroot-sparse", &mi), 0);
	assert_false(mi.found & PEAK_MEMINFO_AVAILABLE);
	assert_int_equal(mi.available_bytes, 0);

	/* No file: -1 and nothing found. */
	assert_int_equal(peak_meminfo_read(PEAK_FIXTURES_DIR "/no-such-root", &mi), -1);
	assert_int_equal(mi.found, 0);
}

/* The pool the allocator sees is the live /proc/meminfo's, through the same reader. */
static void test_pool_matches_meminfo(void **state)
{
	(void)state;
	struct peak_meminfo mi;
	struct peak_hugetlb_pool pool;
	assert_int_equal(peak_meminfo_read("", &mi), 0);
	if (peak_team_hugetlb_pool(&pool) != 0) {
		assert_false((mi.found & PEAK_MEMINFO_HP_FREE) && (mi.found & PEAK_MEMINFO_HP_RSVD) &&
			     (mi.found & PEAK_MEMINFO_HP_TOTAL) && mi.hugepage_bytes);
		return;
	}
	assert_int_equal(pool.page_bytes, mi.hugepage_bytes);
	assert_true(pool.total >= pool.free);
	assert_int_equal(pool.available, pool.free > pool.reserved ? pool.free - pool.reserved : 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(peak_pages_name(PEAK_PAGES_SMALL), "small");
	assert_string_equal(peak_pages_name(PEAK_PAGES_SCATTERED), "scattered");
	assert_string_equal(peak_pages_name(PEAK_PAGES_SHARED), "shared");
	assert_string_equal(peak_pages_name(PEAK_PAGES_THP_REQUESTED), "thp-requested");
	assert_string_equal(peak_pages_name(PEAK_PAGES_THP), "thp");
	assert_string_equal(peak_pages_name(PEAK_PAGES_HUGETLB), "hugetlb");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_small),           cmocka_unit_test(test_hugetlb),
	    cmocka_unit_test(test_hugetlb_refused), cmocka_unit_test(test_thp),
	    cmocka_unit_test(test_huge_falls_back), cmocka_unit_test(test_names),
	    cmocka_unit_test(test_thp_available),   cmocka_unit_test(test_meminfo_fixture),
	    cmocka_unit_test(test_pool_matches_meminfo), cmocka_unit_test(test_scattered),
	    cmocka_unit_test(test_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
