/* Monotonic nanosecond clock: CLOCK_MONOTONIC_RAW is neither stepped nor slewed by NTP. */
#include "peak_time.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

uint64_t peak_time_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
		(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t peak_time_resolution_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_RAW, &ts) != 0)
		return 1;
	uint64_t ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns ? ns : 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

double peak_time_overhead_ns(void)
{
	/* 101 batches of 64 back-to-back reads; the median batch hides interrupts. */
	enum { BATCHES = 101, CALLS = 64 };
	uint64_t per_batch[BATCHES];

	for (int b = 0; b < BATCHES; b++) {
		uint64_t start = peak_time_now_ns(), last = start;
		for (int i = 0; i < CALLS; i++)
			last = peak_time_now_ns();
		per_batch[b] = last - start;
	}
	qsort(per_batch, BATCHES, sizeof(per_batch[0]), cmp_u64);
	return (double)per_batch[BATCHES / 2] / CALLS;
}

void peak_time_sleep_ns(uint64_t ns)
{
	struct timespec req = {.tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u)};
	struct timespec rem;

	while (nanosleep(&req, &rem) != 0 && errno == EINTR)
		req = rem;
}
