/* Monotonic nanosecond clock (CLOCK_MONOTONIC_RAW), its resolution and read overhead. */
#ifndef PEAK_TIME_H
#define PEAK_TIME_H

#include <stdint.h>

/* Nanoseconds since an arbitrary origin; never goes backwards, not slewed by NTP. */
uint64_t peak_time_now_ns(void);

/* Resolution the kernel reports for the clock, in ns (at least 1). */
uint64_t peak_time_resolution_ns(void);

/* Median cost of one peak_time_now_ns() call, in ns, measured over many calls. */
double peak_time_overhead_ns(void);

/* Sleep for the given number of nanoseconds (restarts after signals). */
void peak_time_sleep_ns(uint64_t ns);

#endif
