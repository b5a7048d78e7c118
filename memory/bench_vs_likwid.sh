#!/bin/sh
# membench against likwid-bench on the same machine, same run, bytes counted the same way
# (read + written, non-temporal stores on both sides). Each round holds the shared
# benchmark lock for all four measurements, so nothing else measures in between.
# Usage: memory/bench_vs_likwid.sh [BUILD_DIR] [ROUNDS]
# run_all.sh now pairs membench with likwid-bench by default (scripts/peakresults/plan.py
# pair_jobs, on the widest ISA the CPU has); this script stays for longer by-hand series.
set -eu
lock=/tmp/peakbench-bench.lock

# One round, run by the script itself under the lock.
# membench CSV columns 3, 9, 12, 13: variant, mean, median, max (the best repetition), MB/s.
if [ "${1:-}" = --round ]; then
	mb=$2
	"$mb" --format csv --test seq_rw --block 80MiB --size 1GiB --threads 2 --reps 5 |
		awk -F, 'NR > 1 { printf "membench seq_rw 80MiB 2 threads %s: mean %.0f median %.0f best %.0f MB/s\n", $3, $9, $12, $13 }'
	likwid-bench -t copy_mem_avx512 -w S0:1GB:2 2>&1 |
		awk '/MByte\/s/ { printf "likwid-bench copy_mem_avx512 -w S0:1GB:2: %.0f MB/s\n", $2 }'
	"$mb" --format csv --test stream --size 1GiB --threads 2 --reps 5 |
		awk -F, 'NR > 1 && $3 ~ /triad/ { printf "membench stream 2 threads %s: mean %.0f median %.0f best %.0f MB/s\n", $3, $9, $12, $13 }'
	likwid-bench -t stream_mem_avx512 -w S0:1GB:2 2>&1 |
		awk '/MByte\/s/ { printf "likwid-bench stream_mem_avx512 -w S0:1GB:2: %.0f MB/s\n", $2 }'
	exit 0
fi

build=${1:-build}
rounds=${2:-3}
mb="$build/memory/membench"
[ -x "$mb" ] || { echo "bench_vs_likwid.sh: $mb not built" >&2; exit 2; }
command -v likwid-bench >/dev/null || { echo "bench_vs_likwid.sh: likwid-bench not installed" >&2; exit 3; }
i=1
while [ "$i" -le "$rounds" ]; do
	echo "round $i: $(date -u +%Y-%m-%dT%H:%M:%SZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
	flock "$lock" "$0" --round "$mb"
	i=$((i + 1))
done
