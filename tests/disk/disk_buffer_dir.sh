#!/bin/sh
# diskbench --buffer-dir at tiny sizes: I/O buffers on two files of a tmpfs directory
# diskbench makes (and reuses only when it holds diskbench's marker), rows that say
# buffer_pages=shared, and one line with exit 2 for a directory diskbench did not make,
# one not on tmpfs, or --buffer-pages beside it, leaving a stranger's files untouched.
# Usage: disk_buffer_dir.sh shared|foreign|not_tmpfs|conflict DISKBENCH WORKDIR
# Exit 0 pass, 1 fail, 77 skipped (with the reason on stdout).
set -u
case_name=$1
bin=$2

TEST_NAME="buffer-dir $case_name"
# shellcheck source=tests/disk/lib_case.sh
. "$(dirname "$0")/lib_case.sh"
new_work "$3/bufdir_$case_name"

# A writable tmpfs for the buffers: /dev/shm where it is one.
shm=""
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	shm=$(mktemp -d /dev/shm/peakbench-test.XXXXXX) || shm=""
fi
cleanup() { [ -z "$shm" ] || rm -rf "$shm"; }
trap cleanup EXIT
need_shm() { [ -n "$shm" ] || skip "no writable tmpfs at /dev/shm"; }

run() { # --buffer-dir DIR, then more options
	bd=$1
	shift
	"$bin" --dir "$dir" --file-size 4MiB --reps 1 --ci 0 --min-time 0.01 --quiet --format csv \
		--buffer-dir "$bd" "$@" >"$work/out" 2>"$work/err"
	rc=$?
}

# exit 2, one line on stderr that names the problem, and no test file left behind
refused() { # what the line must say
	[ "$rc" -eq 2 ] || fail "expected exit 2, got $rc: $(cat "$work/err")"
	[ "$(wc -l <"$work/err")" -eq 1 ] || fail "expected one line on stderr: $(cat "$work/err")"
	grep -q -- "$1" "$work/err" || fail "no '$1' in: $(cat "$work/err")"
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "left behind: $(find "$dir" -mindepth 1)"
}

size_of() { stat -c %s "$1" 2>/dev/null || echo 0; }

case $case_name in
shared)
	need_shm
	bd=$shm/buffers
	# two threads, reads and writes of 1 MiB: read.buf holds a buffer per thread
	run "$bd" --threads 2 --test seq_write,seq_read,rand_read --block 4KiB,1MiB --engine psync --data-period 1MiB
	[ "$rc" -eq 0 ] || fail "exited $rc: $(cat "$work/err")"
	n=$(grep -c '^disk,' "$work/out")
	[ "$n" -gt 0 ] || fail "no rows"
	ok=$(grep '^disk,' "$work/out" | grep -cE '(^|[,;])buffer_pages=shared(;|$)')
	[ "$ok" -eq "$n" ] || fail "$ok of $n rows say buffer_pages=shared"
	[ -f "$bd/peakbench-buffers" ] || fail "no marker in $bd"
	[ "$(size_of "$bd/read.buf")" -ge $((2 << 20)) ] || fail "read.buf $(size_of "$bd/read.buf") bytes: not 2 threads x 1 MiB"
	[ "$(size_of "$bd/write.buf")" -ge $((1 << 20)) ] || fail "write.buf $(size_of "$bd/write.buf") bytes: not the 1 MiB period"
	[ -z "$(find "$dir" -mindepth 1)" ] || fail "left behind: $(find "$dir" -mindepth 1)"
	# its own directory again: reused, grown never shrunk
	before=$(size_of "$bd/read.buf")
	run "$bd" --threads 1 --test seq_read --block 4KiB --engine psync --format json
	[ "$rc" -eq 0 ] || fail "reuse exited $rc: $(cat "$work/err")"
	tr -d ' \t' <"$work/out" | grep -qF "\"disk.buffer_dir\":\"$bd\"" || fail "the context does not name $bd"
	[ "$(size_of "$bd/read.buf")" -eq "$before" ] || fail "read.buf changed size on reuse"
	;;
foreign)
	need_shm
	# a directory diskbench did not make, with a file of the name it would map
	bd=$shm/theirs
	mkdir "$bd" && printf 'keep me\n' >"$bd/read.buf" || fail "cannot set up $bd"
	run "$bd" --test seq_read --block 4KiB --engine psync
	refused "marker"
	[ "$(cat "$bd/read.buf")" = "keep me" ] || fail "a file diskbench did not create was changed"
	[ ! -e "$bd/write.buf" ] || fail "diskbench created files in a directory it did not make"
	;;
not_tmpfs)
	fs=$(stat -f -c %T "$work" 2>/dev/null)
	case $fs in tmpfs | ramfs) skip "the work directory is on $fs" ;; esac
	run "$work/bufs" --test seq_read --block 4KiB --engine psync
	refused "not on tmpfs"
	[ ! -e "$work/bufs" ] || fail "the refused directory was left behind"
	;;
conflict)
	run "$work/bufs" --buffer-pages small --test seq_read --block 4KiB
	refused "give one"
	[ ! -e "$work/bufs" ] || fail "a directory was made for a refused command line"
	;;
*)
	fail "unknown case"
	;;
esac
echo "ok: buffer-dir $case_name"
