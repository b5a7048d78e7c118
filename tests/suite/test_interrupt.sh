#!/usr/bin/env bash
# Ctrl-C and SIGTERM stop run_all.sh (issue 26), at tiny sizes: SIGINT to its process group
# (what Ctrl-C sends) while diskbench runs, and while a tool's adapter waits for its tool
# (stub iperf3: a server and a client that never answer); SIGTERM to run_all.sh alone there;
# SIGINT to diskbench alone. Each time: exit 130 or 143, no step started after the signal,
# the step recorded "interrupted", the report of what ran, no process of the run left, no
# file left outside its folder (TMPDIR, /dev/shm, the disk test folder).
# Each run is one thread (--threads 1): the signals land in the same steps, and the network
# runs reach the iperf3 adapter after half of netbench's points (issue 42). The cache sizes
# and the cloud are given (given_caches_and_cloud, lib_test.sh): 37 s -> 22.
set -u
repo=$1 build=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
command -v setsid >/dev/null 2>&1 || { echo "setsid not installed: skipped"; exit 77; }
for b in peakinfo/peakinfo disk/diskbench network/netbench; do
	[ -x "$build/$b" ] || { echo "$b not built: skipped"; exit 77; }
done
given_caches_and_cloud
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

# Stubs: a server (its PID in servers) that runs until killed, a client (its PID in
# clients) that waits a minute before answering. exec keeps the PIDs.
mkdir "$work/bin"
for tool in iperf3 sockperf; do
	cat >"$work/bin/$tool" <<STUB
#!/bin/sh
case " \$* " in *" -s "* | " server "*) echo "Server listening"; echo \$\$ >>"$work/servers"; exec sleep 60 ;; esac
echo \$\$ >>"$work/clients"
exec sleep 60
STUB
	chmod +x "$work/bin/$tool"
done

# start NAME ARGS...: run_all.sh in a session of its own, as a shell runs a foreground job
# (SIGINT not ignored; its process group is its PID), TMPDIR of its own, its processes
# marked with PEAKBENCH_TEST_RUN; TEE=1: as `run_all.sh 2>&1 | tee FILE` (PID: the shell
# running that pipeline). PID, R (its folder).
start() {
	local name=$1
	shift
	R=$work/$name
	mkdir "$R.tmp"
	set -- "$repo/run_all.sh" --tiny --reps 1 --threads 1 --no-build --build-dir "$build" --no-charts \
		--out "$R" "$@"
	# shellcheck disable=SC2016 # expanded by that bash
	[ -z "${TEE:-}" ] || set -- bash -c '"$@" 2>&1 | tee "$0" >/dev/null' "$R.progress" "$@"
	(
		trap - INT QUIT
		exec env TMPDIR="$R.tmp" PEAKBENCH_TEST_RUN="$R" PATH="$work/bin:$PATH" PEAK_DEPS=required \
			setsid "$@"
	) 2>>"$R.progress" &
	PID=$!
	sleep 0.2
	[ "$(ps -o sid= -p "$PID" | tr -d ' ')" = "$PID" ] || fail "$name: run_all.sh (pid $PID) is not a session leader"
}

# wait_for WHAT TEST...: poll TEST for up to 120 s while run_all.sh runs.
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 1200; i++)); do
		"$@" && return 0
		kill -0 "$PID" 2>/dev/null || fail "run_all.sh ended before $what: $(tail -n 3 "$R.progress")"
		sleep 0.1
	done
	fail "no $what within 120 s: $(tail -n 3 "$R.progress")"
}
has_file() { [ -n "$(find "$1" -type f 2>/dev/null | head -n 1)" ]; }
has_line() { [ -s "$1" ]; }

# signal SIG TARGET: send it, then wait (at most 60 s) for run_all.sh; RC, SECS.
signal() {
	local t0 i
	t0=$(date +%s%N)
	kill -s "$1" -- "$2" || fail "kill -s $1 $2"
	for ((i = 0; i < 600; i++)); do
		kill -0 "$PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$PID" 2>/dev/null && fail "run_all.sh still runs 60 s after SIG$1"
	wait "$PID"
	RC=$?
	SECS=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
}

# run_pids: processes still marked with this run's PEAKBENCH_TEST_RUN (2 s to leave).
run_pids() {
	local i p
	for ((i = 0; i < 20; i++)); do
		p=$(grep -lzxF "PEAKBENCH_TEST_RUN=$R" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
		[ -n "$p" ] || return 0
		sleep 0.1
	done
	echo "$p"
}

# alive PID: it runs 2 s from now (a zombie does not: init has yet to reap it).
alive() {
	local i
	for ((i = 0; i < 20; i++)); do
		case $(ps -o stat= -p "$1" 2>/dev/null) in '' | Z*) return 1 ;; esac
		sleep 0.1
	done
}

# check NAME RC STEP SUITE STEP_NO SIG: what every interrupted run must show (RC "-": the
# status and the last line are not run_all.sh's, as under tee).
check() {
	local name=$1 want_rc=$2 step=$3 suite=$4 n=$5 sig=$6 left last
	[ "$want_rc" = - ] || [ "$RC" = "$want_rc" ] || fail "$name: run_all.sh exited $RC, not $want_rc: $(tail -n 3 "$R.progress")"
	last=$(tail -n 1 "$R/status.tsv")
	[ "$(cut -f1-3 <<<"$last")" = "$step	$suite	interrupted" ] ||
		fail "$name: status.tsv does not end with $step interrupted: $(cat "$R/status.tsv")"
	grep -q "	SIG$sig " <<<"$last" || fail "$name: the interrupted step does not name SIG$sig: $last"
	[ "$(wc -l <"$R/status.tsv")" = "$n" ] || fail "$name: status.tsv has other than $n steps: $(cat "$R/status.tsv")"
	grep -q "^\[$((n + 1))/" "$R.progress" && fail "$name: step $((n + 1)) started after the signal"
	grep -q "^placement: " "$R/commands.txt" && fail "$name: the placement step ran"
	[ ! -e "$R/raw/placement.json" ] || fail "$name: raw/placement.json was written after the signal"
	[ "$want_rc" = - ] ||
		grep -Eq "^run_all.sh: interrupted by SIG$sig during step $n/[0-9]+ \($suite: $step\): $((n - 1)) step\(s\) ran before it, [0-9]+ did not start, in [0-9hms]+; partial report: $R/report.md" \
			"$R.progress" || fail "$name: no interrupted line: $(tail -n 2 "$R.progress")"
	grep -q "^- \*\*Interrupted\*\* during step $step ($suite) (SIG$sig " "$R/report.md" ||
		fail "$name: report.md's summary does not say the run was interrupted during $step"
	grep -q "^| $step | $suite | interrupted | " "$R/report-appendix.md" ||
		fail "$name: report-appendix.md's steps do not show $step interrupted"
	left=$(run_pids)
	if [ -n "$left" ]; then
		ps -o pid=,args= -p "$left" >&2
		# shellcheck disable=SC2086 # a list of PIDs
		kill -KILL $left 2>/dev/null
		fail "$name: processes of the run left: $left"
	fi
	if [ -s "$work/servers" ]; then
		while read -r p; do
			alive "$p" && fail "$name: a stub server (pid $p) outlived the run"
		done <"$work/servers"
	fi
	[ ! -e "$R/disk-tmp" ] || fail "$name: the disk test folder was left: $(find "$R/disk-tmp")"
	[ -z "$(ls -A "$R.tmp")" ] || fail "$name: files left in TMPDIR: $(ls -A "$R.tmp")"
	shm=/dev/shm/peakbench-buffers.$(id -u).$(printf '%s' "$R" | sha1sum | cut -c1-12)
	[ ! -e "$shm" ] || fail "$name: the shared disk buffers were left: $shm"
	rm -f "$work/servers" "$work/clients"
	ok "$name: exit $RC ${SECS}s after SIG$sig, $step recorded interrupted, nothing started or left after it"
}

# 1. Ctrl-C while diskbench runs (--min-time 1: minutes of it), once its file is there.
start disk-int --only disk --no-baselines --min-time 1
wait_for "diskbench's file" has_file "$R/disk-tmp"
signal INT "-$PID"
check disk-int 130 diskbench disk 2 INT

# 2. SIGTERM to run_all.sh alone while the iperf3 adapter waits for its client: run_all.sh
# passes it on.
start net-term --only network --min-time 0.01
wait_for "the iperf3 baseline's client" has_line "$work/clients"
signal TERM "$PID"
check net-term 143 iperf3 baseline 3 TERM

# 3. Ctrl-C there: the iperf3 adapter stops its client (own process group) and server, and
# exits 130.
start net-int --only network --min-time 0.01
wait_for "the iperf3 baseline's client" has_line "$work/clients"
signal INT "-$PID"
check net-int 130 iperf3 baseline 3 INT

# 4. SIGINT to diskbench alone: a step ended by SIGINT (130) stops the run too.
start step-int --only disk --no-baselines --min-time 1
wait_for "diskbench's file" has_file "$R/disk-tmp"
disk_pid=$(grep -lzxF "PEAKBENCH_TEST_RUN=$R" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 |
	while read -r p; do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = diskbench ] && echo "$p"; done)
[ -n "$disk_pid" ] || fail "step-int: diskbench's process not found"
signal INT "$disk_pid"
check step-int 130 diskbench disk 2 INT

# 5. Ctrl-C under `run_all.sh 2>&1 | tee log`: tee ends at once, run_all.sh's next line on
# stderr meets a closed pipe; it still stops the step, cleans up and writes the report.
TEE=1 start tee-int --only disk --no-baselines --min-time 1
wait_for "diskbench's file" has_file "$R/disk-tmp"
signal INT "-$PID"
check tee-int - diskbench disk 2 INT
