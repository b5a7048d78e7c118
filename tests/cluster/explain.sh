#!/usr/bin/env bash
# The one line cluster_run.sh ends with, decided on a recorded failure (no MPI needed): a
# stub mpirun replays the stderr of a run whose rank on 10.9.0.3 was killed, where a pair
# between two live nodes (10.9.0.4 -> 10.9.0.2) reported first while mpirun tore the job
# down; the line must name 10.9.0.3 and the round. Without a dead rank, clusterbench's
# first line is kept. usage: explain.sh REPO
set -u
REPO=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$tmp/bin" "$tmp/build/cluster"
printf '#!/bin/sh\nexit 0\n' >"$tmp/build/cluster/clusterbench"
printf 'localhost\nlocalhost\n' >"$tmp/hosts"
run() { # stderr-file -> the line cluster_run.sh printed
	cat >"$tmp/bin/mpirun" <<STUB
#!/bin/sh
cat "$1" >&2
exit 1
STUB
	chmod +x "$tmp/bin/mpirun" "$tmp/build/cluster/clusterbench"
	rm -rf "$tmp/out"
	PATH="$tmp/bin:$PATH" bash "$REPO/scripts/cluster_run.sh" --hostfile "$tmp/hosts" \
		--build-dir "$tmp/build" --out "$tmp/out" >/dev/null 2>"$tmp/line"
	cat "$tmp/line"
}
cat >"$tmp/died.err" <<'ERR'
clusterbench: round 2: 10.9.0.4 -> 10.9.0.2 failed: connection 0: Connection reset by peer (server gone?)
clusterbench: round 2: 10.9.0.1 -> 10.9.0.3 failed: connection 0: Broken pipe (server gone?)
--------------------------------------------------------------------------
mpirun noticed that process rank 2 with PID 6172 on node 10.9.0.3 exited on signal 9 (Killed).
ERR
line=$(run "$tmp/died.err")
[ "$(printf '%s\n' "$line" | wc -l)" = 1 ] || fail "want one line, got: $line"
case $line in *"round 2: 10.9.0.1 -> 10.9.0.3 failed"*) ;; *) fail "the line does not name the dead host: $line" ;; esac
echo "ok: $line"
# a dead rank no clusterbench line names: mpirun's own line, with the round
grep -v '^clusterbench' "$tmp/died.err" >"$tmp/signal.err"
line=$(run "$tmp/signal.err")
case $line in *"round 1: process rank 2 with PID 6172 on node 10.9.0.3 exited on signal 9"*) ;;
*) fail "mpirun's line with the round not kept: $line" ;; esac
echo "ok: $line"
# no dead rank (a stalled pair): clusterbench's first line
printf 'clusterbench: round 3: 10.9.0.1 -> 10.9.0.2 failed: no data for 10 s (stalled?)\n' >"$tmp/stall.err"
line=$(run "$tmp/stall.err")
case $line in *"round 3: 10.9.0.1 -> 10.9.0.2 failed: no data"*) ;; *) fail "clusterbench's line not kept: $line" ;; esac
echo "ok: $line"
