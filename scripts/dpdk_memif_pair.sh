#!/usr/bin/env bash
# dpdk_memif_pair.sh: a dpdkbench dut and tester in two processes joined by net_memif, one
# CPU each, for run_all.sh and for hand use. The tester's options pass through; the dut is
# always stopped; the exit status is the tester's (a failed dut makes it 1).
set -u -o pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ME=dpdk_memif_pair.sh

usage() {
	cat <<'EOF'
Usage: scripts/dpdk_memif_pair.sh DPDKBENCH [TESTER OPTIONS...]
Run a dpdkbench dut (--role dut, on the second allowed CPU) and a tester (--role tester, on
the first) over net_memif, the socket a file in a private temporary folder. TESTER OPTIONS
are dpdkbench's options after "--" (--sizes, --flows, --queues, --direction, --time, --reps,
--format, --output, ...), given to the tester as they are; the dut gets the largest
--queues and --sizes of them. EAL memory: hugepages when enough are free, else --no-huge
(scripts/lib.sh peak_dpdk_eal_mem; PEAKBENCH_DPDK_HUGE=yes|no overrides).

Example: scripts/dpdk_memif_pair.sh build/dpdk/dpdkbench --sizes 64,1500,9000 --flows 1,8 \
             --direction bi --time 1

Exit status: the tester's (0 ok, 1 failed, 2 usage error, 3 not supported here); 1 when the
dut failed; 3 with fewer than 2 CPUs or without an executable DPDKBENCH.
EOF
}

usage_error() {
	echo "$ME: $1 (usage: $ME DPDKBENCH [TESTER OPTIONS...]; --help for more)" >&2
	exit 2
}

# The largest number of a comma-separated list of plain integers; DEFAULT when the list
# holds anything else (the tester then rejects it or reads the units itself).
list_max() {
	local list=$1 def=$2 v m=0
	[[ $list =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "$def"; return; }
	for v in ${list//,/ }; do [ "$((10#$v))" -gt "$m" ] && m=$((10#$v)); done
	echo "$m"
}

# The first two CPUs this process may run on ("0 1"), from Cpus_allowed_list.
two_cpus() {
	local list part lo hi out=()
	list=$(awk '$1 == "Cpus_allowed_list:" { print $2 }' /proc/self/status 2>/dev/null)
	[ -n "$list" ] || list="0-$(($(nproc 2>/dev/null || echo 1) - 1))"
	for part in ${list//,/ }; do
		lo=${part%-*} hi=${part#*-}
		while [ "$lo" -le "$hi" ] && [ ${#out[@]} -lt 2 ]; do
			out+=("$lo")
			lo=$((lo + 1))
		done
	done
	echo "${out[*]}"
}

[ $# -gt 0 ] || usage_error "the dpdkbench binary is missing"
case $1 in
-h | --help)
	usage
	exit 0
	;;
-*) usage_error "the first argument is the dpdkbench binary, not '$1'" ;;
esac
BIN=$1
shift
SIZES="" QUEUES=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[i]} in
	--role | --role=*) usage_error "--role is set here (tester and dut); give the tester's other options" ;;
	--sizes | --queues)
		[ $((i + 1)) -lt ${#args[@]} ] || usage_error "${args[i]} needs a value"
		[ "${args[i]}" = --sizes ] && SIZES=${args[i + 1]}
		[ "${args[i]}" = --queues ] && QUEUES=${args[i + 1]}
		;;
	--sizes=*) SIZES=${args[i]#--sizes=} ;;
	--queues=*) QUEUES=${args[i]#--queues=} ;;
	esac
done
if [ ! -x "$BIN" ] || [ -d "$BIN" ]; then
	echo "$ME: dpdkbench not found at '$BIN' (build it: make, with libdpdk-dev installed)" >&2
	exit 3
fi
read -r CPU_TESTER CPU_DUT <<<"$(two_cpus)"
if [ -z "${CPU_DUT:-}" ]; then
	echo "$ME: needs 2 CPUs (the tester and the dut busy-poll one each); this process may use 1" >&2
	exit 3
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/peakbench-memif.XXXXXX") || exit 1
SOCK="$TMP/memif.sock"
DUT_PID="" TESTER_PID="" STOP_RC=0

# stop PID SECONDS: wait that long for PID to leave, then SIGTERM it (dpdkbench stops its
# loops and closes its port), then SIGKILL; its exit status in STOP_RC.
stop() {
	local pid=$1 s=$2 i
	for ((i = 0; i < s * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	STOP_RC=$?
}

# The tester first: a dut must not unmap a memif ring a tester still polls.
# shellcheck disable=SC2317  # called from the traps
cleanup() {
	[ -z "$TESTER_PID" ] || stop "$TESTER_PID" 0
	[ -z "$DUT_PID" ] || stop "$DUT_PID" 0
	TESTER_PID="" DUT_PID=""
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# No shared config (--no-shconf, or --in-memory which implies it): EAL writes nothing under
# its runtime folder, so a fixed prefix per role leaves one empty folder, not one per run.
mapfile -t MEM < <(peak_dpdk_eal_mem 2 512)
eal() {
	printf '%s\n' -l "$1" "${MEM[@]}" --no-pci --no-telemetry '--log-level=*:critical' \
		--file-prefix "peakbench-memif-$2" \
		"--vdev=net_memif0,role=$3,socket=$SOCK,socket-abstract=no,bsize=9216"
}
mapfile -t EAL_DUT < <(eal "$CPU_DUT" dut server)
mapfile -t EAL_TESTER < <(eal "$CPU_TESTER" tester client)

# The dut: as many queues as the tester's largest count (memif pairs ring i with ring i),
# mbufs and MTU for the largest frame.
"$BIN" "${EAL_DUT[@]}" -- --role dut --queues "$(list_max "${QUEUES:-1}" "${QUEUES:-1}")" \
	--sizes "$(list_max "${SIZES:-9000}" 9216)" --quiet >"$TMP/dut.out" 2>"$TMP/dut.err" &
DUT_PID=$!

# The memif client connects once, when it starts: wait for the dut's socket file.
for ((i = 0; i < 100; i++)); do
	[ ! -S "$SOCK" ] || break
	if ! kill -0 "$DUT_PID" 2>/dev/null; then
		stop "$DUT_PID" 0
		DUT_PID=""
		echo "$ME: the dut exited $STOP_RC before listening: $(grep -v '^[[:space:]]*$' "$TMP/dut.err" | tail -n 1)" >&2
		[ "$STOP_RC" -eq 3 ] && exit 3
		exit 1
	fi
	sleep 0.1
done
if [ ! -S "$SOCK" ]; then
	echo "$ME: the dut did not open its memif socket within 10 s" >&2
	exit 1
fi

"$BIN" "${EAL_TESTER[@]}" -- --role tester "$@" &
TESTER_PID=$!
wait "$TESTER_PID"
rc=$?
TESTER_PID=""
# A tester that finished sent QUIT: the dut leaves about a second later by itself.
stop "$DUT_PID" 5
dut_rc=$STOP_RC
DUT_PID=""
if [ "$rc" -eq 0 ] && [ "$dut_rc" -ne 0 ]; then
	sed "s/^/$ME: dut: /" "$TMP/dut.err" >&2
	echo "$ME: the dut exited $dut_rc" >&2
	rc=1
fi
exit "$rc"
