#!/bin/sh
# A point's rows on the harness: every point has its rows in dpdkbench's order (rx L1, L2,
# Mpps, loss, offered tx, then latency when sampled), each with --reps samples, the last
# one recorded by the harness; one progress line per point naming that row, none with
# --quiet. Usage: rows.sh DPDKBENCH
set -u
bin=$1
. "$(dirname "$0")/lib.sh"
probe "$bin"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME [options]: a loopback run at 64 bytes over 1 and 8 flows, 3 repetitions.
run() {
	name=$1
	shift
	# shellcheck disable=SC2046
	"$bin" $(eal 0 rows) --vdev=net_ring0 -- --role loopback --sizes 64 --flows 1,8 \
		--time 0.05 --reps 3 --ci 0 --format csv --output "$tmp/$name.csv" "$@" 2>"$tmp/$name.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: loopback run ($name) exited $rc" >&2
		cat "$tmp/$name.err" >&2
		exit 1
	fi
}

# check NAME WANT: the test,variant,n columns (header skipped) are exactly WANT.
check() {
	got=$(tail -n +2 "$tmp/$1.csv" | cut -d, -f2,3,8)
	if [ "$got" != "$2" ]; then
		printf 'FAIL: %s rows:\n%s\nwant:\n%s\n' "$1" "$got" "$2" >&2
		exit 1
	fi
}

point() { # flows, last row's test
	v=ring-flows$1-q1-uni
	printf 'rx_loopback,%s-l1,3\nrx_loopback,%s-l2,3\nrx_loopback,%s,3\n' "$v" "$v" "$v"
	printf 'loss_loopback,%s,3\ntx_loopback,%s,3\n' "$v" "$v"
	[ "$2" = latency_loopback ] && printf 'latency_loopback,%s,3\n' "$v"
}

run nolat --sample-every 0
check nolat "$(point 1 tx_loopback; point 8 tx_loopback)"
want_err="dpdk tx_loopback ring-flows1-q1-uni threads=1 block=64B: done
dpdk tx_loopback ring-flows8-q1-uni threads=1 block=64B: done"
if [ "$(cat "$tmp/nolat.err")" != "$want_err" ]; then
	printf 'FAIL: progress:\n%s\nwant:\n%s\n' "$(cat "$tmp/nolat.err")" "$want_err" >&2
	exit 1
fi

run lat --quiet
check lat "$(point 1 latency_loopback; point 8 latency_loopback)"
if [ -s "$tmp/lat.err" ]; then
	echo "FAIL: --quiet still printed:" >&2
	cat "$tmp/lat.err" >&2
	exit 1
fi
echo "ok: rows per point in order, the harness's last row, progress per point"
