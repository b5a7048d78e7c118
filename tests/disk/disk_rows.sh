#!/bin/sh
# diskbench's rows on the harness, at tiny sizes: a point's rows and their order, what an
# unsupported point becomes, the disk's rating from peaks.conf, a bad peaks.conf.
# Usage: disk_rows.sh CASE DISKBENCH WORKDIR FIXTURES   (WORKDIR: under the build tree)
# Exit 0 pass, 1 fail, 77 skipped (with the reason on stdout).
set -u
case_name=$1
bin=$2
fixtures=$4
tiny="--file-size 4MiB --reps 2 --ci 0 --min-time 0.01 --quiet --engine psync"

TEST_NAME="rows $case_name"
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$3/rows_$case_name"
# No peaks.conf from the caller's directory or environment unless a case sets one.
unset PEAKBENCH_CONF
cd "$work" || fail "cannot cd to $work"

run() { # args...: rc, $work/out, $work/err
	# shellcheck disable=SC2086 # $tiny is a list of words
	"$bin" --dir "$dir" $tiny "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# Fields of the CSV rows: suite,test,variant,threads,block_bytes,metric,...,flags (24th).
rows() { grep '^disk,' "$work/out"; }

case $case_name in
point)
	# One point: throughput, IOPS (blocks up to 64 KiB), then latency with percentiles, each
	# with one sample per repetition; a 1 MiB block has no IOPS row.
	run --test seq_read --block 4KiB,1MiB --format json
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	got=$(jq -r '.results[] | "\(.block_bytes):\(.metric):\(.samples | length)"' "$work/out" |
		tr '\n' ' ')
	want="4096:throughput:2 4096:iops:2 4096:latency:2 1048576:throughput:2 1048576:latency:2 "
	[ "$got" = "$want" ] || fail "rows '$got', expected '$want'"
	jq -e '[.results[] | select(.metric == "latency") | .p50, .p90, .p99, .p999 |
		numbers] | length == 8' "$work/out" >/dev/null || fail "latency rows lack percentiles"
	jq -e '[.results[] | select(.metric != "latency") | .p50 | nulls] | length == 3' \
		"$work/out" >/dev/null || fail "percentiles on a rate row"
	jq -e '[.results[] | .mean > 0] | all' "$work/out" >/dev/null || fail "a zero figure"
	;;
unsupported_share)
	# A block larger than each thread's share of the file: a row with the reason at that
	# thread count (n 0, no samples), measured at the others; exit 0, no file left.
	run --test seq_read --block 4MiB --threads 1,2 --format csv
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	rows | grep -q '^disk,seq_read,psync,1,4194304,throughput,MB/s,2,' ||
		fail "the 1-thread point was not measured: $(rows)"
	line=$(rows | grep '^disk,seq_read,psync,2,4194304,')
	[ "$(echo "$line" | wc -l)" -eq 1 ] || fail "expected one row at 2 threads: $(rows)"
	case $line in
	*",throughput,MB/s,0,"*",unsupported: larger than each thread's share of the file") ;;
	*) fail "unsupported row: $line" ;;
	esac
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "left behind: $(find "$dir" -mindepth 1)"
	;;
unsupported_direct)
	# --direct on: a block O_DIRECT cannot take is a row with the reason, the others run.
	run --test seq_read --block 8B,4KiB --direct on --format csv
	if [ "$rc" -eq 3 ]; then
		echo "SKIP: no O_DIRECT under $dir: $(cat "$work/err")"
		exit 77
	fi
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	n=$(rows | grep -c '^disk,seq_read,psync,1,8,throughput,MB/s,0,.*,unsupported: --direct on: not a multiple of the [0-9]*-byte O_DIRECT alignment$')
	[ "$n" -eq 1 ] || fail "expected one unsupported 8-byte row: $(rows)"
	[ "$(rows | grep -c '^disk,seq_read,psync,1,8,')" -eq 1 ] || fail "8-byte rows: $(rows)"
	rows | grep -q '^disk,seq_read,psync,1,4096,latency,us,2,' ||
		fail "the 4 KiB point was not measured: $(rows)"
	;;
peaks)
	# The disk's rating from peaks.conf is the theoretical of throughput and IOPS rows
	# (efficiency beside it); without one, no theoretical and no no_peak flag.
	printf 'disk.mbps = 250\ndisk.iops = 3000\n' >"$work/peaks.conf"
	PEAKBENCH_CONF=$work/peaks.conf run --test seq_read --block 4KiB --format json
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	got=$(jq -r '.results[] | "\(.metric):\(.theoretical):\(.efficiency != null)"' "$work/out" |
		tr '\n' ' ')
	[ "$got" = "throughput:250:true iops:3000:true latency:null:false " ] ||
		fail "theoretical per row: $got"
	rm "$work/peaks.conf"
	run --test seq_read --block 4KiB --format json
	[ "$rc" -eq 0 ] || fail "no peaks.conf: exited $rc: $(cat "$work/err")"
	jq -e '[.results[] | .theoretical | nulls] | length == 3' "$work/out" >/dev/null ||
		fail "a theoretical without peaks.conf"
	if grep -q no_peak "$work/out"; then
		fail "rows flagged no_peak"
	fi
	;;
bad_conf)
	# A peaks.conf that does not parse: exit 2, one line naming the file and line.
	PEAKBENCH_CONF=$fixtures/peaks/bad-key.conf run --test seq_read --block 4KiB
	[ "$rc" -eq 2 ] || fail "exit $rc, expected 2: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "not one line: $(cat "$work/err")"
	grep -q '^diskbench: peaks.conf: .*bad-key.conf:3' "$work/err" ||
		fail "message: $(cat "$work/err")"
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "a file was created: $(find "$dir" -mindepth 1)"
	;;
*)
	fail "unknown case"
	;;
esac
cd / && rm -rf "$work"
echo "ok: rows $case_name"
