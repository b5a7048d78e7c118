/* dpdkbench's sweep on the harness (common/harness/peak_bench.h): every size x flows x queues point
 * is a peak_bench point, one DPDK round a repetition of a `measure` kernel. */
#ifndef DPDK_BENCH_H
#define DPDK_BENCH_H

#include "dpdk_report.h"
#include "dpdk_run.h"
#include "peak_bench.h"

/* Loopback, minimal or tester: HELLO (tester), every point through peak_bench_sweep with
 * its rows to rep, QUIT (tester, also after an error). Returns 0 or -1 with e set
 * (PEAK_EXIT_FAIL: dut lost, interrupted; PEAK_EXIT_USAGE: memif queue mismatch). */
int dpdk_bench_sweep(struct dpdk_bench *b, struct dpdk_report *rep, struct peak_bench_err *e);

#endif
