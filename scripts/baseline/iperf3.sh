#!/usr/bin/env bash
# iperf3 baselines for netbench's throughput tests, over loopback (a server this script
# starts on 127.0.0.1 and stops by its PID).
#
# Mapping (--json; bits_per_second / 10^9 = Gbit/s, counted at the receiver as netbench does):
#   -l 64K -P T           end.sum_received      -> network tcp_throughput tcp  (T threads, 65536 B)
#   -u -b 0 -l 1472 -P T  end.sum_received      -> network udp_throughput udp  (T threads, 1472 B)
#                         end.sum.lost_percent  -> network udp_throughput udp loss (%)
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=iperf3

parse_one() {
	jq -r --arg tool "$TOOL" '
	def cell: if . == null then "" else tostring end;
	def row($test; $variant; $thr; $block; $metric; $unit; $v; $flags):
		["baseline", $test, $variant, $thr, $block, $metric, $unit, 1, $v, "", $v, $v, $v,
		 "", "", "", "", "", "", "", "", $tool, $v, $flags] | map(cell) | join(",");
	if .error then error(.error) else . end |
	.start.test_start as $t | .start.version as $ver |
	($t.protocol | ascii_downcase) as $p |
	"tool=\($ver);duration_s=\($t.duration)" as $info |
	if $p == "tcp" then
		row("tcp_throughput"; "iperf3-tcp"; $t.num_streams; $t.blksize; "throughput"; "Gbit/s";
		    (.end.sum_received.bits_per_second / 1e9);
		    "ours=network:tcp_throughput:tcp:throughput;\($info);retransmits=\(.end.sum_sent.retransmits // "")")
	else
		row("udp_throughput"; "iperf3-udp"; $t.num_streams; $t.blksize; "throughput"; "Gbit/s";
		    ((.end.sum_received.bits_per_second // .end.sum.bits_per_second) / 1e9);
		    "ours=network:udp_throughput:udp:throughput;\($info);sent_gbps=\(.end.sum.bits_per_second / 1e9)"),
		row("udp_throughput"; "iperf3-udp"; $t.num_streams; $t.blksize; "loss"; "%";
		    .end.sum.lost_percent;
		    "ours=network:udp_throughput:udp:loss;\($info);lost=\(.end.sum.lost_packets);packets=\(.end.sum.packets)")
	end' "$1"
}

bl_parse_args "$@"
bl_header
if [ "$BL_PARSE" = 1 ]; then
	peak_have jq || { echo "iperf3.sh: jq is needed to read iperf3's JSON (scripts/deps.sh installs it)" >&2; exit 1; }
	rc=0
	for f in "${BL_FILES[@]}"; do
		parse_one "$f" || { echo "iperf3.sh: $f is not a successful iperf3 --json output" >&2; rc=1; }
	done
	exit "$rc"
fi

skip_all() {
	peak_baseline_skip "$TOOL" tcp_throughput throughput Gbit/s "$1"
	peak_baseline_skip "$TOOL" udp_throughput throughput Gbit/s "$1"
}
peak_have iperf3 || { skip_all "iperf3 not installed (Debian: apt install iperf3)"; exit 0; }
peak_have jq || { skip_all "jq not installed: iperf3's JSON cannot be read (scripts/deps.sh installs jq)"; exit 0; }

case $BL_MODE in
full) secs=3 ;;
*) secs=1 ;;
esac
threads=${BL_THREADS//,/ }
[ "$BL_MODE" != tiny ] || threads=1

port=$((20000 + $$ % 10000))
iperf3 -s -B 127.0.0.1 -p "$port" >"$BL_RAW/iperf3-server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q 'listening' "$BL_RAW/iperf3-server.log" 2>/dev/null && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.2
done
if ! kill -0 "$server" 2>/dev/null; then
	echo "iperf3.sh: iperf3 server on 127.0.0.1:$port did not start: $(tail -n 1 "$BL_RAW/iperf3-server.log")" >&2
	skip_all "failed: the iperf3 server did not start" | sed 's/skipped: failed/failed/'
	exit 1
fi

rc=0
for t in $threads; do
	for proto in tcp udp; do
		out="$BL_RAW/iperf3-$proto-P$t.json"
		if [ "$proto" = tcp ]; then
			opts=(-l 64K)
		else
			opts=(-u -b 0 -l 1472)
		fi
		if bl_run $((secs + 30)) "$out" iperf3 -c 127.0.0.1 -p "$port" "${opts[@]}" -t "$secs" -P "$t" --json &&
			parse_one "$out"; then
			continue
		fi
		echo "iperf3.sh: iperf3 $proto -P $t failed: $(jq -r '.error // empty' "$out" 2>/dev/null)" >&2
		peak_csv_row baseline "${proto}_throughput" "iperf3-$proto" "$t" "" throughput Gbit/s 0 "" "" "" \
			"" "" "" "" "" "" "" "" "" "" "$TOOL" "" "failed: iperf3 exited non-zero"
		rc=1
	done
done
exit "$rc"
