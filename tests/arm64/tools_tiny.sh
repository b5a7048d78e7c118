#!/usr/bin/env bash
# run_all.sh --tiny under qemu-aarch64 with the arm64 reference tools (docs/arm64.md): the
# build's executables wrapped for CPU, and the tools unpacked in ROOT (scripts/deps.sh
# --cross arm64 --tools ROOT) first on PATH through cmake/qemu-aarch64.sh tools, the host's
# own tools off it. Checks that run_all.sh succeeds, that pairs.csv holds a row with a
# complete round from each tool ROOT/tools.txt lists, and that each tool with no arm64
# build (ROOT/unavailable.txt) is a skipped baseline with that reason. Without ROOT the
# test is skipped, saying why. Figures under emulation mean nothing: correctness only.
#   tools_tiny.sh BUILD ROOT CPU OUT      CPU: neoverse-n1, max,sve-default-vector-length=32
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
[ $# -eq 4 ] || { echo "usage: tools_tiny.sh BUILD ROOT CPU OUT" >&2; exit 2; }
build=$1 root=$2 cpu=$3 out=$4
fail() {
	echo "tools_tiny.sh: FAIL: $*" >&2
	exit 1
}
if [ ! -f "$root/tools.txt" ]; then
	echo "tools_tiny.sh: skipped: no arm64 tools root $root (scripts/deps.sh --cross arm64 --tools $root)"
	exit 0
fi
grep -q '^CMAKE_AR:.*aarch64' "$build/CMakeCache.txt" 2>/dev/null ||
	{ echo "tools_tiny.sh: $build is not an aarch64 cross build" >&2; exit 2; }

bash "$top/cmake/qemu-aarch64.sh" wrap "$build" "$cpu"
path=$(sh "$top/cmake/qemu-aarch64.sh" tools "$root" "$cpu" "$build/tools-bin")
rm -rf "$out"
start=$(date +%s)
PATH=$path "$top/run_all.sh" --tiny --no-build --build-dir "$build" --out "$out" ||
	fail "run_all.sh --tiny with the arm64 tools failed ($out/status.tsv)"
echo "tools_tiny.sh: run_all.sh --tiny with the arm64 tools took $(($(date +%s) - start)) s"

# Each arm64 tool: a pairs.csv row whose tool side completed (tool_median set).
while IFS=$'\t' read -r prog what; do
	n=$(python3 - "$out/pairs.csv" "$prog" <<'EOF'
import csv, sys
with open(sys.argv[1], newline="") as f:
    print(sum(1 for r in csv.DictReader(f) if r["tool"] == sys.argv[2] and r["tool_median"]))
EOF
	)
	[ "$n" -gt 0 ] || fail "pairs.csv has no complete row of $prog ($what, arm64)"
	echo "tools_tiny.sh: $prog ($what, arm64): $n pairs.csv row(s)"
done <"$root/tools.txt"

# Each tool with no arm64 build: skipped by its baseline with the reason ROOT gives.
while IFS=$'\t' read -r prog why; do
	grep -qF "$why" "$out"/raw/baseline-*.json ||
		fail "no baseline of $out/raw says why $prog was skipped ($why)"
	echo "tools_tiny.sh: $prog skipped: $why"
done <"$root/unavailable.txt"
echo "tools_tiny.sh: ok"
