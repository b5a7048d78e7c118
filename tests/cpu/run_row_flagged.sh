#!/bin/sh
# Run a binary in JSON (exit 0 expected) and check that the row of a variant carries a flag
# starting with PREFIX and has no samples (n 0): an unsupported kernel is a row, not a gap.
# Usage: run_row_flagged.sh VARIANT PREFIX BINARY [ARGS...]
set -u
variant=$1 prefix=$2
shift 2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! "$@" --format json --output "$tmp/out.json" 2>"$tmp/err"; then
	echo "FAIL: '$*' failed:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
python3 - "$tmp/out.json" "$variant" "$prefix" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["results"] if r.get("variant") == sys.argv[2]]
if not rows:
    sys.exit(f"FAIL: no row of variant {sys.argv[2]}")
for r in rows:
    flags = (r.get("flags") or "").split(";")
    if not any(f.startswith(sys.argv[3]) for f in flags):
        sys.exit(f"FAIL: {sys.argv[2]} row has flags {r.get('flags')!r}, none starts {sys.argv[3]!r}")
    if r.get("n"):
        sys.exit(f"FAIL: {sys.argv[2]} row has n={r['n']}, expected no samples")
print(f"ok: {len(rows)} {sys.argv[2]} row(s): {rows[0].get('flags')}")
PY
