#!/usr/bin/env bash
# A link delayed by netem (1 ms each way on node 2's link) must show in mpi_p2p's 8 B
# latency (half the round trip) as that delay within 10%, on top of the base measured on
# the same pair just before. Kernels built without netem (# CONFIG_NET_SCH_NETEM is not set)
# skip, saying so.
# usage: mpi_netem.sh CLUSTERBENCH
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
if [ -r /proc/config.gz ] && zcat /proc/config.gz 2>/dev/null | grep -q '^# CONFIG_NET_SCH_NETEM is not set'; then
	skip "this kernel has no netem (/proc/config.gz: CONFIG_NET_SCH_NETEM is not set)"
fi
cluster_up 2
run_p2p() { # output
	# shellcheck disable=SC2086
	timeout 90 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np 2 --map-by node "$CB" \
		--names "$HOSTFILE" --test mpi_p2p --sizes 8 --max-iters 200 --reps 1 --window 4 \
		--latency-duration 0.1 --format json --output "$1" >"$tmp/run.log" 2>"$tmp/run.err" ||
		fail "clusterbench --test mpi_p2p exited $?"
}
run_p2p "$tmp/base.json"
ns=$(ns_of_node 2)
tc -n "$ns" qdisc add dev "pbc$$c2" root netem delay 1ms 2>"$tmp/tc.err" ||
	skip "tc netem fails here: $(head -n 1 "$tmp/tc.err")"
tc qdisc add dev "pbc$$h2" root netem delay 1ms || fail "tc netem on node 2's bridge port"
run_p2p "$tmp/delayed.json"
python3 - "$tmp/base.json" "$tmp/delayed.json" <<'PY' || fail "the delay is not what MPI shows"
import json, sys
def p50(path):
    return next(r["p50"] for r in json.load(open(path))["results"]
                if r["test"] == "mpi_p2p_latency" and r["block_bytes"] == 8)
base, delayed = p50(sys.argv[1]), p50(sys.argv[2])
added = delayed - base  # half the round trip: one 1 ms delay
print(f"base {base:.1f} us, delayed {delayed:.1f} us, added {added:.1f} us")
assert abs(added - 1000.0) <= 100.0, f"added {added:.1f} us, want 1000 +- 10%"
PY
echo "PASS: netem's 1 ms shows in MPI's half round trip"
