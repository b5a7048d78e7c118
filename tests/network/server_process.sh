#!/bin/bash
# netbench loopback --server-process: the server runs in a child process (seen in /proc
# while the test runs: a child of netbench, on --server-cpus), the rows come out as with a
# server thread, the context says which, and no child outlives the run, also when netbench
# is killed. Usage: server_process.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"
mapfile -t allowed < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)), sep="\n")')
s=${allowed[${#allowed[@]} - 1]}
children() { # PID: the PIDs of its children
	cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -v '^$'
}
running() { # PID: it exists and is not a zombie (dead, until init reaps it: a second or
	# more where init is a container's process manager)
	local state
	state=$(awk '/^State:/ { print $2 }' /proc/"$1"/status 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}
# Watched every 50 ms until it ends (bounded: 10 s); --time 0.3 gives a few looks at the
# server process during the test.
"$NB" loopback --quiet --test tcp_latency --msg-size 16B --time 0.3 --reps 1 --ci 0 --server-cpus "$s" \
	--server-process --format json --output "$tmp/out.json" &
pid=$!
kids=""
prog=""
for _ in $(seq 200); do
	sleep 0.05
	kill -0 "$pid" 2>/dev/null || break
	for k in $(children "$pid"); do
		# A child running netbench's own program: under qemu-aarch64 (make test ARCH=arm64)
		# both are the emulator, so the program is compared, not the name netbench.
		prog=$(readlink /proc/"$pid"/exe 2>/dev/null)
		[ "$(readlink /proc/"$k"/exe 2>/dev/null)" = "$prog" ] || continue
		kids+=" $k"
		m=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$k"/status 2>/dev/null)
		[ -z "$m" ] || [ "$m" = "$s" ] || fail "the server process ran on $m, not $s"
	done
done
wait "$pid" || fail "netbench exited $?"
[ -n "$kids" ] || fail "no server process was seen while the test ran"
"$CHECK" json "$tmp/out.json" || fail "the output fails the schema check"
grep -q '"netbench.server_kind":[[:space:]]*"process"' "$tmp/out.json" ||
	fail "the context lacks netbench.server_kind process"
python3 - "$tmp/out.json" <<'PY' || fail "no latency row with a round trip above zero"
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
assert any(r["metric"] == "latency" and (r["mean"] or 0) > 0 for r in rows)
PY
for k in $kids; do
	# (the same program: a number the kernel gave out again is not the server)
	! running "$k" || [ "$(readlink /proc/"$k"/exe 2>/dev/null)" != "$prog" ] ||
		fail "server process $k outlived the run"
done
# Without the flag a thread serves, and the context says so.
"$NB" loopback --quiet --test tcp_latency --msg-size 16B --time 0.05 --reps 1 --ci 0 --format json \
	--output "$tmp/thread.json" || fail "netbench (thread) exited $?"
grep -q '"netbench.server_kind":[[:space:]]*"thread"' "$tmp/thread.json" ||
	fail "the context lacks netbench.server_kind thread"
# Killed mid-run: the server process dies with it (PR_SET_PDEATHSIG).
"$NB" loopback --quiet --test tcp_latency --msg-size 16B --time 5 --reps 1 --server-process \
	--format json --output "$tmp/killed.json" &
pid=$!
kid=""
for _ in $(seq 100); do
	sleep 0.05
	kid=$(children "$pid" | head -1)
	[ -z "$kid" ] || break
done
[ -n "$kid" ] || fail "no server process to orphan"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 100); do
	running "$kid" || break
	sleep 0.05
done
! running "$kid" || fail "server process $kid outlived its killed parent"
echo "ok: netbench --server-process (server on CPU $s, ended with its parent)"
