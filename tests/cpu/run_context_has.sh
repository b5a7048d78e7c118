#!/bin/sh
# Run a binary in JSON and check that its context has a key (and exit 0).
# Usage: run_context_has.sh KEY BINARY [ARGS...]
set -u
key=$1
shift
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$@" --format json --output "$tmp/out.json" 2>"$tmp/err"; then
	echo "FAIL: '$*' failed:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
if ! grep -q "\"$key\"" "$tmp/out.json"; then
	echo "FAIL: context has no key $key" >&2
	head -c 3000 "$tmp/out.json" >&2
	exit 1
fi
echo "ok: $key: $(grep -o "\"$key\"[^,]*" "$tmp/out.json")"
