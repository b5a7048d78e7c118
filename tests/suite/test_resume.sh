#!/usr/bin/env bash
# ./run_all.sh --resume DIR (issue 26): a --tiny run stopped by Ctrl-C during diskbench goes on
# from that step with its own options; the steps done before it are not run again (their
# status.tsv line once, their files untouched), the interrupted one is, status.tsv and the
# report say where the run resumed. A bad --resume (no such folder, not a results folder,
# another option beside it) is exit 2 and one line.
set -u
repo=$1 build=$2
# shellcheck source=tests/suite/lib_test.sh
. "$(dirname "$0")/lib_test.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 not installed: skipped"; exit 77; }
command -v setsid >/dev/null 2>&1 || { echo "setsid not installed: skipped"; exit 77; }
for b in peakinfo/peakinfo disk/diskbench; do
	[ -x "$build/$b" ] || { echo "$b not built: skipped"; exit 77; }
done
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
R=$work/run

# usage ARGS...: exit 2 and one line on stderr, nothing run.
usage() {
	local rc lines
	"$repo/run_all.sh" "$@" >"$work/out" 2>"$work/err"
	rc=$?
	lines=$(wc -l <"$work/err")
	if [ "$rc" != 2 ] || [ "$lines" != 1 ]; then
		fail "run_all.sh $*: exit $rc, $lines line(s): $(cat "$work/err")"
	fi
	ok "run_all.sh $*: exit 2, $(cat "$work/err")"
}
usage --resume "$work/no-such-folder"
mkdir "$work/empty"
usage --resume "$work/empty"
usage --resume
usage --quick --resume "$work/empty"

# Both runs have the cache sizes and the cloud given: what is resumed is the plan's steps.
given_caches_and_cloud

# 1. A run stopped by Ctrl-C (SIGINT to its process group) while diskbench runs.
(
	trap - INT QUIT
	exec env TMPDIR="$work" PEAK_DEPS=required setsid "$repo/run_all.sh" --tiny --reps 1 --no-build \
		--build-dir "$build" --no-charts --only disk --no-baselines --min-time 0.3 --out "$R"
) 2>"$work/progress1" &
pid=$!
for ((i = 0; i < 1200; i++)); do
	[ -n "$(find "$R/disk-tmp" -type f 2>/dev/null | head -n 1)" ] && break
	kill -0 "$pid" 2>/dev/null || fail "run_all.sh ended before diskbench's file: $(tail -n 3 "$work/progress1")"
	sleep 0.1
done
kill -s INT -- "-$pid" || fail "kill -INT -$pid"
wait "$pid"
rc=$?
[ "$rc" = 130 ] || fail "the first run exited $rc, not 130: $(tail -n 3 "$work/progress1")"
[ "$(cut -f1,3 "$R/status.tsv" | tr '\t\n' ':,')" = "peakinfo:ok,diskbench:interrupted," ] ||
	fail "status.tsv after the interrupt: $(cat "$R/status.tsv")"
[ -s "$R/plan-args" ] || fail "no plan-args in the run's folder"
ok "the first run stopped during diskbench (exit 130)"
touch -d '2001-01-01 00:00:00' "$R/raw/peakinfo.json" "$R/logs/peakinfo.err"
before=$(stat -c %Y "$R/raw/peakinfo.json" "$R/logs/peakinfo.err")

# 2. --resume: the rest of the plan, diskbench again, peakinfo not.
"$repo/run_all.sh" --resume "$R" 2>"$work/progress2"
rc=$?
[ "$rc" = 0 ] || fail "--resume exited $rc: $(tail -n 3 "$work/progress2")"
grep -q "^\[1/" "$work/progress2" && fail "--resume ran step 1 (peakinfo) again"
grep -q "^\[2/[0-9]*\] disk: diskbench " "$work/progress2" || fail "--resume did not run diskbench: $(cat "$work/progress2")"
[ "$(stat -c %Y "$R/raw/peakinfo.json" "$R/logs/peakinfo.err")" = "$before" ] ||
	fail "peakinfo's files were written again"
[ "$(grep -c "^peakinfo	" "$R/status.tsv")" = 1 ] || fail "peakinfo recorded more than once: $(cat "$R/status.tsv")"
grep -q "	interrupted	" "$R/status.tsv" && fail "status.tsv keeps the interrupted line: $(cat "$R/status.tsv")"
n=$(grep -c . "$R/status.tsv")
grep -Eq "^resume	run	resumed	0	resumed at step 2 of [0-9]+: 1 step\(s\) done before kept; run again: diskbench \(interrupted\)$" \
	"$R/status.tsv" || fail "no resume line in status.tsv: $(cat "$R/status.tsv")"
# (io_uring: skipped with its reason in a build without liburing, CI's minimal one)
grep -Eq "^diskbench io_uring	[a-z]*	(ok	|skipped	[0-9]+	.*without liburing)" "$R/status.tsv" ||
	fail "diskbench io_uring did not run after --resume: $(cat "$R/status.tsv")"
for s in diskbench placement finish; do
	grep -q "^$s	[a-z]*	ok	" "$R/status.tsv" || fail "$s did not end ok after --resume: $(cat "$R/status.tsv")"
done
[ "$n" = 6 ] || fail "status.tsv has $n lines, not 6: $(cat "$R/status.tsv")"
grep -q "^# resumed at step 2 of " "$R/commands.txt" || fail "commands.txt does not say where the run resumed"
[ -s "$R/report.md" ] || fail "no report.md after --resume"
# (the Steps table: report.md or its appendix)
cat "$R"/report*.md | grep -q "| resume | run | resumed | 0 | resumed at step 2 of " ||
	fail "the report does not show where the run resumed"
[ -s "$R/raw/disk-diskbench.json" ] || fail "no diskbench output after --resume"
[ ! -e "$R/disk-tmp" ] || fail "the disk test folder was left"
ok "--resume ran diskbench again and the rest, not peakinfo; status.tsv, commands.txt and report.md say so"

# 3. A finished run resumed: nothing left to run but what the plan never did.
usage --resume "$R" --no-charts
