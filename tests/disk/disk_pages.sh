#!/bin/sh
# diskbench --buffer-pages at tiny sizes: every row says which pages its I/O buffers were
# on, the kind asked for is the kind recorded, and a required kind that cannot be had is
# exit 3 with the reason (and no file left behind).
# Usage: disk_pages.sh auto|huge|hugetlb|thp|small|scattered|refused DISKBENCH WORKDIR
# Exit 0 pass, 1 fail, 77 skipped (with the reason on stdout).
set -u
case_name=$1
bin=$2

TEST_NAME="pages $case_name"
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$3/pages_$case_name"

# hugetlb pages a new mapping can still reserve (free - reserved), 0 without a pool.
hugetlb_available() {
	awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 }
		END { print (f - r > 0 ? f - r : 0) }' /proc/meminfo
}
thp_enabled() {
	[ -r /sys/kernel/mm/transparent_hugepage/enabled ] &&
		! grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled
}

# Reads and writes, small and large blocks; buffers need at most 4 MiB (pattern) + 4 MiB
# (4 slots of 1 MiB): 4 hugetlb pages at a time, 8 with rounding.
run() { # --buffer-pages value
	"$bin" --dir "$dir" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet --iodepth 4 \
		--test seq_read,seq_write,rand_read,seq_rw --block 4KiB,1MiB --buffer-pages "$1" \
		--format csv >"$work/out" 2>"$work/err"
	rc=$?
}

# Every row must carry buffer_pages= with one of the allowed values (a regex).
check_rows() { # allowed-values-regex
	n=$(grep -c '^disk,' "$work/out")
	[ "$n" -gt 0 ] || fail "no rows: $(cat "$work/err")"
	ok=$(grep '^disk,' "$work/out" | grep -cE "(^|[,;])buffer_pages=($1)(;|\$)")
	[ "$ok" -eq "$n" ] || fail "$ok of $n rows have buffer_pages=($1): $(grep -o 'buffer_pages=[a-z-]*' "$work/out" | sort | uniq -c | tr '\n' ' ')"
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "left behind: $(find "$dir" -mindepth 1)"
}

case $case_name in
auto)
	run auto
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "hugetlb|thp|thp-requested|small|mixed"
	;;
small)
	run small
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "small"
	;;
scattered)
	run scattered
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "scattered"
	;;
hugetlb)
	[ "$(hugetlb_available)" -ge 8 ] || skip "fewer than 8 hugetlb pages available (vm.nr_hugepages)"
	run hugetlb
	if [ "$rc" -eq 3 ] && [ "$(hugetlb_available)" -lt 8 ]; then
		skip "the hugetlb pool emptied meanwhile: $(cat "$work/err")"
	fi
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "hugetlb"
	;;
thp)
	thp_enabled || skip "transparent huge pages are off (never, or not built)"
	run thp
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "thp|thp-requested"
	;;
huge)
	if [ "$(hugetlb_available)" -lt 8 ] && ! thp_enabled; then
		skip "neither hugetlb pages nor THP here"
	fi
	run huge
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	check_rows "hugetlb|thp|thp-requested|mixed"
	;;
refused)
	# 1 GiB of read buffers (1024 slots of 1 MiB) on hugetlb pages: more than the pool has.
	[ "$(hugetlb_available)" -lt 512 ] || skip "the hugetlb pool has room for 1 GiB"
	over=$(cat /proc/sys/vm/nr_overcommit_hugepages 2>/dev/null || echo 0)
	[ "$over" -eq 0 ] || skip "vm.nr_overcommit_hugepages lets the pool grow"
	"$bin" --dir "$dir" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet --engine uring \
		--iodepth 1024 --test seq_read --block 1MiB --buffer-pages hugetlb \
		>/dev/null 2>"$work/err"
	rc=$?
	if [ "$rc" -eq 3 ] && grep -q "io_uring\|uring" "$work/err" && ! grep -q hugetlb "$work/err"; then
		skip "no io_uring here: $(cat "$work/err")"
	fi
	[ "$rc" -eq 3 ] || fail "expected exit 3, got $rc: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$work/err")"
	grep -q "hugetlb" "$work/err" || fail "no reason in: $(cat "$work/err")"
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "left behind: $(find "$dir" -mindepth 1)"
	;;
*)
	fail "unknown case"
	;;
esac
echo "ok: pages $case_name"
