#!/usr/bin/env bash
# The time of `make test` and of a `make` with nothing to build (issue 42), as a user has them:
# the Makefile's own commands, its -j (the machine's CPUs), nothing tuned. A benchmark, not a
# test: it judges nothing; run it on a quiet machine.
#   scripts/time_make_test.sh [--out FILE] [MAKE_VARS...]   e.g. WERROR=1 BUILD=build
# Builds first (not timed), then times three no-op `make`s and one `make test`, and writes
# FILE (default docs/benchmarks/make-test-times.md): the machine, the load before and
# after, the no-op times, make test's wall time, ctest's total and the sum of the tests'
# times, and every test's time and result, longest first. The ctest log stays in
# BUILD/make-test.log. Exit status: make test's.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/benchmarks/make-test-times.md
if [ "${1:-}" = --out ]; then
	[ $# -ge 2 ] || { echo "time_make_test.sh: --out needs a file" >&2; exit 2; }
	out=$2
	shift 2
fi
for v in "$@"; do
	case $v in *=*) ;; *) echo "time_make_test.sh: '$v' is not a make variable (NAME=VALUE)" >&2; exit 2 ;; esac
done
build=build
for v in "$@"; do case $v in BUILD=*) build=${v#BUILD=} ;; esac; done

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

echo "time_make_test.sh: building (not timed)" >&2
make "$@" >/dev/null
noop=()
for _ in 1 2 3; do
	t0=$(now)
	make "$@" >/dev/null
	noop+=("$(secs "$t0" "$(now)")")
done
echo "time_make_test.sh: no-op make ${noop[*]} s; now make test" >&2
load_before=$(load)
log="$build/make-test.log"
t0=$(now)
rc=0
make test "$@" >"$log" 2>&1 || rc=$?
wall=$(secs "$t0" "$(now)")
load_after=$(load)

# ctest's lines: "12/589 Test #34: name ......   Passed   12.34 sec" (also "***Failed",
# "***Skipped", "***Not Run" and "Not Run" for a fixture that failed).
rows=$(sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*(\*\*\*)? *([^0-9]*[^ 0-9]) +([0-9.]+) sec$/\4\t\1\t\3/p' "$log" |
	sort -t$'\t' -k1,1 -rn)
# the tree as tested (before this script rewrites OUT, which would make it read as dirty)
commit=$(git describe --always --dirty --tags 2>/dev/null || echo unknown)
total=$(sed -n 's/^Total Test time (real) = *\([0-9.]*\) sec/\1/p' "$log")
sum=$(awk -F'\t' '{ s += $1 } END { printf "%.1f", s }' <<<"$rows")
count=$(grep -c . <<<"$rows" || true)
{
	echo "# make test: the time of every test (scripts/time_make_test.sh)"
	echo
	echo "Written by \`bash scripts/time_make_test.sh $*\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit"
	echo "$commit; issue 42's target: make test within 5 minutes on 2 vCPUs,"
	echo "a no-op make under 2 s. docs/benchmarks/suite.md says what was done for it."
	echo
	echo "| | |"
	echo "| --- | --- |"
	echo "| machine | $(nproc) CPUs, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), Linux $(uname -r) |"
	echo "| generator | $(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt") |"
	echo "| no-op make (three) | ${noop[*]} s |"
	echo "| make test, wall | **$wall s** (exit $rc) |"
	echo "| ctest's total (real) | ${total:-?} s |"
	echo "| tests, their times summed | $count tests, $sum s |"
	echo "| load average before, after | $load_before; $load_after |"
	echo
	echo "| seconds | test | result |"
	echo "| ---: | --- | --- |"
	awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' <<<"$rows"
} >"$out"
echo "time_make_test.sh: make test $wall s wall, $count tests, $sum s summed; table in $out" >&2
exit "$rc"
