/* Core-to-core round trip: two threads pinned to two CPUs bounce one cache line, and the
 * time per round trip tells how far apart the CPUs are. On a VM it is a fingerprint of
 * where the host placed the vCPUs: the same pair reads 90 ns on one socket's siblings and
 * 450 ns across sockets, so a change between the start and the end of a run says the host
 * moved them. */
#ifndef PEAK_C2C_H
#define PEAK_C2C_H

#include <stdbool.h>
#include <stddef.h>

#include "peak_shared.h"

/* One ordered pair of CPUs and its round trips. */
struct peak_c2c_pair {
	int cpu_a, cpu_b;
	unsigned samples;  /* samples taken (0: the pair could not be measured) */
	double min_ns;     /* fastest sample: the placement, undisturbed */
	double median_ns;  /* typical sample */
};

/* Measure every unordered pair of the CPUs in this process's affinity mask (at most
 * max_cpus of them, lowest first): `samples` samples of `round_trips` round trips each.
 * Fills up to out_cap pairs, sets *n_out, and returns 0; with fewer than two allowed CPUs
 * there is nothing to pair: *n_out = 0 and 0 is returned. Returns -1 with a reason in err
 * when a thread cannot be created or pinned, or a sample stalls past its time limit. */
int peak_c2c_measure(unsigned max_cpus, unsigned samples, unsigned round_trips,
		     struct peak_c2c_pair *out, size_t out_cap, size_t *n_out, char *err,
		     size_t err_len);

/* The factor by which a pair's minimum must change between two fingerprints of the same
 * pairs to count as a move (peak_shared.h: the results program uses the same). */
#define PEAK_C2C_MOVED_FACTOR PEAK_SHARED_MOVED_FACTOR

/* True when any pair present in both fingerprints changed its minimum by more than
 * PEAK_C2C_MOVED_FACTOR either way. Pairs missing from either side are ignored. */
bool peak_c2c_moved(const struct peak_c2c_pair *before, size_t n_before,
		    const struct peak_c2c_pair *after, size_t n_after);

/* "0-1:88/98" per pair (min/median ns, rounded), joined by spaces; "none" for no pairs. */
void peak_c2c_format(const struct peak_c2c_pair *pairs, size_t n, char *buf, size_t len);

/* Read back what peak_c2c_format wrote (at most cap pairs). Returns 0, or -1 when the
 * text is neither "none" nor a list of CPU-CPU:MIN/MEDIAN. */
int peak_c2c_parse(const char *text, struct peak_c2c_pair *pairs, size_t cap, size_t *n);

#endif
