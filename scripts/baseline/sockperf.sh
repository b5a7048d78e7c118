#!/usr/bin/env bash
# sockperf baselines for netbench's latency tests: ping-pong with 16-byte messages over
# loopback, TCP and UDP, against a sockperf server this script starts and stops by PID.
#
# Mapping (round trip in us, as netbench reports it):
#   ping-pong --tcp -m 16 --full-rtt  avg-rtt, percentiles  -> network tcp_latency tcp latency
#   ping-pong       -m 16 --full-rtt  avg-rtt, percentiles  -> network udp_latency udp latency
# An output without --full-rtt prints half the round trip ("avg-latency"): the parser
# doubles it and flags the row half_rtt_doubled. n = observations, stddev = sockperf's
# std-dev of the observations; p50/p90/p99/p99.9 are sockperf's percentiles.
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=sockperf

# One sockperf ping-pong output -> one CSV row. PROTO (tcp|udp) and the message size come
# from the output when it says, else from the arguments.
parse_one() {
	local file=$1 proto=${2:-} msg=${3:-16}
	[ -n "$proto" ] || if grep -q '# TCP' "$file"; then proto=tcp; else proto=udp; fi
	sed 's/\x1b\[[0-9;]*m//g' "$file" | awk -v tool="$TOOL" -v proto="$proto" -v msg="$msg" "$PEAK_AWK_LIB"'
	/version #/ { ver = $0; sub(/.*version #/, "", ver); sub(/ .*/, "", ver) }
	/avg-rtt=|avg-latency=/ {
		scale = ($0 ~ /avg-latency=/) ? 2 : 1
		s = $0; sub(/.*avg-(rtt|latency)=/, "", s); avg = s + 0
		s = $0; sub(/.*std-dev=/, "", s); sub(/\).*/, "", s); sd = s + 0
	}
	/Total [0-9]+ observations/ { s = $0; sub(/.*Total /, "", s); obs = s + 0 }
	/# dropped messages/ { s = $0; sub(/.*# dropped messages = /, "", s); dropped = s + 0 }
	/---> <MAX> observation/ { max = $NF }
	/---> <MIN> observation/ { min = $NF }
	/---> percentile / { pc[$4] = $NF }
	END {
		if (avg == "" || scale == "") exit 1
		f[1] = "baseline"; f[2] = proto "_latency"; f[3] = "sockperf-" proto; f[4] = 1; f[5] = msg
		f[6] = "latency"; f[7] = "us"; f[8] = obs > 0 ? obs : 1
		f[9] = avg * scale; f[10] = sd * scale; f[11] = min * scale
		f[12] = pc["50.000"] * scale; f[13] = max * scale; f[14] = ""; f[15] = ""
		f[16] = pc["50.000"] * scale; f[17] = pc["90.000"] * scale
		f[18] = pc["99.000"] * scale; f[19] = pc["99.900"] * scale
		f[20] = ""; f[21] = ""; f[22] = tool; f[23] = avg * scale
		f[24] = "ours=network:" proto "_latency:" proto ":latency;tool=sockperf " ver ";dropped=" dropped ";p99.99=" pc["99.990"] * scale
		if (scale == 2) f[24] = f[24] ";half_rtt_doubled"
		print csv_join(f, 24)
	}'
}

bl_parse_args "$@"
bl_header
if [ "$BL_PARSE" = 1 ]; then
	rc=0
	for f in "${BL_FILES[@]}"; do
		parse_one "$f" || { echo "sockperf.sh: no ping-pong result in $f" >&2; rc=1; }
	done
	exit "$rc"
fi

if ! peak_have sockperf; then
	for p in tcp udp; do
		peak_baseline_skip "$TOOL" "${p}_latency" latency us "sockperf not installed (Debian: apt install sockperf)"
	done
	exit 0
fi

case $BL_MODE in
full) secs=3 ;;
*) secs=1 ;;
esac
server=""
stop_server() {
	[ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; }
	server=""
}
trap stop_server EXIT

rc=0
port=$((30000 + $$ % 10000))
for proto in tcp udp; do
	popt=()
	[ "$proto" = udp ] || popt=(--tcp)
	sockperf server -i 127.0.0.1 -p "$port" "${popt[@]}" >"$BL_RAW/sockperf-server-$proto.log" 2>&1 &
	server=$!
	sleep 0.5
	out="$BL_RAW/sockperf-$proto.txt"
	if bl_run $((secs + 30)) "$out" sockperf ping-pong -i 127.0.0.1 -p "$port" "${popt[@]}" -m 16 \
		-t "$secs" --full-rtt && parse_one "$out" "$proto" 16; then
		:
	else
		echo "sockperf.sh: sockperf ping-pong ($proto) failed: $(tail -n 1 "$out.err")" >&2
		peak_csv_row baseline "${proto}_latency" "sockperf-$proto" 1 16 latency us 0 "" "" "" "" "" "" \
			"" "" "" "" "" "" "" "$TOOL" "" "failed: sockperf exited non-zero"
		rc=1
	fi
	stop_server
	port=$((port + 1))
done
exit "$rc"
