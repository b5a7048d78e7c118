#!/bin/sh
# Issue 42 part 3: a paired side that makes no progress is stopped at its stated limit
# (PEAKBENCH_STALL_S here, plan_options.stall_limit in a run), recorded failed with exit 1
# and a line naming where it stood (round, side, the pair so far); the pair's remaining
# steps are skipped, the rest of the run goes on, run_all.sh ends 1, and the stub's
# process is gone. While the side hangs, the progress line moves (a line a tick: stderr is
# not a terminal here) with the step's own progress.
# The run is --only network with no reference tool but the stub sockperf on its PATH: the
# unpaired sweep, then the sockperf pair alone (the iperf3 pairs, when installed, added 15 s
# and proved nothing here); the limit is 5 s, above a netbench side's ~1.5 s, and the
# progress ticks every 2 s (PEAKBENCH_TICK_S), so two ticks come before it (issue 42).
set -u
repo=$1 build=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
[ -x "$build/network/netbench" ] || { echo "netbench not built: skipped"; exit 77; }
fx="$repo/tests/fixtures/baseline"
mkdir "$out/bin"
# a sockperf whose server starts and whose client answers the unpaired sweep's two runs
# (--tiny runs it before the pairs) from recorded outputs, then never again
cat >"$out/bin/sockperf" <<STUB
#!/bin/sh
[ "\$1" = server ] && exec sleep 120
echo \$\$ >>"$out/calls"
if [ "\$(wc -l <"$out/calls")" -le 2 ]; then
	case " \$* " in *" --tcp "*) exec cat "$fx/sockperf_tcp_rtt.txt" ;; *) exec cat "$fx/sockperf_udp_rtt.txt" ;; esac
fi
echo \$\$ >>"$out/hung"
exec sleep 120
STUB
chmod +x "$out/bin/sockperf"
path=$("$repo/scripts/path_without_tools.sh" "$out/path") || fail "path_without_tools.sh exited $?"

given_caches_and_cloud
PATH="$out/bin:$path" PEAK_DEPS=required PEAKBENCH_STALL_S=5 PEAKBENCH_TICK_S=2 "$repo/run_all.sh" --tiny --reps 1 --min-time 0.01 --only network \
	--no-build --build-dir "$build" --no-charts --out "$out/r" 2>"$out/progress"
rc=$?
r="$out/r"
[ "$rc" -eq 1 ] || fail "run_all.sh exited $rc, not 1: $(tail -n 5 "$out/progress")"
line=$(awk -F'\t' '$1 == "sockperf r1 sockperf" && $3 == "failed"' "$r/status.tsv")
[ -n "$line" ] || fail "the hung side is not recorded failed: $(cat "$r/status.tsv")"
case $line in
*"exit 1: stalled: no result for "*" s (its limit 5 s, estimated "*" s): stopped in round 1 of at most 1, sockperf side; the pair so far: "*) ;;
*) fail "the failed line does not say where the pair stood: $line" ;;
esac
grep -q "run_all.sh: pair: sockperf r1 sockperf: no result for" "$out/progress" || fail "no stall line on stderr"
ok "a hung side is stopped at its limit, failed with exit 1, saying where the pair stood"
# the rest of the run went on: the steps after the pair (placement, finish) ran
for step in placement finish; do
	awk -F'\t' -v s="$step" '$1 == s && $3 == "ok" { f = 1 } END { exit !f }' "$r/status.tsv" ||
		fail "the run did not go on to $step: $(cat "$r/status.tsv")"
done
ok "the run went on"
# the progress line moved while the side hung: the step's time and its own progress
grep -Eq '^\[[0-9]+/[0-9]+\] pair: sockperf r1 sockperf +elapsed [0-9hms]+, ETA [0-9hms]+; step [0-9ms]+ of ~[0-9ms]+: round 1 of at most 1, sockperf side$' \
	"$out/progress" || fail "no progress line during the hung side: $(grep sockperf "$out/progress")"
ok "the progress line moves while a step runs"
[ -s "$out/hung" ] || fail "the stub's client never ran"
while read -r pid; do
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "the hung client (pid $pid) outlived its step"
	fi
done <"$out/hung"
ok "nothing of the hung side is left running"
