/* kernel_peaks: cpubench's peak inputs for the CPU a fake /proc and /sys tree describes,
 * from the code as it is now: the machine as cpubench builds it (sysinfo, the uarch table,
 * cores), and each kernel's ops per cycle (cpu_kernel_ops_per_cycle, the function behind
 * cpubench's theoretical). Nothing is measured; check_records.py multiplies these by each
 * recorded row's own clock.
 *
 * Usage: kernel_peaks ROOT. Output, tab-separated:
 *   uarch NAME SOURCE
 *   cores N
 *   kernel VARIANT OPS_PER_CYCLE       (nan: the table cannot say, e.g. vpmullq)
 *   clock VARIANT LOAD LICENSES        (the load whose clock the kernel's rows take:
 *                                       "scalar" for the plain anchor; LICENSES 1 when its
 *                                       lowered clock explains another's)
 *   clock_floor F                      (PEAK_FREQ_LOAD_FLOOR: the refusal rule's bound) */
#include <stdio.h>
#include <string.h>

#include "cpu_kernels.h"
#include "peak_freq_load.h"
#include "peak_peak.h"
#include "peak_sysinfo.h"

int main(int argc, char **argv)
{
	if (argc != 2 || !argv[1][0]) {
		fprintf(stderr, "usage: kernel_peaks ROOT (a fake /proc and /sys tree)\n");
		return 2;
	}
	static struct peak_sysinfo si;
	static struct peak_machine m;
	static struct peak_config cfg;
	char err[160];
	peak_config_init(&cfg);
	/* A configured clock: no frequency chain runs (each row brings its own clock). */
	if (peak_config_set(&cfg, "cpu.ghz=1", err, sizeof err) != 0) {
		fprintf(stderr, "kernel_peaks: %s\n", err);
		return 1;
	}
	peak_sysinfo_collect(&si, argv[1]);
	/* cpubench's own call; under a fake root the probe never runs: the table alone. */
	peak_machine_init_cpu(&m, &si, &cfg, argv[1]);
	printf("uarch\t%s\t%s\n", m.uarch.name, peak_source_name(m.uarch.source));
	printf("cores\t%.0f\n", m.cores.source != PEAK_SRC_UNKNOWN ? m.cores.value : 0.0);
	for (size_t i = 0; i < cpu_nkernels; i++)
		printf("kernel\t%s\t%.17g\n", cpu_kernels[i].name,
		       cpu_kernel_ops_per_cycle(&cpu_kernels[i], &m.uarch));
	/* The load of the kernel's class as cpubench on the record's architecture runs it, not
	 * as this build would (an aarch64 build replaying an x86 record has no loaded chain). */
	for (size_t i = 0; i < cpu_nkernels; i++) {
		enum peak_freq_load load = cpu_chain_load(cpu_kernels[i].chain);
		printf("clock\t%s\t%s\t%d\n", cpu_kernels[i].name, peak_freq_load_name(load),
		       peak_freq_load_licenses(load) ? 1 : 0);
	}
	printf("clock_floor\t%.17g\n", PEAK_FREQ_LOAD_FLOOR);
	return ferror(stdout) ? 1 : 0;
}
