#!/bin/sh
# net_ring loopback: a short run conserves packets (sent = received + counted loss) and
# yields latency samples; with --rate, no repetition offers more than the rate. Usage: loopback.sh DPDKBENCH JSON_CHECK
set -u
bin=$1 check=$2
. "$(dirname "$0")/lib.sh"
probe "$bin"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
"$bin" $(eal 0 loop) --vdev=net_ring0 -- --role loopback --sizes 64,1500,9000 --flows 1,8 \
	--queues 1,2 --time 0.1 --reps 2 --format json --output "$tmp/out.json" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: loopback run exited $rc" >&2
	cat "$tmp/err" >&2
	exit 1
fi
"$check" loopback "$tmp/out.json"
# shellcheck disable=SC2046
"$bin" $(eal 0 loop) --vdev=net_ring0 -- --role loopback --sizes 64 --flows 1,8 --rate 0.2 \
	--time 0.1 --reps 2 --format json --output "$tmp/rate.json" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: loopback run with --rate exited $rc" >&2
	cat "$tmp/err" >&2
	exit 1
fi
"$check" loopback "$tmp/rate.json"
