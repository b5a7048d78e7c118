#!/bin/sh
# The whole protocol at tiny sizes on what is built (no make, no reference tools), read from
# the shared run (tests/suite/tiny_run.sh, ctest fixture suite_tiny): every step ends ok,
# skipped or not built; every <suite>.csv/.json validates against the schema; charts exist
# when gnuplot is installed; report.md has every expected section (and the DPDK vs kernel UDP
# table when the memif pair ran). (--no-baselines is suite_set_cloud's: its run has it.)
# Usage: test_smoke.sh REPO TINY_DIR SCHEMA_CHECK
set -u
repo=$1 tiny=$2 check=$3
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
r="$tiny/r"
rc=$(cat "$tiny/rc" 2>/dev/null) || fail "no shared run in $tiny (suite_tiny_run)"
[ -s "$r/status.tsv" ] || fail "no status.tsv"
cat "$r/status.tsv"
if awk -F'\t' '$3 == "failed" { bad = 1 } END { exit !bad }' "$r/status.tsv"; then
	fail "a step failed: $(awk -F'\t' '$3 == "failed" { print $1 ": " $5 }' "$r/status.tsv")"
fi
[ "$rc" -eq 0 ] || fail "run_all.sh exited $rc with no failed step"
grep -Eq '^\[1/[0-9]+\] info: peakinfo +elapsed [0-9hms]+, ETA [0-9hms]+$' "$tiny/progress" || fail "progress line format"

n=0
for s in cpu memory disk network dpdk; do
	if [ -s "$r/$s.csv" ]; then
		schema "$check" csv "$r/$s.csv"
		n=$((n + 1))
	fi
	if [ -s "$r/$s.json" ]; then schema "$check" json "$r/$s.json"; fi
	if [ -s "$r/$s.csv" ] && command -v jq >/dev/null 2>&1; then
		[ -s "$r/$s.json" ] || fail "$s.csv without $s.json"
		[ "$(tail -n +2 "$r/$s.csv" | wc -l)" -eq "$(jq '.results | length' "$r/$s.json")" ] ||
			fail "$s.csv and $s.json hold different row counts"
	fi
	st=$(awk -F'\t' -v s="$s" '$2 == s { print $3; exit }' "$r/status.tsv")
	[ "$st" != ok ] || [ -s "$r/$s.csv" ] || fail "$s ran ok but left no $s.csv"
done
ok "$n suite(s) produced results"
# One value per peak: each row's theoretical is the peaks table's, scaled by what it used.
if command -v python3 >/dev/null 2>&1; then
	python3 "$repo/tests/suite/check_one_peak.py" "$r" || fail "a row's peak differs from the peaks table's"
fi
[ -s "$r/commands.txt" ] || fail "no commands.txt"
grep -q '^peakinfo: ' "$r/commands.txt" || fail "commands.txt lacks the peakinfo command"
if awk -F'\t' '$1 == "peakinfo" && $3 == "ok" { f = 1 } END { exit !f }' "$r/status.tsv"; then
	[ -s "$r/context.json" ] || fail "no context.json"
	if command -v jq >/dev/null 2>&1; then jq -e '.["cpu.model"]' "$r/context.json" >/dev/null || fail "context.json lacks cpu.model"; fi
fi
[ ! -e "$r/disk-tmp" ] || fail "the disk test directory was left behind"

if command -v gnuplot >/dev/null 2>&1 && [ "$n" -gt 0 ]; then
	ls "$r"/charts/*.png >/dev/null 2>&1 || fail "gnuplot is installed but no chart was drawn"
	for png in "$r"/charts/*.png; do
		head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || fail "$png is not a PNG"
	done
	if [ -s "$r/cpu.csv" ]; then [ -s "$r/charts/cpu_flops_dp.png" ] || fail "no cpu_flops_dp.png"; fi
	if [ -s "$r/memory.csv" ]; then [ -s "$r/charts/memory_latency.png" ] || fail "no memory_latency.png"; fi
	if [ -s "$r/cpu.csv" ] && [ -s "$r/levels.csv" ]; then [ -s "$r/charts/roofline.png" ] || fail "no roofline.png"; fi
	ok "$(find "$r/charts" -name "*.png" | wc -l) charts"
fi

[ -s "$r/report.md" ] || fail "no report.md"
if command -v jq >/dev/null 2>&1 && [ -s "$r/context.json" ]; then
	jq -e 'has("c2c.end_round_trip_ns") and (.["c2c.moved"] | type == "boolean")' "$r/context.json" \
		>/dev/null || fail "context.json lacks the end-of-run placement fingerprint"
	grep -q '^| VM placement | ' "$r/report.md" || fail "report.md does not say whether the vCPUs moved"
fi
for sec in '# peakbench report' '## Summary' '### Figures against their peaks' '## Machine' \
	'## CPU' '## Memory' '## Disk' '## Network' '## DPDK' '## Reference tools' '## Warnings'; do
	grep -qx "$sec" "$r/report.md" || fail "report.md lacks '$sec'"
done
# The steps and the peaks' sources are the appendix's (report.md is one page to read).
for sec in '# peakbench report: the appendix' '## Steps' '## Theoretical peaks and their sources'; do
	grep -qx "$sec" "$r/report-appendix.md" || fail "report-appendix.md lacks '$sec'"
done
[ -s "$r/report.html" ] || fail "no report.html"
if [ -s "$r/cpu.csv" ]; then
	grep -q '^| Variant | 1 thread | 2 threads | Efficiency (best) |' \
		"$r/report.md" || fail "report.md lacks the PA1 table header"
	grep -q '^| Workload | Concurrency | Block size | Value (mean ± stddev, N runs) | Theoretical | Efficiency | Baseline | Baseline ratio | Notes |$' \
		"$r/report-appendix.md" || fail "report-appendix.md lacks the per-row table header"
fi
for png in "$r"/charts/*.png; do
	[ -e "$png" ] || continue
	grep -q "(charts/$(basename "$png"))" "$r/report.md" || fail "report.md does not show $(basename "$png")"
done
if ! [ -s "$r/dpdk.csv" ]; then
	grep -q 'dpdk' "$r/report.md" || fail "report.md says nothing about dpdk"
elif grep -q '^dpdk,rx_dut,memif-' "$r/dpdk.csv"; then
	grep -qx '### DPDK (memif, user space) vs kernel UDP (netbench loopback)' "$r/report.md" ||
		fail "report.md lacks the DPDK vs kernel UDP table"
	grep -q '^| 64 B | 18 B | memif-' "$r/report.md" || fail "the DPDK vs kernel UDP table has no 64 B row"
fi
ok "report.md has every section"
