#!/bin/bash
# netbench --poll-recv (iperf3's receiver, issue 25): under strace, the receiver of a TCP
# stream waits in poll() before each of its receive calls, and a UDP receiver's recvmmsg
# asks for one datagram; without the flag the UDP receiver asks for a batch. The context
# records the flag. Skipped without strace or where ptrace is not permitted.
# Usage: poll_recv.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null 2>&1 || { echo "SKIP: no strace (Debian: strace)"; exit 77; }
strace -qq -o /dev/null true 2>/dev/null || { echo "SKIP: ptrace is not permitted here"; exit 77; }
# LeakSanitizer cannot run under ptrace (an ASan build would exit 1 at the end): the leak
# check is the other tests' job
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

traced() { # NAME netbench-args...: strace of the data calls into $tmp/NAME.st
	local name=$1
	shift
	strace -f -qq -e trace=poll,ppoll,recvfrom,recvmmsg -o "$tmp/$name.st" \
		"$NB" loopback --quiet --time 0.2 --reps 1 --ci 0 --format json --output "$tmp/$name.json" "$@" \
		2>"$tmp/$name.err" || fail "$name: netbench exited $?"
}

# TCP: the receive calls on the data socket (64 KiB asked) each follow a poll in that thread
traced tcp --test tcp_throughput --poll-recv
python3 - "$tmp/tcp.st" <<'PY' || fail "tcp: a receive without a poll before it"
import re, sys
last, recvs, bare = {}, 0, 0
for ln in open(sys.argv[1]):
    m = re.match(r"(\d+)\s+(\w+)\(", ln)
    if not m:
        continue
    tid, call = m.groups()
    if call in ("poll", "ppoll"):
        last[tid] = True
    elif call == "recvfrom" and ", 65536, " in ln:
        recvs += 1
        bare += not last.get(tid)
        last[tid] = False
print(f"tcp: {recvs} receives, {bare} without a poll before")
sys.exit(0 if recvs > 0 and bare == 0 else 1)
PY
grep -q '"netbench.poll_recv":[[:space:]]*"\?1' "$tmp/tcp.json" || fail "the context lacks netbench.poll_recv 1"

# UDP: one datagram a recvmmsg with the flag, a batch of 32 without it
traced udp1 --test udp_throughput --no-gso --send-batch 1 --poll-recv
traced udp32 --test udp_throughput --no-gso --send-batch 1
n1=$(grep -c 'recvmmsg(.*\], 1, MSG_DONTWAIT' "$tmp/udp1.st")
# (a call strace printed in two parts, "<unfinished ...>", shows no vlen: not counted)
other1=$(grep 'recvmmsg(.*MSG_DONTWAIT' "$tmp/udp1.st" | grep -vc '\], 1, MSG_DONTWAIT')
n32=$(grep -c 'recvmmsg(.*\], 32, MSG_DONTWAIT' "$tmp/udp32.st")
[ "$n1" -gt 0 ] && [ "$other1" -eq 0 ] || fail "udp --poll-recv: $n1 recvmmsg of 1, $other1 of more"
[ "$n32" -gt 0 ] || fail "udp without --poll-recv: no recvmmsg of 32"
grep -q '"netbench.poll_recv":[[:space:]]*"\?0' "$tmp/udp32.json" || fail "the context lacks netbench.poll_recv 0"
echo "ok: poll before each TCP receive, one datagram a recvmmsg with --poll-recv ($n1), 32 without ($n32)"
