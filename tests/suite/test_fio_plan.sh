#!/usr/bin/env bash
# The fio adapter's plan, without fio: a stub fio first on PATH records the arguments the
# adapter (scripts/peakresults/adapters/fio.py) gives it, and the test checks that each diskbench write figure gets its matching job: the
# overwrite of a laid-out file (--overwrite=1) for seq_write, and one pass over a new file
# of its own, synced and removed after, for seq_write_new.
# Usage: test_fio_plan.sh REPO
set -u
repo=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}
mkdir "$tmp/bin" "$tmp/dir"
cat >"$tmp/bin/fio" <<STUB
#!/bin/sh
[ "\$1" = --enghelp ] && { echo io_uring; exit 0; }
printf '%s\n' "\$@" >"$tmp/args"
cat "$repo/tests/fixtures/baseline/fio.json"
STUB
chmod +x "$tmp/bin/fio"
PATH="$tmp/bin:$PATH" python3 "$repo/scripts/peakresults/adapters" fio --mode tiny --threads 1 --raw "$tmp/raw" \
	--dir "$tmp/dir" >"$tmp/out.csv" 2>"$tmp/err" || fail "the fio adapter exited $?: $(cat "$tmp/err")"
[ -s "$tmp/args" ] || fail "fio was not run"

# Split fio's argument list into jobs: each --name starts one.
awk '/^--name=/ { job = substr($0, 8) } job { print job "\t" $0 }' "$tmp/args" >"$tmp/jobs"
job_has() { # job argument
	grep -qxF "$1	$2" "$tmp/jobs" || fail "job $1 lacks $2: $(grep -F "$1	" "$tmp/jobs" | cut -f2 | tr '\n' ' ')"
}
job_lacks() { # job argument
	if grep -qxF "$1	$2" "$tmp/jobs"; then fail "job $1 has $2"; fi
}
job_has seq_write.psync.1.1048576 --overwrite=1
job_has seq_write.psync.1.1048576 --end_fsync=1
job_lacks seq_write.psync.1.1048576 --unlink=1
new=seq_write_new.psync.1.1048576
job_has "$new" --rw=write
job_has "$new" --end_fsync=1
job_has "$new" --time_based=0
job_lacks "$new" --unlink=1 # it removed the shared file too: cleanup removes it
# The new-file jobs come last, after every job on the shared file.
last=$(grep -- '^--name=' "$tmp/args" | tail -n 1)
[ "$last" = "--name=$new" ] || fail "the new-file job is not last: $last"
grep -q "^$new	--filename=.*\.new1$" "$tmp/jobs" || fail "job $new does not write a file of its own"
job_lacks "$new" --overwrite=1
# Both write jobs carry O_DIRECT and 1 MiB blocks (global --direct=1, job --bs=1M).
grep -qx -- --direct=1 "$tmp/args" || fail "fio runs without O_DIRECT"
[ -z "$(ls -A "$tmp/dir")" ] || fail "the fio adapter left files in --dir: $(ls -A "$tmp/dir")"
job_lacks seq_read.psync.1.1048576 --ramp_time=200ms # no --ramp-ms: no ramp

# A paired round (--ramp-ms: the paired diskbench job's warm-up): every timed job ramps up
# as long, the one-pass new-file job does not (its one pass is the figure).
rm -f "$tmp/args"
PATH="$tmp/bin:$PATH" python3 "$repo/scripts/peakresults/adapters" fio --mode tiny --threads 1 --raw "$tmp/raw" \
	--dir "$tmp/dir" --ramp-ms 200 >"$tmp/out.csv" 2>"$tmp/err" || fail "the fio adapter --ramp-ms exited $?: $(cat "$tmp/err")"
awk '/^--name=/ { job = substr($0, 8) } job { print job "\t" $0 }' "$tmp/args" >"$tmp/jobs"
for j in seq_write.psync.1.1048576 seq_read.psync.1.1048576 rand_read.psync.1.4096 rand_read.io_uring.1.4096; do
	job_has "$j" --ramp_time=200ms
done
job_lacks "$new" --ramp_time=200ms
grep -q 'ramp_time=200ms, as the paired diskbench' "$tmp/err" || fail "the fio adapter does not say why it ramps"
out=$(python3 "$repo/scripts/peakresults/adapters" fio --ramp-ms 0.2 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "--ramp-ms 0.2 exited $rc, not 2"
case $out in *"--ramp-ms: '0.2' is not a whole number of milliseconds"*) ;; *) fail "--ramp-ms 0.2 said: $out" ;; esac
echo "ok: seq_write overwrites a laid-out file, seq_write_new writes a new one, paired jobs ramp as diskbench warms up"
