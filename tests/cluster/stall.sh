#!/usr/bin/env bash
# A node that stops answering (SIGSTOP on its rank in round 2 of the shift matrix): the
# sender to it gives up after --timeout, the job ends with exit 1 and a clusterbench line
# naming the pair and the round, round 1 stays on disk, and nothing keeps running.
# The first clusterbench line is the cause: OpenMPI sends SIGCONT before it kills, so the
# stopped rank may wake and add its own (cluster_run.sh keeps only the first).
# --timeout 4: a healthy pair beside other tests on 2 CPUs (this test holds only the lock
# cluster_nodes) answers well within it.
# usage: stall.sh CLUSTERBENCH [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
K=${2:-3}
VICTIM=2
cluster_up "$K"
json=$tmp/m.json
# shellcheck disable=SC2086
timeout 90 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --format json --output "$json" --min-time 0.5 --reps 2 --latency-duration 0.2 \
	--timeout 4 >"$tmp/run.log" 2>"$tmp/run.err" &
job=$!
for _ in $(seq 1 300); do
	grep -q 'round=1' "$json" 2>/dev/null && break
	sleep 0.1
done
grep -q 'round=1' "$json" 2>/dev/null || fail "round 1 never reached the file"
stopped=""
for p in $(ip netns pids "$(ns_of_node "$VICTIM")"); do
	if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = clusterbench ]; then
		kill -STOP "$p" && stopped=$p
	fi
done
[ -n "$stopped" ] || fail "no clusterbench rank in node $VICTIM's namespace"
rc=0
wait "$job" || rc=$?
kill -9 "$stopped" 2>/dev/null
[ "$rc" = 1 ] || fail "mpirun exited $rc, want 1"
line=$(grep -m1 '^clusterbench: ' "$tmp/run.err") || fail "no clusterbench line"
case $line in
*"round "*"-> $NET.$VICTIM failed"*) ;;
*) fail "the line does not name the round and the stalled host: $line" ;;
esac
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert any('round=1;' in x['flags']+';' for x in r)" "$json" ||
	fail "round 1 not on disk"
echo "PASS: $line"
