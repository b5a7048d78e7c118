#!/usr/bin/env bash
# iperf3 baselines for netbench's throughput tests, over loopback (a server this script
# starts on 127.0.0.1 and stops by its PID).
#
# Mapping (--json; bits_per_second / 10^9 = Gbit/s, counted at the receiver as netbench does):
#   -l 64K -P T           end.sum_received      -> network tcp_throughput tcp  (T threads, 65536 B)
#   -u -b 0 -l 1472 -w 4M -P T  end.sum_received -> network udp_throughput udp  (T threads, 1472 B)
#                         end.sum.lost_percent  -> network udp_throughput udp loss (%)
# -O 1 (not in tiny mode): the first second is left out of the sums, as netbench leaves
# out its warm-up repetition. --cpu N: -A N, the client on CPU N as netbench's first
# team thread (the servers of both float).
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=iperf3

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files iperf3
	exit
fi

skip_all() {
	bl_skip "$TOOL" tcp_throughput throughput Gbit/s "$1"
	bl_skip "$TOOL" udp_throughput throughput Gbit/s "$1"
}
bl_have iperf3 || { skip_all "iperf3 not installed (Debian: apt install iperf3)"; bl_finish iperf3; exit 0; }

case $BL_MODE in
full) secs=3 ;;
*) secs=1 ;;
esac
secs=${BL_SECONDS:-$secs}
threads=${BL_THREADS//,/ }
[ "$BL_MODE" != tiny ] || threads=1

port=$((20000 + $$ % 10000))
[ "$BL_PLAN" = 0 ] || { echo "iperf3 -s -B 127.0.0.1 -p $port"; server=""; }
# An if, not "[ ... ] || iperf3 ... &": that backgrounds the whole list in a subshell, $! is
# the subshell, and killing it left the iperf3 server running after every run.
if [ "$BL_PLAN" = 0 ]; then
	iperf3 -s -B 127.0.0.1 -p "$port" >"$BL_RAW/iperf3-server.log" 2>&1 &
	server=$!
fi
trap '[ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$BL_PLAN" = 1 ] && break
	grep -q 'listening' "$BL_RAW/iperf3-server.log" 2>/dev/null && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.2
done
if [ "$BL_PLAN" = 0 ] && ! kill -0 "$server" 2>/dev/null; then
	echo "iperf3.sh: iperf3 server on 127.0.0.1:$port did not start: $(tail -n 1 "$BL_RAW/iperf3-server.log")" >&2
	skip_all "failed: the iperf3 server did not start"
	bl_finish iperf3
	exit 1
fi

rc=0
for t in $threads; do
	for proto in tcp udp; do
		bl_want "${proto}_throughput" || continue
		out="$BL_RAW/iperf3-$proto-P$t.json"
		if [ "$proto" = tcp ]; then
			opts=(-l 64K)
		else
			# -w 4M: the socket buffers netbench's UDP sockets take (network/net_udp.c
			# SOCKBUF_BYTES, both ends): with the default 208 KiB, iperf3's receiver
			# dropped 4.4% of the datagrams where netbench's dropped none (seventh session)
			opts=(-u -b 0 -l 1472 -w 4M)
		fi
		[ "$BL_MODE" = tiny ] || opts+=(-O 1)
		# --cpu N [--server-cpu M]: -A N[,M], the client (and the server, for this test)
		# where netbench's --cpus and --server-cpus put its own
		[ -z "$BL_CPU" ] || opts+=(-A "$BL_CPU${BL_SERVER_CPU:+,$BL_SERVER_CPU}")
		if bl_run $((secs + 31)) "$out" iperf3 -c 127.0.0.1 -p "$port" "${opts[@]}" -t "$secs" -P "$t" --json; then
			continue
		fi
		echo "iperf3.sh: iperf3 $proto -P $t failed: $(grep -o '"error":.*' "$out" 2>/dev/null)" >&2
		bl_skip "$TOOL" "${proto}_throughput" throughput Gbit/s "failed: iperf3 -P $t exited non-zero"
		rc=1
	done
done
bl_finish iperf3 || rc=1
exit "$rc"
