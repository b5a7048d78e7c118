/* Exit codes shared by every peakbench binary (see docs/design.md). */
#ifndef PEAK_EXIT_H
#define PEAK_EXIT_H

enum peak_exit {
	PEAK_EXIT_OK = 0,          /* everything measured */
	PEAK_EXIT_FAIL = 1,        /* the measurement failed: I/O error, peer gone, verification */
	PEAK_EXIT_USAGE = 2,       /* bad flag or value out of range */
	PEAK_EXIT_UNSUPPORTED = 3, /* not supported here: ISA, DPDK, privilege */
};

#endif
