#!/usr/bin/env bash
# IOZone baselines for diskbench, where iozone is installed (it is not in Debian main:
# build it from iozone.org and put it on PATH). Reads both layouts the PA1 document shows:
# `iozone -a` (every file size x record size) and `iozone -s SIZE` (one file size).
#
# Mapping (kBytes/sec x 1024 / 10^6 = MB/s; one process = 1 thread; block = reclen KiB):
#   write        -> disk seq_write psync   throughput
#   read         -> disk seq_read  psync   throughput
#   random read  -> disk rand_read psync   throughput
#   random write -> disk rand_write psync  throughput
# Without -I in "Command line used" iozone went through the page cache: the rows are
# flagged "cached" (diskbench bypasses the cache, so the two are not the same measurement).
# The run uses -I (O_DIRECT) and -e (fsync in the timing), as diskbench does.
# A data row with fewer values than the header names is skipped with a warning (the PA1
# document has one), rather than shifting values into the wrong columns.
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=iozone

parse_one() {
	awk -v tool="$TOOL" -v file="$1" "$PEAK_AWK_LIB"'
	function canon(s) {
		gsub(/^[ \t]+|[ \t]+$/, "", s); gsub(/[ \t]+/, "_", s)
		return s
	}
	# Column names from the header line: tab-separated (the PA1 layout, "random read" in
	# one field) or space-aligned under a line of first words (iozone'"'"'s own layout).
	function header(line, upper,    n, i, t, pos, rest, e, w, uend, nu) {
		ncol = 0
		if (index(line, "\t")) {
			n = split(line, t, "\t")
			for (i = 1; i <= n; i++) if (canon(t[i]) != "") names[++ncol] = canon(t[i])
			return
		}
		nu = 0; rest = upper; pos = 0
		while (match(rest, /[^ ]+/)) {
			nu++; uword[nu] = substr(rest, RSTART, RLENGTH); uend[nu] = pos + RSTART + RLENGTH - 1
			pos += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
		}
		rest = line; pos = 0
		while (match(rest, /[^ ]+/)) {
			w = substr(rest, RSTART, RLENGTH); e = pos + RSTART + RLENGTH - 1
			pos = e; rest = substr(rest, RSTART + RLENGTH)
			for (i = 1; i <= nu; i++) if (uend[i] == e) w = uword[i] "_" w
			names[++ncol] = w
		}
	}
	/Command line used:/ { cmd = $0; direct = ($0 ~ / -I( |$)/); fsync = ($0 ~ / -e( |$)/) }
	/Output is in/ { if ($0 !~ /kBytes\/sec/) { print "iozone.sh: " file ": output is not in kBytes/sec" > "/dev/stderr"; bad = 1 } }
	/(^|[ \t])kB[ \t]+reclen/ { header($0, prev); prev = $0; next }
	ncol > 0 && $0 ~ /^[ \t]*[0-9]+[ \t]+[0-9]+([ \t]+[0-9]+)+[ \t]*$/ {
		line = $0; sub(/[ \t]+$/, "", line)
		n = split(line, v, /[ \t]+/)
		if (v[1] == "") { for (i = 1; i < n; i++) v[i] = v[i + 1]; n-- }
		if (n != ncol) {
			printf "iozone.sh: %s: row \"%s %s\" has %d values for %d columns: skipped\n", file, v[1], v[2], n - 2, ncol - 2 > "/dev/stderr"
			next
		}
		for (i = 3; i <= ncol; i++) {
			test = ""
			if (names[i] == "write") test = "seq_write"
			else if (names[i] == "read") test = "seq_read"
			else if (names[i] == "random_read") test = "rand_read"
			else if (names[i] == "random_write") test = "rand_write"
			if (test == "") continue
			val = v[i] * 1024 / 1e6
			f[1] = "baseline"; f[2] = test; f[3] = "iozone-" names[i]; f[4] = 1; f[5] = v[2] * 1024
			f[6] = "throughput"; f[7] = "MB/s"; f[8] = 1; f[9] = val; f[10] = ""
			f[11] = val; f[12] = val; f[13] = val
			for (j = 14; j <= 21; j++) f[j] = ""
			f[22] = tool; f[23] = val
			f[24] = "ours=disk:" test ":psync:throughput;file_kb=" v[1] (direct ? ";direct=1" : ";cached") (fsync ? ";fsync" : "")
			print csv_join(f, 24)
			rows++
		}
		next
	}
	{ prev = $0 }
	END { if (bad || rows == 0) exit 1 }' "$1"
}

bl_parse_args "$@"
bl_header
if [ "$BL_PARSE" = 1 ]; then
	rc=0
	for f in "${BL_FILES[@]}"; do
		parse_one "$f" || { echo "iozone.sh: no iozone results in $f" >&2; rc=1; }
	done
	exit "$rc"
fi

if ! peak_have iozone; then
	for t in seq_write seq_read rand_read; do
		peak_baseline_skip "$TOOL" "$t" throughput MB/s "iozone not installed: it is not in Debian main and fio stands in for it (or build iozone from iozone.org)"
	done
	exit 0
fi

case $BL_MODE in
full) size=1g ;;
quick) size=256m ;;
tiny) size=16m ;;
esac
dir=$BL_DIR
own_dir=0
if [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/var/tmp}/peakbench-iozone.XXXXXX") || exit 1
	own_dir=1
fi
mkdir -p "$dir" || exit 1
file="$dir/peakbench-iozone.$$.tmp"
cleanup() {
	rm -f "$file"
	[ "$own_dir" = 0 ] || rmdir "$dir" 2>/dev/null
}
trap cleanup EXIT
out="$BL_RAW/iozone.txt"
if ! bl_run 900 "$out" iozone -e -I -i 0 -i 1 -i 2 -s "$size" -r 4k -r 1m -f "$file"; then
	echo "iozone.sh: iozone failed: $(tail -n 1 "$out.err")" >&2
	peak_csv_row baseline seq_read iozone 1 "" throughput MB/s 0 "" "" "" "" "" "" "" "" "" "" "" "" \
		"" "$TOOL" "" "failed: iozone exited non-zero"
	exit 1
fi
parse_one "$out" || exit 1
