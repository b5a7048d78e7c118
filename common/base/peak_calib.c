/* Calibration (google/benchmark style): double-or-scale the iteration count until one
 * repetition lasts at least min_time, so clock resolution and overhead vanish. */
#include "peak_calib.h"

int peak_calib_iterations(peak_calib_fn fn, void *arg, double min_time_s, uint64_t start_iters,
			  uint64_t max_iters, uint64_t *iters_out)
{
	uint64_t iters = start_iters ? start_iters : 1;
	double target_ns = min_time_s * 1e9;

	if (max_iters < iters)
		max_iters = iters;
	for (;;) {
		uint64_t elapsed_ns = 0;
		int rc = fn(arg, iters, &elapsed_ns);
		if (rc != 0)
			return rc;
		if ((double)elapsed_ns >= target_ns || iters >= max_iters)
			break;
		/* Predict the count that reaches the target with a 20% margin, but never grow
		 * more than 10x a step: the first, tiny runs are dominated by noise. */
		double scale = elapsed_ns > 0 ? 1.2 * target_ns / (double)elapsed_ns : 10.0;
		if (scale > 10.0)
			scale = 10.0;
		double next = (double)iters * scale;
		uint64_t grown = next >= (double)max_iters ? max_iters : (uint64_t)next;
		iters = grown > iters ? grown : iters + 1;
	}
	*iters_out = iters;
	return 0;
}
