/* cpubench's kernels on the harness: each cpu_kernel as a peak_bench_kernel whose hooks
 * verify every run against the closed form and measure the clock under its ISA. */
#ifndef CPU_MEASURE_H
#define CPU_MEASURE_H

#include <stdint.h>

#include "cpu_kernels.h"
#include "peak_bench.h"
#include "peak_peak.h"
#include "peak_result.h"
#include "peak_team.h"

#define CPU_MAX_REPS 1000

struct cpu_measure_opts {
	double min_time_s;
	unsigned reps;
	unsigned cores; /* cores this process may use (for cores used = min(threads, cores)) */
	const struct peak_uarch *uarch;
	const struct peak_uarch *uarch_claimed; /* before the probe's corrections */
	const struct peak_probe *probe;         /* NULL: the probe did not run */
	/* [PEAK_FREQ_LOAD_COUNT] (cpu_clock.h): a loaded chain clocks its rows only when its
	 * load's checks held; NULL or refused, the imul chain does. */
	const struct peak_freq_load_clock *load_clocks;
	double ghz_hint;            /* sizes the frequency chains; any rough value works */
	const char *corrupt_kernel; /* test hook: flip a bit of this kernel's result */
};

/* The sweep's state (struct peak_bench_suite.data): the options every point reads and the
 * frequency row that follows its rate row. */
struct cpu_sweep {
	struct cpu_measure_opts mo;
	double ghz[CPU_MAX_REPS];
	struct peak_result freq_row;
};

/* The harness descriptor of kernel k: calibrated runs on the team, every run verified
 * against the closed form, after each repetition the clock under k's ISA (the peak's GHz);
 * its row hook builds the frequency row in the cpu_sweep, its extra_rows hook records it. */
void cpu_bench_kernel(const struct cpu_kernel *k, struct peak_bench_kernel *bk);

#endif
