#!/bin/sh
# A stand-in benchmark for check_below_peak.py's own test: writes (to --output FILE) one
# row at 1.3x its peak and one below, as a binary with a wrong peak would.
out=""
while [ $# -gt 0 ]; do
	[ "$1" = --output ] && out=$2
	shift
done
[ -n "$out" ] || exit 2
cat >"$out" <<'JSON'
{"context": {"peak.uarch": "fake", "peak.uarch_source": "table"},
 "results": [
  {"suite": "cpu", "test": "flops", "variant": "avx2_dp_fma", "threads": 1, "unit": "GFLOPS",
   "mean": 130.0, "theoretical": 100.0, "efficiency": 1.3, "flags": "above_peak"},
  {"suite": "cpu", "test": "flops", "variant": "sse_dp_addmul", "threads": 1, "unit": "GFLOPS",
   "mean": 90.0, "theoretical": 100.0, "efficiency": 0.9, "flags": ""}]}
JSON
