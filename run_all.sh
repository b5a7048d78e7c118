#!/usr/bin/env bash
# run_all.sh: the whole peakbench protocol in one command. Builds if needed, runs every
# suite that is built (or --only some), the reference tools, then the charts and the
# report, into results/<timestamp>/. Progress and ETA on stderr.
set -u -o pipefail
# The whole script is one compound command, so bash parses it before running it: editing
# run_all.sh (a git pull) while a long run is in progress cannot change the running one.
{

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

usage() {
	cat <<'EOF'
Usage: ./run_all.sh [options]
Run the peakbench protocol (the PA1 protocol by default: 1/2/4/8 threads, every block
size, 3 repetitions) and write results/<timestamp>/ with CSV, JSON, charts and report.md.

Options:
  --quick            reduced plan that finishes in a few minutes (1,2 threads, smaller
                     sizes, --min-time 0.05 unless given)
  --only LIST        suites to run: cpu,memory,disk,network,dpdk (default: all built)
  --reps N           repetitions per point (default 3)
  --threads LIST     thread counts (default 1,2,4,8; --quick: 1,2)
  --min-time S       shortest repetition, passed to every benchmark
  --out DIR          results folder (default results/<timestamp>)
  --disk-dir DIR     directory for diskbench's and fio's test files (default: under --out)
  --peer HOST        also run netbench against a `netbench server` on HOST (two-node part)
  --build-dir DIR    use binaries from DIR (default build/, built with `make`)
  --no-build         do not run make; use what is already built
  --no-baselines     skip the reference tools (fio, iperf3, sockperf, hpcc, likwid-bench);
                     without it, missing tools are installed first when root or sudo -n
                     can (scripts/deps.sh --tools), else the command to run is printed
  --no-charts        skip gnuplot
  --tiny             tiny sizes for tests (implies --quick; numbers are meaningless)
  --dry-run          print the plan with the estimated time and run nothing
  -h, --help         this help

Environment: PEAKBENCH_LOCK=FILE takes flock(1) on FILE around every measuring step, so
runs that share a machine measure one at a time. PEAKBENCH_DPDK_HUGE=auto|yes|no: dpdkbench
on hugepages when a hugetlbfs is mounted and enough pages are free (auto), always, or never
(--no-huge); run_all.sh never allocates hugepages itself. PEAK_DEPS=required: install no
reference tool (scripts/deps.sh).

DPDK steps (--only dpdk): net_ring loopback; a tester and a dut over net_memif in two
processes (scripts/dpdk_memif_pair.sh, 2 CPUs), at full load and again at --rate 0.1 Mpps
for the round trip without queueing; and netbench's kernel UDP path at the same frame sizes
(payload = frame - 46 bytes), compared in the report.

Exit status: 0 when every step ran (skipped steps included), 1 when a step failed,
2 on a usage error.
EOF
}

usage_error() {
	echo "run_all.sh: $1 (see ./run_all.sh --help)" >&2
	exit 2
}

# ---------------------------------------------------------------- options
QUICK=0 TINY=0 DRY=0 BUILD=1 BASELINES=1 CHARTS=1
ONLY="" REPS="" THREADS="" MIN_TIME="" OUT="" DISK_DIR="" PEER="" BUILD_DIR=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) QUICK=1 ;;
	--tiny) TINY=1 QUICK=1 ;;
	--dry-run) DRY=1 ;;
	--no-build) BUILD=0 ;;
	--no-baselines) BASELINES=0 ;;
	--no-charts) CHARTS=0 ;;
	--only | --reps | --threads | --min-time | --out | --disk-dir | --peer | --build-dir)
		if [ $# -lt 2 ] || [ -z "$2" ]; then usage_error "$1 needs a value"; fi
		case $1 in
		--only) ONLY=$2 ;;
		--reps) REPS=$2 ;;
		--threads) THREADS=$2 ;;
		--min-time) MIN_TIME=$2 ;;
		--out) OUT=$2 ;;
		--disk-dir) DISK_DIR=$2 ;;
		--peer) PEER=$2 ;;
		--build-dir) BUILD_DIR=$2 ;;
		esac
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*) usage_error "unknown option '$1'" ;;
	esac
	shift
done

ALL_SUITES="cpu memory disk network dpdk"
if [ -n "$ONLY" ]; then
	for s in ${ONLY//,/ }; do
		case " $ALL_SUITES " in
		*" $s "*) ;;
		*) usage_error "--only: unknown suite '$s' (cpu,memory,disk,network,dpdk)" ;;
		esac
	done
	SUITES=" ${ONLY//,/ } "
else
	SUITES=" $ALL_SUITES "
fi
if [ -n "$REPS" ]; then
	if ! [[ $REPS =~ ^[1-9][0-9]{0,3}$ ]] || [ "$REPS" -gt 1000 ]; then
		usage_error "--reps: '$REPS' is not a count from 1 to 1000"
	fi
else
	REPS=3
fi
if [ -n "$THREADS" ]; then
	[[ $THREADS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
		usage_error "--threads: '$THREADS' is not a list like 1,2,4,8"
elif [ "$QUICK" = 1 ]; then
	THREADS=1,2
else
	THREADS=1,2,4,8
fi
if [ -z "$MIN_TIME" ] && [ "$QUICK" = 1 ]; then
	MIN_TIME=0.05
elif [ -n "$MIN_TIME" ]; then
	if ! [[ $MIN_TIME =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] ||
		[ "$(awk -v t="$MIN_TIME" 'BEGIN { print (t > 0 && t <= 3600) }')" != 1 ]; then
		usage_error "--min-time: '$MIN_TIME' is not a number of seconds in (0, 3600]"
	fi
fi
[ -z "$PEER" ] || [[ $PEER =~ ^[A-Za-z0-9.:_-]+$ ]] || usage_error "--peer: '$PEER' is not a host name or address"

want() { case $SUITES in *" $1 "*) return 0 ;; esac; return 1; }
NTHREADS=$(echo "$THREADS" | tr ',' '\n' | wc -l)

# ---------------------------------------------------------------- the results folder
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
[ -n "$OUT" ] || OUT="$ROOT/results/$STAMP"
[ -n "$BUILD_DIR" ] || BUILD_DIR="$ROOT/build"
case $BUILD_DIR in /*) ;; *) BUILD_DIR="$PWD/$BUILD_DIR" ;; esac
case $OUT in /*) ;; *) OUT="$PWD/$OUT" ;; esac

# ---------------------------------------------------------------- the plan
# Each step: suite, name, estimated seconds, kind (bench|baseline|post), binary, output
# base name, then the command as a %q-quoted string (exactly what commands.txt shows).
STEP_SUITE=() STEP_NAME=() STEP_EST=() STEP_KIND=() STEP_BIN=() STEP_OUTF=() STEP_CMD=()

plan() {
	local suite=$1 name=$2 est=$3 kind=$4 bin=$5 outf=$6
	shift 6
	STEP_SUITE+=("$suite") STEP_NAME+=("$name") STEP_EST+=("$est") STEP_KIND+=("$kind")
	STEP_BIN+=("$bin") STEP_OUTF+=("$outf")
	local q="" a
	for a in "$@"; do q+="$(shquote "$a") "; done
	STEP_CMD+=("${q% }")
}

# One word for a shell command line: bare when safe, else single-quoted.
shquote() {
	if [[ $1 =~ ^[A-Za-z0-9_./:,=+@%-]+$ ]]; then
		printf '%s' "$1"
	else
		printf "'%s'" "${1//\'/\'\\\'\'}"
	fi
}

# Common flags for every benchmark binary.
common_flags() {
	COMMON=(--threads "$THREADS" --reps "$REPS" --quiet)
	[ -z "$MIN_TIME" ] || COMMON+=(--min-time "$MIN_TIME")
}
common_flags

# Estimated seconds of a sweep: points x (reps + 1 warm-up) x seconds per repetition.
est() { awk -v p="$1" -v r="$REPS" -v s="$2" 'BEGIN { printf "%d", p * (r + 1) * s + 1 }'; }

build_plan() {
	# Estimates: points x (reps + 1) x seconds per repetition, the point counts calibrated on
	# the development machine (they include each binary's own calibration and setup).
	local rep_s=${MIN_TIME:-0.2}

	plan info peakinfo 5 bench peakinfo peakinfo peakinfo --quiet

	if want cpu; then
		local isa=all
		[ "$TINY" = 0 ] || isa=best
		plan cpu cpubench "$(est $((53 * NTHREADS)) "$rep_s")" bench cpubench cpu-cpubench \
			cpubench --test flops,iops --isa "$isa" --precision sp,dp "${COMMON[@]}"
		local lp=(--max-time 20)
		[ "$QUICK" = 0 ] || lp=(--max-time 5)
		[ "$TINY" = 0 ] || lp=(--n 200)
		# OpenBLAS threads: the largest count that fits the CPUs (as hpcc.sh uses).
		local lpt=1 t ncpu
		ncpu=$(nproc 2>/dev/null || echo 1)
		for t in ${THREADS//,/ }; do [ "$t" -le "$ncpu" ] && [ "$t" -gt "$lpt" ] && lpt=$t; done
		plan cpu linpack "$(est 1 "${lp[1]}" | awk '{ print int($1 * 3 / 4) }')" bench linpack cpu-linpack linpack "${lp[@]}" \
			--threads "$lpt" --reps "$REPS" --quiet
	fi

	if want memory; then
		local size=1GiB blocks=8B,8KiB,8MiB,80MiB sweep=4KiB:1GiB
		if [ "$TINY" = 1 ]; then
			size=16MiB blocks=8B,8KiB,1MiB sweep=4KiB:16MiB:1
		elif [ "$QUICK" = 1 ]; then
			size=256MiB blocks=8B,8KiB,8MiB,80MiB sweep=4KiB:64MiB:1
		fi
		plan memory membench "$(est $((135 * NTHREADS)) "$rep_s")" bench membench memory-membench \
			membench --test all --block "$blocks" --size "$size" --sweep "$sweep" "${COMMON[@]}"
	fi

	if want memory; then
		# Bandwidth of each memory level for the roofline: reads over a buffer that fits the
		# level (half of it per thread for private caches), every CPU reading.
		local ncpu l1 l2 l3 lv sz dram=1GiB
		ncpu=$(nproc 2>/dev/null || echo 1)
		l1=$(cache_bytes 1 32768) l2=$(cache_bytes 2 1048576) l3=$(cache_bytes 3 33554432)
		[ "$QUICK" = 0 ] || dram=256MiB
		[ "$TINY" = 0 ] || dram=16MiB
		for lv in L1 L2 L3 DRAM; do
			case $lv in
			L1) sz=$((l1 * ncpu / 2048))KiB ;;
			L2) sz=$((l2 * ncpu / 2048))KiB ;;
			L3) sz=$((l3 / 2048))KiB ;;
			DRAM) sz=$dram ;;
			esac
			plan memory "bandwidth $lv" "$(est 1 "$rep_s")" bench membench "levels-$lv" \
				membench --test seq_read --block 4KiB --size "$sz" --threads "$ncpu" --reps "$REPS" \
				--quiet ${MIN_TIME:+--min-time "$MIN_TIME"}
		done
	fi

	if want disk; then
		# Time-based repetitions (fio's time_based): a size-based pass of 4 KiB random reads
		# over 1 GiB takes 10-20 s here per repetition, and the plan has hundreds of points.
		local fsize=1GiB dblocks=8B,4KiB,8KiB,1MiB,8MiB,80MiB runtime=0.5 nb
		if [ "$TINY" = 1 ]; then
			fsize=8MiB dblocks=4KiB,1MiB runtime=0.05
		elif [ "$QUICK" = 1 ]; then
			fsize=256MiB dblocks=4KiB,1MiB runtime=0.2
		fi
		nb=$(echo "$dblocks" | tr ',' '\n' | wc -l)
		plan disk diskbench "$(est $((6 * nb * 2 * NTHREADS)) "$runtime")" bench diskbench disk-diskbench \
			diskbench --dir "${DISK_DIR:-$OUT/disk-tmp}" --file-size "$fsize" --test all \
			--block "$dblocks" --runtime "$runtime" "${COMMON[@]}"
	fi

	if want network; then
		local bytes=1GiB
		[ "$QUICK" = 0 ] || bytes=128MiB
		[ "$TINY" = 0 ] || bytes=1MiB
		plan network netbench "$(est $((4 * NTHREADS)) 1)" bench netbench network-netbench \
			netbench loopback --test all --buffer 64KiB --bytes "$bytes" "${COMMON[@]}"
		if [ -n "$PEER" ]; then
			plan network "netbench --peer $PEER" "$(est $((4 * NTHREADS)) 2)" bench netbench \
				network-remote netbench client --host "$PEER" --test all --buffer 64KiB \
				--bytes "$bytes" "${COMMON[@]}"
		fi
	fi

	if want dpdk; then
		local sizes=64,1500,9000 flows=1,8,32,256 pflows=1,8 t=1 mem nsizes payloads="" s
		[ "$QUICK" = 0 ] || flows=1,32 pflows=1 t=0.5
		[ "$TINY" = 0 ] || sizes=64 flows=1 pflows=1 t=0.1
		nsizes=$(echo "$sizes" | tr ',' '\n' | wc -l)
		# Hugepages when enough are free (much faster), else ordinary memory: the EAL
		# arguments say which, in the plan and in the results' context (dpdk_eal_args).
		mapfile -t mem < <(peak_dpdk_eal_mem 1 512)
		plan dpdk dpdkbench "$(est $((3 * 4)) "$t")" bench dpdkbench dpdk-dpdkbench \
			dpdkbench -l 0 "${mem[@]}" --no-pci --no-telemetry '--log-level=*:critical' --file-prefix=peakbench-runall --vdev=net_ring0 -- --role loopback --sizes "$sizes" \
			--flows "$flows" --time "$t" --reps "$REPS"
		# Tester and dut in two processes over net_memif, one CPU each, both directions.
		plan dpdk "memif pair" "$(est $((nsizes * $(echo "$pflows" | tr ',' '\n' | wc -l))) "$t" | awk '{ print $1 + 3 }')" \
			bench dpdkbench dpdk-memif scripts/dpdk_memif_pair.sh dpdkbench --sizes "$sizes" \
			--flows "$pflows" --direction bi --time "$t" --reps "$REPS"
		# The same pair at a light load (0.1 Mpps per direction): the round trip without
		# queueing in full rings, comparable with the kernel's ping-pong below.
		plan dpdk "memif latency" "$(est "$nsizes" "$t" | awk '{ print $1 + 3 }')" \
			bench dpdkbench dpdk-memif-rate scripts/dpdk_memif_pair.sh dpdkbench --sizes "$sizes" \
			--flows 1 --direction bi --rate 0.1 --time "$t" --reps "$REPS"
		# The kernel's UDP path at the same sizes, for the report's comparison: a frame of S
		# bytes (with FCS) carries S - 46 bytes of UDP payload (Ethernet 14, IPv4 20, UDP 8,
		# FCS 4). One connection, as the pair runs one tester lcore.
		for s in ${sizes//,/ }; do payloads+="${payloads:+,}$((s - 46))B"; done
		plan dpdk "kernel udp" "$(est $((2 * nsizes)) "$t")" bench netbench network-udpframes \
			netbench loopback --test udp_throughput,udp_latency --datagram "$payloads" \
			--msg-size "$payloads" --time "$t" --threads 1 --reps "$REPS" --quiet
	fi

	if [ "$BASELINES" = 1 ]; then
		local mode=full b
		[ "$QUICK" = 0 ] || mode=quick
		[ "$TINY" = 0 ] || mode=tiny
		for b in hpcc likwid fio iozone iperf3 sockperf; do
			local bs
			case $b in
			hpcc | likwid) bs=cpu,memory ;;
			fio | iozone) bs=disk ;;
			*) bs=network ;;
			esac
			local any=0 s
			for s in ${bs//,/ }; do want "$s" && any=1; done
			[ "$any" = 1 ] || continue
			local be=5
			case $mode:$b in
			full:hpcc) be=150 ;; full:likwid) be=40 ;; full:fio) be=60 ;; full:iperf3) be=35 ;;
			full:sockperf) be=10 ;; quick:hpcc) be=35 ;; quick:likwid) be=28 ;; quick:fio) be=12 ;;
			quick:iperf3 | quick:sockperf) be=8 ;;
			esac
			case $b in
			iozone) peak_have iozone || be=1 ;;
			likwid) peak_have likwid-bench || be=1 ;;
			*) peak_have "$b" || be=1 ;;
			esac
			local extra=()
			[ "$b" != fio ] && [ "$b" != iozone ] || extra=(--dir "${DISK_DIR:-$OUT/disk-tmp}")
			plan baseline "$b" "$be" baseline "$ROOT/scripts/baseline/$b.sh" "baseline-$b" \
				"scripts/baseline/$b.sh" --mode "$mode" --threads "$THREADS" \
				--raw "$OUT/raw" "${extra[@]}"
		done
	fi
	# The VM placement fingerprint again, against peakinfo's at the start: did the host move
	# the vCPUs during the run? (context c2c.moved, report's Machine table)
	plan info placement 1 bench peakinfo placement peakinfo --placement-since "$OUT/raw/peakinfo.json" --quiet
	# Everything after the binaries: the results program (scripts/peakresults/finish.py).
	if [ "$CHARTS" = 0 ]; then
		plan post finish 2 post python3 finish python3 scripts/peakresults finish "$OUT" --no-charts
	else
		plan post finish 12 post python3 finish python3 scripts/peakresults finish "$OUT"
	fi
}

# Size in bytes of the level-N data (or unified) cache of CPU 0, DEFAULT when unknown.
cache_bytes() {
	local want=$1 def=$2 d lvl typ sz
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$d/level" ] || continue
		lvl=$(cat "$d/level") typ=$(cat "$d/type" 2>/dev/null) sz=$(cat "$d/size" 2>/dev/null)
		if [ "$lvl" != "$want" ] || [ "$typ" = Instruction ]; then continue; fi
		case $sz in
		*K) echo $((${sz%K} * 1024)); return ;;
		*M) echo $((${sz%M} * 1048576)); return ;;
		[0-9]*) echo "$sz"; return ;;
		esac
	done
	echo "$def"
}

# ---------------------------------------------------------------- helpers
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

# ETA: the estimate left, scaled by how the steps so far compared with their estimates
# (time spent measuring, not waiting for PEAKBENCH_LOCK), the scale kept within 1/4..4.
progress() {
	local i=$1 n=$2 what=$3 done_est=$4 left_est=$5 busy=$6 el eta
	el=$(($(now_s) - START_S))
	eta=$(awk -v b="$busy" -v d="$done_est" -v l="$left_est" 'BEGIN {
		r = (d > 0 && b > 0) ? b / d : 1; if (r < 0.25) r = 0.25; if (r > 4) r = 4
		printf "%d", l * r }')
	printf '[%d/%d] %-34s elapsed %s, ETA %s\n' "$i" "$n" "$what" \
		"$(peak_fmt_duration "$el")" "$(peak_fmt_duration "$eta")" >&2
}

# status.tsv: step, suite, status (ok|failed|skipped|not_built), seconds, reason.
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5//$'\t'/ }" >>"$OUT/status.tsv"
}

last_line() { [ -s "$1" ] && grep -v '^[[:space:]]*$' "$1" | tail -n 1; }

run_bench() {
	local i=$1 bin=$2 outf=$3 cmd=("${@:4}") path rc fmt
	if ! path=$(find_bin "$bin"); then
		if [ "$bin" = dpdkbench ] && ! pkg-config --exists libdpdk 2>/dev/null; then
			LAST_REASON="not built (libdpdk not found)"
		else
			LAST_REASON="not built ($bin not found under $BUILD_DIR)"
		fi
		return 3
	fi
	if [ "$outf" = network-udpframes ] && ! find_bin dpdkbench >/dev/null; then
		LAST_REASON="dpdkbench not built: no DPDK figures to compare the kernel's with"
		return 3
	fi
	fmt=json
	case ${cmd[0]} in
	scripts/*)
		# A launcher script (the memif pair): the binary is its first argument.
		cmd[0]=$ROOT/${cmd[0]}
		cmd[1]=$path
		;;
	*) cmd[0]=$path ;;
	esac
	# dpdkbench: our flags come after the EAL's "--".
	"${cmd[@]}" --format "$fmt" --output "$OUT/raw/$outf.$fmt" >"$OUT/logs/$outf.out" \
		2>"$OUT/logs/$outf.err" 9>&-
	rc=$?
	LAST_REASON=$(last_line "$OUT/logs/$outf.err")
	return "$rc"
}

run_baseline() {
	local outf=$1 script=$2 cmd=("${@:3}") rc
	cmd[0]=$script
	if [ ! -x "$script" ]; then
		LAST_REASON="${script#"$ROOT"/} not present"
		return 3
	fi
	"${cmd[@]}" >"$OUT/raw/$outf.csv" 2>"$OUT/logs/$outf.err" 9>&-
	rc=$?
	LAST_REASON=$(last_line "$OUT/logs/$outf.err")
	return "$rc"
}

# ---------------------------------------------------------------- main
plan_all() {
	STEP_SUITE=() STEP_NAME=() STEP_EST=() STEP_KIND=() STEP_BIN=() STEP_OUTF=() STEP_CMD=()
	build_plan
	N=${#STEP_NAME[@]}
	TOTAL_EST=0
	for e in "${STEP_EST[@]}"; do TOTAL_EST=$((TOTAL_EST + e)); done
}
plan_all

if [ "$DRY" = 1 ]; then
	printf 'peakbench plan: %d steps, estimated %s (threads %s, reps %s%s)\n' "$N" \
		"$(peak_fmt_duration "$TOTAL_EST")" "$THREADS" "$REPS" \
		"$([ "$QUICK" = 1 ] && echo ', quick')"
	printf 'results: %s\n' "$OUT"
	for ((i = 0; i < N; i++)); do
		printf '%2d. %-8s %-22s ~%-7s %s\n' $((i + 1)) "${STEP_SUITE[i]}" "${STEP_NAME[i]}" \
			"$(peak_fmt_duration "${STEP_EST[i]}")" "${STEP_CMD[i]}"
	done
	exit 0
fi

if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT" 2>/dev/null)" ]; then
	usage_error "--out: $OUT is not empty (results of another run would mix in); name a new folder"
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

# The reference tools, before the baseline steps: installed when root or sudo -n can, else
# scripts/deps.sh prints the one command to run and the baselines of missing tools are
# skipped. The plan is made again: its estimates depend on which tools are there.
if [[ " ${STEP_KIND[*]} " == *" baseline "* ]]; then
	bash "$ROOT/scripts/deps.sh" --tools >&2 || true
	plan_all
fi

mkdir -p "$OUT/raw" "$OUT/logs" || exit 1
# Interrupted: say so, and remove the disk test folder when it is ours (diskbench and fio
# remove their own files on SIGINT/SIGTERM).
trap 'echo "run_all.sh: interrupted; partial results in $OUT" >&2; [ -n "$DISK_DIR" ] || rm -rf "$OUT/disk-tmp"; exit 130' INT TERM
: >"$OUT/status.tsv"
{
	echo "# peakbench run_all.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) in $ROOT"
	echo "# build dir: $BUILD_DIR; results: $OUT"
} >"$OUT/commands.txt"

# PEAKBENCH_LOCK=FILE: take this flock around every measuring step, so that benchmarks
# sharing a machine run one at a time (step times exclude the wait).
LOCKED=0
if [ -n "${PEAKBENCH_LOCK:-}" ] && peak_have flock; then
	exec 9>>"$PEAKBENCH_LOCK" && LOCKED=1
fi
lock() { [ "$LOCKED" = 0 ] || flock 9; }
unlock() { [ "$LOCKED" = 0 ] || flock -u 9; }

FAILED=0 DONE_EST=0 BUSY=0
for ((i = 0; i < N; i++)); do
	left=$((TOTAL_EST - DONE_EST))
	progress $((i + 1)) "$N" "${STEP_SUITE[i]}: ${STEP_NAME[i]}" "$DONE_EST" "$left" "$BUSY"
	eval "cmd=(${STEP_CMD[i]})"
	# shellcheck disable=SC2154  # cmd is set by eval
	[ "${STEP_KIND[i]}" = post ] || lock
	t0=$(now_s)
	LAST_REASON=""
	case ${STEP_KIND[i]} in
	bench)
		[ "${STEP_SUITE[i]}" != disk ] || mkdir -p "${DISK_DIR:-$OUT/disk-tmp}"
		run_bench "$i" "${STEP_BIN[i]}" "${STEP_OUTF[i]}" "${cmd[@]}"
		rc=$?
		# One loopback peak per run: netbench's rows take peakinfo's figure.
		if [ "${STEP_BIN[i]}" = peakinfo ] && [ "$rc" = 0 ]; then
			PEAKBENCH_LOOPBACK_GBPS=$(loopback_peak "$OUT") && export PEAKBENCH_LOOPBACK_GBPS
		fi
		;;
	baseline)
		[ "${STEP_NAME[i]}" != fio ] || mkdir -p "${DISK_DIR:-$OUT/disk-tmp}"
		mkdir -p "$OUT/raw"
		run_baseline "${STEP_OUTF[i]}" "${STEP_BIN[i]}" "${cmd[@]}"
		rc=$?
		;;
	post)
		cmd[1]=$ROOT/${cmd[1]}
		"${cmd[@]}" >"$OUT/logs/${STEP_OUTF[i]}.out" 2>"$OUT/logs/${STEP_OUTF[i]}.err"
		rc=$?
		LAST_REASON=$(last_line "$OUT/logs/${STEP_OUTF[i]}.err")
		;;
	esac
	secs=$(($(now_s) - t0))
	unlock
	echo "${STEP_OUTF[i]}: ${STEP_CMD[i]}" >>"$OUT/commands.txt"
	if [ "$rc" -eq 0 ]; then
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

el=$(($(now_s) - START_S))
if [ "$FAILED" -gt 0 ]; then
	echo "run_all.sh: $FAILED step(s) failed in $(peak_fmt_duration "$el"); see $OUT/status.tsv and $OUT/logs/" >&2
	exit 1
fi
echo "run_all.sh: done in $(peak_fmt_duration "$el"): $OUT/report.md" >&2
exit 0
}
