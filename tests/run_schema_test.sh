#!/bin/sh
# Run a peakbench binary at a tiny size in csv and/or json and validate the output.
# Usage: run_schema_test.sh SCHEMA_CHECK csv|json|both BINARY [ARGS...]
set -u
check=$1 formats=$2
shift 2
[ "$formats" = both ] && formats="csv json"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
for fmt in $formats; do
	out="$tmp/out.$fmt"
	"$@" --format "$fmt" --output "$out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $* --format $fmt exited $rc" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	if ! "$check" "$fmt" "$out"; then
		echo "FAIL: $fmt output does not match the schema:" >&2
		head -c 4000 "$out" >&2
		exit 1
	fi
	echo "ok: $fmt output of $1 validates ($(wc -l <"$out") lines)"
done
