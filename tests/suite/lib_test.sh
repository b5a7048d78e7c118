# shellcheck shell=sh
# Shared by the tests of tests/suite: fail with a message, check a file against the schema.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
ok() { echo "ok: $*"; }

# schema CHECK_BIN csv|json FILE
schema() {
	"$1" "$2" "$3" || fail "$3 does not match the schema"
	ok "$3 validates ($2)"
}

# A CSV cell of the first row whose columns 2, 3 and 4 are TEST, VARIANT and THREADS.
# cell FILE TEST VARIANT THREADS METRIC COLUMN
cell() {
	awk -F, -v t="$2" -v v="$3" -v th="$4" -v m="$5" -v c="$6" \
		'$2 == t && $3 == v && $4 == th && $6 == m { print $c; exit }' "$1"
}

# near A B: |A - B| <= 1e-6 * |B|
near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 1e-6 * m) }'
}

# The cache sizes and the cloud given, as a user may give them (PEAKBENCH_CACHE_EFFECTIVE:
# the reported sizes, unmeasured; PEAKBENCH_CLOUD: none): a run_all.sh whose test is about
# something else skips the 2-3 s of peakinfo --caches and the metadata request (issue 42).
given_caches_and_cloud() {
	given_caches
	export PEAKBENCH_CLOUD=unknown,,unknown
}
given_caches() { export PEAKBENCH_CACHE_EFFECTIVE=l1d=0:unmeasured,l2=0:unmeasured,l3=0:unmeasured; }
