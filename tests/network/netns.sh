#!/bin/bash
# Two hosts: network namespaces joined by a veth pair this test creates (unique names,
# addresses in 10.213.0.0/16 that exist only inside the namespaces), deleted at the end.
# Client in one, server in the other: every test runs and validates; an address nobody
# holds on the link makes the client exit 1 within its timeout.
# Usage: netns.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

id=$(($$ % 100000))
A=nbA$id B=nbB$id VA=nbva$id VB=nbvb$id
x=$(((id / 30) % 250 + 1)) y=$(((id % 30) * 8))
IPA=10.213.$x.$((y + 1)) IPB=10.213.$x.$((y + 2)) NOBODY=10.213.$x.$((y + 3))

if ! ip netns add "$A" 2>"$tmp/netns.err"; then
	echo "SKIP: ip netns add not permitted here: $(head -n 1 "$tmp/netns.err")"
	exit 77
fi
extra_cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	ip link del "$VA" 2>/dev/null # only left in the root namespace if a move failed
}
ip netns add "$B" || fail "ip netns add $B"
ip link add "$VA" type veth peer name "$VB" || fail "ip link add veth"
ip link set "$VA" netns "$A" || fail "move $VA"
ip link set "$VB" netns "$B" || fail "move $VB"
ip -n "$A" addr add "$IPA/29" dev "$VA" || fail "addr $IPA"
ip -n "$B" addr add "$IPB/29" dev "$VB" || fail "addr $IPB"
for ns in "$A" "$B"; do
	ip -n "$ns" link set lo up || fail "lo up in $ns"
done
ip -n "$A" link set "$VA" up || fail "$VA up"
ip -n "$B" link set "$VB" up || fail "$VB up"

start_server twohost ip netns exec "$B" -- --bind "$IPB" --quiet
run_client twohost ip netns exec "$A" -- --host "$IPB" --port "$PORT" --threads 1,2
grep -q '^network,tcp_throughput,tcp,1,.*,throughput,Gbit/s,' "$tmp/twohost.csv" ||
	fail "no tcp throughput row"
grep -q 'theoretical=' "$tmp/twohost.csv" || fail "no theoretical source flag"

expect_exit 1 15 unreachable ip netns exec "$A" "$NB" client --quiet --host "$NOBODY" \
	--port "$PORT" --timeout 1
