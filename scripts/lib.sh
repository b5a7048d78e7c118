# shellcheck shell=bash
# Shared helpers for run_all.sh, scripts/dpdk_memif_pair.sh and cluster/bench_cluster.sh:
# tool presence, durations, the loopback peak and DPDK's EAL memory. Results are read and
# shaped by the results program (scripts/peakresults), never here.

# The checkout this file belongs to (loopback_peak calls the results program from it).
PEAK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

peak_have() { command -v "$1" >/dev/null 2>&1; }

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

# peakinfo's loopback peak (Gbit/s) from the run's raw output; fails when there is none.
loopback_peak() { # dir
	local v
	v=$(python3 "$PEAK_ROOT/scripts/peakresults" theoretical "$1/raw/peakinfo.json" network loopback) || return 1
	[ -n "$v" ] || return 1
	printf '%s\n' "$v"
}

# dpdkbench's EAL memory arguments, one word a line, for PROCS processes of MB MiB each:
# hugepages when a hugetlbfs is mounted and the free, unreserved pages cover them, ordinary
# memory otherwise; PEAKBENCH_DPDK_HUGE=yes|no overrides. The rule is the results program's
# (scripts/peakresults/plan/plan.py dpdk_eal_mem, which run_all.sh's plan also uses), written
# once. MOUNTS and MEMINFO (default /proc/mounts, /proc/meminfo) let tests pass fakes.
# peak_dpdk_eal_mem PROCS MB [MOUNTS [MEMINFO]]
peak_dpdk_eal_mem() {
	python3 "$PEAK_ROOT/scripts/peakresults" eal-mem "$@"
}
