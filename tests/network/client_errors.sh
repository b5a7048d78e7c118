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

# A server that accepts (the kernel's backlog) but never answers.
start_server stopped -- --quiet
kill -STOP "$SERVER_PID"
expect_exit 1 15 dead_server "$NB" client --quiet --host 127.0.0.1 --port "$PORT" --timeout 1
kill -CONT "$SERVER_PID"

# Port already in use.
expect_exit 1 15 port_in_use "$NB" server --port "$PORT"

# The server dies in the middle of a test (the bound only catches a client that would
# run its whole --time 30 or hang; sanitizer builds start slowly).
for t in tcp_throughput udp_throughput tcp_latency udp_latency; do
	start_server "victim_$t" -- --quiet
	(sleep 2; kill -9 "$SERVER_PID") &
	expect_exit 1 15 "server_killed_$t" "$NB" client --quiet --host 127.0.0.1 --port "$PORT" \
		--test "$t" --time 30 --timeout 1
done
