/* cpubench's per-load clocks (cpu_clock.h). */
#include "cpu_clock.h"

#include <stdio.h>

/* Each reading: best of 5 runs of 2 ms, four readings a load (plain, light, full, plain):
 * about 45 ms a load, long next to the licence's switching time (tens of microseconds on
 * Intel's cores) and short next to the sweep. */
#define READ_S    0.002
#define READ_RUNS 5

static void measure_once(enum cpu_chain chain, struct peak_freq_load_clock *clocks)
{
	enum peak_freq_load load = cpu_chain_load(chain);
	if (load == PEAK_FREQ_LOAD_NONE || clocks[load].ghz_scalar > 0 || clocks[load].why[0])
		return;
	peak_freq_load_clock(load, READ_S, READ_RUNS, &clocks[load]);
}

void cpu_clock_measure(const struct cpu_kernel *const *ks, size_t n,
		       struct peak_freq_load_clock *clocks)
{
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
		clocks[l] = (struct peak_freq_load_clock){0};
	char why[160];
	for (size_t i = 0; i < n; i++)
		if (cpu_kernel_supported(ks[i], why, sizeof why))
			measure_once(ks[i]->chain, clocks);
	/* A reading far below the anchor that no licence explains is a chain gone wrong, not a
	 * clock: refused, and its rows stand at the plain anchor. */
	(void)peak_freq_load_refuse_unexplained(clocks);
}

void cpu_clock_measure_chains(const enum cpu_chain *chains, size_t n,
			      struct peak_freq_load_clock *clocks)
{
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
		clocks[l] = (struct peak_freq_load_clock){0};
	for (size_t i = 0; i < n; i++)
		measure_once(chains[i], clocks);
	(void)peak_freq_load_refuse_unexplained(clocks);
}

enum cpu_chain cpu_clock_chain(enum cpu_chain chain, const struct peak_freq_load_clock *clocks,
			       unsigned *latency, bool *refused)
{
	enum cpu_chain c = cpu_chain_clock(chain, latency);
	enum peak_freq_load load = cpu_chain_load(c);
	if (refused)
		*refused = false;
	if (load == PEAK_FREQ_LOAD_NONE || (clocks && clocks[load].ok))
		return c;
	if (refused)
		*refused = clocks != NULL && clocks[load].why[0] != '\0';
	return cpu_chain_clock(CPU_CHAIN_SCALAR_INT, latency);
}

void cpu_clock_to_context(const struct peak_freq_load_clock *clocks, struct peak_context *ctx)
{
	double scalar = 0;
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++) {
		const struct peak_freq_load_clock *c = &clocks[l];
		if (!(c->ghz_scalar > 0) && !c->why[0])
			continue; /* not measured: no row runs this load */
		const char *name = peak_freq_load_name((enum peak_freq_load)l);
		char key[64], why[128];
		(void)snprintf(key, sizeof key, "cpu.clock_ghz.%s", name);
		if (c->ok) {
			peak_context_set_num(ctx, key, c->ghz);
			(void)snprintf(key, sizeof key, "cpu.clock_ratio.%s", name);
			peak_context_set_num(ctx, key, c->ghz / c->ghz_scalar);
		} else {
			(void)snprintf(why, sizeof why, "refused: %s", c->why);
			peak_context_set_str(ctx, key, why);
		}
		if (c->ghz_scalar > scalar)
			scalar = c->ghz_scalar;
	}
	if (scalar > 0)
		peak_context_set_num(ctx, "cpu.clock_ghz.scalar", scalar);
}
