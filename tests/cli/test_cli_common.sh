#!/bin/sh
# One table over every binary (issue 27): each one's --help (exit 0, names the common
# options), a bad flag (exit 2, exactly one line on stderr), and --format csv / json with
# --output FILE at a tiny size validated by schema_check. A binary that is not built is
# skipped with the reason; the test fails if nothing at all ran.
# Usage: test_cli_common.sh SCHEMA_CHECK NAME=PATH...   (PATH "-": not built)
set -u
check=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0 ran=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# The cache sizes given as a user may give them (the reported ones, unmeasured): peakinfo's
# two runs here check its options and formats, not its 1.3 s latency curve.
export PEAKBENCH_CACHE_EFFECTIVE=l1d=0:unmeasured,l2=0:unmeasured,l3=0:unmeasured
# ... and the loopback peak handed over as run_all.sh hands peakinfo's: netbench's two runs
# check its options and formats, not the second of copying that measures it.
export PEAKBENCH_LOOPBACK_GBPS=100

# EAL arguments that need no hugepages and no NIC (as tests/dpdk/lib.sh).
EAL="-l 0 --no-huge --no-pci -m 512 --no-shconf --no-telemetry --file-prefix pbcli$$ --log-level=*:critical --vdev=net_ring0 --"

# The table: name | how to call it (mode or EAL arguments before the options) | the common
# options its --help must name | tiny arguments of a measured run.
table() {
	cat <<TABLE
cpubench||--format --output --reps --min-time|--isa best --test flops --precision dp --threads 1 --min-time 0.01 --reps 1 --ci 0 --quiet
linpack||--format --output --reps --min-time|--n 64 --reps 1 --ci 0 --quiet
membench||--format --output --reps --min-time|--test stream --size 192KiB --threads 1 --min-time 0.01 --reps 1 --ci 0 --quiet
diskbench||--format --output --reps --min-time|--dir $tmp/disk --file-size 1MiB --test seq_read --block 64KiB --runtime 0.01 --threads 1 --reps 1 --ci 0 --quiet
netbench|loopback|--format --output --reps --min-time|--test tcp_throughput --bytes 1MiB --threads 1 --reps 1 --ci 0 --quiet
dpdkbench|$EAL|--format --output --reps|--role loopback --sizes 64 --flows 1 --time 0.01 --reps 1 --ci 0 --quiet
peakinfo||--format --output --reps --min-time|--quiet
clusterbench||--format --output --reps --min-time|-
TABLE
}
# dpdkbench has no --min-time: a repetition lasts --time (PEAK_OPTS_COMMON_REPORT).
# --ci 0: one repetition, what is written, not the stopping rule (tests/unit/test_reps.c).
# Tiny arguments "-": no measured run here. clusterbench needs mpirun with two ranks in two
# network namespaces: its measured run and schema check are tests/cluster's (cluster_schema).

path_of() {
	for kv in "$@"; do
		[ "${kv%%=*}" = "$name" ] && { echo "${kv#*=}"; return; }
	done
	echo -
}

# shellcheck disable=SC2086 # pre and args are word lists on purpose
one() {
	bin=$(path_of "$@")
	if [ "$bin" = - ] || [ ! -x "$bin" ]; then
		echo "SKIP: $name: not built here"
		return
	fi
	# clusterbench starts MPI first, and OpenMPI's own allocations outlive MPI_Finalize:
	# LeakSanitizer would turn every exit into 1 (tests/cluster/lib.sh does the same).
	[ "$name" != clusterbench ] || export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	"$bin" $pre --help >"$tmp/help" 2>"$tmp/err"
	rc=$?
	for flag in $flags; do
		if ! grep -q -- "$flag" "$tmp/help"; then
			fail "$name --help does not name $flag"
		fi
	done
	[ "$rc" -eq 0 ] || fail "$name --help exited $rc"
	"$bin" $pre --no-such-flag >/dev/null 2>"$tmp/err" </dev/null
	rc=$? lines=$(wc -l <"$tmp/err")
	[ "$rc" -eq 2 ] || fail "$name --no-such-flag exited $rc, expected 2"
	[ "$lines" -eq 1 ] || fail "$name --no-such-flag printed $lines lines on stderr: $(cat "$tmp/err")"
	if [ "$args" = - ]; then
		echo "SKIP: $name: --help and a bad flag checked; no tiny run in this table yet"
		ran=$((ran + 1))
		return
	fi
	for fmt in csv json; do
		out="$tmp/$name.$fmt"
		mkdir -p "$tmp/disk"
		"$bin" $pre $args --format "$fmt" --output "$out" </dev/null 2>"$tmp/err"
		rc=$?
		if [ "$name" = dpdkbench ] && [ "$rc" -eq 3 ]; then
			echo "SKIP: dpdkbench: EAL cannot start here: $(tail -n 1 "$tmp/err")"
			return
		fi
		if [ "$rc" -ne 0 ]; then
			fail "$name --format $fmt exited $rc: $(tail -n 2 "$tmp/err")"
			continue
		fi
		"$check" "$fmt" "$out" >/dev/null 2>"$tmp/err" ||
			fail "$name --format $fmt: schema_check refused it: $(head -c 400 "$tmp/err")"
	done
	ran=$((ran + 1))
	echo "ok: $name"
}

table >"$tmp/table"
while IFS='|' read -r name pre flags args; do
	one "$@"
done <"$tmp/table"
[ "$ran" -gt 0 ] || fail "no binary ran"
[ "$fails" -eq 0 ] || exit 1
