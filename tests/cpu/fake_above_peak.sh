#!/bin/sh
# A stand-in benchmark for check_below_peak.py's own tests; writes rows to --output FILE.
# Without an argument: one row at 1.3x its peak and one below, as a binary with a wrong
# peak would. With "probe" first: the probe ran, and one kernel row says nothing of it
# (no vs_probe flag), one says something that is not a ratio; a row at 1.3x the probe's
# moment is only noise between two timings and passes.
case=${1:-peak}
out=""
while [ $# -gt 0 ]; do
	[ "$1" = --output ] && out=$2
	shift
done
[ -n "$out" ] || exit 2
if [ "$case" = probe ]; then
	cat >"$out" <<'JSON'
{"context": {"peak.uarch": "fake", "peak.uarch_source": "table",
             "peak.probe": "per cycle at 3.00 GHz (imul): vadd128 3.00"},
 "results": [
  {"suite": "cpu", "test": "iops", "variant": "sse_i32_add", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "theoretical": 48.0, "efficiency": 0.833, "flags": "steal_pct=0.1"},
  {"suite": "cpu", "test": "iops", "variant": "sse_i64_add", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "theoretical": 48.0, "efficiency": 0.833, "flags": "vs_probe=nan"},
  {"suite": "cpu", "test": "iops", "variant": "avx2_i32_add", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "theoretical": 48.0, "efficiency": 0.833, "flags": "vs_probe=1.300"},
  {"suite": "cpu", "test": "iops", "variant": "avx512_i64_mul", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "flags": "no_peak"}]}
JSON
	exit 0
fi
cat >"$out" <<'JSON'
{"context": {"peak.uarch": "fake", "peak.uarch_source": "table"},
 "results": [
  {"suite": "cpu", "test": "flops", "variant": "avx2_dp_fma", "threads": 1, "unit": "GFLOPS",
   "mean": 130.0, "theoretical": 100.0, "efficiency": 1.3, "flags": "above_peak"},
  {"suite": "cpu", "test": "flops", "variant": "sse_dp_addmul", "threads": 1, "unit": "GFLOPS",
   "mean": 90.0, "theoretical": 100.0, "efficiency": 0.9, "flags": ""}]}
JSON
