/* Calibration: grow an iteration count until one repetition lasts at least min_time. */
#ifndef PEAK_CALIB_H
#define PEAK_CALIB_H

#include <stdint.h>

/* Run `iters` iterations of the work and store how long it took. Return 0 on success. */
typedef int (*peak_calib_fn)(void *arg, uint64_t iters, uint64_t *elapsed_ns);

/* Start at start_iters (>= 1) and grow (by the measured ratio, at most 10x a step, with a
 * 20% margin) until one run lasts >= min_time_s or max_iters is reached.
 * On success *iters_out holds the count to use. Returns the fn's error, if any. */
int peak_calib_iterations(peak_calib_fn fn, void *arg, double min_time_s, uint64_t start_iters,
			  uint64_t max_iters, uint64_t *iters_out);

#endif
