/* membench: what the throughput, latency and STREAM parts share (the run's options,
 * machine facts, output and error), the entry point of each part, and the helpers the
 * parts use (mem_run.c). main (membench.c) calls the parts; the parts never call main. */
#ifndef MEM_RUN_H
#define MEM_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mem_kernels.h"
#include "peak_bench.h"
#include "peak_context.h"
#include "peak_opts.h"
#include "peak_peak.h"
#include "peak_report.h"
#include "peak_result.h"
#include "peak_sysinfo.h"
#include "peak_team.h"

enum mem_test {
	MEM_T_SEQ_RW,
	MEM_T_RAND_RW,
	MEM_T_SEQ_READ,
	MEM_T_SEQ_WRITE,
	MEM_T_RAND_READ,
	MEM_T_RAND_WRITE,
	MEM_T_LATENCY,
	MEM_T_STREAM,
	MEM_T_COUNT
};

extern const char *const mem_test_names[]; /* NULL-terminated, in enum order */

/* The page kind a buffer asks for (latency's variant names it: chase-4k, chase-thp...). */
enum mem_pages { MEM_PAGES_4K, MEM_PAGES_THP, MEM_PAGES_HUGETLB };
const char *mem_pages_name(enum mem_pages pages); /* "4k", "thp", "hugetlb" */

/* bytes of the page kind from the common allocator (peak_team_alloc_pages), first-touched
 * by the calling thread: 4k = small pages, thp = THP where the kernel allows (else small),
 * hugetlb = the pool or nothing. Returns 0, or -1 with the reason in why. */
int mem_map(struct peak_mem *m, size_t bytes, enum mem_pages pages, char *why, size_t why_len);

enum mem_hp { MEM_HP_AUTO, MEM_HP_ON, MEM_HP_OFF };
enum mem_nt { MEM_NT_AUTO, MEM_NT_ON, MEM_NT_OFF };

struct mem_sweep {
	bool set;
	uint64_t min_bytes, max_bytes;
	unsigned steps_per_octave;
};

struct mem_run {
	/* options */
	struct peak_common_opts common;
	bool want[MEM_T_COUNT];
	struct peak_list blocks;
	uint64_t size_bytes;
	enum mem_hp hugepages;
	enum mem_nt nt;
	struct mem_sweep sweep;
	uint64_t seed;
	const struct mem_ops *ops;
	/* machine (peak_bench_main's) */
	const struct peak_sysinfo *si;
	struct peak_context *ctx;
	uint64_t llc_bytes;      /* the effective LLC (peak_sysinfo_llc_effective_bytes); 0 unknown */
	double theoretical_mbps; /* NAN unknown */
	double ghz;              /* measured core clock; 0 unknown */
	/* output and the first failure (exit code and one line, for stderr): peak_bench_main's */
	struct peak_output *out;
	struct peak_bench_err *err;
};

/* Each part returns 0, or -1 with run->err set (PEAK_EXIT_FAIL, _UNSUPPORTED, _USAGE). */
int mem_throughput_run(struct mem_run *run);
int mem_latency_run(struct mem_run *run);
int mem_stream_run(struct mem_run *run);

/* Bytes each part needs at most at once (buffers and orders), for the memory check. */
uint64_t mem_throughput_need(const struct mem_run *run);
uint64_t mem_latency_need(const struct mem_run *run);
uint64_t mem_stream_need(const struct mem_run *run);

/* Working-set sizes of the latency test (sweep or default points); returns how many. */
size_t mem_latency_points(const struct mem_run *run, uint64_t *ws, size_t max);

/* Finish the record (efficiency, physics flags) and hand it to the reporter. */
int mem_emit(struct mem_run *run, struct peak_result *r);

/* The text of the harness's progress line for a measured row: its mean and unit. */
void mem_progress(const struct peak_bench_run *r, const struct peak_result *res, char *buf,
		  size_t len);

/* Set run->err (the first error is kept, printf style) and return -1. */
int mem_fail(struct mem_run *run, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
