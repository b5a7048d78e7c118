#!/bin/bash
# The client facing a closed port, a dead (stopped) server, a server killed mid-test, and
# a second server on a port in use: exit 1, one line on stderr, within the timeout.
# Usage: client_errors.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

# A port that was just free: start a server on port 0, note the port, kill it.
start_server gone -- --quiet
closed=$PORT
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null
expect_exit 1 15 closed_port "$NB" client --quiet --host 127.0.0.1 --port "$closed" --timeout 2

# A server that accepts (the kernel's backlog) but never answers: it never will, so a
# short timeout proves the same as a long one.
start_server stopped -- --quiet
kill -STOP "$SERVER_PID"
expect_exit 1 15 dead_server "$NB" client --quiet --host 127.0.0.1 --port "$PORT" --timeout 0.3
kill -CONT "$SERVER_PID"

# Port already in use.
expect_exit 1 15 port_in_use "$NB" server --port "$PORT"

# The server dies in the middle of a test: killed once it holds the test's data sockets,
# however slowly the client got there (sanitizer builds start slowly). The bound only
# catches a client that would run its whole --time 30 or hang.
for t in tcp_throughput udp_throughput tcp_latency udp_latency; do
	start_server "victim_$t" -- --quiet
	(wait_in_test "$SERVER_PID" || echo "FAIL: $t: no test on the server, killed anyway" >&2
	 kill -9 "$SERVER_PID") &
	expect_exit 1 15 "server_killed_$t" "$NB" client --quiet --host 127.0.0.1 --port "$PORT" \
		--test "$t" --time 30 --timeout 1
done
