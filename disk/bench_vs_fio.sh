#!/bin/sh
# diskbench next to fio on the same jobs (same directory, file size, block, engine, depth,
# one thread, O_DIRECT, time-based, same buffer pages). A benchmark, not a test: run it
# alone, e.g.
#   flock /tmp/peakbench-bench.lock disk/bench_vs_fio.sh BUILD/disk/diskbench DIR [SECONDS]
# ROUNDS (default 9) rounds of SECONDS (default 4) per tool, the order alternating (odd
# rounds diskbench first). Short runs and many rounds, because a VM disk's speed drifts
# by 2x within a minute: the figure to read is the median of the per-round ratios ours/fio
# (both tools measured in the same round, a minute apart at most, so slow drift cancels),
# printed with its min-max next to the medians of each tool's values.
#
# Device view: while each tool runs, /sys/dev/block/MAJ:MIN/stat of the directory's device
# (Documentation/block/stat.rst) is sampled every 50 ms. Over the tool's last SECONDS of
# I/O in the job's direction (that excludes diskbench's layout and both warm-ups) it gives
#   KiB: average request size at the device, sectors x 512 / requests completed;
#   qd:  average number of requests at the device, the direction's "time spent" (the sum
#        of every request's time in the queue and at the device, ms) / wall ms.
# These do not depend on how fast the host is and say whether both tools present the same
# I/O to the device. They count every process's I/O on that device (keep the host quiet).
# Not available (printed "-") when the directory's device has no /sys/dev/block entry.
#
# MEM=huge (default) or small: the I/O buffers' pages, the same for both tools. On a VM disk
# the host pays per physical segment of a request, so buffer contiguity changes the speed:
#   huge:  diskbench --buffer-pages hugetlb, fio --mem=shmhuge (2 MiB pages from the hugetlb
#          pool, vm.nr_hugepages; the script stops with exit 3 when the pool has no room);
#   small: diskbench --buffer-pages small, fio --mem=malloc (4 KiB pages, whatever physical
#          layout the kernel gives each tool).
# THP is not offered: fio cannot ask for transparent huge pages, so a THP diskbench would be
# compared with fio on 4 KiB pages, which is what this script exists to avoid.
# FIO_OPTS: more options for fio's measured job (e.g. --scramble_buffers=0), to find out
# what a difference is made of; they are printed in the header.
# Write jobs: diskbench times an fdatasync after each repetition, so fio gets --end_fsync=1
# (its time is inside fio's runtime): both make the data durable. And fio gets
# --scramble_buffers=0: by default fio rewrites part of its buffer before every write, CPU
# time between writes during which the device is idle (device qd 0.83 vs 0.96 for 1 MiB
# psync writes here), while diskbench sends every write straight from its prepared pattern.
# FIO_OPTS=--scramble_buffers=1 measures fio's default. One difference remains: fio then
# writes the same buffer every time, diskbench distinct data (docs/benchmarks/disk.md);
# OURS_OPTS="--data-period 1MiB" makes diskbench send one buffer too, like fio.
# OURS_OPTS: more options for diskbench, printed in the header like FIO_OPTS.
# run_all.sh now pairs diskbench with fio by default (scripts/peakresults/plan.py pair_jobs:
# the same job, alternating rounds, median of per-round ratios in pairs.csv and the report);
# this script stays for the device view and the longer by-hand series below.
set -eu
bin=$1
dir=$2
secs=${3:-4}
rounds=${ROUNDS:-9}
mem=${MEM:-huge}
fioopts=${FIO_OPTS:-}
oursopts=${OURS_OPTS:-}
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
# The block device (or partition) holding the directory.
devstat=""
devname="-"
majmin=$(stat -c '%Hd:%Ld' "$dir" 2>/dev/null || true)
if [ -n "$majmin" ] && [ -r "/sys/dev/block/$majmin/stat" ]; then
	devstat="/sys/dev/block/$majmin/stat"
	devname=$(basename "$(readlink -f "/sys/dev/block/$majmin")")
fi
fiofile="$dir/fio-peakbench.$$"
tmp=$(mktemp -d)
sampler=""
cleanup() {
	[ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true
	rm -rf "$tmp" "$fiofile"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Device sampling around one tool's run: "uptime_s stat fields..." lines in $1.
sample_once() {
	read -r up _ </proc/uptime
	read -r s <"$devstat"
	echo "$up $s"
}
sample_start() { # file
	[ -n "$devstat" ] || return 0
	: >"$1"
	# Runs in the background until stopped, or until this script is gone ($$ is the script
	# even inside $(...)), so a failing tool cannot leave it behind.
	(
		trap 'exit 0' TERM
		while kill -0 $$ 2>/dev/null; do
			sample_once
			sleep 0.05
		done
	) >>"$1" &
	sampler=$!
}
sample_stop() { # file
	[ -n "$devstat" ] || return 0
	kill "$sampler" 2>/dev/null || true
	wait "$sampler" 2>/dev/null || true
	sampler=""
	sample_once >>"$1"
}
# Before each run, wait until the device has been idle for 0.2 s (at most 30 s): deleting a
# 1 GiB file on a filesystem mounted with -o discard keeps the device busy with discards
# for seconds after the unlink, and the next run must not start under them.
wait_idle() {
	[ -n "$devstat" ] || return 0
	prev="" waited=0
	while [ "$waited" -lt 300 ]; do
		read -r s <"$devstat"
		# shellcheck disable=SC2086 # word splitting into the fields is the point
		set -- $s
		cur="${10} $9"
		[ "$cur" = "$prev" ] && [ "$9" = 0 ] && return 0
		prev=$cur
		sleep 0.1
		waited=$((waited + 1))
	done
	echo "note: $devname still busy after 30 s of waiting for it to be idle" >&2
}

# "KiB qd" of the device over the last $secs s of I/O in one direction ("-" when unknown).
devview() { # file read|write
	if [ -z "$devstat" ] || [ ! -s "$1" ]; then
		echo "- -"
		return 0
	fi
	# Fields after the uptime: $2 reads, $4 sectors read, $5 ms reading, $6 writes,
	# $8 sectors written, $9 ms writing.
	awk -v secs="$secs" -v dirn="$2" '
	{ t[NR] = $1
	  if (dirn == "read") { c[NR] = $2; s[NR] = $4; q[NR] = $5 }
	  else { c[NR] = $6; s[NR] = $8; q[NR] = $9 } }
	END {
		# The end of the run: the last 50 ms interval with at least a tenth of the
		# busiest interval of requests (not a journal commit or a write after the run).
		n = NR
		for (i = 2; i <= n; i++) if (c[i] - c[i - 1] > top) top = c[i] - c[i - 1]
		e = n
		while (e > 1 && c[e] - c[e - 1] < top / 10) e--
		b = e
		while (b > 1 && t[b] > t[e] - secs) b--  # secs before that (or the first sample)
		dc = c[e] - c[b]; dt = t[e] - t[b]
		if (dc <= 0 || dt <= 0) { print "- -"; exit }
		printf "%.0f %.2f\n", (s[e] - s[b]) * 512 / 1024 / dc, (q[e] - q[b]) / (dt * 1000)
	}' "$1"
}

# One run of diskbench: prints "MB/s IOPS p99_us KiB qd". Fails unless every row says its
# buffers were on the pages asked for.
run_ours() { # test engine block_bytes depth
	dirn="read"
	case $1 in *write*) dirn="write" ;; esac
	wait_idle
	sample_start "$tmp/dev.ours"
	# shellcheck disable=SC2086 # $oursopts is a list of words
	"$bin" --dir "$dir" --file-size 1GiB --test "$1" --block "$3" --engine "$2" \
		--iodepth "$4" --direct on --buffer-pages "$pages" --reps "$reps" \
		--runtime "$per_rep" --min-time 1 --quiet --format csv --output "$tmp/ours.csv" $oursopts
	sample_stop "$tmp/dev.ours"
	if grep '^disk,' "$tmp/ours.csv" | grep -qv "buffer_pages=$pages"; then
		echo "diskbench rows not on $pages pages: $(cut -d, -f24 "$tmp/ours.csv" | sort -u)" >&2
		exit 1
	fi
	m=$(awk -F, '$6 == "throughput" { m = $9 } $6 == "iops" { i = $9 } $6 == "latency" { p = $18 }
		END { printf "%s %s %s\n", m, (i == "" ? 0 : i), p }' "$tmp/ours.csv")
	echo "$m $(devview "$tmp/dev.ours" "$dirn")"
}

# One run of fio on the same job: prints "MB/s IOPS p99_us KiB qd" (total latency, like ours).
run_fio() { # test fio_rw engine block_bytes depth
	fioeng=$3
	[ "$fioeng" = uring ] && fioeng=io_uring
	dirn="read"
	sync=""
	case $2 in *write*) dirn="write" sync="--end_fsync=1 --scramble_buffers=0" ;; esac
	# diskbench writes its file just before measuring, with O_DIRECT 4 MiB writes after a
	# fallocate. fio's own layout writes through the page cache instead, and on a VM disk
	# the two layouts read back at different speeds (the host's cache under the guest), so
	# fio's file is laid out here the way diskbench lays out its own. Reusing an old file
	# would compare a fresh file with a stale one.
	rm -f "$fiofile"
	wait_idle
	fio --name=layout --filename="$fiofile" --size=1G --direct=1 --ioengine=psync \
		--bs=4194304 --rw=write --fallocate=native --end_fsync=1 --output-format=terse >/dev/null
	# Plain bytes for --bs: with its default kb_base=1024 fio reads "MiB" as 10^6.
	wait_idle
	sample_start "$tmp/dev.fio"
	# shellcheck disable=SC2086 # $sync and $fioopts are words
	fio --name="$1" --filename="$fiofile" --size=1G --direct=1 --ioengine="$fioeng" \
		--bs="$4" --iodepth="$5" --rw="$2" --mem="$fiomem" --numjobs=1 --time_based \
		--runtime="$secs" --ramp_time=1 --lat_percentiles=1 $sync $fioopts \
		--output-format=json >"$tmp/fio.json"
	sample_stop "$tmp/dev.fio"
	m=$(jq -r "[.jobs[0].$dirn.bw_bytes / 1e6, .jobs[0].$dirn.iops,
		.jobs[0].$dirn.lat_ns.percentile[\"99.000000\"] / 1e3] | @tsv" "$tmp/fio.json" | tr '\t' ' ')
	rm -f "$fiofile"
	echo "$m $(devview "$tmp/dev.fio" "$dirn")"
}

# One round: both tools, the order alternating between rounds so that whatever the first
# run leaves behind (host write-back, burst credits) does not always favour the same tool.
# Prints "ours: mbps iops p99 KiB qd, fio: mbps iops p99 KiB qd, ratio" (11 columns).
round() { # round_number test fio_rw engine block_bytes depth
	if [ $(($1 % 2)) -eq 1 ]; then
		o=$(run_ours "$2" "$4" "$5" "$6")
		f=$(run_fio "$2" "$3" "$4" "$5" "$6")
	else
		f=$(run_fio "$2" "$3" "$4" "$5" "$6")
		o=$(run_ours "$2" "$4" "$5" "$6")
	fi
	echo "$o $f" | awk '{ print $0, ($6 > 0 ? sprintf("%.3f", $1 / $6) : "-") }'
}

# Median of one column of $tmp/rounds ("-" ignored).
median() { # column
	cut -d' ' -f"$1" "$tmp/rounds" | grep -v '^-$' | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
minmax() { # column
	cut -d' ' -f"$1" "$tmp/rounds" | grep -v '^-$' | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 }
		END { printf "%s-%s", lo, hi }'
}

job() { # name test fio_rw engine block_bytes depth
	name=$1
	shift
	: >"$tmp/rounds"
	r=0
	while [ "$r" -lt "$rounds" ]; do
		r=$((r + 1))
		round "$r" "$@" >>"$tmp/rounds"
		awk -v r="$r" '{ printf "    round %d: ours %8.1f MB/s %8.0f IOPS p99 %8.1f us dev %5s KiB qd %5s | fio %8.1f MB/s %8.0f IOPS p99 %8.1f us dev %5s KiB qd %5s | ours/fio %s\n",
			r, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }' "$tmp/rounds" | tail -n 1
	done
	printf '%s (%d rounds x %s s): ours/fio median of per-round ratios %s (min-max %s)\n' \
		"$name" "$rounds" "$secs" "$(median 11)" "$(minmax 11)"
	printf '    medians: ours %.1f MB/s %.0f IOPS p99 %.1f us dev %s KiB qd %s | fio %.1f MB/s %.0f IOPS p99 %.1f us dev %s KiB qd %s | ratio of medians %.3f\n' \
		"$(median 1)" "$(median 2)" "$(median 3)" "$(median 4)" "$(median 5)" \
		"$(median 6)" "$(median 7)" "$(median 8)" "$(median 9)" "$(median 10)" \
		"$(awk "BEGIN { print $(median 1) / $(median 6) }")"
}

date -u +"%Y-%m-%dT%H:%M:%SZ $(uname -r) $(nproc) CPUs, dir $dir (device $devname), MEM=$mem: diskbench --buffer-pages $pages, fio --mem=$fiomem, $(fio --version), $rounds rounds x $secs s${fioopts:+, FIO_OPTS=$fioopts}${oursopts:+, OURS_OPTS=$oursopts}"
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
