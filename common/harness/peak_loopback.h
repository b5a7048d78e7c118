/* The loopback network's theoretical peak: how fast this machine moves payload through
 * memory. Data sent over loopback is copied from the sender's buffer and again to the
 * receiver's, so the machine's memory copy rate bounds it. One definition for peakinfo's
 * peaks table and netbench's rows. */
#ifndef PEAK_LOOPBACK_H
#define PEAK_LOOPBACK_H

#include <stddef.h>

/* Bytes each copier copies per run: above any current last-level cache per socket. */
#define PEAK_LOOPBACK_BYTES ((size_t)64 << 20)
#define PEAK_LOOPBACK_RUNS  10

/* Environment variable through which run_all.sh hands peakinfo's figure to netbench, so
 * a run's peaks table and its network rows carry the same number. */
#define PEAK_LOOPBACK_ENV "PEAKBENCH_LOOPBACK_GBPS"

struct peak_loopback {
	double gbps;       /* payload Gbit/s (bytes copied x 8, each byte once); 0 unknown */
	unsigned copiers;  /* one per allowed CPU, at once */
	char note[96]; /* fits struct peak_value's note */
};

/* Measure: every allowed CPU copies PEAK_LOOPBACK_BYTES at once (pinned, buffers first
 * touched by their copier), best of PEAK_LOOPBACK_RUNS. Returns 0, or -1 with a reason in
 * the note (gbps 0). */
int peak_loopback_measure(struct peak_loopback *lo);

/* Take the figure from PEAK_LOOPBACK_ENV when it holds a positive number (note says so);
 * returns 0 then, -1 when the variable is unset, -2 when it is set but not a number. */
int peak_loopback_from_env(struct peak_loopback *lo);

#endif
