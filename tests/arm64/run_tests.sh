#!/usr/bin/env bash
# The aarch64 cross build's tests under qemu-user (docs/arm64.md): wrap the build's
# executables for the CPU model (cmake/qemu-aarch64.sh), then ctest with the tests of
# x86-only facts (tests/arm64/x86-only.txt) skipped, each with its reason printed.
#   run_tests.sh BUILD CPU [ctest args...]   CPU: neoverse-n1, max,sve-default-vector-length=16
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { echo "usage: run_tests.sh BUILD CPU [ctest args...]" >&2; exit 2; }
build=$1 cpu=$2
shift 2
[ -f "$build/CMakeCache.txt" ] || { echo "run_tests.sh: $build is not a build directory" >&2; exit 2; }
grep -q '^CMAKE_AR:.*aarch64' "$build/CMakeCache.txt" ||
	{ echo "run_tests.sh: $build is not an aarch64 cross build" >&2; exit 2; }
# The emulator ctest uses is the build's PEAK_QEMU_CPU: make it this run's model.
cmake -S "$here/../.." -B "$build" -DPEAK_QEMU_CPU="$cpu" >/dev/null
"$here/../../cmake/qemu-aarch64.sh" wrap "$build" "$cpu"
skip=""
while IFS=$'\t' read -r name reason; do
	case $name in '' | '#'*) continue ;; esac
	echo "skipped on aarch64: $name: $reason"
	skip="$skip${skip:+|}^$name\$"
done <"$here/x86-only.txt"
ctest --test-dir "$build" --output-on-failure -E "$skip" "$@"
