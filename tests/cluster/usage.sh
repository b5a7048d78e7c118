#!/usr/bin/env bash
# Bad flags: exit 2 and exactly one clusterbench line on stderr; with --want TEXT that line
# must contain TEXT (a refused old flag names its replacement). By default clusterbench runs
# alone (MPI's singleton: one rank, no mpirun, 0.4 s); with --np N under mpirun -np N (2 s),
# for the cases that need ranks (rank 0 speaks, not every rank; one rank is bad input for
# the tests between nodes; a pair out of the ranks). usage: usage.sh CLUSTERBENCH [--np N]
# [--want TEXT] ARGS...
CB=$1
shift
want=""
np=""
if [ "${1:-}" = --np ]; then
	np=$2
	shift 2
fi
if [ "${1:-}" = --want ]; then
	want=$2
	shift 2
fi
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# ASan build: OpenMPI's own allocations outlive MPI_Finalize (see lib.sh).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
rc=0
if [ -n "$np" ]; then
	timeout 60 mpirun --oversubscribe -np "$np" "$CB" "$@" >/dev/null 2>"$err" || rc=$?
else
	timeout 60 "$CB" "$@" >/dev/null 2>"$err" </dev/null || rc=$?
fi
n=$(grep -c '^clusterbench: ' "$err")
[ "$rc" = 2 ] || { echo "FAIL: exit $rc, want 2" >&2; cat "$err" >&2; exit 1; }
[ "$n" = 1 ] || { echo "FAIL: $n clusterbench lines, want 1" >&2; cat "$err" >&2; exit 1; }
line=$(grep '^clusterbench: ' "$err")
case $line in *"$want"*) ;; *) echo "FAIL: the line does not name $want: $line" >&2; exit 1 ;; esac
echo "ok: $line"
