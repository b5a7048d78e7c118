#!/bin/sh
# SIGINT stops a long loopback run within seconds (20 s allowed: ASan builds on a loaded
# 2-vCPU CI machine, not a speed check): ports stopped, EAL cleaned up, one line
# saying it was interrupted, exit 1; the dut leaves with exit 0 on SIGINT.
# Usage: sigint.sh DPDKBENCH
set -u
bin=$1
. "$(dirname "$0")/lib.sh"
probe "$bin"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
"$bin" $(eal 0 sigint) --vdev=net_ring0 -- --role loopback --sizes 64 --flows 1 --time 60 \
	--reps 1 --format csv --output "$tmp/out.csv" 2>"$tmp/err" &
pid=$!
sleep 1
kill -INT "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid"
	echo "FAIL: loopback still running 20 s after SIGINT (of a 60 s run)" >&2
	exit 1
fi
wait "$pid"
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q interrupted "$tmp/err"; then
	echo "FAIL: after SIGINT exit $rc (want 1), stderr:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
# The dut: no tester ever comes; SIGINT ends it cleanly.
# shellcheck disable=SC2046
"$bin" $(eal 0 sigdut) --vdev=net_ring0 -- --role dut 2>"$tmp/dut.err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "FAIL: dut after SIGINT exited $rc" >&2
	cat "$tmp/dut.err" >&2
	exit 1
fi
echo "ok: loopback and dut stop cleanly on SIGINT"
