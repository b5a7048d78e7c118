# shellcheck shell=sh
# Sourced by diskbench's case scripts: fail and skip lines that name the case (set
# TEST_NAME first), and a private, empty work directory with a dir/ for --dir inside.

fail() {
	echo "FAIL ($TEST_NAME): $*"
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

# new_work DIR: DIR emptied and made again with DIR/dir inside; sets work and dir.
new_work() {
	work=$1
	rm -rf "$work"
	mkdir -p "$work/dir" || fail "cannot create $work/dir"
	dir=$work/dir
}
