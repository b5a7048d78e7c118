#!/bin/sh
# diskbench integration tests at tiny sizes: data reads back, its file is gone after every
# way of ending, nothing else in --dir is touched, symlinks are not followed.
# Usage: disk_safety.sh CASE DISKBENCH WORKDIR   (WORKDIR: under the build tree)
# Exit 0 pass, 1 fail, 77 skipped (with the reason on stdout).
set -u
case_name=$1
bin=$2
tiny="--file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet"

# A private, empty directory for this case.
TEST_NAME="$case_name"
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$3/$case_name"

# Nothing but the listed names may be left in the directory.
assert_only() {
	left=$(cd "$dir" && find . -mindepth 1 | sort | tr '\n' ' ')
	[ "$left" = "$1" ] || fail "directory holds '$left', expected '$1'"
}

# Run diskbench; store its exit code in rc and stderr in $work/err.
run() {
	# shellcheck disable=SC2086 # $tiny is a list of words
	"$bin" --dir "$dir" $tiny "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# The engines this diskbench can run here: psync always, uring when it was built with
# liburing and the kernel allows io_uring (--engine uring exits 3 otherwise, with why).
engines=psync
# shellcheck disable=SC2086 # $tiny is a list of words
if "$bin" --dir "$dir" $tiny --engine uring --test seq_read --block 4KiB >/dev/null \
	2>"$work/uring.err"; then
	engines="psync uring"
else
	echo "uring engine not tested here: $(cat "$work/uring.err")"
fi

case $case_name in
readback | readback_uring)
	# Every test on one engine; --verify poisons the file before each write test and
	# checks every block afterwards, and checks every read block. The uring case is
	# skipped, with the reason, when this diskbench cannot run io_uring here (built
	# without liburing, or the kernel refuses it). On a 256 KiB file (issue 42: at 4 MiB
	# the 8 B block's half a million I/Os a pass made this a minute): each of 2 threads
	# still has its own share of every block size, and every block is still checked.
	engine=psync
	if [ "$case_name" = readback_uring ]; then
		case " $engines " in
		*" uring "*) engine=uring ;;
		*)
			echo "SKIP: no io_uring engine here: $(cat "$work/uring.err")"
			exit 77
			;;
		esac
	fi
	run --engine "$engine" --test all --block 4KiB,64KiB,8B --threads 1,2 --verify --format csv \
		--file-size 256KiB
	[ "$rc" -eq 0 ] || fail "--engine $engine --verify exited $rc: $(cat "$work/err")"
	rows=$(grep -c "^disk," "$work/out")
	[ "$rows" -ge 30 ] || fail "only $rows rows for $engine"
	if grep -q unverified "$work/out"; then
		fail "rows flagged unverified: $(grep unverified "$work/out" | head -3)"
	fi
	assert_only ""
	;;
default_engines)
	# No --engine: every engine that runs here, nothing on stderr about one that does not
	# (not quiet: notes and progress go to stderr), and the context names the one skipped.
	"$bin" --dir "$dir" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --test seq_write \
		--block 4KiB --format json >"$work/out" 2>"$work/err"
	rc=$?
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	# Progress lines (one per point, ending in MB/s) name their engine; nothing else may.
	if grep -v ' MB/s$' "$work/err" | grep -i "uring\|skipping\|engine"; then
		fail "a note about an engine on stderr"
	fi
	# Variants name the engine, uring with its depth (uring-qd32).
	ran=$(jq -r '[.results[].variant | sub("-qd[0-9]+$"; "")] | unique | join(" ")' "$work/out")
	[ "$ran" = "$engines" ] || fail "engines run: '$ran', expected '$engines'"
	skipped=$(jq -r '.context["disk.engines_skipped"]' "$work/out")
	case "$engines:$skipped" in
	"psync uring:none" | "psync:uring: "?*) ;;
	*) fail "disk.engines_skipped '$skipped' with engines '$engines'" ;;
	esac
	assert_only ""
	;;
write_new)
	# seq_write_new releases the file's blocks before each repetition and writes them
	# anew; the later read test finds the file laid out again (--verify checks both),
	# and only diskbench's own file was ever touched.
	echo keep >"$dir/neighbour"
	run --engine psync --test seq_write_new,seq_read --block 4KiB,1MiB --threads 1,2 --verify \
		--format csv
	[ "$rc" -eq 0 ] || fail "seq_write_new --verify exited $rc: $(cat "$work/err")"
	[ "$(grep -c '^disk,seq_write_new,psync,.*,throughput,' "$work/out")" -eq 4 ] ||
		fail "expected 4 seq_write_new throughput rows: $(grep -c seq_write_new "$work/out")"
	[ "$(grep -c '^disk,seq_read,psync,.*,throughput,' "$work/out")" -eq 4 ] ||
		fail "the reads after seq_write_new are missing"
	grep -q unverified "$work/out" && fail "rows flagged unverified"
	[ "$(cat "$dir/neighbour")" = keep ] || fail "a file diskbench did not create changed"
	assert_only "./neighbour "
	;;
data_period)
	# --data-period: the written data repeats every 64 KiB, still verified block by block;
	# the context says which period ran (the default: the whole 4 MiB file), and which sync.
	run --engine psync --test seq_write,seq_read --block 64KiB --data-period 64KiB --verify \
		--format json
	[ "$rc" -eq 0 ] || fail "--data-period 64KiB --verify exited $rc: $(cat "$work/err")"
	grep -q '"disk.data_period_bytes":[[:space:]]*65536[,}[:space:]]' "$work/out" ||
		fail "context lacks disk.data_period_bytes 65536: $(grep -o '"disk.data_period[^,]*' "$work/out")"
	grep -q unverified "$work/out" && fail "rows flagged unverified"
	run --engine psync --test seq_write --block 64KiB --format json
	[ "$rc" -eq 0 ] || fail "default period: exited $rc: $(cat "$work/err")"
	grep -q '"disk.sync":[[:space:]]*"fdatasync"' "$work/out" || fail "context lacks disk.sync fdatasync"
	# --sync fsync: the call fio's end_fsync makes, named in the context
	run --engine psync --test seq_write --block 64KiB --sync fsync --verify --format json
	[ "$rc" -eq 0 ] || fail "--sync fsync exited $rc: $(cat "$work/err")"
	grep -q '"disk.sync":[[:space:]]*"fsync"' "$work/out" || fail "context lacks disk.sync fsync"
	grep -q '"disk.data_period_bytes":[[:space:]]*4194304[,}[:space:]]' "$work/out" ||
		fail "default period is not the 4 MiB file: $(grep -o '"disk.data_period[^,]*' "$work/out")"
	assert_only ""
	;;
cleanup_normal)
	run --engine psync --test seq_write,rand_read --block 4KiB
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	assert_only ""
	;;
cleanup_error)
	# The file is created, then the run is refused (no block can use O_DIRECT): exit 3.
	run --engine psync --block 8B --direct on
	[ "$rc" -eq 3 ] || fail "expected exit 3, got $rc: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$work/err")"
	assert_only ""
	;;
cleanup_default_dir)
	# Without --dir: a private temp dir under $TMPDIR, removed with the file.
	mkdir -p "$work/tmp"
	TMPDIR=$work/tmp "$bin" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet --engine psync \
		--test seq_read --block 4KiB >/dev/null 2>"$work/err" || fail "exited $?: $(cat "$work/err")"
	[ -z "$(find "$work/tmp" -mindepth 1)" ] || fail "left behind: $(find "$work/tmp" -mindepth 1)"
	;;
cleanup_sigint | cleanup_sigterm)
	sig=INT
	[ "$case_name" = cleanup_sigterm ] && sig=TERM
	"$bin" --dir "$dir" --file-size 16MiB --engine psync --test rand_read --block 4KiB \
		--runtime 30 --reps 3 --quiet >/dev/null 2>"$work/err" &
	pid=$!
	# Wait until the file exists (and the run is under way), then interrupt it.
	i=0
	while [ -z "$(find "$dir" -name '.peakbench-*' 2>/dev/null)" ]; do
		i=$((i + 1))
		[ "$i" -lt 200 ] || { kill -9 "$pid"; fail "no file appeared in $dir"; }
		sleep 0.05
	done
	sleep 0.3
	kill -s "$sig" "$pid"
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 200 ] || { kill -9 "$pid"; fail "still running 10 s after SIG$sig"; }
		sleep 0.05
	done
	wait "$pid"
	rc=$?
	want=130
	[ "$sig" = TERM ] && want=143
	[ "$rc" -eq "$want" ] || fail "exit status $rc after SIG$sig, expected $want (killed by the signal)"
	assert_only ""
	;;
preexisting)
	# Files (one named like ours), a subdirectory and a hard link stay byte for byte.
	head -c 65536 /dev/urandom >"$dir/data.bin"
	head -c 4096 /dev/urandom >"$dir/.peakbench-1-0000000000000000"
	mkdir "$dir/sub" && echo keep >"$dir/sub/file"
	ln "$dir/data.bin" "$dir/hardlink"
	before=$(cd "$dir" && find . -type f -exec sha256sum {} + | sort)
	run --engine "$(echo "$engines" | tr ' ' ,)" --test seq_write,rand_write,seq_rw,seq_write_new --block 4KiB,8B
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	after=$(cd "$dir" && find . -type f -exec sha256sum {} + | sort)
	[ "$before" = "$after" ] || fail "existing files changed"
	assert_only "./.peakbench-1-0000000000000000 ./data.bin ./hardlink ./sub ./sub/file "
	;;
symlinks)
	# --dir itself a symlink: refused with one line, the target untouched.
	mkdir "$work/real"
	echo victim >"$work/real/victim"
	ln -s "$work/real" "$work/linkdir"
	# shellcheck disable=SC2086 # $tiny is a list of words
	"$bin" --dir "$work/linkdir" $tiny >/dev/null 2>"$work/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "--dir symlink: exit $rc, expected 2"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "--dir symlink: not one line: $(cat "$work/err")"
	grep -q "symbolic link" "$work/err" || fail "--dir symlink: message: $(cat "$work/err")"
	[ "$(ls -A "$work/real")" = victim ] || fail "target dir changed"
	# Symlinks planted in --dir (to a file, dangling, and named like ours) are left alone.
	ln -s "$work/real/victim" "$dir/.peakbench-planted"
	ln -s "$work/real/created" "$dir/.peakbench-dangling"
	ln -s "$work/real/victim" "$dir/.peakbench-$$-0000000000000000"
	run --engine psync --test seq_write --block 4KiB
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	[ "$(cat "$work/real/victim")" = victim ] || fail "symlink target was written"
	[ ! -e "$work/real/created" ] || fail "a dangling symlink was followed"
	assert_only "./.peakbench-$$-0000000000000000 ./.peakbench-dangling ./.peakbench-planted "
	;;
readonly)
	# A read-only --dir: root ignores permission bits, so use a read-only tmpfs mount.
	mkdir -p "$work/ro"
	if ! mount -t tmpfs -o ro,size=1m tmpfs "$work/ro" 2>/dev/null; then
		echo "SKIP: cannot mount a read-only tmpfs here (needs root and mount rights)"
		if [ "$(id -u)" -ne 0 ]; then
			chmod 0500 "$work/ro"
			# shellcheck disable=SC2086 # $tiny is a list of words
			"$bin" --dir "$work/ro" $tiny >/dev/null 2>"$work/err"
			rc=$?
			[ "$rc" -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && exit 0
			fail "non-root read-only dir: exit $rc: $(cat "$work/err")"
		fi
		exit 77
	fi
	"$bin" --dir "$work/ro" --file-size 4KiB --block 4KiB --reps 1 --ci 0 --min-time 0.01 --quiet \
		>/dev/null 2>"$work/err"
	rc=$?
	umount "$work/ro"
	[ "$rc" -eq 2 ] || fail "read-only dir: exit $rc, expected 2: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "read-only dir: not one line: $(cat "$work/err")"
	grep -q "not writable" "$work/err" || fail "message: $(cat "$work/err")"
	;;
tmpfs)
	# tmpfs is memory, not a disk: the run works and every row says so.
	mkdir -p "$work/mem"
	if ! mount -t tmpfs -o size=16m tmpfs "$work/mem" 2>/dev/null; then
		echo "SKIP: cannot mount a tmpfs here (needs root and mount rights)"
		exit 77
	fi
	"$bin" --dir "$work/mem" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --engine psync \
		--block 4KiB,8B --test seq_read --format csv >"$work/out" 2>"$work/err"
	rc=$?
	left=$(find "$work/mem" -mindepth 1)
	# A file larger than the tmpfs is refused with the numbers.
	"$bin" --dir "$work/mem" --file-size 64MiB --quiet >/dev/null 2>"$work/err2"
	rc2=$?
	umount "$work/mem"
	[ "$rc" -eq 0 ] || fail "tmpfs run exited $rc: $(cat "$work/err")"
	[ -z "$left" ] || fail "left behind on tmpfs: $left"
	grep -q "tmpfs" "$work/err" || fail "no tmpfs note on stderr"
	n=$(grep -c '^disk,' "$work/out")
	t=$(grep '^disk,' "$work/out" | grep -c tmpfs)
	if [ "$n" -eq 0 ] || [ "$n" -ne "$t" ]; then
		fail "$t of $n rows flagged tmpfs"
	fi
	[ "$rc2" -eq 2 ] || fail "64MiB on a 16MiB tmpfs: exit $rc2, expected 2"
	grep -q "does not fit" "$work/err2" || fail "message: $(cat "$work/err2")"
	;;
nodirect)
	# ramfs refuses O_DIRECT (EINVAL): buffered rows with the cache dropped under
	# --direct auto, exit 3 under --direct on; the file is gone either way.
	mkdir -p "$work/ram"
	if ! mount -t ramfs ramfs "$work/ram" 2>/dev/null; then
		echo "SKIP: cannot mount a ramfs here (needs root and mount rights)"
		exit 77
	fi
	"$bin" --dir "$work/ram" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --engine psync \
		--block 4KiB --test seq_read,seq_write --format csv >"$work/out" 2>"$work/err"
	rc=$?
	"$bin" --dir "$work/ram" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --engine psync \
		--block 4KiB --direct on --quiet >/dev/null 2>"$work/err2"
	rc2=$?
	left=$(find "$work/ram" -mindepth 1)
	umount "$work/ram"
	[ "$rc" -eq 0 ] || fail "--direct auto on ramfs exited $rc: $(cat "$work/err")"
	grep -q "does not support O_DIRECT" "$work/err" || fail "no O_DIRECT note: $(cat "$work/err")"
	n=$(grep -c '^disk,' "$work/out")
	t=$(grep '^disk,' "$work/out" | grep -c 'buffered;cache_dropped')
	if [ "$n" -eq 0 ] || [ "$n" -ne "$t" ]; then
		fail "$t of $n rows flagged buffered;cache_dropped"
	fi
	[ "$rc2" -eq 3 ] || fail "--direct on on ramfs: exit $rc2, expected 3: $(cat "$work/err2")"
	[ "$(wc -l <"$work/err2")" -eq 1 ] || fail "--direct on: not one line: $(cat "$work/err2")"
	[ -z "$left" ] || fail "left behind on ramfs: $left"
	;;
*)
	fail "unknown case"
	;;
esac
rm -rf "$work"
echo "ok: $case_name"
