#!/bin/sh
# A stand-in cpubench for check_below_peak.py's own test: one kernel row below its peak
# but at 1.3x the probe's rate for its class, as a wrong clock or probe class would give,
# and one whose probe ran short of the table (probe_short), which is not judged.
out=""
while [ $# -gt 0 ]; do
	[ "$1" = --output ] && out=$2
	shift
done
[ -n "$out" ] || exit 2
cat >"$out" <<'JSON'
{"context": {"peak.uarch": "fake", "peak.uarch_source": "table",
             "peak.probe": "per cycle at 3.00 GHz (imul): vadd128 3.00"},
 "results": [
  {"suite": "cpu", "test": "iops", "variant": "sse_i32_add", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "theoretical": 48.0, "efficiency": 0.833, "flags": "vs_probe=1.300"},
  {"suite": "cpu", "test": "iops", "variant": "sse_i64_add", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "theoretical": 48.0, "efficiency": 0.833, "flags": "vs_probe=1.400;probe_short"},
  {"suite": "cpu", "test": "iops", "variant": "avx512_i64_mul", "threads": 1, "unit": "GIOPS",
   "mean": 40.0, "flags": "no_peak"}]}
JSON
