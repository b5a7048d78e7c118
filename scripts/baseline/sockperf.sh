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

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files sockperf
	exit
fi

if ! bl_have sockperf; then
	for p in tcp udp; do
		bl_skip "$TOOL" "${p}_latency" latency us "sockperf not installed (Debian: apt install sockperf)"
	done
	bl_finish sockperf
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
secs=${BL_SECONDS:-$secs}
for proto in tcp udp; do
	bl_want "${proto}_latency" || continue
	popt=()
	[ "$proto" = udp ] || popt=(--tcp)
	# --server-cpu N: the server on CPU N, as netbench's --server-cpus
	spin=()
	[ -z "$BL_SERVER_CPU" ] || spin=(taskset -c "$BL_SERVER_CPU")
	if [ "$BL_PLAN" = 1 ]; then
		echo "${spin[*]}${spin[*]:+ }sockperf server -i 127.0.0.1 -p $port ${popt[*]}"
	else
		"${spin[@]}" sockperf server -i 127.0.0.1 -p "$port" "${popt[@]}" >"$BL_RAW/sockperf-server-$proto.log" 2>&1 &
		server=$!
		sleep 0.5
	fi
	out="$BL_RAW/sockperf-$proto.txt"
	# --cpu N: the client on CPU N, as netbench's --cpus
	pin=()
	[ -z "$BL_CPU" ] || pin=(taskset -c "$BL_CPU")
	if ! bl_run $((secs + 30)) "$out" "${pin[@]}" sockperf ping-pong -i 127.0.0.1 -p "$port" "${popt[@]}" -m 16 \
		-t "$secs" --full-rtt; then
		echo "sockperf.sh: sockperf ping-pong ($proto) failed: $(tail -n 1 "$out.err")" >&2
		bl_skip "$TOOL" "${proto}_latency" latency us "failed: sockperf exited non-zero"
		rc=1
	fi
	stop_server
	port=$((port + 1))
done
bl_finish sockperf --ctx msg=16 || rc=1
exit "$rc"
