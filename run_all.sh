#!/usr/bin/env bash
# run_all.sh: the whole peakbench protocol in one command. Builds if needed, runs the plan
# (scripts/peakresults/plan/plan.py: every suite that is built or --only some, the reference
# tools, the paired rounds, the second pass), then the results program (peakresults
# finish), into results/<timestamp>/. This file keeps the sequencing: progress and ETA on
# stderr, locks, calling the binaries, stopping on SIGINT/SIGTERM, status.tsv and
# commands.txt. ./run_all.sh --help for the options.
set -u -o pipefail
# The whole script is one compound command, so bash parses it before running it: editing
# run_all.sh (a git pull) while a long run is in progress cannot change the running one.
{

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
# shellcheck source=scripts/run_all_watch.sh
. "$ROOT/scripts/run_all_watch.sh"
PLAN=(python3 "$ROOT/scripts/peakresults" plan)

peak_have python3 || { echo "run_all.sh: python3 is needed (scripts/deps.sh installs it)" >&2; exit 1; }
# --resume DIR: the run in DIR goes on with its own options (DIR/plan-args, written at its
# start): the steps status.tsv does not have as ok, skipped or not_built run, the failed
# and interrupted ones again. Nothing else goes with it (another option would be another plan).
RESUME=""
for a in "$@"; do
	[ "$a" != --resume ] || [ "${1:-}" = --resume ] ||
		{ echo "run_all.sh: --resume DIR takes no other option (the run's own are in DIR/plan-args)" >&2; exit 2; }
done
if [ "${1:-}" = --resume ]; then
	if [ $# != 2 ] || [ -z "$2" ]; then
		echo "run_all.sh: --resume DIR takes no other option (the run's own are in DIR/plan-args)" >&2
		exit 2
	fi
	[ -d "$2" ] || { echo "run_all.sh: --resume: $2: no such folder" >&2; exit 2; }
	if [ ! -f "$2/plan-args" ] || [ ! -f "$2/status.tsv" ]; then
		echo "run_all.sh: --resume: $2 is not a run_all.sh results folder (no plan-args and status.tsv)" >&2
		exit 2
	fi
	RESUME=$(cd "$2" && pwd)
	mapfile -d '' -t RESUME_ARGS <"$RESUME/plan-args"
	set -- "${RESUME_ARGS[@]}"
fi
# Help and --dry-run: the plan program prints them (and the one-line usage errors).
for a in "$@"; do
	case $a in -h | --help | --dry-run) exec "${PLAN[@]}" "$@" ;; esac
done

# The plan, NUL-separated (plan.py write_nul): settings key=value up to an empty field,
# then per step suite, name, estimate, kind, binary, output, condition, stall limit, quoted
# command, argv..., "".
# The last field is the plan program's exit status.
read_plan() {
	local f=() i=0 k
	BUFFER_DIR="" CONF_SET=""
	mapfile -d '' -t f < <("${PLAN[@]}" --nul "$@"; printf 'rc=%s\0' "$?")
	[ "${f[-1]}" = rc=0 ] || exit "${f[-1]#rc=}"
	unset 'f[-1]'
	while [ -n "${f[i]}" ]; do
		k=${f[i]%%=*}
		case $k in
		out) OUT=${f[i]#*=} ;; build_dir) BUILD_DIR=${f[i]#*=} ;; disk_dir) DISK_DIR=${f[i]#*=} ;;
		buffer_dir) BUFFER_DIR=${f[i]#*=} ;; conf_set) CONF_SET=${f[i]#*=} ;;
		build) BUILD=${f[i]#*=} ;; total_est) TOTAL_EST=${f[i]#*=} ;;
		calibration_gap) CALIBRATION_GAP=${f[i]#*=} ;;
		esac
		i=$((i + 1))
	done
	i=$((i + 1))
	STEP_SUITE=() STEP_NAME=() STEP_EST=() STEP_KIND=() STEP_BIN=() STEP_OUTF=() STEP_CMD=()
	STEP_COND=() STEP_LIMIT=() STEP_ARGV=() STEP_AT=() STEP_LEN=()
	while [ "$i" -lt ${#f[@]} ]; do
		STEP_SUITE+=("${f[i]}") STEP_NAME+=("${f[i + 1]}") STEP_EST+=("${f[i + 2]}") STEP_KIND+=("${f[i + 3]}")
		STEP_BIN+=("${f[i + 4]}") STEP_OUTF+=("${f[i + 5]}") STEP_COND+=("${f[i + 6]}") STEP_LIMIT+=("${f[i + 7]}")
		STEP_CMD+=("${f[i + 8]}")
		i=$((i + 9))
		# argv of step N: STEP_ARGV from STEP_AT[N], STEP_LEN[N] words
		STEP_AT+=("${#STEP_ARGV[@]}")
		while [ -n "${f[i]}" ]; do STEP_ARGV+=("${f[i]}") i=$((i + 1)); done
		STEP_LEN+=($((${#STEP_ARGV[@]} - STEP_AT[-1])))
		i=$((i + 1))
	done
	N=${#STEP_NAME[@]}
}
read_plan "$@"

find_bin() {
	local name=$1 f
	[ -d "$BUILD_DIR" ] || return 1
	f=$(find "$BUILD_DIR" -name "$name" -type f -perm -u+x -not -path '*/CMakeFiles/*' 2>/dev/null |
		sort | head -n 1)
	[ -n "$f" ] || return 1
	printf '%s\n' "$f"
}

now_s() { date +%s; }
START_S=$(now_s)
# (the report's header sets the run's real time beside the plan's estimate: report_time.py)
export PEAKBENCH_RUN_START_S=$START_S

# ETA: the estimate left, scaled by how the steps so far compared with their estimates
# (time spent measuring, not waiting for PEAKBENCH_LOCK), the scale kept within 1/4..4.
progress() { printf '%s\n' "$(progress_text "$@")" >&2; }
progress_text() {
	local i=$1 n=$2 what=$3 done_est=$4 left_est=$5 busy=$6 el eta
	el=$(($(now_s) - START_S))
	eta=$(awk -v b="$busy" -v d="$done_est" -v l="$left_est" 'BEGIN {
		r = (d > 0 && b > 0) ? b / d : 1; if (r < 0.25) r = 0.25; if (r > 4) r = 4
		if (l < 0) l = 0; printf "%d", l * r }')
	printf '[%d/%d] %-34s elapsed %s, ETA %s' "$i" "$n" "$what" \
		"$(peak_fmt_duration "$el")" "$(peak_fmt_duration "$eta")"
}

# status.tsv: step, suite, status (ok|failed|skipped|not_built|interrupted), seconds, reason.
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5//$'\t'/ }" >>"$OUT/status.tsv"
}

last_line() { [ -s "$1" ] && grep -v '^[[:space:]]*$' "$1" | tail -n 1; }

# A step's binary or script: a built binary, or a script of the repository (skipped with
# the reason when absent, status 3).
run_step() {
	local kind=$1 bin=$2 outf=$3 cmd=("${@:4}") path rc
	case $outf in */*) mkdir -p "$OUT/raw/${outf%/*}" "$OUT/logs/${outf%/*}" ;; esac # paired rounds
	[ "$kind" != trace ] || traced_command || return 3
	case $bin in
	scripts/* | python3)
		path=$ROOT/${cmd[0]}
		[ "$bin" = python3 ] && path=$ROOT/${cmd[1]}
		[ -e "$path" ] || { LAST_REASON="${path#"$ROOT"/} not present"; return 3; }
		if [ "$bin" = python3 ]; then cmd[1]=$path; else cmd[0]=$path; fi
		;;
	*)
		if ! path=$(find_bin "$bin"); then
			LAST_REASON="not built ($bin not found under $BUILD_DIR)"
			[ "$bin" != dpdkbench ] || pkg-config --exists libdpdk 2>/dev/null ||
				LAST_REASON="not built (libdpdk not found)"
			return 3
		fi
		if [ "${outf%.pass2}" = network-udpframes ] && ! find_bin dpdkbench >/dev/null; then
			LAST_REASON="dpdkbench not built: no DPDK figures to compare the kernel's with"
			return 3
		fi
		# A launcher script (the memif pair): the binary is its first argument.
		case ${cmd[0]} in scripts/*) cmd[0]=$ROOT/${cmd[0]} cmd[1]=$path ;; *) cmd[0]=$path ;; esac
		;;
	esac
	case $kind in
	bench) # dpdkbench: our flags come after the EAL's "--".
		spawn "${cmd[@]}" --format json --output "$OUT/raw/$outf.json" >"$OUT/logs/$outf.out" 2>"$OUT/logs/$outf.err" 9>&- ;;
	*) spawn "${cmd[@]}" >"$OUT/logs/$outf.out" 2>"$OUT/logs/$outf.err" 9>&- ;;
	esac
	watch_step "$STEP_PID" 9>&-
	reap
	unwatch_step
	LAST_REASON=$(last_line "$OUT/logs/$outf.err")
	return "$STEP_RC"
}

# A traced round (kind trace: `peakresults trace run FILE -- CMD...`, issue 25): needs
# strace and trace.py; CMD's binary is found as a step's is. Sets run_step's cmd.
traced_command() {
	local j w path
	peak_have strace || { LAST_REASON="strace not installed (Debian: apt-get install strace): no traced round"; return 1; }
	[ -e "$ROOT/scripts/peakresults/trace/trace.py" ] || { LAST_REASON="scripts/peakresults/trace/trace.py not present"; return 1; }
	for ((j = 0; j < ${#cmd[@]}; j++)); do [ "${cmd[j]}" != -- ] || break; done
	w=${cmd[j + 1]:-}
	case $w in
	scripts/*) cmd[j + 1]=$ROOT/$w ;;
	"" | */*) ;;
	*)
		path=$(find_bin "$w") || { LAST_REASON="not built ($w not found under $BUILD_DIR)"; return 1; }
		cmd[j + 1]=$path
		;;
	esac
}

# Stopping (issue 26). Ctrl-C sends SIGINT to the whole foreground process group: this
# script and the running step; a SIGTERM often reaches this script alone. Either way no
# further step starts, the running one is let clean up (stop_step) and recorded as
# interrupted, the results program writes the report of what ran, and this script ends
# by the same signal (status 130 or 143). A step that ends by SIGINT or SIGTERM (130, 143)
# stops the run as well. STOP_SIG: the first signal; SIGNALS: how many came. SIGPIPE is
# ignored from then on: under `./run_all.sh 2>&1 | tee log` Ctrl-C ends tee too, and the
# next line on stderr would kill this script before its cleanup.
STOP_SIG="" SIGNALS=0
# shellcheck disable=SC2317 # called from the traps
on_signal() {
	trap '' PIPE
	SIGNALS=$((SIGNALS + 1))
	[ -n "$STOP_SIG" ] || STOP_SIG=$1
}

# A step runs in the background and this script waits for it with the wait builtin, which
# a trapped signal interrupts (for a foreground command bash runs the trap only once the
# command has ended, however long it takes). The subshell gives the step back SIGINT and
# SIGQUIT, which bash ignores in background commands, and marks it and everything it
# starts with PEAKBENCH_RUN, by which stop_leftovers finds them. Its stdin is /dev/null.
# spawn CMD... (with the caller's redirections): STEP_PID
RUN_MARK="$$:$OUT"
spawn() {
	(
		trap - INT QUIT
		export PEAKBENCH_RUN=$RUN_MARK
		exec "$@"
	) &
	STEP_PID=$!
}

# The step's exit status in STEP_RC; a signal while waiting for it: stop_step, then the
# status again: the first wait was either cut short by the signal (the second has the
# step's status) or returned it as the signal came (the second finds no child: 127, or -1
# from bash 5.2).
reap() {
	local n=$SIGNALS
	wait "$STEP_PID"
	STEP_RC=$?
	[ "$SIGNALS" != "$n" ] || return 0
	stop_step
	wait "$STEP_PID" 2>/dev/null
	n=$?
	case $n in 127 | 255 | -1) ;; *) STEP_RC=$n ;; esac
}

# After a signal: Ctrl-C has reached the step (one process group), a SIGTERM sent to this
# script alone has not, so the step gets STOP_SIG after 1 s. It has STOP_GRACE_S to end by
# itself (diskbench removes its file, a tool's adapter stops its tool and servers); after
# that, or at once on a second signal, stop_leftovers. An adapter runs its tool in a process
# group of its own that Ctrl-C does not reach, and stops it on SIGINT or SIGTERM itself.
STOP_GRACE_S=5
stop_step() {
	local t n=$SIGNALS
	for ((t = 0; t < STOP_GRACE_S * 10; t++)); do
		if ! kill -0 "$STEP_PID" 2>/dev/null || [ "$SIGNALS" != "$n" ]; then break; fi
		[ "$t" != 10 ] || kill -s "$STOP_SIG" "$STEP_PID" 2>/dev/null
		sleep 0.1
	done
	stop_leftovers "$STEP_PID"
}

# The processes marked with this run's PEAKBENCH_RUN (zombies have no environment).
run_pids() { grep -lzxF "PEAKBENCH_RUN=$RUN_MARK" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | tr '\n' ' '; }

# SIGTERM to every process of the step still there (also one its script left behind, such
# as a server whose script died before its EXIT trap), SIGKILL to those left 2 s later.
# stop_leftovers [STEP_PID]: that one too while it lives (whatever its environment says).
stop_leftovers() {
	local pids t step=${1:-}
	[ -z "$step" ] || kill -0 "$step" 2>/dev/null || step=""
	pids=$(run_pids)
	[ -n "$pids$step" ] || return 0
	# shellcheck disable=SC2086 # a list of PIDs
	kill -TERM $step $pids 2>/dev/null
	for ((t = 0; t < 20; t++)); do
		[ -z "$step" ] || kill -0 "$step" 2>/dev/null || step=""
		pids=$(run_pids)
		[ -n "$pids$step" ] || return 0
		sleep 0.1
	done
	pids="$step $pids"
	echo "run_all.sh: killing what the step left running:" \
		"$(ps -o pid=,comm= -p "$pids" 2>/dev/null | awk '{ printf "%s%s (%s)", s, $2, $1; s = ", " }')" >&2
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null
}

if [ -n "$RESUME" ] && [ "$OUT" != "$RESUME" ]; then
	echo "run_all.sh: --resume: $RESUME/plan-args names another results folder ($OUT)" >&2
	exit 2
fi
if [ -z "$RESUME" ] && [ -d "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	echo "run_all.sh: --out: $OUT is not empty (results of another run would mix in); name a new folder (see ./run_all.sh --help)" >&2
	exit 2
fi
if [ "$BUILD" = 1 ]; then
	echo "run_all.sh: building (make)" >&2
	if [ -f "$ROOT/Makefile" ]; then
		make -C "$ROOT" BUILD="$BUILD_DIR" >&2 || { echo "run_all.sh: make failed; fix the build and rerun" >&2; exit 1; }
	else
		{ cmake -S "$ROOT" -B "$BUILD_DIR" && cmake --build "$BUILD_DIR" -j "$(nproc)"; } >&2 ||
			{ echo "run_all.sh: the build failed; fix it and rerun" >&2; exit 1; }
	fi
fi

# One cache curve per run (docs/design.md "One figure per peak in a run"): the effective
# cache sizes (peakinfo --caches: the latency curve's knees, about a second) before
# anything sized from them. Every binary reads PEAKBENCH_CACHE_EFFECTIVE (membench's
# cached / small_arrays flags and --nt auto), and the plan, read again with it, sizes the
# roofline's level buffers from it. A resumed run keeps its first figure (raw/cache.json).
cache_sizes() {
	local bin f=$OUT/raw/cache.json v
	bin=$(find_bin peakinfo) || return 0
	[ -s "$f" ] || "$bin" --caches --format json --output "$f" --quiet 2>>"$OUT/logs/cache.log" || return 0
	v=$(python3 "$ROOT/scripts/peakresults" cache-env "$f") || return 0
	export PEAKBENCH_CACHE_EFFECTIVE=$v
	echo "# cache sizes (peakinfo --caches, raw/cache.json): PEAKBENCH_CACHE_EFFECTIVE=$v" >>"$OUT/commands.txt"
	read_plan "$@" --out "$OUT" --write-pairs
}

# The reference tools, before the baseline steps: installed when root or sudo -n can, else
# scripts/deps.sh prints the one command to run and the baselines of missing tools are
# skipped.
[[ " ${STEP_KIND[*]} " != *" baseline "* ]] || bash "$ROOT/scripts/deps.sh" --tools >&2 || true

mkdir -p "$OUT/raw" "$OUT/logs" || exit 1
# --set KEY=VALUE (docs/peaks-conf.md): the run's peaks.conf is the user's (PEAKBENCH_CONF,
# else ./peaks.conf, where every binary looks) with the --set lines after it (a key's last
# value wins), kept in the results folder and handed to every binary.
if [ -n "$CONF_SET" ]; then
	{
		if [ -n "${PEAKBENCH_CONF:-}" ]; then cat -- "$PEAKBENCH_CONF"; elif [ -f peaks.conf ]; then cat peaks.conf; fi
		# (a newline first: the user's file may not end with one)
		printf '\n# run_all.sh --set\n%s\n' "$CONF_SET" | sed '3,$s/=/ = /'
	} >"$OUT/peaks-set.conf" || exit 1
	export PEAKBENCH_CONF=$OUT/peaks-set.conf
fi
# The run's options, for --resume: the same plan again (the folder named, whatever --out was).
[ -n "$RESUME" ] || printf '%s\0' "$@" --out "$OUT" >"$OUT/plan-args" || exit 1
# The plan again (which steps and estimates depends on the tools there now), writing the
# paired jobs' definitions (raw/pairs/<id>/job.json, read by scripts/peakresults/pairs/pairs.py).
read_plan "$@" --out "$OUT" --write-pairs
# The paired disk job's shared buffers (BUFFER_DIR: diskbench --buffer-dir, on tmpfs, left
# for fio between rounds), removed at the end, interrupted or not, with OUT/disk-tmp.
remove_buffers() { [ -z "$BUFFER_DIR" ] || rm -rf "$BUFFER_DIR"; }
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

# Resuming: the steps done (ok, skipped, not_built) in DONE by suite and name; status.tsv
# keeps their lines, drops those of the steps run again, and says where the run resumed.
declare -A STEP_DONE=()
FIRST=0
if [ -n "$RESUME" ]; then
	redo=""
	while IFS=$'\t' read -r name suite st _; do
		case $st in
		ok | skipped | not_built) STEP_DONE[$suite:$name]=1 ;;
		failed | interrupted) redo+="${redo:+, }$name ($st)" ;;
		esac
	done <"$OUT/status.tsv"
	while [ "$FIRST" -lt "$N" ] && [ -n "${STEP_DONE[${STEP_SUITE[FIRST]}:${STEP_NAME[FIRST]}]:-}" ]; do FIRST=$((FIRST + 1)); done
	awk -F'\t' '$3 != "failed" && $3 != "interrupted"' "$OUT/status.tsv" >"$OUT/status.tsv.new" &&
		mv "$OUT/status.tsv.new" "$OUT/status.tsv"
	RESUMED="resumed at step $((FIRST + 1)) of $N: ${#STEP_DONE[@]} step(s) done before kept${redo:+; run again: $redo}"
	printf 'resume\trun\tresumed\t0\t%s\n' "$RESUMED" >>"$OUT/status.tsv"
	echo "# $RESUMED ($(date -u +%Y-%m-%dT%H:%M:%SZ))" >>"$OUT/commands.txt"
	echo "run_all.sh: $OUT: $RESUMED" >&2
else
	: >"$OUT/status.tsv"
	{
		echo "# peakbench run_all.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) in $ROOT"
		echo "# build dir: $BUILD_DIR; results: $OUT"
	} >"$OUT/commands.txt"
fi

# PEAKBENCH_LOCK=FILE: take this flock around every measuring step, so that benchmarks
# sharing a machine run one at a time (step times exclude the wait).
LOCKED=0
if [ -n "${PEAKBENCH_LOCK:-}" ] && peak_have flock; then
	exec 9>>"$PEAKBENCH_LOCK" && LOCKED=1
fi
# (flock waits in the background as a step runs, so that a signal ends the wait: fails then)
lock() {
	[ "$LOCKED" = 1 ] || return 0
	spawn flock 9
	reap
	[ -z "$STOP_SIG" ]
}
unlock() { [ "$LOCKED" = 0 ] || flock -u 9; }
# (the cache curve is a measurement: it takes the lock as a step does)
if [ -z "${PEAKBENCH_CACHE_EFFECTIVE:-}" ] && lock; then
	cache_sizes "$@"
	unlock
fi

# One metadata request per run (docs/cloud.md): peakinfo identifies the cloud and instance
# type (raw/cache.json's context, else a peakinfo --caches of its own) and every binary
# after it takes PEAKBENCH_CLOUD instead of asking the metadata service again. A user's
# own PEAKBENCH_CLOUD (e.g. aws,m5.large,--set) stands and nothing is asked.
cloud_identity() {
	local bin f=$OUT/raw/cache.json v
	[ -s "$f" ] || f=$OUT/raw/cloud.json
	bin=$(find_bin peakinfo) || return 0
	[ -s "$f" ] || "$bin" --caches --format json --output "$f" --quiet 2>>"$OUT/logs/cloud.log" || return 0
	v=$(python3 "$ROOT/scripts/peakresults" cloud-env "$f") || return 0
	export PEAKBENCH_CLOUD=$v
	echo "# cloud (peakinfo, ${f#"$OUT"/}): PEAKBENCH_CLOUD=$v" >>"$OUT/commands.txt"
}
[ -n "${PEAKBENCH_CLOUD:-}" ] || cloud_identity

# The VM placement fingerprint (peakinfo --placement, a few ms) before and after each side
# of a paired round, in OUT/raw/<step>.placement: where the host put the vCPUs sets a
# 2-thread memory or loopback figure (docs/methodology.md), and pairs.py compares only
# the sides of a round that ran where the other did.
PEAKINFO_BIN=$(find_bin peakinfo) || PEAKINFO_BIN=""
fingerprint() {
	"$PEAKINFO_BIN" --placement --format json --quiet 2>/dev/null |
		sed -n 's/.*"c2c.round_trip_ns":[[:space:]]*"\([^"]*\)".*/\1/p'
}
placement() {
	local fp
	[ -n "$PEAKINFO_BIN" ] || return 0
	fp=$(fingerprint)
	printf '%s %s\n' "$1" "${fp:-unknown}" >>"$OUT/raw/$2.placement"
}

# What "moved" means on this host (pairs.py moved_factor): five fingerprints at the start,
# 0.2 s apart (the plan's calibration_gap; back to back in --tiny, whose figures mean
# nothing), in OUT/raw/placement-calibration; their own spread widens the threshold
# (without the file pairs.py takes 1.5x). Kept when resuming: it is the run's start.
calibrate_placement() {
	local k fp f=$OUT/raw/placement-calibration
	[ -n "$PEAKINFO_BIN" ] && [ ! -e "$f" ] || return 0
	[[ " ${STEP_SUITE[*]} " == *" pair "* ]] || return 0
	echo "# peakinfo --placement, 5 times ${CALIBRATION_GAP:-0.2} s apart at the start of the run (c2c.round_trip_ns)" >"$f"
	for ((k = 0; k < 5; k++)); do
		[ -z "$STOP_SIG" ] || return 0
		fp=$(fingerprint)
		[ -z "$fp" ] || echo "$fp" >>"$f"
		[ "${CALIBRATION_GAP:-0.2}" = 0 ] || sleep "${CALIBRATION_GAP:-0.2}"
	done
}
calibrate_placement

# A paired round past the job's least (condition "pairs JOB K") runs only while one of the
# job's verdicts is open and can still settle in the rounds left (`peakresults pairs-enough
# OUT JOB K`, pairs_settle.py, asked once per round); once none can, the job's remaining
# rounds are skipped with its answer (ENOUGH[job]). A pair whose side stalled (STALLED_JOB)
# runs no further step.
declare -A ENOUGH=() ASKED=()
pairs_enough() {
	local job=$1 k=$2 why
	if [ -z "${ENOUGH[$job]+x}" ] && [ "${ASKED[$job]:-}" != "$k" ]; then
		ASKED[$job]=$k
		if why=$(python3 "$ROOT/scripts/peakresults" pairs-enough "$OUT" "$job" "$k" 2>&1); then
			ENOUGH[$job]=${why:-pairs enough}
			echo "    $job: $why: its rounds from $k on are skipped" >&2
		fi
	fi
	[ -n "${ENOUGH[$job]+x}" ]
}

job_most
FAILED=0 DONE_EST=0 BUSY=0 RAN=0 STOPPED="" PREDONE=0 ENOUGH_SKIPPED=0 LAST_RAN=-1
# The estimate left: the steps always run and not done before (a conditional step adds its
# own when it runs).
for ((i = 0; i < N; i++)); do
	[ -n "${STEP_DONE[${STEP_SUITE[i]}:${STEP_NAME[i]}]:-}" ] || continue
	PREDONE=$((PREDONE + 1))
	[ -n "${STEP_COND[i]}" ] || TOTAL_EST=$((TOTAL_EST - STEP_EST[i]))
done
for ((i = FIRST; i < N; i++)); do
	[ -z "$STOP_SIG" ] || break
	[ -z "${STEP_DONE[${STEP_SUITE[i]}:${STEP_NAME[i]}]:-}" ] || continue
	if [ "${STEP_SUITE[i]}" = pair ] && [ -n "${STALLED_JOB[${STEP_NAME[i]%% *}]:-}" ]; then
		record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" skipped 0 "${STALLED_JOB[${STEP_NAME[i]%% *}]}"
		continue
	fi
	if [ -n "${STEP_COND[i]}" ]; then
		read -r cond job k <<<"${STEP_COND[i]}"
		if [ "$cond" = pairs ] && pairs_enough "$job" "$k"; then
			record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" skipped 0 "${ENOUGH[$job]}"
			ENOUGH_SKIPPED=$((ENOUGH_SKIPPED + 1))
			continue
		fi
		TOTAL_EST=$((TOTAL_EST + STEP_EST[i]))
	fi
	progress $((i + 1)) "$N" "${STEP_SUITE[i]}: ${STEP_NAME[i]}" "$DONE_EST" $((TOTAL_EST - DONE_EST)) "$BUSY"
	cmd=("${STEP_ARGV[@]:STEP_AT[i]:STEP_LEN[i]}")
	kind=${STEP_KIND[i]}
	[ "$kind" = post ] || lock || break
	case ${STEP_SUITE[i]}:${STEP_NAME[i]} in disk:* | *:fio | pair:fio\ *) mkdir -p "${DISK_DIR:-$OUT/disk-tmp}" ;; esac
	t0=$(now_s)
	LAST_REASON=""
	pairside=""
	if [ "${STEP_SUITE[i]}" = pair ] && [ "$kind" != trace ]; then
		pairside=1
		rm -f "$OUT/raw/${STEP_OUTF[i]}.placement" # (a step run again when resuming)
		placement before "${STEP_OUTF[i]}"
	fi
	[ -z "$STOP_SIG" ] || break
	TICK_AT=($((i + 1)) "$N" "${STEP_SUITE[i]}: ${STEP_NAME[i]}" "$DONE_EST" $((TOTAL_EST - DONE_EST)) "$BUSY")
	TICK_EST=${STEP_EST[i]} TICK_LIMIT=${STEP_LIMIT[i]} TICK_WHERE=$(step_where "$i")
	rm -f "$OUT/logs/.stalled"
	run_step "$kind" "${STEP_BIN[i]}" "${STEP_OUTF[i]}" "${cmd[@]}"
	rc=$?
	RAN=$((RAN + 1)) LAST_RAN=$i
	stalled=""
	if [ -s "$OUT/logs/.stalled" ]; then
		stalled=$(<"$OUT/logs/.stalled")
		rm -f "$OUT/logs/.stalled"
		stop_leftovers
		rc=1
	fi
	# A step ended by SIGINT or SIGTERM stops the run as the signal itself would (not one
	# stopped as stalled).
	if [ -z "$STOP_SIG" ] && [ -z "$stalled" ]; then
		case $rc in 130) STOP_SIG=INT ;; 143) STOP_SIG=TERM ;; esac
	fi
	[ -n "$STOP_SIG" ] || [ -z "$pairside" ] || placement after "${STEP_OUTF[i]}"
	# One loopback peak per run: netbench's rows take peakinfo's figure.
	if [ "${STEP_OUTF[i]}" = peakinfo ] && [ "$rc" = 0 ]; then
		PEAKBENCH_LOOPBACK_GBPS=$(loopback_peak "$OUT") && export PEAKBENCH_LOOPBACK_GBPS
	fi
	secs=$(($(now_s) - t0))
	unlock
	echo "${STEP_OUTF[i]}: ${STEP_CMD[i]}" >>"$OUT/commands.txt"
	if [ -n "$STOP_SIG" ]; then
		stop_leftovers # (a step ended by the signal: what it started may outlive it)
		STOPPED=$i
		record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" interrupted "$secs" "SIG$STOP_SIG (exit $rc): the run stopped here"
		echo "    ${STEP_NAME[i]}: interrupted (SIG$STOP_SIG)" >&2
		break
	elif [ -n "$stalled" ]; then
		stall_record "$i" "$stalled" "$secs"
	elif [ "$rc" -eq 0 ]; then
		record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" ok "$secs" ""
	elif [ "$rc" -eq 3 ]; then
		st=skipped
		case $LAST_REASON in "not built"*) st=not_built ;; esac
		record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" "$st" "$secs" "$LAST_REASON"
		echo "    ${STEP_NAME[i]}: ${LAST_REASON:-skipped (no reason given)}" >&2
	else
		FAILED=$((FAILED + 1))
		record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" failed "$secs" "exit $rc: $LAST_REASON"
		echo "    ${STEP_NAME[i]}: FAILED (exit $rc): ${LAST_REASON:-see $OUT/logs/}" >&2
	fi
	DONE_EST=$((DONE_EST + STEP_EST[i])) BUSY=$((BUSY + secs))
done
rm -rf "$OUT/disk-tmp"
remove_buffers

# Interrupted: the results program on the steps that ran (finish, the plan's last step,
# without charts: a second or so; not when finish was the step interrupted), one line,
# then the signal again, so that a shell loop running this script stops too.
if [ -n "$STOP_SIG" ]; then
	if [ -n "$STOPPED" ]; then
		what="during step $((STOPPED + 1))/$N (${STEP_SUITE[STOPPED]}: ${STEP_NAME[STOPPED]}): $((RAN - 1)) step(s) ran before it"
	elif [ "$LAST_RAN" -lt $((N - 1)) ]; then
		what="before step $((LAST_RAN + 2))/$N started: $RAN step(s) ran"
	else
		what="after the last step"
	fi
	[ "$PREDONE" = 0 ] || what+=" (resumed: $PREDONE done before)"
	[ "$ENOUGH_SKIPPED" = 0 ] || what+=", $ENOUGH_SKIPPED paired step(s) not needed"
	what+=", $((N - RAN - PREDONE - ENOUGH_SKIPPED)) did not start"
	[ "$FAILED" = 0 ] || what+=", $FAILED failed"
	p=$((N - 1))
	where="partial raw results in $OUT/raw, logs in $OUT/logs (./run_all.sh --resume $OUT goes on; python3 scripts/peakresults finish $OUT makes the report)"
	if [ "$LAST_RAN" = "$p" ]; then
		where="results: $OUT/report.md"
	elif [ "${STEP_KIND[p]}" = post ] && [ $((RAN + PREDONE)) -gt 0 ]; then
		cmd=("${STEP_ARGV[@]:STEP_AT[p]:STEP_LEN[p]}")
		[[ " ${cmd[*]} " == *" --no-charts "* ]] || cmd+=(--no-charts)
		if run_step post "${STEP_BIN[p]}" "${STEP_OUTF[p]}" "${cmd[@]}"; then
			where="partial report: $OUT/report.md (no charts; ./run_all.sh --resume $OUT goes on)"
		fi
	fi
	el=$(($(now_s) - START_S))
	echo "run_all.sh: interrupted by SIG$STOP_SIG $what, in $(peak_fmt_duration "$el"); $where" >&2
	sig=$STOP_SIG
	if [ "$SIGNALS" -gt 0 ]; then
		trap - "$sig"
		kill -s "$sig" $$
	fi
	[ "$sig" = INT ] && exit 130
	exit 143
fi

el=$(($(now_s) - START_S))
if [ "$FAILED" -gt 0 ]; then
	echo "run_all.sh: $FAILED step(s) failed in $(peak_fmt_duration "$el"); see $OUT/status.tsv and $OUT/logs/" >&2
	exit 1
fi
echo "run_all.sh: done in $(peak_fmt_duration "$el"): $OUT/report.md" >&2
exit 0
}
