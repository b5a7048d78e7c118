/* Facts the C binaries and the results program (scripts/peakresults) both act on, written
 * once: scripts/peakresults/core/shared.py reads this file, and tests/unit/shared_facts.c with
 * tests/results/test_shared.py check that both sides read the same values. One
 * `#define PEAK_SHARED_<NAME> <number>` a line; Python sees <NAME>. */
#ifndef PEAK_SHARED_H
#define PEAK_SHARED_H

/* The factor by which a pair of CPUs' minimum round trip must change between two
 * placement fingerprints to count as a move when no calibration exists (the run-to-run
 * spread of one placement stays well below; a move across L3 domains or sockets is 2x-5x).
 * peakinfo --placement-since (peak_c2c_moved) and the paired rounds' fallback (pairs.py). */
#define PEAK_SHARED_MOVED_FACTOR 1.5

/* The UDP socket buffers (SO_SNDBUF and SO_RCVBUF) of netbench's UDP tests, and iperf3's
 * -w in the paired UDP job: the same buffers on both sides of the pair. */
#define PEAK_SHARED_UDP_SOCKBUF_BYTES 4194304

#endif
