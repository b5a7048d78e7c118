#!/bin/sh
# Paired rounds end to end at tiny sizes, read from the shared run (tests/suite/tiny_run.sh,
# ctest fixture suite_tiny): stub iperf3 and sockperf on its PATH answer with recorded outputs
# (tests/fixtures/baseline), netbench runs for real; the network steps, both tools' steps
# and every round end ok, raw/pairs/<job>/ holds job.json, the round's files, and pairs.py
# reads one pair per figure with the tool's recorded figure.
# Usage: test_pairs_run.sh REPO TINY_DIR
set -u
repo=$1 tiny=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
r="$tiny/r"
[ -s "$r/status.tsv" ] || fail "no status.tsv in the shared run $tiny (suite_tiny_run)"
awk -F'\t' '$1 == "netbench" && $3 == "not_built" { f = 1 } END { exit !f }' "$r/status.tsv" &&
	{ echo "netbench not built: skipped"; exit 77; }
# Every step of the network's part: peakinfo, netbench, both tools' baselines, each pair's
# rounds, placement and finish.
steps=$(awk -F'\t' '$1 ~ /^(peakinfo|netbench|iperf3|sockperf|placement|finish)$/ || $2 == "pair"' "$r/status.tsv")
[ "$(printf '%s\n' "$steps" | grep -c .)" -ge 15 ] || fail "the network's steps are not all there: $steps"
if printf '%s\n' "$steps" | awk -F'\t' '$3 != "ok" { bad = 1 } END { exit !bad }'; then
	fail "a step did not end ok: $(printf '%s\n' "$steps" | awk -F'\t' '$3 != "ok"')"
fi
[ "$(cat "$tiny/rc")" -eq 0 ] || fail "run_all.sh exited $(cat "$tiny/rc")"
for f in iperf3-tcp/job.json iperf3-tcp/r1-ours-tcp.json iperf3-tcp/r1-tool.json iperf3-udp/job.json \
	iperf3-udp/r1-ours-udp.json iperf3-udp/r1-best-udp.json iperf3-udp/r1-tool.json sockperf/job.json \
	sockperf/r1-ours.json sockperf/r1-tool.json; do
	[ -s "$r/raw/pairs/$f" ] || fail "no raw/pairs/$f"
done
grep -q '^pairs/sockperf/r1-tool: python3 scripts/peakresults/adapters sockperf ' "$r/commands.txt" || fail "commands.txt lacks the paired tool run"
ok "the paired steps ran and left their files"
# Each side of a round carries the VM placement fingerprint taken before and after it
# (peakinfo --placement): pairs of CPUs with their round trips, or "none" on one CPU.
fp='([0-9]+-[0-9]+:[0-9]+/[0-9]+( |$))+|none$'
for f in iperf3-tcp/r1-ours-tcp iperf3-tcp/r1-tool sockperf/r1-ours; do
	p="$r/raw/pairs/$f.placement"
	if [ "$(grep -cE "^before ($fp)" "$p")" != 1 ] || [ "$(grep -cE "^after ($fp)" "$p")" != 1 ]; then
		fail "$f.placement is not one fingerprint before and one after: $(cat "$p" 2>&1)"
	fi
done
ok "each side of a round has its placement fingerprints"
# Every tool server an adapter started is gone when run_all ends (the stubs wrote
# their PIDs; exec keeps the PID).
[ -s "$tiny/servers" ] || fail "no tool server was started"
while read -r pid; do
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "a tool server (pid $pid) outlived its adapter"
	fi
done <"$tiny/servers"
ok "no tool server left running"

PYTHONPATH="$repo/scripts" python3 - "$r" <<'PY' || fail "pairs.py on the run"
import sys
from peakresults.pairs import pairs
got = {(p["tool"], p["test"], p["kind"]): p for p in pairs.load_pairs(sys.argv[1])}
assert set(got) >= {("iperf3", "tcp_throughput", "like_for_like"), ("iperf3", "udp_throughput", "like_for_like"),
                    ("iperf3", "udp_throughput", "best"), ("sockperf", "tcp_latency", "like_for_like")}, got.keys()
tcp = got[("iperf3", "tcp_throughput", "like_for_like")]
assert tcp["n_pairs"] == 1 and abs(tcp["tool_median"] - 10.62593457) < 1e-6, tcp
assert tcp["ours_median"] > 0 and tcp["ratio_median"] == tcp["ours_median"] / tcp["tool_median"], tcp
assert tcp["rounds"][0]["placement"] in ("same", "moved"), tcp  # both sides fingerprinted
sp = got[("sockperf", "tcp_latency", "like_for_like")]
assert abs(sp["tool_median"] - 45.219) < 1e-9 and sp["n_pairs"] == 1, sp
PY
[ -s "$r/pairs.csv" ] || fail "finish wrote no pairs.csv"
ok "pairs.py: one pair per figure, the tool's recorded figure"
