#!/usr/bin/env bash
# likwid-bench baselines for cpubench and membench.
#
# Mapping (likwid-bench test -> peakbench row; MFlops/s / 1000 = GFLOPS, MByte/s = MB/s,
# both decimal; likwid counts bytes read + written, as membench and STREAM do):
#   peakflops              -> cpu flops scalar_dp_addmul   (-w S0:16kB per thread)
#   peakflops_avx_fma      -> cpu flops avx2_dp_fma
#   peakflops_avx512_fma   -> cpu flops avx512_dp_fma
#   copy_mem_avx512        -> memory seq_rw avx512 (or avx512-nt), 80 MiB blocks (-w S0:1GB:T)
#   stream_mem_avx512      -> memory stream triad-avx512 (or -nt)  (-w S0:1GB:T)
# Thread counts above the CPUs are left out (likwid-bench pins one thread per hwthread).
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=likwid-bench

# One likwid-bench output -> one CSV row (or nothing when it holds no result).
parse_one() {
	awk -v tool="$TOOL" "$PEAK_AWK_LIB"'
	/^Test:/ && test == "" { test = $2 }
	/^Using [0-9]+ threads/ && threads == "" { threads = $2 }
	/^Size \(Byte\):/ && size == "" { size = $3 }
	/^MFlops\/s:/ && mflops == "" { mflops = $2 }
	/^MByte\/s:/ && mbytes == "" { mbytes = $2 }
	END {
		if (test == "" || threads == "") exit 1
		ours = ""; block = ""; metric = "flops"; unit = "GFLOPS"; value = mflops / 1000
		if (test == "peakflops") ours = "cpu:flops:scalar_dp_addmul:flops"
		else if (test == "peakflops_sp") ours = "cpu:flops:scalar_sp_addmul:flops"
		else if (test == "peakflops_avx_fma") ours = "cpu:flops:avx2_dp_fma:flops"
		else if (test == "peakflops_sp_avx_fma") ours = "cpu:flops:avx2_sp_fma:flops"
		else if (test == "peakflops_avx512_fma") ours = "cpu:flops:avx512_dp_fma:flops"
		else if (test == "peakflops_sp_avx512_fma") ours = "cpu:flops:avx512_sp_fma:flops"
		else if (test ~ /^peakflops/) ours = ""
		else {
			metric = "throughput"; unit = "MB/s"; value = mbytes
			if (test == "copy_mem_avx512") { ours = "memory:seq_rw:avx512*:throughput"; block = 83886080 }
			else if (test == "stream_mem_avx512") ours = "memory:stream:triad-avx512*:throughput"
		}
		if (value == "" || !is_number(value)) exit 1
		f[1] = "baseline"; f[3] = test
		f[2] = test
		if (ours != "") { split(ours, o, ":"); f[2] = o[2] }
		f[4] = threads; f[5] = block; f[6] = metric; f[7] = unit; f[8] = 1
		f[9] = value; f[10] = ""; f[11] = value; f[12] = value; f[13] = value
		for (i = 14; i <= 21; i++) f[i] = ""
		f[22] = tool; f[23] = value
		f[24] = "ours=" ours ";working_set=" size
		if (ours == "") f[24] = "working_set=" size
		print csv_join(f, 24)
	}' "$1"
}

parse_files() {
	local f rc=0
	for f in "$@"; do
		parse_one "$f" || { echo "likwid.sh: no likwid-bench result in $f" >&2; rc=1; }
	done
	return "$rc"
}

bl_parse_args "$@"
bl_header
if [ "$BL_PARSE" = 1 ]; then
	parse_files "${BL_FILES[@]}"
	exit
fi

if ! peak_have likwid-bench; then
	peak_baseline_skip "$TOOL" flops flops GFLOPS "likwid-bench not installed (Debian: apt install likwid)"
	peak_baseline_skip "$TOOL" memory throughput MB/s "likwid-bench not installed (Debian: apt install likwid)"
	exit 0
fi

available=$(likwid-bench -a 2>/dev/null | awk '{ print $1 }')
isa=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has_test() {
	case " $(echo "$available" | tr '\n' ' ') " in *" $1 "*) ;; *) return 1 ;; esac
	case $1 in
	*avx512*) [[ $isa == *" avx512f"* ]] || return 1 ;;
	*avx_fma*) [[ $isa == *" fma"* ]] || return 1 ;;
	esac
	return 0
}

threads=$(bl_threads_upto_cpus)
mem_ws=1GB
case $BL_MODE in
quick) threads=$(bl_max_threads) ;;
tiny) threads=1 mem_ws=64MB ;;
esac

rc=0
for t in $threads; do
	for test in peakflops peakflops_avx_fma peakflops_avx512_fma copy_mem_avx512 stream_mem_avx512; do
		metric=throughput unit=MB/s
		case $test in peakflops*) metric=flops unit=GFLOPS ;; esac
		if ! has_test "$test"; then
			peak_baseline_skip "$TOOL" "$test" "$metric" "$unit" "$test not available here (likwid-bench -a or CPU flags)"
			continue
		fi
		case $test in
		peakflops*) ws="S0:$((16 * t))kB:$t" ;;
		*) ws="S0:$mem_ws:$t" ;;
		esac
		out="$BL_RAW/likwid-$test-$t.txt"
		if bl_run 120 "$out" likwid-bench -t "$test" -w "$ws"; then
			parse_one "$out" || rc=1
		else
			echo "likwid.sh: likwid-bench -t $test -w $ws failed: $(tail -n 1 "$out.err")" >&2
			peak_csv_row baseline "$test" "$TOOL" "$t" "" "$metric" "$unit" 0 "" "" "" "" "" "" "" "" "" \
				"" "" "" "" "$TOOL" "" "failed: likwid-bench exited non-zero"
			rc=1
		fi
	done
done
exit "$rc"
