#!/usr/bin/env bash
# A hostfile naming a host nobody can reach: cluster_run.sh ends before round 1 with one
# line naming that host, exit 1, and no rank started anywhere.
# usage: unreachable.sh CLUSTERBENCH REPO
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
REPO=$2
cluster_up 2
echo "$NET.99 slots=1" >>"$HOSTFILE" # no namespace behind it: the agent cannot enter it
rc=0
timeout 60 bash "$REPO/scripts/cluster_run.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" \
	--mode tiny --build-dir "$(dirname "$(dirname "$CB")")" --out "$tmp/out" 2>"$tmp/run.err" || rc=$?
[ "$rc" = 1 ] || fail "cluster_run.sh exited $rc, want 1"
[ "$(wc -l <"$tmp/run.err")" = 1 ] || fail "want one line: $(cat "$tmp/run.err")"
grep -q "host $NET.99 cannot be reached" "$tmp/run.err" || fail "the line does not name $NET.99"
for i in 1 2; do
	[ -z "$(ip netns pids "$(ns_of_node "$i")")" ] || fail "something runs in node $i"
done
echo "PASS: $(cat "$tmp/run.err")"
