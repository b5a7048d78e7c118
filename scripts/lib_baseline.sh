# shellcheck shell=bash disable=SC2034  # BL_* are read by the scripts that source this file
# Shared by scripts/baseline/*.sh: the command line every baseline script takes, and the
# pieces they share (thread lists, running a tool under a time limit, skip rows).
#
#   TOOL.sh [--mode full|quick|tiny] [--threads LIST] [--raw DIR] [--dir DIR]
#       runs the reference tool (when installed) with parameters matched to peakbench's,
#       keeps its raw output in --raw DIR and prints schema CSV (header + rows) on stdout.
#   TOOL.sh --parse FILE...
#       converts captured outputs of the tool into the same CSV (what the tests use).
#
# Every row has suite=baseline, baseline_tool=TOOL and the tool's figure in mean and
# baseline; flags carry ours=SUITE:TEST:VARIANT:METRIC, the peakbench row it is matched to
# (same threads and block_bytes; an empty cell matches any), converted to our unit.
# Exit status: 0 (a missing tool is a skipped row, not an error), 1 when the tool failed.

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BL_MODE=full BL_THREADS=1,2,4,8 BL_RAW="" BL_DIR="" BL_PARSE=0 BL_FILES=()

bl_usage_error() {
	echo "$(basename "$0"): $1 (usage: $(basename "$0") [--mode full|quick|tiny] [--threads LIST] [--raw DIR] [--dir DIR] | --parse FILE...)" >&2
	exit 2
}

bl_parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--parse)
			BL_PARSE=1
			shift
			[ $# -gt 0 ] || bl_usage_error "--parse needs at least one file"
			BL_FILES=("$@")
			return 0
			;;
		--mode | --threads | --raw | --dir)
			if [ $# -lt 2 ] || [ -z "$2" ]; then bl_usage_error "$1 needs a value"; fi
			case $1 in
			--mode)
				case $2 in full | quick | tiny) BL_MODE=$2 ;; *) bl_usage_error "--mode: '$2' is not full, quick or tiny" ;; esac
				;;
			--threads)
				[[ $2 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || bl_usage_error "--threads: '$2' is not a list like 1,2,4,8"
				BL_THREADS=$2
				;;
			--raw) BL_RAW=$2 ;;
			--dir) BL_DIR=$2 ;;
			esac
			shift 2
			;;
		*) bl_usage_error "unknown option '$1'" ;;
		esac
	done
	if [ -z "$BL_RAW" ]; then
		BL_RAW=$(mktemp -d "${TMPDIR:-/tmp}/peakbench-baseline.XXXXXX") || exit 1
	fi
	mkdir -p "$BL_RAW" || exit 1
}

# Thread counts of --threads that the machine can run without oversubscription.
bl_threads_upto_cpus() {
	local n t out=""
	n=$(nproc 2>/dev/null || echo 1)
	for t in ${BL_THREADS//,/ }; do
		[ "$t" -le "$n" ] && out+="$t "
	done
	[ -n "$out" ] || out="1 "
	printf '%s\n' "${out% }"
}

bl_nproc() { nproc 2>/dev/null || echo 1; }

# The largest count of --threads, capped at the CPUs (what linpack and hpcc use).
bl_max_threads() {
	local t m=1
	for t in $(bl_threads_upto_cpus); do [ "$t" -gt "$m" ] && m=$t; done
	echo "$m"
}

# Print the header once (run and parse modes both start with it).
bl_header() { echo "$PEAK_CSV_HEADER"; }

# Run a command with a time limit, stdout to FILE; returns the command's status.
bl_run() {
	local limit=$1 out=$2
	shift 2
	echo "$*" >>"$BL_RAW/commands.txt"
	timeout --kill-after=10 "$limit" "$@" >"$out" 2>"$out.err"
}
