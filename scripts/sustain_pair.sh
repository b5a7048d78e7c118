#!/usr/bin/env bash
# sustain_pair.sh: --sustain against its reference tools on the same kernel-made limits,
# both series judged by the same knee finder (peakknee, common/base/peak_changepoint.c):
#   net   netbench --sustain vs iperf3 -t N -i 1 -J, on a veth pair between two network
#         namespaces shaped by tbf (a fast root over a slow child with a large bucket: a
#         burst at the fast rate until the bucket is spent, then the slow rate); the bucket
#         is full again (the qdisc made anew) before each tool's run
#   disk  diskbench --sustain vs fio (--rw=read --bs=1M --direct=1 io_uring, --iodepth 32,
#         --write_bw_log one value a second), each in a cgroup whose block read throttle
#         (v2 io.max or v1 blkio) falls from --high to --low --change seconds in
#   all   both
# Prints one table per part: burst, baseline, knee and confidence of each, and what the
# limits say. Root is needed (namespaces, qdiscs, cgroups); everything made is removed.
# A run that gives no result within its --duration and STALL_S more is stopped: one line
# naming the part and the side, exit 1.
set -u -o pipefail
ME=sustain_pair.sh
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
	cat <<'USAGE'
Usage: scripts/sustain_pair.sh net|disk|all [options]
  --duration S     each run's length in seconds (default 40)
  --build-dir DIR  peakbench's binaries (default build/)
net:  --high MBIT (default 800) --low MBIT (default 200) --bucket MIB (default 600)
disk: --high MBPS (default 160) --low MBPS (default 40) --change S (default 15)
      --dir DIR (default a folder under the build directory: on a block device)
Example: sudo scripts/sustain_pair.sh all --duration 60
USAGE
}

fail() { echo "$ME: $*" >&2; exit 1; }

# Each side runs under timeout(1): its --duration and STALL_S more (its setup, the file's
# layout, a slow host), then SIGTERM and SIGKILL 5 s later (issue 42).
STALL_S=60
limit() { echo $((DURATION + STALL_S)); }
# side_failed RC WHAT WHERE: the part fails; "made no progress" when timeout stopped it.
side_failed() {
	case $1 in
	124 | 137) fail "$2 made no progress for $(limit) s (a run of $DURATION s and $STALL_S more): stopped, $3" ;;
	*) fail "$2 failed (exit $1), $3${4:+: $4}" ;;
	esac
}
usage_error() { echo "$ME: $* (see --help)" >&2; exit 2; }

PART=${1:-}
case $PART in
-h | --help) usage; exit 0 ;;
net | disk | all) shift ;;
*) usage_error "the first argument is net, disk or all" ;;
esac
DURATION=40 BUILD=$ROOT/build HIGH="" LOW="" BUCKET=600 CHANGE=15 DIR=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || usage_error "$1 needs a value"
	case $1 in
	--duration) DURATION=$2 ;; --build-dir) BUILD=$2 ;; --high) HIGH=$2 ;; --low) LOW=$2 ;;
	--bucket) BUCKET=$2 ;; --change) CHANGE=$2 ;; --dir) DIR=$2 ;;
	*) usage_error "unknown option $1" ;;
	esac
	shift 2
done
for v in "$DURATION" "$BUCKET" "$CHANGE" ${HIGH:+"$HIGH"} ${LOW:+"$LOW"}; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || usage_error "'$v' is not a whole positive number"
done
[ "$DURATION" -ge 10 ] || usage_error "--duration: at least 10 s (two levels to find)"
NB=$BUILD/network/netbench DB=$BUILD/disk/diskbench KNEE=$BUILD/peakinfo/peakknee
for b in "$KNEE" "$NB" "$DB"; do [ -x "$b" ] || fail "$b is not built (make)"; done

tmp=$(mktemp -d) || exit 1
PIDS="" NSA="" NSB="" CG=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$NSA" ] && ip netns del "$NSA" 2>/dev/null
	[ -n "$NSB" ] && ip netns del "$NSB" 2>/dev/null
	local i=0
	while [ -n "$CG" ] && [ -d "$CG" ] && ! rmdir "$CG" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# knee_of TOOL FILE: peakknee's answer on FILE's series as one table line.
knee_of() {
	"$KNEE" <"$2" >"$tmp/knee" || fail "peakknee failed on $1's series"
	awk -F= -v tool="$1" '{ v[$1] = $2 } END {
		if (v["found"] == 1)
			printf "%-10s %12.4g %12.4g %8s %10s %5s\n", tool, v["before"], v["after"], v["knee_s"], v["confidence"], v["seconds"]
		else
			printf "%-10s %12s %12.4g %8s %10s %5s  (no knee: %s)\n", tool, "-", v["before"], "-", "-", v["seconds"], v["why"] }' "$tmp/knee"
}

# ours_series JSON TEST: our rows' seconds, in order (burst then baseline).
ours_series() {
	python3 - "$1" "$2" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["results"] if r["test"] == sys.argv[2]]
for v in ("burst", "baseline"):
    for r in rows:
        if r["variant"] == v:
            print("\n".join(f"{x:.9g}" for x in r["samples"]))
PY
}

header() {
	printf '%-10s %12s %12s %8s %10s %5s\n' "$1" "burst" "baseline" "knee_s" "confidence" "secs"
}

net_part() {
	HIGH=${HIGH:-800} LOW=${LOW:-200}
	[ "$HIGH" -gt "$LOW" ] || usage_error "--high must be above --low"
	command -v iperf3 >/dev/null || fail "iperf3 is not installed (scripts/deps.sh --tools)"
	local id=$(($$ % 100000))
	NSA=spA$id NSB=spB$id
	local va=spva$id vb=spvb$id ipa=10.215.0.1 ipb=10.215.0.2
	{ ip netns add "$NSA" && ip netns add "$NSB"; } || fail "ip netns add (root needed)"
	{ ip link add "$va" type veth peer name "$vb" && ip link set "$va" netns "$NSA" &&
		ip link set "$vb" netns "$NSB"; } || fail "veth pair"
	{ ip -n "$NSA" addr add $ipa/30 dev "$va" && ip -n "$NSB" addr add $ipb/30 dev "$vb"; } || fail "addresses"
	for ns in "$NSA" "$NSB"; do ip -n "$ns" link set lo up; done
	{ ip -n "$NSA" link set "$va" up && ip -n "$NSB" link set "$vb" up; } || fail "links up"
	# shape: the root's rate is the burst, the child's the baseline, its bucket the burst's length
	shape() {
		ip netns exec "$NSA" tc qdisc del dev "$va" root 2>/dev/null
		{ ip netns exec "$NSA" tc qdisc add dev "$va" root handle 1: tbf rate "${HIGH}mbit" burst 256kb latency 50ms &&
			ip netns exec "$NSA" tc qdisc add dev "$va" parent 1:1 handle 10: tbf rate "${LOW}mbit" \
				burst "${BUCKET}mb" latency 1s; } || fail "tc tbf"
	}
	shape
	ip netns exec "$NSB" "$NB" server --bind $ipb --port 5301 --quiet 2>/dev/null &
	PIDS="$PIDS $!"
	sleep 0.5
	ip netns exec "$NSA" timeout -k 5 "$(limit)" "$NB" client --host $ipb --port 5301 --sustain "${DURATION}s" \
		--quiet --format json --output "$tmp/netbench.json" ||
		side_failed $? "netbench client" "in the net part's first run (the iperf3 run not started)"
	ours_series "$tmp/netbench.json" tcp_sustain >"$tmp/netbench.series"
	shape
	ip netns exec "$NSB" iperf3 -s -1 -B $ipb -p 5302 >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	sleep 0.5
	ip netns exec "$NSA" timeout -k 5 "$(limit)" iperf3 -c $ipb -p 5302 -t "$DURATION" -i 1 -J >"$tmp/iperf3.json" ||
		side_failed $? "iperf3" "in the net part's second run (netbench's done)" "$(head -c 300 "$tmp/iperf3.json")"
	python3 -c 'import json, sys
for i in json.load(open(sys.argv[1]))["intervals"]:
    if i["sum"]["seconds"] > 0.5:  # a last interval cut short is no second
        print("%.9g" % (i["sum"]["bits_per_second"] / 1e9))' "$tmp/iperf3.json" >"$tmp/iperf3.series"
	echo "== network: TCP client to server over tbf ${HIGH} Mbit/s, then ${LOW} Mbit/s (bucket ${BUCKET} MiB), ${DURATION} s, Gbit/s"
	header tool
	knee_of netbench "$tmp/netbench.series"
	knee_of iperf3 "$tmp/iperf3.series"
	awk -v h="$HIGH" -v l="$LOW" -v b="$BUCKET" 'BEGIN {
		printf "%-10s %12.4g %12.4g %8.2f   (wire rates; TCP payload is about 5%% less)\n", "shaped", h / 1000, l / 1000, b * 1048576 * 8 / ((h - l) * 1e6) }'
}

disk_part() {
	HIGH=${HIGH:-160} LOW=${LOW:-40}
	command -v fio >/dev/null || fail "fio is not installed (scripts/deps.sh --tools)"
	[ "$CHANGE" -lt "$DURATION" ] || usage_error "--change must come before the end of --duration"
	local dir=${DIR:-$BUILD/sustain-pair-disk}
	mkdir -p "$dir" || fail "cannot create $dir"
	local work
	work=$(mktemp -d "$dir/pair.XXXXXX") || fail "mktemp in $dir"
	# the whole disk of the folder (a partition's throttle rule goes on its disk)
	local devno
	devno=$(stat -c '%Hd:%Ld' "$work") || fail "stat $work"
	[ -e "/sys/dev/block/$devno" ] || fail "$work is on $devno, not a block device (overlay, tmpfs?): give --dir"
	[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")
	if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		CG=/sys/fs/cgroup/peak-sustain-pair-$$
		echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		set_limit() { echo "$devno rbps=$(($1 * 1000000))" >"$CG/io.max"; }
	elif [ -d /sys/fs/cgroup/blkio ]; then
		CG=/sys/fs/cgroup/blkio/peak-sustain-pair-$$
		set_limit() { echo "$devno $(($1 * 1000000))" >"$CG/blkio.throttle.read_bps_device"; }
	else
		fail "no block throttle: neither cgroup v2's io controller nor v1's blkio"
	fi
	mkdir "$CG" || fail "cannot create $CG (root needed)"
	# in_cgroup CMD...: run CMD in the cgroup, in the background ($! is its pid)
	in_cgroup() { sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$@" & }
	set_limit "$HIGH" || fail "the throttle refuses $devno"
	in_cgroup timeout -k 5 "$(limit)" "$DB" --dir "$work" --file-size 1GiB --sustain "${DURATION}s" --format json \
		--output "$tmp/diskbench.json" 2>"$tmp/diskbench.err"
	local pid=$! i=0
	while ! grep -q -- '--sustain: seq_read' "$tmp/diskbench.err" && [ $i -lt 1200 ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	sleep "$CHANGE"
	set_limit "$LOW"
	wait $pid || side_failed $? diskbench "in the disk part's first run (fio not started)" \
		"$(tail -n 2 "$tmp/diskbench.err")"
	ours_series "$tmp/diskbench.json" seq_read_sustain >"$tmp/diskbench.series"
	local job=(--name=sustain --directory="$work" --filename=fio-sustain.dat --size=1GiB --rw=read
		--bs=1M --direct=1 --ioengine=io_uring --iodepth=32)
	fio "${job[@]}" --create_only=1 >/dev/null || fail "fio could not lay out its file"
	set_limit "$HIGH"
	in_cgroup timeout -k 5 "$(limit)" fio "${job[@]}" --time_based --runtime="$DURATION" --write_bw_log="$tmp/fio" \
		--log_avg_msec=1000 --output="$tmp/fio.out"
	pid=$!
	sleep "$CHANGE"
	set_limit "$LOW"
	wait $pid || side_failed $? fio "in the disk part's second run (diskbench's done)" "$(tail -n 2 "$tmp/fio.out")"
	# fio's bandwidth log: msec, KiB/s, direction, block, priority; one line a second
	awk -F, '{ printf "%.9g\n", $2 * 1024 / 1e6 }' "$tmp"/fio_bw*.log >"$tmp/fio.series"
	rm -rf "$work"
	echo "== disk: sequential 1 MiB O_DIRECT reads, throttle ${HIGH} MB/s then ${LOW} MB/s at ${CHANGE} s, ${DURATION} s, MB/s"
	header tool
	knee_of diskbench "$tmp/diskbench.series"
	knee_of fio "$tmp/fio.series"
	printf '%-10s %12s %12s %8s   (diskbench: from its start line; fio: from its launch)\n' throttle "$HIGH" "$LOW" "$CHANGE"
}

case $PART in
net) net_part ;;
disk) disk_part ;;
all)
	[ -z "$HIGH$LOW" ] || usage_error "--high and --low are for net or disk alone (their units differ)"
	net_part
	HIGH="" LOW=""
	disk_part
	;;
esac
