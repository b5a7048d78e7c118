#!/bin/bash
# netbench over IPv6 loopback (::1): server bound to ::1, every test, CSV validated; and a
# dual-stack server (::) serving an IPv4 client.
# Usage: ipv6.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

if ! ip -6 addr show dev lo 2>/dev/null | grep -q '::1/128'; then
	echo "SKIP: no IPv6 loopback address (::1) on this machine"
	exit 77
fi
start_server v6 -- --bind ::1 --quiet
run_client v6 -- --host ::1 --port "$PORT" --threads 1,2
grep -q '^network,udp_throughput,udp,2,' "$tmp/v6.csv" || fail "no udp_throughput row for 2"

# A dual-stack server (::) serves an IPv4 client (v4-mapped addresses on its side).
start_server dual -- --bind :: --quiet
run_client dual4 -- --host 127.0.0.1 --port "$PORT" --test tcp_throughput,udp_throughput
