#!/bin/sh
# Disassemble the cpubench kernels and check that the scalar ones are scalar (no packed
# instruction, no ymm/zmm register) and that every kernel uses the instruction and vector
# width its row claims.
# Usage: check_kernel_asm.sh LIBCPU_KERNELS.a [OBJDUMP]
set -u
lib=$1
objdump=${2:-objdump}
dis=$(mktemp) || exit 1
trap 'rm -f "$dis"' EXIT
if ! "$objdump" -d --no-show-raw-insn "$lib" >"$dis"; then
	echo "FAIL: $objdump could not disassemble $lib" >&2
	exit 1
fi
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
for fn in $(awk '$2 ~ /^<cpu_(k|chain)_scalar_/ { gsub(/[<>:]/, "", $2); print $2 }' "$dis"); do
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
if ! body cpu_k_sse_dp_addmul | grep -Eq "$packed" || ! body cpu_k_avx2_dp_fma | grep -Eq "$packed"; then
	echo "FAIL: the packed-instruction pattern misses packed code" >&2
	status=1
fi
nscalar=$(awk '$2 ~ /^<cpu_k_scalar_/' "$dis" | wc -l)
if [ "$nscalar" -ne 8 ]; then
	echo "FAIL: expected 8 scalar kernels, found $nscalar" >&2
	status=1
fi

expect cpu_k_scalar_dp_fma 'vfmadd213sd'
expect cpu_k_scalar_sp_fma 'vfmadd213ss'
expect cpu_k_scalar_dp_addmul '[[:space:]]mulsd'
expect cpu_k_scalar_sp_addmul '[[:space:]]addss'
expect cpu_k_scalar_i64_add 'add[[:space:]]+%r'
expect cpu_k_scalar_i32_mulmix 'imul[[:space:]]+%(e[a-z]+|r[0-9]+d),'
expect cpu_k_scalar_i64_mulmix 'imul[[:space:]]+%r([a-z]+|[0-9]+),'
expect cpu_k_sse_dp_addmul '[[:space:]]mulpd[[:space:]]+%xmm'
expect cpu_k_sse_sp_addmul '[[:space:]]addps[[:space:]]+%xmm'
expect cpu_k_sse_i32_add '[[:space:]]paddd'
expect cpu_k_sse_i64_add '[[:space:]]paddq'
expect cpu_k_sse_i32_mulmix '[[:space:]]pmulld'
expect cpu_k_avx_dp_addmul 'vmulpd.*%ymm'
expect cpu_k_avx_sp_addmul 'vaddps.*%ymm'
expect cpu_k_avx2_dp_fma 'vfmadd[0-9]+pd.*%ymm'
expect cpu_k_avx2_sp_fma 'vfmadd[0-9]+ps.*%ymm'
expect cpu_k_avx2_i32_add 'vpaddd.*%ymm'
expect cpu_k_avx2_i64_add 'vpaddq.*%ymm'
expect cpu_k_avx2_i32_mulmix 'vpmulld.*%ymm'
expect cpu_k_avx512_dp_fma 'vfmadd[0-9]+pd.*%zmm'
expect cpu_k_avx512_sp_fma 'vfmadd[0-9]+ps.*%zmm'
expect cpu_k_avx512_i32_add 'vpaddd.*%zmm'
expect cpu_k_avx512_i64_add 'vpaddq.*%zmm'
expect cpu_k_avx512_i32_mulmix 'vpmulld.*%zmm'
expect cpu_k_avx512_i64_mulmix 'vpmullq.*%zmm'
expect cpu_chain_avx512_fp 'vaddpd.*%zmm'
expect cpu_chain_avx_fp 'vaddpd.*%ymm'
expect cpu_chain_scalar_int 'imul[[:space:]]+%r'
exit $status
