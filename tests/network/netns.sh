#!/bin/bash
# Two hosts: network namespaces joined by a veth pair this test creates (unique names,
# addresses in 10.213.0.0/16 that exist only inside the namespaces), deleted at the end.
# Client in one, server in the other: every test runs and validates; an address nobody
# holds on the link makes the client exit 1 within its timeout.
# Usage: netns.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

two_hosts nb 213

start_server twohost ip netns exec "$B" -- --bind "$IPB" --quiet
run_client twohost ip netns exec "$A" -- --host "$IPB" --port "$PORT" --threads 1,2
grep -q '^network,tcp_throughput,tcp,1,.*,throughput,Gbit/s,' "$tmp/twohost.csv" ||
	fail "no tcp throughput row"
grep -q 'theoretical=' "$tmp/twohost.csv" || fail "no theoretical source flag"

expect_exit 1 15 unreachable ip netns exec "$A" "$NB" client --quiet --host "$NOBODY" \
	--port "$PORT" --timeout 1
