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
