# shellcheck shell=bash
# Shared helpers for run_all.sh and scripts/baseline/*.sh. Results are shaped by the results
# program (scripts/peakresults), not here; PEAK_CSV_HEADER, PEAK_AWK_LIB and the
# peak_csv_*/peak_baseline_* writers remain only for the baseline scripts' old CSV output
# (read by scripts/peakresults/legacy.py) until their Python parsers replace them.

# The checkout this file belongs to (loopback_peak calls the results program from it).
PEAK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The CSV header, exactly the schema's column order (docs/results-schema.md).
# shellcheck disable=SC2034  # used by the scripts that source this file
PEAK_CSV_HEADER='suite,test,variant,threads,block_bytes,metric,unit,n,mean,stddev,min,median,max,ci95_low,ci95_high,p50,p90,p99,p999,theoretical,efficiency,baseline_tool,baseline,flags'

# awk library: prepend to an awk program ("$PEAK_AWK_LIB"'...') to read and write
# schema CSV. csv_split() handles RFC 4180 quoting; C_* name the column numbers.
# shellcheck disable=SC2034  # used by the scripts that source this file
PEAK_AWK_LIB='
function csv_split(line, f,    n, i, c, q, cur, len) {
	if (index(line, "\"") == 0)
		return split(line, f, ",")
	n = 0; cur = ""; q = 0; len = length(line)
	for (i = 1; i <= len; i++) {
		c = substr(line, i, 1)
		if (q) {
			if (c == "\"") {
				if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ }
				else q = 0
			} else cur = cur c
		} else if (c == "\"") q = 1
		else if (c == ",") { f[++n] = cur; cur = "" }
		else cur = cur c
	}
	f[++n] = cur
	return n
}
function csv_cell(s) {
	if (s ~ /[",]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" }
	return s
}
function csv_join(f, n,    i, s) {
	s = csv_cell(f[1])
	for (i = 2; i <= n; i++) s = s "," csv_cell(f[i])
	return s
}
# Value of key=value inside a semicolon-separated flags cell ("" when absent).
function flag_value(flags, key,    n, i, kv, p) {
	n = split(flags, kv, ";")
	for (i = 1; i <= n; i++) {
		p = index(kv[i], "=")
		if (p > 0 && substr(kv[i], 1, p - 1) == key) return substr(kv[i], p + 1)
	}
	return ""
}
function is_number(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
BEGIN {
	C_SUITE = 1; C_TEST = 2; C_VARIANT = 3; C_THREADS = 4; C_BLOCK = 5; C_METRIC = 6
	C_UNIT = 7; C_N = 8; C_MEAN = 9; C_STDDEV = 10; C_MIN = 11; C_MEDIAN = 12; C_MAX = 13
	C_CI_LO = 14; C_CI_HI = 15; C_P50 = 16; C_P90 = 17; C_P99 = 18; C_P999 = 19
	C_THEO = 20; C_EFF = 21; C_BTOOL = 22; C_BASE = 23; C_FLAGS = 24; NCOL = 24
	OFMT = "%.10g"; CONVFMT = "%.10g"
}
'

peak_have() { command -v "$1" >/dev/null 2>&1; }

# A CSV cell from shell: quoted when it holds a comma or a quote.
peak_csv_cell() {
	local s=$1
	case $s in
	*[\",]*) s=${s//\"/\"\"}; printf '"%s"' "$s" ;;
	*) printf '%s' "$s" ;;
	esac
}

# One schema row from 24 positional values.
peak_csv_row() {
	local first=1 v
	for v in "$@"; do
		[ "$first" = 1 ] || printf ','
		first=0
		peak_csv_cell "$v"
	done
	printf '\n'
}

# A baseline row: TOOL TEST VARIANT THREADS BLOCK METRIC UNIT N VALUE FLAGS.
# The tool's figure goes into mean (so the row plots like ours) and into baseline.
peak_baseline_row() {
	local tool=$1 test=$2 variant=$3 threads=$4 block=$5 metric=$6 unit=$7 n=$8 value=$9
	local flags=${10}
	peak_csv_row baseline "$test" "$variant" "$threads" "$block" "$metric" "$unit" "$n" \
		"$value" "" "$value" "$value" "$value" "" "" "" "" "" "" "" "" "$tool" "$value" "$flags"
}

# A skipped baseline row: TOOL TEST METRIC UNIT REASON (n = 0, no value).
peak_baseline_skip() {
	local tool=$1 test=$2 metric=$3 unit=$4 reason=$5
	peak_csv_row baseline "$test" "$tool" "" "" "$metric" "$unit" 0 "" "" "" "" "" "" "" "" "" \
		"" "" "" "" "$tool" "" "skipped: $reason"
}

# Seconds as 1h02m03s / 2m03s / 3s.
peak_fmt_duration() {
	local s=${1%.*}
	[ -n "$s" ] || s=0
	if [ "$s" -ge 3600 ]; then
		printf '%dh%02dm%02ds' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
	elif [ "$s" -ge 60 ]; then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# peakinfo's loopback peak (Gbit/s) from the run's raw output; fails when there is none.
loopback_peak() { # dir
	local v
	v=$(python3 "$PEAK_ROOT/scripts/peakresults" theoretical "$1/raw/peakinfo.json" network loopback) || return 1
	[ -n "$v" ] || return 1
	printf '%s\n' "$v"
}

# dpdkbench's EAL memory arguments, one word a line, for PROCS processes of MB MiB each:
# hugepages ("-m MB --in-memory": EAL's hugepage files are never created, so nothing is
# left behind) when a hugetlbfs is mounted and the free, unreserved huge pages of the default
# size cover PROCS x MB; ordinary memory ("--no-huge --no-shconf -m MB") otherwise.
# PEAKBENCH_DPDK_HUGE=no forces ordinary memory, =yes hugepages. Nothing is allocated or
# mounted here. MOUNTS and MEMINFO (default /proc/mounts, /proc/meminfo) let tests pass fakes.
# peak_dpdk_eal_mem PROCS MB [MOUNTS [MEMINFO]]
peak_dpdk_eal_mem() {
	local procs=$1 mb=$2 mounts=${3:-/proc/mounts} meminfo=${4:-/proc/meminfo} huge=0
	case ${PEAKBENCH_DPDK_HUGE:-auto} in
	yes) huge=1 ;;
	no) ;;
	*)
		if awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' "$mounts" 2>/dev/null &&
			awk -v need_kb=$((procs * mb * 1024)) '
			$1 == "HugePages_Free:" { free = $2 }
			$1 == "HugePages_Rsvd:" { rsvd = $2 }
			$1 == "Hugepagesize:" { kb = $2 }
			END { exit !(kb > 0 && (free - rsvd) * kb >= need_kb) }' "$meminfo" 2>/dev/null; then
			huge=1
		fi
		;;
	esac
	if [ "$huge" = 1 ]; then
		printf '%s\n' -m "$mb" --in-memory
	else
		printf '%s\n' --no-huge --no-shconf -m "$mb"
	fi
}
