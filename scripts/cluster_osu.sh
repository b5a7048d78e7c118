#!/usr/bin/env bash
# The OSU Micro-Benchmarks and IMB-MPI1 between the hostfile's first two hosts, where they
# are on PATH (neither is in Debian; docs/cluster.md, "References"): osu_latency, osu_bw,
# osu_bibw, osu_mbw_mr, IMB-MPI1 PingPong, read into DIR/cluster-osu.json
# (peakresults.adapters.osu) beside clusterbench's mpi_p2p rows. Nothing on PATH: nothing
# written, exit 0.
#   cluster_osu.sh --hostfile FILE --out DIR [--mpirun "ARGS"]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HOSTFILE="" MPIRUN_ARGS="" OUT=""
usage() {
	echo "cluster_osu.sh: $*" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--hostfile | --mpirun | --out)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case $1 in
		--hostfile) HOSTFILE=$2 ;;
		--mpirun) MPIRUN_ARGS=$2 ;;
		--out) OUT=$2 ;;
		esac
		shift 2
		;;
	*) usage "unknown option '$1'" ;;
	esac
done
{ [ -n "$HOSTFILE" ] && [ -r "$HOSTFILE" ]; } || usage "--hostfile FILE is required and readable"
[ -n "$OUT" ] || usage "--out DIR is required"
mkdir -p "$OUT/logs"
osu_outs=()
head2="$OUT/logs/hostfile-first-two"
grep -vE '^[[:space:]]*(#|$)' "$HOSTFILE" | head -n 2 >"$head2"
for tool in osu_latency osu_bw osu_bibw osu_mbw_mr IMB-MPI1; do
	path=$(command -v "$tool" 2>/dev/null) || continue
	args=()
	[ "$tool" != IMB-MPI1 ] || args=(PingPong)
	# shellcheck disable=SC2086  # the user's launcher options, split as a shell would
	if timeout 600 mpirun --bind-to none $MPIRUN_ARGS --hostfile "$head2" -np 2 --map-by node "$path" "${args[@]}" \
		>"$OUT/logs/$tool.out" 2>"$OUT/logs/$tool.err"; then
		osu_outs+=("$OUT/logs/$tool.out")
	else
		echo "cluster_osu.sh: $tool failed: $(tail -n 1 "$OUT/logs/$tool.err")" >&2
	fi
done
if [ ${#osu_outs[@]} -gt 0 ]; then
	PYTHONPATH="$ROOT/scripts" python3 -m peakresults.adapters.osu --out "$OUT/cluster-osu.json" "${osu_outs[@]}" ||
		{ echo "cluster_osu.sh: the OSU/IMB outputs could not be read (see $OUT/logs)" >&2; exit 1; }
fi
