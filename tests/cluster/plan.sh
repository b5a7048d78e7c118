#!/usr/bin/env bash
# The cluster plan end to end at tiny sizes: scripts/cluster_run.sh on K namespaces writes
# cluster-net_matrix.json (K(K-1) pairs, host and peer named as in the hostfile) and
# cluster-node_sweep.json (a row per node and point, and the across-node row), and
# report_cluster.section renders the matrix, the per-node table and the two sentences; both
# files validate with schema_check (host/peer, node contexts).
# usage: plan.sh CLUSTERBENCH REPO [K] [SCHEMA_CHECK]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
REPO=$2
K=${3:-3}
cluster_up "$K"
out=$tmp/out
mkdir -p "$out/raw" "$tmp/disk"
# --no-hpcc: hpcc across the nodes is the cluster_hpcc test's (hpcc.sh). The ranks yield
# when idle: mpi_coll's K spinning ranks on a 2-CPU host waited a scheduler tick a call.
bash "$REPO/scripts/cluster_run.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS --mca mpi_yield_when_idle 1" \
	--mode tiny --no-hpcc \
	--build-dir "$(dirname "$(dirname "$CB")")" --out "$out/raw" --dir "$tmp/disk" 2>"$tmp/run.err" ||
	fail "cluster_run.sh exited $?"
if [ -n "${4:-}" ]; then
	for t in net_matrix node_sweep mpi_p2p mpi_coll; do
		"$4" json "$out/raw/cluster-$t.json" || fail "cluster-$t.json does not validate"
	done
fi
PYTHONPATH="$REPO/scripts" python3 - "$out" "$K" "$NET" <<'PY' || fail "results or report"
import json, os, sys
from peakresults.report import report_cluster
out, k, net = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hosts = {f"{net}.{i}" for i in range(1, k + 1)}
m = json.load(open(os.path.join(out, "raw", "cluster-net_matrix.json")))
pairs = {(r["host"], r["peer"]) for r in m["results"] if r["metric"] == "throughput"}
assert pairs == {(a, b) for a in hosts for b in hosts if a != b}, pairs
assert len(m["context"]["nodes"]) == k
s = json.load(open(os.path.join(out, "raw", "cluster-node_sweep.json")))
per_node = [r for r in s["results"] if r["host"] in hosts]
measured = [r for r in per_node if r["median"] is not None]
assert measured, "node_sweep measured nothing"
assert {r["host"] for r in measured} == hosts, {r["host"] for r in measured}
assert any(r["host"] == "all" for r in s["results"]), "no across-node row"
p2p = json.load(open(os.path.join(out, "raw", "cluster-mpi_p2p.json")))
assert {(r["host"], r["peer"]) for r in p2p["results"] if r["test"] == "mpi_p2p_bw"} == \
    {(a, b) for a in hosts for b in hosts if a < b}, "mpi_p2p's pairs"
coll = json.load(open(os.path.join(out, "raw", "cluster-mpi_coll.json")))
assert {r["test"] for r in coll["results"]} >= {"mpi_coll_barrier", "mpi_coll_allreduce"}, "mpi_coll's rows"
md = "\n".join(report_cluster.section(out, os.path.join(out, "charts")))
for want in ("## Cluster", "Slowest link:", "Slowest node:", "| point | unit |", "sender \\ receiver"):
    assert want in md, f"report lacks {want!r}"
print(md)
PY
echo "PASS: the cluster plan's files and report section"
