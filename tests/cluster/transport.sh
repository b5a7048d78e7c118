#!/usr/bin/env bash
# The transport named and measured on K namespace nodes (docs/cluster.md, "The transport"):
# MPI's BTL is tcp and its traffic between namespaces crosses each node's veth, so every
# node's block must say "tcp over veth <its veth>" with that interface's transmit counter
# moved by at least the probe's 4 MiB, mpi.btl must name tcp, no fallback (no RDMA
# device here); ompi_info's component list is read from the file given.
# usage: transport.sh CLUSTERBENCH [K]
# shellcheck source=tests/cluster/lib.sh
. "$(dirname "$0")/lib.sh"
K=${2:-2}
cluster_up "$K"
command -v ompi_info >/dev/null 2>&1 && ompi_info --parsable >"$tmp/ompi_info.txt" 2>/dev/null
# shellcheck disable=SC2086
timeout 120 mpirun $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$K" --map-by node "$CB" \
	--names "$HOSTFILE" --schedule serial --format json --output "$tmp/m.json" --min-time 0.05 \
	--reps 1 --latency-duration 0.05 --udp-rate 10 --ompi-info "$tmp/ompi_info.txt" \
	>"$tmp/run.log" 2>"$tmp/run.err" || fail "clusterbench exited $?"
python3 - "$tmp/m.json" "pbc$$c" "$K" <<'PY' || fail "transport check"
import json, sys
d = json.load(open(sys.argv[1]))
veth, k = sys.argv[2], int(sys.argv[3])
bad = []
ctx = d["context"]
print("run:", {key: v for key, v in ctx.items() if key.startswith("mpi.")})
if not ctx.get("mpi.transport", "").startswith("tcp over veth " + veth):
    bad.append(f"run context: transport {ctx.get('mpi.transport')!r}")
nodes = ctx["nodes"]
assert len(nodes) == k, f"{len(nodes)} node blocks, want {k}"
for i, n in enumerate(nodes, 1):
    want = f"tcp over veth {veth}{i}"
    if n.get("mpi.transport") != want:
        bad.append(f"node {i}: transport {n.get('mpi.transport')!r}, want {want!r}")
    if n.get("mpi.interface") != f"{veth}{i}":
        bad.append(f"node {i}: interface {n.get('mpi.interface')!r}")
    if not n.get("mpi.interface_bytes", 0) >= n.get("mpi.bytes_sent", 1) >= 4 << 20:
        bad.append(f"node {i}: counter moved {n.get('mpi.interface_bytes')} for {n.get('mpi.bytes_sent')} sent")
    if "tcp" not in n.get("mpi.btl", "").split(" ")[0].split(","):
        bad.append(f"node {i}: btl {n.get('mpi.btl')!r}")
    if n.get("mpi.fallback") is not False:
        bad.append(f"node {i}: fallback {n.get('mpi.fallback')!r} with no RDMA device")
if bad:
    sys.exit("; ".join(bad))
PY
echo "PASS: every node's MPI traffic named tcp over its veth, counters moved"
