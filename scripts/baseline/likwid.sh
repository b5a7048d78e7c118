#!/usr/bin/env bash
# likwid-bench baselines for cpubench and membench.
#
# Mapping (likwid-bench test -> peakbench row; MFlops/s / 1000 = GFLOPS, MByte/s = MB/s,
# both decimal; likwid counts bytes read + written, as membench and STREAM do):
#   peakflops              -> cpu flops scalar_dp_addmul   (-w S0:16kB per thread)
#   peakflops_avx_fma      -> cpu flops avx2_dp_fma
#   peakflops_avx512_fma   -> cpu flops avx512_dp_fma
#   copy_mem_<isa>         -> memory stream copy-<isa>-nt, membench's arrays
#   stream_mem_<isa>       -> memory stream triad-<isa>-nt, membench's arrays
# <isa>: the widest this CPU has (avx512, else avx, else sse; membench avx512/avx2/sse2);
# the _mem kernels store non-temporally, as membench does beyond the LLC. The memory
# working set is membench's --size of the same mode (1 GiB full, 256 MiB quick, 16 MiB
# tiny), given to likwid-bench in kB (10^3 bytes): membench's three STREAM arrays for
# stream_mem, two of them (2/3 of it) for copy_mem, so each array is membench's.
# Thread counts above the CPUs are left out (likwid-bench pins one thread per hwthread).
# --min-seconds S (a paired round): likwid-bench -s S, the shortest timed run (default 1 s;
# the pair keeps each side's run within the few seconds the host leaves the vCPUs in place).
set -u -o pipefail
# shellcheck source=scripts/lib_baseline.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib_baseline.sh"
TOOL=likwid-bench

bl_parse_args "$@"
if [ "$BL_PARSE" = 1 ]; then
	bl_parse_files likwid
	exit
fi

if ! bl_have likwid-bench; then
	bl_skip "$TOOL" flops flops GFLOPS "likwid-bench not installed (Debian: apt install likwid)"
	bl_skip "$TOOL" memory throughput MB/s "likwid-bench not installed (Debian: apt install likwid)"
	bl_finish likwid
	exit 0
fi

available=$(likwid-bench -a 2>/dev/null | awk '{ print $1 }')
isa=$(grep -m1 '^flags' "${PEAKBENCH_CPUINFO:-/proc/cpuinfo}" 2>/dev/null)
[ "$BL_PLAN" = 0 ] || available="peakflops peakflops_avx_fma peakflops_avx512_fma copy_mem_avx512 stream_mem_avx512 copy_mem_avx stream_mem_avx copy_mem_sse stream_mem_sse"
has_test() {
	case " $(echo "$available" | tr '\n' ' ') " in *" $1 "*) ;; *) return 1 ;; esac
	case $1 in
	*avx512*) [[ $isa == *" avx512f"* ]] || return 1 ;;
	*avx_fma*) [[ $isa == *" fma"* ]] || return 1 ;;
	esac
	return 0
}

threads=$(bl_threads_upto_cpus)
size=$((1 << 30))
case $BL_MODE in
quick) threads=$(bl_max_threads) size=$((256 << 20)) ;;
tiny) threads=1 size=$((16 << 20)) ;;
esac
# A paired job (--tests) runs the thread count membench's matching run has.
[ -z "$BL_TESTS" ] || threads=$(bl_threads_upto_cpus)
mem_ws=$((size / 1000))kB
# The widest ISA of the CPU for the memory kernels (never assume AVX-512).
misa=sse
if [[ $isa == *" avx512f"* ]]; then misa=avx512; elif [[ $isa == *" avx"* ]]; then misa=avx; fi

rc=0
for t in $threads; do
	for test in peakflops peakflops_avx_fma peakflops_avx512_fma "copy_mem_$misa" "stream_mem_$misa"; do
		bl_want "$test" || continue
		metric=throughput unit=MB/s
		case $test in peakflops*) metric=flops unit=GFLOPS ;; esac
		if ! has_test "$test"; then
			bl_skip "$TOOL" "$test" "$metric" "$unit" "$test not available here (likwid-bench -a or CPU flags)"
			continue
		fi
		case $test in
		peakflops*) ws="S0:$((16 * t))kB:$t" ;;
		copy_mem_*) ws="S0:$((size * 2 / 3 / 1000))kB:$t" ;;
		*) ws="S0:$mem_ws:$t" ;;
		esac
		out="$BL_RAW/likwid-$test-$t.txt"
		if ! bl_run 120 "$out" likwid-bench -t "$test" -w "$ws" ${BL_MIN_SECONDS:+-s "$BL_MIN_SECONDS"}; then
			echo "likwid.sh: likwid-bench -t $test -w $ws failed: $(tail -n 1 "$out.err")" >&2
			bl_skip "$TOOL" "$test" "$metric" "$unit" "failed: likwid-bench -t $test exited non-zero"
			rc=1
		fi
	done
done
ver=$(likwid-bench -h 2>/dev/null | sed -n 's/.*Version *\([0-9.]*\).*/likwid-bench \1/p' | head -n 1)
bl_finish likwid --ctx "membench_size=$size" --ctx "version=${ver:-likwid-bench}" || rc=1
exit "$rc"
