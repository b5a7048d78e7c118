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

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files iozone
	exit
fi

if ! bl_have iozone; then
	for t in seq_write seq_read rand_read; do
		bl_skip "$TOOL" "$t" throughput MB/s "iozone not installed: it is not in Debian main and fio stands in for it (or build iozone from iozone.org)"
	done
	bl_finish iozone
	exit 0
fi

case $BL_MODE in
full) size=1g ;;
quick) size=256m ;;
tiny) size=16m ;;
esac
dir=$BL_DIR
own_dir=0
if [ "$BL_PLAN" = 1 ]; then
	echo "iozone -e -I -i 0 -i 1 -i 2 -s $size -r 4k -r 1m -f ${dir:-/tmp}/peakbench-iozone.tmp"
	exit 0
fi
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
	bl_skip "$TOOL" seq_read throughput MB/s "failed: iozone exited non-zero"
	bl_finish iozone
	exit 1
fi
bl_finish iozone || exit 1
