#!/usr/bin/env bash
# A rank killed mid-run (SIGKILL, in round 2 of the shift matrix) through scripts/cluster_run.sh:
# the round-1 rows stay on disk in valid JSON, the run ends with exit 1 and one line
# naming the dead host and the round, and no rank or daemon is left running.
# usage: rank_dies.sh CLUSTERBENCH REPO [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
REPO=$2
K=${3:-4}
VICTIM=3
cluster_up "$K"
out=$tmp/out
mkdir -p "$out"
bash "$REPO/scripts/cluster_run.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" \
	--mode quick --build-dir "$(dirname "$(dirname "$CB")")" --out "$out" 2>"$tmp/run.err" &
runner=$!
json=$out/cluster-net_matrix.json
# Wait (bounded) until round 1's rows are on disk, then kill the victim's rank.
for _ in $(seq 1 300); do
	if [ -f "$json" ] && grep -q '"round=1\|round=1[;"]' "$json" 2>/dev/null; then
		break
	fi
	sleep 0.1
done
grep -q 'round=1' "$json" 2>/dev/null || fail "round 1 never reached the file"
victim_pids=$(ip netns pids "$(ns_of_node "$VICTIM")")
killed=0
for p in $victim_pids; do
	if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = clusterbench ]; then
		kill -9 "$p" && killed=1
	fi
done
[ "$killed" = 1 ] || fail "no clusterbench rank found in node $VICTIM's namespace"
rc=0
# tail looks at the PID every -s seconds (1 by default: up to a second waited for nothing).
timeout 60 tail --pid="$runner" -s 0.1 -f /dev/null || fail "the run did not end within 60 s"
wait "$runner" || rc=$?
[ "$rc" = 1 ] || fail "cluster_run.sh exited $rc, want 1"
[ "$(wc -l <"$tmp/run.err")" = 1 ] || fail "want one line on stderr, got: $(cat "$tmp/run.err")"
grep -q "$NET.$VICTIM" "$tmp/run.err" || fail "the line does not name host $NET.$VICTIM: $(cat "$tmp/run.err")"
grep -q "round" "$tmp/run.err" || fail "the line does not name the round: $(cat "$tmp/run.err")"
python3 - "$json" "$K" <<'PY' || fail "the completed round is not on disk"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
k = int(sys.argv[2])
r1 = [r for r in rows if "round=1;" in r["flags"] + ";" and r["metric"] == "throughput"]
assert len(r1) == k, f"{len(r1)} round-1 throughput rows, want {k}"
PY
# No rank or daemon left in any namespace a second after the run ended (looked at every
# 0.1 s, done once they are all gone).
left=""
for _ in $(seq 1 10); do
	left=""
	for i in $(seq 1 "$K"); do
		for p in $(ip netns pids "$(ns_of_node "$i")"); do
			left+=" process $p ($(cat "/proc/$p/comm" 2>/dev/null)) in node $i"
		done
	done
	[ -n "$left" ] || break
	sleep 0.1
done
[ -z "$left" ] || fail "still running:$left"
echo "PASS: $(cat "$tmp/run.err")"
