#!/usr/bin/env bash
# fio baselines for diskbench: the same file size, block size, engine, queue depth, thread
# count and O_DIRECT as diskbench, one fio run (--output-format=json), jobs in sequence.
#
# Mapping (job name TEST.ENGINE.THREADS.BLOCK; bw_bytes / 10^6 = MB/s, clat_ns / 1000 = us):
#   seq_write  psync 1 MiB, end_fsync, --overwrite=1 (fio lays the file out first, then
#              overwrites it)       -> disk seq_write psync       throughput MB/s
#   seq_write_new psync 1 MiB, end_fsync, one pass over a file of its own that fio
#              creates (and preallocates: unwritten extents) and removes after
#                                   -> disk seq_write_new psync   throughput MB/s
#   seq_read   psync 1 MiB              -> disk seq_read  psync       throughput MB/s
#   rand_read  psync 4 KiB, depth 1     -> disk rand_read psync       iops, throughput
#   rand_read  io_uring 4 KiB, depth 32 -> disk rand_read uring-qd32  iops, throughput
#   every job also gives a latency row (completion latency mean, p50/p90/p99/p99.9, us).
# Threads are fio jobs (numjobs) on disjoint regions of one file (offset_increment), as
# diskbench's threads are; the figures are the group's sums (group_reporting).
# Buffer pages: diskbench's default --buffer-pages auto puts its I/O buffers on 2 MiB
# hugetlb pages when the pool (vm.nr_hugepages) has room, and on a VM disk the pages
# change large transfers' speed (docs/disk.md). So fio gets --mem=shmhuge (hugetlb) when
# at least 40 + threads huge pages are free and unreserved (what diskbench's buffers and
# fio's take), else its default --mem=malloc; stderr says which, and every row's flags
# say mem=shmhuge;buffer_pages=hugetlb or mem=malloc.
# A paired job with --buffer-dir DIR (diskbench's --buffer-dir, disk/disk_buffer_dir.h)
# does its I/O from diskbench's very pages: every read job maps DIR/read.buf and every
# write job DIR/write.buf (--mem=mmapshared:FILE, MAP_SHARED from offset 0, where
# diskbench's first thread reads into and its write data begins); rows say
# buffer_pages=shared.
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=fio

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files fio
	exit
fi

skip_all() {
	local t
	for t in seq_write seq_write_new seq_read rand_read; do bl_skip "$TOOL" "$t" throughput MB/s "$1"; done
}
if ! bl_have fio; then
	skip_all "fio not installed (Debian: apt install fio)"
	bl_finish fio
	exit 0
fi

case $BL_MODE in
full) size_mib=1024 runtime=3 ;;
quick) size_mib=256 runtime=1 ;;
tiny) size_mib=16 runtime=1 ;;
esac
threads=${BL_THREADS//,/ }
[ "$BL_MODE" != tiny ] || threads=1
dir=$BL_DIR
own_dir=0
if [ -z "$dir" ] && [ "$BL_PLAN" = 1 ]; then
	dir=/tmp/peakbench-fio-plan
elif [ -z "$dir" ]; then
	dir=$(mktemp -d "${TMPDIR:-/var/tmp}/peakbench-fio.XXXXXX") || exit 1
	own_dir=1
fi
[ "$BL_PLAN" = 1 ] || mkdir -p "$dir" || exit 1
file="$dir/peakbench-fio.$$.dat"
cleanup() {
	rm -f "$file" "$file".new*
	[ "$own_dir" = 0 ] || rmdir "$dir" 2>/dev/null
}
trap cleanup EXIT

# Hugetlb buffers when diskbench's auto would have them (see the top).
need=40
for t in $threads; do [ $((40 + t)) -le "$need" ] || need=$((40 + t)); done
hfree=$(awk '$1 == "HugePages_Free:" { f = $2 } $1 == "HugePages_Rsvd:" { r = $2 }
	$1 == "Hugepagesize:" { kb = $2 } END { print (kb == 2048 ? f - r : 0) }' "${PEAKBENCH_MEMINFO:-/proc/meminfo}" 2>/dev/null)
if [ "${hfree:-0}" -ge "$need" ]; then
	mem=shmhuge
	echo "fio.sh: fio's buffers on hugetlb pages (--mem=shmhuge: $hfree huge pages free, $need needed), as diskbench's --buffer-pages auto would choose" >&2
else
	mem=malloc
	echo "fio.sh: fio's buffers from malloc (--mem=malloc, fio's default: ${hfree:-0} huge pages free, $need needed for hugetlb)" >&2
fi
# A paired job names the pages diskbench was given (--buffer-pages hugetlb or small).
if [ -n "$BL_MEM" ]; then
	mem=$BL_MEM
	echo "fio.sh: --mem=$mem, as the paired diskbench job's buffers" >&2
fi

# The shared buffer files: diskbench made them in its round before (fio would create a
# missing one empty, and fault on it). fio keeps a file that existed before it ran.
rmem=() wmem=()
if [ -n "$BL_BUFFER_DIR" ]; then
	for f in read.buf write.buf; do
		sz=$(stat -c %s "$BL_BUFFER_DIR/$f" 2>/dev/null || echo 0)
		if [ "$BL_PLAN" = 0 ] && [ "$sz" -lt 1048576 ]; then
			echo "fio.sh: --buffer-dir $BL_BUFFER_DIR: no $f of 1 MiB or more (diskbench --buffer-dir makes it)" >&2
			skip_all "no shared buffer file $BL_BUFFER_DIR/$f (diskbench --buffer-dir makes it)"
			bl_finish fio
			exit 1
		fi
	done
	rmem=(--mem="mmapshared:$BL_BUFFER_DIR/read.buf") wmem=(--mem="mmapshared:$BL_BUFFER_DIR/write.buf")
	echo "fio.sh: reads into $BL_BUFFER_DIR/read.buf, writes from $BL_BUFFER_DIR/write.buf (--mem=mmapshared), the paired diskbench job's pages" >&2
fi

# A paired job whose diskbench writes one repeated block (--data-period = block): fio
# writes its buffer unchanged, not scrambled before every write (fio's default).
[ "$BL_SAME_DATA" = 0 ] || echo "fio.sh: --scramble_buffers=0, as the paired diskbench job's --data-period 1MiB" >&2

uring=0
fio --enghelp 2>/dev/null | grep -qw io_uring && uring=1
[ "$BL_PLAN" = 0 ] || uring=1

args=(--output-format=json --filename="$file" --direct=1 --time_based --runtime="$runtime"
	--group_reporting --randrepeat=0 --norandommap --mem="$mem")
[ "$BL_SAME_DATA" = 0 ] || args+=(--scramble_buffers=0)
# A paired job: fio's jobs on the CPU the paired diskbench runs on (its --cpus). On a VM
# whose disk interrupts all go to one vCPU, where the thread waiting for them runs changes
# a 4 KiB read's latency (a cross-CPU wake-up or none).
if [ -n "$BL_CPU" ]; then
	args+=(--cpus_allowed="$BL_CPU")
	echo "fio.sh: --cpus_allowed=$BL_CPU, the CPU of the paired diskbench job's thread" >&2
fi
# A paired job: diskbench warms each point up (up to --min-time of I/O, default 0.2 s)
# before its timed repetitions, so the timed fio jobs ramp up as long (--ramp_time), and
# neither side's figure takes in the first moments after the previous job's writes.
timed=()
if [ -n "$BL_RAMP_MS" ] && [ "$BL_RAMP_MS" != 0 ]; then
	timed=(--ramp_time="${BL_RAMP_MS}ms")
	echo "fio.sh: --ramp_time=${BL_RAMP_MS}ms, as the paired diskbench job's warm-up" >&2
fi
new_jobs=()
for t in $threads; do
	per=$((size_mib / t))
	[ "$per" -ge 1 ] || per=1
	common=(--numjobs="$t" --size="${per}M" --offset_increment="${per}M" --stonewall)
	bl_want seq_write && args+=(--name="seq_write.psync.$t.1048576" --rw=write --bs=1M --ioengine=psync
		--end_fsync=1 --overwrite=1 "${wmem[@]}" "${common[@]}" "${timed[@]}")
	# The first write into new blocks: a file of its own per thread count, which fio sets
	# up (preallocated, unwritten) before its first job (fio #1891); one pass. These jobs
	# run last and leave their files to cleanup: fio's --unlink=1 removed the file the
	# other jobs share as well.
	bl_want seq_write_new && new_jobs+=(--name="seq_write_new.psync.$t.1048576" --filename="$file.new$t"
		--rw=write --bs=1M --ioengine=psync --end_fsync=1 --time_based=0 "${wmem[@]}" "${common[@]}")
	bl_want seq_read && args+=(--name="seq_read.psync.$t.1048576" --rw=read --bs=1M --ioengine=psync "${rmem[@]}" "${common[@]}" "${timed[@]}")
	bl_want rand_read || continue
	args+=(--name="rand_read.psync.$t.4096" --rw=randread --bs=4k --ioengine=psync "${rmem[@]}" "${common[@]}" "${timed[@]}")
	if [ "$uring" = 1 ]; then
		args+=(--name="rand_read.io_uring.$t.4096" --rw=randread --bs=4k --ioengine=io_uring
			--iodepth=32 "${rmem[@]}" "${common[@]}" "${timed[@]}")
	fi
done
args+=("${new_jobs[@]}")
[ "$uring" = 1 ] || bl_skip "$TOOL" rand_read iops IOPS "fio here has no io_uring engine"

out="$BL_RAW/fio.json"
ok=0
bl_run 900 "$out" fio "${args[@]}" && ok=1
if [ "$ok" = 0 ] && [ "$mem" = shmhuge ]; then
	# The pool can shrink between the check and fio's shmget (DPDK takes pages too).
	echo "fio.sh: fio with --mem=shmhuge failed ($(grep -v '^[[:space:]]*$' "$out.err" | tail -n 1)): again with --mem=malloc" >&2
	args=("${args[@]/#--mem=shmhuge/--mem=malloc}")
	rm -f "$file" "$file".new*
	bl_run 900 "$out" fio "${args[@]}" && ok=1
fi
if [ "$ok" = 0 ]; then
	echo "fio.sh: fio failed: $(grep -v '^[[:space:]]*$' "$out.err" | tail -n 1)" >&2
	skip_all "failed: fio exited non-zero (see fio.json.err)"
	bl_finish fio
	exit 1
fi
bl_finish fio || { echo "fio.sh: cannot read $out" >&2; exit 1; }
