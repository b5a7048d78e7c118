#!/bin/sh
# Issue 42: `adapters pair JOB --runtimes LIST` (the measure behind each adapter's round
# length) runs the job at each length every round, each into its own folder, and prints per
# length the median ratio, its verdict, the spread and the seconds a round took; a bad
# length is one line, exit 2. A stub sockperf answers from a recorded output; netbench runs.
set -u
repo=$1 build=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
[ -x "$build/network/netbench" ] || { echo "netbench not built: skipped"; exit 77; }
mkdir "$out/bin"
cat >"$out/bin/sockperf" <<STUB
#!/bin/sh
[ "\$1" = server ] && exec sleep 60
cat "$repo/tests/fixtures/baseline/sockperf_tcp_rtt.txt"
STUB
chmod +x "$out/bin/sockperf"
# The loopback peak handed over as run_all.sh hands peakinfo's: each netbench side would
# measure it again (a second of copying on every CPU), and the ratio does not read it.
export PEAKBENCH_LOOPBACK_GBPS=100
cd "$repo" || exit 1
PATH="$out/bin:$PATH" python3 scripts/peakresults/adapters pair sockperf --tiny --rounds 2 --runtimes 1,2 \
	--build-dir "$build" --out "$out/o" >"$out/said" 2>"$out/err"
rc=$?
[ "$rc" -eq 0 ] || fail "pair --runtimes exited $rc: $(cat "$out/err")"
for x in 1 2; do
	[ -s "$out/o/raw/pairs/sockperf@$x/r2-tool.json" ] || fail "no second round at length $x"
	grep -Eq "^ +$x: median ratio [0-9.e+-]+ over 2 pairs, no interval below 3 pairs; spread [0-9.-]+; [0-9.]+ s a round \(" \
		"$out/said" || fail "no line for length $x: $(cat "$out/said")"
done
ok "one folder and one line per round length"
# not a length; a fraction of a second, which sockperf's -t does not take (ROUND_WHOLE)
for bad in 1,x 0.5; do
	PATH="$out/bin:$PATH" python3 scripts/peakresults/adapters pair sockperf --tiny --runtimes "$bad" \
		--build-dir "$build" --out "$out/bad" >/dev/null 2>"$out/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$out/err")" -ne 1 ]; then
		fail "a bad length $bad: exit $rc, $(cat "$out/err")"
	fi
	[ ! -e "$out/bad/raw" ] || fail "a bad length $bad left a run in $out/bad"
done
ok "a bad length is one line, exit 2"
