#!/bin/sh
# run_all.sh --set KEY=VALUE (issue 35's "a run with --set cloud.instance_type=m5.large shows
# the published peaks in its summary, with the efficiency against both"): a tiny disk-only
# run as an m5.large. The run's peaks.conf holds the line, the cloud is identified from it
# (PEAKBENCH_CLOUD says m5.large, source --set), and report.md's summary holds the disk
# figures against m5.large's published EBS burst and baseline. A user's own peaks.conf comes
# first (here without a final newline): its line (c5.large) stays, the --set line after it wins.
# The run is also the suite's --no-baselines run (suite_smoke reads a run with baselines): no
# adapter started, no baselines.csv. The cache sizes are given (given_caches, lib_test.sh):
# the cloud is what the run is about.
# Usage: test_set_cloud.sh REPO BUILD
set -u
REPO=$1 BUILD=$2
. "$REPO/tests/suite/lib_test.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'cloud.instance_type = c5.large' >"$tmp/user.conf"
given_caches
out=$tmp/run
PEAKBENCH_CONF=$tmp/user.conf PEAKBENCH_CLOUD='' "$REPO/run_all.sh" --tiny --only disk --no-build \
	--no-baselines --no-charts --reps 1 --min-time 0.01 --build-dir "$BUILD" --out "$out" \
	--set cloud.instance_type=m5.large >"$tmp/log" 2>&1 ||
	{ tail -n 20 "$tmp/log" >&2; fail "run_all.sh --set exited $?"; }
[ ! -e "$out/baselines.csv" ] || fail "--no-baselines still wrote baselines.csv"
grep -q 'peakresults/adapters' "$out/commands.txt" && fail "--no-baselines ran an adapter: $(grep adapters "$out/commands.txt")"
ok "--no-baselines: no adapter ran, no baselines.csv"
grep -qx 'cloud.instance_type = c5.large' "$out/peaks-set.conf" || fail "the user's peaks.conf is not kept first"
[ "$(tail -n 1 "$out/peaks-set.conf")" = "cloud.instance_type = m5.large" ] || fail "the --set lines are not last: $(cat "$out/peaks-set.conf")"
grep -q 'PEAKBENCH_CLOUD=[a-z]*,m5.large,--set' "$out/commands.txt" ||
	fail "the cloud was not identified from --set: $(grep cloud "$out/commands.txt")"
ok "the run's peaks.conf: the user's lines, then --set's; PEAKBENCH_CLOUD=...,m5.large,--set"
grep -q 'Sequential read.*published burst of m5.large' "$out/report.md" || fail "report.md names no published burst of m5.large"
grep -q 'of the published burst; [0-9.]*% of the baseline (81.25 MB/s)' "$out/report.md" ||
	fail "report.md gives no efficiency against both the burst and the baseline"
ok "the summary holds disk against m5.large's burst and baseline"
