# shellcheck shell=bash
# Shared helpers for netbench's script tests (sourced). Every server started here is
# recorded and killed on exit; every wait is bounded.
NB=$1
CHECK=$2
tmp=$(mktemp -d) || exit 1
# The loopback peak handed over as run_all.sh hands peakinfo's: measured, every CPU copies
# 64 MiB ten times, a second at each loopback client's start, and no script here reads the
# figure (netbench_schema_bytes measures it).
export PEAKBENCH_LOOPBACK_GBPS=100
PIDS=""

cleanup() {
	for p in $PIDS; do
		kill -CONT "$p" 2>/dev/null
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	if declare -F extra_cleanup >/dev/null; then
		extra_cleanup
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	for f in "$tmp"/*.log "$tmp"/*.err; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
	done
	exit 1
}

# start_server NAME [prefix command...] -- [server args...]: sets PORT and SERVER_PID.
start_server() {
	local name=$1
	shift
	local pre=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		pre+=("$1")
		shift
	done
	shift
	"${pre[@]}" "$NB" server --port 0 "$@" 2>"$tmp/$name.log" &
	SERVER_PID=$!
	PIDS="$PIDS $SERVER_PID"
	PORT=""
	for _ in $(seq 1 100); do
		PORT=$(sed -n 's/.* port \([0-9][0-9]*\) (protocol.*/\1/p' "$tmp/$name.log")
		[ -n "$PORT" ] && return 0
		kill -0 "$SERVER_PID" 2>/dev/null || fail "server $name exited: $(cat "$tmp/$name.log")"
		sleep 0.05
	done
	fail "server $name did not report its port"
}

# server_sockets PID: the sockets the process holds (a server: its listener, then a control
# connection per client, then a test's data sockets).
server_sockets() {
	find /proc/"$1"/fd -lname 'socket:*' 2>/dev/null | wc -l
}

# wait_idle SERVER_PID: until the server holds its listener alone (every client's sockets
# closed on its side); bounded (5 s).
wait_idle() {
	for _ in $(seq 1 100); do
		[ "$(server_sockets "$1")" -le 1 ] && return 0
		sleep 0.05
	done
}

# wait_in_test SERVER_PID: until the server holds a data socket beside its listener and a
# control connection (a test is running), then a moment more. 1 when none came in 10 s.
wait_in_test() {
	for _ in $(seq 1 200); do
		if [ "$(server_sockets "$1")" -ge 3 ]; then
			sleep 0.1
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# expect_exit CODE MAXSECONDS NAME command...: exit code, one stderr line, bounded time.
expect_exit() {
	local want=$1 max=$2 name=$3
	shift 3
	local t0 t1 rc
	t0=$(date +%s%N)
	timeout 60 "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
	rc=$?
	t1=$(date +%s%N)
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want"
	[ "$(wc -l <"$tmp/$name.err")" -eq 1 ] || fail "$name: expected one line on stderr"
	[ $(((t1 - t0) / 1000000)) -le $((max * 1000)) ] || fail "$name: took more than ${max}s"
	echo "ok: $name: exit $rc: $(cat "$tmp/$name.err")"
}

# run_client NAME [prefix...] -- client args: a tiny run of every test, validated as CSV.
run_client() {
	local name=$1
	shift
	local pre=()
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		pre+=("$1")
		shift
	done
	shift
	timeout 60 "${pre[@]}" "$NB" client --quiet --time 0.05 --reps 1 --ci 0 --warmup 5 --timeout 3 \
		--format csv --output "$tmp/$name.csv" "$@" 2>"$tmp/$name.err" ||
		fail "$name: client exited $?"
	"$CHECK" csv "$tmp/$name.csv" || fail "$name: CSV does not validate"
	echo "ok: $name: $(($(wc -l <"$tmp/$name.csv") - 1)) rows"
}

# two_hosts TAG OCTET: two network namespaces ($A, $B) joined by a veth pair ($VA in A, $VB in
# B) that this test creates, up, with addresses in 10.OCTET.0.0/16 that exist only inside them:
# $IPA, $IPB, and $NOBODY (on the link, held by no one). Names and addresses come from the
# test's pid, so tests running at once do not meet. Skips (77) where namespaces cannot be
# made; everything is removed at exit (extra_cleanup).
two_hosts() {
	local id=$(($$ % 100000))
	A=$1A$id B=$1B$id VA=$1va$id VB=$1vb$id
	local x=$(((id / 30) % 250 + 1)) y=$(((id % 30) * 8))
	# shellcheck disable=SC2034 # NOBODY is read by the tests that source this
	IPA=10.$2.$x.$((y + 1)) IPB=10.$2.$x.$((y + 2)) NOBODY=10.$2.$x.$((y + 3))
	if ! ip netns add "$A" 2>"$tmp/netns.err"; then
		echo "SKIP: ip netns add not permitted here: $(head -n 1 "$tmp/netns.err")"
		exit 77
	fi
	# shellcheck disable=SC2317 # called by cleanup at exit
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
	local ns
	for ns in "$A" "$B"; do
		ip -n "$ns" link set lo up || fail "lo up in $ns"
	done
	ip -n "$A" link set "$VA" up || fail "$VA up"
	ip -n "$B" link set "$VB" up || fail "$VB up"
}
