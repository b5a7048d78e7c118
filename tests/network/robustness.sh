#!/bin/bash
# A hostile or broken client costs the server that one connection: garbage, a stall in
# the handshake, an absurd message size, absurd test parameters, a client killed in the
# middle of TCP and UDP tests. After each, a real client must still be served.
# Usage: robustness.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"

start_server srv -- --timeout 1 --idle 5
run_client first -- --host 127.0.0.1 --port "$PORT" --test tcp_throughput,udp_latency

# Read everything the server sends until it closes the connection (bounded).
drain() { timeout 5 cat <&"$1" >"$tmp/$2.reply"; }

# 1. Garbage instead of a handshake.
exec 3<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect"
printf 'GET / HTTP/1.0\r\n\r\n' >&3
drain 3 garbage || fail "garbage: server did not close the connection"
exec 3>&-
grep -aq "not a netbench peer" "$tmp/garbage.reply" || fail "garbage: no error reply"
echo "ok: garbage rejected"

# 2. A client that stalls half-way through its HELLO; others are served meanwhile.
exec 4<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect"
printf 'PKNB\000' >&4
run_client during_stall -- --host 127.0.0.1 --port "$PORT" --test tcp_latency
drain 4 stall || fail "stall: server did not time the stalled client out"
exec 4>&-
echo "ok: stalled handshake timed out"

# 3. A header announcing a 4 GiB message.
exec 5<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect"
printf 'PKNB\000\001\000\001\377\377\377\377' >&5
drain 5 huge || fail "huge: server did not close the connection"
exec 5>&-
grep -aq "exceeds" "$tmp/huge.reply" || fail "huge: no error reply"
echo "ok: absurd message size refused"

# 4. A valid HELLO, then a TEST asking for 4 billion connections of 4 GiB blocks.
exec 6<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect"
printf 'PKNB\000\001\000\001\000\000\000\000' >&6
printf 'PKNB\000\001\000\002\000\000\000\060' >&6
printf '\000\000\000\000\377\377\377\377\377\377\377\377\000\000\000\000' >&6
printf '\377\377\377\377\377\377\377\377\000\000\000\000\000\000\000\000' >&6
printf '\000\000\000\000\000\000\000\000\000\000\003\350\000\000\000\000' >&6
drain 6 absurd || fail "absurd: server did not close the connection"
exec 6>&-
grep -aq "refused test" "$tmp/absurd.reply" || fail "absurd: no refusal"
echo "ok: absurd test parameters refused"

# 5. Clients killed in the middle of a TCP and a UDP test: once the server, idle before,
# holds the test's data sockets.
for t in tcp_throughput udp_throughput tcp_latency; do
	wait_idle "$SERVER_PID"
	"$NB" client --quiet --host 127.0.0.1 --port "$PORT" --test "$t" --time 20 \
		>/dev/null 2>&1 &
	victim=$!
	wait_in_test "$SERVER_PID" || fail "$t: the server never held the test's sockets"
	kill -9 "$victim" 2>/dev/null
	wait "$victim" 2>/dev/null
	run_client "after_$t" -- --host 127.0.0.1 --port "$PORT" --test "$t"
done
echo "ok: vanished clients cost only their session"

# 6. More idle connections at once than --max-sessions: the extra ones are refused, the
# server survives and serves again once they are gone.
fds=()
for i in $(seq 1 20); do
	exec {fd}<>"/dev/tcp/127.0.0.1/$PORT" || fail "connect $i"
	fds+=("$fd")
done
kill -0 "$SERVER_PID" || fail "server died"
for fd in "${fds[@]}"; do
	exec {fd}>&-
done
wait_idle "$SERVER_PID"
run_client last -- --host 127.0.0.1 --port "$PORT"
kill -0 "$SERVER_PID" || fail "server died"
echo "ok: server alive after all hostile clients"
