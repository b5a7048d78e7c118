#!/bin/sh
# diskbench next to fio on the same jobs (same directory, file size, block, engine, depth,
# one thread, O_DIRECT, time-based). A benchmark, not a test: run it alone, e.g.
#   flock /tmp/peakbench-bench.lock disk/bench_vs_fio.sh BUILD/disk/diskbench DIR [SECONDS]
# Prints per job the medians over ROUNDS (default 3) alternating rounds: ours (MB/s, IOPS,
# p99) and fio's (MB/s from bw_bytes, IOPS, total-latency p99), then each round's raw figures.
# MEM=huge (default) or small: the I/O buffers' pages, the same for both tools. On a VM disk
# the host pays per physical segment of a request, so buffer contiguity changes the speed:
#   huge:  diskbench --buffer-pages hugetlb, fio --mem=shmhuge (2 MiB pages from the hugetlb
#          pool, vm.nr_hugepages; the script stops with exit 3 when the pool has no room);
#   small: diskbench --buffer-pages small, fio --mem=malloc (4 KiB pages, whatever physical
#          layout the kernel gives each tool).
# THP is not offered: fio cannot ask for transparent huge pages, so a THP diskbench would be
# compared with fio on 4 KiB pages, which is what this script exists to avoid.
set -eu
bin=$1
dir=$2
secs=${3:-10}
rounds=${ROUNDS:-3}
mem=${MEM:-huge}
case $mem in
huge) pages=hugetlb fiomem=shmhuge ;;
small) pages=small fiomem=malloc ;;
*) echo "MEM=$mem: expected huge or small" >&2; exit 2 ;;
esac
reps=3
per_rep=$(awk "BEGIN { printf \"%.3f\", $secs / $reps }")
command -v fio >/dev/null || { echo "fio not installed" >&2; exit 3; }
command -v jq >/dev/null || { echo "jq not installed" >&2; exit 3; }
[ -d "$dir" ] || { echo "no directory $dir" >&2; exit 2; }
if [ "$mem" = huge ]; then
	# diskbench: the 64 MiB pattern + 4 MiB span and the read buffers (35 pages); fio: 1.
	avail=$(awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 }
		END { print f - r }' /proc/meminfo)
	[ "${avail:-0}" -ge 40 ] || {
		echo "MEM=huge: only ${avail:-0} hugetlb pages available, 40 needed (vm.nr_hugepages); or MEM=small" >&2
		exit 3
	}
fi
fiofile="$dir/fio-peakbench.$$"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$fiofile"' EXIT INT TERM

# One run of diskbench: prints "MB/s IOPS p99_us". Fails unless every row says its
# buffers were on the pages asked for.
run_ours() { # test engine block_bytes depth
	"$bin" --dir "$dir" --file-size 1GiB --test "$1" --block "$3" --engine "$2" \
		--iodepth "$4" --direct on --buffer-pages "$pages" --reps "$reps" \
		--runtime "$per_rep" --min-time 1 --quiet --format csv --output "$tmp/ours.csv"
	if grep '^disk,' "$tmp/ours.csv" | grep -qv "buffer_pages=$pages"; then
		echo "diskbench rows not on $pages pages: $(cut -d, -f24 "$tmp/ours.csv" | sort -u)" >&2
		exit 1
	fi
	awk -F, '$6 == "throughput" { m = $9 } $6 == "iops" { i = $9 } $6 == "latency" { p = $18 }
		END { printf "%s %s %s\n", m, (i == "" ? 0 : i), p }' "$tmp/ours.csv"
}

# One run of fio on the same job: prints "MB/s IOPS p99_us" (total latency, like ours).
run_fio() { # test fio_rw engine block_bytes depth
	fioeng=$3
	[ "$fioeng" = uring ] && fioeng=io_uring
	# diskbench writes its file just before measuring, with O_DIRECT 4 MiB writes after a
	# fallocate. fio's own layout writes through the page cache instead, and on a VM disk
	# the two layouts read back at different speeds (the host's cache under the guest), so
	# fio's file is laid out here the way diskbench lays out its own. Reusing an old file
	# would compare a fresh file with a stale one.
	rm -f "$fiofile"
	fio --name=layout --filename="$fiofile" --size=1G --direct=1 --ioengine=psync \
		--bs=4194304 --rw=write --fallocate=native --end_fsync=1 --output-format=terse >/dev/null
	# Plain bytes for --bs: with its default kb_base=1024 fio reads "MiB" as 10^6.
	fio --name="$1" --filename="$fiofile" --size=1G --direct=1 --ioengine="$fioeng" \
		--bs="$4" --iodepth="$5" --rw="$2" --mem="$fiomem" --numjobs=1 --time_based \
		--runtime="$secs" --ramp_time=1 --lat_percentiles=1 --output-format=json >"$tmp/fio.json"
	dirn="read"
	case $2 in *write*) dirn="write" ;; esac
	jq -r "[.jobs[0].$dirn.bw_bytes / 1e6, .jobs[0].$dirn.iops,
		.jobs[0].$dirn.lat_ns.percentile[\"99.000000\"] / 1e3] | @tsv" "$tmp/fio.json" | tr '\t' ' '
	rm -f "$fiofile"
}

# One round: both tools, the order alternating between rounds so that whatever the first
# run leaves behind (host write-back, burst credits) does not always favour the same tool.
# Prints "ours_mbps ours_iops ours_p99 fio_mbps fio_iops fio_p99".
round() { # round_number test fio_rw engine block_bytes depth
	if [ $(($1 % 2)) -eq 1 ]; then
		o=$(run_ours "$2" "$4" "$5" "$6")
		f=$(run_fio "$2" "$3" "$4" "$5" "$6")
	else
		f=$(run_fio "$2" "$3" "$4" "$5" "$6")
		o=$(run_ours "$2" "$4" "$5" "$6")
	fi
	echo "$o $f"
}

median() { # column number, from $tmp/rounds
	cut -d' ' -f"$1" "$tmp/rounds" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Rounds alternate ours and fio so background load hits both alike; medians are printed.
job() { # name test fio_rw engine block_bytes depth
	name=$1
	shift
	: >"$tmp/rounds"
	r=0
	while [ "$r" -lt "$rounds" ]; do
		r=$((r + 1))
		round "$r" "$@" >>"$tmp/rounds"
	done
	om=$(median 1) oi=$(median 2) op=$(median 3) fm=$(median 4) fi_=$(median 5) fp=$(median 6)
	printf '%-26s ours %8.1f MB/s %8.0f IOPS p99 %8.1f us | fio %8.1f MB/s %8.0f IOPS p99 %8.1f us | ours/fio %.3f\n' \
		"$name" "$om" "$oi" "$op" "$fm" "$fi_" "$fp" "$(awk "BEGIN { print $om / $fm }")"
	sed 's/^/    round: /' "$tmp/rounds"
}

date -u +"%Y-%m-%dT%H:%M:%SZ $(uname -r) $(nproc) CPUs, dir $dir, MEM=$mem: diskbench --buffer-pages $pages, fio --mem=$fiomem, $(fio --version), $rounds rounds x $secs s"
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
