# shellcheck shell=bash
# Shared helpers for run_all.sh, scripts/baseline/*.sh, scripts/plot.sh and scripts/report.sh:
# the result schema's columns, CSV rows written and read from shell and awk, JSON to CSV.

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

# jq program: a results JSON document to schema CSV rows (no header); null -> empty cell.
# shellcheck disable=SC2034
PEAK_JQ_TO_CSV='
def cell: if . == null then ""
	elif type == "string" then (if test("[\",\n]") then "\"" + gsub("\""; "\"\"") + "\"" else . end)
	else tostring end;
.results[] | [.suite, .test, .variant, .threads, .block_bytes, .metric, .unit, .n, .mean,
	.stddev, .min, .median, .max, .ci95_low, .ci95_high, .p50, .p90, .p99, .p999,
	.theoretical, .efficiency, .baseline_tool, .baseline, .flags] | map(cell) | join(",")'

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

# Match every baseline row (flags ours=SUITE:TEST:VARIANT:METRIC, VARIANT may hold *; same
# threads and block_bytes unless the baseline leaves them empty) to peakbench rows, write
# DIR/matches.tsv and fill baseline_tool/baseline of DIR/<suite>.csv and .json, converted
# to the row's unit. A row matched by several baselines keeps the first (baseline.csv order).
# matches.tsv: suite test variant threads block metric tool baseline(our unit) ours_mean
#              ours_unit baseline_variant
peak_join_baselines() {
	local dir=$1 s csvs=()
	[ -s "$dir/baseline.csv" ] || return 0
	for s in cpu memory disk network dpdk; do [ -s "$dir/$s.csv" ] && csvs+=("$dir/$s.csv"); done
	[ ${#csvs[@]} -gt 0 ] || return 0
	awk "$PEAK_AWK_LIB"'
	function unit_factor(from, to) {
		if (from == to) return 1
		if (from == "GB/s" && to == "MB/s") return 1000
		if (from == "MB/s" && to == "GB/s") return 0.001
		if (from == "Gbit/s" && to == "Mbit/s") return 1000
		if (from == "Mbit/s" && to == "Gbit/s") return 0.001
		if (from == "us" && to == "ns") return 1000
		if (from == "ns" && to == "us") return 0.001
		if (from == "ms" && to == "us") return 1000
		return 0
	}
	function glob_re(g) { gsub(/[.+?^$()|{}\[\]]/, "\\\\&", g); gsub(/\*/, ".*", g); return "^" g "$" }
	FNR == 1 { next }
	FILENAME ~ /baseline\.csv$/ {
		n = csv_split($0, f)
		if (f[C_N] == 0 || f[C_MEAN] == "") next
		o = flag_value(f[C_FLAGS], "ours")
		if (split(o, k, ":") != 4) next
		nb++; bs[nb] = k[1]; bt[nb] = k[2]; bv[nb] = glob_re(k[3]); bm[nb] = k[4]
		bth[nb] = f[C_THREADS]; bbl[nb] = f[C_BLOCK]; btool[nb] = f[C_BTOOL]
		bval[nb] = f[C_MEAN]; bunit[nb] = f[C_UNIT]; bvar[nb] = f[C_VARIANT]
		next
	}
	{
		csv_split($0, f)
		key = f[C_SUITE] SUBSEP f[C_TEST] SUBSEP f[C_VARIANT] SUBSEP f[C_THREADS] SUBSEP f[C_BLOCK] SUBSEP f[C_METRIC]
		for (i = 1; i <= nb; i++) {
			if (bs[i] != f[C_SUITE] || bt[i] != f[C_TEST] || bm[i] != f[C_METRIC]) continue
			if (f[C_VARIANT] !~ bv[i]) continue
			if (bth[i] != "" && bth[i] != f[C_THREADS]) continue
			if (bbl[i] != "" && bbl[i] != f[C_BLOCK]) continue
			fac = unit_factor(bunit[i], f[C_UNIT])
			if (fac == 0) continue
			print f[C_SUITE], f[C_TEST], f[C_VARIANT], f[C_THREADS], f[C_BLOCK], f[C_METRIC], btool[i], bval[i] * fac, f[C_MEAN], f[C_UNIT], bvar[i]
		}
	}' OFS='\t' "$dir/baseline.csv" "${csvs[@]}" >"$dir/matches.tsv"
	for s in "${csvs[@]}"; do
		awk -F'\t' "$PEAK_AWK_LIB"'
		FILENAME == m { k = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP $6
			if (!(k in tool)) { tool[k] = $7; val[k] = $8 }; next }
		FNR == 1 { print; next }
		{
			n = csv_split($0, f)
			k = f[C_SUITE] SUBSEP f[C_TEST] SUBSEP f[C_VARIANT] SUBSEP f[C_THREADS] SUBSEP f[C_BLOCK] SUBSEP f[C_METRIC]
			if (k in tool) { f[C_BTOOL] = tool[k]; f[C_BASE] = val[k] }
			print csv_join(f, n)
		}' m="$dir/matches.tsv" "$dir/matches.tsv" "$s" >"$s.tmp" && mv "$s.tmp" "$s"
		local j=${s%.csv}.json
		if [ -s "$j" ] && peak_have jq; then
			jq --rawfile m "$dir/matches.tsv" '
			def cell: if . == null then "" else tostring end;
			(reduce ($m | split("\n")[] | select(length > 0) | split("\t")) as $r ({};
				($r[0:6] | join("|")) as $k | if has($k) then . else .[$k] = {tool: $r[6], value: ($r[7] | tonumber)} end)) as $lut |
			.results |= map(. as $x | ([.suite, .test, .variant, (.threads | cell), (.block_bytes | cell), .metric] | join("|")) as $k |
				if $lut[$k] then .baseline_tool = $lut[$k].tool | .baseline = $lut[$k].value else . end)' \
				"$j" >"$j.tmp" && mv "$j.tmp" "$j"
		fi
	done
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
