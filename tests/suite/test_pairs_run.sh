#!/bin/sh
# Paired rounds end to end at tiny sizes (run_all.sh --tiny --only network): stub iperf3
# and sockperf on PATH answer with recorded outputs (tests/fixtures/baseline), netbench
# runs for real; every step ends ok, raw/pairs/<job>/ holds job.json, the round's files,
# and pairs.py reads one pair per figure with the tool's recorded figure.
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
cat >"$out/bin/iperf3" <<STUB
#!/bin/sh
case " \$* " in *" -s "*) echo "Server listening"; echo \$\$ >>"$out/servers"; exec sleep 60 ;; esac
case " \$* " in *" -u "*) cat "$fx/iperf3_udp_P1.json" ;; *) cat "$fx/iperf3_tcp_P1.json" ;; esac
STUB
cat >"$out/bin/sockperf" <<STUB
#!/bin/sh
[ "\$1" = server ] && { echo \$\$ >>"$out/servers"; exec sleep 60; }
case " \$* " in *" --tcp "*) cat "$fx/sockperf_tcp_rtt.txt" ;; *) cat "$fx/sockperf_udp_rtt.txt" ;; esac
STUB
chmod +x "$out/bin/iperf3" "$out/bin/sockperf"

PATH="$out/bin:$PATH" PEAK_DEPS=required "$repo/run_all.sh" --tiny --reps 1 --min-time 0.01 --only network \
	--no-build --build-dir "$build" --no-charts --out "$out/r" 2>"$out/progress"
rc=$?
r="$out/r"
[ -s "$r/status.tsv" ] || fail "no status.tsv: $(cat "$out/progress")"
if awk -F'\t' '$3 != "ok" { bad = 1 } END { exit !bad }' "$r/status.tsv"; then
	fail "a step did not end ok: $(awk -F'\t' '$3 != "ok"' "$r/status.tsv")"
fi
[ "$rc" -eq 0 ] || fail "run_all.sh exited $rc"
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
[ -s "$out/servers" ] || fail "no tool server was started"
while read -r pid; do
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		fail "a tool server (pid $pid) outlived its adapter"
	fi
done <"$out/servers"
ok "no tool server left running"

PYTHONPATH="$repo/scripts" python3 - "$r" <<'PY' || fail "pairs.py on the run"
import sys
from peakresults import pairs
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
