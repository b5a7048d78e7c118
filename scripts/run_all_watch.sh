# shellcheck shell=bash
# run_all.sh's watch over a running step (issue 42), sourced by it: the progress line every
# TICK_S seconds, the stall limit of paired sides and sustained runs, and what a stalled
# step's line says. It reads run_all.sh's globals (OUT, N, the STEP_* arrays, STOP_GRACE_S,
# FAILED) and its functions (now_s, progress_text, stop_leftovers,
# record); it runs nothing when sourced.
# shellcheck disable=SC2154,SC2034 # run_all.sh's globals, set here and read there

# While a step runs (issue 42), every TICK_S seconds the progress line again, with the
# step's own progress where it has one (TICK_WHERE: a paired round's round and side) and its
# time against its estimate; on a terminal in place, else a line each time. TICK_AT: the
# progress arguments of the step (index, count, what, estimate done, left, busy), TICK_EST
# its estimate. A step with a stall limit (TICK_LIMIT: a paired side or a sustained run,
# plan_options.stall_limit) that has given no result by then is stopped: SIGTERM, its
# STOP_GRACE_S to clean up, then stop_leftovers; OUT/logs/.stalled holds the seconds it ran,
# and the main loop records it failed, exit 1, saying where it stood.
# PEAKBENCH_TICK_S=S ticks every S seconds instead (whole seconds; the tests that watch a
# tick come, with a short PEAKBENCH_STALL_S, so they do not wait out a ten-second tick).
TICK_S=10
[[ ${PEAKBENCH_TICK_S:-} =~ ^[1-9][0-9]*$ ]] && TICK_S=$PEAKBENCH_TICK_S
TICK_PID="" TICK_AT=() TICK_EST=0 TICK_LIMIT=0 TICK_WHERE=""
# JOB_MOST[job]: its last round in the plan (job_most); STALLED_JOB[job]: the line that
# stopped it (stall_record), by which run_all.sh skips the pair's other steps.
declare -A JOB_MOST=() STALLED_JOB=()
watch_step() {
	local pid=$1 t0 el s="" t line
	t0=$(now_s)
	(
		# shellcheck disable=SC2317 # the trap's
		trap '[ -z "$s" ] || kill "$s" 2>/dev/null; exit 0' TERM
		el=0
		while :; do
			t=$TICK_S # (to the limit when it comes first)
			[ "$TICK_LIMIT" -le 0 ] || [ $((TICK_LIMIT - el)) -ge "$t" ] || t=$((TICK_LIMIT > el ? TICK_LIMIT - el : 1))
			sleep "$t" &
			s=$!
			wait "$s"
			s=""
			kill -0 "$pid" 2>/dev/null || exit 0
			el=$(($(now_s) - t0))
			if [ "$TICK_LIMIT" -gt 0 ] && [ "$el" -ge "$TICK_LIMIT" ]; then
				echo "$el" >"$OUT/logs/.stalled"
				kill -TERM "$pid" 2>/dev/null
				for ((t = 0; t < STOP_GRACE_S * 10; t++)); do
					kill -0 "$pid" 2>/dev/null || exit 0
					sleep 0.1
				done
				stop_leftovers "$pid"
				exit 0
			fi
			local d=$((el < TICK_EST ? el : TICK_EST))
			line="$(progress_text "${TICK_AT[0]}" "${TICK_AT[1]}" "${TICK_AT[2]}" $((TICK_AT[3] + d)) \
				$((TICK_AT[4] - d)) $((TICK_AT[5] + el))); step $(peak_fmt_duration "$el") of ~$(peak_fmt_duration "$TICK_EST")"
			line+=${TICK_WHERE:+": $TICK_WHERE"}
			if [ -t 2 ]; then printf '\r\033[K%s' "$line" >&2; else printf '%s\n' "$line" >&2; fi
		done
	) &
	TICK_PID=$!
}
unwatch_step() {
	[ -n "$TICK_PID" ] || return 0
	kill "$TICK_PID" 2>/dev/null
	wait "$TICK_PID" 2>/dev/null
	TICK_PID=""
	[ ! -t 2 ] || printf '\r\033[K' >&2
}

# The paired jobs' last rounds in the plan (JOB_MOST), for step_where.
job_most() {
	local i job k
	for ((i = 0; i < N; i++)); do
		[ "${STEP_SUITE[i]}" = pair ] || continue
		read -r job k _ <<<"${STEP_NAME[i]}"
		k=${k#r}
		[[ $k =~ ^[0-9]+$ ]] && [ "$k" -gt "${JOB_MOST[$job]:-0}" ] && JOB_MOST[$job]=$k
	done
}
# A paired step's own progress: "round K of at most M, SIDE's side" (M: the job's last
# round in the plan) or "traced round, SIDE's side".
step_where() {
	local job k side
	[ "${STEP_SUITE[$1]}" = pair ] || return 0
	read -r job k side <<<"${STEP_NAME[$1]}"
	case $k in
	trace) printf 'traced round, %s side' "$side" ;;
	*) printf 'round %s of at most %s, %s side' "${k#r}" "${JOB_MOST[$job]:-?}" "$side" ;;
	esac
}

# A step stopped as stalled: failed, exit 1, one line saying how long, its limit and where
# it stood (a pair: its round and side and its verdict so far, whose remaining steps are
# then skipped with that line).
stall_record() {
	local i=$1 el=$2 secs=$3 job where state line
	where=$(step_where "$i")
	line="no result for ${el} s (its limit ${STEP_LIMIT[i]} s, estimated ${STEP_EST[i]} s): stopped"
	if [ "${STEP_SUITE[i]}" = pair ]; then
		job=${STEP_NAME[i]%% *}
		state=$(python3 "$ROOT/scripts/peakresults" pairs-enough "$OUT" "$job" 2>/dev/null)
		line+=" in $where; the pair so far: ${state#pairs * }"
		STALLED_JOB[$job]="the pair stopped: ${STEP_NAME[i]} stalled ($line)"
	else
		line+=" ${where:+in $where }after ${el} s of a step estimated at ${STEP_EST[i]} s"
	fi
	FAILED=$((FAILED + 1))
	record "${STEP_NAME[i]}" "${STEP_SUITE[i]}" failed "$secs" "exit 1: stalled: $line"
	echo "run_all.sh: ${STEP_SUITE[i]}: ${STEP_NAME[i]}: $line" >&2
}

