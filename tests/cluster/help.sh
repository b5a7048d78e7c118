#!/usr/bin/env bash
# clusterbench --help under mpirun -np 2: exit 0, printed once (rank 0), and it lists the
# flags every binary takes (--format, --output, --reps, --min-time), not the old
# --out/--duration. usage: help.sh CLUSTERBENCH
CB=$1
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
rc=0
timeout 60 mpirun --oversubscribe -np 2 "$CB" --help >"$out" 2>&1 || rc=$?
[ "$rc" = 0 ] || { echo "FAIL: --help exited $rc" >&2; cat "$out" >&2; exit 1; }
[ "$(grep -c '^Usage: clusterbench' "$out")" = 1 ] || { echo "FAIL: help not printed once" >&2; cat "$out" >&2; exit 1; }
for flag in --format --output --reps --min-time --ci --test --schedule; do
	grep -qE "^  $flag " "$out" || { echo "FAIL: --help does not list $flag" >&2; cat "$out" >&2; exit 1; }
done
for flag in --out --duration; do
	! grep -qE "^  $flag " "$out" || { echo "FAIL: --help still lists $flag" >&2; exit 1; }
done
echo "ok: --help lists --format --output --reps --min-time"
