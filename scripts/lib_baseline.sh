# shellcheck shell=bash disable=SC2034  # BL_* are read by the scripts that source this file
# Shared by scripts/baseline/*.sh: the command line every baseline script takes, and the
# pieces they share (thread lists, running a tool under a time limit, skip rows).
#
#   TOOL.sh [--mode full|quick|tiny] [--threads LIST] [--raw DIR] [--dir DIR] [--plan]
#       runs the reference tool (when installed) on the job peakbench runs, keeps its raw
#       output in --raw DIR and writes DIR/baseline-TOOL.json (scripts/peakresults/tools:
#       rows keyed by the peakbench row each is the reference for, a skipped entry with
#       the reason for each test not run or failed; docs/results-schema.md, "Reference tools' rows").
#       --plan prints the tool's command lines and runs nothing (tests of the same job).
#       [--tests LIST] [--seconds S] [--min-seconds S] [--json FILE] [--ctx K=V] (and hpcc's --n N; fio's
#       --mem shmhuge|malloc or --buffer-dir DIR, diskbench's --buffer-dir, whose files fio
#       maps (--mem=mmapshared:DIR/read.buf, write.buf), and --ramp-ms MS, the paired
#       diskbench job's warm-up; fio's, iperf3's and sockperf's --cpu N, the CPU their jobs or
#       client run on, and iperf3's and sockperf's --server-cpu N, their server's, where the
#       paired peakbench job runs; likwid's --min-seconds S, likwid-bench -s, decimal): one
#       paired round's job (run_all.sh's paired rounds).
#   TOOL.sh --parse FILE...
#       converts captured outputs of the tool into rows, one JSON a line.
# Exit status: 0 (a missing tool is a skipped row, not an error), 1 when the tool failed.

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BL_MODE=full BL_THREADS=1,2,4,8 BL_RAW="" BL_DIR="" BL_PARSE=0 BL_PLAN=0 BL_FILES=() BL_OUTS=() BL_SKIPS=()
# A paired round's job (run_all.sh, scripts/peakresults/plan.py pair_jobs): only --tests,
# --seconds per run, likwid's --min-seconds, hpcc's --n, fio's --mem or --buffer-dir, --ramp-ms and --same-data; --json FILE for the rows; --ctx
# for the parser.
BL_TESTS="" BL_JSON="" BL_SECONDS="" BL_MIN_SECONDS="" BL_N="" BL_MEM="" BL_BUFFER_DIR="" BL_SAME_DATA=0 BL_CTX=() BL_CPU="" BL_SERVER_CPU="" BL_RAMP_MS=""

BL_TOOLS_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/peakresults/tools

bl_usage_error() {
	echo "$(basename "$0"): $1 (usage: $(basename "$0") [--mode full|quick|tiny] [--threads LIST] [--raw DIR] [--dir DIR] [--plan] | --parse FILE...)" >&2
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
		--plan)
			BL_PLAN=1
			shift
			;;
		--same-data)
			# fio: every write sends one unchanging buffer (--scramble_buffers=0), as the
			# paired diskbench job with --data-period equal to its block does.
			BL_SAME_DATA=1
			shift
			;;
		--mode | --threads | --raw | --dir | --tests | --json | --seconds | --min-seconds | --n | --mem | --buffer-dir | --ctx | --cpu | --server-cpu | --ramp-ms)
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
			--tests) BL_TESTS=$2 ;;
			--json) BL_JSON=$2 ;;
			--seconds) [[ $2 =~ ^[1-9][0-9]*$ ]] || bl_usage_error "--seconds: '$2' is not a whole number of seconds"
				BL_SECONDS=$2 ;;
			--min-seconds) [[ $2 =~ ^[0-9]*\.?[0-9]+$ && ! $2 =~ ^[0.]+$ ]] ||
				bl_usage_error "--min-seconds: '$2' is not a positive number of seconds"
				BL_MIN_SECONDS=$2 ;;
			--n) [[ $2 =~ ^[1-9][0-9]*$ ]] || bl_usage_error "--n: '$2' is not a matrix order"
				BL_N=$2 ;;
			--mem) case $2 in shmhuge | malloc) BL_MEM=$2 ;; *) bl_usage_error "--mem: '$2' is not shmhuge or malloc" ;; esac ;;
			--buffer-dir) BL_BUFFER_DIR=$2 ;;
			--ctx) BL_CTX+=(--ctx "$2") ;;
			--ramp-ms) [[ $2 =~ ^[0-9]+$ ]] || bl_usage_error "--ramp-ms: '$2' is not a whole number of milliseconds"
				BL_RAMP_MS=$2 ;;
			--cpu) [[ $2 =~ ^[0-9]+$ ]] || bl_usage_error "--cpu: '$2' is not a CPU number"
				BL_CPU=$2 ;;
			--server-cpu) [[ $2 =~ ^[0-9]+$ ]] || bl_usage_error "--server-cpu: '$2' is not a CPU number"
				BL_SERVER_CPU=$2 ;;
			esac
			shift 2
			;;
		*) bl_usage_error "unknown option '$1'" ;;
		esac
	done
	[ "$BL_PLAN" = 0 ] || return 0
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

# Is the tool there? In --plan mode it need not be.
bl_have() { [ "$BL_PLAN" = 1 ] || peak_have "$1"; }

# Run a command with a time limit, stdout to FILE (kept for bl_finish); returns the
# command's status. --plan: print the command instead and run nothing.
bl_run() {
	local limit=$1 out=$2
	shift 2
	if [ "$BL_PLAN" = 1 ]; then
		echo "$*"
		return 0
	fi
	echo "$*" >>"$BL_RAW/commands.txt"
	timeout --kill-after=10 "$limit" "$@" >"$out" 2>"$out.err" && BL_OUTS+=("$out")
}

# Is TEST among --tests (every test without --tests)?
bl_want() { [ -z "$BL_TESTS" ] || [[ ",$BL_TESTS," == *",$1,"* ]]; }

# A test not run (REASON "... not installed", "... not available here") or failed
# (REASON "failed: ..."): TOOL TEST METRIC UNIT REASON, an entry of the JSON's skipped.
bl_skip() {
	[ "$BL_PLAN" = 0 ] || return 0
	BL_SKIPS+=(--skip "$2=$5")
}

# The tool's outputs (BL_OUTS) -> BL_RAW/baseline-TOOL.json (or --json FILE).
# bl_finish TOOL [tools options...]
bl_finish() {
	local tool=$1
	shift
	[ "$BL_PLAN" = 0 ] || return 0
	python3 "$BL_TOOLS_PY" "$tool" --out "${BL_JSON:-$BL_RAW/baseline-$tool.json}" "${BL_SKIPS[@]}" \
		"${BL_CTX[@]}" "$@" "${BL_OUTS[@]}"
}

# --parse FILE...: the rows, one JSON a line. bl_parse_files TOOL [tools options...]
bl_parse_files() {
	local tool=$1
	shift
	python3 "$BL_TOOLS_PY" "$tool" "$@" "${BL_FILES[@]}"
}
