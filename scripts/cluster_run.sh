#!/usr/bin/env bash
# The cluster plan (run_all.sh --hostfile): clusterbench's net_matrix (shift schedule),
# node_sweep, mpi_p2p and mpi_coll on every host of the hostfile, one rank per host, through
# mpirun.
#   cluster_run.sh --hostfile FILE [--mpirun "ARGS"] [--mode full|quick|tiny] --out DIR
#                  [--build-dir DIR] [--dir DISKDIR] [--schedule shift|serial] [--no-hpcc]
# Writes DIR/cluster-net_matrix.json, cluster-node_sweep.json, cluster-mpi_p2p.json and
# cluster-mpi_coll.json (common schema rows
# with host and peer; docs/cluster.md), DIR/ompi_info.txt (read by clusterbench's transport
# check), then the references across the same nodes: hpcc (scripts/cluster_hpcc.sh:
# DIR/cluster-hpcc.json, DIR/cluster-nodes.json) unless --no-hpcc, and the OSU
# Micro-Benchmarks and IMB-MPI1 between the first two hosts where they are on PATH
# (DIR/cluster-osu.json). A failure ends with one line naming the host and
# the round, exit 1; the rounds completed before it stay in the files.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOSTFILE="" MPIRUN_ARGS="" MODE=quick OUT="" BUILD_DIR="$ROOT/build" DISK_DIR="" SCHEDULE=shift
HPCC=1

usage() {
	echo "cluster_run.sh: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--hostfile | --mpirun | --mode | --out | --build-dir | --dir | --schedule)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--hostfile) HOSTFILE=$2 ;;
		--mpirun) MPIRUN_ARGS=$2 ;;
		--mode) MODE=$2 ;;
		--out) OUT=$2 ;;
		--build-dir) BUILD_DIR=$2 ;;
		--dir) DISK_DIR=$2 ;;
		--schedule) SCHEDULE=$2 ;;
		esac
		shift 2
		;;
	--no-hpcc)
		HPCC=0
		shift
		;;
	*) usage "unknown option '$1'" ;;
	esac
done
[ -n "$HOSTFILE" ] || usage "--hostfile FILE is required"
[ -r "$HOSTFILE" ] || usage "cannot read the hostfile '$HOSTFILE'"
[ -n "$OUT" ] || usage "--out DIR is required"
case $MODE in
full) SIZES=(--min-time 2 --reps 5 --latency-duration 1) ;;
quick) SIZES=(--min-time 0.5 --reps 3 --latency-duration 0.3) ;;
tiny) SIZES=(--min-time 0.1 --reps 1 --latency-duration 0.1) ;;
*) usage "--mode wants full, quick or tiny, got '$MODE'" ;;
esac
CB="$BUILD_DIR/cluster/clusterbench"
if [ ! -x "$CB" ]; then
	echo "cluster_run.sh: $CB not built (no MPI when configured: scripts/deps.sh --install)" >&2
	exit 3
fi
command -v mpirun >/dev/null 2>&1 || {
	echo "cluster_run.sh: no mpirun (OpenMPI: scripts/deps.sh --install)" >&2
	exit 3
}
NP=$(grep -cvE '^[[:space:]]*(#|$)' "$HOSTFILE" || true)
[ "$NP" -ge 2 ] || usage "the hostfile names $NP host(s); the cluster plan needs at least 2"
mkdir -p "$OUT" "$OUT/logs"

# Every host reachable the way mpirun will reach it (its rsh agent, ssh by default), before
# anything runs: mpirun's own failure does not name the host it could not start.
agent=(ssh -o BatchMode=yes -o ConnectTimeout=10)
read -r -a margs <<<"$MPIRUN_ARGS"
for ((i = 0; i + 1 < ${#margs[@]}; i++)); do
	case ${margs[i]} in
	plm_rsh_agent | orte_rsh_agent) agent=("${margs[i + 1]}") ;;
	esac
done
while read -r host _; do
	case $host in '' | \#*) continue ;; esac
	case $host in localhost | "$(hostname)") continue ;; esac
	if ! why=$(timeout 30 "${agent[@]}" "$host" true 2>&1 </dev/null); then
		echo "cluster_run.sh: host $host cannot be reached by ${agent[0]} (before round 1):" \
			"$(printf '%s' "${why:-timed out}" | tail -n 1); nothing measured" >&2
		exit 1
	fi
done <"$HOSTFILE"

# Why a run ended, in one line: clusterbench's own line when it wrote one, else the rank
# mpirun saw die (with its host), with the round that was running (one past the last
# round on disk). When a rank died (mpirun: "process rank N ... on node H exited on
# signal"), mpirun then kills the others, and a pair between two live nodes may fail
# first and say so ("server gone?"): the line kept is then the one naming H.
explain() { # test json err rc
	local test=$1 json=$2 err=$3 rc=$4 line round died
	died=$(grep -m1 -oE 'process rank [0-9]+ with PID [0-9]+ on node [^ ]+ exited on signal' "$err" |
		awk '{ print $9 }' || true)
	line=""
	[ -z "$died" ] || line=$(grep '^clusterbench: ' "$err" | grep -m1 -F -e " $died -> " -e "-> $died " || true)
	[ -n "$line" ] || [ -n "$died" ] || line=$(grep -m1 '^clusterbench: ' "$err" || true)
	if [ -z "$line" ]; then
		line=$(grep -m1 -oE 'process rank [0-9]+ with PID [0-9]+ on node [^ ]+ exited on signal [0-9]+[^.]*' "$err" ||
			grep -m1 -iE 'unable|could not|not be reached|refused|timed out|ORTE was unable' "$err" || true)
		[ -n "$line" ] || line="mpirun exited $rc ($(tail -n 1 "$err"))"
		round=$(python3 - "$json" <<'PY' 2>/dev/null || echo 1
import json, re, sys
rows = json.load(open(sys.argv[1]))["results"]
rounds = [int(m.group(1)) for r in rows for m in [re.search(r"round=(\d+)", r["flags"])] if m]
print(max(rounds) + 1 if rounds else 1)
PY
)
		line="$test round $round: $line"
	fi
	echo "cluster_run.sh: $line; completed rounds kept in $json" >&2
}

run() { # test args...
	local test=$1 json="$OUT/cluster-$1.json" err="$OUT/logs/cluster-$1.err" rc=0
	shift
	# shellcheck disable=SC2086  # the user's launcher options, split as a shell would
	mpirun --bind-to none $MPIRUN_ARGS --hostfile "$HOSTFILE" -np "$NP" --map-by node "$CB" \
		--names "$HOSTFILE" --test "$test" --format json --output "$json" "${INFO[@]}" "$@" \
		>"$OUT/logs/cluster-$test.log" 2>"$err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		explain "$test" "$json" "$err" "$rc"
		exit 1
	fi
}

# ompi_info once, here: clusterbench's transport check reads the components it lists
# (ucx, ofi, ...) from this file rather than have every rank fork a child under MPI.
INFO=()
if command -v ompi_info >/dev/null 2>&1 && ompi_info --parsable >"$OUT/ompi_info.txt" 2>/dev/null; then
	INFO=(--ompi-info "$OUT/ompi_info.txt")
fi
run net_matrix --schedule "$SCHEDULE" "${SIZES[@]}"
sweep=(--bindir "$BUILD_DIR")
[ -z "$DISK_DIR" ] || sweep+=(--dir "$DISK_DIR")
run node_sweep "${sweep[@]}"

# MPI itself between the nodes, OSU's way (docs/cluster.md, "MPI point to point"): full
# runs OSU's iteration counts over 1 B..4 MiB, each repetition ended sooner once it lasted
# clusterbench's --min-time for MPI (0.1 s); quick caps the timed iterations; tiny also
# takes two sizes.
case $MODE in
full) MPI=(--reps 3 --latency-duration 1) ;;
quick) MPI=(--reps 1 --max-iters 1000 --latency-duration 0.3) ;;
tiny) MPI=(--reps 1 --max-iters 20 --sizes "8,1MiB" --latency-duration 0.1) ;;
esac
run mpi_p2p "${MPI[@]}"
run mpi_coll "${MPI[@]}"

# hpcc across the same nodes: b_eff (ping-pong, rings) and HPL with the nodes' peaks.
if [ "$HPCC" -eq 1 ]; then
	"$ROOT/scripts/cluster_hpcc.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" --mode "$MODE" \
		--out "$OUT" --build-dir "$BUILD_DIR" || echo "cluster_run.sh: hpcc across the nodes failed (see $OUT/logs)" >&2
fi

# OSU and IMB where they are on PATH (neither is in Debian): one pair, the first two hosts.
"$ROOT/scripts/cluster_osu.sh" --hostfile "$HOSTFILE" --mpirun "$MPIRUN_ARGS" --out "$OUT" ||
	echo "cluster_run.sh: the OSU/IMB step failed (see $OUT/logs)" >&2
