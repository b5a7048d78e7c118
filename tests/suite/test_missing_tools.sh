#!/bin/sh
# With none of the reference tools on PATH, every adapter (scripts/peakresults/adapters)
# exits 0 and writes a baseline-<tool>.json with no row and a skipped entry per test
# ("<tool> not installed").
set -u
repo=$1
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
mkdir "$out/bin"
# A PATH with the ordinary utilities and none of the tools.
for u in bash sh awk sed grep jq python3 cat mktemp dirname basename nproc tr head tail timeout rm \
	mkdir rmdir date sleep wc sort cut env printf kill; do
	p=$(command -v "$u") || continue
	case $p in /*) ln -s "$p" "$out/bin/$u" ;; esac
done
# python3 itself, not a version manager's shim that needs more of PATH
py=$(python3 -c 'import sys; print(sys.executable)') && ln -sf "$py" "$out/bin/python3"
for t in hpcc likwid fio iozone iperf3 sockperf; do
	PATH="$out/bin" python3 "$repo/scripts/peakresults/adapters" "$t" --mode tiny --raw "$out/raw" >"$out/$t.out" 2>"$out/$t.err" ||
		fail "adapter $t exited $? without its tool: $(cat "$out/$t.err")"
	j="$out/raw/baseline-$t.json"
	[ -s "$j" ] || fail "adapter $t wrote no $j"
	# every entry skipped with "not installed", no row
	python3 - "$j" <<'PY' || fail "adapter $t: $(cat "$j")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "peakbench-baseline/1" and d["rows"] == [], d
assert d["skipped"] and all("not installed" in s["reason"] for s in d["skipped"]), d
PY
	ok "adapter $t without its tool: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["skipped"]))' "$j") skipped entr(ies)"
done

# scripts/path_without_tools.sh (CI's minimal build): every command but the tools.
p=$("$repo/scripts/path_without_tools.sh" "$out/hide") || fail "path_without_tools.sh exited $?"
for t in hpcc likwid-bench fio iozone iperf3 sockperf qperf; do
	if env PATH="$p" sh -c "command -v $t" >/dev/null 2>&1; then fail "path_without_tools.sh: $t still on PATH"; fi
done
for u in sh awk sed jq; do
	if command -v "$u" >/dev/null 2>&1 && ! env PATH="$p" sh -c "command -v $u" >/dev/null 2>&1; then
		fail "path_without_tools.sh: $u lost"
	fi
done
ok "path_without_tools.sh: no tool on its PATH, the utilities kept"
