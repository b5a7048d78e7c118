#!/usr/bin/env bash
# The EAL memory rule (plan.dpdk_eal_mem, through scripts/lib.sh's peak_dpdk_eal_mem, as
# dpdk_memif_pair.sh calls it) against fake /proc/mounts and /proc/meminfo: hugepages
# only with a hugetlbfs mounted and enough free, unreserved pages for every process;
# PEAKBENCH_DPDK_HUGE=yes|no overrides. Reads only the fake files; allocates nothing.
set -u
repo=$1
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
unset PEAKBENCH_DPDK_HUGE

HUGE='-m 512 --in-memory'
SMALL='--no-huge --no-shconf -m 512'

cat >"$t/mounts" <<'M'
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
nodev /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0
M
grep -v hugetlbfs "$t/mounts" >"$t/mounts.none"
# meminfo FREE RSVD PAGE_KB: a fake /proc/meminfo
meminfo() {
	printf 'MemTotal:        8000000 kB\nHugePages_Total:     %s\nHugePages_Free:      %s\nHugePages_Rsvd:      %s\nHugePages_Surp:        0\nHugepagesize:       %s kB\n' \
		"$1" "$1" "$2" "$3"
}

# expect WANT PROCS MOUNTS FREE RSVD PAGE_KB: what the chooser prints, as one line
expect() {
	local want=$1 procs=$2 mounts=$3 got
	meminfo "$4" "$5" "$6" >"$t/meminfo"
	got=$(peak_dpdk_eal_mem "$procs" 512 "$mounts" "$t/meminfo" | tr '\n' ' ')
	[ "$got" = "$want " ] ||
		fail "procs=$procs mounts=${mounts##*/} free=$4 rsvd=$5 page=${6}kB: got '$got', want '$want'"
	ok "procs=$procs ${mounts##*/} free=$4 rsvd=$5 page=${6}kB -> $want"
}

expect "$HUGE" 1 "$t/mounts" 256 0 2048          # exactly 512 MiB free
expect "$SMALL" 1 "$t/mounts" 255 0 2048         # 2 MiB short
expect "$HUGE" 2 "$t/mounts" 600 0 2048          # 1200 MiB for two processes
expect "$SMALL" 2 "$t/mounts" 600 100 2048       # reserved pages are not free
expect "$SMALL" 3 "$t/mounts" 600 0 2048         # not enough for three
expect "$HUGE" 2 "$t/mounts" 1 0 1048576         # one free 1 GiB page
expect "$SMALL" 1 "$t/mounts.none" 1024 0 2048   # pages but no hugetlbfs mounted
expect "$SMALL" 1 "$t/mounts" 0 0 2048           # no free pages
got=$(peak_dpdk_eal_mem 1 512 "$t/mounts" "$t/missing" | tr '\n' ' ')
[ "$got" = "$SMALL " ] || fail "an unreadable meminfo gave '$got'"
ok "unreadable meminfo -> $SMALL"

meminfo 0 0 2048 >"$t/meminfo"
got=$(PEAKBENCH_DPDK_HUGE=yes peak_dpdk_eal_mem 1 512 "$t/mounts.none" "$t/meminfo" | tr '\n' ' ')
[ "$got" = "$HUGE " ] || fail "PEAKBENCH_DPDK_HUGE=yes gave '$got'"
meminfo 1024 0 2048 >"$t/meminfo"
got=$(PEAKBENCH_DPDK_HUGE=no peak_dpdk_eal_mem 1 512 "$t/mounts" "$t/meminfo" | tr '\n' ' ')
[ "$got" = "$SMALL " ] || fail "PEAKBENCH_DPDK_HUGE=no gave '$got'"
got=$(peak_dpdk_eal_mem 1 256 "$t/mounts" "$t/meminfo" | tr '\n' ' ')
[ "$got" = "-m 256 --in-memory " ] || fail "MB is not passed to -m: '$got'"
ok "PEAKBENCH_DPDK_HUGE=yes|no override; -m follows MB"
