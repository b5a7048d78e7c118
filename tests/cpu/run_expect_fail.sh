#!/bin/sh
# A run whose kernel or solve is wrong must exit 1 and never report its rate.
# Usage: run_expect_fail.sh ABSENT_VARIANT BINARY [ARGS...]   (ARGS without --format/--output)
set -u
absent=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$@" --format csv --output "$tmp/out.csv" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 1 ]; then
	echo "FAIL: '$*' exited $rc, expected 1" >&2
	cat "$tmp/err" >&2
	exit 1
fi
if grep -q ",$absent," "$tmp/out.csv" 2>/dev/null; then
	echo "FAIL: a rate was reported for $absent:" >&2
	cat "$tmp/out.csv" >&2
	exit 1
fi
echo "ok: exit 1, no row for $absent: $(cat "$tmp/err")"
