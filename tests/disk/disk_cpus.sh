#!/bin/sh
# diskbench --cpus: the run stays on the CPUs given (its context says which), and a CPU the
# process may not run on is exit 2 with one line, before any file is made.
# Usage: disk_cpus.sh DISKBENCH WORKDIR. Exit 0 pass, 1 fail, 77 skipped.
set -u
bin=$1
TEST_NAME=cpus
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$2/cpus"
command -v taskset >/dev/null 2>&1 || skip "no taskset (util-linux)"
first=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
"$bin" --dir "$work/dir" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet --test rand_read \
	--block 4KiB --engine psync --cpus "$first" --format json >"$work/out" 2>"$work/err" ||
	fail "--cpus $first exited $?: $(cat "$work/err")"
tr -d ' \t' <"$work/out" | grep -qF "\"disk.cpus\":\"$first\"" || fail "the context does not say disk.cpus $first"
# a CPU outside the process's mask: run under taskset on one CPU, ask for another
n=$(getconf _NPROCESSORS_ONLN)
if [ "$n" -ge 2 ]; then
	other=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | grep -v -- - | grep -vx "$first" | head -n 1)
	[ -n "$other" ] || other=$((first + 1))
	taskset -c "$first" "$bin" --dir "$work/dir" --file-size 4MiB --reps 1 --ci 0 --quiet \
		--test rand_read --block 4KiB --cpus "$other" >/dev/null 2>"$work/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "--cpus $other outside the mask: exit $rc, not 2: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line: $(cat "$work/err")"
	grep -q "CPU $other" "$work/err" || fail "the line does not name CPU $other: $(cat "$work/err")"
fi
[ -z "$(find "$work/dir" -mindepth 1)" ] || fail "left behind: $(find "$work/dir" -mindepth 1)"
echo "ok: cpus"
