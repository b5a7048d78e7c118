#!/bin/sh
# Expect a binary to exit with a given code and print exactly one line on stderr.
# Usage: run_usage_test.sh EXPECTED_EXIT BINARY [ARGS...]
set -u
want=$1
shift
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
"$@" >/dev/null 2>"$err" </dev/null
rc=$?
lines=$(wc -l <"$err")
if [ "$rc" -ne "$want" ]; then
	echo "FAIL: '$*' exited $rc, expected $want; stderr:" >&2
	cat "$err" >&2
	exit 1
fi
if [ "$lines" -ne 1 ]; then
	echo "FAIL: '$*' printed $lines lines on stderr, expected exactly one:" >&2
	cat "$err" >&2
	exit 1
fi
echo "ok: exit $rc: $(cat "$err")"
