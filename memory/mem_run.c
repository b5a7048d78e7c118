/* What membench's parts share: test names, page kinds on the common allocator, the
 * record, the progress line and the error (mem_run.h). No part of main lives here. */
#include <stdarg.h>
#include <stdio.h>

#include "mem_run.h"

const char *const mem_test_names[] = {"seq_rw",     "rand_rw", "seq_read", "seq_write", "rand_read",
				      "rand_write", "latency", "stream",   NULL};

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

int mem_map(struct peak_mem *m, size_t bytes, enum mem_pages pages, char *why, size_t why_len)
{
	unsigned flags = pages == MEM_PAGES_HUGETLB ? PEAK_PAGES_TRY_HUGETLB | PEAK_PAGES_REQUIRED
			 : pages == MEM_PAGES_THP   ? PEAK_PAGES_TRY_THP
						    : 0;
	return peak_team_alloc_pages(m, bytes, flags, why, why_len);
}

int mem_fail(struct mem_run *run, int code, const char *fmt, ...)
{
	if (run->err->code == PEAK_EXIT_OK) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(run->err->msg, sizeof(run->err->msg), fmt, ap);
		va_end(ap);
		run->err->code = code;
	}
	return -1;
}

void mem_progress(const struct peak_bench_run *r, const struct peak_result *res, char *buf,
		  size_t len)
{
	(void)r;
	(void)snprintf(buf, len, "%.4g %s", res->summary.mean, res->unit);
}

int mem_emit(struct mem_run *run, struct peak_result *r)
{
	peak_result_finish(r);
	if (peak_output_record(run->out, r) != 0)
		return mem_fail(run, PEAK_EXIT_FAIL, "writing the results failed");
	return 0;
}
