/* cpubench's per-load clocks (cpu_clock.h). */
#include "cpu_clock.h"

#include <stdio.h>

/* Each reading: best of 5 runs of 2 ms, four readings a load (plain, light, full, plain):
 * about 45 ms a load, long next to the licence's switching time (tens of microseconds on
 * Intel's cores) and short next to the sweep. */
#define READ_S     0.002
#define READ_RUNS  5

void cpu_clock_measure(const struct cpu_kernel *const *ks, size_t n,
		       struct peak_freq_load_clock *clocks)
{
	for (size_t l = 0; l < PEAK_FREQ_LOAD_COUNT; l++)
		clocks[l] = (struct peak_freq_load_clock){0};
	char why[160];
	for (size_t i = 0; i < n; i++) {
		enum peak_freq_load load = cpu_chain_load(ks[i]->chain);
		if (load == PEAK_FREQ_LOAD_NONE || clocks[load].ghz_scalar > 0 ||
		    clocks[load].why[0] || !cpu_kernel_supported(ks[i], why, sizeof why))
			continue;
		peak_freq_load_clock(load, READ_S, READ_RUNS, &clocks[load]);
	}
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
