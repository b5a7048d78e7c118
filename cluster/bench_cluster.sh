#!/usr/bin/env bash
# The coordinator's measurement for docs/benchmarks/cluster.md (never run by the tests):
# K network namespaces on a bridge (tests/cluster/lib.sh) as the nodes.
#   1. one pair, serial schedule, vs netbench client/server between the same two
#      namespaces in the same run, with iperf3 and sockperf beside (3 rounds, interleaved)
#   2. the wall time of a 4-node net_matrix + node_sweep at --mode quick (cluster_run.sh)
#   3. the time of net_matrix (shift and serial, quick sizes) for 2, 3, 4, 6 namespaces
#   4. fabric: MPI over 2 namespaces against hpcc across the same two (b_eff ping-pong
#      and rings, HPL against the sum of the nodes' peaks, --mode quick, one OpenBLAS
#      thread per node), clusterbench --test mpi_p2p where built, the transport named,
#      and the report's MPI part (3 rounds)
# usage (root): cluster/bench_cluster.sh BUILD_DIR OUT_DIR [PARTS]
#   PARTS: a comma list of pair, plan, grow, fabric (default pair,plan,grow)
# Prints a summary; raw files stay in OUT_DIR.
BUILD=$(cd "${1:?usage: bench_cluster.sh BUILD_DIR OUT_DIR}" && pwd)
RES=${2:?usage: bench_cluster.sh BUILD_DIR OUT_DIR}
REPO=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$RES"
RES=$(cd "$RES" && pwd)
PARTS=",${3:-pair,plan,grow},"
part() { [[ $PARTS == *",$1,"* ]]; }
set -- "$BUILD/cluster/clusterbench"
# shellcheck source=tests/cluster/lib.sh
. "$REPO/tests/cluster/lib.sh"
NB=$BUILD/network/netbench
D=5 # seconds per throughput repetition, as docs/benchmarks/network.md's rounds

# Tear the namespaces down and start over with a fresh scratch folder.
reset_cluster() {
	cleanup
	NODES=0
	tmp=$(mktemp -d)
}

mpi() { # np args...
	local np=$1
	shift
	# shellcheck disable=SC2086
	mpirun --bind-to none $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$np" --map-by node "$CB" --names "$HOSTFILE" "$@"
}

# --- 1. one pair against netbench, iperf3, sockperf ---
if part pair; then
cluster_up 2
A=$(ns_of_node 1) B=$(ns_of_node 2)
ip netns exec "$B" "$NB" server --bind "$NET.2" --port 5311 2>/dev/null &
nbs=$!
have_iperf=0 have_sockperf=0
if command -v iperf3 >/dev/null; then
	ip netns exec "$B" iperf3 -s -B "$NET.2" -p 5211 >/dev/null 2>&1 &
	have_iperf=1
fi
if command -v sockperf >/dev/null; then
	ip netns exec "$B" sockperf sr --tcp -i "$NET.2" -p 11311 >/dev/null 2>&1 &
	have_sockperf=1
fi
sleep 1
for r in 1 2 3; do
	# clusterbench's serial schedule measures both directions; A -> B is the comparable row.
	mpi 2 --schedule serial --min-time "$D" --reps 1 --latency-duration "$D" \
		--outlier-bw 0 --outlier-lat 1000 --format json --output "$RES/pair-r$r.json" 2>"$RES/pair-r$r.err"
	ip netns exec "$A" "$NB" client --host "$NET.2" --port 5311 --test tcp_throughput \
		--buffer 128KiB --time "$D" --reps 1 --format csv --quiet >"$RES/netbench-tcp-r$r.csv"
	ip netns exec "$A" "$NB" client --host "$NET.2" --port 5311 --test tcp_latency \
		--msg-size 64B --time "$D" --reps 1 --warmup 100 --format csv --quiet >"$RES/netbench-lat-r$r.csv"
	[ "$have_iperf" = 0 ] || ip netns exec "$A" iperf3 -c "$NET.2" -p 5211 -l 128K -t "$D" -J >"$RES/iperf3-r$r.json"
	[ "$have_sockperf" = 0 ] || ip netns exec "$A" sockperf pp --tcp -i "$NET.2" -p 11311 -m 64 -t "$D" >"$RES/sockperf-r$r.txt" 2>&1
done
kill "$nbs" 2>/dev/null
python3 - "$RES" "$NET.1" "$NET.2" <<'PY'
import csv, glob, json, os, re, statistics as st, sys
res, a, b = sys.argv[1:4]
def cb(field, metric):
    out = []
    for f in sorted(glob.glob(os.path.join(res, "pair-r*.json"))):
        for r in json.load(open(f))["results"]:
            if r["host"] == a and r["peer"] == b and r["metric"] == metric:
                out.append(r[field])
    return out
def nb(pattern, metric, field):
    out = []
    for f in sorted(glob.glob(os.path.join(res, pattern))):
        for r in csv.DictReader(open(f)):
            if r["metric"] == metric and r["variant"].startswith("tcp") and r[field]:
                out.append(float(r[field]))
                break
    return out
rows = [("clusterbench TCP Gbit/s", cb("median", "throughput")),
        ("netbench TCP Gbit/s", nb("netbench-tcp-r*.csv", "throughput", "median")),
        ("clusterbench RTT p50 us", cb("p50", "latency")),
        ("netbench RTT p50 us", nb("netbench-lat-r*.csv", "latency", "p50"))]
ip = []
for f in sorted(glob.glob(os.path.join(res, "iperf3-r*.json"))):
    try:
        ip.append(json.load(open(f))["end"]["sum_received"]["bits_per_second"] / 1e9)
    except (ValueError, KeyError):
        pass
rows.append(("iperf3 TCP Gbit/s (receiver)", ip))
sp = []
for f in sorted(glob.glob(os.path.join(res, "sockperf-r*.txt"))):
    m = re.search(r"percentile 50\.000 =\s+([\d.]+)", open(f).read())
    if m:
        sp.append(2 * float(m.group(1)))  # sockperf prints RTT/2
rows.append(("sockperf RTT p50 us (2 x its RTT/2)", sp))
for name, v in rows:
    print(f"{name:40s} " + " ".join(f"{x:.4g}" for x in v) + (f"   median {st.median(v):.4g}" if v else "   -"))
PY
reset_cluster
fi

# --- 2. 4-node quick plan wall time ---
if part plan; then
cluster_up 4
mkdir -p "$RES/plan4" "$RES/plan4-disk"
t0=$(date +%s.%N)
bash "$REPO/scripts/cluster_run.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" --mode quick \
	--build-dir "$BUILD" --out "$RES/plan4" --dir "$RES/plan4-disk" --no-hpcc
t1=$(date +%s.%N)
echo "4-node net_matrix (shift) + node_sweep at --mode quick: $(echo "$t1 - $t0" | bc) s"
reset_cluster
fi

# --- 4. MPI over the fabric against hpcc (b_eff, HPL) across the same nodes ---
if part fabric; then
cluster_up 2
# ours and hpcc alternate (odd rounds ours first), as the single-node paired rounds do
ours_p2p() {
	if "$CB" --help 2>/dev/null | grep -q mpi_p2p; then
		mpi 2 --test mpi_p2p --format json --output "$d/raw/cluster-mpi_p2p.json" 2>"$d/p2p.err"
	fi
}
hpcc_side() {
	# the nodes' peaks once (peakinfo), reused by the later rounds
	local nodes=()
	[ "$r" -eq 1 ] || nodes=(--nodes "$RES/fabric-r1/raw/cluster-nodes.json")
	bash "$REPO/scripts/cluster_hpcc.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" --mode quick \
		--out "$d/raw" --build-dir "$BUILD" --threads 1 "${nodes[@]}" 2>"$d/hpcc.err"
}
for r in 1 2 3; do
	d="$RES/fabric-r$r"
	mkdir -p "$d/raw"
	if [ $((r % 2)) -eq 1 ]; then
		ours_p2p
		hpcc_side
	else
		hpcc_side
		ours_p2p
	fi
	PYTHONPATH="$REPO/scripts" python3 -m peakresults.report.report_cluster "$d" >"$d/section.md"
	echo "--- round $r ($d/section.md)"
	grep -E '^(Transport|\| (latency|bw) \||HPL across)' "$d/section.md"
done
# per round: ours / hpcc's b_eff (latency at 8 B, bandwidth at 2 MiB vs its 2,000,000 B)
PYTHONPATH="$REPO/scripts" python3 - "$RES" <<'PY'
import glob, json, os, statistics as st, sys
from peakresults.report import report_cluster_mpi as m
for test, size, field in (("mpi_p2p_latency", 8, "p50"), ("mpi_p2p_bw", 2097152, "median")):
    ratios = []
    for d in sorted(glob.glob(os.path.join(sys.argv[1], "fabric-r*"))):
        _, ours = m.load(d, "mpi_p2p")
        refs, _ = m.references(d)
        o = m.by_size(ours, test, field, st.median).get(size)
        t = next((r["mean"] for r in refs if r.get("tool") == "hpcc" and r["test"] == test), None)
        if o and t:
            ratios.append(o / t)
    print(f"{test} {size} B ours/hpcc b_eff per round: " + " ".join(f"{x:.3g}" for x in ratios) +
          (f"   median {st.median(ratios):.3g}" if ratios else "   - (no mpi_p2p rows or no hpcc)"))
PY
reset_cluster
fi

# --- 3. growth with N ---
part grow || exit 0
for n in 2 3 4 6; do
	cluster_up "$n"
	for s in shift serial; do
		t0=$(date +%s.%N)
		mpi "$n" --schedule "$s" --min-time 0.5 --reps 3 --latency-duration 0.3 \
			--format json --output "$RES/grow-$s-$n.json" 2>"$RES/grow-$s-$n.err"
		t1=$(date +%s.%N)
		echo "N=$n $s: $(echo "$t1 - $t0" | bc) s"
	done
	reset_cluster
done
