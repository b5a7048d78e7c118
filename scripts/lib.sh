# shellcheck shell=bash
# Shared helpers for run_all.sh and scripts/baseline/*.sh: tool presence, durations, the
# loopback peak and DPDK's EAL memory. Results are read and shaped by the results program
# (scripts/peakresults), never here.

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
# hugepages ("-m MB --in-memory": EAL's hugepage files are never created, so nothing is
# left behind) when a hugetlbfs is mounted and the free, unreserved huge pages of the default
# size cover PROCS x MB; ordinary memory ("--no-huge --no-shconf -m MB") otherwise.
# PEAKBENCH_DPDK_HUGE=no forces ordinary memory, =yes hugepages. Nothing is allocated or
# mounted here. MOUNTS and MEMINFO (default /proc/mounts, /proc/meminfo) let tests pass fakes.
# peak_dpdk_eal_mem PROCS MB [MOUNTS [MEMINFO]]
peak_dpdk_eal_mem() {
	local procs=$1 mb=$2 mounts=${3:-/proc/mounts} meminfo=${4:-/proc/meminfo} huge=0
	case ${PEAKBENCH_DPDK_HUGE:-auto} in
	yes) huge=1 ;;
	no) ;;
	*)
		if awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' "$mounts" 2>/dev/null &&
			awk -v need_kb=$((procs * mb * 1024)) '
			$1 == "HugePages_Free:" { free = $2 }
			$1 == "HugePages_Rsvd:" { rsvd = $2 }
			$1 == "Hugepagesize:" { kb = $2 }
			END { exit !(kb > 0 && (free - rsvd) * kb >= need_kb) }' "$meminfo" 2>/dev/null; then
			huge=1
		fi
		;;
	esac
	if [ "$huge" = 1 ]; then
		printf '%s\n' -m "$mb" --in-memory
	else
		printf '%s\n' --no-huge --no-shconf -m "$mb"
	fi
}
