#!/bin/sh
# net_memif between two processes: the dut reflects, the tester measures both directions;
# packets are conserved per direction and latency samples come back; the dut leaves when
# the tester says QUIT. Mode "mismatch": a dut with 2 queues and a tester with 1 is a usage
# error (exit 2) and the dut is still told to leave. memif's chained descriptors duplicate jumbo frames under load in
# DPDK 22.11 (dpdkbench's accounting catches it), hence bsize=9216. Usage: memif.sh DPDKBENCH JSON_CHECK [uni]
set -u
bin=$1 check=$2 dir=${3:-bi}
dut_queues=2 tester_queues=1,2 want=0
if [ "$dir" = mismatch ]; then
	dir=bi dut_queues=2 tester_queues=1 want=2
fi
. "$(dirname "$0")/lib.sh"
probe "$bin"
tmp=$(mktemp -d) || exit 1
sock="$tmp/memif.sock"
dut_pid=
cleanup() {
	[ -n "$dut_pid" ] && kill "$dut_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck disable=SC2046
timeout 120 "$bin" $(eal "$LCORE_B" dut) --vdev=net_memif0,role=server,socket="$sock",socket-abstract=no,bsize=9216 -- \
	--role dut --queues "$dut_queues" --sizes 9000 >"$tmp/dut.out" 2>"$tmp/dut.err" &
dut_pid=$!
# The tester runs --ci 0 and 0.05 s a repetition: the accounting, not the stopping rule or a
# rate (tests/unit/test_reps.c;
# issue 42). The memif client connects once, at start: wait for the dut's socket file (a file, not
# the abstract socket memif uses by default, so that it can be waited for).
i=0
while [ ! -S "$sock" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# shellcheck disable=SC2046
timeout 120 "$bin" $(eal "$LCORE_A" tester) --vdev=net_memif0,role=client,socket="$sock",socket-abstract=no,bsize=9216 -- \
	--role tester --direction "$dir" --sizes 64,1500,9000 --flows 1,8 --queues "$tester_queues" \
	--time 0.05 --reps 2 --ci 0 --format json --output "$tmp/out.json" 2>"$tmp/tester.err"
rc=$?
wait "$dut_pid"
dut_rc=$?
dut_pid=
if [ "$rc" -ne "$want" ] || [ "$dut_rc" -ne 0 ]; then
	echo "FAIL: tester exited $rc (want $want), dut exited $dut_rc" >&2
	cat "$tmp/tester.err" "$tmp/dut.err" >&2
	exit 1
fi
if [ "$want" -ne 0 ]; then
	echo "ok: $(cat "$tmp/tester.err")"
	exit 0
fi
"$check" "pair-$dir" "$tmp/out.json"
