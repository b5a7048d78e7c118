#!/bin/sh
# net_ring loopback: a short run conserves packets (sent = received + counted loss) and
# yields latency samples; with --rate, no repetition offers more than the rate. Usage:
# loopback.sh DPDKBENCH JSON_CHECK
set -u
bin=$1 check=$2
. "$(dirname "$0")/lib.sh"
probe "$bin"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# One loopback run with our options, then the accounting check of its JSON (--ci 0: the
# accounting, not the stopping rule, tests/unit/test_reps.c; issue 42), 0.05 s a repetition:
# thousands of frames at the slowest point, the rate run's 0.2 Mpps, enough to count.
run_checked() { # name, then dpdkbench options after --
	name=$1
	shift
	# shellcheck disable=SC2046
	"$bin" $(eal 0 loop) --vdev=net_ring0 -- --role loopback --time 0.05 --reps 2 --ci 0 --format json \
		--output "$tmp/$name.json" "$@" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: loopback run ($name) exited $rc" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	"$check" loopback "$tmp/$name.json" || exit 1
}

run_checked sweep --sizes 64,1500,9000 --flows 1,8 --queues 1,2
run_checked rate --sizes 64 --flows 1,8 --rate 0.2
