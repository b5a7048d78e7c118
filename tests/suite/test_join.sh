#!/bin/sh
# Baseline rows are matched to our rows (suite, test, variant glob, metric, threads and
# block when the baseline gives them), converted to our unit, and written into the
# baseline_tool / baseline columns of <suite>.csv and .json; report.sh then shows them.
set -u
repo=$1 check=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
command -v jq >/dev/null 2>&1 || { echo "jq not installed: skipped"; exit 77; }
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
h='suite,test,variant,threads,block_bytes,metric,unit,n,mean,stddev,min,median,max,ci95_low,ci95_high,p50,p90,p99,p999,theoretical,efficiency,baseline_tool,baseline,flags'
cat >"$d/memory.csv" <<CSV
$h
memory,stream,triad-avx512,1,89478485,throughput,MB/s,3,12000,10,11990,12000,12010,,,,,,,,,,,
memory,stream,triad-avx512,2,89478485,throughput,MB/s,3,20000,10,19990,20000,20010,,,,,,,,,,,
memory,seq_rw,avx512,2,83886080,throughput,MB/s,3,25000,10,24990,25000,25010,,,,,,,,,,,
memory,seq_rw,avx512,2,8192,throughput,MB/s,3,26000,10,25990,26000,26010,,,,,,,,,,,
CSV
cat >"$d/baseline.csv" <<CSV
$h
baseline,stream,hpcc-triad,1,,throughput,GB/s,1,10,,10,10,10,,,,,,,,,hpcc,10,ours=memory:stream:triad-*:throughput
baseline,seq_rw,copy_mem_avx512,2,83886080,throughput,MB/s,1,24000,,24000,24000,24000,,,,,,,,,likwid-bench,24000,ours=memory:seq_rw:avx512:throughput
baseline,stream,hpcc-add,1,,throughput,MB/s,0,,,,,,,,,,,,,,hpcc,,skipped: not run
baseline,seq_write,iozone,,,throughput,MB/s,0,,,,,,,,,,,,,,iozone,,"skipped: iozone not installed: not in Debian main, fio stands in; or build it"
baseline,seq_read,iozone,,,throughput,MB/s,0,,,,,,,,,,,,,,iozone,,"skipped: iozone not installed: not in Debian main, fio stands in; or build it"
CSV
jq -n '{context: {}, results: [
	{suite: "memory", test: "stream", variant: "triad-avx512", threads: 1, block_bytes: 89478485, metric: "throughput", unit: "MB/s", n: 1, mean: 12000, stddev: 0, min: 12000, median: 12000, max: 12000, ci95_low: null, ci95_high: null, p50: null, p90: null, p99: null, p999: null, theoretical: null, efficiency: null, baseline_tool: "", baseline: null, flags: "", samples: [12000]}]}' >"$d/memory.json"
bash -c ". '$repo/scripts/lib.sh' && peak_join_baselines '$d'" || fail "peak_join_baselines"
schema "$check" csv "$d/memory.csv"
schema "$check" json "$d/memory.json"
[ "$(wc -l <"$d/matches.tsv")" -eq 2 ] || fail "2 matches expected: $(cat "$d/matches.tsv")"
[ "$(cell "$d/memory.csv" stream triad-avx512 1 throughput 22)" = hpcc ] || fail "triad 1 thread: tool"
near "$(cell "$d/memory.csv" stream triad-avx512 1 throughput 23)" 10000 || fail "GB/s -> MB/s"
[ -z "$(cell "$d/memory.csv" stream triad-avx512 2 throughput 22)" ] || fail "threads must match"
near "$(cell "$d/memory.csv" seq_rw avx512 2 throughput 23)" 24000 || fail "seq_rw 80 MiB baseline"
awk -F, '$5 == 8192 && $22 != "" { exit 1 }' "$d/memory.csv" || fail "block must match"
[ "$(jq -r '.results[0].baseline' "$d/memory.json")" = 10000 ] || fail "JSON baseline"
[ "$(jq -r '.results[0].baseline_tool' "$d/memory.json")" = hpcc ] || fail "JSON baseline_tool"
ok "join"

printf 'membench\tmemory\tok\t1\t\ndpdkbench\tdpdk\tnot_built\t0\tnot built (libdpdk not found)\n' >"$d/status.tsv"
"$repo/scripts/report.sh" "$d" || fail "report.sh"
grep -q '| stream (triad-avx512) | 1 |' "$d/report.md" || fail "report: stream row"
grep -q '10000 MB/s (hpcc) | 120%' "$d/report.md" || fail "report: baseline and ratio"
grep -q 'dpdkbench: not built (libdpdk not found)' "$d/report.md" || fail "report: dpdk not built"
grep -q 'hpcc stream (hpcc-add): skipped: not run' "$d/report.md" || fail "report: skipped baseline"
# A tool that is not installed is said once, whatever its reason holds (commas, semicolons).
[ "$(grep -c 'iozone' "$d/report.md")" -eq 1 ] || fail "report: iozone not said once: $(grep iozone "$d/report.md")"
grep -q '^- iozone seq_write, seq_read: skipped: iozone not installed: not in Debian main, fio stands in; or build it$' \
	"$d/report.md" || fail "report: iozone line: $(grep iozone "$d/report.md")"
grep -q '^| or build it\|^|  *|' "$d/report.md" && fail "report: a garbled table row: $(grep '^| or build\|^|  *|' "$d/report.md")"
ok "report shows baselines and not-built suites"
