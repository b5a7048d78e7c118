#!/bin/sh
# Disassemble the cpubench kernels (libpeak's instruction-class loops, which the probe
# runs too) and its frequency chains, and check that the scalar ones are scalar (no packed
# instruction, no ymm/zmm register) and that every kernel uses the instruction and vector
# width its row claims.
# Usage: check_kernel_asm.sh OBJDUMP LIBPEAK_MACHINE.a LIBCPU_KERNELS.a (the loops are libpeak's
# machine floor)
set -u
objdump=$1
shift
dis=$(mktemp) || exit 1
trap 'rm -f "$dis"' EXIT
for lib in "$@"; do
	if ! "$objdump" -d --no-show-raw-insn "$lib" >>"$dis"; then
		echo "FAIL: $objdump could not disassemble $lib" >&2
		exit 1
	fi
done
status=0

body() {
	awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^[0-9a-f]+ </ { exit } on { print }' "$dis"
}

# expect FUNCTION REGEX: the function exists and some instruction matches REGEX.
expect() {
	if ! body "$1" | grep -Eq "$2"; then
		echo "FAIL: $1 has no instruction matching '$2'" >&2
		status=1
	else
		echo "ok: $1 uses $2"
	fi
}

packed='[[:space:]](v?(add|sub|mul|div|max|min)p[sd]|vfn?m(add|sub)[0-9]+p[sd]|v?p(add|sub|mul)[a-z]*|vbroadcast[a-z0-9]*)[[:space:]]|%[yz]mm'
for fn in $(awk '$2 ~ /^<(peak_loop|cpu_chain)_scalar_/ { gsub(/[<>:]/, "", $2); print $2 }' "$dis"); do
	n=$(body "$fn" | wc -l)
	bad=$(body "$fn" | grep -E "$packed")
	if [ "$n" -lt 5 ] || [ -n "$bad" ]; then
		echo "FAIL: $fn is not a scalar kernel ($n lines):" >&2
		echo "$bad" >&2
		status=1
	else
		echo "ok: $fn is scalar ($n instructions)"
	fi
done
# The check itself must see packed code where there is some.
if ! body peak_loop_sse_dp_addmul | grep -Eq "$packed" || ! body peak_loop_avx2_dp_fma | grep -Eq "$packed"; then
	echo "FAIL: the packed-instruction pattern misses packed code" >&2
	status=1
fi
nscalar=$(awk '$2 ~ /^<peak_loop_scalar_/' "$dis" | wc -l)
if [ "$nscalar" -ne 8 ]; then
	echo "FAIL: expected 8 scalar kernels, found $nscalar" >&2
	status=1
fi

expect peak_loop_scalar_dp_fma 'vfmadd213sd'
expect peak_loop_scalar_sp_fma 'vfmadd213ss'
expect peak_loop_scalar_dp_addmul '[[:space:]]mulsd'
expect peak_loop_scalar_sp_addmul '[[:space:]]addss'
expect peak_loop_scalar_i64_add 'add[[:space:]]+%r'
expect peak_loop_scalar_i32_mul 'imul[[:space:]]+[$]0x[0-9a-f]+,%(e[a-z]+|r[0-9]+d),'
expect peak_loop_scalar_i64_mul 'imul[[:space:]]+[$]0x[0-9a-f]+,%r([a-z]+|[0-9]+),'
expect peak_loop_sse_dp_addmul '[[:space:]]mulpd[[:space:]]+%xmm'
expect peak_loop_sse_sp_addmul '[[:space:]]addps[[:space:]]+%xmm'
expect peak_loop_sse_i32_add '[[:space:]]paddd'
expect peak_loop_sse_i64_add '[[:space:]]paddq'
expect peak_loop_sse_i32_mul '[[:space:]]pmulld'
expect peak_loop_avx_dp_addmul 'vmulpd.*%ymm'
expect peak_loop_avx_sp_addmul 'vaddps.*%ymm'
expect peak_loop_avx2_dp_fma 'vfmadd[0-9]+pd.*%ymm'
expect peak_loop_avx2_sp_fma 'vfmadd[0-9]+ps.*%ymm'
expect peak_loop_avx2_i32_add 'vpaddd.*%ymm'
expect peak_loop_avx2_i64_add 'vpaddq.*%ymm'
expect peak_loop_avx2_i32_mul 'vpmulld.*%ymm'
expect peak_loop_avx512_dp_fma 'vfmadd[0-9]+pd.*%zmm'
expect peak_loop_avx512_sp_fma 'vfmadd[0-9]+ps.*%zmm'
expect peak_loop_avx512_i32_add 'vpaddd.*%zmm'
expect peak_loop_avx512_i64_add 'vpaddq.*%zmm'
expect peak_loop_avx512_i32_mul 'vpmulld.*%zmm'
expect peak_loop_avx512_i64_mul 'vpmullq.*%zmm'
# The number formats (issue 37): each loop its instruction and width, the VEX (AVX-VNNI)
# and EVEX (AVX512_VNNI + VL) ymm forms told apart, each AMX form its own tile multiply.
if grep -q '<peak_loop_avx512_bf16_dot>:' "$dis"; then
	expect peak_loop_avx512_fp16_fma 'vfmadd213ph.*%zmm'
	expect peak_loop_avx512_bf16_dot 'vdpbf16ps.*%zmm'
	expect peak_loop_avx512_bf16_dot_ymm 'vdpbf16ps.*%ymm'
	expect peak_loop_avx512_int8_dot 'vpdpbusd.*%zmm'
	expect peak_loop_avx512_int8_dot_ymm '^[^{]*[[:space:]]vpdpbusd.*%ymm'
	expect peak_loop_avxvnni_int8_dot '[{]vex[}][[:space:]]*vpdpbusd.*%ymm'
	expect amx_bf16 'tdpbf16ps'
	expect amx_fp16 'tdpfp16ps'
	expect amx_ss 'tdpbssd'
	expect amx_su 'tdpbsud'
	expect amx_us 'tdpbusd'
	expect amx_uu 'tdpbuud'
	if body peak_loop_avx512_int8_dot_ymm | grep -q '{vex}'; then
		echo "FAIL: peak_loop_avx512_int8_dot_ymm is VEX-encoded: it measures AVX-VNNI" >&2
		status=1
	fi
fi
expect cpu_chain_scalar_int 'imul[[:space:]]+%r'
exit $status
