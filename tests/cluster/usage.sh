#!/usr/bin/env bash
# Bad flags under mpirun -np 2: exit 2 and exactly one clusterbench line on stderr (rank 0
# speaks, not every rank). usage: usage.sh CLUSTERBENCH ARGS...
CB=$1
shift
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ASan build: OpenMPI's own allocations outlive MPI_Finalize (see lib.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
rc=0
timeout 60 mpirun --oversubscribe -np 2 "$CB" "$@" >/dev/null 2>"$err" || rc=$?
n=$(grep -c '^clusterbench: ' "$err")
[ "$rc" = 2 ] || { echo "FAIL: exit $rc, want 2" >&2; cat "$err" >&2; exit 1; }
[ "$n" = 1 ] || { echo "FAIL: $n clusterbench lines, want 1" >&2; cat "$err" >&2; exit 1; }
echo "ok: $(grep '^clusterbench: ' "$err")"
