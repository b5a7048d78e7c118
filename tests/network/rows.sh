#!/bin/bash
# netbench's rows in order at a tiny size: points test, then size, then connections; a
# measured point's main row first, then its extra rows; an unsupported size is one row
# with its reason; steal/oversubscribed (the harness's, per point) on every row of a point
# or on none. Usage: rows.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

timeout 60 "$NB" loopback --quiet --test tcp_throughput,udp_latency --buffer 16KiB \
	--msg-size 1B,16B --threads 1,3 --time 0.02 --reps 1 --ci 0 --warmup 5 --format csv \
	--output "$tmp/out.csv" || fail "netbench exited $?"
cat >"$tmp/want" <<'ROWS'
tcp_throughput,tcp,1,16384,throughput
tcp_throughput,tcp,1,16384,cpu_sender
tcp_throughput,tcp,1,16384,cpu_receiver
tcp_throughput,tcp,3,16384,throughput
tcp_throughput,tcp/conn0,3,16384,throughput_conn
tcp_throughput,tcp/conn1,3,16384,throughput_conn
tcp_throughput,tcp/conn2,3,16384,throughput_conn
tcp_throughput,tcp,3,16384,cpu_sender
tcp_throughput,tcp,3,16384,cpu_receiver
udp_latency,udp,1,1,latency
udp_latency,udp,3,1,latency
udp_latency,udp,1,16,latency
udp_latency,udp,1,16,transaction_rate
udp_latency,udp,1,16,loss
udp_latency,udp,1,16,cpu_sender
udp_latency,udp,1,16,cpu_receiver
udp_latency,udp,3,16,latency
udp_latency,udp,3,16,transaction_rate
udp_latency,udp,3,16,loss
udp_latency,udp,3,16,cpu_sender
udp_latency,udp,3,16,cpu_receiver
ROWS
tail -n +2 "$tmp/out.csv" | cut -d, -f2-6 >"$tmp/got"
diff "$tmp/want" "$tmp/got" >&2 || fail "rows differ from the expected order"

reason="unsupported: UDP messages need 16..65507 bytes"
n=$(grep -c ",udp_latency,udp,[13],1,latency,us,0,.*,$reason\$" "$tmp/out.csv")
[ "$n" -eq 2 ] || fail "expected 2 unsupported rows with the reason, got $n"

# The point's standard flags: the same on each of its rows.
prev_point="" prev_std=""
while IFS=, read -r _ test _ threads block _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ flags; do
	point="$test,$threads,$block"
	std=""
	for f in steal oversubscribed; do
		case ";$flags;" in *";$f;"*) std="$std$f;" ;; esac
	done
	if [ "$point" = "$prev_point" ] && [ "$std" != "$prev_std" ]; then
		fail "point $point: rows flagged '$prev_std' and '$std'"
	fi
	prev_point=$point prev_std=$std
done < <(tail -n +2 "$tmp/out.csv")
echo "ok: $(wc -l <"$tmp/got") rows in order"
