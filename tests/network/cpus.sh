#!/bin/bash
# netbench loopback --cpus / --server-cpus: the client's and the server's threads on the
# CPUs given (read from /proc while a test runs), the context says which, and a CPU the
# process may not use is exit 2 with one line. Usage: cpus.sh NETBENCH SCHEMA_CHECK
set -u
# shellcheck source=tests/network/lib.sh
. "$(dirname "$0")/lib.sh"
command -v taskset >/dev/null 2>&1 || { echo "SKIP: no taskset (util-linux)"; exit 77; }
mapfile -t allowed < <(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)), sep="\n")' 2>/dev/null ||
	taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | grep -v -- -)
[ "${#allowed[@]}" -ge 1 ] || fail "no CPU allowed?"
c=${allowed[0]} s=${allowed[${#allowed[@]} - 1]}
"$NB" loopback --quiet --test tcp_throughput --time 0.3 --reps 1 --ci 0 --cpus "$c" --server-cpus "$s" \
	--format json --output "$tmp/out.json" &
pid=$!
# every thread of the run, every 50 ms until it ends (bounded: 10 s; --time 0.3 gives a
# few looks during the test): the client's on c, the server's on s
seen=""
for _ in $(seq 200); do
	sleep 0.05
	kill -0 "$pid" 2>/dev/null || break
	for t in /proc/"$pid"/task/*; do
		m=$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status" 2>/dev/null) && seen+=" $m"
	done
done
wait "$pid" || fail "netbench exited $?"
[ -n "$seen" ] || fail "no thread was seen while the test ran"
for m in $seen; do
	[ "$m" = "$c" ] || [ "$m" = "$s" ] || fail "a thread ran on $m, not $c or $s"
done
grep -q "\"netbench.cpus\":[[:space:]]*\"$c\"" "$tmp/out.json" || fail "the context lacks netbench.cpus $c"
grep -q "\"netbench.server_cpus\":[[:space:]]*\"$s\"" "$tmp/out.json" || fail "the context lacks netbench.server_cpus $s"
# a CPU outside the mask: run on one CPU, ask for another
if [ "${#allowed[@]}" -ge 2 ]; then
	for flag in --cpus --server-cpus; do
		taskset -c "$c" "$NB" loopback --quiet --test tcp_latency --time 0.05 --reps 1 --ci 0 "$flag" "$s" \
			>/dev/null 2>"$tmp/err"
		rc=$?
		[ "$rc" -eq 2 ] || fail "$flag $s outside the mask: exit $rc, not 2"
		[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$flag: expected one line: $(cat "$tmp/err")"
		grep -q -- "$flag: CPU $s" "$tmp/err" || fail "$flag: the line does not name CPU $s: $(cat "$tmp/err")"
	done
fi
echo "ok: netbench --cpus $c --server-cpus $s"
