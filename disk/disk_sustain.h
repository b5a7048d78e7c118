/* diskbench --sustain: one sequential job (seq_read or seq_write, one thread, --iodepth in
 * flight) held for the duration over the laid-out file, wrapping at its end, the bytes of
 * every second recorded, rows <test>_sustain "burst" and "baseline" from the series' knee. */
#ifndef DISK_SUSTAIN_H
#define DISK_SUSTAIN_H

#include "disk_cli.h"
#include "disk_engine.h"
#include "disk_file.h"
#include "disk_pattern.h"
#include "peak_bench.h"
#include "peak_context.h"
#include "peak_report.h"

/* --sustain's defaults and limits on the other options (before disk_opts_check fills the
 * block list): --test seq_read when every test is asked for (the default), else one of
 * seq_read and seq_write; --block 1MiB (fio's sequential default) when none is given, else
 * one; one --threads. 0, or -1 with e set (exit 2). */
int disk_sustain_check(struct disk_opts *o, struct peak_bench_err *e);

/* Run it on f (created and laid out; pat is the data written) with eng; the rows' peak is
 * peak_mbps (NAN: unknown). Rows to out, context keys disk.sustain_* to ctx. 0, or -1
 * with e set. */
int disk_sustain_run(const struct disk_opts *o, struct disk_file *f, const struct disk_pattern *pat,
		     const struct disk_engine_ops *eng, double peak_mbps, struct peak_output *out,
		     struct peak_context *ctx, struct peak_bench_err *e);

#endif
