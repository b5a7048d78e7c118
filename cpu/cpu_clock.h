/* The clock under each load cpubench's rows run (peak_freq_load.h): measured and checked
 * once before the sweep, written to the context, and read by every row whose chain runs
 * that load. */
#ifndef CPU_CLOCK_H
#define CPU_CLOCK_H

#include <stdbool.h>
#include <stddef.h>

#include "cpu_kernels.h"
#include "peak_context.h"
#include "peak_freq_load.h"

/* Measure and check the load of every kernel in ks (n of them) that runs here and is
 * clocked by a loaded chain; clocks has PEAK_FREQ_LOAD_COUNT entries, those not measured
 * are left with ghz 0. */
void cpu_clock_measure(const struct cpu_kernel *const *ks, size_t n,
		       struct peak_freq_load_clock *clocks);
/* The same for a list of classes whose loads run here (linpack's solves). */
void cpu_clock_measure_chains(const enum cpu_chain *chains, size_t n,
			      struct peak_freq_load_clock *clocks);
/* The chain that clocks a kernel whose class is `chain` (*latency: its step's cycles): the
 * class's loaded chain when its clock held every check in clocks (NULL: none measured),
 * else the plain anchor, with *refused (when not NULL) true when a loaded chain existed and
 * was refused. */
enum cpu_chain cpu_clock_chain(enum cpu_chain chain, const struct peak_freq_load_clock *clocks,
			       unsigned *latency, bool *refused);
/* cpu.clock_ghz.<load> (GHz, or "refused: why"), cpu.clock_ratio.<load> (over the scalar
 * clock) and cpu.clock_ghz.scalar, for the loads measured. */
void cpu_clock_to_context(const struct peak_freq_load_clock *clocks, struct peak_context *ctx);

#endif
