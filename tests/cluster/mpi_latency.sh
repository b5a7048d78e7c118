#!/usr/bin/env bash
# mpi_p2p's 8 B latency on every pair of K namespaces against netbench's TCP round trip
# measured on the same pair in the same run (each 8 B row's tcp_half_rtt_us and
# tcp_min_half_rtt_us): over MPI's TCP transport (btl self,tcp: lib.sh) MPI's half round
# trip is the same kernel's path, so its p50 may not fall under CLUSTER_MPI_BELOW_TCP_RATIO
# (0.5) of TCP's fastest half round trip, and no row is flagged below_tcp; every node's
# transport, measured in the same run, is TCP over its veth. Also: every pair present
# once, p50 <= p99, and the file
# validates against the schema (schema_check).
# In a sanitizer build (4th argument "sanitized") the comparison means nothing and is not
# made: netbench's TCP round trip runs instrumented code while OpenMPI's library does not
# (an ASan run read TCP's fastest half round trip at 25 us against MPI's 11 us on one pair);
# the rows, the transport and the rule firing are still checked there.
# K nodes (CMake: 2, a CPU each on a 2-CPU host). Where the ranks share CPUs
# (ranks_share_cpus) clusterbench does not judge below_tcp: TCP's blocking round trips then
# wait for a CPU (3 ranks on 2 CPUs read TCP's fastest at 17-34 us, 2 ranks 10-13, MPI
# 10-25), so the comparison is made only without sharing; and the last run, all ranks on
# one CPU (taskset), checks that the rule is not judged there even at 10^6.
# usage: mpi_latency.sh CLUSTERBENCH SCHEMA_CHECK [K] [sanitized]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
CHECK=$2
K=${3:-3}
SANITIZED=${4:-}
cluster_up "$K"
# The comparison is made on up to 3 runs, and fails when every one has a pair below TCP: on
# one host the TCP probe's client and its server thread share one scheduler, and its fastest
# half round trip read 10-13 us in most runs and 20-28 us in about one in five (2 ranks, a
# CPU each, alone on this 2-vCPU VM), where a wrong transport is below in every run. Every
# other check fails at the first run.
for attempt in 1 2 3; do
# shellcheck disable=SC2086
timeout 120 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --test mpi_p2p --sizes 8,64KiB --max-iters 300 --reps 2 --window 8 \
	--latency-duration 0.2 --format json --output "$tmp/p2p.json" >"$tmp/run.log" 2>"$tmp/run.err" ||
	fail "clusterbench --test mpi_p2p exited $?"
"$CHECK" json "$tmp/p2p.json" || fail "mpi_p2p's JSON does not validate"
rc=0
python3 - "$tmp/p2p.json" "$K" "$SANITIZED" <<'PY' || rc=$?
import json, sys
d = json.load(open(sys.argv[1]))
k = int(sys.argv[2])
compare = sys.argv[3] != "sanitized"
rows = [r for r in d["results"] if r["test"] == "mpi_p2p_latency" and r["block_bytes"] == 8]
pairs = {(r["host"], r["peer"]) for r in rows}
assert len(rows) == k * (k - 1) // 2 == len(pairs), f"{len(rows)} 8 B rows for {k} nodes: {pairs}"
# The transport measured in the same run (cluster_transport.c): TCP over each node's veth.
for n in d["context"]["nodes"]:
    assert n.get("mpi.transport", "").startswith("tcp over veth"), (n["host"], n.get("mpi.transport"))
for t in ("mpi_p2p_bw", "mpi_p2p_bibw", "mpi_p2p_msgrate"):
    assert any(r["test"] == t for r in d["results"]), f"no {t} row"
shared = all("ranks_share_cpus" in r["flags"].split(";") for r in rows)
if shared:
    print("the ranks share CPUs here (ranks_share_cpus): below_tcp is not judged, MPI not compared with TCP")
    compare = False
bad = []
for r in rows:
    flags = dict(f.split("=", 1) if "=" in f else (f, "") for f in r["flags"].split(";"))
    assert "tcp_min_half_rtt_us" in flags, f'{r["host"]}-{r["peer"]}: no TCP round trip: {r["flags"]}'
    tcp = float(flags["tcp_min_half_rtt_us"])
    print(f'{r["host"]} - {r["peer"]}: MPI 8 B p50 {r["p50"]:.2f} us, p99 {r["p99"]:.2f}; TCP fastest half round trip {tcp:.2f} us (p50 {flags["tcp_half_rtt_us"]})')
    assert r["p50"] <= r["p99"], r
    if (compare and r["p50"] < 0.5 * tcp) or "below_tcp" in flags:
        bad.append(f'{r["host"]}-{r["peer"]}: {r["p50"]:.2f} us against TCP {tcp:.2f} us ({r["flags"]})')
if bad:
    print("; ".join(bad))
    sys.exit(3)
PY
[ "$rc" = 0 ] && break
[ "$rc" = 3 ] || fail "the rows of mpi_p2p"
[ "$attempt" = 3 ] && fail "latency against TCP: a pair below it in 3 runs"
echo "run $attempt: a pair below TCP; measured again"
done
# The rule can fire: with the hidden --below-tcp-ratio at 10^6 every pair is "below" (even
# one whose MPI round trips waited for a scheduler tick on a loaded host), unless the ranks
# share CPUs (a 1-CPU host): then the run below shows it not judged.
ncpu=$(python3 -c "import os; print(len(os.sched_getaffinity(0)))")
[ "$ncpu" -ge "$K" ] || echo "the rule's firing not checked: $K ranks on $ncpu CPU(s) share them"
# shellcheck disable=SC2086
[ "$ncpu" -lt "$K" ] || timeout 60 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --test mpi_p2p --pairs 0-1 --sizes 8 --max-iters 100 --reps 1 \
	--latency-duration 0.1 --below-tcp-ratio 1000000 --format json --output "$tmp/fire.json" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench --below-tcp-ratio 1000000 exited $?"
[ "$ncpu" -lt "$K" ] || python3 - "$tmp/fire.json" <<'PY' || fail "below_tcp never fires"
import json, sys
r = next(r for r in json.load(open(sys.argv[1]))["results"] if r["test"] == "mpi_p2p_latency")
assert "below_tcp" in r["flags"].split(";"), r["flags"]
PY
# All ranks on one CPU: every row ranks_share_cpus, and below_tcp not judged even at 10^6.
one=$(python3 -c "import os; print(min(os.sched_getaffinity(0)))")
# shellcheck disable=SC2086
timeout 60 taskset -c "$one" mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --test mpi_p2p --pairs 0-1 --sizes 8 --max-iters 100 --reps 1 \
	--latency-duration 0.1 --below-tcp-ratio 1000000 --format json --output "$tmp/shared.json" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench on one CPU exited $?"
python3 - "$tmp/shared.json" <<'PY' || fail "below_tcp judged where the ranks share CPUs"
import json, sys
r = next(r for r in json.load(open(sys.argv[1]))["results"] if r["test"] == "mpi_p2p_latency")
flags = r["flags"].split(";")
assert "ranks_share_cpus" in flags and "below_tcp" not in flags, r["flags"]
PY
if [ "$SANITIZED" = sanitized ]; then
	echo "PASS: every pair's 8 B MPI latency beside its TCP round trip (not compared: a sanitizer build); the rule fires at 10^6"
else
	echo "PASS: every pair's 8 B MPI latency beside its TCP round trip, none below it; the rule fires at 10^6"
fi
