/* cpubench's harness: calibrate, warm up and time one kernel on a thread team, verify
 * every run against the closed form, and measure the clock under that kernel's ISA. */
#ifndef CPU_MEASURE_H
#define CPU_MEASURE_H

#include <stdint.h>

#include "cpu_kernels.h"
#include "peak_peak.h"
#include "peak_result.h"
#include "peak_team.h"

#define CPU_MAX_REPS 1000

struct cpu_measure_opts {
	double min_time_s;
	unsigned reps;
	unsigned cores; /* cores this process may use (for cores used = min(threads, cores)) */
	const struct peak_uarch *uarch;
	double ghz_hint;            /* sizes the frequency chains; any rough value works */
	const char *corrupt_kernel; /* test hook: flip a bit of this kernel's result */
};

/* One measured point: the rate row and the frequency row, their samples kept here. */
struct cpu_point {
	double rate[CPU_MAX_REPS];
	double ghz[CPU_MAX_REPS];
	struct peak_result rate_row;
	struct peak_result freq_row;
	uint64_t iters;
	double cpu_share; /* lowest CPU time / wall time of a thread over the repetitions */
	char err[320];    /* why it failed */
};

/* Measure kernel k on the team. Returns 0, or -1 (verification or team failure, reason
 * in p->err); no row is valid then. */
int cpu_measure(const struct cpu_kernel *k, struct peak_team *team,
		const struct cpu_measure_opts *o, struct cpu_point *p);

#endif
