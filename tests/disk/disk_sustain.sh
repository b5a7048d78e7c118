#!/bin/sh
# diskbench --sustain under the kernel's block throttle, in a cgroup this test creates (and
# removes): cgroup v2 io.max where the io controller is enabled, else v1's
# blkio.throttle.read_bps_device. Cases:
#   knee  a read throttle of 100 MB/s, lowered to 25 MB/s 5 s after the sustained job
#         starts: burst 100 and baseline 25 within 10%, the knee within 2 s of 5 s
#   flat  25 MB/s all along: one baseline row within 10% of it, flagged no_knee
# Lengths: the knee finder's permutation test (999 fixed shuffles) needs 12 s to pass 0.99
# for a clean step anywhere from second 3 to 9, and no series under 10 s can pass it. So
# the flat case's no_knee holds by its length alone, at 4 s (--sustain's shortest) as at
# the 6 s it ran before issue 42: it proves one baseline row at the throttle's level;
# tests/unit/test_changepoint.c proves that a flat 60 s series has no knee.
# 256 KiB blocks, not the default 1 MiB: 32 in flight are 8 MiB, not 32 MiB, which the job
# waits for at its end (1.3 s at 25 MB/s), and a second at 25 MB/s counts whole blocks of
# 1%, not 4% (a 4 s median of 1 MiB seconds read up to 26.2). A 64 MiB file, wrapped as
# a file of any size is: the throttle sets the rate, not the file.
# The test file's device must be a block device the throttle takes (else skip: overlay,
# tmpfs). Usage: disk_sustain.sh CASE DISKBENCH WORKDIR
TEST_NAME=sustain_$1
CASE=$1 BIN=$2
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/disk/lib_case.sh
. "$HERE/lib_case.sh"
new_work "$3/sustain_$CASE"
HIGH=100000000 LOW=25000000 SUSTAIN_S=12 CHANGE_S=5
[ "$CASE" = flat ] && SUSTAIN_S=4 HIGH=$LOW

# The whole disk under the work directory (a partition's rule goes on its disk).
devno=$(stat -c '%Hd:%Ld' "$dir") || fail "stat $dir"
[ -e "/sys/dev/block/$devno" ] || skip "$dir is on device $devno, not a block device (overlay, tmpfs?)"
[ -e "/sys/dev/block/$devno/partition" ] && devno=$(cat "/sys/dev/block/$devno/../dev")

CG=""
cleanup() {
	# a task that just exited may hold the group a moment longer (rmdir: EBUSY)
	i=0
	while [ -n "$CG" ] && [ -d "$CG" ] && ! rmdir "$CG" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
# set_limit BYTES_PER_S: the read throttle of the cgroup, through whichever interface it has.
if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/peak-sustain-$$
	echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	mkdir "$CG" 2>/dev/null || skip "cannot create a cgroup v2 group (not root?)"
	set_limit() { echo "$devno rbps=$1" >"$CG/io.max"; }
elif [ -d /sys/fs/cgroup/blkio ]; then
	CG=/sys/fs/cgroup/blkio/peak-sustain-$$
	mkdir "$CG" 2>/dev/null || skip "cannot create a blkio cgroup (not root?)"
	set_limit() { echo "$devno $1" >"$CG/blkio.throttle.read_bps_device"; }
else
	skip "no block throttle: neither cgroup v2's io controller nor v1's blkio"
fi
set_limit "$HIGH" 2>"$work/limit.err" || skip "the throttle refuses $devno: $(cat "$work/limit.err")"

# The job in the cgroup: a shell that joins it, then becomes diskbench.
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" timeout 60 "$BIN" \
	--dir "$dir" --file-size 64MiB --block 256KiB --sustain "${SUSTAIN_S}s" --format json \
	--output "$work/sustain.json" 2>"$work/err" &
pid=$!
if [ "$CASE" = knee ]; then
	i=0 # the knee counts from the job's start, said on stderr after the file's layout
	while ! grep -qs -- '--sustain: seq_read' "$work/err" && [ $i -lt 300 ]; do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	grep -q -- '--sustain: seq_read' "$work/err" || { kill $pid; fail "no start line: $(cat "$work/err")"; }
	sleep "$CHANGE_S"
	set_limit "$LOW" || { kill $pid; fail "cannot lower the throttle"; }
fi
wait $pid || fail "diskbench exited $?: $(cat "$work/err")"
if [ "$CASE" = knee ]; then
	python3 "$HERE/../check_sustain.py" "$work/sustain.json" seq_read_sustain \
		--burst $((HIGH / 1000000)) --baseline $((LOW / 1000000)) --knee "$CHANGE_S" ||
		fail "burst and baseline not found (MB/s)"
else
	python3 "$HERE/../check_sustain.py" "$work/sustain.json" seq_read_sustain \
		--baseline $((LOW / 1000000)) --no-knee || fail "a flat throttle read as a knee"
fi
