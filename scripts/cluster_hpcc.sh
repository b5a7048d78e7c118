#!/usr/bin/env bash
# hpcc across the cluster's nodes, one MPI rank per node (docs/cluster.md, "hpcc and HPL
# across nodes"): peakinfo on every node first (each node's FP64 peak and memory), then
# hpcc with HPL's P x Q from the node count and N from the nodes' memory, its b_eff
# ping-pong and rings, and HPL's GFLOPS against the sum of the nodes' peaks.
#   cluster_hpcc.sh --hostfile FILE --out DIR [--mpirun "ARGS"] [--mode full|quick|tiny]
#                   [--build-dir DIR] [--threads T] [--nodes NODES.json]
# Writes DIR/cluster-nodes.json (every node's peak, memory, CPUs), DIR/cluster-hpcc.json
# (reference rows, or a skipped entry with the reason) and DIR/hpcc/ (hpccinf.txt,
# hpccoutf.txt). --threads: OpenBLAS threads per rank (default: the smallest node's CPUs).
# --nodes: an earlier run's cluster-nodes.json on the same hosts (peakinfo not run again).
# Exit 0 (hpcc absent is a skipped entry), 1 when a run failed, 2 on bad input.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOSTFILE="" MPIRUN_ARGS="" MODE=quick OUT="" BUILD_DIR="$ROOT/build" THREADS="" NODES=""

usage() {
	echo "cluster_hpcc.sh: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--hostfile | --mpirun | --mode | --out | --build-dir | --threads | --nodes)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--hostfile) HOSTFILE=$2 ;;
		--mpirun) MPIRUN_ARGS=$2 ;;
		--mode) MODE=$2 ;;
		--out) OUT=$2 ;;
		--build-dir) BUILD_DIR=$2 ;;
		--threads) THREADS=$2 ;;
		--nodes) NODES=$2 ;;
		esac
		shift 2
		;;
	*) usage "unknown option '$1'" ;;
	esac
done
{ [ -n "$HOSTFILE" ] && [ -r "$HOSTFILE" ]; } || usage "--hostfile FILE is required and readable"
[ -n "$OUT" ] || usage "--out DIR is required"
[ -z "$NODES" ] || [ -r "$NODES" ] || usage "cannot read --nodes '$NODES'"
case $MODE in full) LIMIT=7200 ;; quick) LIMIT=600 ;; tiny) LIMIT=180 ;; *) usage "--mode wants full, quick or tiny" ;; esac
case $THREADS in '' | [1-9] | [1-9][0-9] | [1-9][0-9][0-9]) ;; *) usage "--threads wants a count, got '$THREADS'" ;; esac
NP=$(grep -cvE '^[[:space:]]*(#|$)' "$HOSTFILE" || true)
[ "$NP" -ge 1 ] || usage "the hostfile names no host"
mkdir -p "$OUT/logs" "$OUT/hpcc"
OUT=$(cd "$OUT" && pwd)
py() { PYTHONPATH="$ROOT/scripts" python3 -m peakresults.adapters.hpcc.cluster "$@"; }
skip() {
	echo "cluster_hpcc.sh: $1" >&2
	py skip --reason "$1" --out "$OUT/cluster-hpcc.json"
	exit "${2:-0}"
}
PI="$BUILD_DIR/peakinfo/peakinfo"
[ -x "$PI" ] || skip "peakinfo not built under $BUILD_DIR: no node peaks" 1
command -v hpcc >/dev/null 2>&1 || skip "hpcc not installed (Debian: apt install hpcc)"

launch() { # limit, then mpirun's arguments after its one-rank-per-node ones
	local limit=$1
	shift
	# shellcheck disable=SC2086  # the user's launcher options, split as a shell would
	timeout "$limit" mpirun --bind-to none $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$NP" --map-by node "$@"
}
# Every node's own peaks (peakinfo measures its clock: a few seconds), tagged by rank.
if [ -n "$NODES" ]; then
	[ "$NODES" -ef "$OUT/cluster-nodes.json" ] || cp "$NODES" "$OUT/cluster-nodes.json"
else
	launch 300 --tag-output "$PI" --format json --quiet >"$OUT/logs/peakinfo-nodes.out" \
		2>"$OUT/logs/peakinfo-nodes.err" || skip "peakinfo failed on a node: $(tail -n 1 "$OUT/logs/peakinfo-nodes.err")" 1
	py nodes "$OUT/logs/peakinfo-nodes.out" --hostfile "$HOSTFILE" --out "$OUT/cluster-nodes.json"
fi
if [ -z "$THREADS" ]; then
	THREADS=$(python3 -c 'import json, sys
c = [n["cpus"] for n in json.load(open(sys.argv[1]))["nodes"] if n.get("cpus")]
print(int(min(c)) if c else 1)' "$OUT/cluster-nodes.json")
fi
py input "$OUT/cluster-nodes.json" --mode "$MODE" >"$OUT/hpcc/hpccinf.txt"
rm -f "$OUT/hpcc/hpccoutf.txt"
# hpcc reads hpccinf.txt and writes hpccoutf.txt on rank 0 only, in its working directory:
# every rank starts in OUT/hpcc (made where it is missing), rank 0 is the hostfile's first
# host: OUT must be on that host (cluster_run.sh started there) or on a shared filesystem.
rc=0
# shellcheck disable=SC2016  # expanded by the rank's shell
OPENBLAS_NUM_THREADS=$THREADS OMP_NUM_THREADS=1 launch "$LIMIT" -x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS \
	sh -c 'mkdir -p "$1" && cd "$1" && exec hpcc' sh "$OUT/hpcc" \
	>"$OUT/logs/hpcc.log" 2>"$OUT/logs/hpcc.err" || rc=$?
if [ "$rc" -ne 0 ] || [ ! -s "$OUT/hpcc/hpccoutf.txt" ]; then
	skip "hpcc exited $rc: $(tail -n 1 "$OUT/logs/hpcc.err" 2>/dev/null)" 1
fi
py parse "$OUT/hpcc/hpccoutf.txt" --nodes "$OUT/cluster-nodes.json" --threads "$THREADS" \
	--out "$OUT/cluster-hpcc.json" || skip "hpccoutf.txt unreadable: see $OUT/hpcc" 1
