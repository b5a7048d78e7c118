#!/usr/bin/env bash
# mpi_coll on K namespaces at tiny sizes: a row per collective and size (allreduce from
# 4 B), one barrier row (block 0), host "all", each iteration the maximum over the ranks
# (timing=max_over_ranks), p50 <= p99, the ranks counted; the file validates. The ranks
# yield when idle (mpi_yield_when_idle): K spinning ranks on a 2-CPU host made every
# collective wait for a scheduler tick (89 s for this test; no figure is judged here).
# usage: mpi_coll.sh CLUSTERBENCH SCHEMA_CHECK [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
CHECK=$2
K=${3:-3}
cluster_up "$K"
# shellcheck disable=SC2086
timeout 120 mpirun $MPIRUN_ARGS --mca mpi_yield_when_idle 1 --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --test mpi_coll --sizes 1,8,64KiB --max-iters 50 --reps 2 \
	--format json --output "$tmp/coll.json" >"$tmp/run.log" 2>"$tmp/run.err" ||
	fail "clusterbench --test mpi_coll exited $?"
"$CHECK" json "$tmp/coll.json" || fail "mpi_coll's JSON does not validate"
python3 - "$tmp/coll.json" "$K" <<'PY' || fail "collective rows"
import json, sys
d = json.load(open(sys.argv[1]))
k = int(sys.argv[2])
got = {(r["test"], r["block_bytes"]) for r in d["results"]}
want = {("mpi_coll_barrier", 0)}
for op in ("alltoall", "bcast", "allgather"):
    want |= {(f"mpi_coll_{op}", b) for b in (1, 8, 65536)}
want |= {("mpi_coll_allreduce", b) for b in (8, 65536)}
assert got == want, f"rows {sorted(got ^ want)} differ"
for r in d["results"]:
    flags = r["flags"].split(";")
    assert r["host"] == "all" and r["unit"] == "us" and r["metric"] == "latency", r
    assert "timing=max_over_ranks" in flags and f"ranks={k}" in flags, flags
    assert 0 < r["p50"] <= r["p99"], r
    assert r["n"] >= 2 and r["samples"], r
assert d["context"]["cluster.test"] == "mpi_coll"
PY
echo "PASS: every collective and size, the barrier beside, max over $K ranks"
