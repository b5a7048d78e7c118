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
