#!/bin/sh
# diskbench next to fio on the same jobs (same directory, file size, block, engine, depth,
# one thread, O_DIRECT, time-based). A benchmark, not a test: run it alone, e.g.
#   flock /tmp/peakbench-bench.lock disk/bench_vs_fio.sh BUILD/disk/diskbench DIR [SECONDS]
# Prints one line per job: ours (MB/s, IOPS) and fio's (MB/s from bw_bytes, IOPS).
set -eu
bin=$1
dir=$2
secs=${3:-10}
reps=3
per_rep=$(awk "BEGIN { printf \"%.3f\", $secs / $reps }")
command -v fio >/dev/null || { echo "fio not installed" >&2; exit 3; }
command -v jq >/dev/null || { echo "jq not installed" >&2; exit 3; }
[ -d "$dir" ] || { echo "no directory $dir" >&2; exit 2; }
fiofile="$dir/fio-peakbench.$$"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$fiofile"' EXIT INT TERM

job() { # name test fio_rw engine block_bytes depth
	name=$1 test=$2 rw=$3 engine=$4 bs=$5 depth=$6
	# Plain bytes for fio: with its default kb_base=1024 it reads "MiB" as 10^6.
	"$bin" --dir "$dir" --file-size 1GiB --test "$test" --block "$bs" --engine "$engine" \
		--iodepth "$depth" --direct on --reps "$reps" --runtime "$per_rep" --min-time 1 \
		--quiet --format csv --output "$tmp/ours.csv"
	ours_mbps=$(awk -F, '$6 == "throughput" { print $9 }' "$tmp/ours.csv")
	ours_iops=$(awk -F, '$6 == "iops" { print $9 }' "$tmp/ours.csv")
	ours_p99=$(awk -F, '$6 == "latency" { print $18 }' "$tmp/ours.csv")
	fioeng=$engine
	[ "$engine" = uring ] && fioeng=io_uring
	fio --name="$name" --filename="$fiofile" --size=1G --direct=1 --ioengine="$fioeng" \
		--bs="$bs" --iodepth="$depth" --rw="$rw" --numjobs=1 --time_based \
		--runtime="$secs" --ramp_time=1 --output-format=json >"$tmp/fio.json"
	dirn="read"
	case $rw in *write*) dirn="write" ;; esac
	fio_mbps=$(jq ".jobs[0].$dirn.bw_bytes / 1e6" "$tmp/fio.json")
	fio_iops=$(jq ".jobs[0].$dirn.iops" "$tmp/fio.json")
	fio_p99=$(jq ".jobs[0].$dirn.clat_ns.percentile[\"99.000000\"] / 1e3" "$tmp/fio.json")
	printf '%-28s ours %10.1f MB/s %10.0f IOPS p99 %8.1f us | fio %10.1f MB/s %10.0f IOPS p99 %8.1f us | ratio %.3f\n' \
		"$name" "$ours_mbps" "${ours_iops:-0}" "${ours_p99:-0}" "$fio_mbps" "$fio_iops" \
		"$fio_p99" "$(awk "BEGIN { print $ours_mbps / $fio_mbps }")"
}

date -u +"%Y-%m-%dT%H:%M:%SZ $(uname -r) $(nproc) CPUs, dir $dir"
jobs=${JOBS:-"seq_read_1MiB_psync seq_write_1MiB_psync rand_read_4KiB_psync_qd1 rand_read_4KiB_uring_qd32"}
for j in $jobs; do
	case $j in
	seq_read_1MiB_psync) job "$j" seq_read read psync 1048576 1 ;;
	seq_write_1MiB_psync) job "$j" seq_write write psync 1048576 1 ;;
	seq_read_1MiB_uring_qd32) job "$j" seq_read read uring 1048576 32 ;;
	seq_write_1MiB_uring_qd32) job "$j" seq_write write uring 1048576 32 ;;
	rand_read_4KiB_psync_qd1) job "$j" rand_read randread psync 4096 1 ;;
	rand_read_4KiB_uring_qd32) job "$j" rand_read randread uring 4096 32 ;;
	*) echo "unknown job $j" >&2; exit 2 ;;
	esac
done
