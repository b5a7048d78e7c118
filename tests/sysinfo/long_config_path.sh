#!/bin/sh
# A peaks.conf deep in a folder with spaces (a student's clone, issue 34): peakinfo records
# its path whole in peakinfo.config, each override's origin as PATH:LINE and the peak's
# note as "KEY from PATH:LINE", at a path of about 3 KiB (the context held 320 bytes,
# peakinfo.config 300 and an origin 64: each was cut).
# Usage: long_config_path.sh PEAKINFO GOOD_CONF SYSROOT
set -u
bin=$1 conf=$2 root=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
dir=$tmp
while [ ${#dir} -lt 3000 ]; do
	dir="$dir/a folder of my course with a long name, part of a deep tree of the student's"
done
mkdir -p "$dir" || exit 1
cp "$conf" "$dir/my peaks.conf" || exit 1
if ! "$bin" --root "$root" --config "$dir/my peaks.conf" --format json \
	--output "$tmp/out.json" 2>"$tmp/err"; then
	echo "FAIL: peakinfo failed:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
python3 - "$tmp/out.json" "$dir/my peaks.conf" <<'PY'
import json, sys
ctx = json.load(open(sys.argv[1]))["context"]
path = sys.argv[2]
def want(key, value):
    got = ctx.get(key)
    if got != value:
        sys.exit(f"FAIL: {key} is {got!r:.200} ... ({len(got or '')} bytes), want {len(value)} bytes")
want("peakinfo.config", path)
want("override.cpu.ghz", path + ":14")  # the last of the two cpu.ghz lines wins
want("override.mem.channels", path + ":6")
want("peak.ghz_note", "cpu.ghz from " + path + ":14")
print(f"ok: a {len(path)}-byte peaks.conf path kept whole in the context")
PY
